"""FormatBench task data as shipped: one gzipped JSONL file per task, ``data/{task}.jsonl.gz``.

Every row is one instance::

    id        unique within the task, e.g. "ner-test-00042"
    task      the checker's name (mcq, eqa, ner, ...)
    split     "test" (evaluated), "train" (for fine-tuning and RL), or "fewshot" (shown in prompts)
    input     what the model is given after the task's description (a sentence, a passage and a question, ...)
    gold      an answer that passes the strict checker, or null where the source has none (XDL)
    source    where the row comes from (file and sentence id), so that every instance can be traced
    ...       the fields the checker needs (``FormatChecker.needs``) and those the quality metric reads

Rows are written sorted by id, with gzip's timestamp fixed at 0, so rebuilding from the same sources gives
byte-identical files. The builders (``python -m scripts.formatbench``, not installed) read ``../shared/data``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from corral.jsonl import JsonlError, encode_jsonl, enumerate_jsonl, iter_jsonl, write_jsonl

from ._core import InstanceError

SPLITS = ("test", "train", "fewshot")
REQUIRED = ("id", "task", "split", "input", "gold", "source")


def data_file(task: str) -> str:
    return f"{task}.jsonl.gz"


def encode_rows(rows: Iterable[Mapping[str, Any]]) -> bytes:
    """The file's bytes: rows sorted by id, one JSON object per line, gzip with mtime 0 (reproducible)."""
    return encode_jsonl(sorted(rows, key=_id), sort_keys=True, compress=True)


def _id(row: Mapping[str, Any]) -> str:
    return str(row["id"])


def write_instances(task: str, rows: Iterable[Mapping[str, Any]], folder: Path) -> Path:
    """Validate ``rows`` and write them atomically to ``folder/{task}.jsonl.gz``."""
    rows = list(rows)
    for row in rows:
        validate_row(task, row)
    ids = [row["id"] for row in rows]
    if len(set(ids)) != len(ids):
        raise InstanceError(f"{task}: duplicate instance ids")
    path = folder / data_file(task)
    write_jsonl(path, sorted(rows, key=_id), sort_keys=True)
    return path


def validate_row(task: str, row: Mapping[str, Any]) -> None:
    """An error naming the task, the instance id and the field when a row lacks a required field."""
    ident = row.get("id", "?")
    for name in REQUIRED:
        if name not in row:
            raise InstanceError(f"{task} instance {ident}: missing field {name!r}")
    if row["task"] != task:
        raise InstanceError(f"{task} instance {ident}: field 'task' is {row['task']!r}")
    if row["split"] not in SPLITS:
        raise InstanceError(f"{task} instance {ident}: field 'split' is {row['split']!r}; valid: "
                            f"{', '.join(SPLITS)}")
    from ._core import get_checker

    get_checker(task).require(row)


@cache
def _shipped(task: str) -> tuple[dict[str, Any], ...]:
    resource = files("corral.suites.formatbench").joinpath("data", data_file(task))
    if not resource.is_file():
        raise InstanceError(f"no shipped instances for format task {task!r}")
    return tuple(iter_jsonl(resource))


def load_instances(task: str, split: str | None = "test") -> Iterator[dict[str, Any]]:
    """The shipped instances of ``task`` in id order; ``split=None`` gives every split."""
    if split is not None and split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; valid: {', '.join(SPLITS)}")
    for row in _shipped(task):
        if split is None or row["split"] == split:
            yield dict(row)


def read_instances_file(path: Path, task: str, strict: bool = True) -> list[dict[str, Any]]:
    """Rows of a user's instances file (``.jsonl`` or ``.jsonl.gz``); errors name the line. ``strict`` validates
    each row as a shipped one (all of ``REQUIRED``); otherwise only the checker's own fields are required."""
    rows = []
    try:
        for number, row in enumerate_jsonl(path):
            row.setdefault("task", task)
            try:
                if strict:
                    validate_row(task, row)
                else:
                    from ._core import get_checker

                    get_checker(task).require(row)
            except InstanceError as exc:
                raise InstanceError(f"{path}:{number}: {exc}") from None
            rows.append(row)
    except JsonlError as exc:
        raise InstanceError(str(exc)) from None
    return rows


def shipped_tasks() -> list[str]:
    folder = files("corral.suites.formatbench").joinpath("data")
    return sorted(entry.name[: -len(".jsonl.gz")] for entry in folder.iterdir()
                  if entry.name.endswith(".jsonl.gz"))
