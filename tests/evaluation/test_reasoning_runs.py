"""Reasoning models in runs: a model that thinks first passes a COLLIE instance through check, grammar and reward
once its block is declared, and fails without it (issue 46's acceptance); the record keeps the thinking and the
answer; a block that never closes fails with that reason; a served reply's ``reasoning_content`` fills the
thinking; reports show how long the model thought."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corral.evaluation import (
    EvalSpec,
    SpecError,
    evaluate,
    parse_eval_spec,
    plan_run,
    read_config,
    read_records,
    rejudge,
    summarize,
    write_report,
)
from corral.grammars import accepts
from corral.models import ScriptedModel
from corral.tasks import REASONING_UNCLOSED, ReasoningSpec, get_task
from corral.training import CheckerReward, TaskSpec, TrainConfig, build_mix

WHERE = {"structure": ["sent01"]}  # its first instance: ccnews_c04_0, a sentence of exactly 82 characters
TAGS = {"open": "<think>", "close": "</think>"}


def _instance():
    task = get_task("collie")
    instance = next(i for i in task.instances() if i.id == "ccnews_c04_0")
    assert instance.reference is not None
    return task, instance


def _thinking_first() -> str:
    _, instance = _instance()
    return ("<think>\nExactly 82 characters, spaces included. A product sheet lists connectivity options; "
            "I will count them.\n</think>\n\n" + instance.reference)


def _spec(**fields) -> EvalSpec:
    return EvalSpec(task="collie", model="scripted:thinker", where=WHERE, limit=1, **fields)


def test_a_thinking_model_passes_collie_once_its_block_is_declared(tmp_path: Path) -> None:
    output = _thinking_first()
    _, instance = _instance()
    declared = ScriptedModel([output])
    run, summary = evaluate(_spec(decoding="constrained", reasoning=TAGS), tmp_path / "declared", model=declared)
    [record] = read_records(run)
    assert record.passed and summary.success.value == 1.0
    assert record.output == output and record.answer == instance.reference  # whole output, checked answer
    assert record.thinking is not None and record.thinking.startswith("\nExactly 82") and record.thinking_closed
    [request] = declared.requests
    assert request.grammar is not None and accepts(request.grammar, output)  # the grammar lets the block through

    # without the declaration: the checker sees the thinking, the grammar refuses it
    plain = ScriptedModel([output])
    run_plain, summary_plain = evaluate(_spec(decoding="constrained"), tmp_path / "plain", model=plain)
    [failed] = read_records(run_plain)
    assert not failed.passed and summary_plain.success.value == 0.0 and failed.thinking is None
    assert not accepts(plain.requests[0].grammar, output)
    assert read_config(run).hash != read_config(run_plain).hash  # two different runs

    # and the reward: judged on the answer after the block
    config = TrainConfig(base="scripted:thinker", tasks=[TaskSpec(task="collie", where=WHERE, limit=1)],
                         holdout=0.0, reasoning=ReasoningSpec(**TAGS))
    thinking_reward = CheckerReward(build_mix(config))
    plain_reward = CheckerReward(build_mix(config.model_copy(update={"reasoning": None})))
    key = thinking_reward.parts[0].key
    judged = thinking_reward.judge(key, instance.id, output)
    assert judged.reward == 1.0 and judged.answer == instance.reference and judged.thinking_chars
    assert plain_reward.judge(key, instance.id, output).reward == -1.0
    assert thinking_reward.judge(key, instance.id, "<think>never done").reward == -1.0
    assert config.identity()["reasoning"]["open"] == "<think>"
    assert "reasoning" not in config.model_copy(update={"reasoning": None}).identity()  # older runs keep theirs


def test_a_block_that_never_closes_fails_with_that_reason(tmp_path: Path) -> None:
    _, instance = _instance()
    unclosed = "<think>\n" + "I keep thinking. " * 10  # cut off (or wandering) inside the block
    over = "<think>" + "x" * 200 + "</think>" + instance.reference  # closed, but past a 100-character bound
    run, summary = evaluate(_spec(reasoning=TAGS, samples=2), tmp_path / "run", model=ScriptedModel([unclosed, over]))
    bounded, _ = evaluate(_spec(reasoning={**TAGS, "max_chars": 100}, samples=2), tmp_path / "bounded",
                          model=ScriptedModel([unclosed, over]))
    first, second = sorted(read_records(run), key=lambda r: r.sample)
    assert not first.passed and first.thinking_closed is False and first.answer == ""
    assert [v["rule"] for v in first.violations] == [REASONING_UNCLOSED]
    assert "never closed" in first.feedback and instance.reference not in first.feedback
    assert second.passed  # 200 characters are within the default bound
    over_bound = next(r for r in read_records(bounded) if r.sample == 1)
    assert not over_bound.passed and over_bound.violations[0]["rule"] == REASONING_UNCLOSED
    assert "within 100 characters" in over_bound.feedback
    thinking = summary.thinking
    assert thinking is not None and thinking.records == 2 and thinking.unclosed == 1
    assert thinking.unclosed_rate == 0.5 and thinking.max_chars == 200


def test_an_output_cut_off_inside_its_block_is_not_closed_by_the_runner(tmp_path: Path) -> None:
    """Closing appends a grammar's shortest completion to a cut-off output; inside a block bounded at 20 characters
    that would be a few more, the close tag and an answer the model never wrote (within the closing limit)."""
    from corral.evaluation import SamplingConfig
    from corral.grammars import Grammar
    from corral.tasks import Task, TaskInstance
    from corral.verdicts import Verdict, Violation

    task = Task("say-ok", "1", lambda: [TaskInstance("only", "Say ok.", None)],
                check=lambda _, answer: Verdict.of([] if answer == "ok" else [Violation("ok", "say ok")]),
                grammar=lambda _: Grammar.regex("ok"))
    spec = EvalSpec(task="say-ok", model="scripted:s", decoding="constrained", reasoning={**TAGS, "max_chars": 20},
                    sampling=SamplingConfig(max_tokens=3))
    run, _ = evaluate(plan_run(spec, task), tmp_path / "run", model=ScriptedModel(["<think>one two three four"]))
    [record] = read_records(run)
    assert record.finish_reason == "length" and record.appended == "" and not record.passed
    assert record.violations[0]["rule"] == REASONING_UNCLOSED


def test_a_model_that_skips_thinking_is_judged_on_its_whole_answer(tmp_path: Path) -> None:
    _, instance = _instance()
    run, summary = evaluate(_spec(reasoning=TAGS), tmp_path / "run", model=ScriptedModel([instance.reference]))
    [record] = read_records(run)
    assert record.passed and record.thinking == "" and record.thinking_closed
    assert summary.thinking is not None and summary.thinking.empty == 1


def test_judging_a_run_again_splits_as_the_runner_did(tmp_path: Path) -> None:
    outputs = [_thinking_first(), "<think>no end"]
    run, _ = evaluate(_spec(reasoning=TAGS, samples=2), tmp_path / "run", model=ScriptedModel(outputs))
    config, records = read_config(run), read_records(run)
    again = rejudge(config, records)
    keep = ("passed", "answer", "thinking", "thinking_closed", "violations")
    assert [r.model_dump(include=set(keep)) for r in again] == [r.model_dump(include=set(keep)) for r in records]


def test_the_summary_and_the_report_show_the_thinking(tmp_path: Path) -> None:
    run, summary = evaluate(_spec(reasoning=TAGS, samples=2), tmp_path / "run",
                            model=ScriptedModel([_thinking_first(), "<think>no end"]))
    stored = json.loads((run / "summary.json").read_text())
    assert stored["thinking"]["records"] == 2 and stored["thinking"]["unclosed"] == 1
    assert stored["thinking"]["mean_chars"] == summary.thinking.mean_chars > 0
    report = write_report([run], tmp_path / "report").read_text()
    section = report.split("## Thinking", 1)[1].split("##", 1)[0]
    assert "never closed" in section and "1 (50.0%)" in section
    assert "thinking)" in report  # the run's label names the block
    plain, _ = evaluate(_spec(), tmp_path / "plain", model=ScriptedModel(["x"]))
    assert summarize(read_config(plain), read_records(plain)).thinking is None
    assert "## Thinking" not in write_report([plain], tmp_path / "plain-report").read_text()


def test_a_served_reasoning_content_fills_the_thinking(tmp_path: Path) -> None:
    from ..models._servers import ScriptedServer, completion_reply, json_reply

    _, instance = _instance()
    reply = json.loads(completion_reply(instance.reference)[2])
    reply["choices"][0]["message"]["reasoning_content"] = "Count: 82 characters with spaces."
    cut = json.loads(completion_reply("")[2])
    cut["choices"][0]["message"]["reasoning_content"] = "Still counting when max_tokens came"
    cut["choices"][0]["finish_reason"] = "length"
    options = {"backoff_base": 0.01, "backoff_max": 0.05, "grammar_mode": "vllm"}
    with ScriptedServer([json_reply(200, reply), json_reply(200, cut)]) as server:
        spec = EvalSpec(task="collie", model="openai:thinker", where=WHERE, limit=1, samples=2, base_url=server.url,
                        model_options=options, decoding="constrained", reasoning="auto")
        plan = plan_run(spec)
        assert plan.config.reasoning == ReasoningSpec(**TAGS, prefilled=False)  # a served model: the default tags
        run, summary = evaluate(plan, tmp_path / "run")
    answered, cut_off = sorted(read_records(run), key=lambda r: r.sample)
    assert answered.passed and answered.thinking == "Count: 82 characters with spaces."
    assert answered.thinking_served and answered.output == answered.answer == instance.reference
    assert not cut_off.passed and cut_off.thinking_closed is False
    assert cut_off.violations[0]["rule"] == REASONING_UNCLOSED
    assert summary.thinking is not None and summary.thinking.served == 2
    # the server applies the grammar after the block: it is sent the answer's grammar, unchanged
    task, _ = _instance()
    sent = server.bodies[0]["structured_outputs"]["grammar"]
    assert sent == task.grammar(instance).source and "<think>" not in json.dumps(server.bodies[0])


def test_the_spec_takes_auto_or_tags_and_refuses_half_a_pair() -> None:
    assert parse_eval_spec({"task": "collie", "reasoning": "auto"}).reasoning == ReasoningSpec()
    assert parse_eval_spec({"task": "collie", "reasoning": {"kind": "auto", "max_chars": 5}}).reasoning.max_chars == 5
    with pytest.raises(SpecError, match=r"reasoning: .*both reasoning tags"):
        parse_eval_spec({"task": "collie", "reasoning": {"open": "<think>"}})
    with pytest.raises(SpecError, match=r"reasoning\.max_chars"):
        parse_eval_spec({"task": "collie", "reasoning": {"max_chars": -1}})


def test_auto_needs_a_template_that_names_a_block() -> None:
    # the bundled SmolLM2 is no reasoning model: its template (read without loading the weights) has no block
    with pytest.raises(ValueError, match="chat template of smollm2 mentions no reasoning block"):
        plan_run(EvalSpec(task="collie", where=WHERE, limit=1, reasoning="auto"))
    given = plan_run(EvalSpec(task="collie", where=WHERE, limit=1, reasoning=TAGS))
    assert given.config.reasoning == ReasoningSpec(**TAGS, prefilled=False)
    assert given.task.reasoning is not None and given.task.reasoning.open == "<think>"


def test_runs_without_a_block_keep_their_identity() -> None:
    plain = plan_run(_spec()).config
    assert "reasoning" not in plain.identity()
    thinking = plan_run(_spec(reasoning=TAGS)).config
    assert thinking.identity()["reasoning"]["close"] == "</think>" and thinking.hash != plain.hash


def test_the_command_line_maps_reasoning_to_the_spec() -> None:
    import typer

    from corral.cli._eval import spec_of

    assert spec_of({"task": "collie", "reasoning": "auto"}).reasoning == ReasoningSpec()
    tagged = spec_of({"task": "collie", "reasoning": "[THINK],[/THINK]", "settings": ["reasoning.max_chars=64"]})
    assert tagged.reasoning == ReasoningSpec(open="[THINK]", close="[/THINK]", max_chars=64)
    assert spec_of({"task": "collie", "reasoning": "off"}).reasoning is None
    with pytest.raises(typer.Exit):
        spec_of({"task": "collie", "reasoning": "<think>"})
