"""The 13 COLLIE-v1 constraint structures as Corral constraints, built with the ``collie-v1`` profile.

The data's ``code`` (c01 ... c14) and ``targets`` give exactly one constraint; positions in the data are
0-based ([3, 7, 10] is the 4th, 8th and 11th unit), Corral's are 1-based. ``structure("sent02", n=..., ...)``
builds the same constraints by the paper's names.

Where the reference compares a per-unit target list with the units (para05, pass01), a list of a different
length fails; Corral says that with an explicit count (``count(text, sentence, paragraph) == n``), which
reads better and gives the same verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from corral.constraints import TEXT, UNIT, And, Constraint, Count, Expr, ForEach, Match, Pos, Quantifier, Rel
from corral.text import Level

PROFILE = "collie-v1"
WORD, CHAR, SENTENCE, PARAGRAPH, PASSAGE = Level.WORD, Level.CHAR, Level.SENTENCE, Level.PARAGRAPH, Level.PASSAGE
_V1_POSITIONS = (4, 8, 11)  # the data's Position([3, 7, 10]), 1-based


@dataclass(frozen=True)
class Structure:
    """One COLLIE-v1 structure: paper name, data code, generation level, and its builder."""

    name: str
    code: str
    level: Level
    params: tuple[str, ...]
    build: Callable[..., Expr]
    from_targets: Callable[[Any], dict[str, Any]]
    summary: str

    def __call__(self, **values: Any) -> Constraint:
        missing = [p for p in self.params if p not in values]
        extra = [k for k in values if k not in self.params]
        if missing or extra:
            raise ValueError(f"{self.name} takes {', '.join(self.params)}; missing {missing}, unknown {extra}")
        return Constraint(self.build(**values), self.level, PROFILE)


def _and(*parts: Expr) -> Expr:
    return parts[0] if len(parts) == 1 else And(tuple(parts))


def _count(level: Level, rel: str, n: int, per: Level | None = None, string: str | None = None) -> Count:
    return Count(TEXT, level, Rel(rel), int(n), string=string, per=per)


def _positions(level: Level, values: Sequence[str]) -> list[Expr]:
    if len(values) != len(_V1_POSITIONS):
        raise ValueError(f"COLLIE-v1 fixes {len(_V1_POSITIONS)} positions, got {len(values)} values")
    return [Match(Pos(TEXT, level, i), Rel.EQ, str(v)) for i, v in zip(_V1_POSITIONS, values, strict=True)]


def _unit_ends(outer: Level, inner: Level, values: Sequence[str]) -> list[Expr]:
    return [Match(Pos(Pos(TEXT, outer, i), inner, -1), Rel.EQ, str(v)) for i, v in enumerate(values, start=1)]


def _scalar(value: Any) -> Any:
    return value[0] if isinstance(value, list) and len(value) == 1 else value


STRUCTURES: dict[str, Structure] = {}


def _add(structure: Structure) -> None:
    STRUCTURES[structure.name] = structure


_add(Structure(
    "word01", "c01", WORD, ("n",),
    lambda n: _count(CHAR, ">=", n, per=WORD),
    lambda t: {"n": _scalar(t)}, "a word with at least n characters"))
_add(Structure(
    "word02", "c02", WORD, ("n", "letters"),
    lambda n, letters: _and(_count(CHAR, "==", n, per=WORD), *_positions(CHAR, letters)),
    lambda t: {"n": t[0], "letters": t[1]}, "a word with n characters and given 4th, 8th, 11th letters"))
_add(Structure(
    "word03", "c03", WORD, ("n", "last"),
    lambda n, last: _and(_count(CHAR, "==", n, per=WORD), Match(Pos(TEXT, CHAR, -1), Rel.EQ, str(last))),
    lambda t: {"n": t[0], "last": t[1]}, "a word with n characters ending in a given letter"))
_add(Structure(
    "sent01", "c04", SENTENCE, ("n",),
    lambda n: _count(CHAR, "==", n, per=SENTENCE),
    lambda t: {"n": _scalar(t)}, "a sentence with exactly n characters"))
_add(Structure(
    "sent02", "c05", SENTENCE, ("n", "words"),
    lambda n, words: _and(_count(WORD, "==", n, per=SENTENCE), *_positions(WORD, words)),
    lambda t: {"n": t[0], "words": t[1]}, "a sentence with n words and given 4th, 8th, 11th words"))
_add(Structure(
    "sent03", "c06a", SENTENCE, ("n", "max_chars"),
    lambda n, max_chars: _and(_count(WORD, ">=", n, per=SENTENCE), _count(CHAR, "<=", max_chars, per=WORD)),
    lambda t: {"n": t[0], "max_chars": t[1]}, "a sentence with at least n words, each of at most m characters"))
_add(Structure(
    "sent04", "c07", SENTENCE, ("words",),
    lambda words: _and(*[_count(WORD, ">", 0, string=str(w)) for w in words]),
    lambda t: {"words": list(t)}, "a sentence containing given words"))
_add(Structure(
    "para01", "c08", PARAGRAPH, ("first_word",),
    lambda first_word: ForEach(Quantifier.ALL, TEXT, SENTENCE, Match(Pos(UNIT, WORD, 1), Rel.EQ, str(first_word))),
    lambda t: {"first_word": _scalar(t)}, "a paragraph whose sentences all begin with a given word"))
_add(Structure(
    "para02", "c09", PARAGRAPH, ("n", "absent"),
    lambda n, absent: _and(_count(SENTENCE, "==", n, per=PARAGRAPH),
                           *[_count(WORD, "==", 0, string=str(w)) for w in absent]),
    lambda t: {"n": t[0], "absent": list(t[1:])}, "a paragraph with n sentences not using given words"))
_add(Structure(
    "para03", "c10", PARAGRAPH, ("n", "min_words", "max_words"),
    lambda n, min_words, max_words: _and(
        _count(SENTENCE, "==", n, per=PARAGRAPH), _count(WORD, ">=", min_words, per=SENTENCE),
        _count(WORD, "<=", max_words, per=SENTENCE)),
    lambda t: {"n": t[0], "min_words": t[1], "max_words": t[2]},
    "a paragraph with n sentences, each of lo to hi words"))
_add(Structure(
    "para04", "c11", PARAGRAPH, ("n", "min_words"),
    lambda n, min_words: _and(_count(SENTENCE, ">=", n, per=PARAGRAPH), _count(WORD, ">=", min_words, per=SENTENCE)),
    lambda t: {"n": t[0], "min_words": t[1]}, "a paragraph with at least n sentences of at least m words"))
_add(Structure(
    "para05", "c12", PARAGRAPH, ("n", "last_words"),
    lambda n, last_words: _and(
        _count(SENTENCE, "==", n, per=PARAGRAPH),
        *([] if int(n) == len(last_words) else [_count(SENTENCE, "==", len(last_words), per=PARAGRAPH)]),
        *_unit_ends(SENTENCE, WORD, last_words)),
    lambda t: {"n": t[0], "last_words": t[1]}, "a paragraph with n sentences ending in given words"))
_add(Structure(
    "pass01", "c14", PASSAGE, ("last_sentences", "min_sentences"),
    lambda last_sentences, min_sentences: _and(
        _count(PARAGRAPH, "==", len(last_sentences), per=PASSAGE),
        *_unit_ends(PARAGRAPH, SENTENCE, last_sentences),
        _count(SENTENCE, ">=", min_sentences, per=PARAGRAPH)),
    lambda t: {"last_sentences": t[0], "min_sentences": t[1]},
    "a passage whose paragraphs end with given sentences, each paragraph of at least m sentences"))

BY_CODE: dict[str, Structure] = {s.code: s for s in STRUCTURES.values()}


def structure(name: str, **values: Any) -> Constraint:
    """The COLLIE-v1 constraint of structure ``name`` (word01 ... pass01) with the given values.

    Example:
        >>> str(structure("sent02", n=10, words=["soft", "beach", "math"]))
        "[collie-v1] sentence: count(text, word, sentence) == 10 and pos(text, word, 4) == 'soft' and ..."
    """
    try:
        found = STRUCTURES[name]
    except KeyError:
        raise ValueError(f"unknown COLLIE-v1 structure {name!r}; known: {', '.join(STRUCTURES)}") from None
    return found(**values)


def constraint_for(code: str, targets: Any) -> Constraint:
    """The exact v1 constraint for a data row's ``code`` and ``targets``."""
    try:
        found = BY_CODE[code]
    except KeyError:
        raise ValueError(f"unknown COLLIE-v1 code {code!r}; known: {', '.join(BY_CODE)}") from None
    try:
        values = found.from_targets(targets)
    except (IndexError, TypeError, KeyError) as exc:
        params = ", ".join(found.params)
        raise ValueError(f"targets {targets!r:.80} do not fit {code} ({found.name}: {params})") from exc
    return found(**values)
