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

from ._profiles import Profile, RawUnit
from ._punkt_fast import punkt_spans
from ._treebank_fast import treebank_tokens
from ._units import Level

PUNCTUATION = string.punctuation
_SENTENCE_END = re.compile(r"[.?!]")
_STRIP_FOR_MATCH = string.punctuation + " "


def _strip_unit(value: str, start: int) -> RawUnit:
    """``value.strip().strip('.')`` with its offsets moved to what remains."""
    inner = value.strip()
    if inner is not value:
        start += len(value) - len(value.lstrip())
    stripped = inner.strip(".")
    if len(stripped) != len(inner):
        start += len(inner) - len(inner.lstrip("."))
    return (stripped, start, start + len(stripped))


def _chars(text: str) -> list[RawUnit]:
    return [(c, i, i + 1) if not (c.isspace() or c == ".") else ("", i, i) for i, c in enumerate(text)]


def _dotted(token: str, start: int, end: int) -> RawUnit:
    """A token with leading or trailing dots, stripped of them (offsets clipped: quotes may be rewritten)."""
    value = token.strip(".")
    a = min(start + len(token) - len(token.lstrip(".")), end)
    return (value, a, min(a + len(value), end))


def _words_from(
    text: str,
    sentence_spans: Callable[[str], list[tuple[int, int]]],
    tokenize: Callable[[str], list[tuple[str, int, int]]],
) -> list[RawUnit]:
    units: list[RawUnit] = []
    if text and not text[0].isspace() and not text[-1].isspace() and not _SENTENCE_END.search(text):
        spans: list[tuple[int, int]] = [(0, len(text))]  # what Punkt gives a text it has no candidate break in
    else:
        spans = sentence_spans(text)
    for s, e in spans:
        # tokens hold no whitespace (the tokenizer splits on it), so only dots can need stripping
        units += [
            (t, s + a, s + b) if t[0] != "." and t[-1] != "." else _dotted(t, s + a, s + b)
            for t, a, b in tokenize(text[s:e])
            if t not in PUNCTUATION
        ]
    return units


def _sentences_from(text: str, sentence_spans: Callable[[str], list[tuple[int, int]]]) -> list[RawUnit]:
    return [_strip_unit(text[a:b], a) for a, b in sentence_spans(text)]


def _paragraphs(text: str) -> list[RawUnit]:
    units: list[RawUnit] = []
    start = 0
    for part in text.split("\n\n"):
        units.append(_strip_unit(part, start))
        start += len(part) + 2
    return units


def _make_split(
    sentence_spans: Callable[[str], list[tuple[int, int]]],
    tokenize: Callable[[str], list[tuple[str, int, int]]],
) -> Callable[[str, Level], list[RawUnit]]:
    def split(text: str, level: Level) -> list[RawUnit]:
        if level is Level.WORD:
            return _words_from(text, sentence_spans, tokenize)
        if level is Level.SENTENCE:
            return _sentences_from(text, sentence_spans)
        if level is Level.CHAR:
            return _chars(text)
        if level is Level.PARAGRAPH:
            return _paragraphs(text)
        return [_strip_unit(text, 0)]

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


def _nltk_tokens(sentence: str) -> list[tuple[str, int, int]]:
    from nltk.tokenize import NLTKWordTokenizer

    # offsets are not compared by the differential tests; tokens are
    return [(token, 0, 0) for token in NLTKWordTokenizer().tokenize(sentence)]


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
)
