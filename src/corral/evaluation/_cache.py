"""A response cache shared across runs: a second task over the same prompts costs nothing.

Keyed on everything that determines an output (backend, model, where it is served, messages, sampling
parameters with the seed, grammar hash; ``Request.key``). Stored in SQLite: one file, safe for several runs at
once, and a write is all-or-nothing, so a killed run never leaves a torn entry. Failed completions are never
cached.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict
from pathlib import Path

from corral.models import Completion, Request
from corral.paths import cache_dir

CACHE_FORMAT = 1  # bump when a backend change makes old outputs unrepresentative
MAX_ENTRY_CHARS = 64 * 2**20  # a larger entry is a miss (a completion is far smaller; a damaged file may not be)


def default_cache_path() -> Path:
    """``$CORRAL_CACHE_DIR/responses.sqlite3``, else ``~/.cache/corral/responses.sqlite3``."""
    return cache_dir() / "responses.sqlite3"


class ResponseCache:
    """Completions by request key.

    A cache is an optimisation, never a reason for a run to fail: a file that is not a readable SQLite database,
    or an entry that does not read back as a completion, is reported in ``problem`` / counted in ``skipped`` and
    treated as a miss (the run regenerates), never raised."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_cache_path()
        self.hits = 0
        self.skipped = 0  # entries that did not read back as a completion (damaged, or from another version)
        self.problem: str | None = None  # why the cache is off, when it is
        self._db: sqlite3.Connection | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, completion TEXT NOT NULL)")
        except (OSError, sqlite3.Error) as exc:
            self._off(exc)

    def _off(self, exc: BaseException) -> None:
        self.problem = f"the response cache {self.path} cannot be used ({exc}); running without it"
        if self._db is not None:
            self._db.close()
        self._db = None

    @staticmethod
    def key(request: Request, backend: str, model: str) -> str:
        return request.key(backend, f"{model}#cache{CACHE_FORMAT}")

    def get(self, key: str) -> Completion | None:
        if self._db is None:
            return None
        try:  # an entry over the size limit is never even loaded (length() reads no text)
            row = self._db.execute(
                "SELECT CASE WHEN length(completion) <= ? THEN completion END FROM responses WHERE key = ?",
                (MAX_ENTRY_CHARS, key),
            ).fetchone()
        except sqlite3.Error as exc:
            self._off(exc)
            return None
        if row is None:
            return None
        completion = _completion(row[0])
        if completion is None:  # not a completion this version can read: a miss, regenerated
            self.skipped += 1
            return None
        self.hits += 1
        return completion

    def put(self, key: str, completion: Completion) -> None:
        if completion.finish_reason == "error" or self._db is None:
            return
        try:
            self._db.execute("INSERT OR REPLACE INTO responses VALUES (?, ?)", (key, json.dumps(asdict(completion))))
        except sqlite3.Error as exc:
            self._off(exc)

    def close(self) -> None:
        if self._db is not None:
            self._db.close()


def _completion(stored: object) -> Completion | None:
    """The completion an entry holds, or None for anything else: too large, not JSON, JSON nested too deep for the
    parser (RecursionError), a number over Python's digit limit, or fields of the wrong kinds. Never raises: the
    file may have been written by another version, or by anyone."""
    if not isinstance(stored, str | bytes):
        return None
    try:
        fields = json.loads(stored)
        if not isinstance(fields, dict) or not isinstance(fields.get("text"), str):
            return None
        return Completion(**fields)
    except (TypeError, ValueError, RecursionError, MemoryError, AttributeError, KeyError):
        return None
