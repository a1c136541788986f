"""A run records the task's resolved options, and a run is judged again from them: the task is rebuilt from its
declared options (not what the task adds itself, such as formatbench's BLEU signature) and the recorded answer
extraction. The scripted model stands in for a real one."""

from __future__ import annotations

from pathlib import Path

from corral.evaluation import EvalSpec, evaluate, plan_run, read_config, read_records, rejudge
from corral.models import ScriptedModel
from corral.tasks import get_task


def test_a_formatbench_run_is_judged_again_from_its_recorded_options(tmp_path: Path) -> None:
    task = get_task("formatbench", checker_mode="reference", shots="0", extract="first_line")
    run, _ = evaluate(plan_run(EvalSpec(task=task.name, model="scripted:s", where={"task": ["ftime"]}, limit=2), task),
                      tmp_path / "run", model=ScriptedModel(lambda request, i: "x\ny"))
    config = read_config(run)
    assert config.task_options["checker_mode"] == "reference" and config.task_options["shots"] == 0
    assert "bleu" in config.task_options and config.extract == "first_line"
    records = read_records(run)
    judged = rejudge(config, records)
    assert [r.answer for r in judged] == ["x", "x"]  # the recorded extraction, not the task's default (whole)
    assert [r.passed for r in judged] == [r.passed for r in records]
