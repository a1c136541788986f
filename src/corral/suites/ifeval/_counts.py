"""IFEval's counts over the whole text as regular expressions that a prompt's grammar intersects with its shape.

Why intersections: a count of words, of one letter or of a keyword's occurrences runs across the whole response,
through the free text and the pieces alike, so it cannot be one more piece of ``START TEXT* (PIECE TEXT*)* END``.
llguidance's lexemes take ``&`` (both must match) and ``~`` (must not match), so the grammar is the shape with each
count beside it: ``TEXT: /shape/ & /count/ & ~/forbidden/``. Each expression is written so that it reads the text
in one way only (words as maximal runs, letters one by one, a keyword with no border), which keeps the engine's
derivatives small: an ambiguous ``(.*W.*){300}`` took seconds per text, this form milliseconds.

Each builder returns a ``Count`` (the expression, whether the text must match it or must not, and whether it bounds
the count from above: such a bound can conflict with text that other instructions require, and the compiler then
leaves it to the checker), None when every text meets it (at least 0), or the reason it cannot be written over
the prompt's alphabet.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._kinds import Instruction
from ._regex import char_class

TEXT = frozenset(chr(c) for c in range(0x20, 0x7F)) | {"\n"}
"""Every character a prompt's grammar can write (its pieces included): a count reads them all, and the shape it is
intersected with decides which may appear where."""
WORD_CHARS = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")
"""``\\w`` over the grammar's ASCII alphabet: IFEval's words are runs of it (``ifeval-v1``)."""


@dataclass(frozen=True)
class Count:
    """One condition on the whole text: ``regex`` must match it (``negated``: must not), a Rust regex over
    ``\\x{HEX}`` escapes; ``upper``: it bounds a count from above (satisfiable only if the required text allows)."""

    regex: str
    negated: bool = False
    upper: bool = False


def number_words(instruction: Instruction, alphabet: set[str]) -> Count | str | None:
    """At least n words: ``NW* (W+ NW+){n-1} W ANY*``; fewer than n: not that (n >= 1)."""
    n, relation = instruction.args["num_words"], instruction.args["relation"]
    if not alphabet & WORD_CHARS or not alphabet - WORD_CHARS:
        return "the alphabet cannot write separate words"
    if n == 0:
        return None if relation == "at least" else "fewer than 0 words: no response passes"
    w, nw, anything = char_class(WORD_CHARS), char_class(TEXT - WORD_CHARS), char_class(TEXT)
    at_least = f"{nw}*({w}+{nw}+){{{n - 1}}}{w}{anything}*"
    return Count(at_least) if relation == "at least" else Count(at_least, negated=True, upper=True)


def letter_frequency(instruction: Instruction, alphabet: set[str]) -> Count | str | None:
    """At least n of the letter (either case): ``(NOT* L){n} ANY*``; fewer than n: ``NOT* (L NOT*){0,n-1}``."""
    letter = instruction.args["letter"].strip().lower()
    n, relation = instruction.args["let_frequency"], instruction.args["let_relation"]
    if len(letter) != 1 or not ("a" <= letter <= "z"):
        return "the letter is not an ASCII letter"
    own, rest = {letter, letter.upper()}, TEXT - {letter, letter.upper()}
    if relation == "at least":
        if n and not alphabet & own:
            return "the letter is forbidden by another instruction"
        if not n:
            return None
        return Count(f"({char_class(rest)}*{char_class(own)}){{{n}}}{char_class(TEXT)}*")
    if n == 0:
        return "fewer than 0 occurrences: no response passes"
    body = f"{char_class(rest)}*"
    return Count(f"{body}({char_class(own)}{body}){{0,{n - 1}}}", upper=True)


def keyword_frequency(instruction: Instruction, alphabet: set[str]) -> Count | str | None:
    """At least n occurrences of the keyword (any case, as text): ``(ANY* K){n} ANY*``; fewer than n: not that.
    Only for a keyword with no border (no proper prefix that is also a suffix): then occurrences never overlap and
    IFEval's non-overlapping count is the count of every occurrence."""
    keyword = instruction.args["keyword"].strip().lower()
    n, relation = instruction.args["frequency"], instruction.args["relation"]
    if not keyword or any(keyword[:i] == keyword[-i:] for i in range(1, len(keyword))):
        return "the keyword overlaps itself, so IFEval's count is not the count of its occurrences"
    if not set(keyword) <= {char.lower() for char in alphabet} | {char.upper() for char in alphabet}:
        return "the keyword holds characters the other instructions forbid"
    if n == 0:
        return None if relation == "at least" else "fewer than 0 occurrences: no response passes"
    at_least = f"({char_class(TEXT)}*{_spelled(keyword)}){{{n}}}{char_class(TEXT)}*"
    return Count(at_least) if relation == "at least" else Count(at_least, negated=True, upper=True)


def forbidden_word(word: str, alphabet: set[str]) -> Count | str | None:
    """The word as a whole word (IFEval's ``\\bword\\b``, any case) nowhere: not ``(ANY* NW)? WORD (NW ANY*)?``.
    Only for a word of ``\\w`` characters, where ``\\b`` at its ends means a non-word character or the text's end."""
    word = word.lower()
    if not word or not set(word) <= WORD_CHARS:
        return f"the word {word!r} holds characters other than letters, digits and _"
    anything, other = char_class(TEXT), char_class(TEXT - WORD_CHARS)
    return Count(f"({anything}*{other})?{_spelled(word)}({other}{anything}*)?", negated=True, upper=True)


def _spelled(text: str) -> str:
    """``text`` in any case, one class per character."""
    return "".join(char_class({char, char.upper(), char.lower()}) for char in text)
