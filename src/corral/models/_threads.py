"""How many CPU threads a local backend computes with.

llama.cpp's threads meet at a barrier after every op (OpenMP's, which spins before it sleeps) and PyTorch's do
much the same: a thread whose core is taken by another process holds every sibling at the barrier. On 2 cores,
with one other busy process, the bundled model decoded 27 tokens/s with 2 threads and 48 with 1 (82 alone with
2); the issue that asked for this measured a 10x collapse on another machine. So the default is not "every
core" but **every core other processes leave free**, read from the kernel's CPU counters and decided again while
a model runs (``ThreadGovernor``). ``CORRAL_THREADS`` fixes the count for whoever runs several model processes
side by side and wants each to have its share (the test suite does, one share per pytest-xdist worker).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from ._protocol import ModelError

THREADS_VARIABLE = "CORRAL_THREADS"
WINDOW_SECONDS = 0.25
"""The shortest span the CPU counters are read over (they tick every 10 ms: shorter spans are mostly noise)."""
PACE_TOKENS = 16
"""A decoding model asks its governor again every this many tokens (about 0.2 s of the bundled model)."""
BUSY_SHARE = 0.4
"""A core counts as taken when other processes used at least this share of one over the window."""


def usable_cpus() -> int:
    """The CPUs this process may run on (taskset and cgroup cpusets included)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def fixed_threads() -> int | None:
    """``CORRAL_THREADS`` when set (a positive integer), else None (the count adapts to the machine's load)."""
    raw = os.environ.get(THREADS_VARIABLE, "").strip()
    if not raw:
        return None
    try:
        threads = int(raw)
    except ValueError:
        threads = 0
    if threads < 1:
        raise ModelError(f"{THREADS_VARIABLE}={raw!r}: expected a positive whole number of threads")
    return threads


def default_threads() -> int:
    """The thread count for a backend that decides once (PyTorch's, an embedding model's): ``CORRAL_THREADS``
    when set, else the usable CPUs that other processes leave free now (read over a short window)."""
    return int(thread_policy()["now"])  # type: ignore[call-overload]


@dataclass(frozen=True)
class CpuTimes:
    """The kernel's counters at one moment, in clock ticks: busy and all time of the usable CPUs, and this
    process's own CPU time (its threads' spinning included, so it is never mistaken for another process)."""

    busy: int
    total: int
    own: int
    cpus: int

    @classmethod
    def now(cls) -> CpuTimes | None:
        """The counters now; None where the kernel does not expose them (not Linux)."""
        try:
            cpus = {f"cpu{n}" for n in os.sched_getaffinity(0)}
            with open("/proc/stat", encoding="ascii") as f:
                lines = [line.split() for line in f if line.startswith("cpu")]
            with open("/proc/self/stat", encoding="ascii") as f:
                own_fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, AttributeError, IndexError):
            return None
        busy = total = counted = 0
        for fields in lines:
            if fields[0] not in cpus:
                continue
            # user nice system idle iowait irq softirq steal (guest time is already inside user)
            values = [int(v) for v in fields[1:9]]
            busy += values[0] + values[1] + values[2] + values[5] + values[6] + values[7]
            total += sum(values)
            counted += 1
        if not counted:
            return None
        return cls(busy=busy, total=total, own=int(own_fields[11]) + int(own_fields[12]), cpus=counted)

    def others_busy(self, since: CpuTimes) -> float | None:
        """How many CPUs' worth other processes used between ``since`` and now; None if too little time passed."""
        per_cpu = (self.total - since.total) / max(1, self.cpus)
        if per_cpu * 0.01 < WINDOW_SECONDS * 0.8:  # USER_HZ is 100 on every Linux that matters
            return None
        return max(0.0, (self.busy - since.busy) - (self.own - since.own)) / per_cpu


class ThreadGovernor:
    """Chooses a model's thread count from the CPUs other processes leave free, and chooses again as their load
    changes: ask ``threads()`` before each piece of work (a prompt, every few tokens); it is cheap (two small
    file reads at most every ``WINDOW_SECONDS``)."""

    def __init__(self, fixed: int | None = None) -> None:
        self.fixed = fixed if fixed is not None else fixed_threads()
        self.cpus = usable_cpus()
        self._mark = CpuTimes.now() if self.fixed is None else None
        self._chosen = self.fixed or self.cpus

    @property
    def adaptive(self) -> bool:
        return self.fixed is None and self._mark is not None

    def threads(self) -> int:
        if not self.adaptive:
            return self._chosen
        now = CpuTimes.now()
        if now is None or self._mark is None:
            return self._chosen
        others = now.others_busy(self._mark)
        if others is None:
            return self._chosen
        self._mark = now
        self._chosen = choose_threads(self.cpus, others)
        return self._chosen



def thread_policy() -> dict[str, object]:
    """What ``corral doctor`` says of threads: the count a model would take now, and why."""
    fixed = fixed_threads()
    cpus = usable_cpus()
    if fixed is not None:
        return {"now": fixed, "usable_cpus": cpus, "policy": f"fixed by {THREADS_VARIABLE}={fixed}"}
    before = CpuTimes.now()
    if before is None:
        return {"now": cpus, "usable_cpus": cpus, "policy": "every usable CPU (no CPU counters to adapt by)"}
    time.sleep(WINDOW_SECONDS)
    now = CpuTimes.now()
    others = now.others_busy(before) if now is not None else None
    others = others or 0.0
    return {"now": choose_threads(cpus, others), "usable_cpus": cpus, "busy_elsewhere": round(others, 2),
            "policy": f"adaptive: one thread per usable CPU that other processes leave free, decided again every "
                      f"{PACE_TOKENS} tokens while a model runs ({THREADS_VARIABLE}=N fixes the count)"}


def choose_threads(cpus: int, others_busy: float) -> int:
    """One thread per CPU that other processes leave free (at least one): a core they use ``BUSY_SHARE`` of or
    more counts as taken, since a thread that waits on it holds its siblings at every barrier."""
    taken = int(others_busy + (1 - BUSY_SHARE))
    return max(1, min(cpus, cpus - taken))
