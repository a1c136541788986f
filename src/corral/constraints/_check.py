"""Evaluation: a constraint on a segmented text gives a tree of results, the evidence a verdict is made from.

The text is segmented lazily and once (``Segmentation``), shared by every sub-constraint; compositions are
interpreted here and base constraints by their registered kind. Checking never raises on any string: a
failure inside a kind's evaluation becomes a failed part whose observation names the error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from corral.text import Level, RawUnit, Segmentation

from ._budget import DEFAULT_BUDGET, BudgetExceeded, Meter
from ._kinds import _BY_NODE
from ._nodes import (
    And,
    Constraint,
    Expr,
    ForEach,
    Not,
    Or,
    Pos,
    Quantifier,
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
        units = self.seg.units(selector.level, parent)
        index = selector.index - 1 if selector.index > 0 else len(units) + selector.index
        if 0 <= index < len(units):
            return units[index], selector.level
        return None, selector.level

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
    q = node.quantifier
    if q is Quantifier.ALL:
        passed = satisfied == len(children)
    elif q is Quantifier.ANY:
        passed = satisfied > 0
    elif q is Quantifier.AT_LEAST:
        passed = satisfied >= node.k  # type: ignore[operator]
    elif q is Quantifier.AT_MOST:
        passed = satisfied <= node.k  # type: ignore[operator]
    else:
        passed = satisfied == node.k
    failing = tuple((unit[1], unit[2]) for unit, child in zip(units, children, strict=True) if not child.passed)
    return Result(node, passed, satisfied, _quantity(node), failing, tuple(children))


def _quantity(node: ForEach) -> str:
    if node.quantifier is Quantifier.ALL:
        return "all"
    if node.quantifier is Quantifier.ANY:
        return "at least 1"
    return f"{node.quantifier.value.replace('_', ' ')} {node.k}"


def parts_of(result: Result) -> list[Result]:
    """The parts a verdict reports and scores: base constraints, negations and for-eachs (and/or are structure)."""
    if isinstance(result.constraint, And | Or):
        return [part for child in result.children for part in parts_of(child)]
    return [result]


@dataclass(frozen=True)
class Checked:
    """A constraint check's evidence, a verdict's ``detail``: what was checked against which text, the full result
    tree and the parts that are scored (base constraints, and each negation and for-each as one part)."""

    constraint: Constraint
    text: str
    result: Result
    parts: tuple[Result, ...]

    @property
    def failed(self) -> tuple[Result, ...]:
        return tuple(part for part in self.parts if not part.passed)

    def to_json(self) -> dict[str, Any]:
        return {"constraint": str(self.constraint), "parts": [part.to_json() for part in self.parts]}
