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
import re
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from glob import escape as glob_escape
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import IO, Any

from corral.errors import InputError, OutputError
from corral.files import (
    MAX_INPUT_BYTES,
    MAX_LINE_CHARS,
    integer_too_long_at,
    make_folder,
    open_input,
    output_error,
)

__all__ = ["JsonlError", "append_jsonl", "atomic_write", "dumps", "encode_jsonl", "enumerate_jsonl", "iter_jsonl",
           "parse_line", "read_jsonl", "write_jsonl"]


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class JsonlError(InputError):
    """A JSON Lines file that cannot be read: the message names the file, the line and the column."""


def enumerate_jsonl(source: str | Traversable | IO[str] | IO[bytes], *, name: str | None = None,
                    objects: bool = True, max_line_chars: int | None = MAX_LINE_CHARS, torn_tail: bool = False,
                    max_bytes: int | None = MAX_INPUT_BYTES, within: Path | None = None,
                    ) -> Iterator[tuple[int, Any]]:
    """(line number, row) for each row of a JSON Lines file (``.gz`` read compressed; a ``Path`` or a package
    resource) or of an open stream (text, or bytes decoded line by line), blank lines skipped; ``name`` names the
    source in messages.

    A file on disk is opened by ``corral.files.open_input``: a regular file of at most ``max_bytes`` only (a FIFO
    or ``/dev/zero`` is refused, not read), and with ``within`` (a run directory) not through a symbolic link.
    ``objects`` requires each row to be a JSON object; ``max_line_chars`` refuses longer lines, and a file's line
    is read at most that far (4 bytes a character) before it is refused, so one endless line is never held whole.
    ``torn_tail`` is for files appended to line by line: a last line without its newline is a write that was cut
    off, read if it is whole JSON and otherwise left out.
    """
    source = Path(source) if isinstance(source, str) else source
    if not isinstance(source, Traversable):
        yield from _rows(source, name or getattr(source, "name", "<stream>"), objects, max_line_chars, torn_tail)
        return
    label = name or str(source)
    try:  # a file on disk: a regular file only (a FIFO or /dev/zero is refused, not read); a package resource as is
        raw = open_input(source, max_bytes, within=within) if isinstance(source, Path) else source.open("rb")
    except InputError as exc:
        if _missing(source):  # type: ignore[arg-type]
            raise JsonlError(f"cannot read {label}: No such file or directory") from None
        raise JsonlError(str(exc) if name is None else str(exc).replace(str(source), label, 1)) from None
    except OSError as exc:
        raise JsonlError(f"cannot read {label}: {exc.strerror or exc}") from None
    with raw:  # read as bytes and decoded line by line, so that a byte that is not UTF-8 is found on its line
        stream = gzip.GzipFile(fileobj=raw) if source.name.endswith(".gz") else raw
        lines = _capped_lines(stream, None if max_line_chars is None else 4 * max_line_chars)
        yield from _rows(lines, label, objects, max_line_chars, torn_tail)


def _missing(path: Path) -> bool:
    """Whether ``path`` names nothing (not: cannot be looked at, such as a name too long)."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return False


def _capped_lines(stream: IO[bytes], cap: int | None) -> Iterator[bytes]:
    """The lines of a binary stream, each read at most ``cap + 1`` bytes far: a longer line comes out cut, without
    its newline, and ``_rows`` refuses it."""
    if cap is None:
        yield from stream
        return
    while line := stream.readline(cap + 1):
        yield line


def iter_jsonl(source: str | Traversable | IO[str] | IO[bytes], **options: Any) -> Iterator[Any]:
    """The rows of a JSON Lines file or stream, as ``enumerate_jsonl`` reads them."""
    for _, row in enumerate_jsonl(source, **options):
        yield row


def read_jsonl(source: str | Traversable | IO[str] | IO[bytes], **options: Any) -> list[Any]:
    """All rows of a JSON Lines file or stream, as ``enumerate_jsonl`` reads them."""
    return list(iter_jsonl(source, **options))


def parse_line(line: str, label: str, number: int, *, objects: bool = True, max_chars: int | None = None) -> Any:
    """Line ``number`` of ``label`` as JSON; a ``JsonlError`` naming ``label:number:column`` when it is not JSON,
    is longer than ``max_chars``, or (with ``objects``) is not a JSON object."""
    if max_chars is not None and len(line) > max_chars:
        raise JsonlError(f"{label}:{number}: line longer than {max_chars:,} characters")
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:  # the column on the line, not past its end
        column = min(exc.pos, len(line.rstrip("\r\n"))) + 1
        raise JsonlError(f"{label}:{number}:{column}: malformed JSON ({exc.msg})") from None
    except RecursionError:
        raise JsonlError(f"{label}:{number}: JSON nested too deeply to read") from None
    except ValueError:  # an integer past Python's limit on converting text to int (4,300 digits by default)
        found = integer_too_long_at(line)
        column = f":{found[1]}" if found else ""
        raise JsonlError(f"{label}:{number}{column}: an integer of more than {sys.get_int_max_str_digits():,} "
                         f"digits") from None
    if objects and not isinstance(row, dict):
        raise JsonlError(f"{label}:{number}: expected a JSON object, got {type(row).__name__}")
    return row


def _rows(stream: Iterable[str | bytes], label: str, objects: bool, max_chars: int | None,
          torn_tail: bool) -> Iterator[tuple[int, Any]]:
    number = 0
    try:
        for number, line in enumerate(stream, start=1):
            if isinstance(line, bytes):
                if max_chars is not None and len(line) > 4 * max_chars and not line.endswith(b"\n"):
                    raise JsonlError(f"{label}:{number}: line longer than {max_chars:,} characters")
                try:
                    line = line.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise JsonlError(f"{label}:{number}: not UTF-8 text (byte {exc.start + 1}: {exc.reason})") from None
            if not line.strip():
                continue
            try:
                row = parse_line(line, label, number, objects=objects, max_chars=max_chars)
            except JsonlError:
                if torn_tail and not line.endswith("\n"):
                    return  # the last line, cut off mid-write
                raise
            yield number, row
    except UnicodeDecodeError as exc:  # a text stream decodes ahead of the line it yields
        raise JsonlError(f"{label}:{number + 1}: not UTF-8 text ({exc.reason})") from None
    except (OSError, EOFError) as exc:  # a truncated or corrupt .gz
        raise JsonlError(f"{label}:{number + 1}: cannot read ({exc})") from None


def dumps(row: Mapping[str, Any] | Any, sort_keys: bool = False) -> str:
    """One JSON line, UTF-8 kept as is."""
    text = json.dumps(row, ensure_ascii=False, sort_keys=sort_keys)
    if _LONE_SURROGATE.search(text) is None:
        return text
    # a lone surrogate cannot be written as UTF-8: escape it (\udXXX), so the line is written and reads back equal
    return json.dumps(row, ensure_ascii=True, sort_keys=sort_keys)


def append_jsonl(stream: IO[str], row: Mapping[str, Any] | Any) -> None:
    """Append one row to an open file and flush it, so a crash loses at most the row being written."""
    stream.write(dumps(row) + "\n")
    stream.flush()


def encode_jsonl(rows: Iterable[Mapping[str, Any] | Any], sort_keys: bool = False, compress: bool = False) -> bytes:
    """The bytes of a JSON Lines file; ``compress`` gzips them with no name and a zero timestamp in the header, so
    the same rows give the same bytes on every machine and Python version."""
    data = "".join(dumps(row, sort_keys) + "\n" for row in rows).encode("utf-8")
    if not compress:
        return data
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=9) as out:
        out.write(data)
    return buffer.getvalue()


def write_jsonl(path: str | Path, rows: Iterable[Mapping[str, Any] | Any], sort_keys: bool = False) -> int:
    """Write ``rows`` atomically as JSON Lines (gzip for ``.gz``, reproducibly, see ``encode_jsonl``); returns the
    number of rows."""
    rows = list(rows)
    atomic_write(path, encode_jsonl(rows, sort_keys, compress=Path(path).suffix == ".gz"))
    return len(rows)


def atomic_write(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename: readers see the old
    file or the new one, never a part. A link at ``path`` is replaced, never written through.

    Every ``OSError`` (a folder that cannot be made, a full disk, no permission, a name too long, a directory in
    the way) is one ``OutputError`` naming ``path`` (still an ``OSError``); the temporary file is removed whatever
    happens."""
    path = Path(path)
    make_folder(path.parent, named=path)
    try:
        _sweep_temporaries(path)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{_stem(path)}.{os.getpid()}.", suffix=".tmp")
    except OSError as exc:
        raise output_error(path, exc) from None
    try:
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(temporary, 0o666 & ~mask)  # mkstemp makes it private; the result is an ordinary file
        with os.fdopen(handle, "wb") as out:
            out.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(temporary, path)
    except BaseException as exc:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(exc, OSError) and not isinstance(exc, OutputError):
            raise output_error(path, exc) from None
        raise


_TEMPORARY_STEM = 160
"""The most characters of the target's name a temporary file's name repeats: with the pid and mkstemp's letters it
stays under the 255 bytes a file name may have, so a long target name is not refused for its temporary's sake."""


def _stem(path: Path) -> str:
    return path.name[:_TEMPORARY_STEM]


def _sweep_temporaries(path: Path) -> None:
    """Remove the temporary files an earlier write of ``path`` left when its process was killed (``kill -9`` runs no
    cleanup): ``.NAME.PID.*.tmp`` whose PID is no longer a running process."""
    stem = _stem(path)
    for leftover in path.parent.glob(f".{glob_escape(stem)}.*.tmp"):
        pid = leftover.name[len(stem) + 2:].partition(".")[0]
        if pid.isdigit() and not _running(int(pid)):
            leftover.unlink(missing_ok=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):  # another user's process, or no way to ask: leave its file alone
        return True
    return True
