"""``corral eval``: bad input is one line naming the value and the valid choices, exit 2; a real small run works."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from corral.cli import app

from ._errors import one_line_stderr_error as _one_line_error

runner = CliRunner()


def test_unknown_task_names_the_valid_ones():
    line = _one_line_error(runner.invoke(app, ["eval", "nope"]))
    assert "unknown task 'nope'" in line and "collie" in line


def test_unknown_structure_and_source_name_the_valid_ones():
    line = _one_line_error(runner.invoke(app, ["eval", "collie", "--where", "structure=sent02,sentX"]))
    assert "'sentX'" in line and "sent02" in line and "para05" in line
    line = _one_line_error(runner.invoke(app, ["eval", "collie", "--where", "source=reddit"]))
    assert "'reddit'" in line and "wiki" in line


def test_unknown_model_and_decoding():
    line = _one_line_error(runner.invoke(app, ["eval", "collie", "--limit", "1", "--model", "no-such-model"]))
    assert "no-such-model" in line
    line = _one_line_error(runner.invoke(app, ["eval", "collie", "--decoding", "sideways"]))
    assert "sideways" in line and "constrained" in line


def test_bad_strategies_are_one_line_errors():
    line = _one_line_error(runner.invoke(app, ["eval", "collie", "--decoding", "constrained",
                                               "--set", "strategy=best"]))
    assert "'best'" in line and "rerank" in line
    line = _one_line_error(runner.invoke(app, ["eval", "collie", "--set", "strategy=rerank"]))
    assert "use it with decoding 'constrained' or 'both'" in line
    line = _one_line_error(runner.invoke(app, ["eval", "collie", "--decoding", "both", "--set", "strategy=rerank",
                                               "--set", "strategy.k=0"]))
    assert line == "error: options: strategy.k: Input should be greater than or equal to 1, got 0"


def test_bad_out_and_mixed_configs(tmp_path, monkeypatch):
    monkeypatch.setenv("CORRAL_CACHE_DIR", str(tmp_path / "cache"))
    afile = tmp_path / "file"
    afile.write_text("x")
    args = ["eval", "collie", "--where", "structure=word01", "--limit", "1", "--no-report"]
    assert "is a file" in _one_line_error(runner.invoke(app, [*args, "--out", str(afile)]))

    ok = runner.invoke(app, [*args, "--out", str(tmp_path / "run")])
    assert ok.exit_code == 0, ok.output
    assert "smollm2 (free): 1 instances" in ok.stdout
    line = _one_line_error(runner.invoke(app, [*args, "--out", str(tmp_path / "run"),
                                               "--set", "sampling.temperature=0.5"]))
    assert "another config" in line and "sampling" in line

    listed = runner.invoke(app, ["runs", str(tmp_path)], env={"COLUMNS": "200"})
    assert listed.exit_code == 0 and "collie" in listed.stdout
    unreadable = tmp_path / "broken"
    unreadable.mkdir()
    (unreadable / "config.json").write_text("{not json")
    report = runner.invoke(app, ["report", str(unreadable)])
    assert "broken" in _one_line_error(report)


@pytest.mark.model
def test_both_decodings_write_two_runs_and_one_report(tmp_path, monkeypatch):
    monkeypatch.setenv("CORRAL_CACHE_DIR", str(tmp_path / "cache"))
    result = runner.invoke(app, ["eval", "collie", "--where", "structure=word01,sent04", "--limit", "structure=1",
                                 "--decoding", "both", "--out", str(tmp_path / "cmp")])
    assert result.exit_code == 0, result.output
    constrained = json.loads((tmp_path / "cmp" / "constrained" / "summary.json").read_text())
    assert constrained["success"]["value"] == 1.0 and constrained["sample_decoding"]["constrained"] == 2
    report = (tmp_path / "cmp" / "report.md").read_text()
    assert "smollm2 (free)" in report and "smollm2 (constrained)" in report
    assert (tmp_path / "cmp" / "pass_at_k.png").stat().st_size > 1000
    assert f"report: {tmp_path / 'cmp' / 'report.md'}" in result.stdout.replace("\n", "")
    # where it was computed: recorded, printed under the headline, shown in the report
    from corral.models import inspect_build

    [runtime] = json.loads((tmp_path / "cmp" / "free" / "runtime.json").read_text())
    assert inspect_build().describe() in runtime and constrained["runtimes"] == [runtime]
    assert f"computed with {runtime}" in result.stdout.replace("\n", "")
    assert runtime in report


@pytest.mark.model
def test_a_built_instances_file_evaluates_as_a_task(tmp_path, monkeypatch):
    """corral build → corral eval FILE.jsonl: the model runs on instances extracted from a user's own text."""
    monkeypatch.setenv("CORRAL_CACHE_DIR", str(tmp_path / "cache"))
    corpus = tmp_path / "notes.txt"
    corpus.write_text("The harbour was quiet before dawn. Fishermen checked their nets by lamplight.\n\n"
                      "Gulls circled the empty market square. A bell rang twice from the old church tower.\n",
                      encoding="utf-8")
    built = tmp_path / "mine.jsonl"
    result = runner.invoke(app, ["build", "--corpus", str(corpus), "--structure",
                                 "sentence: count(text, word, sentence) == ?n and pos(text, word, 2) == ?w",
                                 "--per-structure", "2", "--out", str(built)])
    assert result.exit_code == 0, result.output
    assert len(built.read_text().splitlines()) == 2
    run = runner.invoke(app, ["eval", str(built), "--decoding", "constrained", "--no-report",
                              "--out", str(tmp_path / "run")])
    assert run.exit_code == 0, run.output
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["task"] == "mine" and summary["instances"] == 2
    assert summary["success"]["value"] == 1.0 and summary["sample_decoding"]["constrained"] == 2
    missing = runner.invoke(app, ["eval", str(tmp_path / "absent.jsonl")])
    assert "cannot read instances file" in _one_line_error(missing)
