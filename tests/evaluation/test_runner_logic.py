"""The runner's own logic on the scripted model: milliseconds, no model, the same code paths as a real run."""

from __future__ import annotations

import json
from pathlib import Path

from corral.evaluation import EvalSpec, evaluate, plan_run, read_records
from corral.models import ScriptedModel

WORDS = {"structure": ["word01", "word02"]}


def _replies(request, i: int) -> str:  # a wrong answer first, then "fixed" after feedback
    return "no" if len(request.messages) == 1 else "still no"


def test_resume_extend_and_rounds_without_redoing_work(tmp_path: Path) -> None:
    model = ScriptedModel(_replies)
    run, summary = evaluate(EvalSpec(task="collie", model="scripted:s", where=WORDS, per_group=("structure", 2)),
                            tmp_path / "run", model=model)
    assert len(model.requests) == 4 and summary.complete and summary.success.value == 0.0
    evaluate(EvalSpec(task="collie", model="scripted:s", where=WORDS, per_group=("structure", 2)), run, model=model)
    assert len(model.requests) == 4  # nothing left to do
    _, extended = evaluate(EvalSpec(task="collie", model="scripted:s", where=WORDS, per_group=("structure", 2),
                                    samples=2, rounds=1), run, model=model)
    # 4 new first attempts (sample 1), then a feedback round for each of the 8 failed samples
    assert len(model.requests) == 4 + 4 + 8
    feedback_turns = [r for r in model.requests if len(r.messages) == 3]
    assert len(feedback_turns) == 8 and all(r.messages[1]["content"] == "no" for r in feedback_turns)
    assert sorted({(r.sample, r.round) for r in read_records(run)}) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert extended.rounds == 1 and extended.complete


def test_a_run_records_where_it_was_computed(tmp_path: Path) -> None:
    run, summary = evaluate(EvalSpec(task="collie", model="scripted:s", where=WORDS, limit=1), tmp_path / "run",
                            model=ScriptedModel(["x"]))
    assert json.loads((run / "runtime.json").read_text()) == ["scripted outputs (no model)"]
    assert summary.runtimes == ["scripted outputs (no model)"]


def test_a_script_that_runs_out_leaves_the_run_incomplete_and_a_rerun_finishes_it(tmp_path: Path) -> None:
    run, summary = evaluate(EvalSpec(task="collie", model="scripted:s", where=WORDS, per_group=("structure", 2)),
                            tmp_path / "run", model=ScriptedModel(["a", "b"]))
    assert not summary.complete and len(read_records(run)) == 2
    errors = (run / "errors.jsonl").read_text().splitlines()
    assert len(errors) == 2 and "no output left" in errors[0]
    _, again = evaluate(EvalSpec(task="collie", model="scripted:s", where=WORDS, per_group=("structure", 2)), run,
                        model=ScriptedModel(["c", "d"]))
    assert again.complete and len(read_records(run)) == 4


def _brackets_task():
    from corral.grammars import Grammar, accepts
    from corral.tasks import Task, TaskInstance
    from corral.verdicts import Verdict, Violation

    grammar = Grammar.lark('start: e\ne: "(" e ")" | "x"\n%ignore " "\n')

    def check(instance, answer):
        return Verdict.of([] if accepts(grammar, answer) else [Violation("parses", "not balanced")])

    return Task(name="brackets", version="1", check=check, grammar=lambda instance: grammar,
                instances=lambda: [TaskInstance("a", "Nest.", None, max_tokens=3),
                                   TaskInstance("b", "Nest.", None, max_tokens=8)])


def test_a_constrained_output_cut_at_its_budget_is_closed_and_says_so(tmp_path: Path) -> None:
    """The scripted model's tokens are words, so "( ( ( x ) ) )" is cut after three of them."""
    task = _brackets_task()
    run, summary = evaluate(plan_run(EvalSpec(task=task.name, model="scripted:s", decoding="constrained"), task),
                            tmp_path / "run", model=ScriptedModel(["( ( ( x ) ) )", "( ( ( x ) ) )"]))
    by_id = {record.instance: record for record in read_records(run)}
    cut, whole = by_id["a"], by_id["b"]
    assert cut.finish_reason == "length" and cut.appended == "x)))" and cut.output == "( ( (x)))"
    assert cut.passed
    assert whole.finish_reason == "stop" and whole.appended == "" and whole.passed
    assert summary.counts.truncated == 1 and summary.counts.closed == 1
    free, free_summary = evaluate(plan_run(EvalSpec(task=task.name, model="scripted:s", decoding="free"), task),
                                  tmp_path / "free", model=ScriptedModel(["( ( ( x ) ) )", "( ( ( x ) ) )"]))
    assert free_summary.counts.closed == 0  # free decoding has no grammar to close with
    assert not {r.instance: r for r in read_records(free)}["a"].passed


def test_chains_run_a_batch_at_a_time_to_their_last_round(tmp_path: Path) -> None:
    """A batch's chains go through all their rounds before the next batch starts, so a local model (batch size 1)
    sees each feedback round right after the round it continues; the records are the same in any order."""
    orders = {}
    for size in (1, 2):
        model = ScriptedModel(_replies)
        run, summary = evaluate(EvalSpec(task="collie", model="scripted:s", where=WORDS, per_group=("structure", 1),
                                         rounds=2, batch_size=size), tmp_path / f"run{size}", model=model)
        assert summary.complete and len(model.requests) == 6
        first_turns = [r.messages[0]["content"] for r in model.requests]
        orders[size] = [(first_turns.index(turn), (len(r.messages) - 1) // 2)
                        for turn, r in zip(first_turns, model.requests, strict=True)]
        assert sorted((r.instance, r.round) for r in read_records(run)) == sorted(
            (r.instance, r.round) for r in read_records(tmp_path / "run1"))
    assert orders[1] == [(0, 0), (0, 1), (0, 2), (3, 0), (3, 1), (3, 2)]  # chain by chain
    assert orders[2] == [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2)]  # two chains in step
