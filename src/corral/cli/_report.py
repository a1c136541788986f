"""``corral report``, ``corral runs`` and ``corral redact``: look at finished (or unfinished) runs, or copy one
without its prompts, without touching a model.

Both read run directories only. ``register`` adds the commands to the main app; the heavy imports (matplotlib, the
metrics) happen when a command runs so that ``corral --help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from corral.errors import OutputError
from corral.evaluation import CONFIG_FILE, Counts, Rate, RunError

from ._console import fail as _fail


def register(app: typer.Typer) -> None:
    """Add ``report`` and ``runs`` to ``app``."""
    app.command("report")(report_command)
    app.command("runs")(runs_command)
    app.command("redact")(redact_command)


def report_command(
    runs: Annotated[list[Path], typer.Argument(help="Run directories (each with config.json and records.jsonl).")],
    out: Annotated[Path | None, typer.Option("--out", help="Where to write report.md and its charts (default: the "
                                             "run directory for one run, else 'report' beside the first).")] = None,
    recheck: Annotated[bool, typer.Option("--recheck", help="Judge the stored outputs again with the tasks' "
                                          "current checkers (no model runs; the run directories are unchanged).")
                       ] = False,
) -> None:
    """Write a Markdown report with charts comparing RUNS, and print the path of report.md."""
    from corral.evaluation import write_report

    if out is None:
        out = runs[0] if len(runs) == 1 else runs[0].parent / "report"
    try:
        path = write_report(runs, out, recheck=recheck)
    except (RunError, OutputError) as exc:  # each names its path
        raise _fail(str(exc)) from None
    except OSError as exc:
        raise _fail(f"cannot write the report to {out}: {exc.strerror or exc}") from None
    print(path)


def redact_command(
    run: Annotated[Path, typer.Argument(help="A run directory.")],
    out: Annotated[Path, typer.Option("--out", help="Where the copy goes (a new folder).")],
) -> None:
    """Copy RUN without its prompts (each message replaced by its SHA-256), to publish results on data that is not
    yours to redistribute: the copy's summary and report are the run's."""
    from corral.evaluation import redact_run

    try:
        print(redact_run(run, out))
    except (RunError, OutputError) as exc:
        raise _fail(str(exc)) from None
    except OSError as exc:
        raise _fail(f"cannot write {out}: {exc.strerror or exc}") from None


def runs_command(
    root: Annotated[Path, typer.Argument(help="Where to look for run directories (two levels deep).")] = Path(
        "corral-runs"),
) -> None:
    """List the runs under ROOT with their first-attempt and final success (as written: passes that rest on text
    the runner appended to a cut-off output are counted apart, under "closed passed")."""
    from corral.evaluation import read_config, read_records, summarize

    if not root.is_dir():
        raise _fail(f"{root}: no such directory")
    out = Console()  # made per call: it reads the terminal width (COLUMNS) when created
    found = find_runs(root)
    if not found:
        out.print(f"no runs under {root}", highlight=False, markup=False)
        return
    table = Table(title=f"Runs under {root}")
    for column in ("path", "task", "label", "instances", "samples", "rounds", "success", "final", "closed passed",
                   "complete"):
        table.add_column(column, overflow="fold", justify="left" if column in ("path", "task", "label") else "right")
    for run in found:
        try:
            s = summarize(read_config(run), read_records(run))
        except RunError as exc:
            message = str(exc).removeprefix(f"{run}/")  # the row already names the run
            table.add_row(Text(str(run)), Text(f"error: {message}", style="red"))
            continue
        table.add_row(Text(str(run)), Text(s.task), Text(s.label), str(s.instances), str(s.samples),
                      str(s.rounds), _percent(s.success), _percent(s.final_success),
                      _closed(s.counts), "yes" if s.complete else "no")
    out.print(table)


def _closed(counts: Counts) -> str:
    """How many closed outputs passed, of those closed ("—" when none was closed)."""
    return f"{counts.closed_passed} of {counts.closed}" if counts.closed else "—"


def find_runs(root: Path) -> list[Path]:
    """Directories at most two levels below ``root`` (``root`` included) that have a config.json, sorted."""
    candidates = [root, *root.glob("*"), *root.glob("*/*")]
    return sorted(path for path in candidates if (path / CONFIG_FILE).is_file())


def _percent(stat: Rate) -> str:
    return f"{100 * stat.value:.1f}%" if stat.n else "—"
