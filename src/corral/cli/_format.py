"""``corral check --format TASK --instance FILE --output TEXT``: one output against a FormatBench checker."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._console import EXIT_FAIL, EXIT_PASS, EXIT_UNDECIDED, out
from ._console import fail as _fail

if TYPE_CHECKING:
    from corral.constraints import Budget

MAX_INSTANCE_BYTES = 50_000_000


def load_instance(path: Path, task: str, ident: str | None) -> dict[str, Any]:
    """One instance from a JSON file (an object) or a JSONL file (the row with ``ident``, or its only row)."""
    from corral.errors import InputError
    from corral.files import read_input_json
    from corral.suites.formatbench import InstanceError, read_instances_file

    if path.suffix == ".json":
        try:  # a regular file of at most MAX_INSTANCE_BYTES, JSON nested at most 256 deep, or one line
            row = read_input_json(path, MAX_INSTANCE_BYTES)
        except InputError as exc:
            raise _fail(str(exc)) from None
        if not isinstance(row, dict):
            raise _fail(f"{path}: an instance must be a JSON object")
        return row
    try:  # read through corral.files.open_input: a FIFO or a device is refused there, not read
        if path.stat().st_size > MAX_INSTANCE_BYTES:
            raise _fail(f"{path}: larger than {MAX_INSTANCE_BYTES:,} bytes")
    except OSError as exc:
        raise _fail(f"cannot read {path}: {exc.strerror}") from None
    try:
        rows = [row for row in read_instances_file(path, task, strict=False)
                if ident is None or str(row.get("id")) == ident]
    except InstanceError as exc:
        raise _fail(str(exc)) from None
    if not rows:
        raise _fail(f"{path}: no instance" + (f" with id {ident!r}" if ident else ""))
    if len(rows) > 1:
        raise _fail(f"{path} holds {len(rows)} instances; choose one with --id")
    return rows[0]


def check_format_command(task: str, instance_path: Path, output: str, ident: str | None, mode: str,
                         as_json: bool, budget: Budget | None = None) -> int:
    """Exit 0 if the output passes, 1 if it fails, 3 if the check ran past ``budget`` (not decided)."""
    from corral.constraints import DEFAULT_BUDGET
    from corral.registry import RegistryError
    from corral.suites.formatbench import InstanceError, get_checker

    try:
        checker = get_checker(task)
    except RegistryError as exc:
        raise _fail(str(exc)) from None
    row = load_instance(instance_path, task, ident)
    budget = budget or DEFAULT_BUDGET
    if output == "-":  # a longer output is refused unread past the limit (4 bytes a character at most)
        output = sys.stdin.buffer.read(budget.max_chars * 4 + 1).decode("utf-8", errors="replace")
    try:
        verdict = checker.check(row, output, mode, budget)  # type: ignore[arg-type]
    except (InstanceError, ValueError) as exc:
        raise _fail(f"{instance_path}: {exc}") from None
    if verdict.undecided is not None:
        if as_json:
            print(json.dumps(verdict.to_json(), ensure_ascii=False))
        else:
            from rich.markup import escape

            out.print(f"[yellow]UNDECIDED[/yellow]  {task} ({mode}): {escape(verdict.undecided)}",
                      highlight=False, soft_wrap=True)
        return EXIT_UNDECIDED
    if as_json:
        print(json.dumps(verdict.to_json(), ensure_ascii=False))
    else:
        status = "[green]PASS[/green]" if verdict.passed else "[red]FAIL[/red]"
        out.print(f"{status}  score {verdict.score:.2f}  {task} ({mode})", highlight=False, soft_wrap=True)
        for violation in verdict.violations:
            where = f" at {violation.span[0]}-{violation.span[1]}" if violation.span else ""
            out.print(f"  [red]✗[/red] {violation.rule}{where}: {violation.message}", highlight=False,
                      soft_wrap=True)
    return EXIT_PASS if verdict.passed else EXIT_FAIL
