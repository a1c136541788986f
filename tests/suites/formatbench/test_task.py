"""The formatbench task: options, prompts (alpaca and chat), refinement messages, selection, the CLI, and a real run
of the bundled model with refinement rounds."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from corral.cli import app
from corral.suites.formatbench import get_format_task
from corral.tasks import get_task, select

from ..._sizes import sized


def test_options_are_validated_and_recorded():
    task = get_task("formatbench", checker_mode="reference", template="chat", thoughts=True, shots=2)
    assert task.options["checker_mode"] == "reference" and task.options["shots"] == 2
    assert task.marker == "Corrected Answer:" and task.stop_on_repeat
    with pytest.raises(ValueError, match="bad option checker_mode='lenient'; expected one of strict, reference"):
        get_task("formatbench", checker_mode="lenient")
    with pytest.raises(ValueError, match="task 'collie' has no option 'checker_mode'"):
        get_task("collie", checker_mode="strict")
    with pytest.raises(ValueError, match="has no option 'colour'; its options: checker_mode, template"):
        get_task("formatbench", colour="red")


def test_alpaca_prompt_is_the_papers_figure_6():
    task = get_task("formatbench")
    [instance] = select(task, {"task": ["ftime"]}, limit=1)
    prompt = task.template.messages(instance)[-1]["content"]
    assert prompt.startswith("### Instruction\n" + get_format_task("ftime").description)
    assert prompt.count("### Example\n") == 4 and prompt.endswith(instance.target["input"] + "\nAnswer:")
    refine = task.template.refinement_messages(instance, "R9/x", "The time is wrong.")
    assert refine[-1]["content"] == (prompt + " R9/x\nThe answer contains following format error(s):\n"
                                     "The time is wrong.\nCorrected Answer:")
    assert "### " in task.stop


def test_chat_prompt_puts_description_and_shots_in_turns():
    task = get_task("formatbench", template="chat", shots=2)
    [instance] = select(task, {"task": ["mcq"]}, limit=1)
    chat = task.template.messages(instance)
    assert [m["role"] for m in chat] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert "NNP" in chat[0]["content"] and chat[-1]["content"] == instance.target["input"]
    assert not task.stop


def test_thoughts_answer_is_what_follows_the_marker():
    task = get_task("formatbench", thoughts=True)
    assert task.answer("Thoughts: the date was wrong.\nCorrected Answer: 20240101T080000\n") == "20240101T080000"
    assert task.answer("20240101T080000") == "20240101T080000"


def test_select_by_task_and_every_instance_is_checked_by_its_own_checker():
    task = get_task("formatbench")
    chosen = select(task, {"task": ["ner", "capseg"]}, per_group=("task", 3))
    assert [inst.groups["task"] for inst in chosen] == ["ner"] * 3 + ["capseg"] * 3
    for inst in chosen:
        assert task.check(inst, inst.target["gold"]).passed
        assert not task.check(inst, "").passed
    with pytest.raises(ValueError, match="unknown task 'nerr'"):
        select(task, {"task": ["nerr"]})


def test_reference_mode_reproduces_the_reference_verdicts():
    strict, reference = get_task("formatbench"), get_task("formatbench", checker_mode="reference")
    [instance] = select(strict, {"task": ["ner"]}, limit=1)
    untagged = " ".join(instance.target["tokens"])  # the reference passes text without any tag
    has_entities = bool(instance.target["entities"])
    assert reference.check(instance, untagged).passed
    assert strict.check(instance, untagged).passed is (not has_entities)


def test_check_format_cli(tmp_path):
    row = next(iter(select(get_task("formatbench"), {"task": ["capseg"]}, limit=1))).target
    path = tmp_path / "one.json"
    path.write_text(json.dumps(row), encoding="utf-8")
    runner = CliRunner()
    ok = runner.invoke(app, ["check", "--format", "capseg", "--instance", str(path), "--output", row["gold"]])
    assert ok.exit_code == 0 and "PASS" in ok.output
    bad = runner.invoke(app, ["check", "--format", "capseg", "--instance", str(path), "--output", row["text"],
                              "--json"])
    assert bad.exit_code == 1
    verdict = json.loads(bad.output)
    assert not verdict["passed"] and {v["rule"] for v in verdict["violations"]} >= {"end"}
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"id": "a", "labels": ["NN"]}) + "\n" + json.dumps({"id": "b"}) + "\n")
    missing = runner.invoke(app, ["check", "--format", "mcq", "--instance", str(rows), "--id", "a", "--output", "NN"])
    assert missing.exit_code == 2 and "rows.jsonl:2: mcq instance b: missing field 'labels'" in missing.output


@pytest.mark.model
def test_a_real_refinement_run_records_rounds_quality_and_its_stops(tmp_path):
    from corral.evaluation import EvalSpec, SamplingConfig, evaluate, read_config, read_records

    # one instance of each task, answers cut at 64 tokens (full size: two, the task's budgets): three short rounds
    spec = EvalSpec(task="formatbench", rounds=2, where={"task": ["ftime", "mcq"]}, per_group=("task", sized(1, 2)),
                    sampling=SamplingConfig(max_tokens=sized(64, None)))
    run, summary = evaluate(spec, tmp_path / "run")
    config = read_config(run)
    assert config.stop_on_repeat and config.task_options["checker_mode"] == "strict" and config.extract == "whole"
    records = read_records(run)
    assert {r.groups["task"] for r in records} == {"ftime", "mcq"}
    for r in records:
        assert ("ftime_exact" in r.quality) or ("mcq_accuracy" in r.quality)
        if r.round > 0:  # a refinement round: one fresh prompt with the previous answer and the checker's messages
            previous = next(p for p in records if p.key == (r.instance, r.sample, r.round - 1))
            assert not previous.passed and not previous.repeated
            assert f"Answer: {previous.answer}\nThe answer contains following format error(s):\n" \
                   f"{previous.feedback}\nCorrected Answer:" in r.messages[-1]["content"]
            earlier = [p.answer for p in records if p.instance == r.instance and p.round < r.round]
            assert r.repeated == (r.answer in earlier)
    assert summary.complete and len(summary.by_round) == 3
    assert set(summary.by_group_round["task"]) == {"ftime", "mcq"}


def test_judge_ratings_are_read_from_the_reply():
    from corral.suites.formatbench import parse_rating

    assert parse_rating("8") == 8 and parse_rating("Rating: 7/10.") == 7 and parse_rating("10") == 10
    assert parse_rating("I cannot rate this.") is None and parse_rating("0") is None


@pytest.mark.model
def test_the_acrow_judge_rates_poems_with_a_real_model(tmp_path):
    task = get_task("formatbench", judge="smollm2")
    assert task.options["judge"] == "smollm2"
    chosen = select(task, {"task": ["acrow"]}, limit=2)
    for instance in chosen:
        quality = task.quality(instance, instance.target["gold"])
        assert quality["acrow_letters"] == 1.0
        assert quality.get("acrow_judge_unrated") in (0.0, 1.0)
        if quality["acrow_judge_unrated"] == 0.0:
            assert 0.1 <= quality["acrow_judge"] <= 1.0
    assert task.quality(chosen[0], "")["acrow_judge"] == 0.0  # nothing to rate, no model call
    assert "acrow_judge" not in get_task("formatbench").quality(chosen[0], chosen[0].target["gold"])
