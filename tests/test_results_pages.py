"""The results pages under docs/results agree with the records beside them.

Every run directory's summary.json must equal the summary recomputed from its records by today's code, and every
report.md made by ``corral report`` must equal the report remade from its runs by the command its README records
(``scripts/remake_results.py``'s ``REPORTS``). When one fails, a format or metric changed (or a run was edited):
``python scripts/remake_results.py`` remakes the pages, and the diff shows how the figures moved.

Reports recorded with ``--recheck`` are remade here without it: the script writes the rejudged verdicts into
those runs' records, which ``test_rechecked_records_are_judged_as_today`` checks on the runs cheap to rejudge (the
concode pairs take minutes).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from scripts.remake_results import (
    NOT_CORRAL_REPORT,
    RESULTS,
    ROOT,
    ReportCommand,
    find_runs,
    outside_config,
    raw_records,
    report_commands,
    summary_of,
)

pytestmark = pytest.mark.filterwarnings("ignore")

RUNS = [str(run) for run in find_runs(ROOT / RESULTS)]
COMMANDS = report_commands()
CHEAP_RECHECKS = ("docs/results/clamp-smollm2/constituency", "docs/results/clamp-smollm2/dependency",
                  "docs/results/concode-smollm2/val-generated")


@pytest.fixture(autouse=True)
def _at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # reports name their runs by paths relative to the repository root


def _id(run: str) -> str:
    return str(Path(run).relative_to(ROOT / RESULTS))


@pytest.mark.parametrize("run", RUNS, ids=[_id(run) for run in RUNS])
def test_summary_is_recomputed_from_the_records(run: str) -> None:
    stored = json.loads((Path(run) / "summary.json").read_text(encoding="utf-8"))
    assert stored == json.loads(json.dumps(summary_of(Path(run)))), \
        f"{run}/summary.json is stale: python scripts/remake_results.py"
    assert not outside_config(Path(run)), f"{run} holds records its config does not select"


def test_every_report_page_has_its_command() -> None:
    pages = {str(path.relative_to(ROOT)) for path in (ROOT / RESULTS).rglob("report.md")}
    listed = {str(command.out / "report.md") for command in COMMANDS}
    assert pages == listed | set(NOT_CORRAL_REPORT)
    assert "docs/results/collie-smollm2-main/report.md" in listed


@pytest.mark.parametrize("command", COMMANDS, ids=[str(c.out.relative_to(RESULTS)) for c in COMMANDS])
def test_report_is_remade_from_its_runs(command: ReportCommand, tmp_path: Path) -> None:
    stored = (command.out / "report.md").read_text(encoding="utf-8")
    fresh = ReportCommand(command.runs, command.out, recheck=False).write(tmp_path)  # rechecked runs: see above
    assert fresh.read_text(encoding="utf-8") == stored, \
        f"{command.out}/report.md is stale: python scripts/remake_results.py"


def test_rechecked_records_are_judged_as_today() -> None:
    from corral.evaluation import read_config, rejudge

    runs = [run for command in COMMANDS if command.recheck and str(command.out) in CHEAP_RECHECKS
            for run in command.runs]
    assert len(runs) == 5
    for run in runs:
        records = raw_records(run)
        assert rejudge(read_config(run), records) == records, f"{run}: python scripts/remake_results.py"


def test_a_corrupted_run_is_caught(tmp_path: Path) -> None:
    """The checks above can fail: one verdict flipped in a copy of a run moves its summary and its report."""
    source = RESULTS / "clamp-smollm2" / "constituency" / "constrained"
    run = tmp_path / "constrained"
    shutil.copytree(source, run)
    rows = [json.loads(line) for line in (run / "records.jsonl").read_text(encoding="utf-8").splitlines()]
    rows[0]["passed"] = not rows[0]["passed"]
    (run / "records.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")

    stored = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    assert stored != json.loads(json.dumps(summary_of(run)))
    assert stored["success"]["value"] == 1.0 and summary_of(run)["success"]["value"] == 0.9

    report = ReportCommand((run,), tmp_path, recheck=False).write(tmp_path / "out")
    original = ReportCommand((source,), tmp_path, recheck=False).write(tmp_path / "original")
    changed = report.read_text(encoding="utf-8").replace(str(run), str(source))
    assert changed != original.read_text(encoding="utf-8")
