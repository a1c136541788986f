"""Run records keep each verdict whole, and reports count the most violated rules, per task where there are tasks."""

from __future__ import annotations

from pathlib import Path

from corral.evaluation import EvalSpec, evaluate, read_records, write_report
from corral.models import ScriptedModel
from corral.verdicts import Verdict


def test_formatbench_records_carry_full_violations_and_the_report_ranks_rules(tmp_path: Path) -> None:
    run, summary = evaluate(EvalSpec(task="formatbench", model="scripted:s", where={"task": ["mcq", "ner"]},
                                     per_group=("task", 2)), tmp_path / "run", model=ScriptedModel(lambda request,
                                                                                                   i: "E) maybe"))
    records = read_records(run)
    assert len(records) == 4 and not any(record.passed for record in records)
    for record in records:
        verdict = Verdict.from_json(record.model_dump())
        assert verdict.violations and all(v.rule and v.message for v in verdict.violations)
        assert record.feedback == verdict.feedback
    assert any("span" in v for record in records for v in record.violations)
    by_task = summary.by_group_violated_rules["task"]
    assert set(by_task) == {"mcq", "ner"} and all(rules and rules[0].count >= 1 for rules in by_task.values())
    assert summary.violated_rules[0].count >= summary.violated_rules[-1].count
    report = write_report([run], tmp_path / "report").read_text()
    assert "## Most violated rules" in report and "### By task" in report
    top = summary.violated_rules[0]
    assert f"`{top.rule}` | {top.count} (" in report


def test_concode_records_name_the_broken_keyword_and_where(tmp_path: Path) -> None:
    wrong_type, _ = evaluate(EvalSpec(task="concode-gen", model="scripted:s", limit=1), tmp_path / "a",
                             model=ScriptedModel(["```json\n[1, 2]\n```"]))
    [record] = read_records(wrong_type)
    assert record.violations[0]["rule"] == "type" and record.violations[0]["path"] == "/"
    assert record.detail["parse_error"] is None and record.detail["root_type_ok"] is False
    not_a_sample, _ = evaluate(EvalSpec(task="concode-gen", model="scripted:s", limit=1), tmp_path / "b",
                               model=ScriptedModel(["nothing here {"]))
    [record] = read_records(not_a_sample)
    assert [v["rule"] for v in record.violations] == ["parse"] and record.detail["parse_error"]
