"""The ``collie-v1`` profile: the COLLIE reference checker's units, reproduced exactly.

COLLIE-v1's published verdicts come from these rules, so benchmark conformance needs them bit for bit:

* chars: ``list(text)`` of the whole text (spaces and newlines count);
* sentences: nltk's *untrained* ``PunktSentenceTokenizer()`` (it splits after "Mr.");
* words: nltk's ``NLTKWordTokenizer`` on each of those sentences (what ``word_tokenize`` does with that
  splitter), then every token that is a substring of ``string.punctuation`` is dropped (so ``` `` ``` and
  ``''`` quote tokens, “ ” — ’ stay as words, "..." gives an empty word, "don't" gives "do" + "n't");
* paragraphs: ``text.split("\\n\\n")`` exactly (empty paragraphs included);
* every unit is ``.strip().strip('.')``;
* strings compare after lowercasing and stripping ASCII punctuation and spaces at both ends (unless that
  leaves nothing).

nltk itself is too slow for bulk checking (about 900 texts/s for both levels), so the splitting runs on
Corral's own exact reimplementations (``_punkt_fast``, ``_treebank_fast``), which are differentially tested
against nltk; the ``collie-v1-nltk`` profile keeps the nltk path (the same rules, slow: the ground truth of those
tests and of the throughput benchmark).
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from itertools import compress, repeat
from operator import itemgetter

from ._profiles import Profile, RawUnit
from ._punkt_fast import punkt_spans
from ._treebank_fast import in_domain, plain_tokens, treebank_tokens
from ._units import Level

PUNCTUATION = string.punctuation
_SENTENCE_END = re.compile(r"[.?!]")
_STRIP_FOR_MATCH = string.punctuation + " "


def _one_sentence(text: str) -> bool:
    """Whether Punkt gives ``text`` back whole, without running it: a text with no whitespace at either end and no
    ``.``, ``?`` or ``!`` but perhaps its last character has no candidate break (a candidate needs something
    after it)."""
    if not text or text[0].isspace() or text[-1].isspace():
        return False
    return _SENTENCE_END.search(text, 0, len(text) - 1 if text[-1] in ".?!" else len(text)) is None


def _strip_unit(value: str, start: int) -> RawUnit:
    """``value.strip().strip('.')`` with its offsets moved to what remains."""
    inner = value.strip()
    if inner is not value:
        start += len(value) - len(value.lstrip())
    stripped = inner.strip(".")
    if len(stripped) != len(inner):
        start += len(inner) - len(inner.lstrip("."))
    return (stripped, start, start + len(stripped))


def _chars(text: str, base: int = 0) -> list[RawUnit]:
    return [(c, i, i + 1) if not (c.isspace() or c == ".") else ("", i, i) for i, c in enumerate(text, base)]


def _dotted(token: str, start: int, end: int) -> RawUnit:
    """A token with leading or trailing dots, stripped of them (offsets clipped: quotes may be rewritten)."""
    value = token.strip(".")
    a = min(start + len(token) - len(token.lstrip(".")), end)
    return (value, a, min(a + len(value), end))


# Every substring of string.punctuation (the empty one too): the tokens that are not words. ``_is_word(token,
# True)`` is False for them and True for every other token, a test that ``map`` runs in C.
_is_word = dict.fromkeys(
    (PUNCTUATION[i:j] for i in range(len(PUNCTUATION) + 1) for j in range(i, len(PUNCTUATION) + 1)), False
).get
_TRUE = repeat(True)
_value = itemgetter(0)


def _words_from(
    text: str,
    sentence_spans: Callable[[str], list[tuple[int, int]]],
    tokenize: Callable[[str, int], list[tuple[str, int, int]]],
    base: int = 0,
) -> list[RawUnit]:
    if _one_sentence(text):
        tokens = tokenize(text, base)  # what Punkt gives a text it has no candidate break in: the whole of it
    else:
        tokens = []
        for s, e in sentence_spans(text):
            tokens += tokenize(text[s:e], base + s)
    # the tokens that are not substrings of string.punctuation, picked in C
    units = list(compress(tokens, map(_is_word, map(_value, tokens), _TRUE)))
    if "." in text:
        # tokens hold no whitespace (the tokenizer splits on it), so a word that starts or ends with a dot shows
        # as one next to a space in the words joined by spaces; those few are stripped of their dots
        joined = " ".join(map(_value, units))
        if joined[:1] == "." or joined[-1:] == "." or " ." in joined or ". " in joined:
            units = [u if u[0][0] != "." and u[0][-1] != "." else _dotted(*u) for u in units]
    return units


def _last_word(text: str, base: int) -> RawUnit | None:
    """The last word of ``text`` (what ``split(text, WORD, base)[-1]`` is), tokenizing only the end of it: the
    tokens after a space are the last tokens of the whole (``treebank_fast.in_domain``). NotImplemented where that
    does not hold: a text Punkt could split, or one outside the fast tokenizer's domain."""
    if not _one_sentence(text) or not in_domain(text):
        return NotImplemented
    start = text.rfind(" ") + 1
    for token in reversed(treebank_tokens(text[start:], base + start)):
        value = token[0]
        if _is_word(value, True):
            return token if value[0] != "." and value[-1] != "." else _dotted(*token)
    # only punctuation after the last space: the whole split (looking back one space at a time could take
    # quadratic time on a long run of punctuation)
    return None if start == 0 else NotImplemented


_ALNUM = frozenset(string.ascii_letters + string.digits)


def _first_word(text: str, base: int) -> RawUnit | None:
    """The first word of ``text`` (``split(text, WORD, base)[0]``), tokenizing only the start of it: up to a space
    and the ASCII letter or digit after it, whose tokens before that character are the first tokens of the whole
    (``treebank_fast.in_domain``). NotImplemented where that does not hold (see ``_last_word``), or where no such
    space is found."""
    if not _one_sentence(text) or not in_domain(text):
        return NotImplemented
    cut = text.find(" ")
    tries = 2  # the token after the first such space starts with a letter or digit: a word, seen by the second
    while cut >= 0 and tries:
        if text[cut + 1 : cut + 2] in _ALNUM:
            tries -= 1
            for token in treebank_tokens(text[: cut + 2], base):
                value = token[0]
                if token[1] > base + cut:
                    break  # the token after the space: cut short here, not the whole text's
                if _is_word(value, True):
                    return token if value[0] != "." and value[-1] != "." else _dotted(*token)
        cut = text.find(" ", cut + 1)
    return NotImplemented


def unit_at(text: str, level: Level, index: int, base: int = 0) -> RawUnit | None:
    """``split(text, level, base)[index]`` when it can be had for less than the whole split (the first or last
    word of a one-sentence text), else NotImplemented."""
    if level is Level.WORD:
        if index == -1:
            return _last_word(text, base)
        if index == 0:
            return _first_word(text, base)
    return NotImplemented


def count_of(text: str, level: Level) -> int:
    """``len(split(text, level))`` without building the units where that is cheaper (the words of a one-sentence
    text with no ``'`` and no contraction: its tokens less punctuation, a ``"`` counting as the word nltk makes of
    it), else NotImplemented."""
    if level is not Level.WORD or not _one_sentence(text):
        return NotImplemented
    tokens = plain_tokens(text)
    if tokens is None:
        return NotImplemented
    return sum(map(_is_word, tokens, _TRUE)) + tokens.count('"')


def _sentences_from(
    text: str, sentence_spans: Callable[[str], list[tuple[int, int]]], base: int = 0
) -> list[RawUnit]:
    units: list[RawUnit] = []
    for a, b in sentence_spans(text):  # _strip_unit, inline: a check splits thousands of sentences
        value = text[a:b]
        inner = value.strip()
        if inner is not value:
            a += len(value) - len(value.lstrip())
        stripped = inner.strip(".")
        if stripped is not inner:
            a += len(inner) - len(inner.lstrip("."))
        units.append((stripped, base + a, base + a + len(stripped)))
    return units


def _paragraphs(text: str, base: int = 0) -> list[RawUnit]:
    units: list[RawUnit] = []
    start = base
    for part in text.split("\n\n"):
        units.append(_strip_unit(part, start))
        start += len(part) + 2
    return units


def _make_split(
    sentence_spans: Callable[[str], list[tuple[int, int]]],
    tokenize: Callable[[str, int], list[tuple[str, int, int]]],
) -> Callable[..., list[RawUnit]]:
    def split(text: str, level: Level, base: int = 0) -> list[RawUnit]:
        """The units of ``text`` at ``level``, with offsets from ``base`` (the text's place in a longer one)."""
        if level is Level.WORD:
            return _words_from(text, sentence_spans, tokenize, base)
        if level is Level.SENTENCE:
            return _sentences_from(text, sentence_spans, base)
        if level is Level.CHAR:
            return _chars(text, base)
        if level is Level.PARAGRAPH:
            return _paragraphs(text, base)
        return [_strip_unit(text, base)]

    return split


def normalize_all(values: list[str], case_sensitive: bool = False) -> list[str]:
    """``normalize`` over many values at once (the checker's hot path for word lists)."""
    if case_sensitive:
        return [v.strip(_STRIP_FOR_MATCH) or v for v in values]
    return [v.lower().strip(_STRIP_FOR_MATCH) or v for v in values]


def normalize(value: str, case_sensitive: bool = False) -> str:
    """The reference's literal patch: lowercase, strip ASCII punctuation and spaces; keep it if that empties it."""
    patched = (value if case_sensitive else value.lower()).strip(_STRIP_FOR_MATCH)
    return patched if patched else value


def _nltk_sentence_spans(text: str) -> list[tuple[int, int]]:
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    return list(PunktSentenceTokenizer().span_tokenize(text))


def _nltk_tokens(sentence: str, base: int = 0) -> list[tuple[str, int, int]]:
    from nltk.tokenize import NLTKWordTokenizer

    # offsets are not compared by the differential tests; tokens are
    return [(token, base, base) for token in NLTKWordTokenizer().tokenize(sentence)]


split = _make_split(punkt_spans, treebank_tokens)
"""The fast exact split used by the profile."""

reference_split = _make_split(_nltk_sentence_spans, _nltk_tokens)
"""The same rules on nltk itself: slow, the ground truth for differential tests (values only)."""

PROFILE = Profile(
    name="collie-v1",
    description=(
        "COLLIE-v1 reference rules: nltk untrained Punkt sentences, NLTK Treebank words minus punctuation "
        "tokens, paragraphs split on '\\n\\n', units stripped of spaces and dots, case- and "
        "punctuation-insensitive string matching."
    ),
    split=split,
    normalize=normalize,
    normalize_all=normalize_all,
    split_at=split,
    unit_at=unit_at,
    count_of=count_of,
)

NLTK_PROFILE = Profile(
    name="collie-v1-nltk",
    description=(
        "collie-v1's rules on nltk itself (untrained PunktSentenceTokenizer, NLTKWordTokenizer): the same units as "
        "collie-v1, several times slower (docs/performance.md); the ground truth its tokenizers are tested against."
    ),
    split=reference_split,
    normalize=normalize,
    normalize_all=normalize_all,
    split_at=reference_split,
)
