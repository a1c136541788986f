"""Named suites of recipes: ``collie-v1`` rebuilds the 13 COLLIE-v1 structures from any corpus.

Each structure is written as a spec with ``?holes`` (the same constraints ``corral.suites.collie`` builds for the v1
data, same names), with value ranges taken from the v1 data's own spread, so a rebuilt suite looks like v1 but
comes from the user's corpus and seed. Per-unit lists (para05's last words, pass01's last sentences) become one
alternative per list length. ``where`` conditions keep trivial examples out without entering the constraint
(para01 from a one-sentence paragraph says nothing).
"""

from __future__ import annotations

from corral.registry import build_suites

from ._extract import Recipe, parse_structure

P = "[collie-v1] "
V1_ABSENT = ("the", "and", "of", "to", "in", "is", "be", "this", "there")  # v1's swept words (para02)
RARE_LAST_LETTERS = ("x", "z", "q", "j")  # word03: words ending in a rare letter


def _recipe(name: str, *specs: str, ranges: dict | None = None, candidates: dict | None = None,
            passage_paragraphs: tuple[int, ...] = (), where: tuple[str, ...] = ()) -> Recipe:
    return Recipe(name, tuple(parse_structure(P + s) for s in specs), ranges or {}, candidates or {},
                  passage_paragraphs, tuple(P + w for w in where))


def _ends(outer: str, inner: str, n: int, hole: str) -> str:
    return " and ".join(f"pos(pos(text, {inner}, {i}), {outer}, -1) == ?{hole}{i}" for i in range(1, n + 1))


@build_suites.register("collie-v1")
def collie_v1() -> tuple[Recipe, ...]:
    """The 13 COLLIE-v1 structures (word01 ... pass01)."""
    return (
        _recipe("word01", "word: count(text, char, word) >= ?n", ranges={"n": (10, 19)}),
        _recipe("word02", "word: count(text, char, word) == ?n and pos(text, char, 4) == ?c4 and "
                          "pos(text, char, 8) == ?c8 and pos(text, char, 11) == ?c11", ranges={"n": (12, 17)}),
        _recipe("word03", "word: count(text, char, word) == ?n and pos(text, char, -1) == ?last",
                ranges={"n": (10, 14)}, candidates={"last": RARE_LAST_LETTERS}),
        _recipe("sent01", "sentence: count(text, char, sentence) == ?n", ranges={"n": (80, 110)}),
        _recipe("sent02", "sentence: count(text, word, sentence) == ?n and pos(text, word, 4) == ?w4 and "
                          "pos(text, word, 8) == ?w8 and pos(text, word, 11) == ?w11", ranges={"n": (11, 19)}),
        _recipe("sent03", "sentence: count(text, word, sentence) >= ?n and count(text, char, word) <= ?max_chars",
                ranges={"n": (8, 40), "max_chars": (4, 7)}),
        _recipe("sent04", "sentence: count(text, word, ?w1) > 0 and count(text, word, ?w2) > 0 and "
                          "count(text, word, ?w3) > 0",
                candidates={"w1": "@word", "w2": "@word", "w3": "@word"},
                where=("sentence: count(text, word, sentence) >= 8",)),
        _recipe("para01", "paragraph: all(text, sentence, pos(unit, word, 1) == ?first_word)",
                where=("paragraph: count(text, sentence, paragraph) >= 2",)),
        _recipe("para02", "paragraph: count(text, sentence, paragraph) == ?n and count(text, word, ?a1) == 0 and "
                          "count(text, word, ?a2) == 0 and count(text, word, ?a3) == 0",
                ranges={"n": (3, 9)}, candidates={"a1": V1_ABSENT, "a2": V1_ABSENT, "a3": V1_ABSENT}),
        _recipe("para03", "paragraph: count(text, sentence, paragraph) == ?n and count(text, word, sentence) >= ?lo"
                          " and count(text, word, sentence) <= ?hi",
                ranges={"n": (3, 6), "lo": (8, 20), "hi": (10, 25)}),
        _recipe("para04", "paragraph: count(text, sentence, paragraph) >= ?n and count(text, word, sentence) >= ?m",
                ranges={"n": (3, 5), "m": (16, 50)}),
        _recipe("para05", *(f"paragraph: count(text, sentence, paragraph) == {n} and "
                            f"{_ends('word', 'sentence', n, 'w')}" for n in (3, 4, 5))),
        _recipe("pass01", *(f"passage: count(text, paragraph, passage) == {n} and "
                            f"{_ends('sentence', 'paragraph', n, 's')} and count(text, sentence, paragraph) >= ?m"
                            for n in (3, 4)),
                ranges={"m": (2, 4)}, passage_paragraphs=(3, 4)),
    )
