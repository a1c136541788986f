"""A check's budget: time, memory, steps and text size bound every check, and a check past its budget is not
decided (a verdict of its own kind), never a hang or a crash."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corral.constraints import DEFAULT_BUDGET, Budget, BudgetExceeded, check, enforce, parse
from corral.verdicts import Verdict

THREE_DEEP = parse("all(text, word, all(text, word, all(text, word, count(unit, char) >= 1)))")
TEXT = " ".join(["word"] * 300)


def test_nested_for_eachs_stop_at_the_time_budget():
    started = time.monotonic()
    verdict = check(THREE_DEEP, TEXT, budget=Budget(seconds=1.0))
    elapsed = time.monotonic() - started
    assert verdict.undecided and "1 s" in verdict.undecided
    assert not verdict.passed and verdict.score == 0.0
    assert verdict.violations[0].rule == "budget" and verdict.feedback.startswith("not decided")
    # the budget and one look's worth of work past it, with room for a loaded machine (a 2.04 s run was seen under
    # pytest -n 2); the whole check is 300**3 = 27 million evaluations, minutes, so a budget not kept still fails
    assert elapsed < 1.0 + 4.0


def test_the_step_budget_counts_evaluations():
    verdict = check(THREE_DEEP, TEXT, budget=Budget(max_steps=10_000))
    assert verdict.undecided and "10,000 evaluations" in verdict.undecided
    small = check(THREE_DEEP, "a b c", budget=Budget(max_steps=10_000))  # 1 + 3 + 9 + 27 nodes
    assert small.passed and small.undecided is None


def test_the_memory_budget_is_enforced(monkeypatch: pytest.MonkeyPatch):
    import corral.constraints._budget as budget  # its reading of the process's size, replaced (no public knob)

    sizes = iter(range(0, 10**12, 2**30))  # each look finds the process a GiB larger
    monkeypatch.setattr(budget, "_resident_bytes", lambda: next(sizes))
    verdict = check(THREE_DEEP, TEXT, budget=Budget(memory_mb=1500))
    assert verdict.undecided and "1500 MB" in verdict.undecided


def test_the_memory_baseline_is_read_again_only_when_older_than_its_window(monkeypatch: pytest.MonkeyPatch):
    """Reading /proc per check was a sixth of a COLLIE check; a reading serves new checks for BASELINE_SECONDS."""
    import types

    import corral.constraints._budget as budget  # its reading of the process's size, replaced (no public knob)

    clock = types.SimpleNamespace(now=1000.0)
    monkeypatch.setattr(budget, "time", types.SimpleNamespace(monotonic=lambda: clock.now))
    monkeypatch.setattr(budget, "_baseline", [float("-inf"), 0])
    reads = iter(range(2**30, 10**12, 2**30))  # each reading finds the process a GiB larger
    seen: list[int] = []
    monkeypatch.setattr(budget, "_resident_bytes", lambda: seen.append(next(reads)) or seen[-1])
    meters = [budget.Meter(Budget(memory_mb=1)) for _ in range(50)]
    assert len(seen) == 1 and {m._rss_limit for m in meters} == {2**30 + 2**20}
    clock.now += budget.BASELINE_SECONDS / 2
    assert budget.Meter(Budget(memory_mb=1))._rss_limit == 2**30 + 2**20 and len(seen) == 1
    clock.now += budget.BASELINE_SECONDS
    assert budget.Meter(Budget(memory_mb=1))._rss_limit == 2 * 2**30 + 2**20 and len(seen) == 2


def test_the_memory_budget_stops_growth(monkeypatch: pytest.MonkeyPatch) -> None:
    import corral.constraints._budget as budget  # its reading of the process's size, replaced (no public knob)

    sizes = iter(range(0, 10**15, 2**28))  # each look finds the process 256 MiB larger
    monkeypatch.setattr(budget, "_resident_bytes", lambda: next(sizes))
    monkeypatch.setattr(budget, "_baseline", [float("-inf"), 0])
    with pytest.raises(BudgetExceeded, match="more than 512 MB"), enforce(Budget(memory_mb=512)):
        end = time.monotonic() + 30  # pure Python that never ticks a meter; 30 s at most if the budget is broken
        while time.monotonic() < end:
            pass


def test_a_text_past_the_size_limit_is_refused_before_any_work():
    verdict = check(parse("count(text, word) >= 1"), "x" * 101, budget=Budget(max_chars=100))
    assert verdict.undecided == "the text is 101 characters; the limit is 100"


def test_one_regex_deadline_for_the_whole_check():
    """A regex over many units shares the check's deadline: it does not get a fresh timeout per unit."""
    spec = parse("all(text, word, regex(unit, '^(a|aa)+$'))")
    text = " ".join(["a" * 26 + "b"] * 400)
    started = time.monotonic()
    verdict = check(spec, text, budget=Budget(seconds=1.0))
    assert time.monotonic() - started < 3.0
    assert verdict.undecided or not verdict.passed


def test_undecided_verdicts_round_trip_through_json():
    verdict = check(THREE_DEEP, TEXT, budget=Budget(max_steps=1000))
    again = Verdict.from_json(verdict.to_json())
    assert again.undecided == verdict.undecided and not again.passed
    assert check(parse("count(text, word) == 1"), "x").to_json().get("undecided") is None


def test_budget_values_are_checked():
    with pytest.raises(ValueError, match="positive"):
        Budget(seconds=0)
    assert DEFAULT_BUDGET.seconds == 10.0 and Budget.unlimited().max_steps > 10**15


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 3), st.integers(1, 12))
def test_a_decided_check_is_the_same_under_any_budget_that_suffices(depth: int, words: int):
    """The budget only decides whether a verdict is given, never what it is."""
    body = "count(unit, char) >= 2"
    for _ in range(depth):
        body = f"all(text, word, {body})"
    spec = parse(body)
    text = " ".join(["ab"] * words)
    unlimited = check(spec, text, budget=Budget.unlimited())
    tight = check(spec, text, budget=Budget(seconds=60, max_steps=2 * words**depth + 10))
    assert tight.undecided is None and tight.passed == unlimited.passed and tight.score == unlimited.score
