"""The before/after report: its error bars (a seeded percentile bootstrap over instances), and rows kept with
their per-instance outputs, FFR counted as passed as written."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from corral.evaluation import SampleRecord
from corral.training import bootstrap, comparison_row, held_out_output, recompute_row


@given(st.lists(st.sampled_from([0.0, 1.0]), min_size=1, max_size=60))
def test_the_interval_holds_the_mean_and_is_reproducible(values):
    low, high = bootstrap(values)
    mean = sum(values) / len(values)
    assert 0.0 <= low <= mean <= high <= 1.0
    assert bootstrap(values) == (low, high)


def test_the_interval_narrows_with_more_instances():
    small = bootstrap([1.0, 0.0] * 5)
    large = bootstrap([1.0, 0.0] * 200)
    assert large[1] - large[0] < small[1] - small[0]
    assert bootstrap([1.0] * 7) == (1.0, 1.0)
    assert bootstrap([]) == (0.0, 0.0)


def _record(instance: str, *, passed: bool, quality: float | None = None, finish: str = "stop",
            appended: str = "") -> SampleRecord:
    return SampleRecord(instance=instance, sample=0, round=0, messages=[], output="text" + appended, answer="text",
                        passed=passed, score=float(passed), finish_reason=finish, appended=appended,
                        written_passed=False if appended else None,
                        violations=[] if passed else [{"rule": "r", "message": "m"}],
                        quality={} if quality is None else {"f1": quality})


def test_ffr_counts_passes_as_written_and_keeps_the_outputs():
    records = [_record("a", passed=True, quality=0.5),
               _record("b", passed=True, quality=0.0),  # the model's pass with quality 0: reward hacking
               _record("c", passed=True, quality=0.0, finish="length", appended=")"),  # closed: not the model's
               _record("d", passed=False, quality=0.25, finish="length")]
    row = comparison_row("base", "formatbench:eqa", "constrained", [held_out_output(r) for r in records], "f1")
    assert row["ffr"] == 0.5 and row["passed_quality_zero"] == 1
    assert row["truncated"] == 2 and row["closed"] == 1 and row["quality"] == 0.1875
    assert [o["instance"] for o in row["outputs"]] == ["a", "b", "c", "d"]
    c = row["outputs"][2]
    assert c["passed"] and not c["passed_as_written"] and c["output"] == "text)" and c["appended"] == ")"
    assert row["outputs"][3]["violations"] == [{"rule": "r", "message": "m"}]


def test_a_row_is_recomputed_from_its_outputs_alone():
    records = [_record(str(i), passed=i % 3 == 0, quality=i / 10) for i in range(10)]
    row = json.loads(json.dumps(comparison_row("m", "t", "free", [held_out_output(r) for r in records], "f1")))
    assert recompute_row(row) == row
    row["outputs"][1]["passed_as_written"] = True  # an edited verdict moves the figures
    assert recompute_row(row)["ffr"] != row["ffr"]
    no_quality = comparison_row("m", "collie:sent04", "free", [held_out_output(_record("x", passed=True))], None)
    assert no_quality["quality"] is None and no_quality["passed_quality_zero"] is None
