"""A compile's budget: how long compiling one grammar may take and how large the grammar may be.

A grammar is built from untrusted input (a constraint, a schema, a task's instance), and a short input can ask for
a great deal of work: Corral's own compiler searches for a witness text, llguidance builds lexers from regex
derivatives. ``within_budget(compile, budget)`` runs any compile under a ``CompileBudget``; past either limit the
compile is ``NotExpressible`` with one line naming the limit, never a hang, so the runner decodes that instance
freely and records why, and ``corral generate`` / ``corral grammar`` exit 2.

The time limit reuses the check budget's mechanism (``corral.constraints.enforce``): in the main thread an interval
timer stops the compile from whatever Python code it is running; Corral's own loops (the witness search) also tick
the same meter, which bounds them in any thread. What neither can stop is one call into the engine's compiled code
(building a matcher, a mask step): llguidance bounds those with its lexer fuel (``LEXER_FUEL``, ``STEP_FUEL``), and
the budget is looked at again when the call returns. A compile that returns past its time (in another thread,
where no timer runs) is refused all the same.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar

from corral.constraints import Budget, BudgetExceeded, Meter, enforce

from ._grammar import MAX_GRAMMAR_CHARS, Grammar, NotExpressible

COMPILE_SECONDS = 120.0
"""The default time for one compile: five times the slowest shipped per-instance grammar. Of the 2,080 COLLIE-v1
instances (``task.grammar``, the compile and its witness check), none that compiles took more than 4.2 s alone,
the slowest of all 24 s (a para04 instance the compiler refuses after its witness search); on 2 cores shared with
two other jobs the slowest took 10 s and 53 s. Every other suite's grammars take under a second
(docs/grammar-tools.md)."""

MAX_COMPILE_SECONDS = 3_600.0
"""The largest time budget one compile may be given (an hour)."""

T = TypeVar("T")


@dataclass(frozen=True)
class CompileBudget:
    """Limits on one compile.

    Attributes:
        seconds: wall-clock time for the whole compile (Corral's compiler, its checks and the engine's build).
        max_chars: the largest grammar source it may give (at most ``MAX_GRAMMAR_CHARS``, what the engine is
            ever handed).
    """

    seconds: float = COMPILE_SECONDS
    max_chars: int = MAX_GRAMMAR_CHARS

    def __post_init__(self) -> None:
        if not (isinstance(self.seconds, int | float) and 0 < self.seconds <= MAX_COMPILE_SECONDS):
            raise ValueError(f"a compile's seconds must be in (0, {MAX_COMPILE_SECONDS:g}], got {self.seconds!r}")
        if not (isinstance(self.max_chars, int) and 1 <= self.max_chars <= MAX_GRAMMAR_CHARS):
            raise ValueError(f"a compile's max_chars must be in [1, {MAX_GRAMMAR_CHARS:,}], got {self.max_chars!r}")

    def over_time(self) -> NotExpressible:
        """The refusal of a compile that took longer than ``seconds``."""
        return NotExpressible(f"the compile took longer than its budget of {self.seconds:g} s (compile_seconds)")

    def over_size(self, chars: int) -> NotExpressible:
        """The refusal of a grammar of ``chars`` characters, past ``max_chars``."""
        return NotExpressible(f"the grammar is {chars:,} characters, past its budget of {self.max_chars:,} "
                              f"(max_chars)")


DEFAULT_COMPILE_BUDGET = CompileBudget()

_active = threading.local()


def within_budget(compile: Callable[[], T], budget: CompileBudget = DEFAULT_COMPILE_BUDGET) -> T:
    """``compile()`` run under ``budget``: its result, or ``NotExpressible`` naming the limit it went past.

    ``compile`` is any function that builds a grammar: ``compile_constraint``, ``compile_schema``, a task's
    ``grammar(instance)``. Its own errors pass through unchanged (a bad schema is still a ``GrammarError`` naming
    the field), unless the budget stopped it first: a compile that turned the stop into another error, or caught
    it and returned, is refused for its time all the same. A result that is a ``Grammar`` is held to
    ``budget.max_chars``."""
    started = time.monotonic()
    meter: Meter | None = None
    try:
        with _metered(budget) as meter:
            result = compile()
    except BudgetExceeded:
        raise budget.over_time() from None
    except Exception:
        if meter is not None and meter.exceeded:
            raise budget.over_time() from None
        raise
    if (meter is not None and meter.exceeded) or time.monotonic() - started > budget.seconds:
        raise budget.over_time()
    if isinstance(result, Grammar) and len(result.source) > budget.max_chars:
        raise budget.over_size(len(result.source))
    return result


@contextmanager
def _metered(budget: CompileBudget) -> Iterator[Meter]:
    """``enforce`` with the compile's time (memory, text size and steps unlimited: a compile has its own size
    limit), its meter made the thread's current one for ``tick`` while the block runs."""
    limits = Budget(seconds=budget.seconds, memory_mb=math.inf, max_chars=2**62, max_steps=2**62)
    previous = getattr(_active, "meter", None)
    with enforce(limits) as meter:
        _active.meter = meter
        try:
            yield meter
        finally:
            _active.meter = previous


def tick() -> None:
    """Count one step of a compile's own loop against the current compile's budget (``BudgetExceeded`` past it);
    nothing outside ``within_budget``. A loop that ticks is bounded in any thread, where the timer only runs in
    the main one."""
    meter = getattr(_active, "meter", None)
    if meter is not None and time.monotonic() > meter.deadline:  # the clock alone: a tick costs next to nothing
        meter.exceeded = meter.exceeded or f"the compile took more than {meter.budget.seconds:g} s"
        raise BudgetExceeded(meter.exceeded)
