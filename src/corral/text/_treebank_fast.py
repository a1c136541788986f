"""nltk's improved Treebank word tokenizer, reimplemented for speed with exactly the same tokens, plus offsets.

The COLLIE-v1 reference counts words with ``nltk.word_tokenize``, i.e. ``NLTKWordTokenizer().tokenize`` on
each Punkt sentence.  nltk runs some thirty regular-expression substitutions (through the slower ``regex``
engine, each under a timeout) over every sentence, and its tokens carry no offsets.  :func:`treebank_tokens`
returns the same tokens, each with its ``(start, end)`` in the sentence, typically 30-50 times faster.

Why a single scan is exact.  Inside the *fast-path domain* (below) nltk's substitutions only ever insert
spaces and turn ``"`` into ````` or ``''``; so its tokens are the sentence's non-space characters cut at a
set of points, and each cut can be decided from the original sentence:

* always a token on their own: ``? ! ; @ # $ % & * ( ) [ ] { } < >``, the quotes ``" « » “ ” ‘ ’ „``, the
  dashes U+2012-U+2015, runs of two or more periods, ``--`` (hyphen runs pair up from the left, an odd
  hyphen left over stays on the following text), ``:`` and ``,`` unless a digit follows;
* the sentence-final period: the last ``.``, when only closing brackets/quotes and spaces follow it (then
  any whitespace), and it is not part of a run.  A ``"`` among those closers that follows a space has
  already become ````` in nltk, which stops the rule, and so it does here;
* after a ``'`` that follows no word character and precedes one, unless a clitic (re, ve, ll, m, t, s, d,
  n) starts there;
* what remains are *pieces*; a piece's clitics are split off at its end as nltk's last passes do:
  ``'s 'm 'd`` or a bare ``'`` (``'S`` etc. too), then ``'ll 're 've n't`` (lower or upper case).  A bare
  ``'`` followed by a space, or by a character nltk pads before its ``([^'])' `` rule runs, is split first,
  so the piece before it gets the ``'s``-rule as well (``x's' y`` -> ``x 's ' y``, but ``x's'`` at the end
  -> ``x's '``);
* ``cannot gimme gonna gotta lemme wanna d'ye more'n`` are then split inside their token (and a ``'tis`` /
  ``'twas`` this exposes), exactly as nltk's MacIntyre rules do;
* a ``"`` is ````` at the start of the sentence or after a space, ``( [ { <`` or ``« “ ‘ „``, else ``''``.

One precompiled pattern cuts the sentence into its tokens in C (``re.split``); offsets come from
``itertools.accumulate`` over the pieces' lengths, so only the rare ``"``, ``'`` and contraction cases
touch Python code per token.

The domain.  Sentences made of ASCII (less the backtick and ``\\x1c``-``\\x1f``, which Python's and
``regex``'s ``\\s`` disagree on), whitespace, the quotes and dashes above and a list of non-ASCII letters
and symbols on which ``re`` and ``regex`` agree about ``\\w``, ``\\s``, ``\\d`` and case-insensitive matches
against ASCII (``_NON_ASCII``; checked character by character in the tests), and containing none of
````` ``''``, ``""`` and two adjacent ``:``/``,`` (where nltk's non-overlapping matches interact).  Anything
the pattern does not cover is left between tokens, so a non-space character there sends the sentence to
nltk itself (``NLTKWordTokenizer().tokenize``) with its offsets aligned afterwards.  On COLLIE's
generations this fallback takes well under one sentence in a hundred.

``tests/text/test_treebank_fast.py`` checks tokens and offsets against nltk on the COLLIE data and on
generated adversarial text.
"""

from __future__ import annotations

import re
from itertools import accumulate

__all__ = ["REFERENCE", "treebank_tokens"]

REFERENCE = "nltk.tokenize.NLTKWordTokenizer().tokenize, nltk 3.10.4"

# Non-ASCII characters that nltk treats as plain text (no rule names them) and on which the ``re`` and
# ``regex`` engines agree: letters that are ``\w`` in both, symbols that are ``\w`` in neither; no digits,
# no whitespace, no marks or format characters, nothing that matches an ASCII letter case-insensitively.
_NON_ASCII = (
    "\u00a1-\u00aa\u00ac\u00ae-\u00b1\u00b4-\u00b8\u00ba\u00bf-\u00de\u00e0-\u012f\u0132-\u0148"
    "\u014a-\u017e\u0180-\u01ef\u01f1-\u024f"
    "\u0370-\u0377\u037a-\u037f\u0384-\u038a\u038c\u038e-\u03a1\u03a3-\u0482\u048a-\u04ff"
    "\u1e00-\u1e95\u1e9b-\u1e9d\u1e9f-\u1eff"
    "\u2010\u2011\u2016\u2017\u201a\u201b\u201f-\u2027\u2030-\u203e\u2041-\u2053\u2055-\u205e"
    "\u20a0-\u20c0\u2190-\u23ff\u2500-\u2775\u2794-\u27bf"
    "\u3001-\u3029\u3030-\u303f\u3041-\u3096\u309b-\u30ff\u4e00-\u9fff\uac00-\ud7a3"
    "\U0001f300-\U0001f6d7\U0001f900-\U0001f9ff"
)
# Characters that are plain text in a piece: ASCII less whitespace, the backtick, \x1c-\x1f and everything
# some rule treats specially (handled by the alternatives below).
_PLAIN = r"[\x00-\x08\x0e-\x1b+/0-9=A-Z\\^_a-z|~\x7f" + _NON_ASCII + "]"
# What may follow the sentence-final period: nltk's closers and spaces, then whitespace to the end.  A ``"``
# after a space is already ````` when nltk looks, so it is no closer.
_FINAL = r"""(?:[\])}>'»”’ ]|(?<! )")*+\s*\Z"""
# A ``'`` after which nltk inserts a space (its starting-quote rule).
_OPENING_APOS = r"(?<!\w)'(?=\w)(?!(?i:re|ve|ll|m|t|s|d|n)\b)"
_PIECE = (
    rf"(?:{_PLAIN}+|-(?!-)|\.(?!\.|{_FINAL})|[:,](?=[0-9])|(?!{_OPENING_APOS})'(?!'))+(?:{_OPENING_APOS})?"
    rf"|{_OPENING_APOS}"
)
_TOKEN = (
    rf"{_PIECE}"
    r"|[?!;@#$%&*()\[\]{}<>«»“”‘’„\u2012-\u2015]"
    r'|"(?!")'
    r"|\.{2,}|--|[:,](?![0-9:,])"
    rf"|\.(?={_FINAL})"
)
_split = re.compile(f"({_TOKEN})").split
# Between tokens only whitespace on which Python and ``regex`` agree.
_gaps_ok = re.compile(r"[^\S\x1c-\x1f]*").fullmatch

# ``"`` becomes ````` after these (or at the very start), else ``''``.
_OPENS_QUOTE = frozenset(" ([{<«“‘„")
# A ``'`` followed by one of these has a space after it when nltk's ``([^'])' `` rule runs.
_SPACED_BEFORE_P9 = frozenset(" .:,?!;@#$%&«“‘„\u2012\u2013\u2014\u2015")
_CLITIC_1 = frozenset("sSmMdD")
_CLITIC_2 = frozenset(("'ll", "'LL", "'re", "'RE", "'ve", "'VE", "n't", "N'T"))

# MacIntyre's contractions as nltk applies them, in order, to the whole text (here: to one token, which is
# the same since none of them crosses a space).
_CONTRACTIONS = tuple(
    re.compile(p)
    for p in (
        r"(?i)\b(can)(not)\b",
        r"(?i)\b(d)('ye)\b",
        r"(?i)\b(gim)(me)\b",
        r"(?i)\b(gon)(na)\b",
        r"(?i)\b(got)(ta)\b",
        r"(?i)\b(lem)(me)\b",
        r"(?i)\b(more)('n)\b",
        r"(?i)\b(wan)(na)(?=\s)",
        r"(?i) ('t)(is)\b",
        r"(?i) ('t)(was)\b",
    )
)
_has_contraction = re.compile(r"cannot|d'ye|gimme|gonna|gotta|lemme|more'n|wanna").search


Token = tuple[str, int, int]


def treebank_tokens(sentence: str) -> list[tuple[str, int, int]]:
    """(token, start, end) for each token of NLTKWordTokenizer().tokenize(sentence), in order."""
    parts = _split(sentence)
    if not _gaps_ok("".join(parts[0::2])):
        return _fallback(sentence)
    ends = list(accumulate(map(len, parts)))
    tokens = list(zip(parts[1::2], ends[0:-1:2], ends[1::2]))
    if "'" in sentence:
        tokens = _split_clitics(sentence, tokens)
    if '"' in sentence:
        tokens = _convert_quotes(sentence, tokens)
    if _has_contraction(sentence.lower()):
        tokens = _split_contractions(tokens)
    return tokens


def _convert_quotes(sentence: str, tokens: list[Token]) -> list[Token]:
    out = []
    for tok in tokens:
        if tok[0] == '"':
            start = tok[1]
            tok = ("``" if start == 0 or sentence[start - 1] in _OPENS_QUOTE else "''", start, tok[2])
        out.append(tok)
    return out


def _split_clitics(sentence: str, tokens: list[Token]) -> list[Token]:
    out: list[Token] = []
    for tok in tokens:
        text = tok[0]
        if "'" not in text or len(text) < 2:
            out.append(tok)
            continue
        start, end = tok[1], tok[2]
        tail: list[Token] = []
        if text[-1] == "'":
            # A bare final quote (the one before it is never a quote in the domain).
            tail.append(("'", end - 1, end))
            text = text[:-1]
            end -= 1
            if sentence[end + 1 : end + 2] in _SPACED_BEFORE_P9:
                text, end = _split_clitic_1(text, start, end, tail)
        else:
            text, end = _split_clitic_1(text, start, end, tail)
        if len(text) >= 4 and text[-3:] in _CLITIC_2 and text[-4] != "'":
            tail.append((text[-3:], end - 3, end))
            text = text[:-3]
            end -= 3
        out.append((text, start, end))
        out.extend(reversed(tail))
    return out


def _split_clitic_1(text: str, start: int, end: int, tail: list[Token]) -> tuple[str, int]:
    """nltk's ``'s 'm 'd`` rule on a piece (the bare-quote case is handled by the caller)."""
    if len(text) >= 3 and text[-2] == "'" and text[-1] in _CLITIC_1 and text[-3] != "'":
        tail.append((text[-2:], end - 2, end))
        return text[:-2], end - 2
    if len(text) >= 2 and text[-1] == "'" and text[-2] != "'":
        tail.append(("'", end - 1, end))
        return text[:-1], end - 1
    return text, end


def _split_contractions(tokens: list[Token]) -> list[Token]:
    out: list[Token] = []
    for tok in tokens:
        text = tok[0]
        if not _has_contraction(text.lower()):
            out.append(tok)
            continue
        padded = f" {text} "
        for pattern in _CONTRACTIONS:
            padded = pattern.sub(r" \1 \2 ", padded)
        pos = tok[1]
        for sub in padded.split():
            out.append((sub, pos, pos + len(sub)))
            pos += len(sub)
    return out


_nltk_tokenize = None


def _fallback(sentence: str) -> list[Token]:
    """nltk's own tokens, with each one's offsets found in the sentence."""
    global _nltk_tokenize
    if _nltk_tokenize is None:
        from nltk.tokenize import NLTKWordTokenizer

        _nltk_tokenize = NLTKWordTokenizer().tokenize
    return _align(sentence, _nltk_tokenize(sentence))


def _align(sentence: str, words: list[str]) -> list[Token]:
    out: list[Token] = []
    pos = 0
    n = len(sentence)
    for word in words:
        while pos < n and sentence[pos].isspace():
            pos += 1
        if sentence.startswith(word, pos):
            end = pos + len(word)
        elif word in ("``", "''") and sentence.startswith('"', pos):
            end = pos + 1
        elif word in ("``", "''") and (sentence.startswith("''", pos) or sentence.startswith("``", pos)):
            end = pos + 2
        else:
            found = sentence.find(word, pos)
            if found < 0:
                out.append((word, pos, pos))
                continue
            pos, end = found, found + len(word)
        out.append((word, pos, end))
        pos = end
    return out
