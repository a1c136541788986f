"""Thread counts: ``CORRAL_THREADS`` when set, else one thread per CPU that other processes leave free."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corral.models import (
    THREADS_VARIABLE,
    WINDOW_SECONDS,
    CpuTimes,
    ModelError,
    ThreadGovernor,
    choose_threads,
    default_threads,
    thread_policy,
    usable_cpus,
)

linux = pytest.mark.skipif(CpuTimes.now() is None, reason="needs Linux's /proc CPU counters")


def test_a_set_value_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(THREADS_VARIABLE, " 3 ")
    assert default_threads() == 3
    assert ThreadGovernor().threads() == 3 and not ThreadGovernor().adaptive
    assert thread_policy()["policy"] == f"fixed by {THREADS_VARIABLE}=3"


@pytest.mark.parametrize("raw", ["0", "-2", "two", "1.5"])
def test_a_bad_value_is_named(monkeypatch: pytest.MonkeyPatch, raw: str) -> None:
    monkeypatch.setenv(THREADS_VARIABLE, raw)
    with pytest.raises(ModelError, match=f"CORRAL_THREADS={raw!r}"):
        default_threads()


def test_xdist_workers_get_their_share() -> None:
    workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT")
    if workers is None:
        pytest.skip("not under pytest-xdist")
    assert int(os.environ[THREADS_VARIABLE]) == max(1, usable_cpus() // int(workers))


@given(st.integers(1, 256), st.floats(0, 512, allow_nan=False))
def test_one_thread_per_free_cpu_and_never_none(cpus: int, busy: float) -> None:
    threads = choose_threads(cpus, busy)
    assert 1 <= threads <= cpus
    assert choose_threads(cpus, busy + 1) <= threads  # more load elsewhere never means more threads
    if busy < 0.39:
        assert threads == cpus  # background noise takes no core
    if busy >= cpus:
        assert threads == 1


def test_a_core_counts_as_taken_from_four_tenths_of_it() -> None:
    assert [choose_threads(2, busy) for busy in (0.0, 0.39, 0.41, 1.0, 1.39, 1.41, 3.0)] == [2, 2, 1, 1, 1, 1, 1]
    assert [choose_threads(8, busy) for busy in (0.0, 1.0, 2.5, 7.9)] == [8, 7, 5, 1]


def test_counters_read_over_too_short_a_window_say_nothing() -> None:
    mark = CpuTimes(busy=0, total=0, own=0, cpus=2)
    assert CpuTimes(busy=10, total=20, own=0, cpus=2).others_busy(mark) is None  # 0.1 s per CPU
    # 0.5 s per CPU, 60 ticks busy of which 20 this process's: 0.8 CPU's worth elsewhere
    assert CpuTimes(busy=60, total=100, own=20, cpus=2).others_busy(mark) == pytest.approx(0.8)
    assert CpuTimes(busy=10, total=100, own=30, cpus=2).others_busy(mark) == 0.0  # never below zero


@linux
def test_the_governor_sees_another_busy_process_and_not_its_own_work(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(THREADS_VARIABLE, raising=False)
    own_start = CpuTimes.now()
    spin_until = time.monotonic() + 2 * WINDOW_SECONDS
    while time.monotonic() < spin_until:  # this process is busy: not counted as another's load
        pass
    own_end = CpuTimes.now()
    assert own_start is not None and own_end is not None
    assert own_end.own - own_start.own >= 10  # our own spinning's ticks were seen as ours (a busy CI shares)
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.3)
        governor = ThreadGovernor()
        assert governor.adaptive
        time.sleep(3 * WINDOW_SECONDS)
        before = CpuTimes.now()
        time.sleep(3 * WINDOW_SECONDS)
        others = CpuTimes.now().others_busy(before)  # type: ignore[union-attr]
        assert others is not None and others >= 0.5  # the child kept much of a CPU busy (beside xdist's other worker)
        assert governor.threads() <= max(1, usable_cpus() - 1)
    finally:
        busy.kill()
        busy.wait()
