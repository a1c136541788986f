"""Where text comes from: plain-text files and folders, JSON lines, and the public-domain default corpus.

Everything streams: a source yields one ``Document`` at a time, so a corpus larger than memory works. Files in a
folder are read in sorted path order, so the same corpus always gives the same documents in the same order:
extraction is seeded, and its output must not depend on the order the filesystem lists files in. A malformed
JSON line is skipped and counted with its line number (``SourceStats``); a missing or unreadable path is an
error naming it.
"""

from __future__ import annotations

import dataclasses
import gzip
import io
import itertools
import os
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import BinaryIO

from corral.errors import InputError
from corral.files import MAX_WHOLE_FILE_BYTES, open_input, read_input_bytes
from corral.jsonl import JsonlError, parse_line

from ._document import CorpusError, Document, SourceStats

TEXT_SUFFIXES = (".txt", ".md")
JSONL_SUFFIXES = (".jsonl", ".jsonl.gz", ".ndjson")
PARQUET_SUFFIXES = (".parquet",)  # read with Hugging Face datasets (see _hf.py), as are save_to_disk folders
DEFAULT_DOCUMENTS = 2242  # documents in the default corpus (a test keeps this true)
DEFAULT_SHARD_DOCUMENTS = 250
MAX_LINE_BYTES = 64 * 1024 * 1024  # a single JSON line larger than this is refused, not read into memory whole


def read_corpus(path: str | Path, text_field: str = "text", stats: SourceStats | None = None) -> Iterator[Document]:
    """Documents from ``path``: ``default`` (the shipped corpus), a text file, a JSONL file, or a folder of them."""
    stats = stats if stats is not None else SourceStats()
    if str(path) == "default":
        yield from default_corpus(stats)
        return
    root = Path(path)
    for file, name in _files(root):
        yield from _read_file(file, name, text_field, stats)


def _read_file(file: Path, name: str, text_field: str, stats: SourceStats) -> Iterator[Document]:
    if file.name.endswith(PARQUET_SUFFIXES) or file.is_dir():
        from ._hf import hf_documents

        yield from hf_documents(file, name, text_field, stats)
    elif file.name.endswith(JSONL_SUFFIXES):
        yield from _jsonl(file, name, text_field, stats)
    else:
        yield from _text_file(file, name, stats)


@dataclass(frozen=True)
class Shard:
    """A piece of a corpus one worker reads: a whole file, the default corpus, or a byte range of a large
    uncompressed JSONL file, cut at line ends (``first_line`` numbers its first line, for ids and messages)."""

    path: str
    start: int = 0
    end: int | None = None
    first_line: int = 1
    size: int = 0  # bytes, for progress
    name: str = ""  # the file's name in document ids: relative to the corpus root, so ids do not depend on where
    #                 the corpus lives (and neither does the seeded sample)


def shards(path: str | Path, target_bytes: int = 64 * 1024 * 1024) -> list[Shard]:
    """The corpus at ``path`` split for parallel reading; reading the shards in order gives ``read_corpus(path)``."""
    if str(path) == "default":  # ranges of document numbers, so that engines can split the default corpus too
        total = DEFAULT_DOCUMENTS
        step = DEFAULT_SHARD_DOCUMENTS
        return [Shard("default", start, min(start + step, total), size=min(step, total - start))
                for start in range(0, total, step)]
    out: list[Shard] = []
    for file, name in _files(Path(path)):
        size = file.stat().st_size if file.is_file() else 0
        if file.name.endswith((".jsonl", ".ndjson")) and size > target_bytes:
            out += [dataclasses.replace(cut, name=name) for cut in _line_ranges(file, size, target_bytes)]
        else:
            out.append(Shard(str(file), size=size, name=name))
    return out


def _open(path: Path) -> BinaryIO:
    """A corpus file opened to stream it: a regular file of any size (``corral.files.open_input``), never a FIFO or
    a device that a file listed a moment ago was replaced by; a ``CorpusError`` naming it otherwise."""
    try:
        return open_input(path, None)
    except InputError as exc:
        if not os.path.lexists(path):  # gone since the corpus was listed
            raise CorpusError(f"cannot read {path}: No such file or directory") from None
        raise CorpusError(f"cannot read {exc}") from None


def _line_ranges(file: Path, size: int, target_bytes: int) -> list[Shard]:
    """Byte ranges of about ``target_bytes`` ending at line ends, with the number of each range's first line."""
    cuts: list[Shard] = []
    start = 0
    try:
        with _open(file) as stream:
            while start < size:
                stream.seek(start + target_bytes)
                rest = stream.readline()  # to the end of the line the target falls in
                end = min(size, start + target_bytes + len(rest))
                cuts.append(Shard(str(file), start, end, 0, end - start))
                start = end
    except OSError as exc:
        raise CorpusError(f"cannot read {file}: {exc.strerror}") from None
    return _number(cuts, file)


def _number(cuts: list[Shard], file: Path) -> list[Shard]:
    """Fill in each range's first line number by counting the line ends before it."""
    numbered, line = [], 1
    with _open(file) as stream:
        for cut in cuts:
            numbered.append(Shard(cut.path, cut.start, cut.end, line, cut.size))
            stream.seek(cut.start)
            remaining = cut.size
            while remaining > 0:
                data = stream.read(min(remaining, 16 * 1024 * 1024))
                if not data:
                    break
                line += data.count(b"\n")
                remaining -= len(data)
    return numbered


def read_shard(shard: Shard, text_field: str = "text", stats: SourceStats | None = None) -> Iterator[Document]:
    """The documents of one shard (see ``shards``)."""
    stats = stats if stats is not None else SourceStats()
    if shard.path == "default":
        counted = SourceStats()
        documents = default_corpus(counted)
        yield from itertools.islice(documents, shard.start, shard.end)
        stats.documents += (shard.end if shard.end is not None else counted.documents) - shard.start
        stats.skipped += counted.skipped if shard.start == 0 else []
        return
    path = Path(shard.path)
    if shard.start == 0 and shard.end is None:
        yield from _read_file(path, shard.name or path.name, text_field, stats)
        return
    with _open(path) as raw:
        raw.seek(shard.start)
        limited = io.BufferedReader(_Window(raw, shard.size))
        yield from _jsonl_lines(io.TextIOWrapper(limited, encoding="utf-8"), str(path), text_field, stats,
                                first_line=shard.first_line, name=shard.name or path.name)


class _Window(io.RawIOBase):
    """At most ``length`` bytes of a stream, from where it stands."""

    def __init__(self, stream: io.BufferedReader, length: int) -> None:
        self._stream, self._left = stream, length

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def]
        if self._left <= 0:
            return 0
        data = self._stream.read(min(len(buffer), self._left))
        buffer[: len(data)] = data
        self._left -= len(data)
        return len(data)


def default_corpus(stats: SourceStats | None = None) -> Iterator[Document]:
    """The shipped public-domain corpus: Moby-Dick by chapter, 233 State of the Union addresses, and the
    COLLIE-v1 example passages (wiki, ccnews, guten), each once. Licences in DATA_LICENSES.md."""
    stats = stats if stats is not None else SourceStats()
    with files("corral.corpora").joinpath("data", "public_domain.jsonl.gz").open("rb") as raw:
        for doc in _jsonl_lines(io.TextIOWrapper(gzip.GzipFile(fileobj=raw), encoding="utf-8"),
                                "public_domain", "text", stats):
            yield Document(doc.id, doc.text, doc.source, {**doc.meta, "source": str(doc.meta["id"]).split("/")[0]})
    from corral.suites.collie import instances

    seen: set[str] = set()
    for inst in instances():
        if inst.source == "english" or inst.example in seen:
            continue
        seen.add(inst.example)
        stats.documents += 1
        yield Document(f"collie/{inst.id}", inst.example, "collie-v1", {"source": inst.source})


def _files(root: Path) -> list[tuple[Path, str]]:
    """The readable files under ``root`` in sorted order (a saved Hugging Face dataset counts as one file), each
    with its name in document ids: the file name for a file, the path under ``root`` for a folder."""
    from ._hf import is_saved_dataset

    if not root.exists():
        raise CorpusError(f"corpus path {root} does not exist")
    if root.is_file() or is_saved_dataset(root):
        return [(root, root.name)]
    found = sorted(p for p in root.rglob("*") if (p.is_file() and _readable_kind(p)) or is_saved_dataset(p))
    found = [p for p in found if not any(is_saved_dataset(parent) for parent in p.parents)]
    if not found:
        raise CorpusError(f"corpus folder {root} has no .txt, .md, .jsonl or .parquet files")
    return [(p, p.relative_to(root).as_posix()) for p in found]


def _readable_kind(path: Path) -> bool:
    return path.name.endswith(TEXT_SUFFIXES + JSONL_SUFFIXES + PARQUET_SUFFIXES)


def _text_file(path: Path, name: str, stats: SourceStats) -> Iterator[Document]:
    try:  # a regular file of at most 1 GiB (corral.files): a FIFO or a device in a corpus folder is refused
        text = read_input_bytes(path, MAX_WHOLE_FILE_BYTES).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CorpusError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except InputError as exc:
        raise CorpusError(f"cannot read {exc}") from None
    stats.documents += 1
    yield Document(name, text, name)


def _jsonl(path: Path, name: str, text_field: str, stats: SourceStats) -> Iterator[Document]:
    with _open(path) as raw:
        stream = gzip.GzipFile(fileobj=raw) if path.name.endswith(".gz") else raw
        try:
            yield from _jsonl_lines(io.TextIOWrapper(stream, encoding="utf-8", errors="strict"), str(path),
                                    text_field, stats, name=name)
        except (OSError, EOFError) as exc:  # a truncated or corrupt gzip stream
            raise CorpusError(f"cannot read {path}: {exc}") from None


def _jsonl_lines(lines: io.TextIOBase, source: str, text_field: str, stats: SourceStats,
                 first_line: int = 1, name: str | None = None) -> Iterator[Document]:
    """Documents from JSON lines; ``source`` names the file in messages, ``name`` in document ids."""
    name = source if name is None else name
    number = first_line - 1
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
            row = parse_line(line, source, number, objects=False)
        except JsonlError as exc:
            stats.skipped.append(str(exc))
            continue
        if not isinstance(row, dict) or not isinstance(row.get(text_field), str):
            stats.skipped.append(f"{source}:{number}: no string field {text_field!r}")
            continue
        stats.documents += 1
        meta = {k: v for k, v in row.items() if k != text_field}
        yield Document(f"{name}:{row.get('id', number)}", row[text_field], name, meta)
