"""``corral eval TASK -T key=value`` and ``corral tasks [TASK]``: task options reach the task and its run config, bad
ones are one line (exit 2), and ``corral eval`` keeps only the options every task shares. The scripted model stands
in for a real one, so these run in milliseconds."""

from __future__ import annotations

import json

import pytest
import typer
from typer.core import TyperOption
from typer.testing import CliRunner

import corral.models
from corral.cli import app
from corral.models import ScriptedModel

from ._errors import one_line_stderr_error as _one_line_error

runner = CliRunner()
SHARED = {"config", "task_option", "model", "base_url", "where", "limit", "samples", "rounds", "decoding", "reasoning",
          "settings", "output", "no_cache", "report"}  # the rest of a run's spec: --config FILE or --set KEY=VALUE


@pytest.fixture
def scripted(monkeypatch):
    """``corral eval`` loads the scripted model, which answers "x" to everything."""
    models: list[ScriptedModel] = []

    def load(spec: str, **options) -> ScriptedModel:
        models.append(ScriptedModel(lambda request, i: "x", name=spec))
        return models[-1]

    monkeypatch.setattr(corral.models, "load_model", load)
    return models


def test_eval_has_only_the_options_every_task_shares():
    command = typer.main.get_command(app).commands["eval"]  # type: ignore[attr-defined]
    options = [param for param in command.params if isinstance(param, TyperOption) and param.name != "help"]
    assert {option.name for option in options} == SHARED and len(options) == 14
    flags = {flag for option in options for flag in option.opts}
    assert {"-T", "--task-option", "--limit", "--where"} <= flags
    assert not flags & {"--constrained", "--extract", "--structures", "--per-structure", "--checker-mode", "--shots"}


def test_a_task_option_reaches_the_run_config_and_a_changed_one_is_refused(tmp_path, scripted):
    run = tmp_path / "run"
    args = ["eval", "formatbench", "--where", "task=ftime", "--limit", "2", "--no-cache", "--no-report",
            "--model", "scripted:s", "--out", str(run)]
    result = runner.invoke(app, [*args, "-T", "checker_mode=reference", "--task-option", "shots=0"])
    assert result.exit_code == 0, result.output
    config = json.loads((run / "config.json").read_text())
    assert config["task_options"]["checker_mode"] == "reference" and config["task_options"]["shots"] == 0
    assert config["task_options"]["thoughts"] is False  # the defaults are recorded too
    assert len(scripted[0].requests) == 2

    again = runner.invoke(app, [*args, "-T", "checker_mode=reference", "-T", "shots=0"])
    assert again.exit_code == 0, again.output
    assert len(scripted[1].requests) == 0  # resumed: nothing left to do
    line = _one_line_error(runner.invoke(app, [*args, "-T", "checker_mode=strict", "-T", "shots=0"]))
    assert "another config (different" in line and "task_options" in line


def test_extract_and_limit_per_group_are_recorded(tmp_path, scripted):
    run = tmp_path / "run"
    result = runner.invoke(app, ["eval", "collie", "--where", "structure=word01,word02", "--limit", "structure=1",
                                 "-T", "extract=first_line", "--model", "scripted:s", "--no-cache", "--no-report",
                                 "--out", str(run)])
    assert result.exit_code == 0, result.output
    config = json.loads((run / "config.json").read_text())
    assert config["extract"] == "first_line" and config["task_options"] == {}
    assert config["selection"] == {"filters": {"structure": ["word01", "word02"]}, "limit": None,
                                   "per_group": ["structure", 1]}
    assert len(config["instances"]) == 2


@pytest.mark.parametrize(("args", "message"), [
    (["-T", "colour=red"], "task 'formatbench' has no option 'colour'; its options: checker_mode, template, "
                           "thoughts, shots, judge, judge_base_url, extract"),
    (["-T", "shots=many"], "task 'formatbench': bad option shots='many'; expected an integer"),
    (["-T", "shots=9"], "bad option shots='9'; expected one of 0, 1, 2, 3, 4"),
    (["-T", "checker_mode=lenient"], "bad option checker_mode='lenient'; expected one of strict, reference"),
    (["-T", "thoughts=maybe"], "bad option thoughts='maybe'; expected true or false"),
    (["-T", "extract=middle"], "bad option extract='middle'; expected one of fenced, first_block"),
    (["-T", "shots"], "-T 'shots': write KEY=VALUE"),
    (["-T", "=3"], "-T '=3': write KEY=VALUE"),
    (["-T", "shots=1", "-T", "shots=2"], "-T shots is given twice"),
    (["--limit", "task=0"], "--limit 'task=0': write N or GROUP=N with N >= 1"),
    (["--limit", "=3"], "--limit '=3': write N or GROUP=N"),
    (["--limit", "many"], "--limit 'many': write N or GROUP=N"),
    (["--limit", "3", "--limit", "4"], "give at most one --limit N and one --limit GROUP=N"),
    (["--limit", "colour=3"], "task 'formatbench' has no 'colour' groups; it has: enforcement, task"),
])
def test_bad_task_options_and_limits_are_one_line(args, message):
    line = _one_line_error(runner.invoke(app, ["eval", "formatbench", "--model", "scripted:s", *args]))
    assert message in line


def test_tasks_lists_the_tasks_and_a_tasks_options():
    listed = runner.invoke(app, ["tasks"])
    assert listed.exit_code == 0, listed.output
    names = [line.split()[0] for line in listed.stdout.splitlines()[:-1]]
    assert names == ["clamp-constituency", "clamp-cosql", "clamp-dependency", "clamp-lispress", "clamp-mtop",
                     "clamp-overnight", "clamp-spider", "clamp-treedst", "collie", "concode-gen", "concode-val",
                     "formatbench", "ifeval"]
    assert "FormatBench" in listed.stdout and "FILE.jsonl" in listed.stdout

    shown = runner.invoke(app, ["tasks", "formatbench"])
    assert shown.exit_code == 0, shown.output
    text = shown.stdout
    assert "corral eval formatbench -T KEY=VALUE" in text
    assert "checker_mode  (str, default strict, one of strict, reference)" in text
    assert "shots  (int, default 3, one of 0, 1, 2, 3, 4)" in text and "few-shot examples per prompt" in text
    assert "thoughts  (bool, default false)" in text and "judge  (str, default off)" in text
    assert "extract  (str, default whole, one of fenced, first_block, first_line, raw, whole)" in text
    concode = runner.invoke(app, ["tasks", "concode-gen"]).stdout
    assert "n  (int, default 602)" in concode and "extract  (str, default raw" in concode
    assert "unknown task 'nope'" in _one_line_error(runner.invoke(app, ["tasks", "nope"]))
