"""JSON Lines and safe writes: the one reader, writer and atomic writer every package uses.

Runs, instances files, shipped data and corpora are JSON Lines, plain or gzip-compressed (by the ``.gz`` suffix).
A bad line is an ``InputError`` naming the file, the line and the column, never a traceback. Files that a crash must
not leave half-written (configs, summaries, shipped data, caches) are written to a temporary file beside the
target and renamed over it, which is atomic on POSIX and Windows.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from corral.errors import InputError

__all__ = ["JsonlError", "append_jsonl", "atomic_write", "dumps", "iter_jsonl", "read_jsonl", "write_jsonl"]


class JsonlError(InputError):
    """A JSON Lines file that cannot be read: the message names the file, the line and the column."""


def iter_jsonl(source: str | Path | IO[str], *, name: str | None = None, objects: bool = True,
               max_line_chars: int | None = None) -> Iterator[dict[str, Any]]:
    """The rows of a JSON Lines file (``.gz`` read compressed) or of an open text stream, blank lines skipped.

    ``objects`` requires each row to be a JSON object; ``max_line_chars`` refuses longer lines (untrusted input).
    """
    if isinstance(source, str | Path):
        path = Path(source)
        label = name or str(path)
        try:
            stream: IO[str] = (io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")  # noqa: SIM115
                               if path.suffix == ".gz" else path.open(encoding="utf-8"))
        except OSError as exc:
            raise JsonlError(f"cannot read {label}: {exc.strerror or exc}") from None
        with stream:
            yield from _rows(stream, label, objects, max_line_chars)
    else:
        yield from _rows(source, name or getattr(source, "name", "<stream>"), objects, max_line_chars)


def read_jsonl(source: str | Path | IO[str], **options: Any) -> list[dict[str, Any]]:
    """All rows of a JSON Lines file, as ``iter_jsonl`` reads them."""
    return list(iter_jsonl(source, **options))


def _rows(stream: IO[str], label: str, objects: bool, max_line_chars: int | None) -> Iterator[dict[str, Any]]:
    number = 0
    try:
        for number, line in enumerate(stream, start=1):
            if max_line_chars is not None and len(line) > max_line_chars:
                raise JsonlError(f"{label}:{number}: line longer than {max_line_chars:,} characters")
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise JsonlError(f"{label}:{number}:{exc.colno}: malformed JSON ({exc.msg})") from None
            if objects and not isinstance(row, dict):
                raise JsonlError(f"{label}:{number}: expected a JSON object, got {type(row).__name__}")
            yield row
    except UnicodeDecodeError as exc:
        raise JsonlError(f"{label}:{number + 1}: not UTF-8 text ({exc.reason})") from None
    except (OSError, EOFError) as exc:  # a truncated or corrupt .gz
        raise JsonlError(f"{label}:{number + 1}: cannot read ({exc})") from None


def dumps(row: Mapping[str, Any] | Any, sort_keys: bool = False) -> str:
    """One JSON line, UTF-8 kept as is."""
    return json.dumps(row, ensure_ascii=False, sort_keys=sort_keys)


def append_jsonl(stream: IO[str], row: Mapping[str, Any] | Any) -> None:
    """Append one row to an open file and flush it, so a crash loses at most the row being written."""
    stream.write(dumps(row) + "\n")
    stream.flush()


def write_jsonl(path: str | Path, rows: Iterable[Mapping[str, Any] | Any], sort_keys: bool = False) -> int:
    """Write ``rows`` atomically as JSON Lines (gzip for ``.gz``, with a fixed timestamp so the bytes are
    reproducible); returns the number of rows."""
    count = 0
    lines = []
    for row in rows:
        lines.append(dumps(row, sort_keys) + "\n")
        count += 1
    data = "".join(lines).encode("utf-8")
    if Path(path).suffix == ".gz":
        data = gzip.compress(data, compresslevel=9, mtime=0)
    atomic_write(path, data)
    return count


def atomic_write(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename: readers see the old
    file or the new one, never a part."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(temporary, 0o666 & ~mask)  # mkstemp makes it private; the result is an ordinary file
        with os.fdopen(handle, "wb") as out:
            out.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
