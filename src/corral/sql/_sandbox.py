"""Run a model's SQL query against a SQLite database without letting it change, attach, or outlast anything.

A predicted query is untrusted text. It runs only if SQLite itself, while preparing it, finds nothing but reads:
the connection's authorizer allows selecting, reading columns, recursive CTEs and ordinary functions, and denies
every other action (writes, schema changes, ``ATTACH``, ``PRAGMA``, transactions, extension loading), so a denied
query is refused before any of it runs. The database is also opened read-only, as a second wall. A query that
runs past ``seconds`` is interrupted (a progress handler checks the clock every few thousand virtual-machine
steps), a string or blob past ``max_bytes`` fails, and at most ``max_rows`` rows are fetched (``truncated`` says
there were more). Every outcome is a ``QueryResult``; nothing raises for a bad query.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["MAX_QUERY_CHARS", "QueryResult", "run_query"]

MAX_QUERY_CHARS = 20_000
"""Longer query texts are refused unread (Spider's longest gold query has 577 characters)."""

_ALLOWED = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION,
            getattr(sqlite3, "SQLITE_RECURSIVE", 33)}
_DENIED_FUNCTIONS = frozenset({"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"})
_STEPS = 5_000
"""Virtual-machine instructions between two looks at the clock."""


@dataclass(frozen=True)
class QueryResult:
    """What running a query gave: its ``rows`` (in SQLite's order), or ``error`` saying why there are none
    (``refused: ...`` when the query was not run at all). ``truncated``: more than ``max_rows`` rows existed."""

    rows: tuple[tuple[object, ...], ...] = ()
    error: str | None = None
    truncated: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None


def run_query(database: str | Path, query: str, *, seconds: float = 2.0, max_rows: int = 10_000,
              max_bytes: int = 1_000_000) -> QueryResult:
    """``query`` run read-only against the SQLite file ``database`` (see the module doc)."""
    if not isinstance(query, str) or not query.strip():
        return QueryResult(error="refused: an empty query")
    if len(query) > MAX_QUERY_CHARS:
        return QueryResult(error=f"refused: the query has {len(query):,} characters (limit {MAX_QUERY_CHARS:,})")
    path = Path(database)
    if not path.is_file():
        return QueryResult(error=f"refused: no database file at {path}")
    denied: list[str] = []

    def authorize(action: int, first: str | None, second: str | None, _db: str | None, _trigger: str | None) -> int:
        if action in _ALLOWED and not (action == sqlite3.SQLITE_FUNCTION and (second or "").lower()
                                       in _DENIED_FUNCTIONS):
            return sqlite3.SQLITE_OK
        denied.append(_action_name(action, first, second))
        return sqlite3.SQLITE_DENY

    deadline = time.monotonic() + seconds
    connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None)
    try:
        connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, max_bytes)
        connection.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
        connection.set_authorizer(authorize)
        connection.set_progress_handler(lambda: int(time.monotonic() > deadline), _STEPS)
        try:
            cursor = connection.execute(query)
            rows = cursor.fetchmany(max_rows + 1)
        except (sqlite3.Warning, sqlite3.Error) as exc:
            if denied:
                return QueryResult(error=f"refused: not read-only ({denied[0]})")
            if "one statement at a time" in str(exc):
                return QueryResult(error="refused: more than one statement")
            if time.monotonic() > deadline:
                return QueryResult(error=f"interrupted: ran past {seconds:g} s")
            return QueryResult(error=f"{type(exc).__name__}: {exc}")
        return QueryResult(tuple(rows[:max_rows]), truncated=len(rows) > max_rows)
    finally:
        connection.close()


_ACTIONS = ("CREATE_INDEX", "CREATE_TABLE", "CREATE_TEMP_INDEX", "CREATE_TEMP_TABLE", "CREATE_TEMP_TRIGGER",
            "CREATE_TEMP_VIEW", "CREATE_TRIGGER", "CREATE_VIEW", "DELETE", "DROP_INDEX", "DROP_TABLE",
            "DROP_TEMP_INDEX", "DROP_TEMP_TABLE", "DROP_TEMP_TRIGGER", "DROP_TEMP_VIEW", "DROP_TRIGGER", "DROP_VIEW",
            "INSERT", "PRAGMA", "READ", "SELECT", "TRANSACTION", "UPDATE", "ATTACH", "DETACH", "ALTER_TABLE",
            "REINDEX", "ANALYZE", "CREATE_VTABLE", "DROP_VTABLE", "FUNCTION", "SAVEPOINT", "RECURSIVE")
_ACTION_NAMES = {getattr(sqlite3, f"SQLITE_{name}"): name.lower().replace("_", " ")
                 for name in _ACTIONS if hasattr(sqlite3, f"SQLITE_{name}")}


def _action_name(action: int, first: str | None, second: str | None) -> str:
    """What a denied authorizer action asked for, in words (``insert singer``, ``pragma journal_mode``)."""
    target = " ".join(part for part in (first, second) if part)
    return f"{_ACTION_NAMES.get(action, f'do action {action}')} {target}".strip()
