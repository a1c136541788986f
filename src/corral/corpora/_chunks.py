"""Chunks: the units of a document at one level, cut with ``corral.text``'s one segmentation (profile chosen).

A passage is a run of ``passage_paragraphs`` consecutive paragraphs (non-overlapping, in order), joined with a
blank line, so that its paragraphs segment back to exactly those paragraphs. Blank units (``collie-v1`` splits
an empty text into one empty paragraph) are never chunks.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from corral.text import Level, segment

from ._sources import Document


@dataclass(frozen=True)
class Chunk:
    """A piece of a document at one level, with where it came from (document id and index at that level)."""

    document: str
    index: int
    level: Level
    text: str


def chunks(document: Document, level: Level | str, profile: str = "default",
           passage_paragraphs: int = 3) -> Iterator[Chunk]:
    """The document's units at ``level`` (``passage``: runs of ``passage_paragraphs`` paragraphs)."""
    level = level if isinstance(level, Level) else Level.parse(level)
    if level is Level.PASSAGE:
        if passage_paragraphs < 1:
            raise ValueError(f"a passage needs at least 1 paragraph, got {passage_paragraphs}")
        paragraphs = [u.text for u in segment(document.text, Level.PARAGRAPH, profile) if u.text.strip()]
        for i in range(len(paragraphs) // passage_paragraphs):
            window = paragraphs[i * passage_paragraphs:(i + 1) * passage_paragraphs]
            yield Chunk(document.id, i, level, "\n\n".join(window))
        return
    units = (u.text for u in segment(document.text, level, profile) if u.text.strip())
    for i, text in enumerate(units):
        yield Chunk(document.id, i, level, text)
