"""Evaluation: a constraint on a segmented text gives a tree of results, the evidence a verdict is made from.

The text is segmented lazily and once (``Segmentation``), shared by every sub-constraint; compositions are
interpreted here and base constraints by their registered kind. Checking never raises on any string: a
failure inside a kind's evaluation becomes a failed part whose observation names the error.

``evaluate`` interprets a node; ``plan_for`` compiles one (its constants worked out once, kept with the node) into
a function that gives exactly the same result tree and ticks the meter as often. ``check`` interprets a constraint
the first time it sees it and runs its plan from the second time on (``tests/constraints/test_plans.py`` holds the
two to each other).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from operator import itemgetter
from typing import Any, NamedTuple

from corral.text import Level, RawUnit, Segmentation

from ._budget import DEFAULT_BUDGET, BudgetExceeded, Meter
from ._kinds import _BY_NODE, kinds_version
from ._nodes import (
    And,
    Constraint,
    Count,
    Expr,
    ForEach,
    Match,
    Not,
    Or,
    Pos,
    Quantifier,
    Regex,
    Selector,
    TextRef,
    UnitRef,
)


class Result(NamedTuple):
    """The outcome of one constraint node on one text (or on one unit inside a for-each).

    An immutable tuple (cheap to make: a check makes one per part).

    Attributes:
        constraint: the node.
        passed: whether it holds.
        observed: what was seen: a count, a unit's value, None for a missing unit, per-unit counts (tuple) for a
            per-level count, the number of satisfying units for a for-each.
        expected: what was required, in words ("exactly 10", "'soft'").
        spans: (start, end) offsets in the text of the units involved.
        children: results of the parts of a composition; for a for-each, one per unit, in order.
        unit: for results inside a for-each, the 1-based index of the unit they were evaluated on.
    """

    constraint: Expr
    passed: bool
    observed: Any = None
    expected: str = ""
    spans: tuple[tuple[int, int], ...] = ()
    children: tuple[Result, ...] = ()
    unit: int | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "constraint": str(self.constraint),
            "passed": self.passed,
            "observed": self.observed,
            "expected": self.expected,
            "spans": [list(span) for span in self.spans],
        }
        if self.unit is not None:
            data["unit"] = self.unit
        if self.children:
            data["children"] = [child.to_json() for child in self.children]
        return data


class Context:
    """What evaluation needs: the shared segmentation, the unit bound by the innermost for-each, and the check's
    ``Meter`` (every evaluated node ticks it; a kind that loops or runs a regex asks it for the time left)."""

    __slots__ = ("_normalized", "meter", "seg", "text_level", "unit", "unit_level")

    def __init__(self, seg: Segmentation, text_level: Level | None, meter: Meter | None = None) -> None:
        self.seg = seg
        self.meter = meter if meter is not None else Meter(DEFAULT_BUDGET)
        self.text_level = text_level
        self.unit: RawUnit | None = None
        self.unit_level: Level | None = None
        self._normalized: dict[tuple, list[str]] = {}

    def resolve(self, selector: Selector) -> tuple[RawUnit | None, Level | None]:
        """The unit a selector picks (None when the index is out of range) and its level."""
        if isinstance(selector, TextRef):
            return self.seg.root, self.text_level
        if isinstance(selector, UnitRef):
            if self.unit is None:
                return self.seg.root, self.text_level
            return self.unit, self.unit_level
        assert isinstance(selector, Pos)
        parent = self.seg.root if type(selector.of) is TextRef else self.resolve(selector.of)[0]
        if parent is None:
            return None, selector.level
        index = selector.index
        return self.seg.unit(selector.level, parent, index - 1 if index > 0 else index), selector.level

    def normalized(self, level: Level, parent: RawUnit, case_sensitive: bool) -> list[str]:
        """The profile-normalised values of ``parent``'s ``level`` units, computed once per check."""
        key = (level, parent, case_sensitive)
        found = self._normalized.get(key)
        if found is None:
            profile = self.seg.profile
            values = [value for value, _, _ in self.seg.units(level, parent)]
            if profile.normalize_all is not None:
                found = profile.normalize_all(values, case_sensitive)
            else:
                found = [profile.normalize(value, case_sensitive) for value in values]
            self._normalized[key] = found
        return found

    def normalize(self, value: str, case_sensitive: bool) -> str:
        return self.seg.profile.normalize(value, case_sensitive)


def evaluate(node: Expr, ctx: Context) -> Result:
    """Evaluate any node: compositions here, base constraints through their registered kind. Raises
    ``BudgetExceeded`` when the check runs past its budget."""
    ctx.meter.tick()
    kind = _BY_NODE.get(type(node))
    if kind is not None:
        try:
            return kind.evaluate(node, ctx)
        except BudgetExceeded:
            raise
        except Exception as exc:  # a kind's bug must not crash a batch of checks
            return Result(node, False, observed=f"error: {type(exc).__name__}: {exc}", expected="no error")
    if isinstance(node, And):
        children = tuple(evaluate(part, ctx) for part in node.parts)
        return Result(node, all(child.passed for child in children), children=children)
    if isinstance(node, Or):
        children = tuple(evaluate(part, ctx) for part in node.parts)
        return Result(node, any(child.passed for child in children), children=children)
    if isinstance(node, Not):
        inner = evaluate(node.part, ctx)
        return Result(node, not inner.passed, children=(inner,))
    if isinstance(node, ForEach):
        return _evaluate_for_each(node, ctx)
    raise TypeError(f"not a constraint node: {node!r}")


def _evaluate_for_each(node: ForEach, ctx: Context) -> Result:
    parent, _ = ctx.resolve(node.of)
    if parent is None:
        return Result(node, False, observed=None, expected="the unit to exist")
    units = ctx.seg.units(node.level, parent)
    saved = ctx.unit, ctx.unit_level
    children = []
    try:
        ctx.unit_level = node.level
        for i, unit in enumerate(units, start=1):
            ctx.unit = unit
            child = evaluate(node.body, ctx)
            children.append(child._replace(spans=child.spans or ((unit[1], unit[2]),), unit=i))
    finally:
        ctx.unit, ctx.unit_level = saved
    satisfied = sum(child.passed for child in children)
    passed = quantified(node, satisfied, len(children))
    failing = tuple((unit[1], unit[2]) for unit, child in zip(units, children, strict=True) if not child.passed)
    return Result(node, passed, satisfied, _quantity(node), failing, tuple(children))


def quantified(node: ForEach, satisfied: int, units: int) -> bool:
    """Whether ``satisfied`` of ``units`` units meet a for-each's quantifier (the interpreter's and the plans')."""
    q = node.quantifier
    if q is Quantifier.ALL:
        return satisfied == units
    if q is Quantifier.ANY:
        return satisfied > 0
    if q is Quantifier.AT_LEAST:
        return satisfied >= node.k  # type: ignore[operator]
    if q is Quantifier.AT_MOST:
        return satisfied <= node.k  # type: ignore[operator]
    return satisfied == node.k


def _quantity(node: ForEach) -> str:
    if node.quantifier is Quantifier.ALL:
        return "all"
    if node.quantifier is Quantifier.ANY:
        return "at least 1"
    return f"{node.quantifier.value.replace('_', ' ')} {node.k}"


def parts_of(result: Result) -> list[Result]:
    """The parts a verdict reports and scores: base constraints, negations and for-eachs (and/or are structure)."""
    if not isinstance(result.constraint, _STRUCTURE):
        return [result]
    parts: list[Result] = []
    for child in result.children:
        if isinstance(child.constraint, _STRUCTURE):
            parts += parts_of(child)
        else:
            parts.append(child)
    return parts


_STRUCTURE = (And, Or)

# ------------------------------------------------------------------------------------------- evaluation plans
Plan = Callable[[Context], Result]
"""A node compiled for evaluation: ``plan(ctx)`` gives exactly ``evaluate(node, ctx)``, ticks included."""

Resolver = Callable[[Context], tuple[RawUnit | None, Level | None]]
"""A selector compiled: ``resolver(ctx)`` gives exactly ``ctx.resolve(selector)``."""

_new_result = tuple.__new__  # Result(...) without NamedTuple's Python-level __new__: the same tuple
_passed = itemgetter(1)

MAX_PLAN_DEPTH = 48
"""Nodes nested deeper than this are not compiled: ``evaluate`` runs them (and meets Python's recursion limit
exactly as before, which ``check`` turns into an undecided verdict)."""

_PLAN_CACHE_SIZE = 4096
_plans: dict[int, tuple[Expr, tuple[Plan, frozenset[Level]] | None, int]] = {}
"""id(node) -> (node, (plan, counted levels) or None when seen once, kinds_version() it was made under). Plans are
functions whose constants are default arguments, not closure cells: a plan is a few objects per node (they live
long, and the garbage collector walks them), and its constants are its fastest local variables."""


class _TooDeep(Exception):
    pass


def plan_for(node: Expr) -> Plan:
    """The evaluation plan of ``node``: every constant of its evaluation (expected values in words, relations,
    compiled selectors) worked out once per node value and kept for the node's next checks (a constraint is
    immutable); a plan is made again when a kind is registered."""
    made = planned(node, first=False)
    assert made is not None
    return made[0]


def planned(node: Expr, first: bool = True) -> tuple[Plan, frozenset[Level]] | None:
    """``plan_for(node)`` and ``counted_levels(node)``, made together and kept together; None the first time
    ``node`` is seen when ``first`` (a plan takes as long to make as a check or two: a node checked once is
    evaluated by ``evaluate``, and planned when it is checked again)."""
    found = _plans.get(id(node))
    version = kinds_version()
    if found is None or found[0] is not node or found[2] != version:
        if first:
            _remember(node, None, version)
            return None
    elif found[1] is not None:
        return found[1]
    try:
        made = (_compile(node, 0), counted_levels(node))
    except _TooDeep:
        made = (_interpreted(node), frozenset())
    _remember(node, made, version)
    return made


def _remember(node: Expr, made: tuple[Plan, frozenset[Level]] | None, version: int) -> None:
    if len(_plans) >= _PLAN_CACHE_SIZE:
        _plans.clear()
    _plans[id(node)] = (node, made, version)


def counted_levels(node: Expr) -> frozenset[Level]:
    """The levels whose units ``node`` only ever counts (``count(x, word)``, ``count(x, word, sentence)``), never
    selects, compares or reports: a segmentation may count those without building the units. Empty when a kind
    other than count, match and regex occurs (what it does with units is its own)."""
    needed: set[Level] = set()
    stack: list[Any] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, And | Or):
            stack.extend(item.parts)
        elif isinstance(item, Not):
            stack.append(item.part)
        elif isinstance(item, ForEach):
            needed.add(item.level)
            stack += (item.of, item.body)
        elif isinstance(item, Pos):
            needed.add(item.level)
            stack.append(item.of)
        elif isinstance(item, TextRef | UnitRef):
            pass
        elif type(item) in (Count, Match, Regex) and _builtin_kind(item):
            if type(item) is Count:
                if item.string is not None:
                    needed.add(item.level)
                if item.per is not None:
                    needed.add(item.per)
            stack.append(item.of)
        else:
            return frozenset()
    return frozenset(Level) - needed


def _builtin_kind(node: Expr) -> bool:
    kind = _BY_NODE.get(type(node))
    return kind is not None and getattr(kind.evaluate, "__module__", None) == f"{__package__}._builtin"


def _interpreted(node: Expr) -> Plan:
    return partial(evaluate, node)  # type: ignore[return-value]


def _compile(node: Expr, depth: int) -> Plan:
    if depth > MAX_PLAN_DEPTH:
        raise _TooDeep
    kind = _BY_NODE.get(type(node))
    if kind is not None:
        return _base_plan(node, kind)
    if isinstance(node, And | Or):
        return _junction_plan(node, tuple([_compile(part, depth + 1) for part in node.parts]), isinstance(node, And))
    if isinstance(node, Not):
        return _not_plan(node, _compile(node.part, depth + 1))
    if isinstance(node, ForEach):
        return _for_each_plan(node, _compile(node.body, depth + 1))
    return _interpreted(node)  # not a node: evaluate says so


def _base_plan(node: Expr, kind: Any) -> Plan:
    inner: Callable[[Context], Result] | None = None
    if kind.compile is not None:
        try:
            inner = kind.compile(node)
        except Exception:  # a kind's bug: evaluate meets it again, and reports it, at each check
            inner = None
    if inner is None:
        inner = partial(kind.evaluate, node)

    def plan(ctx: Context, inner: Callable[[Context], Result] = inner, node: Expr = node) -> Result:
        meter = ctx.meter  # Meter.tick, inline
        meter.steps += 1
        if meter.steps >= meter._next_look:
            meter.look()
        try:
            return inner(ctx)
        except BudgetExceeded:
            raise
        except Exception as exc:  # a kind's bug must not crash a batch of checks
            return Result(node, False, observed=f"error: {type(exc).__name__}: {exc}", expected="no error")

    return plan


def _junction_plan(node: And | Or, parts: tuple[Plan, ...], conjunction: bool) -> Plan:
    def plan(ctx: Context, parts: tuple[Plan, ...] = parts, node: Expr = node,
             decide: Callable[[Any], bool] = all if conjunction else any) -> Result:
        meter = ctx.meter
        meter.steps += 1
        if meter.steps >= meter._next_look:
            meter.look()
        children = tuple([part(ctx) for part in parts])
        return _new_result(Result, (node, decide(map(_passed, children)), None, "", (), children, None))

    return plan


def _not_plan(node: Not, part: Plan) -> Plan:
    def plan(ctx: Context, part: Plan = part, node: Expr = node) -> Result:
        meter = ctx.meter
        meter.steps += 1
        if meter.steps >= meter._next_look:
            meter.look()
        inner = part(ctx)
        return _new_result(Result, (node, not inner.passed, None, "", (), (inner,), None))

    return plan


def _for_each_plan(node: ForEach, body: Plan) -> Plan:
    selector = compile_selector(node.of)

    def plan(ctx: Context, node: ForEach = node, body: Plan = body, of: Resolver = selector,
             level: Level = node.level, quantity: str = _quantity(node)) -> Result:
        meter = ctx.meter
        meter.steps += 1
        if meter.steps >= meter._next_look:
            meter.look()
        parent = of(ctx)[0]
        if parent is None:
            return Result(node, False, observed=None, expected="the unit to exist")
        units = ctx.seg.units(level, parent)
        saved = ctx.unit, ctx.unit_level
        children = []
        try:
            ctx.unit_level = level
            for i, unit in enumerate(units, start=1):
                ctx.unit = unit
                child = body(ctx)
                children.append(_new_result(Result, (*child[:4], child[4] or ((unit[1], unit[2]),), child[5], i)))
        finally:
            ctx.unit, ctx.unit_level = saved
        satisfied = sum(map(_passed, children))
        passed = quantified(node, satisfied, len(children))
        failing = tuple((unit[1], unit[2]) for unit, child in zip(units, children, strict=True) if not child.passed)
        return Result(node, passed, satisfied, quantity, failing, tuple(children))

    return plan


def _resolve_text(ctx: Context) -> tuple[RawUnit | None, Level | None]:
    return ctx.seg.root, ctx.text_level


def _resolve_unit(ctx: Context) -> tuple[RawUnit | None, Level | None]:
    if ctx.unit is None:
        return ctx.seg.root, ctx.text_level
    return ctx.unit, ctx.unit_level


def compile_selector(selector: Selector) -> Resolver:
    """``selector`` compiled: a function of the context that gives exactly ``ctx.resolve(selector)``."""
    if isinstance(selector, TextRef):
        return _resolve_text
    if isinstance(selector, UnitRef):
        return _resolve_unit
    if not isinstance(selector, Pos):
        return lambda ctx: ctx.resolve(selector)  # not a selector: resolve says so
    outer = None if type(selector.of) is TextRef else compile_selector(selector.of)

    def resolve(ctx: Context, level: Level = selector.level,
                at: int = selector.index - 1 if selector.index > 0 else selector.index,  # Segmentation.unit's index
                parent_of: Resolver | None = outer) -> tuple[RawUnit | None, Level | None]:
        parent = ctx.seg.root if parent_of is None else parent_of(ctx)[0]
        if parent is None:
            return None, level
        return ctx.seg.unit(level, parent, at), level

    return resolve


@dataclass(frozen=True)
class Checked:
    """A constraint check's evidence, a verdict's ``detail``: what was checked against which text, the full result
    tree and the parts that are scored (base constraints, and each negation and for-each as one part)."""

    constraint: Constraint
    text: str
    result: Result
    parts: tuple[Result, ...]

    @classmethod
    def of(cls, constraint: Constraint, text: str, result: Result, parts: tuple[Result, ...]) -> Checked:
        """``Checked(constraint, text, result, parts)``, made at once (a frozen dataclass's __init__ sets one
        field at a time)."""
        checked = object.__new__(cls)
        object.__setattr__(checked, "__dict__", {"constraint": constraint, "text": text, "result": result,
                                                 "parts": parts})
        return checked

    @property
    def failed(self) -> tuple[Result, ...]:
        return tuple(part for part in self.parts if not part.passed)

    def to_json(self) -> dict[str, Any]:
        return {"constraint": str(self.constraint), "parts": [part.to_json() for part in self.parts]}
