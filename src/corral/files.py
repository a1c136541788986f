"""Opening the files a user names: inputs are regular files only, never blocking, never larger than a cap; every
failure to write an output is one error naming the path.

A path on a command line, or a file inside a run directory, may be a FIFO (``open`` would wait forever for a
writer), a device such as ``/dev/zero`` (an endless read), a directory, or a symbolic link out of where it should
be. Every untrusted input file is opened here: without blocking (``O_NONBLOCK``, so a FIFO opens at once and is then
refused), checked on the open descriptor (``fstat``, so the file checked is the file read, not whatever the path
names a moment later), and refused past a size cap before a byte is parsed. With ``within`` (a run directory) the
last component is opened with ``O_NOFOLLOW`` and the folder it is in must resolve inside ``within``, so a run's
file is never read or appended to through a link that leaves the run. Each refusal is one ``InputError`` naming the
path and what it is; each failed write (a full disk, no permission, a name too long, a directory in the way) one
``OutputError`` naming the path and the system's reason.

This module imports nothing of Corral but ``corral.errors``: every package may use it.
"""

from __future__ import annotations

import errno
import io
import json
import os
import re
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from corral.errors import InputError, OutputError

__all__ = ["MAX_DOCUMENT_BYTES", "MAX_INPUT_BYTES", "MAX_JSON_DEPTH", "MAX_LINE_CHARS", "MAX_RUN_FILE_BYTES",
           "MAX_WHOLE_FILE_BYTES", "integer_too_long_at", "make_folder", "open_input", "open_output", "open_regular",
           "output_error", "parse_json", "read_input_bytes", "read_input_json", "read_input_text", "writing"]

MAX_INPUT_BYTES = 4 * 1024**3
"""A JSON Lines file read line by line (a run's records, a corpus or suite file, ``collie check --generations``):
4 GiB. The records of a large benchmark run stay far below it; past it, a file is not one Corral wrote."""
MAX_WHOLE_FILE_BYTES = 1024**3
"""A file read whole into memory before its lines are used (``check --batch``, an instances file given to
``corral eval``, a training run's step log): 1 GiB, so that the memory a file can take is bounded."""
MAX_DOCUMENT_BYTES = 64 * 1024**2
"""One document a user names: a schema or a sample (``corral schema ...``, ``generate --schema``), a Lark grammar,
``check --format``'s ``--instance``, a training config: 64 MiB (SchemaStore's largest schema is under 2.1 MiB)."""
MAX_RUN_FILE_BYTES = 64 * 1024**2
"""One JSON file of a run directory (``config.json``, ``runtime.json``, ``summary.json``, a training run's
``train.json`` or a checkpoint's ``trainer_state.json``): 64 MiB. A config lists the selected instance ids, which
for ten million instances is still well inside it."""
MAX_LINE_CHARS = 64 * 1024**2
"""The longest line of a JSON Lines file read from disk: 64 Mi characters. A record holds a whole chat and its
outputs (at most 131,072 tokens each), far less than this; a longer line is refused before it is held whole."""
MAX_JSON_DEPTH = 256
"""The deepest nesting ``read_input_json`` accepts: arrays and objects 256 levels deep. Real schemas, instances and
configs nest a few dozen levels at most; deeper JSON would send recursive code (validation, compilation) into
Python's recursion limit."""

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


# ------------------------------------------------------------------------------------------------ opening


def open_regular(path: str | Path, flags: int, *, within: str | Path | None = None, output: bool = False,
                 create_mode: int = 0o666) -> int:
    """A descriptor of the regular file ``path`` opened with ``flags`` (``os.O_RDONLY``, ``os.O_RDWR |
    os.O_CREAT``, ...), in blocking mode; anything else (a FIFO, a device, a directory, a link out of ``within``)
    refused. The refusal is an ``InputError``, or an ``OutputError`` with ``output``. For a caller that needs the
    descriptor itself (a lock file); ``open_input`` and ``open_output`` are the usual ways in."""
    return _open(path, flags, within=within, regular=True, output=output, create_mode=create_mode)


def open_input(path: str | Path, max_bytes: int | None = MAX_INPUT_BYTES, *,
               within: str | Path | None = None) -> BinaryIO:
    """``path`` opened for reading in binary, if it is a regular file of at most ``max_bytes`` (None: no cap, for a
    file that is streamed and may be as large as a disk, such as a corpus); with ``within``, a file of that folder
    not reached through a symbolic link. Every refusal and every error opening it is an ``InputError`` naming
    ``path``: ``PATH: no such file``, ``PATH: not a regular file (a FIFO)``, ``PATH: N bytes; the limit is M``,
    ``PATH: cannot read: <the system's reason>``."""
    descriptor = _open(path, os.O_RDONLY, within=within, regular=True, output=False)
    try:
        size = os.fstat(descriptor).st_size
        if max_bytes is not None and size > max_bytes:
            raise InputError(f"{path}: {size:,} bytes; the limit is {max_bytes:,}")
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def read_input_bytes(path: str | Path, max_bytes: int = MAX_DOCUMENT_BYTES, *,
                     within: str | Path | None = None) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` (``open_input``). A file that grows while it is read
    is read one byte past the cap at most and refused, not read without end; the buffer asked for is the file's
    size, not the cap, so a small file under a large cap takes what it holds."""
    try:
        with open_input(path, max_bytes, within=within) as stream:
            expected = min(os.fstat(stream.fileno()).st_size, max_bytes)
            data = stream.read(expected + 1)
            if len(data) > expected:  # it grew since it was opened
                data += stream.read(max_bytes + 1 - len(data))
    except OSError as exc:  # a read error (EIO, a file on a vanished mount)
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise InputError(f"{path}: more than {max_bytes:,} bytes")
    return data


def read_input_text(path: str | Path, max_bytes: int = MAX_DOCUMENT_BYTES, *,
                    within: str | Path | None = None) -> str:
    """The UTF-8 text of a regular file of at most ``max_bytes`` (``open_input``); bytes that are not UTF-8 are
    one error naming the line and the byte offset (``PATH:3: not UTF-8 text (invalid start byte at byte 41)``)."""
    data = read_input_bytes(path, max_bytes, within=within)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(f"{path}:{line}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def read_input_json(path: str | Path, max_bytes: int = MAX_DOCUMENT_BYTES, *, within: str | Path | None = None,
                    max_depth: int = MAX_JSON_DEPTH) -> Any:
    """The JSON value of a regular UTF-8 file of at most ``max_bytes`` (``read_input_text``), parsed by
    ``parse_json``: malformed JSON, nesting deeper than ``max_depth`` and integers past Python's digit limit are
    each one ``InputError`` naming ``path`` (and the line and column where there is one)."""
    return parse_json(read_input_text(path, max_bytes, within=within), str(path), max_depth=max_depth)


def parse_json(text: str, where: str, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``text`` as JSON, or one ``InputError`` that starts with ``where``: ``WHERE:LINE:COLUMN: malformed JSON
    (...)``, ``WHERE: JSON nested more than N deep``, ``WHERE:LINE:COLUMN: an integer of more than 4,300 digits``.

    ``json.loads`` raises three things on hostile text: ``JSONDecodeError``, ``RecursionError`` (nesting past the
    interpreter's limit) and a bare ``ValueError`` (an integer past ``sys.get_int_max_str_digits()``); all three
    become the one error kind, and nesting below the interpreter's limit is bounded by ``max_depth``."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}:{exc.lineno}:{exc.colno}: malformed JSON ({exc.msg})") from None
    except RecursionError:
        raise InputError(f"{where}: JSON nested more than {max_depth:,} deep") from None
    except ValueError:  # int() of a digit string past the interpreter's limit
        found = integer_too_long_at(text)
        at = f":{found[0]}:{found[1]}" if found else ""
        raise InputError(f"{where}{at}: an integer of more than {sys.get_int_max_str_digits():,} digits") from None
    if _deeper_than(value, max_depth):
        raise InputError(f"{where}: JSON nested more than {max_depth:,} deep")
    return value


def integer_too_long_at(text: str) -> tuple[int, int] | None:
    """The line and column (from 1) of the first JSON integer in ``text`` with more digits than Python converts
    (``sys.get_int_max_str_digits()``), outside any string; None when there is none. For messages only: it is
    called after ``json.loads`` has refused the text."""
    limit = sys.get_int_max_str_digits()
    if not limit:
        return None
    for match in re.finditer(rf"(?<![\w.+\-])-?[0-9]{{{limit + 1},}}(?![0-9.eE])", text):
        start = match.start()
        if re.sub(r"\\.", "", text[:start], flags=re.DOTALL).count('"') % 2:
            continue  # inside a string
        line = text.count("\n", 0, start) + 1
        return line, start - (text.rfind("\n", 0, start) + 1) + 1
    return None


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether arrays and objects in ``value`` nest more than ``limit`` deep (walked without recursion)."""
    if not isinstance(value, (dict, list)):
        return False
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


# ------------------------------------------------------------------------------------------------ writing


def output_error(path: str | Path, exc: OSError) -> OutputError:
    """The ``OutputError`` for ``exc`` raised while writing ``path``: ``PATH: cannot write: <the reason>``."""
    if isinstance(exc, OutputError):
        return exc
    reason = "a FIFO with no reader" if exc.errno == errno.ENXIO else exc.strerror or str(exc)
    return OutputError(f"{path}: cannot write: {reason}", exc.errno, exc.strerror)


def make_folder(folder: str | Path, *, named: str | Path | None = None) -> None:
    """``folder`` made with its parents where absent; a file in the way, a name too long or no permission is one
    ``OutputError`` naming ``named`` (the file to be written there; ``folder`` itself by default)."""
    try:
        Path(folder).mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # something that is not a folder holds the folder's name
        raise output_error(named or folder, OSError(errno.ENOTDIR, os.strerror(errno.ENOTDIR))) from None
    except OSError as exc:
        raise output_error(named or folder, exc) from None


@contextmanager
def writing(path: str | Path) -> Iterator[None]:
    """Every ``OSError`` raised in the block becomes the ``OutputError`` naming ``path``: for a block that writes
    ``path`` and nothing else (a chart saved by a library, a folder created for it)."""
    try:
        yield
    except OSError as exc:
        raise output_error(path, exc) from None


def open_output(path: str | Path, *, append: bool = False, within: str | Path | None = None) -> TextIO:
    """``path`` opened to write UTF-8 text (truncated, or appended to with ``append``), created if absent. Every
    ``OSError`` opening, writing, flushing or closing it is an ``OutputError`` naming ``path``, so a full disk
    (``/dev/full``), a missing permission or a name too long is one line, never a traceback.

    Without ``within`` any file the user may name is written (a device such as ``/dev/null``, a FIFO that has a
    reader: it is opened without blocking, and one without a reader is refused at once). With ``within`` (a run
    directory's own files) only a regular file inside it, not reached through a symbolic link."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
    descriptor = _open(path, flags, within=within, regular=within is not None, output=True)
    try:
        raw = io.FileIO(descriptor, "w", closefd=True)
    except OSError as exc:
        os.close(descriptor)
        raise output_error(path, exc) from None
    return _Output(io.BufferedWriter(raw), path)


class _Output(io.TextIOWrapper):
    """A UTF-8 text file whose every ``OSError`` (a write, a flush, the close) is the ``OutputError`` naming it."""

    def __init__(self, buffer: io.BufferedWriter, path: str | Path) -> None:
        super().__init__(buffer, encoding="utf-8")
        self._path = path

    def write(self, text: str) -> int:
        with writing(self._path):
            return super().write(text)

    def writelines(self, lines: Any) -> None:
        with writing(self._path):
            super().writelines(lines)

    def flush(self) -> None:
        with writing(self._path):
            super().flush()

    def close(self) -> None:
        with writing(self._path):
            super().close()


# ------------------------------------------------------------------------------------------------ the one open


def _open(path: str | Path, flags: int, *, within: str | Path | None, regular: bool, output: bool,
          create_mode: int = 0o666) -> int:
    """``os.open`` without blocking and without inheriting the descriptor (and, with ``within``, without following
    a link at the last component), checked on the descriptor, returned in blocking mode."""
    error = OutputError if output else InputError
    flags |= _NONBLOCK | _CLOEXEC | (_NOFOLLOW if within is not None else 0)
    try:
        descriptor = os.open(path, flags, create_mode)
    except OSError as exc:
        if within is not None and exc.errno == errno.ELOOP and os.path.islink(path):
            raise error(f"{path}: not a regular file (a symbolic link; links are not followed in {within})"
                        ) from None
        if regular and exc.errno == errno.ENXIO:  # opening a FIFO with no reader to write, or a device
            raise error(f"{path}: not a regular file ({_kind_at(path)})") from None
        if output:
            raise output_error(path, exc) from None
        if exc.errno == errno.ENOENT:
            raise InputError(f"{path}: no such file") from None
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(descriptor).st_mode
        if regular and not stat.S_ISREG(mode):
            raise error(f"{path}: not a regular file ({_kind(mode)})")
        if within is not None and not _inside(Path(path).parent, Path(within)):
            raise error(f"{path}: outside {within} (a symbolic link on the way leads out of it)")
        if _NONBLOCK:
            os.set_blocking(descriptor, True)
        return descriptor
    except BaseException:
        os.close(descriptor)
        raise


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _kind_at(path: str | Path) -> str:
    try:
        return _kind(os.lstat(path).st_mode)
    except OSError:
        return "a special file"


def _inside(folder: Path, root: Path) -> bool:
    return Path(os.path.realpath(folder)).is_relative_to(os.path.realpath(root))
