"""``enforce``: the check budget for code that never ticks a meter (a library's validator, a parsing metric, any
task's checker), and ``Task.judge``, the one way the runner and the training rewards run a task's checker.

Time bounds here are generous (a loaded 2-core machine stretches them); what each test pins down is that the work
stops at all: every loop below would run for minutes or for ever without the budget."""

from __future__ import annotations

import dataclasses
import signal
import threading
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corral.constraints import Budget, BudgetExceeded, enforce
from corral.tasks import Judged, Task, TaskInstance
from corral.verdicts import Verdict, Violation


def _spin_forever() -> None:
    """Pure Python that never ticks a meter; it gives up after 30 s so that a broken budget fails the test (no
    ``BudgetExceeded``) instead of hanging the suite."""
    end = time.monotonic() + 30
    while time.monotonic() < end:
        pass


def test_a_loop_that_never_ticks_stops_at_the_deadline() -> None:
    started = time.monotonic()
    with pytest.raises(BudgetExceeded, match=r"more than 0\.3 s"), enforce(Budget(seconds=0.3)) as meter:
        _spin_forever()
    assert meter.exceeded == "the check took more than 0.3 s"
    assert time.monotonic() - started < 0.3 + 3.0


@settings(max_examples=5, deadline=None)
@given(seconds=st.floats(min_value=0.05, max_value=0.4))
def test_any_small_time_budget_is_kept(seconds: float) -> None:
    started = time.monotonic()
    with pytest.raises(BudgetExceeded), enforce(Budget(seconds=seconds)):
        _spin_forever()
    assert time.monotonic() - started < seconds + 3.0


def test_a_checker_that_swallows_the_exception_still_ends_undecided() -> None:
    """Each look raises again, so a loop that catches every exception per item is cut item by item and ends; the
    meter keeps the reason, and ``Task.judge`` reports it however the checker returned."""

    def stubborn(instance: TaskInstance, answer: str) -> Verdict[Any]:
        for _ in range(40):
            try:
                _spin_forever()
            except Exception:
                continue
        return Verdict.of([])  # "passed", after swallowing 40 budget errors

    verdict = _task(stubborn).verdict(TaskInstance("a", "prompt", None), "text", Budget(seconds=0.2))
    assert not verdict.passed and verdict.undecided == "the check took more than 0.2 s"


def test_a_timer_already_running_is_put_back_with_the_time_it_had_left() -> None:
    fired: list[int] = []

    def watchdog(signum: int, frame: Any) -> None:
        fired.append(signum)

    previous = signal.signal(signal.SIGALRM, watchdog)
    try:
        signal.setitimer(signal.ITIMER_REAL, 30.0)
        with enforce(Budget(seconds=5)):
            time.sleep(0.2)
        assert signal.getsignal(signal.SIGALRM) is watchdog
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 25.0 < left < 29.9
        assert not fired
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_after_the_block_no_timer_is_left_behind() -> None:
    before = signal.getsignal(signal.SIGALRM)
    with enforce(Budget(seconds=5)):
        sum(range(1000))
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is before


def test_an_inner_enforce_leaves_the_outer_timer_in_charge() -> None:
    with pytest.raises(BudgetExceeded, match=r"0\.3 s"), enforce(Budget(seconds=0.3)), enforce(Budget(seconds=60)):
        _spin_forever()


def test_outside_the_main_thread_the_block_runs_without_a_timer() -> None:
    seen: list[Any] = []

    def work() -> None:
        with enforce(Budget(seconds=0.05)) as meter:
            time.sleep(0.3)  # past the budget, and nothing interrupts it
            seen.append(meter.exceeded)
            seen.append(signal.getitimer(signal.ITIMER_REAL))

    thread = threading.Thread(target=work)
    thread.start()
    thread.join(10)
    assert seen == [None, (0.0, 0.0)]


# ------------------------------------------------------------------------------------------------ Task.judge


def _task(check: Any) -> Task:
    return Task(name="t", version="1", instances=lambda: [], check=check, grammar=lambda instance: None)


def test_judge_gives_the_answer_the_verdict_and_the_quality() -> None:
    def check(instance: TaskInstance, answer: str) -> Verdict[Any]:
        return Verdict.of([] if answer == "yes" else [Violation("word", "say yes")])

    def quality(instance: TaskInstance, answer: str) -> dict[str, float]:
        return {"length": float(len(answer))}

    task = dataclasses.replace(_task(check), marker="Answer:", quality=quality)
    instance = TaskInstance("a", "prompt", None)
    judged = task.judge(instance, "thinking... Answer:yes")
    assert judged == Judged("yes", judged.verdict, {"length": 3.0}) and judged.verdict.passed
    assert task.judge(instance, "Answer:no").verdict.violations[0].rule == "word"
    assert task.judge(instance, "Answer:no", quality=False).quality == {}


def test_a_checker_that_raises_fails_that_answer_only() -> None:
    def check(instance: TaskInstance, answer: str) -> Verdict[Any]:
        raise KeyError("surprise")

    verdict = _task(check).judge(TaskInstance("a", "p", None), "x").verdict
    assert not verdict.passed and verdict.undecided is None
    assert verdict.violations[0].rule == "checker-error" and "KeyError" in verdict.violations[0].message


def test_judge_refuses_an_answer_past_max_chars_without_checking_it() -> None:
    def check(instance: TaskInstance, answer: str) -> Verdict[Any]:
        raise AssertionError("checked an answer past the limit")

    verdict = _task(check).verdict(TaskInstance("a", "p", None), "x" * 101, Budget(max_chars=100))
    assert verdict.undecided == "the output has 101 characters; the limit is 100"
    assert not verdict.passed and verdict.score == 0.0


def test_judge_stops_a_library_validator_that_is_quadratic_in_the_sample() -> None:
    """jsonschema's ``uniqueItems`` over objects compares every pair: 8,000 objects took 95 s."""
    from corral.schema import validate

    sample = [{"a": i} for i in range(20_000)]

    def check(instance: TaskInstance, answer: str) -> Verdict[Any]:
        errors = validate({"uniqueItems": True}, sample)
        return Verdict.of([Violation("schema", str(error)) for error in errors])

    started = time.monotonic()
    verdict = _task(check).verdict(TaskInstance("a", "p", None), "[...]", Budget(seconds=0.5))
    assert verdict.undecided == "the check took more than 0.5 s"
    assert time.monotonic() - started < 0.5 + 5.0
