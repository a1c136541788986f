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
    """A piece of a document at one level, with where it came from: the document id, the index at that level, how
    many paragraphs a passage spans (``width``; 1 otherwise) and the document's source label (for statistics)."""

    document: str
    index: int
    level: Level
    text: str
    width: int = 1
    source: str = ""


def chunks(document: Document, level: Level | str, profile: str = "default",
           passage_paragraphs: int = 3) -> Iterator[Chunk]:
    """The document's units at ``level`` (``passage``: runs of ``passage_paragraphs`` paragraphs)."""
    level = level if isinstance(level, Level) else Level.parse(level)
    source = str(document.meta.get("source", document.source))
    if level is Level.PASSAGE:
        if passage_paragraphs < 1:
            raise ValueError(f"a passage needs at least 1 paragraph, got {passage_paragraphs}")
        paragraphs = list(_spans(document.text, Level.PARAGRAPH, profile))
        for i in range(len(paragraphs) // passage_paragraphs):
            window = paragraphs[i * passage_paragraphs:(i + 1) * passage_paragraphs]
            yield Chunk(document.id, i, level, "\n\n".join(window), passage_paragraphs, source)
        return
    for i, text in enumerate(_spans(document.text, level, profile)):
        yield Chunk(document.id, i, level, text, 1, source)


def _spans(text: str, level: Level, profile: str) -> Iterator[str]:
    """The units' texts as they stand in the document. A profile may drop a sentence's final punctuation from
    the unit's value (``collie-v1`` does), but the natural example is the sentence as written, so sentences and
    paragraphs run up to where the next unit starts (trailing space stripped); words are their values."""
    units = [u for u in segment(text, level, profile) if u.text.strip()]
    if level in (Level.WORD, Level.CHAR):
        yield from (u.text for u in units)
        return
    for unit, after in zip(units, [*units[1:], None], strict=False):
        end = after.start if after is not None else len(text)
        if level is Level.SENTENCE:
            gap = text.find("\n\n", unit.end, end)  # never run a sentence across a paragraph break
            end = gap if gap >= 0 else end
        yield text[unit.start:end].strip()
