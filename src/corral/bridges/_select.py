"""Which instances a bridge runs: a registered task built with its options, then ``--where`` and ``--limit`` as
``corral eval`` reads them, so a bridge and the runner given the same words pick the same instances in the same
order (``corral.tasks.select``)."""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from corral.tasks import Task, TaskInstance, get_task, select

Where = Mapping[str, str | Sequence[str]] | str | Sequence[str] | None
"""Instance filters: ``{"structure": ["word01", "sent01"]}``, a single value for a key, or the command line's
``"structure=word01,sent01;source=wiki"`` (also split at its commas, as ``inspect eval -T`` splits a value)."""


@dataclass(frozen=True)
class Selection:
    """A built task and the instances chosen from it, in the task's order."""

    task: Task
    instances: tuple[TaskInstance, ...]


def parse_where(where: Where) -> dict[str, list[str]]:
    """``where`` as ``select`` takes it: every value a list of strings."""
    if where is None or where == "":
        return {}
    if not isinstance(where, str | Mapping):
        where = ",".join(str(part) for part in where)
    if isinstance(where, str):
        pairs = [part for part in where.split(";") if part.strip()]
        parsed: dict[str, list[str]] = {}
        for pair in pairs:
            key, sep, values = pair.partition("=")
            if not sep or not key.strip():
                raise ValueError(f"where {pair!r}: write GROUP=VALUE[,VALUE...], e.g. structure=word01")
            parsed[key.strip()] = [v.strip() for v in values.split(",") if v.strip()]
        return parsed
    return {str(key): [str(values)] if isinstance(values, str | int) else [str(v) for v in values]
            for key, values in where.items()}


def parse_limit(limit: int | str | None) -> tuple[int | None, tuple[str, int] | None]:
    """``limit`` as ``corral eval --limit`` reads it: N instances, or ``GROUP=N``, the first N of each group."""
    if limit is None or isinstance(limit, int):
        return limit, None
    group, sep, number = str(limit).partition("=")
    try:
        return (None, (group.strip(), int(number))) if sep else (int(group), None)
    except ValueError:
        raise ValueError(f"limit {limit!r}: write N or GROUP=N, e.g. 4 or structure=2") from None


def options_key(name: str, options: Mapping[str, Any]) -> str:
    """A stable key for a task built with ``options`` (the cache below, and the scorer's arguments)."""
    return json.dumps([name, dict(options)], sort_keys=True, default=str)


_BUILT: dict[str, Task] = {}
_LOCK = threading.Lock()


def built_task(name: str, options: Mapping[str, Any] | None = None) -> Task:
    """``get_task(name, **options)``, built once per process: a scorer judging many samples, or a bridge asked for
    the same task again, reuses the value (a COLLIE build reads its whole instance set)."""
    key = options_key(name, options or {})
    with _LOCK:
        if key not in _BUILT:
            _BUILT[key] = get_task(name, **dict(options or {}))
        return _BUILT[key]


def choose(task: str | Task, options: Mapping[str, Any] | None = None, where: Where = None,
           limit: int | str | None = None) -> Selection:
    """The task (a registered name built with ``options``, or a built ``Task``) and its instances after ``where``
    and ``limit``, as ``corral eval TASK -T ... --where ... --limit ...`` chooses them."""
    if isinstance(task, str):
        task = built_task(task, options)
    elif options:
        raise ValueError("options are for a task given by name; a built Task already has its options")
    count, per_group = parse_limit(limit)
    return Selection(task, tuple(select(task, parse_where(where) or None, limit=count, per_group=per_group)))


def explanation(messages: Sequence[str], passed: bool) -> str:
    """A verdict's violations as one line of text for a framework's log."""
    return "; ".join(messages) if messages else ("passed" if passed else "failed")
