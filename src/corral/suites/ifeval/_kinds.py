"""IFEval's instruction kinds as data: one ``Kind`` per instruction id, in one catalogue (``KINDS``).

A kind is a value, not a class: the parameters it reads (``Param``), a ``check(args, response)`` that returns the
violations, a ``render(args)`` that says the instruction as a sentence, and whether a grammar could later enforce it
exactly (``enforcement``, with ``why``). An ``Instruction`` is a kind with its arguments, parsed and validated once;
its ``check`` gives a ``corral.verdicts.Verdict`` under a ``Budget``.

Why data and not IFEval's class per instruction: IFEval's classes keep their parameters as hidden state set by
``build_description`` (which draws random values for missing ones), so a check depends on what ran before it. Here
an instruction is immutable and fully given: a missing or ill-typed argument is an error naming it, never a draw.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal

from corral.constraints import DEFAULT_BUDGET, Budget, BudgetExceeded, Meter
from corral.errors import InputError
from corral.verdicts import Verdict, Violation

Args = Mapping[str, Any]
Check = Callable[[Args, str], list[Violation]]
Render = Callable[[Args], str]
Enforcement = Literal["grammar", "partial", "checker"]
"""``grammar``: a grammar can accept exactly the responses that pass (a count, an ending, a forbidden character, a
JSON value, a title); ``partial``: a grammar can enforce part of it and the checker decides the rest; ``checker``:
only the checker can decide it (a statistical language identifier)."""

RELATIONS = ("less than", "at least")
"""IFEval's comparisons: ``less than`` n means count < n, ``at least`` n means count >= n."""


class InstructionError(InputError):
    """An instruction id that is not an IFEval kind, or arguments its kind cannot take; one line naming both."""


@dataclass(frozen=True)
class Param:
    """One argument of a kind: its name, its type (``int``, ``str`` or ``list`` of strings) and, when few, the
    values it may take."""

    name: str
    type: type
    choices: tuple[str, ...] | None = None

    def parse(self, value: Any) -> Any:
        if self.type is int and isinstance(value, float) and value.is_integer():
            value = int(value)  # data exported through a table (Hugging Face datasets) writes 3 as 3.0
        ok = (isinstance(value, int) and not isinstance(value, bool) and value >= 0 if self.type is int
              else isinstance(value, str) and value != "" if self.type is str
              else isinstance(value, list | tuple) and bool(value) and all(isinstance(v, str) and v for v in value))
        if not ok:
            wanted = {int: "a whole number >= 0", str: "a non-empty string", list: "a non-empty list of strings"}
            raise ValueError(f"{self.name}={value!r} is not {wanted[self.type]}")
        if self.choices is not None and value not in self.choices:
            raise ValueError(f"{self.name}={value!r} is not one of {', '.join(map(repr, self.choices))}")
        return tuple(value) if self.type is list else value


@dataclass(frozen=True)
class Kind:
    """One IFEval instruction kind (``id`` as in IFEval's data, e.g. ``length_constraints:number_words``)."""

    id: str
    params: tuple[Param, ...]
    check: Check
    render: Render
    enforcement: Enforcement
    why: str
    summary: str = ""
    forbids: frozenset[str] = frozenset()
    """Characters whose absence is exactly what the kind checks (``punctuation:no_comma``: the comma). A prompt's
    grammar enforces such a kind by leaving them out of its alphabet, with no code of the kind's own; a kind whose
    check asks anything more leaves this empty."""


KINDS: dict[str, Kind] = {}
"""The catalogue: instruction id -> ``Kind``, filled by the modules that define kinds (``_length``, ``_format``,
``_lexical``) and by plug-ins (``register_kind``; ``docs/ifeval.md``)."""

PLUGIN_GROUP = "corral_ifeval_kinds"
"""The entry-point group a package names its kind modules in; they are imported the first time an id is unknown."""


def register_kind(id: str, params: tuple[Param, ...], render: Render, enforcement: Enforcement, why: str,
                  summary: str, forbids: frozenset[str] | set[str] = frozenset()) -> Callable[[Check], Check]:
    """Register the decorated ``check(args, response) -> list[Violation]`` as kind ``id``: IFEval's own kinds and
    out-of-domain ones (IFBench's, a benchmark's own) alike. An id registered twice is an error, never a silent
    replacement of the checker a run was judged by."""

    def register(check: Check) -> Check:
        if id in KINDS:
            raise ValueError(f"IFEval kind {id!r} is registered twice")
        KINDS[id] = Kind(id, params, check, render, enforcement, why, summary, frozenset(forbids))
        return check

    return register


def _load_plugins() -> None:
    """Import the kind modules installed packages name under ``PLUGIN_GROUP`` (at each unknown id, which is rare:
    a module already imported is not run again, so nothing registers twice)."""
    from importlib.metadata import entry_points

    for point in entry_points(group=PLUGIN_GROUP):
        try:
            point.load()
        except Exception as exc:  # a broken plug-in is named, not a traceback in the middle of reading data
            raise InstructionError(f"the IFEval kind plug-in {point.name!r} ({point.value}) failed to load: "
                                   f"{type(exc).__name__}: {exc}") from None


def get_kind(id: str) -> Kind:
    """The kind ``id`` (installed plug-ins are loaded at the first unknown id), or an ``InstructionError``
    listing the kinds."""
    found = KINDS.get(id)
    if found is None:
        _load_plugins()
        found = KINDS.get(id)
    if found is None:
        raise InstructionError(f"unknown IFEval instruction {id!r}; known: {', '.join(sorted(KINDS))} (a kind from "
                               "elsewhere is registered by a plug-in first: -T kinds=..., docs/ifeval.md)")
    return found


@dataclass(frozen=True)
class Instruction:
    """A kind with its arguments. ``args`` holds exactly the kind's parameters, validated (lists as tuples)."""

    kind: Kind
    args: Mapping[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.kind.id

    @classmethod
    def parse(cls, id: str, kwargs: Mapping[str, Any] | None) -> Instruction:
        """The instruction ``id`` with ``kwargs`` as IFEval's data gives them. Keys whose value is None are
        ignored (the Hugging Face copy of the data carries every kind's keys, unused ones as null); a missing,
        unknown or ill-typed argument is an ``InstructionError`` naming it."""
        found = get_kind(id)
        given = {key: value for key, value in (kwargs or {}).items() if value is not None}
        names = [param.name for param in found.params]
        unknown = sorted(set(given) - set(names))
        if unknown:
            raise InstructionError(f"{id}: unknown argument {', '.join(unknown)} (it takes "
                                   f"{', '.join(names) or 'none'})")
        args = {}
        for param in found.params:
            if param.name not in given:
                raise InstructionError(f"{id}: missing argument {param.name!r} (it takes {', '.join(names)})")
            try:
                args[param.name] = param.parse(given[param.name])
            except ValueError as exc:
                raise InstructionError(f"{id}: {exc}") from None
        return cls(found, args)

    def render(self) -> str:
        """The instruction as one sentence a model is given."""
        return self.kind.render(self.args)

    def violations(self, response: str) -> list[Violation]:
        """What the response breaks (IFEval's verdict on it as is: no empty-response rule, no budget)."""
        return self.kind.check(self.args, response)

    def check(self, response: str, budget: Budget = DEFAULT_BUDGET) -> Verdict[Any]:
        """The strict verdict on ``response``: fails when the response is blank (IFEval fails every instruction
        then) or the kind's check finds violations; undecided past ``budget``."""
        return judge(self.id, lambda: [*blank(self.id, response), *(self.violations(response)
                                                                     if response.strip() else ())], budget)


def blank(rule: str, response: str) -> list[Violation]:
    """IFEval fails every instruction on a response that is empty or only whitespace."""
    if response.strip():
        return []
    return [Violation(rule, "The response is empty; write an answer that follows the instruction.", None,
                      "a non-empty response", "")]


_METER: ContextVar[Meter | None] = ContextVar("ifeval_meter", default=None)


def tick() -> None:
    """Count one step of a check against the running budget (does nothing outside ``judge``)."""
    meter = _METER.get()
    if meter is not None:
        meter.tick()


def metered(budget: Budget, work: Callable[[], Any]) -> Any:
    """Run ``work`` with ``budget``'s meter as the one ``tick`` counts against; raises ``BudgetExceeded``."""
    token = _METER.set(Meter(budget))
    try:
        return work()
    finally:
        _METER.reset(token)


def judge(rule: str, find: Callable[[], list[Violation]], budget: Budget) -> Verdict[Any]:
    """The verdict of ``find``'s violations under ``budget``: undecided past it, and an unforeseen error in a
    check is reported as a violation (a checker never raises on a response)."""
    try:
        found = metered(budget, find)
    except BudgetExceeded as exc:
        return Verdict.not_decided(exc.reason, rules=(rule,))
    except RecursionError:
        return Verdict.not_decided("the response is nested too deeply to check", rules=(rule,))
    except Exception as exc:  # a checker must not raise on a response
        found = [Violation(rule, f"The checker could not check this response ({type(exc).__name__}: {exc}).")]
    return Verdict.of(found, rules=(rule,))


def meets(count: int, relation: str, n: int) -> bool:
    """IFEval's comparison: ``less than`` n is count < n; ``at least`` n is count >= n."""
    return count < n if relation == "less than" else count >= n


def relation_text(relation: str, n: int, noun: str) -> str:
    """``at least 3 words`` / ``fewer than 3 words`` (for messages and rendered instructions)."""
    plural = noun if n == 1 else f"{noun}s" if not noun.endswith("s") else noun
    return f"at least {n} {plural}" if relation == "at least" else f"fewer than {n} {plural}"


def count_message(relation: str, n: int, count: int, noun: str, fix: str = "") -> str:
    """A message for a count that misses its bound: what was found, what is needed, and by how much to change."""
    need = relation_text(relation, n, noun)
    many = noun if count == 1 else f"{noun}s"
    change = (f"add at least {n - count}" if relation == "at least" else f"remove at least {count - n + 1}")
    return f"The response has {count} {many}; it needs {need}: {change}{fix}."


def first_span(text: str, needle: str) -> tuple[int, int] | None:
    at = text.find(needle)
    return (at, at + len(needle)) if at >= 0 else None
