"""Passed as written vs passed after closing; bounded closing; runs that name their grammar compiler."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from corral.evaluation import (
    EvalSpec,
    RunError,
    RunPlan,
    evaluate,
    grammar_fingerprint,
    plan_run,
    read_records,
    summarize,
)
from corral.models import ScriptedModel
from corral.tasks import Task


def _plan(task: Task, **fields: Any) -> RunPlan:
    """The run ``fields`` describe on ``task``, a task made here (not registered)."""
    return plan_run(EvalSpec(task=task.name, **fields), task)


def _brackets_task(budget: int = 3):
    from corral.grammars import Grammar, accepts
    from corral.tasks import Task, TaskInstance
    from corral.verdicts import Verdict, Violation

    grammar = Grammar.lark('start: e\ne: "(" e ")" | "x"\n%ignore " "\n')

    def check(instance, answer):
        return Verdict.of([] if accepts(grammar, answer) else [Violation("parses", "not balanced")])

    return Task(name="brackets", version="1", check=check, grammar=lambda instance: grammar,
                instances=lambda: [TaskInstance("a", "Nest.", None, max_tokens=budget),
                                   TaskInstance("b", "Nest.", None, max_tokens=8)])


def test_a_closed_pass_is_not_the_models_pass(tmp_path: Path) -> None:
    """The scripted model's tokens are words: "( ( ( x ) ) )" is cut after three; closing adds "x)))"."""
    run, summary = evaluate(_plan(_brackets_task(), model="scripted:s", decoding="constrained"), tmp_path / "run",
                            model=ScriptedModel(["( ( ( x ) ) )", "( ( ( x ) ) )"]))
    by_id = {record.instance: record for record in read_records(run)}
    cut, whole = by_id["a"], by_id["b"]
    assert cut.closed and cut.passed and not cut.passed_as_written
    assert cut.written_passed is False and cut.closing_changed_verdict  # "( ( (" alone does not parse
    assert whole.passed_as_written and whole.written_passed is None
    assert summary.success.value == 0.5  # the headline: only the finished output
    assert summary.success_with_closing.value == 1.0
    counts = summary.counts
    assert (counts.closed, counts.closed_passed, counts.closing_changed_verdict) == (1, 1, 1)
    assert counts.appended_chars == counts.appended_chars_max == len("x)))")
    assert summary.pass_at_k["1"] == 0.5


def test_closing_longer_than_the_limit_leaves_the_output_cut_off_and_failed(tmp_path: Path) -> None:
    run, summary = evaluate(_plan(_brackets_task(), model="scripted:s", decoding="constrained", close_limit=3),
                            tmp_path / "run", model=ScriptedModel(["( ( ( x ) ) )", "( ( ( x ) ) )"]))
    cut = {record.instance: record for record in read_records(run)}["a"]
    assert cut.finish_reason == "length" and cut.appended == "" and not cut.passed and cut.written_passed is None
    assert summary.counts.closed == 0 and summary.success_with_closing.value == 0.5
    never, _ = evaluate(_plan(_brackets_task(), model="scripted:s", decoding="constrained", close_limit=0),
                        tmp_path / "never", model=ScriptedModel(["( ( ( x ) ) )", "( ( ( x ) ) )"]))
    assert not any(record.appended for record in read_records(never))


def test_a_truncated_free_output_that_passes_is_not_passed_as_written(tmp_path: Path) -> None:
    """"x y" cut after "x": the checker passes "x", but the model never finished."""
    run, summary = evaluate(_plan(_brackets_task(budget=1), model="scripted:s", decoding="free"), tmp_path / "run",
                            model=ScriptedModel(["x y", "x"]))
    cut = {record.instance: record for record in read_records(run)}["a"]
    assert cut.passed and cut.truncated and not cut.passed_as_written
    assert summary.success.value == 0.5 and summary.success_with_closing.value == 1.0


def test_feedback_rounds_count_as_written_passes(tmp_path: Path) -> None:
    """A closed pass ends its chain (the checker passed it), but the sample is not solved as written."""
    run, summary = evaluate(_plan(_brackets_task(), model="scripted:s", decoding="constrained", rounds=2),
                            tmp_path / "run", model=ScriptedModel(["( ( ( x ) ) )", "x"]))
    assert len(read_records(run)) == 2
    assert summary.final_success.value == 0.5
    assert summary.final_success_with_closing.value == 1.0


def test_a_constrained_run_names_its_grammar_compiler(tmp_path: Path) -> None:
    task = _brackets_task()
    constrained = _plan(task, model="scripted:s", decoding="constrained").config
    free = _plan(task, model="scripted:s", decoding="free").config
    assert constrained.grammar_fingerprint == grammar_fingerprint(__name__) != ""
    assert "grammar_fingerprint" in constrained.identity() and "close_limit" in constrained.identity()
    assert free.grammar_fingerprint == "" and "grammar_fingerprint" not in free.identity()
    other = constrained.model_copy(update={"grammar_fingerprint": "0" * 16}).with_hash()
    assert other.hash != constrained.hash
    assert _plan(task, model="scripted:s", decoding="constrained", close_limit=5).config.hash != constrained.hash


def test_resuming_a_run_made_by_another_grammar_compiler_is_refused(tmp_path: Path) -> None:
    run, _ = evaluate(_plan(_brackets_task(), model="scripted:s", decoding="constrained"), tmp_path / "run",
                      model=ScriptedModel(["( x )", "x"]))
    config_file = run / "config.json"
    config = json.loads(config_file.read_text())
    config["grammar_fingerprint"] = "0123456789abcdef"  # as an older Corral would have written it
    config_file.write_text(json.dumps(config))
    before = (run / "records.jsonl").read_bytes()
    with pytest.raises(RunError, match=r"compiled by another Corral.*0123456789abcdef"):
        evaluate(_plan(_brackets_task(), model="scripted:s", decoding="constrained", samples=2), run,
                 model=ScriptedModel(["( x )", "x"]))
    assert (run / "records.jsonl").read_bytes() == before  # nothing was mixed in


def test_the_fingerprint_follows_the_grammar_sources(tmp_path: Path) -> None:
    """Another source under corral.grammars (a changed compiler) gives another fingerprint."""
    first = grammar_fingerprint("corral.suites.collie._task")
    fake = tmp_path / "corral"
    for package in ("grammars", "text", "constraints", "decoding", "suites/collie"):
        (fake / package).mkdir(parents=True)
        (fake / package / "m.py").write_text("x = 1\n")
    one = grammar_fingerprint("corral.suites.collie._task", root=fake)
    (fake / "grammars" / "m.py").write_text("x = 2\n")
    two = grammar_fingerprint("corral.suites.collie._task", root=fake)
    (fake / "suites" / "collie" / "m.py").write_text("x = 3\n")
    three = grammar_fingerprint("corral.suites.collie._task", root=fake)
    assert len({first, one, two, three}) == 4
    assert grammar_fingerprint("corral.suites.collie._task") == first


def test_the_cache_key_of_a_constrained_request_names_the_compiler() -> None:
    from corral.evaluation import cache_model_id

    task = _brackets_task()
    constrained = _plan(task, model="openai:m", decoding="constrained", base_url="http://127.0.0.1:1/v1").config
    free = _plan(task, model="openai:m", decoding="free", base_url="http://127.0.0.1:1/v1").config
    assert constrained.grammar_fingerprint in cache_model_id(constrained)
    assert cache_model_id(free) == "openai:m@http://127.0.0.1:1/v1"


def test_summaries_of_records_written_before_closing_was_bounded_still_read(tmp_path: Path) -> None:
    """Old records have no ``written_passed``: their closed passes still count apart."""
    run, _ = evaluate(_plan(_brackets_task(), model="scripted:s", decoding="constrained"), tmp_path / "run",
                      model=ScriptedModel(["( ( ( x ) ) )", "( ( ( x ) ) )"]))
    from corral.evaluation import read_config

    lines = [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]
    for line in lines:
        line.pop("written_passed")
    (run / "records.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    summary = summarize(read_config(run), read_records(run))
    assert summary.success.value == 0.5 and summary.counts.closing_changed_verdict == 0
    assert summary.counts.closed_unjudged == 1
