"""nltk's *untrained* Punkt sentence splitter, reimplemented for speed with exactly the same output.

Why: the COLLIE-v1 reference splits sentences with ``PunktSentenceTokenizer()`` and no training, and
checking constraints in bulk needs those exact sentences, but nltk manages only some 10,000 texts a second.
:func:`punkt_spans` returns exactly ``list(PunktSentenceTokenizer().span_tokenize(text))`` (nltk 3.10.4)
about twenty times faster.

How: with empty ``PunktParameters`` (no abbreviations, collocations or sentence starters, an empty
orthographic context) most of Punkt collapses to this:

* Candidates are the ``.``, ``?`` and ``!`` followed by a "non-word" character (quotes, brackets,
  ``;:*@?!``) or by whitespace and a further token.  A candidate's *context* is the word before it (back to
  the last ``string.whitespace`` character), the candidate and what follows it.  When no ASCII whitespace
  separates two candidates, nltk drops the first unless its word was empty (and a word that begins at the
  previous candidate starts where that one's started).
* A context breaks when one of its tokens is a sentence break followed by another token.  ``.``, ``?`` and
  ``!`` tokens are breaks; a token ending in a single ``.`` is a break, except that an *initial* (``J.``)
  or a *number* (``1990.``) stays in its sentence when the next token is one of ``;:,.!?`` or starts in
  lower case, and an initial also when it starts in upper case; an ellipsis never breaks.
* A sentence runs from the token after one break to the next break; closing quotes and brackets after a
  break move onto the sentence before (``_realign_boundaries``); the last one ends at the last non-space.

One precompiled pattern finds every candidate and, at the same time and in C, settles nearly all of them
from the characters around them (a word of two or more letters before a ``.``, a number before an
upper-case word, ``?`` and ``!``, ...).  The rest (about one in a few hundred on model outputs) get their
context tokenized by a compact Python version of nltk's word tokenizer and token rules.

Fallback: where nltk's answer would hinge on the ``regex`` module's Unicode tables (``\\w``/``\\d`` of a
non-ASCII token ending in ``.``, e.g. a possible initial or number in another script), the context goes to
nltk itself (``text_contains_sentbreak``), so the result never depends on Python's and ``regex``'s Unicode
versions agreeing; ordinary text never gets there.  Whitespace classes are spelled out to match
``regex``'s ``\\s`` (which, unlike Python's, leaves out ``\\x1c``-``\\x1f``).  ``tests/text/test_punkt_fast.py``
checks the output against nltk on the COLLIE data and on generated adversarial text, and checks the
character-class assumptions over all of Unicode.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["REFERENCE", "punkt_spans"]

REFERENCE = "nltk.tokenize.punkt.PunktSentenceTokenizer() (untrained), nltk 3.10.4"

# ``\s`` of the ``regex`` module (nltk compiles its patterns with it): Unicode White_Space.
_WS = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
# ``string.whitespace``, which nltk uses to find the start of the word before a candidate.
_ASCII_WS = " \t\n\r\x0b\x0c"
# PunktLanguageVars._re_non_word_chars: characters that cannot appear within words.
_NW = ")\";}\\]*:@'({\\[\u2018\u2019\u201c\u201d\xab\xbb!?"
# PunktLanguageVars._re_multi_char_punct, with the explicit whitespace class.
_MC = rf"(?:-{{2,}}|\.{{2,}}|(?:\.[{_WS}]){{2,}}\.)"


def _digits_then_period(boundary: str) -> str:
    """Lookbehinds (after the candidate '.') for a token of 1-4 ASCII digits that starts after ``boundary``."""
    return "|".join(rf"(?<=(?<![^{boundary}])[0-9]{{{k}}}\.)" for k in range(1, 5))


# Characters after which a new token starts for sure: whitespace and the non-word characters that are
# always single-character tokens (they cannot start a word).
_BOUNDARY = _WS + ')";}\\]*:@({\\['

# Every candidate; ``m.lastindex`` says what it is:
#   1: certainly a break (``m.end(1)`` is where the next sentence starts);
#   2: a number such as "1990." that is certainly a break (same);
#   3: an initial or a number that is certainly not a break;
#   4: undecided: its context has to be tokenized (``m.end(4)`` is where the next sentence would start).
_CANDIDATES = re.compile(
    rf"""
    [.?!]
    (?:
        (?:
            (?<=[?!])                     # '?' and '!' are always their own sentence-break token
          | (?<=[^\W\d]\w\.) | (?<=\w[^\W\d]\.)     # a token of 2+ word characters, not all digits:
          | (?<=[^\W\d]\.\w\.) | (?<=\w\.[^\W\d]\.) #   neither an initial nor a number ("U.S.")
          | (?<![^{_WS}{_NW}]\.)           # '.' alone, or after a quote/bracket/'?'/'!' token
        )
        (?=(                              # ... followed by a token (not '.', which could start '. . .')
            [{_WS}]+(?=[^{_WS}.\x1c-\x1f])
          | (?=[{_NW}])
        ))
      | (?:{_digits_then_period(_BOUNDARY)})    # a number ("1990."): a break unless the next token is
        (?=(                                 # one of ';:,.!?' or starts in lower case
            [{_WS}]+(?=(?![a-z.?!;:,])[!-~\u2018\u201c])
          | (?=[)"}}\]*@'({{\[\u2018\u2019\u201c\u201d\xab\xbb])
        ))
      | (?:
            (?<=(?<![^{_ASCII_WS}])[A-Za-z_]\.)(?=[{_WS}]+[A-Za-z])    # "J. Smith", "J. may"
          | (?:{_digits_then_period(_ASCII_WS)})(?=[{_WS}]+[a-z])       # "1990. and"
        )
        (?=[{_WS}]++[^{_WS}.?!]*[.?!]?(?![^{_WS}]))  # ... and that next word holds no break of its own
        ()
      | (?=([{_WS}]+(?=[^{_WS}])|(?=[{_NW}])))
    )
    """,
    re.VERBOSE,
)
_OTHER_ASCII_WS = re.compile("[\t\r\x0b\x0c]")

_NON_WS_RUN = re.compile(rf"[^{_WS}]+")

# PunktLanguageVars._word_tokenize_fmt, with explicit character classes (lines never contain "\n").
_WORD_TOKENS = re.compile(
    rf"""(
        {_MC}
      | (?=[^(\"`{{\[:;&\#*@)}}\]\-,])[^{_WS}]+?
        (?=[{_WS}]|$|[{_NW}]|{_MC}|,(?=$|[{_WS}]|[{_NW}]|{_MC}))
      | [^{_WS}]
    )""",
    re.VERBOSE,
)

# PunktToken._RE_NUMERIC on ASCII text; and an ASCII initial (PunktToken._RE_INITIAL).
_ASCII_NUMBER = re.compile(r"-?[.,]?[0-9][0-9,.\-]*\.?")
_ASCII_INITIAL = re.compile(r"[A-Za-z_]\.")
_PUNCTUATION = frozenset(";:,.!?")
_SENT_END = frozenset(".?!")

# PunktLanguageVars.re_boundary_realignment; group 1 is what moves onto the previous sentence.
_REALIGN = re.compile(rf"([\"')\]}}\u2018\u2019\u201c\u201d\xab\xbb]+?)(?:[{_WS}]+|(?=--)|$)", re.MULTILINE)
_CLOSERS = frozenset("\"')]}\u2018\u2019\u201c\u201d\xab\xbb")

_nltk_tokenizer: Any = None


def _nltk_contains_sentbreak(context: str) -> bool:
    global _nltk_tokenizer
    if _nltk_tokenizer is None:
        from nltk.tokenize.punkt import PunktSentenceTokenizer

        _nltk_tokenizer = PunktSentenceTokenizer()
    return bool(_nltk_tokenizer.text_contains_sentbreak(context))


def _contains_sentbreak(context: str) -> bool:
    """``PunktSentenceTokenizer().text_contains_sentbreak(context)`` with empty parameters."""
    tokens: list[str] = []
    for line in context.split("\n"):
        if line.strip():
            tokens += _WORD_TOKENS.findall(line)
    ascii_only = context.isascii()
    for i in range(len(tokens) - 1):
        tok = tokens[i]
        if tok in _SENT_END:
            return True
        if tok[-1] != "." or tok[-2] == ".":
            continue  # not period-final, or an ellipsis / '..'-final token: never a break
        # first pass: a sentence break (no abbreviations are known); second pass: initials and numbers
        lowered = tok.lower()
        if ascii_only or tok.isascii():
            initial = _ASCII_INITIAL.fullmatch(tok) is not None
            if not (initial or _ASCII_NUMBER.fullmatch(lowered) or lowered == "##number##."):
                return True
        elif len(tok) == 2 and tok[0].isalpha():
            initial = True  # a letter is ``[^\W\d]`` for the regex module too
        elif len(tok) > 2 and any(c.isalpha() for c in lowered):
            return True  # a letter makes it neither an initial nor a number
        else:
            return _nltk_contains_sentbreak(context)
        nxt = tokens[i + 1]
        if nxt in _PUNCTUATION or nxt[0].islower() or (initial and nxt[0].isupper()):
            continue  # the orthographic heuristic says: no sentence starts here
        return True
    return False


def _breaks_at(text: str, lo: int, chain_start: int, m: re.Match[str]) -> bool:
    """Whether the undecided candidate ``m`` is a sentence break (nltk's ``text_contains_sentbreak``).

    ``chain_start`` is the first candidate of ``m``'s word; ASCII whitespace precedes it in
    ``text[lo:chain_start]`` (the stretch since the candidate before it), or ``lo`` is 0.
    """
    j = max([text.rfind(c, lo, chain_start) for c in _ASCII_WS])
    start = j + 1 if j > 0 else 0  # nltk's quirk: whitespace at index 0 alone is not seen
    after = m.end()
    nstart = m.end(4)
    end = after + 1 if nstart == after else _NON_WS_RUN.match(text, nstart).end()  # type: ignore[union-attr]
    return _contains_sentbreak(text[start:end])


def punkt_spans(text: str) -> list[tuple[int, int]]:
    """Sentence spans of nltk's untrained PunktSentenceTokenizer().span_tokenize(text), computed fast."""
    raw: list[tuple[int, int]] = []
    last_break = 0
    pending: re.Match[str] | None = None
    ps = pcs = plo = 0  # the pending candidate's position, the first candidate of its word, and where
    # the stretch before that one began
    pword = False  # whether the word before the pending candidate is non-empty
    find = text.find
    for m in _CANDIDATES.finditer(text):
        s = m.start()
        if pending is None:
            pending = m
            ps = pcs = s
            plo = 0
            pword = s > 0 and not (s > 1 and text[s - 1] in _ASCII_WS)
            continue
        lo = ps + 1
        if find(" ", lo, s) < 0 and find("\n", lo, s) < 0 and _OTHER_ASCII_WS.search(text, lo, s) is None:
            # no ASCII whitespace since the pending candidate: the same word
            if pword:
                pending = m  # nltk drops the pending candidate (its word overlaps this one's)
                ps = s
                continue
            cs = pcs
            clo = plo
            word = True
        else:
            cs = s
            clo = lo
            word = text[s - 1] not in _ASCII_WS
        kind = pending.lastindex
        if kind == 1 or kind == 2 or (kind == 4 and _breaks_at(text, plo, pcs, pending)):
            raw.append((last_break, ps + 1))
            last_break = pending.end(kind)  # type: ignore[arg-type]
        pending = m
        ps = s
        pcs = cs
        plo = clo
        pword = word
    if pending is not None:
        kind = pending.lastindex
        if kind == 1 or kind == 2 or (kind == 4 and _breaks_at(text, plo, pcs, pending)):
            raw.append((last_break, ps + 1))
            last_break = pending.end(kind)  # type: ignore[arg-type]
    raw.append((last_break, len(text.rstrip())))

    # _realign_boundaries: closing quotes and brackets after a break move onto the sentence before
    spans: list[tuple[int, int]] = []
    realign = 0
    last = len(raw) - 1
    for i in range(last):
        start, stop = raw[i]
        start += realign
        nstart, nstop = raw[i + 1]
        if nstart < nstop and text[nstart] in _CLOSERS:
            mm = _REALIGN.match(text, nstart, nstop)
            if mm is not None:
                spans.append((start, mm.end(1)))
                realign = mm.end() - nstart
                continue
        realign = 0
        if start < stop:
            spans.append((start, stop))
    start, stop = raw[last]
    start += realign
    if start < stop:
        spans.append((start, stop))
    return spans
