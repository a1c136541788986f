"""``corral eval --config FILE``: a spec file runs as its flags would, the flags given and ``--set`` override its
fields, and a bad file is one ``error:`` line naming the file and the field path (exit 2). The scripted model
stands in for a real one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import corral.models
from corral.cli import app
from corral.models import Likelihood, ScriptedModel

from ._errors import one_line_stderr_error as _one_line_error

runner = CliRunner()


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict]]:
    """``corral eval`` loads the scripted model (it answers "x"); each load is recorded with its options."""
    loads: list[tuple[str, dict]] = []

    def load(spec: str, **options) -> ScriptedModel:
        loads.append((spec, options))
        return ScriptedModel(lambda request, i: "x", name=spec, scores=lambda request, text: Likelihood(1, -1.0))

    monkeypatch.setattr(corral.models, "load_model", load)
    return loads


SPEC = """\
task: collie
model: scripted:s
where: {structure: [word01, word02]}
per_group: [structure, 1]
rounds: 2
sampling: {temperature: 0.5, seed: 7}
model_options: {n_ctx: 512}
"""


def test_a_config_file_runs_and_flags_override_its_fields(tmp_path: Path, scripted) -> None:
    spec = tmp_path / "job.yaml"
    spec.write_text(SPEC, encoding="utf-8")
    run = tmp_path / "run"
    result = runner.invoke(app, ["eval", "--config", str(spec), "--rounds", "1", "--set", "sampling.seed=3",
                                 "--set", "close_limit=0", "--no-cache", "--no-report", "--out", str(run)])
    assert result.exit_code == 0, result.output
    config = json.loads((run / "config.json").read_text())
    assert (config["task"], config["model"], config["rounds"], config["close_limit"]) == ("collie", "scripted:s", 1, 0)
    assert config["sampling"] == {"temperature": 0.5, "top_p": 1.0, "max_tokens": None, "seed": 3, "repeat_limit": 0}
    assert config["selection"] == {"filters": {"structure": ["word01", "word02"]}, "limit": None,
                                   "per_group": ["structure", 1]}
    assert scripted == [("scripted:s", {"n_ctx": 512})]  # the file's model options reach the model

    as_json = tmp_path / "job.json"
    as_json.write_text(json.dumps({"task": "collie", "model": "scripted:s", "where": {"structure": ["word01"]},
                                   "limit": 1, "decoding": "constrained"}), encoding="utf-8")
    both = runner.invoke(app, ["eval", "--config", str(as_json), "--decoding", "both", "--set", "strategy=rerank",
                               "--set", "strategy.k=2", "--no-cache", "--no-report", "--out", str(tmp_path / "both")])
    assert both.exit_code == 0, both.output
    free = json.loads((tmp_path / "both" / "free" / "config.json").read_text())
    constrained = json.loads((tmp_path / "both" / "constrained" / "config.json").read_text())
    assert free["strategy"] == "greedy" and (constrained["strategy"], constrained["rerank_k"]) == ("rerank", 2)


def test_the_task_argument_overrides_the_file_s(tmp_path: Path, scripted) -> None:
    spec = tmp_path / "job.yaml"
    spec.write_text("task: nope\nmodel: scripted:s\nlimit: 1\n", encoding="utf-8")
    assert "unknown task 'nope'" in _one_line_error(runner.invoke(app, ["eval", "--config", str(spec)]))
    result = runner.invoke(app, ["eval", "collie", "--config", str(spec), "--where", "structure=word01",
                                 "--no-cache", "--no-report", "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(("text", "args", "message"), [
    ("task: collie\nsamples: 0\n", [], "{path}: samples: Input should be greater than or equal to 1, got 0"),
    ("task: collie\ndecoding: constrained\nstrategy: {kind: rerank, k: 0}\n", [],
     "{path}: strategy.k: Input should be greater than or equal to 1, got 0"),
    ("task: collie\nsampling: {temperature: .nan}\n", [], "{path}: not valid YAML: /sampling/temperature: nan is not"),
    ("task: collie\nsampling: {temprature: 1}\n", [], "{path}: sampling.temprature: Extra inputs are not permitted"),
    ("task: collie\nstrategy: rerank\n", [], "{path}: (top level): strategy 'rerank' decodes constrained samples"),
    ("task: [collie\n", [], "{path}: not valid YAML: line 2, column 1"),
    ("- collie\n", [], "{path}: (top level): an evaluation spec is a mapping of fields, got list"),
    ("model: scripted:s\n", [], "name a task: corral eval TASK, or --config FILE with a task field"),
    ("task: collie\n", ["--set", "sampling.top_p=0"], "{path}: sampling.top_p: Input should be greater than 0, got 0"),
    ("task: collie\n", ["--set", "strategy.k=8"], "{path}: strategy: name the strategy's kind"),
    ("task: collie\n", ["--set", "=1"], "--set '=1': write KEY=VALUE"),
])
def test_a_bad_file_or_setting_is_one_line_naming_the_field(tmp_path: Path, scripted, text: str, args: list[str],
                                                           message: str) -> None:
    spec = tmp_path / "job.yaml"
    spec.write_text(text, encoding="utf-8")
    line = _one_line_error(runner.invoke(app, ["eval", "--config", str(spec), *args]))
    assert line.startswith("error: " + message.format(path=spec)), line
    assert scripted == []  # refused before any model loads


def test_a_missing_config_file_is_one_line(tmp_path: Path) -> None:
    line = _one_line_error(runner.invoke(app, ["eval", "--config", str(tmp_path / "absent.yaml")]))
    assert "absent.yaml" in line and "no such file" in line
