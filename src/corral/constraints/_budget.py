"""A check's budget: how much time, memory and text one check of untrusted input may take.

Why a check needs one: constraints compose, so a short spec can ask for a great deal of work (three nested
for-eachs over a 300-word text are 27 million evaluations), a regular expression can backtrack for ever, and a
text can be any size. A check past its budget is *not decided*: ``check`` returns a verdict that says so
(``Verdict.undecided``) instead of running on, and a batch moves to its next line.

The budget is enforced cooperatively: every evaluated node ticks a ``Meter``, which looks at the clock and the
process's resident memory every ``LOOK_EVERY`` ticks, and a regex gets the time left as its own timeout (one
deadline for the whole check, not one per unit). A checker that is not Corral's own loop (jsonschema validating a
sample, a parsing metric, any task's checker) cannot tick; ``enforce`` bounds it from outside with an interval
timer that looks at the same meter and raises ``BudgetExceeded`` in the running Python code.
"""

from __future__ import annotations

import math
import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from corral.errors import CorralError

__all__ = ["DEFAULT_BUDGET", "Budget", "BudgetExceeded", "Meter", "enforce"]

LOOK_EVERY = 512
"""Ticks between two looks at the clock and the memory (a look costs about a microsecond)."""


@dataclass(frozen=True)
class Budget:
    """Limits on one check.

    Attributes:
        seconds: wall-clock time for the whole check, segmentation and regexes included.
        memory_mb: how much the process's resident memory may grow during the check.
        max_chars: the longest text checked at all; a longer one is refused before any work.
        max_steps: how many constraint nodes one check may evaluate (a for-each over n units evaluates its body
            n times).
    """

    seconds: float = 10.0
    memory_mb: float = 1024.0
    max_chars: int = 2_000_000
    max_steps: int = 2_000_000

    def __post_init__(self) -> None:
        if not (self.seconds > 0 and self.memory_mb > 0 and self.max_chars > 0 and self.max_steps > 0):
            raise ValueError(f"a budget's limits must all be positive, got {self}")

    @classmethod
    def unlimited(cls) -> Budget:
        """No limits: for trusted input only (tests, the extractor over a vetted corpus)."""
        return cls(math.inf, math.inf, 2**62, 2**62)


DEFAULT_BUDGET = Budget()


class BudgetExceeded(CorralError):
    """A check ran past its budget; ``reason`` says which limit, in words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _resident_bytes() -> int:
    """The process's resident memory now (Linux's /proc), else its peak so far (any POSIX)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        try:
            import resource

            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        except (ImportError, OSError):  # pragma: no cover - Windows has neither
            return 0


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096

BASELINE_SECONDS = 0.05
"""How long a reading of the resident memory serves as the starting point of new checks: reading /proc costs about
10 µs, a fifth of a typical check, and a baseline 50 ms old is as good a start for a limit of a gigabyte."""

_baseline = [-math.inf, 0]  # [when read (monotonic), resident bytes]


def _baseline_bytes(now: float) -> int:
    """The resident memory, read again only when the last reading is older than ``BASELINE_SECONDS``."""
    if now - _baseline[0] > BASELINE_SECONDS:
        _baseline[0], _baseline[1] = now, _resident_bytes()
    return int(_baseline[1])


class Meter:
    """One check's running account against its ``Budget``."""

    __slots__ = ("_next_look", "_rss_limit", "budget", "deadline", "exceeded", "steps")

    def __init__(self, budget: Budget) -> None:
        now = time.monotonic()
        self.budget = budget
        self.deadline = now + budget.seconds
        self.steps = 0
        self.exceeded: str | None = None  # set by ``enforce``'s timer when it stopped the check
        self._next_look = LOOK_EVERY
        growth = budget.memory_mb * 2**20
        self._rss_limit = _baseline_bytes(now) + growth if math.isfinite(growth) else math.inf

    def tick(self) -> None:
        """Count one evaluation; past a limit, raise ``BudgetExceeded``."""
        self.steps += 1
        if self.steps >= self._next_look:
            self.look()

    def look(self) -> None:
        """Compare the account with every limit now."""
        self._next_look = self.steps + LOOK_EVERY
        reason = self.over()
        if reason is not None:
            raise BudgetExceeded(reason)

    def over(self) -> str | None:
        """Which limit the check is past now, in words, or None."""
        budget = self.budget
        if self.steps > budget.max_steps:
            return f"more than {budget.max_steps:,} evaluations (a for-each over many units, nested?)"
        if time.monotonic() > self.deadline:
            return f"the check took more than {budget.seconds:g} s"
        if _resident_bytes() > self._rss_limit:
            return f"the check needed more than {budget.memory_mb:g} MB of memory"
        return None

    def seconds_left(self) -> float:
        """Time left before the deadline (a small positive number when it has passed, so a regex fails at once)."""
        left = self.deadline - time.monotonic()
        return left if left > 0.001 else 0.001


ALARM_EVERY = 0.05
"""Seconds between two looks of ``enforce``'s timer: a check overruns its time by at most about this much (plus
whatever one call into C code, such as a regex match, takes before Python runs again)."""

_enforcing = threading.local()


@contextmanager
def enforce(budget: Budget) -> Iterator[Meter]:
    """Run the block under ``budget`` even when its code never ticks a meter: a library's validator, a parsing
    metric, a task's checker. In the main thread an interval timer (``SIGALRM``, every ``ALARM_EVERY`` seconds)
    looks at the meter and, past a limit, records the reason in ``meter.exceeded`` and raises ``BudgetExceeded``
    from whatever Python code is running; it raises again at each look, so a checker that swallows exceptions still
    stops. The caller turns the exception (or ``meter.exceeded``, when a checker caught it and returned) into the
    undecided verdict.

    Where no timer can be used (another thread, a platform without ``setitimer``) and inside another ``enforce``,
    the block runs with the cooperative meter only (the meter is yielded; the text size is the caller's to check).
    A timer that was already set (a test's watchdog) is put back on exit with the time it had left."""
    meter = Meter(budget)
    usable = (hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
              and not getattr(_enforcing, "active", False) and math.isfinite(budget.seconds))
    if not usable:
        yield meter
        return

    finished = [False]  # set first thing on the way out: a look that is already pending then does nothing

    def look(signum: int, frame: Any) -> None:
        if finished[0]:
            return
        reason = meter.over()
        if reason is not None:
            meter.exceeded = meter.exceeded or reason
            raise BudgetExceeded(meter.exceeded)

    started = time.monotonic()
    previous_handler = signal.signal(signal.SIGALRM, look)
    previous_delay, previous_interval = signal.setitimer(signal.ITIMER_REAL, ALARM_EVERY, ALARM_EVERY)
    _enforcing.active = True
    try:
        yield meter
    finally:
        finished[0] = True
        signal.setitimer(signal.ITIMER_REAL, 0)
        _enforcing.active = False
        signal.signal(signal.SIGALRM, previous_handler if previous_handler is not None else signal.SIG_DFL)
        if previous_delay > 0:
            left = previous_delay - (time.monotonic() - started)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6), previous_interval)
