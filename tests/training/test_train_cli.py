"""``corral train`` end to end on the bundled SmolLM2-135M (CPU, a few tiny steps): RL trains, saves, resumes and
is evaluated through ``corral eval --model RUN``; SFT and self-distillation train; ``compare`` reports before and
after; bad input is one line and exit 2.

One test runs the whole RL story so the base checkpoint is converted once and the suite stays within CI's time.
"""

from __future__ import annotations

import json
from importlib.util import find_spec

import pytest
from typer.testing import CliRunner

from corral.cli import app
from corral.training import recompute_row

# found, not imported: every xdist worker collects this module, and peft brings torch and transformers (6 s)
pytestmark = pytest.mark.skipif(find_spec("trl") is None or find_spec("peft") is None, reason="needs trl and peft")
runner = CliRunner()

WORD = ["--task", "collie", "--where", "structure=word02", "--limit", "8"]


def _steps(run):
    return [json.loads(line)["step"] for line in (run / "steps.jsonl").read_text(encoding="utf-8").splitlines()]


def _error(result) -> str:
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), result.stderr
    return lines[0]


@pytest.mark.model
@pytest.mark.slow
def test_rl_trains_saves_resumes_and_is_evaluated(tmp_path):
    run = tmp_path / "rl"
    tiny = [*WORD, "--reward", "graded", "--max-tokens", "6", "--generations", "2", "--holdout", "0.25",
            "--out", str(run)]
    result = runner.invoke(app, ["train", "rl", *tiny, "--steps", "2"])
    assert result.exit_code == 0, result.output + result.stderr
    assert (run / "adapter" / "adapter_config.json").is_file() and (run / "curve.png").is_file()
    assert _steps(run) == [1, 2]
    rewards = [json.loads(line) for line in (run / "rewards.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rewards) == 4 and all(-1.0 <= row["reward"] <= 1.0 for row in rewards)
    assert all(row["tokens"] <= 6 for row in rewards)
    config = json.loads((run / "train.json").read_text(encoding="utf-8"))
    assert config["beta"] > 0 and config["lora_r"] == 16 and config["tasks"][0]["reward"] == "graded"

    # a longer budget resumes from the last checkpoint: no step is logged twice
    result = runner.invoke(app, ["train", "rl", *tiny, "--steps", "3"])
    assert result.exit_code == 0, result.output + result.stderr
    assert _steps(run) == [1, 2, 3]
    # another config is refused with the difference
    line = _error(runner.invoke(app, ["train", "rl", *tiny, "--steps", "3", "--lr", "0.5"]))
    assert "learning_rate" in line and "0.5" in line

    # the run is a model: corral eval loads base + adapter, free and constrained
    result = runner.invoke(app, ["eval", "collie", "--model", str(run), "--where", "structure=word02", "--limit", "2",
                                 "--decoding", "both", "--out", str(tmp_path / "eval"), "--no-report", "--no-cache"])
    assert result.exit_code == 0, result.output + result.stderr
    constrained = [json.loads(line) for line in
                   (tmp_path / "eval" / "constrained" / "records.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(constrained) == 2 and all(row["passed"] for row in constrained)

    # before and after on the held-out instances
    result = runner.invoke(app, ["train", "compare", str(run), "--out", str(tmp_path / "cmp"), "--limit", "1",
                                 "--decoding", "free"])
    assert result.exit_code == 0, result.output + result.stderr
    report = (tmp_path / "cmp" / "report.md").read_text(encoding="utf-8")
    assert "| base | free | 1 |" in report and "| rl-tst (rl) | free | 1 |" in report
    rows = json.loads((tmp_path / "cmp" / "comparison.json").read_text(encoding="utf-8"))
    assert {row["model"] for row in rows} == {"base", "rl-tst (rl)"}
    assert all(len(row["outputs"]) == row["n"] == 1 and recompute_row(row) == row for row in rows)


@pytest.mark.model
@pytest.mark.slow
def test_rl_on_ifeval_is_rewarded_by_its_checker(tmp_path):
    """``corral train rl --task ifeval`` (issue 47): each logged reward is the graded reward of IFEval's own verdict
    on the logged answer (the share of the prompt's instructions followed, mapped to [-1, 1])."""
    from corral.tasks import get_task

    run = tmp_path / "ifeval"
    result = runner.invoke(app, ["train", "rl", "--task", "ifeval", "--limit", "4", "--steps", "1", "--generations",
                                 "2", "--prompts-per-step", "2", "--max-tokens", "12", "--reward", "graded",
                                 "--out", str(run)])
    assert result.exit_code == 0, result.output + result.stderr
    rows = [json.loads(line) for line in (run / "rewards.jsonl").read_text(encoding="utf-8").splitlines()]
    task = get_task("ifeval")
    instances = {instance.id: instance for instance in task.instances()}
    assert len(rows) == 4
    for row in rows:
        verdict = task.verdict(instances[row["instance"]], row["answer"])
        assert row["passed"] == verdict.passed and row["score"] == pytest.approx(verdict.score)
        assert row["reward"] == pytest.approx(2 * verdict.score - 1)


@pytest.mark.model
@pytest.mark.slow
def test_sft_and_self_distillation_train(tmp_path):
    result = runner.invoke(app, ["train", "sft", *WORD, "--steps", "2", "--out", str(tmp_path / "sft")])
    assert result.exit_code == 0, result.output + result.stderr
    assert (tmp_path / "sft" / "adapter" / "adapter_model.safetensors").is_file()
    assert _steps(tmp_path / "sft") == [1, 2]
    # export: the adapter merged into its base, a plain checkpoint any backend spec can name
    result = runner.invoke(app, ["train", "export", str(tmp_path / "sft")])
    assert result.exit_code == 0, result.output + result.stderr
    assert (tmp_path / "sft" / "merged" / "config.json").is_file()
    assert not (tmp_path / "sft" / "merged" / "adapter_config.json").exists()
    line = _error(runner.invoke(app, ["train", "export", str(tmp_path / "sft"), "--gguf"],
                                env={"PATH": "", "CORRAL_GGUF_CONVERTER": ""}))
    assert "convert_hf_to_gguf.py" in line and "merged" in line
    # ReFF's trn-ft: SFT on the references first, merged into the base, then RL anchored to that model
    run = tmp_path / "trn-ft"
    result = runner.invoke(app, ["train", "rl", *WORD, "--setting", "trn-ft", "--steps", "1", "--generations", "2",
                                 "--max-tokens", "4", "--out", str(run)])
    assert result.exit_code == 0, result.output + result.stderr
    assert (run / "sft-stage" / "adapter" / "adapter_config.json").is_file()
    assert (run / "sft-merged" / "config.json").is_file()
    adapter = json.loads((run / "adapter" / "adapter_config.json").read_text(encoding="utf-8"))
    assert adapter["base_model_name_or_path"].endswith("sft-merged")
    result = runner.invoke(app, ["train", "distill", "--task", "collie", "--where", "structure=word02", "--limit", "3",
                                 "--samples", "1", "--steps", "1", "--out", str(tmp_path / "distill")])
    assert result.exit_code == 0, result.output + result.stderr
    summary = json.loads((tmp_path / "distill" / "summary.json").read_text(encoding="utf-8"))
    # constrained decoding makes every COLLIE word pass; those the model finished within the budget are kept
    assert summary["generated"] == summary["passed"] >= 1
    assert summary["kept"] == summary["finished"] >= 1


def test_bad_input_is_one_line(tmp_path):
    assert "name a task" in _error(runner.invoke(app, ["train", "rl"]))
    line = _error(runner.invoke(app, ["train", "rl", "--task", "nope", "--steps", "1", "--out", str(tmp_path / "r")]))
    assert "unknown task 'nope'" in line and not (tmp_path / "r").exists()  # no run directory for a bad config
    assert "reward" in _error(runner.invoke(app, ["train", "rl", *WORD, "--reward", "often"]))
    assert "beta" in _error(runner.invoke(app, ["train", "rl", *WORD, "--beta", "0"]))
    assert "--task" in _error(runner.invoke(app, ["train", "rl", "--reward", "graded"]))
    assert "decoding" in _error(runner.invoke(app, ["train", "compare", ".", "--out", ".", "--decoding", "x"]))
