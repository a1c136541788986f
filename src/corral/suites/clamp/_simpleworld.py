"""Overnight's blocks world and an executor for its formulas, so ``clamp-overnight`` scores **denotation accuracy**
(BenchCLAMP's Overnight metric) without SEMPRE's Java.

SEMPRE evaluates an Overnight formula with ``JavaExecutor`` calling ``overnight.SimpleWorld``'s static methods on a
world that ``SimpleWorld.BlocksDomain`` generates: 60 blocks (``en.block.block1``, ``en.block.block2``, then
``en.block.2`` ... ``en.block.59``), each given, in this order, a shape and a colour (one of two each), a length,
width and height (2 to 7 inches), a block to its left, right, above and below, and ``is_special`` with probability
one half, all drawn from one ``java.util.Random(1)`` (its documented generator is rebuilt here as ``JavaRandom``,
checked against OpenJDK's output in the tests). Every fact is stored with its reverse (``!left``), and each
property remembers the types of the last fact stored with it, which the functions check as SEMPRE's do.

The executor follows ``JavaExecutor`` with ``-JavaExecutor.convertNumberValues false`` (the setting of Overnight's
evaluation): ``(string x)`` is a Java string, ``(number 3 en.inch)`` a number value, a bare ``en.*`` name an entity,
``(call f args...)`` the overload of ``f`` whose parameter types the arguments match exactly (a list is not a
value), ``(call .size x)`` the list's size; ``listValue`` sorts the result. Anything SEMPRE would throw on (an
unknown function, a type check, an empty join) is an ``ExecutionError``, and a formula that errors denotes nothing,
so it is never right. Faithfulness is checked on the gold formulas (all of the data's 1,995 execute); Corral could
not compare against SEMPRE's own outputs, which the data does not carry.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from ._lispress import Group, LispressError, read_lispress

__all__ = ["BLOCKS", "ExecutionError", "JavaRandom", "NameValue", "NumberValue", "World", "blocks_world", "denotation",
           "execute"]

BLOCKS = 60
"""``SimpleWorld``'s ``numOfValueSamples`` default: the blocks in the world."""
_MASK = (1 << 48) - 1
_MULTIPLIER = 0x5DEECE66D


class ExecutionError(Exception):
    """What SEMPRE would throw while executing the formula (the formula then denotes nothing)."""


class JavaRandom:
    """``java.util.Random``: the 48-bit linear congruential generator its documentation specifies."""

    def __init__(self, seed: int) -> None:
        self._seed = (seed ^ _MULTIPLIER) & _MASK

    def _next(self, bits: int) -> int:
        self._seed = (self._seed * _MULTIPLIER + 0xB) & _MASK
        value = self._seed >> (48 - bits)
        return value - (1 << 32) if bits == 32 and value >= 1 << 31 else value

    def next_int(self, bound: int) -> int:
        if bound <= 0:
            raise ValueError("bound must be positive")
        if bound & -bound == bound:  # a power of two: the high bits
            return (bound * self._next(31)) >> 31
        while True:
            bits = self._next(31)
            value = bits % bound
            if bits - value + (bound - 1) < 1 << 31:  # Java's int overflow test: no bias from the last partial range
                return value

    def next_double(self) -> float:
        return ((self._next(26) << 27) + self._next(27)) * 2.0 ** -53


# ---------------------------------------------------------------------------------------------------- values
@dataclass(frozen=True, order=True)
class NameValue:
    """An entity or a type (SEMPRE's ``NameValue``)."""

    id: str


@dataclass(frozen=True, order=True)
class NumberValue:
    """A number with its unit (SEMPRE's ``NumberValue``; its default unit is ``fb:en.unitless``)."""

    value: float
    unit: str = "fb:en.unitless"


Value = NameValue | NumberValue | bool | str
"""A world value: an entity, a number, ``True`` (a unary fact's ``BooleanValue``), or a ``StringValue``."""


def _type(value: Any) -> str:
    if isinstance(value, bool):
        return "en.boolean"
    if isinstance(value, NumberValue):
        return value.unit + "_number"
    if isinstance(value, NameValue):
        head, _, last = value.id.rpartition(".")
        if last.startswith("_"):  # fb:en.lake._st_clair: the type is above the underscored part
            head = head.rpartition(".")[0]
        return head
    if isinstance(value, list) and value:
        return _type(value[0])
    raise ExecutionError(f"Can't get type of value {value!r}")


def _reverse(prop: str) -> str:
    return prop[1:] if prop.startswith("!") else "!" + prop


@dataclass
class World:
    """Facts ``(entity, property) -> values`` in insertion order, and each property's last-seen argument types."""

    facts: dict[tuple[Value, str], list[Value]]
    entities: set[Value]
    properties: set[str]
    type1: dict[str, str]
    type2: dict[str, str]

    def insert(self, e1: Value, prop: str, e2: Value = True) -> None:
        self.entities.update((e1, e2))
        self.properties.update((prop, _reverse(prop)))
        self.facts.setdefault((e1, prop), []).append(e2)
        self.facts.setdefault((e2, _reverse(prop)), []).append(e1)
        self.type1[prop], self.type2[prop] = _type(e1), _type(e2)
        self.type1[_reverse(prop)], self.type2[_reverse(prop)] = _type(e2), _type(e1)

    def lookup(self, entity: Value, prop: str) -> list[Value]:
        if entity not in self.entities:
            raise ExecutionError(f"DB doesn't contain entity {entity}")
        if prop not in self.properties:
            raise ExecutionError(f"DB doesn't contain property {prop}")
        return self.facts.get((entity, prop), [])

    def make(self, ids: list[str], count: int | None = None) -> list[NameValue]:
        """``makeValues``: the named ids first, then ``type.i`` up to ``count``, each given its type once."""
        kind = _type(NameValue(ids[0]))
        made = [NameValue(ids[i] if i < len(ids) else f"{kind}.{i}") for i in range(count or len(ids))]
        for value in made:
            if value not in self.entities:
                self.insert(value, "type", NameValue(kind))
        return made


@cache
def blocks_world(count: int = BLOCKS) -> World:
    """``SimpleWorld.BlocksDomain.createEntities(count)`` with ``new Random(1)``."""
    world = World({}, set(), set(), {}, {})
    rng = JavaRandom(1)
    blocks = world.make(["en.block.block1", "en.block.block2"], count)
    shapes = world.make(["en.shape.pyramid", "en.shape.cube"])
    colors = world.make(["en.color.red", "en.color.green"])
    for block in blocks:
        world.insert(block, "shape", shapes[rng.next_int(len(shapes))])
        world.insert(block, "color", colors[rng.next_int(len(colors))])
        for size in ("length", "width", "height"):
            world.insert(block, size, NumberValue(float(rng.next_int(6) + 2), "en.inch"))
        for side in ("left", "right", "above", "below"):
            world.insert(block, side, blocks[rng.next_int(len(blocks))])
        if rng.next_double() < 0.5:
            world.insert(block, "is_special")
    return world


# ---------------------------------------------------------------------------------------------------- functions
class _Functions:
    """``SimpleWorld``'s static methods over one world; each overload is chosen by its arguments' exact types."""

    def __init__(self, world: World) -> None:
        self.world = world

    def kind(self, side: int, prop: str) -> str:
        """The type of the property's argument ``side`` (1 or 2), as the last fact stored with it left it."""
        kind = (self.world.type1 if side == 1 else self.world.type2).get(prop)
        if kind is None:
            raise ExecutionError(f"Property {prop} has no type{side}")
        return kind

    def check(self, side: int, prop: str, value: Any) -> None:
        if _type(value) != self.kind(side, prop):
            raise ExecutionError(f"Type check failed: {prop} doesn't match arg{side} {value}")

    def get_property(self, objects: list[Value], prop: str) -> list[Value]:
        out: list[Value] = []
        seen: set[Value] = set()
        for obj in objects:
            values = self.world.lookup(obj, prop)
            self.check(1, prop, obj)
            for value in values:
                if value not in seen:
                    out.append(value)
                    seen.add(value)
        if not out:
            raise ExecutionError(f"The property {prop} does not appear in any of the objects")
        return out

    def filter(self, entities: list[Value], prop: str, compare: str, refs: list[Value]) -> list[Value]:
        for ref in refs:
            self.check(2, prop, ref)
        kept = []
        for entity in entities:
            if not isinstance(entity, NameValue):
                continue
            values = self.world.lookup(entity, prop)
            self.check(1, prop, entity)
            match = _compare(compare, values, refs)
            if match:
                kept.append(entity)
        return kept

    def superlative(self, entities: list[Value], mode: str, prop: str) -> list[Value] | None:
        scored = []
        for entity in entities:
            degree = _degree(self.world.lookup(entity, prop), mode)
            self.check(1, prop, entity)
            scored.append((entity, degree))
        return _extremes(scored, mode)

    def counted(self, entities: list[Value], prop: str, restrictors: list[Value] | None) -> list[tuple[Value, int]]:
        for value in restrictors or ():
            self.check(2, prop, value)
        if _numeric(self.kind(2, prop)):
            raise ExecutionError(f"Property {prop} has numeric type2, which is not allowed")
        out = []
        for entity in entities:
            values = self.world.lookup(entity, prop)
            degree = sum(1 for v in values if restrictors is None or v in restrictors)
            self.check(1, prop, entity)
            out.append((entity, degree))
        return out

    def count_superlative(self, entities: list[Value], mode: str, prop: str,
                          restrictors: list[Value] | None = None) -> list[Value] | None:
        return _extremes(self.counted(entities, prop, restrictors), mode)

    def count_comparative(self, entities: list[Value], prop: str, mode: str, threshold: NumberValue,
                          restrictors: list[Value] | None = None) -> list[Value]:
        tests: dict[str, Callable[[float], bool]] = {
            "=": lambda d: d == threshold.value, "<": lambda d: d < threshold.value,
            ">": lambda d: d > threshold.value, "<=": lambda d: d <= threshold.value,
            ">=": lambda d: d >= threshold.value}
        counted = self.counted(entities, prop, restrictors)
        if counted and mode not in tests:
            raise ExecutionError(f"Illegal mode: {mode}")
        return [entity for entity, degree in counted if tests[mode](degree)]

    def concat(self, first: list[Value], second: list[Value]) -> list[Value]:
        for a in first:
            for b in second:
                if _type(a) != _type(b):
                    raise ExecutionError("Intersecting objects with non-matching types")
        if first == second:
            raise ExecutionError("Cannot concatenate two copies of the same list")
        return [*first, *second]

    def aggregate(self, mode: str, values: list[Value]) -> list[Value]:
        if not values:
            raise ExecutionError(f"Can't aggregate {mode} over empty list")
        if not all(isinstance(v, NumberValue) for v in values):
            raise ExecutionError("Can only aggregate over numbers")
        total = sum(v.value for v in values)  # type: ignore[union-attr]
        if mode not in ("avg", "sum"):
            raise ExecutionError(f"Bad mode: {mode}")
        return [NumberValue(total / len(values) if mode == "avg" else total, values[0].unit)]  # type: ignore[union-attr]

    def ensure_numeric_property(self, prop: str) -> str:
        if _numeric(self.kind(2, prop)):
            return prop
        raise ExecutionError(f"Property {prop} has non-numeric type2, which is not allowed")

    def ensure_numeric_entity(self, values: list[Value]) -> list[Value]:
        if not values:
            raise ExecutionError("Index 0 out of bounds for length 0")
        if _numeric(_type(values[0])):
            return values
        raise ExecutionError(f"List {values} is non-numeric, which is not allowed")

    def domain(self, prop: str) -> list[Value]:
        return self.get_property([NameValue(self.kind(1, prop))], _reverse("type"))


def _numeric(kind: str) -> bool:
    return kind.endswith("number") or kind in ("en.date", "en.time")


def _extremes(scored: list[tuple[Value, float]], mode: str) -> list[Value] | None:
    """The entities of the first extreme degree (``max`` or else the least), ties kept in order; None for none, as
    SimpleWorld's superlatives return null (a degree of NaN never beats the first)."""
    best: list[Value] | None = None
    best_degree = math.nan
    for entity, degree in scored:
        if best is None or (degree > best_degree if mode == "max" else degree < best_degree):
            best, best_degree = [entity], degree
        elif degree == best_degree:
            best.append(entity)
    return best


def _compare(compare: str, values: list[Value], refs: list[Value]) -> bool:
    """``filter``'s comparison: ``=`` any shared value, ``!=`` none shared (not the existential reading), the
    orderings on the extreme degrees; an unknown comparison matches nothing."""
    if compare in ("=", "!="):
        return any(v in refs for v in values) == (compare == "=")
    if compare == "<":
        return _degree(values, "min") < _degree(refs, "max")
    if compare == ">":
        return _degree(values, "max") > _degree(refs, "min")
    if compare == "<=":
        return _degree(values, "min") <= _degree(refs, "max")
    if compare == ">=":
        return _degree(values, "max") >= _degree(refs, "min")
    return False


def _number(value: Value) -> float:
    if not isinstance(value, NumberValue):
        raise ExecutionError(f"Not a number: {value}")
    return value.value


def _degree(values: list[Value], mode: str) -> float:
    degree = math.nan
    for value in values:
        if not isinstance(value, NumberValue):
            raise ExecutionError(f"Can't get degree from {value}")
        if math.isnan(degree) or (value.value > degree if mode == "max" else value.value < degree):
            degree = value.value
    return degree


# Overloads: (parameter kinds, call). Kinds: "L" a list, "V" a value (entity, number, True or string value), "S" a
# Java string, "N" a number value.
Overload = tuple[str, Callable[..., Any]]


def _overloads(f: _Functions) -> dict[str, list[Overload]]:
    return {
        "singleton": [("V", lambda v: [v])],
        "reverse": [("S", _reverse)],
        "getProperty": [("VS", lambda v, p: f.get_property([v], p)), ("LS", f.get_property)],
        "filter": [("LS", lambda e, p: f.filter(e, p, "=", [True])),
                   ("LSSV", lambda e, p, c, v: f.filter(e, p, c, [v])), ("LSSL", f.filter)],
        "superlative": [("LSS", f.superlative)],
        "countSuperlative": [("LSS", f.count_superlative), ("LSSL", f.count_superlative)],
        "countComparative": [("LSSN", f.count_comparative), ("LSSNL", f.count_comparative)],
        "concat": [("VV", lambda a, b: f.concat([a], [b])), ("LL", f.concat)],
        "aggregate": [("SL", f.aggregate)],
        "sum": [("L", lambda vs: [NumberValue(sum(_number(v) for v in vs))])],
        "ensureNumericProperty": [("S", f.ensure_numeric_property)],
        "ensureNumericEntity": [("V", lambda v: f.ensure_numeric_entity([v])), ("L", f.ensure_numeric_entity)],
        "domain": [("S", f.domain)],
        "listValue": [("*", _list_value)],
    }


def _kind(arg: Any) -> str:
    if isinstance(arg, list):
        return "L"
    if isinstance(arg, str) and not isinstance(arg, _StringValue):
        return "S"
    if isinstance(arg, NumberValue):
        return "N"
    return "V"


class _StringValue(str):
    """A ``StringValue`` produced by a function (never by ``(string x)``, which is a Java string)."""


def _fits(kinds: str, args: tuple[Any, ...]) -> bool:
    if kinds == "*":
        return len(args) == 1
    if len(kinds) != len(args):
        return False
    return all(want == got or (want == "V" and got == "N") for want, got in zip(kinds, map(_kind, args),
                                                                                 strict=True))


def _list_value(obj: Any) -> tuple[Value, ...]:
    if obj is None:
        raise ExecutionError("Unhandled object: null")
    values = [_as_value(v) for v in obj] if isinstance(obj, list) else [_as_value(obj)]
    return tuple(sorted(values, key=_sort_key))


def _as_value(obj: Any) -> Value:
    if isinstance(obj, bool | NameValue | NumberValue):
        return obj
    if isinstance(obj, int):
        return NumberValue(float(obj), "count")
    if isinstance(obj, str):
        return _StringValue(obj)
    raise ExecutionError(f"Unhandled object: {obj!r}")


def _sort_key(value: Value) -> tuple[str, str]:
    return (type(value).__name__, repr(value))


def _evaluate(node: Any, calls: dict[str, list[Overload]], depth: int = 0) -> Any:
    if depth > 100:
        raise ExecutionError("nested too deep")
    if isinstance(node, str):
        if node.startswith("en.") or node.startswith("fb:"):
            return NameValue(node)
        raise ExecutionError(f"unknown atom {node[:40]!r}")
    if not isinstance(node, Group) or node.opener != "(" or not node.items:
        raise ExecutionError("not a formula")
    head, *rest = node.items
    if head == "string" and len(rest) == 1 and isinstance(rest[0], str):
        text = rest[0]
        return json.loads(text) if text.startswith('"') else text
    if head == "number" and rest and all(isinstance(r, str) for r in rest) and len(rest) <= 2:
        try:
            value = float(rest[0])  # type: ignore[arg-type]
        except ValueError:
            raise ExecutionError(f"not a number: {rest[0]!r}") from None
        return NumberValue(value, *rest[1:])  # type: ignore[arg-type]
    if head != "call" or not rest or not isinstance(rest[0], str):
        raise ExecutionError(f"unsupported formula ({str(head)[:20]} ...)")
    name, args = rest[0], tuple(_evaluate(arg, calls, depth + 1) for arg in rest[1:])
    if name == ".size":
        if len(args) != 1 or not isinstance(args[0], list):
            raise ExecutionError("Method size not found")
        return len(args[0])
    for kinds, call in calls.get(name, ()):
        if _fits(kinds, args):
            return call(*args)
    raise ExecutionError(f"Method {name[:40]} not found with arguments of kinds {''.join(map(_kind, args))}")


def execute(formula: str, world: World | None = None) -> Any:
    """What ``formula`` (a simplified Overnight formula, ``(call listValue ...)``) evaluates to in ``world`` (the
    blocks world by default); an ``ExecutionError`` where SEMPRE would throw."""
    try:
        tree = read_lispress(formula)
    except LispressError as exc:
        raise ExecutionError(f"not one formula: {exc}") from None
    return _evaluate(tree, _overloads(_Functions(world or blocks_world())))


def denotation(formula: str, world: World | None = None) -> Any:
    """The formula's value as SEMPRE returns it, or None if executing it fails: ``listValue``'s sorted list as a
    tuple; a list from any other function as a list in its own order, and a single value as itself (SEMPRE
    compares a ``ListValue`` with its order, and a bare value never equals one)."""
    try:
        value = execute(formula, world)
        return [_as_value(v) for v in value] if isinstance(value, list) else value
    except (ExecutionError, RecursionError):
        return None
