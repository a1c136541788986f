"""The results pages under docs/results agree with the records beside them.

Every run directory's summary.json must equal the summary recomputed from its records by today's code, and every
report.md made by ``corral report`` must equal the report remade from its runs by the command its README records
(``scripts/remake_results.py``'s ``REPORTS``). When one fails, a format or metric changed (or a run was edited):
``python scripts/remake_results.py`` remakes the pages, and the diff shows how the figures moved.

Reports recorded with ``--recheck`` are remade here without it: the script writes the rejudged verdicts into
those runs' records, which ``test_rechecked_records_are_judged_as_today`` checks on the runs cheap to rejudge (the
concode pairs take minutes). Only the Markdown is compared: the charts are drawn but not rasterized (time).

``train-smollm2`` is made by ``corral train compare``, not ``corral report``: its report.md tables and README
figures must be those of comparison.json's rows, and a row that keeps its held-out outputs must be recomputable from
them (``recompute_row``).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from matplotlib.figure import Figure
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


@pytest.fixture
def no_png(monkeypatch: pytest.MonkeyPatch) -> None:
    """Charts are laid out but not written: the test compares Markdown only, and rasterizing is most of the time."""
    monkeypatch.setattr(Figure, "savefig", lambda self, *args, **kwargs: None)


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
def test_report_is_remade_from_its_runs(command: ReportCommand, tmp_path: Path, no_png: None) -> None:
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


def test_a_corrupted_run_is_caught(tmp_path: Path, no_png: None) -> None:
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


# --- train-smollm2: corral train compare's page ----------------------------------------------------------------------

TRAIN = ROOT / RESULTS / "train-smollm2"
README_MODELS = {"base": "base", "**RL (ReFF-tst, 131 steps)**": "rl-tst (rl)",
                 "SFT on references (206 steps)": "sft (sft)",
                 "constrained self-distillation (60 steps)": "distill (distill)"}


def _comparison() -> list[dict]:
    return json.loads((TRAIN / "comparison.json").read_text(encoding="utf-8"))


def _row(rows: list[dict], model: str, task: str, decoding: str = "free") -> dict:
    return next(r for r in rows if (r["model"], r["task"], r["decoding"]) == (model, task, decoding))


def test_training_report_tables_are_made_from_comparison_json() -> None:
    """Everything from the Models line on is what ``corral train compare`` writes for comparison.json's rows (the
    paragraph above it is the wording of the version that made the page)."""
    from corral.training import comparison_markdown

    stored = (TRAIN / "report.md").read_text(encoding="utf-8")
    models_line = next(line for line in stored.splitlines() if line.startswith("Models: "))
    models = re.findall(r"\*\*(.+?)\*\* = `(.+?)`", models_line)
    runs = re.findall(r"`(.+?)`", next(line for line in stored.splitlines() if line.startswith("Runs: ")))
    fresh = comparison_markdown(_comparison(), models, None, [Path(run) for run in runs])  # type: ignore[arg-type]
    tail = stored[stored.index("Models: "):]
    assert fresh[fresh.index("Models: "):] == tail


def test_training_readme_figures_are_comparison_json_figures() -> None:
    rows = _comparison()
    lines = [line for line in (TRAIN / "README.md").read_text(encoding="utf-8").splitlines()
             if line.startswith("| ") and line.split("|")[1].strip() in README_MODELS]
    assert len(lines) == len(README_MODELS)
    for line in lines:
        cells = [cell.strip() for cell in line.split("|")[1:-1]]
        model = README_MODELS[cells[0]]
        eqa, sent04 = _row(rows, model, "formatbench:eqa"), _row(rows, model, "collie:sent04")

        def ffr(row: dict) -> str:
            low, high = row["ffr_ci"]
            return f"{100 * row['ffr']:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"

        plain = [cell.replace("**", "") for cell in cells[1:]]
        assert plain == [ffr(eqa), f"{eqa['quality']:.3f}", str(eqa["passed_quality_zero"]), ffr(sent04)], line
        steps = re.search(r"(\d+) steps", cells[0])
        if steps:  # the steps a trained model's label names are its run's own (summary.json)
            run = model.split("(")[1].rstrip(")")
            summary = json.loads((TRAIN / run / "summary.json").read_text(encoding="utf-8"))
            assert int(steps.group(1)) == summary["steps"], (cells[0], summary["steps"])


def test_training_rows_with_outputs_are_recomputed_from_them() -> None:
    from corral.training import recompute_row

    for row in _comparison():
        if "outputs" in row:
            assert recompute_row(row) == row, f"{row['model']} {row['task']} {row['decoding']}"


def test_training_comparison_keeps_its_held_out_outputs() -> None:
    assert all(len(row.get("outputs", ())) == row["n"] for row in _comparison())


def test_a_corrupted_training_page_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The training checks can fail: one figure edited in a copy of comparison.json breaks the report and README."""
    copy = tmp_path / "train-smollm2"
    shutil.copytree(TRAIN, copy, ignore=shutil.ignore_patterns("*.png", "*.jsonl"))
    rows = json.loads((copy / "comparison.json").read_text(encoding="utf-8"))
    _row(rows, "rl-tst (rl)", "collie:sent04")["ffr"] = 0.8
    (copy / "comparison.json").write_text(json.dumps(rows), encoding="utf-8")
    monkeypatch.setitem(globals(), "TRAIN", copy)
    with pytest.raises(AssertionError):
        test_training_report_tables_are_made_from_comparison_json()
    with pytest.raises(AssertionError):
        test_training_readme_figures_are_comparison_json_figures()


# --- clamp-smollm2: the summary table in BenchCLAMP's shape ----------------------------------------------------------

CLAMP = ROOT / RESULTS / "clamp-smollm2"
CLAMP_ROWS = {  # (dataset, setting, grammar) -> (run directory, quality metric, written as a percent)
    ("GUM (PTB-3 in the paper)", "few-shot, 8 BM25", "no"): ("constituency/free", "bracket_f1", False),
    ("GUM", "few-shot, 8 BM25", "yes"): ("constituency/constrained", "bracket_f1", False),
    ("UD EWT", "few-shot, 8 BM25", "no"): ("dependency/free", "dep_las", False),
    ("UD EWT", "few-shot, 8 BM25", "yes"): ("dependency/constrained", "dep_las", False),
    ("SMCalFlow", "few-shot, 8 BM25", "no"): ("lispress-benchclamp/free", "exact_match", True),
    ("SMCalFlow", "few-shot, 8 BM25", "yes"): ("lispress-benchclamp/constrained", "exact_match", True),
    ("Spider", "few-shot, 4 BM25", "no"): ("spider/free", "execution", True),
    ("Spider", "few-shot, 4 BM25", "yes"): ("spider/constrained", "execution", True),
    ("CoSQL", "few-shot, 4 BM25", "no"): ("cosql/free", "execution", True),
    ("CoSQL", "few-shot, 4 BM25", "yes"): ("cosql/constrained", "execution", True),
}


def _written(value: float, percent: bool) -> str:
    return (f"{100 * value:.1f}".removesuffix(".0") + "%") if percent else f"{100 * value:.1f}"


def _clamp_table() -> dict[tuple[str, str, str], list[str]]:
    text = (CLAMP / "README.md").read_text(encoding="utf-8")
    table = text[text.index("## Summary in BenchCLAMP's table shape"):].split("\n\n")[2]
    rows = [[cell.strip() for cell in line.split("|")[1:-1]] for line in table.splitlines()[2:]]
    return {(row[0], row[2], row[3]): row for row in rows}


def test_the_clamp_summary_table_reads_its_runs() -> None:
    """Each few-shot figure of the summary table is its run's summary (the quality mean over its records), and n is
    the run's number of records."""
    table = _clamp_table()
    for key, (run, metric, percent) in CLAMP_ROWS.items():
        row = table[key]
        summary = json.loads((CLAMP / run / "summary.json").read_text(encoding="utf-8"))
        records = (CLAMP / run / "records.jsonl").read_text(encoding="utf-8").splitlines()
        assert (row[4], row[5]) == (_written(summary["quality"][metric], percent), str(len(records))), key


# --- clamp-smollm2/finetuned: BenchCLAMP's fine-tuned setting, made by corral train compare -------------------------

FINETUNED = sorted(path.parent for path in (CLAMP / "finetuned").glob("*/comparison.json"))


@pytest.mark.parametrize("page", FINETUNED, ids=[page.name for page in FINETUNED])
def test_finetuned_comparisons_keep_and_recompute_every_held_out_output(page: Path) -> None:
    from corral.training import comparison_markdown, recompute_row

    rows = json.loads((page / "comparison.json").read_text(encoding="utf-8"))
    assert {(row["model"].split(" ")[0], row["decoding"]) for row in rows} == {
        ("base", "free"), ("base", "constrained"), ("sft", "free"), ("sft", "constrained")}
    for row in rows:
        assert len(row["outputs"]) == row["n"] and recompute_row(row) == row, (row["model"], row["decoding"])
    stored = (page / "report.md").read_text(encoding="utf-8")
    models = re.findall(r"\*\*(.+?)\*\* = `(.+?)`", next(line for line in stored.splitlines()
                                                         if line.startswith("Models: ")))
    runs = re.findall(r"`(.+?)`", next(line for line in stored.splitlines() if line.startswith("Runs: ")))
    fresh = comparison_markdown(rows, models, None, [Path(run) for run in runs])  # type: ignore[arg-type]
    assert fresh[fresh.index("Models: "):] == stored[stored.index("Models: "):]


def test_the_clamp_summary_table_reads_the_finetuned_comparisons() -> None:
    table = _clamp_table()
    pages = {"GUM": "gum-low", "SMCalFlow": "smcalflow-500"}
    found = 0
    for (dataset, setting, grammar), row in table.items():
        if not setting.startswith("fine-tuned"):
            continue
        rows = json.loads((CLAMP / "finetuned" / pages[dataset] / "comparison.json").read_text(encoding="utf-8"))
        decoding = "constrained" if grammar == "yes" else "free"
        compared = next(r for r in rows if r["model"].startswith("sft") and r["decoding"] == decoding)
        assert (row[4], row[5]) == (_written(compared["quality"], dataset != "GUM"), str(compared["n"])), row
        found += 1
    assert found == 4


def test_the_overnight_page_keeps_no_prompt() -> None:
    """Overnight's data states no licence: its page's records hold each message's hash (``corral redact``)."""
    for decoding in ("free", "constrained"):
        for line in (CLAMP / "overnight" / decoding / "records.jsonl").read_text(encoding="utf-8").splitlines():
            assert all(message["content"].startswith("[redacted: sha256 ") for message in json.loads(line)["messages"])
