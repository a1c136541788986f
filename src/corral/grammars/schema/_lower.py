"""Lowering: a JSON Schema becomes a ``Node`` of the value language (``_model``), recording every keyword it
uses and every constraint it leaves for a validator.

A schema is first *expanded*: ``$ref``, ``allOf``, ``anyOf``/``oneOf``, ``if``/``then`` are multiplied out into
alternatives, each a conjunction of keyword dicts (a ``Flat``). Each conjunction is then lowered by the kind of
value: strings and numbers here, objects (``_lower_objects``) and arrays (``_lower_arrays``) in their own
modules; ``not`` subtracts (``_exclude``). Lowering may *narrow* (fixed property order, no extra properties
unless ``additionalProperties`` is a schema, ``if``/``then`` taken as both, bounded digits): narrowing never
admits an invalid value. What cannot be lowered at all raises ``NotExpressible`` naming path and keyword.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from itertools import product
from typing import Any

from ._enforcement import ANNOTATIONS, ASSERTIONS, NotExpressible, Unsupported, refuse
from ._exclude import exclude
from ._lower_arrays import ArrayLowering
from ._lower_objects import ObjectLowering
from ._model import (
    ANY_DEPTH,
    MAX_COMBINATIONS,
    MAX_NESTING,
    MULTIPLES,
    Alt,
    Arr,
    Const,
    Flat,
    Float,
    Int,
    Node,
    Obj,
    Prop,
    Str,
    node,
)
from ._narrow import NOTES
from ._numbers import float_bounds, int_bounds, min_known
from ._rx import FORMAT_PATTERNS, Rx, checked_formats, ecma_checked, format_rx, pattern_rx
from ._values import TYPE_SETS, TYPES, dedupe_values, json_equal, json_types

_EXPANDED = ("$ref", "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$dynamicRef")


@dataclass(frozen=True)
class Lowered:
    node: Node
    used: frozenset[str]
    after: tuple[tuple[str, str, str], ...]


@lru_cache(maxsize=256)
def lowered(canonical: str) -> Lowered:
    """The lowering of the schema whose compact text is ``canonical`` (refused if no value fits)."""
    schema = json.loads(canonical)
    lowerer = Lowerer(schema)
    found = lowerer.lower(schema, "#", ANY_DEPTH)
    if not found.alts:
        raise refuse("#", "type", "no value satisfies the schema (as far as the grammar can tell)")
    after = tuple((path, keyword, reason) for (path, keyword), reason in lowerer.after.items())
    return Lowered(found, frozenset(lowerer.used), after)


def _conjunction(flat: Flat) -> dict[str, Any]:
    """One alternative of a schema's expansion as a schema itself. A value valid against it is valid against
    the whole schema, and checking it costs what the alternative costs, not what the whole does (a 540 kB
    SchemaStore schema spent ~2 ms per enum value validating against every branch of its ``anyOf``)."""
    return {"allOf": [{"not": d["_not"]} if "_not" in d else d for d, _ in flat]}


class Lowerer(ObjectLowering, ArrayLowering):
    """Lowers a schema to ``Node``s, recording every used keyword and every constraint left for later."""

    def __init__(self, root: Any) -> None:
        from jsonschema import Draft202012Validator

        self.root = root
        self.validator = Draft202012Validator(root, format_checker=Draft202012Validator.FORMAT_CHECKER)
        self.after: dict[tuple[str, str], str] = {}
        self.used: set[str] = set()
        self.active: list[int] = []  # reference targets whose values are being lowered (recursion check)
        self.expanding: list[int] = []  # reference targets being expanded right now
        self.depth = 0
        self.lowered: dict[tuple[tuple[int, ...], int], tuple[list[tuple[Any, str]], Node]] = {}

    # --------------------------------------------------------------------------------------- bookkeeping
    def note(self, path: str, keyword: str, reason: str) -> None:
        self.after.setdefault((path, keyword), reason)

    def valid(self, schema: Any, value: Any) -> bool:
        return self.validator.evolve(schema=schema).is_valid(value)

    # ------------------------------------------------------------------------------------------- entry
    def lower(self, schema: Any, path: str, budget: int) -> Node:
        return self.lower_all([(schema, path)], budget)

    def lower_all(self, schemas: list[tuple[Any, str]], budget: int) -> Node:
        """The values valid against every schema in ``schemas`` (``allOf``).

        A conjunction lowered once is reused: large schemas reach the same definitions through many
        ``anyOf`` branches and properties. Reuse is sound because a finite lowering of a subschema is finite
        wherever it appears; only refusals (a reference back to an enclosing one) depend on the context, and
        those are never stored. The schemas are kept with the node so that their ids stay theirs.
        """
        key = (tuple(id(self._referenced(schema)) for schema, _ in schemas), budget)
        if key in self.lowered:
            return self.lowered[key][1]
        found = self._lower_all(schemas, budget)
        self.lowered[key] = (schemas, found)
        return found

    def _referenced(self, schema: Any) -> Any:
        """The target of a schema that only refers to another one (so that its uses share one lowering)."""
        seen = 0
        while (isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and schema["$ref"].startswith("#/")
               and set(schema) - {"$ref"} <= NOTES and seen < MAX_NESTING):
            try:
                schema, _ = self._resolve(schema["$ref"], "#")
            except NotExpressible:
                break
            seen += 1
        return schema

    def _lower_all(self, schemas: list[tuple[Any, str]], budget: int) -> Node:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise refuse(schemas[0][1], "$ref", f"nested deeper than {MAX_NESTING} levels")
        refs: list[int] = []
        try:
            flats = [()]
            for schema, path in schemas:
                flats = self.combine(flats, self.expand(schema, path, refs), path)
            self.active.extend(refs)
            alts: list[Alt] = []
            for flat in flats:
                alts.extend(self.lower_flat(flat, budget))
            return node(alts)
        finally:
            del self.active[len(self.active) - len(refs):]
            self.depth -= 1

    def combine(self, left: list[Flat], right: list[Flat], path: str) -> list[Flat]:
        out = [a + b for a, b in product(left, right)]
        if len(out) > MAX_COMBINATIONS:
            raise refuse(path, "anyOf", f"more than {MAX_COMBINATIONS} combinations of alternatives")
        return out

    # ----------------------------------------------------------------------------------------- expand
    def expand(self, schema: Any, path: str, refs: list[int]) -> list[Flat]:
        """``schema`` as alternatives, each a conjunction of keyword dicts without applicators left."""
        if schema is True:
            return [()]
        if schema is False:
            return []
        self.used.update(k for k in schema if k in ASSERTIONS)
        base = {k: v for k, v in schema.items() if k not in _EXPANDED}
        flats: list[Flat] = [((base, path),)]
        if "$dynamicRef" in schema:
            raise refuse(path, "$dynamicRef", "dynamic references are not supported")
        if "$ref" in schema:
            target, where = self._resolve(schema["$ref"], path)
            if id(target) in self.active or id(target) in self.expanding:
                raise refuse(path, "$ref", "recursive references have no finite YAML or XML grammar")
            refs.append(id(target))
            self.expanding.append(id(target))
            try:
                flats = self.combine(flats, self.expand(target, where, refs), path)
            finally:
                self.expanding.pop()
        for i, sub in enumerate(schema.get("allOf", ())):
            flats = self.combine(flats, self.expand(sub, f"{path}/allOf/{i}", refs), path)
        for keyword in ("anyOf", "oneOf"):
            if keyword in schema:
                branches = [self.expand(sub, f"{path}/{keyword}/{i}", refs) for i, sub in enumerate(schema[keyword])]
                if keyword == "oneOf" and not self.disjoint(schema["oneOf"]):
                    self.note(path, "oneOf", "branches may overlap: decoding enforces anyOf")
                flats = self.combine(flats, [f for b in branches for f in b], path)
        if "if" in schema and ("then" in schema or "else" in schema):
            # narrowing: a value valid against both `if` and `then` is valid (`else` is never taken)
            flats = self.combine(flats, self.expand(schema["if"], f"{path}/if", refs), path)
            flats = self.combine(flats, self.expand(schema.get("then", True), f"{path}/then", refs), path)
        if "not" in schema:
            flats = [(*f, ({"_not": schema["not"]}, f"{path}/not")) for f in flats]
        return flats

    def _resolve(self, ref: str, path: str) -> tuple[Any, str]:
        if ref.startswith("#/") or ref == "#":
            target: Any = self.root
            for token in ref[2:].split("/") if ref != "#" else ():
                token = token.replace("~1", "/").replace("~0", "~")
                try:
                    target = target[int(token)] if isinstance(target, list) else target[token]
                except (KeyError, IndexError, ValueError, TypeError):
                    raise refuse(path, "$ref", f"{ref!r} does not resolve in this schema") from None
            return target, ref
        try:
            return self.validator._resolver.lookup(ref).contents, ref  # anchors and $id-relative references
        except Exception:  # referencing raises several kinds; any means "not local"
            raise refuse(path, "$ref", f"{ref!r} is not a reference inside this schema") from None

    def disjoint(self, branches: list[Any]) -> bool:
        """Whether no value can match two ``oneOf`` branches (then ``anyOf`` is the same)."""
        kinds = [self._types_of(b) for b in branches]
        finite = [self._values_of(b) for b in branches]
        for i in range(len(branches)):
            for j in range(i + 1, len(branches)):
                if not (kinds[i] & kinds[j]):
                    continue
                for a, b in ((i, j), (j, i)):
                    if finite[a] is not None and not any(self.valid(branches[b], v) for v in finite[a]):
                        break
                else:
                    if not self._discriminated(branches[i], branches[j]):
                        return False
        return True

    def _types_of(self, schema: Any) -> set[str]:
        if not isinstance(schema, dict):
            return set(TYPES) if schema else set()
        kinds = set(TYPES)
        declared = schema.get("type")
        if declared is not None:
            kinds = set().union(*(TYPE_SETS[t] for t in ([declared] if isinstance(declared, str) else declared)))
        for sub in schema.get("allOf", ()):
            kinds &= self._types_of(sub)
        if "anyOf" in schema or "oneOf" in schema:
            kinds &= set().union(*(self._types_of(s) for s in schema.get("anyOf", schema.get("oneOf", []))))
        if "const" in schema or "enum" in schema:
            values = [schema["const"]] if "const" in schema else schema["enum"]
            kinds &= {t for v in values for t in json_types(v)}
        return kinds

    def _values_of(self, schema: Any) -> list[Any] | None:
        if isinstance(schema, dict) and "const" in schema:
            return [schema["const"]]
        if isinstance(schema, dict) and "enum" in schema:
            return list(schema["enum"])
        return None

    def _discriminated(self, a: Any, b: Any) -> bool:
        """Two object schemas that require one property with disjoint constant values."""
        if not isinstance(a, dict) or not isinstance(b, dict):
            return False
        for name in set(a.get("required", ())) & set(b.get("required", ())):
            va = self._values_of(a.get("properties", {}).get(name))
            vb = self._values_of(b.get("properties", {}).get(name))
            if va is not None and vb is not None and not any(json_equal(x, y) for x in va for y in vb):
                return True
        return False

    # ------------------------------------------------------------------------------------- lower_flat
    def lower_flat(self, flat: Flat, budget: int) -> list[Alt]:
        """The alternatives of one conjunction of keyword dicts."""
        flat = self.dependent_schemas(flat)
        if flat is None:
            return []
        if isinstance(flat, list):  # a required trigger brought its schema in: several conjunctions
            return [alt for f in flat for alt in self.lower_flat(f, budget)]
        finite = [(d["const"],) if "const" in d else tuple(d["enum"]) for d, _ in flat if "const" in d or "enum" in d]
        if finite:
            values = dedupe_values(finite[0])
            conjunction = _conjunction(flat)
            return [alt for v in values if self.valid(conjunction, v) for alt in self.const_alts(v)]
        types = self._types(flat)
        alts: list[Alt] = []
        if "null" in types:
            alts.append(Const(None))
        if "boolean" in types:
            alts += [Const(True), Const(False)]
        if "string" in types:
            alts += self._string(flat)
        if "integer" in types or "float" in types:
            alts += self._numbers(flat, "integer" in types, "float" in types)
        if "object" in types:
            alts += self.objects(flat, budget)
        if "array" in types:
            alts += self.arrays(flat, budget)
        for d, path in flat:
            if "_not" in d:
                alts = self._negate(alts, d["_not"], path, budget)
        return alts

    def _types(self, flat: Flat) -> set[str]:
        kinds = set(TYPES)
        for d, _ in flat:
            declared = d.get("type")
            if declared is not None:
                names = [declared] if isinstance(declared, str) else declared
                kinds &= set().union(*(TYPE_SETS[t] for t in names))
        return kinds

    def const_alts(self, value: Any) -> list[Alt]:
        if isinstance(value, dict):
            props = tuple(Prop(k, node(self.const_alts(v)), True) for k, v in value.items())
            return [Obj(props=props, extra=None, extra_max=0)]
        if isinstance(value, list):
            items = tuple(node(self.const_alts(v)) for v in value)
            return [Arr(prefix=items, tail=None, min=len(items), max=len(items))]
        return [Const(value)]

    # ------------------------------------------------------------------------------------------ strings
    def _string(self, flat: Flat) -> list[Alt]:
        lo, hi = 0, None
        include: list[Rx] = []
        outer: list[Rx] | None = []
        for d, path in flat:
            lo = max(lo, d.get("minLength", 0))
            if "maxLength" in d:
                hi = min_known(hi, d["maxLength"])
            if "pattern" in d:
                ecma_checked(d["pattern"], path, "pattern")
                try:
                    include.append(pattern_rx(d["pattern"]))
                    if outer is not None:
                        outer.append(pattern_rx(d["pattern"], outer=True))
                except Unsupported as exc:
                    self.note(path, "pattern", str(exc))
            if "format" in d:
                fmt = d["format"]
                if fmt in FORMAT_PATTERNS:
                    include.append(format_rx(fmt))
                    outer = None
                elif fmt in checked_formats():
                    self.note(path, "format", f"no regular expression for format {fmt!r}")
        if hi is not None and lo > hi:
            return []
        return [Str(lo, hi, tuple(dict.fromkeys(include)), (), None if outer is None else tuple(outer))]

    # ------------------------------------------------------------------------------------------ numbers
    def _multiples(self, step: Fraction, bounds: list[tuple[str, Any]], flat: Flat) -> list[Const]:
        """A window of multiples of a fractional ``multipleOf`` (narrowing), each checked by the validator:
        whether ``x / step`` is integral in floating point decides, so no regular expression is exact. Each
        multiple is tried as the short decimal a person writes (94 × 9.81 = 922.14) and as float products."""
        lows = [Fraction(v) / step for k, v in bounds if k in ("minimum", "exclusiveMinimum")]
        highs = [Fraction(v) / step for k, v in bounds if k in ("maximum", "exclusiveMaximum")]
        lo = math.floor(max(lows)) if lows else None
        hi = math.ceil(min(highs)) if highs else None
        complete = lo is not None and hi is not None and hi - lo <= MULTIPLES
        if lo is None:
            lo = hi - MULTIPLES if hi is not None else -MULTIPLES // 5  # mostly positive: what values tend to be
        if hi is None or hi - lo > MULTIPLES:
            hi = lo + MULTIPLES
        decimal_step = Decimal(repr(float(step)))
        conjunction = _conjunction(flat)
        values: list[int | float] = []
        for k in range(lo, hi + 1):
            for v in {float(decimal_step * k), float(k * step), k * float(step)}:
                if math.isfinite(v) and self.valid(conjunction, v):
                    values.append(v)
        return [Const(v, partial=not complete) for v in dedupe_values(values)]

    def _numbers(self, flat: Flat, integers: bool, floats: bool) -> list[Alt]:
        bounds = [(k, d[k]) for d, _ in flat for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
                  if k in d and not isinstance(d[k], bool)]
        mult = 1
        whole_multiple = False  # any integral multipleOf, 1 included: then only integers are written
        for d, _ in flat:
            if "multipleOf" in d:
                m = Fraction(d["multipleOf"])
                if m.denominator == 1:
                    mult = math.lcm(mult, int(m))
                    whole_multiple = True
        alts: list[Alt] = []
        if integers:
            lo, hi = int_bounds(bounds)
            if lo is None or hi is None or lo <= hi:
                alts.append(Int(lo, hi, mult if mult > 1 else None))
        fractional = [Fraction(d["multipleOf"]) for d, _ in flat
                      if "multipleOf" in d and Fraction(d["multipleOf"]).denominator != 1]
        if fractional:
            return self._multiples(fractional[0], bounds, flat)
        if floats and not whole_multiple:
            found = float_bounds(bounds)
            if found is not None:
                lo_d, hi_d = found
                alts.append(Float(lo_d, hi_d, nonint=not integers, exponent=not bounds and integers))
        return alts
    # --------------------------------------------------------------------------------------------- not
    def _negate(self, alts: list[Alt], schema: Any, path: str, budget: int) -> list[Alt]:
        if isinstance(schema, dict) and set(schema) <= {"required"} | ANNOTATIONS:
            forbid = set(schema.get("required", ()))
            if not forbid:
                return []
            out: list[Alt] = []
            for alt in alts:
                if isinstance(alt, Obj):
                    if forbid <= {p.name for p in alt.props if p.required}:
                        continue  # not(required) asks that one of them be missing
                    alt = Obj(tuple(p for p in alt.props if not (p.name in forbid and not p.required)), alt.extra,
                              alt.extra_min, alt.extra_max, alt.reserved | forbid)
                out.append(alt)
            return out
        try:
            c_node = self.lower(schema, path, budget)
            return list(exclude(node(alts), c_node, lambda value: self.valid(schema, value)).alts)
        except Unsupported as exc:
            raise refuse(path, "not", str(exc)) from None
