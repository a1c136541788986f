"""Every shipped FormatBench instance, whatever its task: it validates, its gold passes the strict checker, and its
gold scores the best quality there is (so data, checkers and metrics agree)."""

from __future__ import annotations

from pathlib import Path

import pytest
from scripts.formatbench.build_misc import build_ftime, build_xdl

from corral.evaluation import SampleRecord, aggregate_quality
from corral.suites.formatbench import (
    TASKS,
    InstanceError,
    check_format,
    data_file,
    encode_rows,
    get_format_task,
    load_instances,
    shipped_tasks,
    validate_row,
    write_instances,
)

ROOT = Path(__file__).resolve().parents[3]
SHARED = ROOT.parent / "shared" / "data"
MINIMUM_TEST = {"xdl": 100, "mtt": 90}  # Chem-EDU has 40 (+ 60 Chem-RnD); MTT is written by hand


def test_all_ten_tasks_are_shipped_with_enough_test_instances():
    assert set(TASKS) <= set(shipped_tasks())
    for task in TASKS:
        test = list(load_instances(task, "test"))
        assert len(test) >= MINIMUM_TEST.get(task, 100), task
        assert 2 <= len(list(load_instances(task, "fewshot"))) <= 4, task
    for task in ("ner", "capseg"):  # the tasks that need training data have it
        assert len(list(load_instances(task, "train"))) >= 1000


@pytest.mark.parametrize("task", TASKS)
def test_every_gold_passes_its_strict_checker_and_scores_best(task):
    rows = list(load_instances(task, split=None))
    failures, records = [], []
    for row in rows:
        validate_row(task, row)
        if row["gold"] is None:
            assert task == "xdl" and row["split"] == "test"  # the source has no XDL references
            continue
        verdict = check_format(task, row, row["gold"])
        if not verdict.passed:
            failures.append((row["id"], verdict.feedback))
        metric = get_format_task(task).quality
        if metric is not None and task != "agent":  # a game step's gold scores the game's score then, not the maximum
            quality = metric(row, row["gold"])
            records.append(SampleRecord(instance=row["id"], sample=0, round=0, passed=True, score=1.0, messages=[],
                                        output=row["gold"], answer=row["gold"], quality=quality))
    assert not failures, failures[:3]
    if records:
        best = aggregate_quality(records)
        perfect = {name: pytest.approx(100.0 if name.endswith("bleu") else 1.0) for name in best}
        assert best == perfect


def test_a_bad_instance_names_task_id_and_field():
    row = next(load_instances("ner"))
    del row["tokens"], row["text"]
    with pytest.raises(InstanceError, match=r"ner instance ner-test-\d+: missing field 'text'"):
        check_format("ner", row, "x")
    with pytest.raises(InstanceError, match=r"mtt instance m1: missing field 'src'"):
        check_format("mtt", {"id": "m1", "terms": {}}, "x")
    with pytest.raises(InstanceError, match="mcq instance q: missing field 'gold'"):
        validate_row("mcq", {"id": "q", "task": "mcq", "split": "test", "input": "", "source": "", "labels": []})


def test_ftime_rows_rebuild_identically():
    shipped = (ROOT / "src/corral/suites/formatbench/data" / data_file("ftime")).read_bytes()
    assert encode_rows(build_ftime()) == shipped


@pytest.mark.skipif(not SHARED.is_dir(), reason="shared data not present")
def test_xdl_rows_rebuild_identically():
    shipped = (ROOT / "src/corral/suites/formatbench/data" / data_file("xdl")).read_bytes()
    assert encode_rows(build_xdl(SHARED)) == shipped


@pytest.mark.parametrize("task", shipped_tasks())
def test_writing_the_shipped_rows_again_gives_the_shipped_bytes(task, tmp_path):
    shipped = (ROOT / "src/corral/suites/formatbench/data" / data_file(task)).read_bytes()
    assert write_instances(task, reversed(list(load_instances(task, split=None))), tmp_path).read_bytes() == shipped
