"""One writer per run directory.

Two runs appending to the same ``records.jsonl`` interleave their lines (each generating what the other is
generating too), so a run holds ``run.lock`` while it writes. The lock is an advisory ``flock`` on that file,
which the kernel drops when its holder exits however it exits, so a lock left by a killed run is simply taken
over; the file also holds the owner's pid and host so that the refusal can say who holds it.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from corral.errors import OutputError
from corral.files import open_regular

from ._records import RunError

LOCK_FILE = "run.lock"

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks here, one writer is the user's care
    fcntl = None  # type: ignore[assignment]


@contextmanager
def run_lock(run: Path) -> Iterator[None]:
    """Hold ``run``'s lock for the block (creating ``run``); a ``RunError`` naming the holder if another process
    holds it."""
    try:
        run.mkdir(parents=True, exist_ok=True)
        # the run's own regular file: a link in its place (which ftruncate below would follow) or a FIFO is refused
        fd = open_regular(run / LOCK_FILE, os.O_RDWR | os.O_CREAT, within=run, output=True, create_mode=0o644)
    except OutputError as exc:
        raise RunError(str(exc)) from None
    except OSError as exc:
        raise RunError(f"cannot create or lock --out {run}: {exc.strerror or exc}") from None
    try:
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = os.pread(fd, 200, 0).decode("utf-8", errors="replace").strip() or "another process"
                raise RunError(f"{run} is being written by {holder} (lock {run / LOCK_FILE}); wait for that run "
                               f"to end, or choose another --out") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # closing drops the flock
