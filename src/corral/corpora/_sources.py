"""Where text comes from: plain-text files and folders, JSON lines, and the public-domain default corpus.

Everything streams: a source yields one ``Document`` at a time, so a corpus larger than memory works. Files in a
folder are read in sorted path order, so the same corpus always gives the same documents in the same order:
extraction is seeded, and its output must not depend on the order the filesystem lists files in. A malformed
JSON line is skipped and counted with its line number (``SourceStats``); a missing or unreadable path is an
error naming it.
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

TEXT_SUFFIXES = (".txt", ".md")
JSONL_SUFFIXES = (".jsonl", ".jsonl.gz", ".ndjson")
MAX_LINE_BYTES = 64 * 1024 * 1024  # a single JSON line larger than this is refused, not read into memory whole


class CorpusError(ValueError):
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


def read_corpus(path: str | Path, text_field: str = "text", stats: SourceStats | None = None) -> Iterator[Document]:
    """Documents from ``path``: ``default`` (the shipped corpus), a text file, a JSONL file, or a folder of them."""
    stats = stats if stats is not None else SourceStats()
    if str(path) == "default":
        yield from default_corpus(stats)
        return
    root = Path(path)
    if not root.exists():
        raise CorpusError(f"corpus path {root} does not exist")
    paths = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file() and _readable_kind(p))
    if root.is_dir() and not paths:
        raise CorpusError(f"corpus folder {root} has no .txt, .md or .jsonl files")
    for file in paths:
        if file.name.endswith(JSONL_SUFFIXES):
            yield from _jsonl(file, text_field, stats)
        else:
            yield from _text_file(file, stats)


def default_corpus(stats: SourceStats | None = None) -> Iterator[Document]:
    """The shipped public-domain corpus: Moby-Dick by chapter, 233 State of the Union addresses, and the
    COLLIE-v1 example passages (wiki, ccnews, guten), each once. Licences in DATA_LICENSES.md."""
    stats = stats if stats is not None else SourceStats()
    with files("corral.corpora").joinpath("data", "public_domain.jsonl.gz").open("rb") as raw:
        yield from _jsonl_lines(io.TextIOWrapper(gzip.GzipFile(fileobj=raw), encoding="utf-8"),
                                "public_domain", "text", stats)
    from corral.collie._data import instances

    seen: set[str] = set()
    for inst in instances():
        if inst.source == "english" or inst.example in seen:
            continue
        seen.add(inst.example)
        stats.documents += 1
        yield Document(f"collie/{inst.id}", inst.example, "collie-v1", {"source": inst.source})


def _readable_kind(path: Path) -> bool:
    return path.name.endswith(TEXT_SUFFIXES + JSONL_SUFFIXES)


def _text_file(path: Path, stats: SourceStats) -> Iterator[Document]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise CorpusError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise CorpusError(f"cannot read {path}: {exc.strerror}") from None
    stats.documents += 1
    yield Document(str(path), text, str(path))


def _jsonl(path: Path, text_field: str, stats: SourceStats) -> Iterator[Document]:
    try:
        raw = path.open("rb")
    except OSError as exc:
        raise CorpusError(f"cannot read {path}: {exc.strerror}") from None
    with raw:
        stream = gzip.GzipFile(fileobj=raw) if path.name.endswith(".gz") else raw
        try:
            yield from _jsonl_lines(io.TextIOWrapper(stream, encoding="utf-8", errors="strict"), str(path),
                                    text_field, stats)
        except (OSError, EOFError) as exc:  # a truncated or corrupt gzip stream
            raise CorpusError(f"cannot read {path}: {exc}") from None


def _jsonl_lines(lines: io.TextIOBase, source: str, text_field: str, stats: SourceStats) -> Iterator[Document]:
    number = 0
    while True:
        try:
            line = lines.readline(MAX_LINE_BYTES + 1)
        except UnicodeDecodeError as exc:
            raise CorpusError(f"{source}:{number + 1}: not UTF-8 text (byte {exc.start})") from None
        if not line:
            return
        number += 1
        if len(line) > MAX_LINE_BYTES:
            raise CorpusError(f"{source}:{number}: a line longer than {MAX_LINE_BYTES} bytes")
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            stats.skipped.append(f"{source}:{number}: malformed JSON ({exc.msg} at column {exc.colno})")
            continue
        if not isinstance(row, dict) or not isinstance(row.get(text_field), str):
            stats.skipped.append(f"{source}:{number}: no string field {text_field!r}")
            continue
        stats.documents += 1
        meta = {k: v for k, v in row.items() if k != text_field}
        yield Document(f"{source}:{row.get('id', number)}", row[text_field], source, meta)
