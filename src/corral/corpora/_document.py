"""What every corpus source gives and reports: documents, the count of what it skipped, and its one error."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from corral.errors import InputError


class CorpusError(InputError):
    """A corpus cannot be read: the message names the path (and line) and what is wrong."""


@dataclass(frozen=True)
class Document:
    """One text of a corpus: an id unique within the corpus (``source`` path plus line or file), the text, and
    whatever else the source carried (``title``, ``year``, ...)."""

    id: str
    text: str
    source: str
    meta: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass
class SourceStats:
    """What reading a source skipped, for the user to see rather than for the reader to hide."""

    documents: int = 0
    skipped: list[str] = field(default_factory=list)  # "path:line: reason"
