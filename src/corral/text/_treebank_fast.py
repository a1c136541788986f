"""nltk's improved Treebank word tokenizer, reimplemented for speed with exactly the same tokens, plus offsets.

The COLLIE-v1 reference counts words with ``nltk.word_tokenize``, i.e. ``NLTKWordTokenizer().tokenize`` on
each Punkt sentence.  nltk runs some thirty regular-expression substitutions over every sentence (through
the ``regex`` engine, each under a timeout), and its tokens carry no offsets.  :func:`treebank_tokens`
returns the same tokens, each with its ``(start, end)`` in the sentence, some twenty times faster.

Why one scan is exact.  Inside the *fast-path domain* (below) nltk's substitutions only ever insert spaces
and turn ``"`` into ````` or ``''``, so its tokens are the sentence's non-space characters cut at a set of
points, and every cut can be decided on the original sentence:

* always a token of their own: ``? ! ; @ # $ % & * ( ) [ ] { } < >``, the quotes ``" « » “ ” ‘ ’ „``, the
  dashes U+2012-U+2015, runs of two or more periods, ``--`` (a run of hyphens pairs up from the left; an
  odd one left over stays on the text after it), and ``:`` or ``,`` unless a digit follows;
* the sentence-final period: the last ``.``, not in a run, when only closing brackets and quotes and spaces
  follow it (then any whitespace).  A ``"`` among those that follows a space has become ````` by the time
  nltk looks, which stops the rule, so it stops it here too;
* after a ``'`` that follows no word character and precedes one, unless a clitic (re ve ll m t s d n,
  any case) starts there;
* what remains are *pieces*, whose clitics come off their end as in nltk's last passes: ``'s 'm 'd`` (or
  upper case) or a bare ``'``, then ``'ll 're 've n't`` (all lower or all upper case).  A bare ``'`` that
  nltk's earlier ``([^'])' `` rule already splits off (a space, or a character nltk pads before that rule,
  follows it) leaves the rest of the piece to the ``'s`` rule as well: ``x's' y`` gives ``x 's ' y``, but
  ``x's'`` at the end gives ``x's '``;
* ``cannot gimme gonna gotta lemme wanna d'ye more'n`` are split inside their token (with any ``'tis`` or
  ``'twas`` that exposes) by nltk's own MacIntyre patterns, applied to that token;
* a ``"`` is ````` at the start of the sentence or after a space, ``( [ { <`` or ``« “ ‘ „``, else ``''``.

How it runs.  One precompiled pattern (``re``, three tokens a match; an ASCII-only variant for ASCII
sentences) cuts the sentence into gaps and tokens in C with ``re.split``; the offsets are the running sum of
the parts' lengths (``itertools.accumulate``); only the rarer ``"``, ``'`` and contraction cases run Python
code, on their own tokens.

The domain: ASCII less the backtick and \\x1c-\\x1f (on which Python's and ``regex``'s ``\\s`` disagree),
the whitespace all engines agree on, the quotes and dashes above, and a table of non-ASCII letters and
symbols on which ``re`` and ``regex`` agree about ``\\w``, ``\\s``, ``\\d`` and case-insensitive matching
(``_NON_ASCII``); and no ``''``, ``""`` or two adjacent ``:``/``,`` (where nltk's non-overlapping matches
interact).  The pattern matches nothing else, so a sentence outside the domain shows itself by leaving
something other than whitespace between the tokens; it goes to nltk itself (``NLTKWordTokenizer().tokenize``),
and its offsets are found afterwards.  On COLLIE's generations that is two sentences in 12,267.

``tests/text/test_treebank_fast.py`` checks tokens and offsets against nltk on the COLLIE data and on
generated adversarial text, and the character tables against both regular-expression engines.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from itertools import accumulate
from operator import itemgetter

__all__ = ["REFERENCE", "in_domain", "plain_tokens", "treebank_tokens"]

REFERENCE = "nltk.tokenize.NLTKWordTokenizer().tokenize, nltk 3.10.4"

Token = tuple[str, int, int]
_start = itemgetter(1)

# Non-ASCII characters that nltk treats as plain text (no rule names them) and on which the ``re`` and
# ``regex`` engines agree: letters that are ``\w`` in both, symbols that are ``\w`` in neither; no digits,
# no whitespace, no marks or format characters, nothing that matches an ASCII letter case-insensitively.
_NON_ASCII = (
    "\u0080-\u0084\u0086-\u009f"
    "\u00a1-\u00aa\u00ac\u00ae-\u00b1\u00b4-\u00b8\u00ba\u00bf-\u00de\u00e0-\u012f\u0132-\u0148"
    "\u014a-\u017e\u0180-\u01ef\u01f1-\u024f"
    "\u0370-\u0377\u037a-\u037f\u0384-\u038a\u038c\u038e-\u03a1\u03a3-\u0482\u048a-\u04ff"
    "\u0531-\u0556\u0559-\u058a\u05d0-\u05ea\u0620-\u064a\u10d0-\u10fa"
    "\u1e00-\u1e95\u1e9b-\u1e9d\u1e9f-\u1eff"
    "\u2010\u2011\u2016\u2017\u201a\u201b\u201f-\u2027\u2030-\u203e\u2041-\u2053\u2055-\u205e"
    "\u20a0-\u20c0\u2190-\u23ff\u2500-\u2775\u2794-\u27bf"
    "\u3001-\u3029\u3030-\u303f\u3041-\u3096\u309b-\u30ff\u4e00-\u9fff\uac00-\ud7a3"
    "\U0001f300-\U0001f6d7\U0001f900-\U0001f9ff"
)
# The domain's whitespace: what Python's ``str``, ``re`` and ``regex`` all call whitespace (which leaves out
# \x1c-\x1f: ``regex``'s ``\s`` does not match them, nltk's final ``str.split`` splits on them).
_SPACES = (
    " \t\n\x0b\x0c\r\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
# The characters nltk pads (the ASCII ones, ``"`` and ``'`` aside, and the quotes and dashes).
_PADDED = r"?!;@#$%&*()\[\]{}<>«»“”‘’„\u2012-\u2015"

# The domain, by definition: a sentence is outside it when it has a character outside it, or ``''``,
# ``""`` or two adjacent ``:``/``,``.  (treebank_tokens does not run this: its token pattern leaves exactly
# those characters between tokens, which it checks instead; the tests check that the two agree.)
_outside = re.compile(
    r"[^\x00-\x08\x0e-\x1b\x20\x21\x23-\x26\x28-\x2b\x2d-\x39\x3b-\x5f\x61-\x7f"
    + _NON_ASCII
    + _SPACES
    + _PADDED
    + r"""](?:(?<!['":,])|(?<=')'|(?<=")"|(?<=[:,])[:,])"""
).search



def in_domain(sentence: str) -> bool:
    """Whether ``sentence`` lies in the fast path's domain, where :func:`treebank_tokens` is nltk's tokens by
    construction (not by falling back to nltk).

    Inside it, a token never depends on what comes before a space that precedes it: the tokens of
    ``sentence[k:]`` (with ``base=k``), where ``sentence[k - 1]`` is a space, are the last tokens of the whole
    sentence's, offsets included (each token starts at a character that follows whitespace or another token,
    is matched from there on, and only a ``"`` looks at the character before it, a space either way).
    """
    return _outside(sentence) is None


_CLITIC_AHEAD = r"(?i:re|ve|ll|m|t|s|d|n)\b"
# A ``'`` after which nltk inserts a space (its starting-quote rule), and one that stays inside its piece.
# Both are written for the position just after the ``'``.
_OPENING_APOS = rf"(?<!\w')(?=\w)(?!{_CLITIC_AHEAD})"
_INNER_APOS = rf"(?!')(?:(?<=\w')|(?!\w)|(?={_CLITIC_AHEAD}))"


def _token_pattern(plain: str, padded: str, closers: str, nonspace: str) -> str:
    """The pattern for one token, from the character classes of the sentences it is for.

    ``plain``: what is plain text in a piece; ``padded``: the characters nltk pads, ``"`` and ``'`` aside;
    ``closers``: what may follow the sentence-final period (then whitespace to the end; a ``"`` after a
    space is already ````` when nltk looks, so it is no closer); ``nonspace``: a token's first character.
    """
    final = rf"""(?:[{closers} ]|(?<! )")*+\s*\Z"""
    # The rest of a piece: plain runs joined by inner hyphens, periods, digit-led commas/colons and
    # quotes; an opening quote ends it.
    tail = (
        rf"{plain}*+(?:[-.:,'](?:(?<=-)(?!-)|(?<=\.)(?!\.|{final})|(?<=[:,])(?=[0-9])|(?<='){_INNER_APOS})"
        rf"{plain}*+|'{_OPENING_APOS})*+"
    )
    # Pieces opening with plain text come first; every other token is its first character, then what that
    # character makes of it (the alternatives exclude each other, so their order only matters for speed).
    return (
        rf"{plain}{tail}"
        rf"|{nonspace}(?:"
        r"(?<=[:,])(?![0-9:,])"  # a padded comma or colon
        rf"|(?<=\.)(?={final})"  # the sentence-final period
        rf"|(?<=[{padded}])"  # the other padded characters
        rf"|(?<=-)(?!-){tail}"  # pieces opening with something else
        rf"|(?<=\.)(?!\.|{final}){tail}"
        rf"|(?<=[:,])(?=[0-9]){tail}"
        rf"|(?<='){_INNER_APOS}{tail}"
        rf"|(?<='){_OPENING_APOS}"
        r'|(?<=")(?!")'  # a double quote (converted afterwards)
        r"|(?<=\.)\.+"  # two or more periods
        r"|(?<=-)-"  # a double dash
        r")"
    )


def _splitter(token: str) -> Callable[[str], list[str]]:
    """``re.split`` on tokens, which returns the gaps and tokens alternately (gap, token, gap, ..., gap).

    Each match takes up to three tokens (and the gaps between them), which saves ``re``'s per-match work;
    the tokens a sentence's last match has no use for come out empty, at the end.
    """
    return re.compile(f"({token})" + f"(\\s*)({token}|)" * 2).split


# Plain text in a piece: ASCII less whitespace, the backtick, \x1c-\x1f and everything some rule treats
# specially (handled by the pattern's alternatives), and the table's non-ASCII characters.
_PLAIN_ASCII = r"\x00-\x08\x0e-\x1b+/0-9=A-Z\\^_a-z|~\x7f"
_split = _splitter(_token_pattern(f"[{_PLAIN_ASCII}{_NON_ASCII}]", _PADDED, r"\])}>'»”’", r"[^\s\x1c-\x1f]"))
# The same for ASCII sentences, with ASCII classes (which ``re`` tests faster).
_split_ascii = _splitter(
    _token_pattern(f"[{_PLAIN_ASCII}]", r"?!;@#$%&*()\[\]{}<>", r"\])}>'", r"[^\t\n\x0b\x0c\r \x1c-\x1f]")
)

# ``"`` becomes ````` after these (or at the very start), else ``''``.
_OPENS_QUOTE = frozenset(" ([{<«“‘„")
# A ``'`` followed by one of these has a space after it when nltk's ``([^'])' `` rule runs.
_SPACED_EARLY = frozenset(" .:,?!;@#$%&«“‘„\u2012\u2013\u2014\u2015")
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
# Does a lower-cased text hold one of them?  (Each alternative opens with its rarest letter.)
_has_contraction = re.compile(r"cannot|gimme|gonna|gotta|mme(?<=lemme)|wanna|'ye(?<=d'ye)|'n(?<=more'n)").search


def treebank_tokens(sentence: str, base: int = 0) -> list[tuple[str, int, int]]:
    """(token, start, end) for each token of NLTKWordTokenizer().tokenize(sentence), in order; the offsets are
    ``base`` plus the token's place in ``sentence`` (pass the sentence's place in a longer text)."""
    parts = (_split_ascii if sentence.isascii() else _split)(sentence)
    # Outside the domain, something that is no whitespace is left between the tokens.
    if "".join(parts[0::2]).strip(_SPACES):
        return _fallback(sentence, base)
    # parts alternate gap, token, gap, ..., gap; the running length (from ``base``, whose own value is skipped)
    # gives each token's start and end (and one more value, for the last gap, which zip leaves unread).
    offsets = accumulate(map(len, parts), initial=base)
    next(offsets)
    tokens = list(zip(parts[1::2], offsets, offsets, strict=False))
    while tokens and not tokens[-1][0]:  # unused token places of the last match
        del tokens[-1]
    # The rare cases, each found in C and fixed in place: quotes first (one token for one), then clitics
    # from the right (one token for several), then contractions.
    if '"' in sentence:
        k = 0
        for _ in range(parts.count('"')):
            k = parts.index('"', k + 1)  # tokens sit at the odd places of parts
            at = tokens[k >> 1][1]
            quote = "``" if at == base or sentence[at - base - 1] in _OPENS_QUOTE else "''"
            tokens[k >> 1] = (quote, at, at + 1)
    if "'" in sentence:
        at = sentence.rfind("'")
        while at >= 0:
            i = bisect_right(tokens, at + base, key=_start) - 1  # the token holding this quote
            token = tokens[i]
            if len(token[0]) > 1:
                split = _split_clitics(sentence, token, base)
                if split is not None:
                    tokens[i : i + 1] = split
            at = sentence.rfind("'", 0, token[1] - base)
    # A MacIntyre contraction is rare: a quick test on telling letters before the exact one.
    lower = sentence.lower()
    if (
        "nnot" in lower
        or "gimm" in lower
        or "onna" in lower
        or "otta" in lower
        or "emme" in lower
        or "anna" in lower
        or "'" in lower
    ) and _has_contraction(lower):
        tokens = _split_contractions(tokens)
    return tokens


def plain_tokens(sentence: str) -> list[str] | None:
    """The token strings of :func:`treebank_tokens`, without offsets and with each ``"`` left as it is (nltk
    makes it ````` or ``''``), when no more than the pattern is needed: a sentence in the domain with no ``'``
    and no MacIntyre contraction. None otherwise. (For counting tokens without building them.)"""
    if "'" in sentence:
        return None
    parts = (_split_ascii if sentence.isascii() else _split)(sentence)
    if "".join(parts[0::2]).strip(_SPACES):
        return None
    lower = sentence.lower()
    if ("nnot" in lower or "gimm" in lower or "onna" in lower or "otta" in lower or "emme" in lower
            or "anna" in lower) and _has_contraction(lower):
        return None
    tokens = parts[1::2]
    while tokens and not tokens[-1]:  # unused token places of the last match
        del tokens[-1]
    return tokens


def _split_clitics(sentence: str, token: Token, base: int) -> list[Token] | None:
    """nltk's clitic rules on one piece: ``'s 'm 'd`` or a bare ``'``, then ``'ll 're 've n't``.

    None when nothing comes off.  In the domain no ``'`` follows another, so the character before a clitic
    is never a ``'``, except possibly before ``n't``.
    """
    text, start, end = token
    out: list[Token] = []  # from the right
    cut = len(text)
    if text[-1] == "'":
        # A bare final quote.  When nltk's ``([^'])' `` rule splits it off first (a space follows it by
        # then), the ``'s`` rule applies to what precedes it as well; otherwise only the quote goes.
        cut -= 1
        out.append(("'", end - 1, end))
        clitic_1 = sentence[end - base : end - base + 1] in _SPACED_EARLY
    else:
        clitic_1 = True
    if clitic_1 and cut >= 3 and text[cut - 2] == "'" and text[cut - 1] in _CLITIC_1:
        out.append((text[cut - 2 : cut], start + cut - 2, start + cut))
        cut -= 2
    if cut >= 4 and text[cut - 3 : cut] in _CLITIC_2 and text[cut - 4] != "'":
        out.append((text[cut - 3 : cut], start + cut - 3, start + cut))
        cut -= 3
    if not out:
        return None
    out.append((text[:cut], start, start + cut))
    out.reverse()
    return out


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


def _fallback(sentence: str, base: int = 0) -> list[Token]:
    """nltk's own tokens, with each one's offsets found in the sentence.

    Should nltk fail (its patterns run under a timeout, so a huge input can make it raise), the sentence's
    whitespace-separated words stand in, so that :func:`treebank_tokens` never raises.
    """
    global _nltk_tokenize
    if _nltk_tokenize is None:
        from nltk.tokenize import NLTKWordTokenizer

        _nltk_tokenize = NLTKWordTokenizer().tokenize
    try:
        words = _nltk_tokenize(sentence)
    except Exception:
        words = sentence.split()
    tokens = _align(sentence, words)
    return [(word, start + base, end + base) for word, start, end in tokens] if base else tokens


def _align(sentence: str, words: list[str]) -> list[Token]:
    """Offsets for nltk's tokens: each is the next text after whitespace, or a ``"``/``''`` that nltk
    turned into ````` or ``''``; anything else (never seen) is searched for, or gets an empty span."""
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
