"""Opening an input file a user names: regular files only, never blocking, never larger than a cap.

A path on a command line may be a FIFO (``open`` would wait forever for a writer), a device such as ``/dev/zero``
(an endless read) or a directory. Every untrusted input file is opened here: without blocking (``O_NONBLOCK``, so a
FIFO opens at once and is then refused), checked on the open descriptor (``fstat``, so the file checked is the file
read, not whatever the path names a moment later), and refused past a size cap before a byte is parsed. Each
refusal is one ``InputError`` naming the path and what it is.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

from corral.errors import InputError

__all__ = ["MAX_INPUT_BYTES", "MAX_SCHEMA_BYTES", "open_input", "read_input_text"]

MAX_INPUT_BYTES = 4 * 1024**3
"""Instances, batch and record files: 4 GiB (a run's records of a large benchmark stay far below it)."""
MAX_SCHEMA_BYTES = 64 * 1024**2
"""A schema or sample file: 64 MiB (SchemaStore's largest schema is under 2 MiB)."""

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def open_input(path: str | Path, max_bytes: int = MAX_INPUT_BYTES) -> BinaryIO:
    """``path`` opened for reading in binary, if it is a regular file of at most ``max_bytes``."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            kind = next((name for test, name in _KINDS if test(info.st_mode)), "not a regular file")
            raise InputError(f"{path}: not a regular file ({kind})")
        if info.st_size > max_bytes:
            raise InputError(f"{path}: {info.st_size:,} bytes; the limit is {max_bytes:,}")
        os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def read_input_text(path: str | Path, max_bytes: int = MAX_SCHEMA_BYTES) -> str:
    """The UTF-8 text of a regular file of at most ``max_bytes`` (``open_input``); bad bytes named by offset."""
    with open_input(path, max_bytes) as stream:
        data = stream.read(max_bytes + 1)
    if len(data) > max_bytes:  # it grew while being read
        raise InputError(f"{path}: more than {max_bytes:,} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
