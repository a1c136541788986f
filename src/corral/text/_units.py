"""Levels and units: the vocabulary every part of Corral uses to talk about pieces of a text."""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple


class Level(StrEnum):
    """A level of text, from the smallest unit to the largest (COLLIE's ℓ)."""

    CHAR = "char"
    WORD = "word"
    SENTENCE = "sentence"
    PARAGRAPH = "paragraph"
    PASSAGE = "passage"

    @property
    def rank(self) -> int:
        """0 for char ... 4 for passage; a unit of a lower rank lies inside a unit of a higher one."""
        return _RANK[self]

    @property
    def plural(self) -> str:
        return f"{self.value}s" if self is not Level.CHAR else "characters"

    @property
    def noun(self) -> str:
        """The English noun for one unit ("character" for char)."""
        return "character" if self is Level.CHAR else self.value

    @classmethod
    def parse(cls, name: str) -> Level:
        """The level called ``name`` (``character`` is accepted for ``char``), or a ValueError naming the choices."""
        key = name.strip().lower()
        if key == "character":
            return cls.CHAR
        try:
            return cls(key)
        except ValueError:
            choices = ", ".join(level.value for level in cls)
            raise ValueError(f"unknown level {name!r}; expected one of: {choices}") from None


_RANK = {level: i for i, level in enumerate(Level)}


class Unit(NamedTuple):
    """One unit of a text: its value (what comparisons see) and where it lies in the whole text.

    ``text`` is usually ``whole[start:end]``; a profile may normalise it (the collie-v1 word tokenizer turns a
    double quote into the token ````), in which case ``start:end`` is the source it came from.
    """

    text: str
    start: int
    end: int
