"""An instance whose grammar compile runs past the run's budget (``EvalSpec.compile_seconds``) decodes freely, with
the budget named as the reason in its records; the others stay constrained. The scripted model: no model."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import pytest

from corral.evaluation import EvalSpec, SpecError, evaluate, parse_eval_spec, plan_run, read_records
from corral.grammars import COMPILE_SECONDS, Grammar
from corral.models import ScriptedModel
from corral.tasks import get_task

WORD01 = {"structure": ["word01"]}


def test_a_compile_past_the_run_budget_decodes_free_with_the_reason_recorded(tmp_path: Path) -> None:
    spec = EvalSpec(task="collie", model="scripted:s", decoding="constrained", where=WORD01, limit=2,
                    compile_seconds=1e-9)
    run, summary = evaluate(spec, tmp_path / "run", model=ScriptedModel(["Extraordinarily", "x"]))
    records = read_records(run)
    assert len(records) == 2 and all(r.decoding == "free-fallback" for r in records)
    assert all("budget of 1e-09 s (compile_seconds)" in (r.fallback_reason or "") for r in records)
    assert summary.sample_decoding["free-fallback"] == 2


def test_a_slow_task_grammar_is_stopped_at_the_budget_and_a_fast_one_is_not(tmp_path: Path) -> None:
    """One instance's grammar function would run for a minute; the run's budget stops it in about its 0.5 s."""
    task = get_task("collie")
    chosen = [inst for inst in task.instances() if inst.groups["structure"] == "word01"][:2]
    slow_id = chosen[0].id

    def grammar(instance) -> Grammar:
        if instance.id == slow_id:
            time.sleep(60)
        return task.grammar(instance)

    slow = dataclasses.replace(task, instances=lambda: chosen, grammar=grammar)
    spec = EvalSpec(task="collie", model="scripted:s", decoding="constrained", compile_seconds=0.5)
    started = time.monotonic()
    run, _ = evaluate(plan_run(spec, slow), tmp_path / "run", model=ScriptedModel(["Extraordinarily", "x"]))
    assert time.monotonic() - started < 30
    records = {r.instance: r for r in read_records(run)}
    assert records[slow_id].decoding == "free-fallback"
    assert "budget of 0.5 s (compile_seconds)" in (records[slow_id].fallback_reason or "")
    assert records[chosen[1].id].decoding == "constrained" and records[chosen[1].id].fallback_reason is None


def test_the_budget_is_a_bounded_spec_field() -> None:
    assert EvalSpec(task="collie").compile_seconds == COMPILE_SECONDS
    assert parse_eval_spec({"task": "collie", "compile_seconds": 5}).compile_seconds == 5
    for bad in (0, -1, 10_000):
        with pytest.raises(SpecError, match="compile_seconds"):
            parse_eval_spec({"task": "collie", "compile_seconds": bad})
