"""Checking a file of (constraint, text) rows: one JSON record per input line, in input order, whatever the line
holds. ``corral check --batch`` calls it; so can any program that judges outputs written elsewhere.

Every line gives exactly one record: a verdict (``passed``, ``score``, ...), an undecided verdict (the check ran
past its budget: ``undecided`` says why) or ``{"line": n, "error": ...}`` naming ``file:line[:column]``. Nothing a
line holds (bad JSON, nesting a thousand deep, bytes that are not UTF-8, a constraint that would take hours) stops
the lines after it, in serial or parallel mode.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from functools import cache, partial
from multiprocessing import get_context
from typing import Any

from corral.constraints import DEFAULT_BUDGET, Budget, Constraint, ConstraintSyntaxError, check, from_json, parse
from corral.jsonl import JsonlError, parse_line
from corral.suites.collie import constraint_for
from corral.text import scrub

MAX_LINE_CHARS = 20_000_000
PARALLEL_FROM_LINES = 2_000
CHUNK = 64


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


def check_line(item: tuple[int, bytes | str], name: str = "<input>",
               budget: Budget = DEFAULT_BUDGET) -> dict[str, Any]:
    """Check one numbered line of the input ``name``. Never raises: a line that cannot be checked comes back as
    ``{"line": n, "error": ...}`` (the error naming ``name:line[:column]``); characters that could not be decoded
    are replaced by U+FFFD and counted in ``replaced``."""
    number, raw = item
    try:
        return _check_line(number, raw, name, budget)
    except RecursionError:
        return {"line": number, "error": f"{name}:{number}: nested too deeply to check"}
    except MemoryError:
        return {"line": number, "error": f"{name}:{number}: out of memory while checking this line"}
    except Exception as exc:  # a bug must cost one line, not the batch; the record says what happened
        return {"line": number, "error": f"{name}:{number}: internal error: {type(exc).__name__}: {exc}"}


def _check_line(number: int, raw: bytes | str, name: str, budget: Budget) -> dict[str, Any]:
    replaced = 0
    if isinstance(raw, bytes):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:  # not UTF-8: check what can be read, and say how much could not
            line = raw.decode("utf-8", errors="replace")
            replaced = line.count("\ufffd") - raw.count("\ufffd".encode())
    else:
        line, replaced = scrub(raw)
    try:
        row = parse_line(line, name, number, max_chars=MAX_LINE_CHARS)
    except JsonlError as exc:
        return {"line": number, "error": str(exc)}
    text = row.get("text")
    if not isinstance(text, str):
        return {"line": number, "error": f"{name}:{number}: 'text' is missing or not a string"}
    text, lone = scrub(text)  # a JSON escape such as "\ud800" decodes to a lone surrogate
    replaced += lone
    try:
        constraint = constraint_of(row)
    except ConstraintSyntaxError as exc:
        where = f"line {exc.line}, column {exc.column}" if exc.line > 1 else f"column {exc.column}"
        return {"line": number, "error": f"{name}:{number}: bad constraint at {where}: {exc.reason}"}
    except ValueError as exc:
        return {"line": number, "error": f"{name}:{number}: {exc}"}
    verdict = check(constraint, text, budget=budget)
    out: dict[str, Any] = {"line": number}
    for key in ("id", "key"):
        if key in row:
            out[key] = row[key]
    out.update(verdict.to_json())
    if replaced:
        out["replaced"] = replaced
    return out


def check_lines(lines: Iterable[bytes | str], workers: int | None = None, big: bool = False,
                name: str = "<input>", budget: Budget = DEFAULT_BUDGET) -> Iterator[dict[str, Any]]:
    """One record per non-blank line of the input ``name``, in order; uses every core when ``big`` (many lines)
    and ``workers`` allows."""
    numbered = ((i, line) for i, line in enumerate(lines, start=1) if line.strip())
    check_one = partial(check_line, name=name, budget=budget)
    workers = workers if workers is not None else (os.cpu_count() or 1)
    if not big or workers <= 1:
        yield from map(check_one, numbered)
        return
    with get_context("fork").Pool(workers) as pool:
        yield from pool.imap(check_one, numbered, chunksize=CHUNK)
