"""Format checkers as data: a checker maps (instance, output) to a list of violations (FormatBench, ReFF §3).

A ``Violation`` says which rule failed, in words a person can act on, where in the output (a character span),
what was expected and what was seen. The same list is the verdict (pass = no violations), the graded score
(the share of the task's rules with no violation), the refinement prompt and the RL reward. Checkers never raise
on an output: anything a checker did not foresee is reported as a violation of rule ``internal``. A missing
instance field is different, the instance is wrong, not the output: ``InstanceError`` names the task, the
instance id and the field.

Each checker has two modes. ``strict`` (the default) checks what the paper's format description asks for.
``reference`` reproduces the published reference checker's verdicts, including its documented mistakes, so that
published format-faithfulness rates can be compared; it reports one violation when the reference would fail the
output.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal

from corral.constraints import DEFAULT_BUDGET, Budget, BudgetExceeded, Meter
from corral.errors import InputError
from corral.grammars import NotExpressible
from corral.registry import format_tasks, lookup
from corral.verdicts import Verdict, Violation

from ._grammars import FormatGrammar

Mode = Literal["strict", "reference"]
MODES: tuple[Mode, ...] = ("strict", "reference")


class InstanceError(InputError):
    """A task instance lacks what its checker needs; the message names the task, the instance and the field."""


StrictCheck = Callable[[Mapping[str, Any], str], list[Violation]]
ReferenceCheck = Callable[[Mapping[str, Any], str], bool]

_METER: ContextVar[Meter | None] = ContextVar("formatbench_meter", default=None)


def tick() -> None:
    """Count one step of a checker's loop against the running check's budget (raises ``BudgetExceeded`` past it;
    does nothing outside ``FormatChecker.check``). Cheap: the clock is read every few hundred ticks."""
    meter = _METER.get()
    if meter is not None:
        meter.tick()


def look() -> None:
    """Compare the running check with its budget now: for loops whose every step is long (a search over the
    whole output)."""
    meter = _METER.get()
    if meter is not None:
        meter.look()


@dataclass(frozen=True)
class FormatChecker:
    """A task's checker: its rules (id → what it asks, for docs and the score), the instance fields it reads
    (``needs``: all of them; ``input_fields``: at least one), the strict check and the reference's verdict."""

    name: str
    rules: Mapping[str, str]
    needs: tuple[str, ...]
    strict: StrictCheck
    reference: ReferenceCheck
    description: str = ""
    input_fields: tuple[str, ...] = ()  # the input may come in any one of these (``text`` or ``tokens``)
    _order: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    def check(self, instance: Mapping[str, Any], output: str, mode: Mode = "strict",
              budget: Budget = DEFAULT_BUDGET) -> Verdict:
        """The verdict on ``output``; never raises on the output (only on an instance missing a field), and never
        runs past ``budget``: a check that would is undecided (``verdict.undecided`` says why)."""
        if mode not in MODES:
            raise ValueError(f"unknown checker mode {mode!r}; valid: {', '.join(MODES)}")
        self.require(instance)
        rules = tuple(self.rules)
        if isinstance(output, str) and len(output) > budget.max_chars:
            return Verdict.not_decided(f"the output is {len(output):,} characters; the limit is "
                                       f"{budget.max_chars:,}", rules=rules)
        token = _METER.set(Meter(budget))
        try:
            if mode == "reference":
                ok = self.reference(instance, output)
                found = [] if ok else [Violation("reference", f"The {self.name} reference checker rejects this "
                                                              "output.")]
            else:
                found = self.strict(instance, output)
        except InstanceError:
            raise  # the instance is wrong, not the output
        except BudgetExceeded as exc:
            return Verdict.not_decided(exc.reason, rules=rules)
        except RecursionError:
            return Verdict.not_decided("the output is nested too deeply to check", rules=rules)
        except MemoryError:
            return Verdict.not_decided("the check ran out of memory", rules=rules)
        except Exception as exc:  # a checker must never raise on an output: report it instead
            found = [Violation("internal", f"The {self.name} checker could not check this output "
                                           f"({type(exc).__name__}: {exc}).")]
        finally:
            _METER.reset(token)
        ordered = sorted(found, key=lambda v: ((v.span or (1 << 62, 0))[0], rules.index(v.rule)
                                              if v.rule in rules else len(rules), v.message))
        broken = {v.rule for v in ordered}
        whole = not rules or "internal" in broken or "reference" in broken  # the output as a whole fails
        return Verdict.of(ordered, rules=rules, score=0.0 if ordered and whole else None)

    def require(self, instance: Mapping[str, Any]) -> None:
        for name in self.needs:
            if name not in instance or instance[name] is None:
                ident = instance.get("id", "?") if isinstance(instance, Mapping) else "?"
                raise InstanceError(f"{self.name} instance {ident}: missing field {name!r} (the checker needs "
                                    f"{', '.join(self.needs)})")
        if self.input_fields and all(instance.get(name) is None for name in self.input_fields):
            raise InstanceError(f"{self.name} instance {instance.get('id', '?')}: missing field "
                                f"{self.input_fields[0]!r} (the checker needs one of {', '.join(self.input_fields)})")


Builder = Callable[[Mapping[str, Any]], FormatGrammar]
Quality = Callable[[Mapping[str, Any], str], dict[str, float]]


@dataclass(frozen=True)
class FormatTask:
    """One FormatBench task, whole: its checker, the description its prompts give, its token budget, its grammar
    builder (None: decoded freely) with the rules that grammar leaves to the checker, its quality metric and the
    instance fields its description names (``{labels}``). Registered once (``register_format_task``), so that a new
    task is one call in one file (or a plug-in's entry point in the ``corral_format_tasks`` group)."""

    checker: FormatChecker
    description: str
    max_tokens: int
    grammar: Builder | None = None
    left_to_checker: tuple[str, ...] = ()
    """The checker rules (ids of ``checker.rules``) the grammar does not enforce; what its ``FormatGrammar`` says."""
    quality: Quality | None = None
    fields: Callable[[Mapping[str, Any]], dict[str, str]] | None = None

    @property
    def name(self) -> str:
        return self.checker.name

    @property
    def enforcement(self) -> str:
        """What the task's grammars enforce, as the ``enforcement`` group value: ``exact``, ``partial: RULE, ...``
        or ``none`` (no grammar)."""
        if self.grammar is None:
            return "none"
        return "exact" if not self.left_to_checker else "partial: " + ", ".join(self.left_to_checker)

    def describe(self, instance: Mapping[str, Any]) -> str:
        """The task's description for ``instance`` (its ``fields`` filled in)."""
        return self.description.format(**self.fields(instance)) if self.fields else self.description


def register_format_task(task: FormatTask) -> FormatTask:
    """Register ``task`` under its checker's name; a name registered twice is an error."""
    if task.name in format_tasks.get_all():
        raise ValueError(f"FormatBench task {task.name!r} is registered twice")
    format_tasks.register(task.name, func=task)
    return task


def get_format_task(name: str) -> FormatTask:
    """The registered task ``name`` (mcq, eqa, ner, ...), or a one-line error listing them."""
    return lookup(format_tasks, name, "format")


def get_checker(name: str) -> FormatChecker:
    """The checker of the registered task ``name``."""
    return get_format_task(name).checker


def format_grammar(task: str, instance: Mapping[str, Any]) -> FormatGrammar:
    """The grammar of one instance of ``task``; ``NotExpressible`` (with the reason) when it has none."""
    builder = get_format_task(task).grammar
    if builder is None:
        raise NotExpressible(f"no grammar for the {task} format; decoded freely")
    return builder(instance)


def check_format(task: str, instance: Mapping[str, Any], output: str, mode: Mode = "strict",
                 budget: Budget = DEFAULT_BUDGET) -> Verdict:
    """Check ``output`` for ``task``'s format (``check_format("ftime", {"tag": 1}, "2012...")``) under
    ``budget`` (an output past it gives the undecided verdict)."""
    return get_checker(task).check(instance, output, mode, budget)


def reference_first_line(output: str) -> str:
    """What the reference checks for most tasks: the first line of the first paragraph."""
    return output.split("\n\n")[0].split("\n")[0]


def spans_of(output: str, pieces: Sequence[str]) -> list[tuple[int, int]]:
    """Where each of ``pieces`` (consecutive, in order) lies in ``output``."""
    out, at = [], 0
    for piece in pieces:
        start = output.find(piece, at)
        start = at if start < 0 else start
        out.append((start, start + len(piece)))
        at = start + len(piece)
    return out
