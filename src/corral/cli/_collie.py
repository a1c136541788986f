"""``corral collie``: COLLIE-v1 conformance and checking over the shipped instances or a generations file."""

from __future__ import annotations

import time
from collections import defaultdict
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from corral.constraints import check
from corral.files import open_output
from corral.jsonl import JsonlError, append_jsonl, enumerate_jsonl
from corral.suites.collie import BY_CODE, constraint_for, instances

from ._console import fail, out

app = typer.Typer(help="COLLIE-v1: check the shipped instances or model generations.", no_args_is_help=True)

@app.command("check")
def collie_check(
    generations: Annotated[Path | None, typer.Option(help="JSONL of outputs with code, targets, text "
                                                      "(and collie_verdict to compare).")] = None,
    structures: Annotated[str | None, typer.Option(help="Comma-separated structures, e.g. sent02,para05.")] = None,
    output: Annotated[Path | None, typer.Option("--out", help="Write one JSON verdict per line here.")] = None,
) -> None:
    """Check COLLIE-v1 texts with Corral and compare with the reference checker's verdicts.

    Without --generations, checks the example text of each of the 2,080 shipped instances.
    """
    wanted = {s.strip() for s in structures.split(",")} if structures else None
    if wanted and (unknown := wanted - {s.name for s in BY_CODE.values()}):
        valid = ", ".join(sorted(s.name for s in BY_CODE.values()))
        raise fail(f"unknown structures {', '.join(sorted(unknown))}; valid: {valid}")
    rows = list(_rows(generations))
    for row in rows:
        row["constraint"] = _constraint(row, generations)
    if wanted:
        rows = [r for r in rows if BY_CODE[r["code"]].name in wanted]
    stats: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # n, corral pass, reference pass, agree
    sink = open_output(output) if output else None  # a failed write: an OutputError naming --out, one line
    start = time.perf_counter()
    with Progress(TextColumn("checking"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=out, transient=True) as progress:
        task = progress.add_task("check", total=len(rows))
        for row in rows:
            verdict = check(row["constraint"], row["text"])
            s = stats[BY_CODE[row["code"]].name]
            s[0] += 1
            s[1] += verdict.passed
            if row.get("reference") is not None:
                s[2] += row["reference"]
                s[3] += verdict.passed == row["reference"]
            if sink:
                append_jsonl(sink, {"id": row["id"], "passed": verdict.passed, "score": verdict.score,
                                    "feedback": verdict.feedback})
            progress.advance(task)
    elapsed = time.perf_counter() - start
    if sink:
        sink.close()
    _report(stats, len(rows), elapsed, generations is None)

def _rows(generations: Path | None):
    if generations is None:
        for inst in instances():
            yield {"id": inst.id, "code": inst.code, "targets": inst.targets, "text": inst.example,
                   "reference": inst.reference_verdict}
        return
    try:
        for number, row in enumerate_jsonl(generations):
            if not {"code", "targets", "text"} <= row.keys():
                raise fail(f"{generations}:{number}: a row needs code, targets and text")
            yield {"id": row.get("id", row.get("key", number)), "code": row["code"], "targets": row["targets"],
                   "text": row["text"], "reference": row.get("collie_verdict")}
    except JsonlError as exc:
        raise fail(str(exc)) from None

def _constraint(row: dict, generations: Path | None):  # -> Constraint
    """The row's constraint; a code or targets that make none, or a text that is not a string, is one line."""
    where = f"{generations}: row {repr(row['id'])[:80]}"
    if not isinstance(row["code"], str) or row["code"] not in BY_CODE:
        raise fail(f"{where}: unknown COLLIE-v1 code {repr(row['code'])[:80]}; known: {', '.join(BY_CODE)}")
    if not isinstance(row["text"], str):
        raise fail(f"{where}: 'text' must be a string")
    try:
        return constraint_for(row["code"], row["targets"])
    except (ValueError, TypeError, KeyError, IndexError) as exc:
        raise fail(f"{where}: targets {repr(row['targets'])[:80]} do not fit code {row['code']}: {exc}") from None

def _report(stats: dict[str, list[int]], total: int, elapsed: float, examples: bool) -> None:
    what = "shipped instance examples" if examples else "generations"
    table = Table(title=f"COLLIE-v1: Corral on {total:,} {what}")
    for column in ("structure", "texts", "Corral pass %", "reference pass %", "agreement %"):
        table.add_column(column, justify="right" if column != "structure" else "left")
    order = [s.name for s in BY_CODE.values()]
    totals = [0, 0, 0, 0]
    for name in sorted(stats, key=order.index):
        n, ours, ref, agree = stats[name]
        totals = [a + b for a, b in zip(totals, stats[name], strict=True)]
        table.add_row(name, f"{n}", f"{100 * ours / n:.1f}", f"{100 * ref / n:.1f}", f"{100 * agree / n:.1f}")
    n, ours, ref, agree = totals
    if n:
        table.add_row("all", f"{n}", f"{100 * ours / n:.1f}", f"{100 * ref / n:.1f}", f"{100 * agree / n:.1f}",
                      style="bold")
    out.print(table)
    out.print(f"{total:,} verdicts in {elapsed:.2f} s ({total / max(elapsed, 1e-9):,.0f} verdicts/s, "
                  "one process, progress display included)")
