"""``corral check --batch``: one JSON verdict per input line, bad lines reported and skipped, never lost."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from functools import cache, partial
from multiprocessing import get_context
from typing import Any

from corral.constraints import Constraint, ConstraintSyntaxError, check, from_json, parse
from corral.jsonl import JsonlError, parse_line
from corral.suites.collie import constraint_for

MAX_LINE_CHARS = 20_000_000
PARALLEL_FROM_LINES = 2_000
CHUNK = 256


@cache
def _parse_cached(spec: str) -> Constraint:
    return parse(spec)


def constraint_of(row: dict[str, Any]) -> Constraint:
    """The constraint a batch row names: ``constraint`` (spec text or JSON form) or COLLIE ``code`` + ``targets``."""
    if "constraint" in row:
        spec = row["constraint"]
        if isinstance(spec, str):
            return _parse_cached(spec)
        if isinstance(spec, dict):
            return from_json(spec)
        raise ValueError("'constraint' must be a spec string or a JSON constraint object")
    if "code" in row and "targets" in row:
        return constraint_for(row["code"], row["targets"])
    raise ValueError("a row needs 'constraint' (or COLLIE 'code' and 'targets') and 'text'")


def check_line(item: tuple[int, str], name: str = "<input>") -> dict[str, Any]:
    """Check one numbered line of the input ``name``; errors come back as ``{"line": n, "error": ...}`` (the error
    naming ``name:line:column``), never as exceptions."""
    number, line = item
    try:
        row = parse_line(line, name, number, max_chars=MAX_LINE_CHARS)
    except JsonlError as exc:
        return {"line": number, "error": str(exc)}
    text = row.get("text")
    if not isinstance(text, str):
        return {"line": number, "error": f"{name}:{number}: 'text' is missing or not a string"}
    try:
        constraint = constraint_of(row)
    except ConstraintSyntaxError as exc:
        where = f"line {exc.line}, column {exc.column}" if exc.line > 1 else f"column {exc.column}"
        return {"line": number, "error": f"{name}:{number}: bad constraint at {where}: {exc.reason}"}
    except ValueError as exc:
        return {"line": number, "error": f"{name}:{number}: {exc}"}
    verdict = check(constraint, text)
    out: dict[str, Any] = {"line": number}
    for key in ("id", "key"):
        if key in row:
            out[key] = row[key]
    out.update(verdict.to_json())
    return out


def check_lines(lines: Iterable[str], workers: int | None = None, big: bool = False,
                name: str = "<input>") -> Iterator[dict[str, Any]]:
    """Verdicts for the lines of the input ``name``, in order; uses every core when ``big`` (many lines) and
    ``workers`` allows."""
    numbered = ((i, line) for i, line in enumerate(lines, start=1) if line.strip())
    check = partial(check_line, name=name)
    workers = workers if workers is not None else (os.cpu_count() or 1)
    if not big or workers <= 1:
        yield from map(check, numbered)
        return
    with get_context("fork").Pool(workers) as pool:
        yield from pool.imap(check, numbered, chunksize=CHUNK)
