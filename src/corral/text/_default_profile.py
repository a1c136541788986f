"""The ``default`` segmentation profile: paragraphs, sentences and words as a careful reader sees them.

Every function takes any ``str`` (empty, huge, any Unicode, control characters, lone surrogates) and
returns ``(start, end)`` offsets into it.  Each unit is ``text[start:end]``: non-empty, free of leading and
trailing whitespace (``str.isspace``), and the spans are ordered and non-overlapping.  Nothing raises.

Rules (each has a test in ``tests/text/test_default_profile.py``; see also ``docs/segmentation.md``):

=====================================  ===========================================  ==========================
Rule                                   Input                                        Units
=====================================  ===========================================  ==========================
P1 blank line separates paragraphs     ``"A.\\n\\nB."``                               ``A.`` | ``B.``
P2 several blank lines = one break     ``"A.\\n\\n\\n\\nB."``                           ``A.`` | ``B.``
P3 CRLF blank lines                    ``"A.\\r\\n\\r\\nB."``                           ``A.`` | ``B.``
P4 spaces/tabs-only line is blank      ``"A.\\n \\t \\nB."``                            ``A.`` | ``B.``
P5 a single newline does not split     ``"A\\nB."``                                  ``A\\nB.``
P6 paragraph is stripped               ``"  A.  \\n\\n  B.\\n"``                        ``A.`` | ``B.``
P7 trailing blank lines: no paragraph  ``"A.\\n\\n\\n"``                               ``A.``
P8 whitespace-only text: none          ``" \\n\\t\\n "``                               (none)
S1 period/?/!/... + capital ends       ``"Really? Yes! Wait... Okay."``               4 sentences
S2 abbreviations do not end            ``"Dr. Smith and Mrs. Jones met. Fine."``      2 sentences
S3 U.S., e.g., i.e., etc. mid-sent.    ``"It was the U.S. in 1990. Fine."``           2 sentences
S4 initials do not end                 ``"J. R. R. Tolkien wrote. He died."``         2 sentences
S5 decimals do not end                 ``"Pi is 3.14 today. Yes."``                   2 sentences
S6 closing quotes/brackets stay        ``'He said "Go." Then he left.'``              ``He said "Go."`` | ...
S7 quote + lowercase continues         ``'"Stop!" he said. Ok.'``                     2 sentences
S8 never across paragraphs             ``"Dr.\\n\\nSmith came."``                      ``Dr.`` | ``Smith came.``
S9 a semicolon never ends a sentence   ``"I came; He left."``                         1 sentence
W1 contractions, inner apostrophes     ``"don't it's rock'n'roll"``                  3 words
W2 inner hyphens                       ``"well-known e-mail"``                        2 words
W3 dotted abbreviations keep period    ``"U.S. e.g. i.e. Ph.D."``                     ``U.S.`` ``e.g.`` ...
W4 trailing single period dropped      ``"the end."`` / ``"Dr. Who"``                 ``end`` / ``Dr``
W5 numbers: decimals, thousands, time  ``"3.14 1,000 10:30"``                         3 words
W6 currency attached to a number       ``"$5 $5.50 5€"``                              3 words
W7 percent attached to a number        ``"50% 2‰"``                                   2 words
W8 C++ / C# style names                ``"C++ C# Notepad++"``                         3 words
W9 quotes are not words (nor part)     ``'"hi" ‘yes’ «oui» `x`'``                     ``hi`` ``yes`` ...
W10 dashes/punctuation are not words   ``"a - b – c — d -- e ... !"``                 ``a`` ... ``e``
W11 Unicode letters and marks          ``"naïve Straße Москва"``                      3 words
W12 Han and Hiragana: one char a word  ``"東京は"``                                   ``東`` ``京`` ``は``
W13 Katakana run is one word           ``"コンピューター"``                            1 word
W14 emoji are not words                ``"I ❤️ 🍕 😀 1️⃣"``                             ``I``
=====================================  ===========================================  ==========================

Paragraphs
    A line break is ``\\r\\n``, ``\\r`` or ``\\n``.  A blank line holds only whitespace other than line
    breaks (spaces, tabs, no-break spaces, form feeds...).  One or more blank lines separate paragraphs.

Sentences: library choice
    Sentences are found by **syntok** (``syntok>=1.4.4,<2``), run on each paragraph separately.  Three
    candidates were evaluated on the rule table (as tests) and on real text: the 2,870 ``text`` fields of
    ``generations_dev.jsonl``, Moby-Dick and the State of the Union addresses (per-paragraph calls):

    * syntok 1.4.4: every sentence rule holds except S9, which this module adds (syntok treats ``;``
      before a capital as a terminal; on the dev texts and Moby-Dick that merge fixes ~300 wrong splits
      such as ``stood; || Ahab in his scuttle``).  ~3,900 dev texts/s (1.45 MB/s, CPU time).
    * pysbd 0.3.4: 5x slower (~770 dev texts/s, 0.1-0.3 MB/s, worse on long paragraphs: a 10 MB text
      takes minutes), splits at every single newline (S8), and keeps a quotation whole, so several
      sentences inside quotes are one (S1; a 27-sentence Moby-Dick dialogue paragraph came back as one).
    * blingfire 0.1.8: ~4x faster than syntok but breaks S2 (``Mr.`` | ``Brown did not.``) and S7
      (``"Stop!"`` | ``he shouted.``), makes the ``1.`` of a numbered list its own sentence, needs
      numpy, and raises ``UnicodeEncodeError`` on lone surrogates.

    Mapping to offsets: syntok tokens carry offsets into the paragraph.  A sentence runs from the offset
    of its first token to the end of its last one (the first sentence from the start of the paragraph,
    the last to its end), then it is stripped; between two sentences, whatever syntok did not make a
    token (whitespace, zero-width spaces) belongs to neither.  Every extent is checked (in order, inside
    the paragraph, token values equal to the text at their offsets); if a check fails or syntok raises,
    the whole paragraph is one sentence.  Known syntok offset pitfalls are avoided: ``n't`` is kept as
    written (``replace_not_contraction=False``), hyphenated line-breaks are not joined (the tokenizer is
    used directly), and the tokenizer is called per paragraph with offset 0 (``syntok.segmenter.analyze``
    pads each paragraph with ``offset`` spaces, quadratic on long texts).  A paragraph with no terminal
    and no opening bracket cannot be split by syntok and skips it.

    Speed is linear; syntok's cost is per token: ~1.4 MB/s on ordinary prose (10 MB of State of the
    Union addresses: ~6.5 s CPU), ~0.7 MB/s on text made of very short sentences, 2-2.6 us per character
    on text that is nearly all terminals, ~12 us per character on ``"( ( ( ..."``.

    Known limitations (syntok's): an abbreviation followed by a capitalised word that is not a common
    sentence starter is not a boundary (``"He lives in the U.S. He likes it."`` is one sentence;
    ``"... the U.S. The weather ..."`` is two); CJK text without spaces is not split at ``"。"``; a
    sentence without a terminal that ends the paragraph is still a sentence.

Words
    A word is a run of letters/digits/marks, possibly joined by one inner apostrophe, hyphen, underscore,
    period, soft hyphen or zero-width (non-)joiner, or a comma/colon between digits; see ``_WORD`` for
    one alternative per case.  Decisions: ``$5``, ``5€``, ``50%``, ``C++``, ``C#`` are one word each; a
    dotted abbreviation of 1-2-letter parts (``U.S.``, ``e.g.``, ``Ph.D.``) keeps its final period, even
    at the end of a sentence; any other word never ends with a period (``end.`` -> ``end``, ``Dr.`` ->
    ``Dr``, ``J. R. R.`` -> ``J`` ``R`` ``R``); each Han ideograph and each Hiragana character is a word
    (CJK has no spaces and no dictionary is used), a Katakana run is one word (as in Unicode UAX #29);
    Thai/Lao/Khmer runs without spaces are one word each.  Symbols (emoji, ``&``, ``@``, ``+``) and
    punctuation are never words.  A word has at most 200 joins (``_MAX_PARTS``): a longer run such as
    ``"1,1,1,..."`` is cut into several words instead of exhausting the regex engine's memory.
"""

from __future__ import annotations

import re

import regex
from syntok import segmenter as _syntok_segmenter
from syntok.tokenizer import Tokenizer as _SyntokTokenizer

__all__ = ["paragraphs", "sentences", "words"]

# --------------------------------------------------------------------------------------------------
# Paragraphs
# --------------------------------------------------------------------------------------------------

# A line break, then one or more blank lines (lines holding only non-line-break whitespace).  The line
# break is atomic so that "\r\n" never counts as two breaks.  `re`'s \s is exactly str.isspace, so the
# separators and str.strip agree on what whitespace is.
_LINE_BREAK = r"(?>\r\n|\r|\n)"
_PARAGRAPH_SEPARATOR = re.compile(rf"{_LINE_BREAK}(?:[^\S\r\n]*+{_LINE_BREAK})+")


def _stripped(text: str, start: int, end: int) -> tuple[int, int] | None:
    """``(start, end)`` narrowed to exclude surrounding whitespace, or None if nothing is left."""
    chunk = text[start:end]
    left = chunk.lstrip()
    if not left:
        return None
    start += len(chunk) - len(left)
    end = start + len(left.rstrip())
    return start, end


def paragraphs(text: str) -> list[tuple[int, int]]:
    """Paragraph spans: text separated by one or more blank lines, stripped.

    >>> t = "First line\\nsame paragraph.\\n \\t\\n\\nSecond.\\n"
    >>> [t[s:e] for s, e in paragraphs(t)]
    ['First line\\nsame paragraph.', 'Second.']
    """
    spans: list[tuple[int, int]] = []
    pos = 0
    for match in _PARAGRAPH_SEPARATOR.finditer(text):
        span = _stripped(text, pos, match.start())
        if span is not None:
            spans.append(span)
        pos = match.end()
    span = _stripped(text, pos, len(text))
    if span is not None:
        spans.append(span)
    return spans


# --------------------------------------------------------------------------------------------------
# Sentences (syntok)
# --------------------------------------------------------------------------------------------------

# Stateless apart from its flags; keep "n't" as written (the default rewrites it to "not").
_TOKENIZER = _SyntokTokenizer(replace_not_contraction=False)

# syntok can only end a sentence at a terminal token (". ! ? ; ..." and their CJK/full-width forms) or at an
# opening bracket; a paragraph holding none of these characters is one sentence and skips the library
# (exact, and it keeps token-dense text without terminals fast).  Taken from syntok itself when possible.
try:
    from syntok._segmentation_states import State as _SyntokState

    _SPLIT_CHARS = set("".join(_SyntokState.terminals)) | set(_SyntokState.opening_brackets)
    _MAY_SPLIT = re.compile("[" + re.escape("".join(sorted(_SPLIT_CHARS))) + "]")
except (ImportError, AttributeError, TypeError):  # pragma: no cover - a different syntok: always ask it
    _MAY_SPLIT = re.compile("")


def _syntok_extents(para: str) -> list[list[int]] | None:
    """``[start, end]`` of each syntok sentence in ``para`` (first to last token), or None if anything is off."""
    extents: list[list[int]] = []
    previous_end = 0
    try:
        for sentence in _syntok_segmenter.segment(_TOKENIZER.tokenize(para)):
            tokens = [token for token in sentence if token.value]  # drop syntok's empty end-of-text marker
            if not tokens:
                continue
            first, last = tokens[0], tokens[-1]
            start, last_start = first.offset, last.offset
            end = last_start + len(last.value)
            if not (
                previous_end <= start <= last_start < end <= len(para)
                and para.startswith(first.value, start)
                and para.startswith(last.value, last_start)
            ):
                return None
            extents.append([start, end])
            previous_end = end
    except Exception:  # any library failure degrades to one sentence per paragraph
        return None
    return extents


def _paragraph_sentences(text: str, p_start: int, p_end: int) -> list[tuple[int, int]]:
    para = text[p_start:p_end]
    if not _MAY_SPLIT.search(para):
        return [(p_start, p_end)]  # paragraphs are already stripped
    extents = _syntok_extents(para) or [[0, len(para)]]
    merged = [extents[0]]
    for extent in extents[1:]:
        if para[merged[-1][1] - 1] == ";":  # S9: a semicolon never ends a sentence
            merged[-1][1] = extent[1]
        else:
            merged.append(extent)
    # The first sentence starts with the paragraph and the last one ends with it; between two sentences,
    # whatever syntok did not make a token (whitespace, zero-width spaces) belongs to neither.
    merged[0][0] = 0
    merged[-1][1] = len(para)
    spans: list[tuple[int, int]] = []
    for start, end in merged:
        span = _stripped(para, start, end)
        if span is not None:
            spans.append((p_start + span[0], p_start + span[1]))
    return spans


def sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans, found by syntok within each paragraph, stripped.

    >>> t = 'Dr. Smith met J. R. R. Tolkien in the U.S. in 1950. He said "Go." Then he left.\\n\\nNew one!'
    >>> [t[s:e] for s, e in sentences(t)]
    ['Dr. Smith met J. R. R. Tolkien in the U.S. in 1950.', 'He said "Go."', 'Then he left.', 'New one!']
    """
    spans: list[tuple[int, int]] = []
    for p_start, p_end in paragraphs(text):
        spans.extend(_paragraph_sentences(text, p_start, p_end))
    return spans


# --------------------------------------------------------------------------------------------------
# Words
# --------------------------------------------------------------------------------------------------

_CJK = r"\p{Han}\p{Hiragana}\p{Katakana}\u30FC\uFF70"  # \u30FC/\uFF70: Katakana prolonged sound marks
_HEAD = rf"[[\p{{L}}\p{{N}}]--[{_CJK}]]"  # a word starts with a (non-CJK) letter or digit
_TAIL = rf"[[\p{{L}}\p{{N}}\p{{Mn}}\p{{Mc}}]--[{_CJK}\uFE00-\uFE0F]]"  # then letters, digits, marks
_SEGMENT = rf"{_HEAD}{_TAIL}*"
# The regex engine keeps state for every repetition of a group, so a 10 MB run like "1,1,1,..." would
# exhaust memory; no real word has that many parts, so a word takes at most this many joins.
_MAX_PARTS = 200
_JOIN = (
    r"(?:['\u2019\u02BC\-\u2010\u2011_.\u00AD\u200C\u200D]"  # apostrophe, hyphen, _, ., soft hyphen, ZW(N)J
    r"|(?<=\p{N})[,:](?=\p{N}))"  # comma or colon between digits
)

_WORD = regex.compile(
    rf"""
    # 1. dotted abbreviation of 1-2-letter parts, final period included: U.S.  e.g.  i.e.  Ph.D.  a.m.
    (?:[[\p{{L}}]--[{_CJK}]]{{1,2}}\.){{2,{_MAX_PARTS}}}(?!{_TAIL})
    # 2. one Han ideograph or one Hiragana character: 東 京 は
    | [\p{{Han}}\p{{Hiragana}}]
    # 3. a run of Katakana: コンピューター
    | [\p{{Katakana}}\u30FC\uFF70]+
    # 4. ordinary word: optional currency sign before a number ($5), segments joined by _JOIN
    #    (don't, well-known, 3.14, 1,000), optional suffix: % ‰ or a currency sign after a digit
    #    (50%, 5€), or ++ / # after a letter when no letter or digit follows (C++, C#);
    #    atomic, and not the digit of a keycap emoji (1️⃣)
    | (?>
        (?:\p{{Sc}}(?=\p{{N}}))?
        {_SEGMENT}(?:{_JOIN}{_SEGMENT}){{0,{_MAX_PARTS}}}
        (?:(?<=\p{{N}})[%\u2030\p{{Sc}}]|(?<=\p{{L}})(?:\+\+|\#)(?![\p{{L}}\p{{N}}]))?
      )(?!\uFE0F?\u20E3)
    """,
    regex.VERBOSE | regex.V1,
)


def words(text: str) -> list[tuple[int, int]]:
    """Word spans (see the module docstring for what a word is).

    >>> t = "Don't say \\"well-known\\" U.S. facts cost $5 (50%) -- end."
    >>> [t[s:e] for s, e in words(t)]
    ["Don't", 'say', 'well-known', 'U.S.', 'facts', 'cost', '$5', '50%', 'end']
    """
    return [match.span() for match in _WORD.finditer(text)]
