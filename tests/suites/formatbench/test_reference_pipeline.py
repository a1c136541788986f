"""Reference mode end to end: the runner's verdict on a raw output (extraction included) is the published
checker's verdict on that output, for every task; and a task without a grammar falls back to free decoding."""

from __future__ import annotations

from pathlib import Path

from corral.evaluation import EvalSpec, evaluate, plan_run, read_records
from corral.models import ScriptedModel
from corral.suites.formatbench import TASKS, check_format
from corral.tasks import get_task, select


def _variants(gold: str) -> list[str]:
    """Raw outputs a model writes around an answer: as is, after a blank line, after a preamble, with chatter
    after it, indented, with a trailing tab or carriage return."""
    return [gold, "\n" + gold, "Answer:\n" + gold, gold + "\n\nI hope this helps.", "  " + gold, gold + "\t",
            gold + "\r"]


def test_the_pipeline_gives_the_reference_verdict_on_the_raw_output(tmp_path: Path) -> None:
    task = get_task("formatbench", checker_mode="reference")
    assert task.extract == "raw"
    instances = select(task, per_group=("task", 1))
    outputs = {inst.id: _variants(str(inst.target.get("gold") or "<XDL></XDL>")) for inst in instances}
    for k in range(len(_variants(""))):
        def script(request, i, k=k):
            prompt = request.messages[-1]["content"]
            [inst] = [inst for inst in instances if prompt.endswith(inst.target["input"] + "\nAnswer:")]
            return outputs[inst.id][k]

        run, _ = evaluate(plan_run(EvalSpec(task=task.name, model="scripted:s", per_group=("task", 1)), task),
                          tmp_path / f"run{k}", model=ScriptedModel(script))
        records = {record.instance: record for record in read_records(run)}
        for inst in instances:
            record = records[inst.id]
            published = check_format(inst.target["task"], inst.target, record.output, "reference").passed
            assert record.answer == record.output  # nothing stripped or cut before the checker
            assert record.passed is published, (inst.id, repr(record.output))


def test_strict_mode_judges_the_stripped_answer() -> None:
    task = get_task("formatbench")
    assert task.extract == "whole"
    [inst] = select(task, {"task": ["mcq"]}, limit=1)
    assert task.check(inst, task.answer("\n" + inst.target["gold"] + "\n")).passed


def test_every_task_has_a_grammar_or_falls_back_with_the_reason(tmp_path: Path) -> None:
    task = get_task("formatbench")
    instances = select(task, per_group=("task", 1))
    spec = EvalSpec(task=task.name, model="scripted:s", decoding="constrained", per_group=("task", 1))
    run, _ = evaluate(plan_run(spec, task), tmp_path / "run", model=ScriptedModel(lambda request, i: "x"))
    records = {record.instance: record for record in read_records(run)}
    assert len(records) == len(TASKS) == len(instances)
    for inst in instances:
        record = records[inst.id]
        if record.decoding == "free-fallback":
            assert record.fallback_reason and inst.target["task"] in record.fallback_reason
        else:
            assert record.decoding == "constrained" and record.fallback_reason is None
            assert inst.groups["enforcement"] != "none"
