"""JSON output: llguidance's own JSON Schema compiler, on the plan's schema (``_plan``), and what it leaves
unchecked (``json_enforcement``: found by probing llguidance, see docs/schema-grammars.md)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

from .._grammar import Grammar, GrammarError
from ._enforcement import ASSERTIONS, Enforcement, Unsupported, enforcement_of, refuse
from ._lower import Lowerer
from ._narrow import bounded, narrowed
from ._plan import JSON_FORMATS_EXACT, JSON_FORMATS_UNSOUND, JSON_IGNORED, JsonPlan, json_plan, llg_error
from ._rx import checked_formats, constant_name, pattern_rx, sre_parser
from ._values import compact, declared_types, is_number, walk_schemas


def json_grammar(schema: Any, canonical: str, bounds: bool = False) -> Grammar:
    """llguidance's grammar for the plan (``_plan``) of ``schema`` (checked; compact text ``canonical``), narrowed
    so that its texts are valid (``_narrow.narrowed``); with ``bounds``, also bounded so that decoding ends,
    falling back to the plain narrowing if llguidance refuses the bounded schema. The bounded path compiles to
    check (it is for decoding under a budget, where a refusal must be known before the first token); the plain
    one leaves llguidance's own refusals to the grammar's first compile."""
    plan = json_plan(canonical)
    planned = plan.applied_to(schema)
    if bounds:
        try:
            return Grammar.json_schema(narrowed(bounded(planned), canonical), description="JSON Schema (bounded)")
        except GrammarError:
            pass
        if not plan.compiled and (error := llg_error(plan.source)) is not None:
            raise refuse("#", "(schema)", f"llguidance refuses it: {error}")
    decoded = narrowed(planned, canonical)
    # the schema passed its meta-schema check already: Grammar.json_schema would check it again
    return Grammar("json_schema", plan.source if decoded is planned else compact(decoded), "JSON Schema")


def json_enforcement(schema: Any, canonical: str, bounds: bool = False) -> Enforcement:
    """Each keyword of ``schema`` (compact text: ``canonical``) as llguidance's compiler treats it (see
    ``JSON_IGNORED`` and the format tables)."""
    plan = json_plan(canonical)
    lowerer = Lowerer(schema)
    used: set[str] = set()
    after: list[tuple[str, str, str]] = []
    planned = plan.applied_to(schema)
    decoded = narrowed(bounded(planned) if bounds else planned, canonical)
    # what decoding sees at each place: narrowing closes objects, bounds numbers, gives open places a value
    shapes = {path: d for d, path in walk_schemas({} if decoded is True else decoded)}
    overflowing = {path for path, d in shapes.items() if _overflows(d)}
    for d, path in walk_schemas({} if schema is True else schema):
        used.update(k for k in d if k in ASSERTIONS)
        parent = _BRANCH.fullmatch(path)
        closed_above = parent is not None and isinstance(shapes.get(parent[1] or "#"), dict) and \
            shapes[parent[1] or "#"].get("additionalProperties") is False
        for keyword, reason in _json_gaps(d, path, plan, lowerer, shapes.get(path, d)):
            if not (closed_above and keyword == "additionalProperties"):  # (a branch meets its closed object)
                after.append((path, keyword, reason))
        if path in overflowing:
            after.append((path, "type", "llguidance lets an unbounded number take an exponent past a float's range "
                                        "(1e999), which the sample parser refuses"))
    return enforcement_of(used, after)


_BRANCH = re.compile(r"(.*)/(?:anyOf|oneOf|allOf)/\d+")
"""A branch's path, and its object's: llguidance intersects the branch with the object beside it."""


def _overflows(d: dict[str, Any]) -> bool:
    """Whether llguidance may write a number here with an exponent that overflows a float: it writes exponents
    only for a number with no bound and no ``multipleOf`` (probed)."""
    if not _may_be_fractional(d) or "multipleOf" in d:
        return False
    bounded_here = any(is_number(d.get(k)) for k in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"))
    delegated = any(k in d for k in ("$ref", "allOf", "anyOf", "oneOf")) and "type" not in d
    return not bounded_here and not delegated


def _json_gaps(d: dict[str, Any], path: str, plan: JsonPlan, lowerer: Lowerer,
               shape: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """The keywords of ``d`` decoding leaves unchecked; ``shape`` is ``d`` as decoding gets it (bounded or not)."""
    for keyword, reason in JSON_IGNORED.items():
        if keyword in d and not (keyword == "uniqueItems" and d[keyword] is False):
            yield keyword, reason
    gone = {keyword for where, keyword in plan.dropped if where == path}
    for keyword in sorted(gone):
        yield keyword, "llguidance cannot compile this value, so decoding drops it"
    if isinstance(d.get("pattern"), str) and "pattern" not in gone:
        risk = json_pattern_risk(d["pattern"])
        if risk:
            yield "pattern", risk
    if isinstance(d.get("patternProperties"), dict):  # a property name's pattern is read as llguidance reads it
        risks = [risk for name in d["patternProperties"] if isinstance(name, str)
                 for risk in [json_pattern_risk(name)] if risk]
        if risks:
            yield "patternProperties", f"a property-name pattern: {risks[0]}"
        elif shape.get("additionalProperties", True) is not False:
            # seen in a property test: a key written with escapes (\\, \\u6eb1) that decodes to a match took
            # the extra properties' schema instead of the pattern's
            yield "patternProperties", "llguidance may read an escaped extra key as not matching a pattern"
    fmt = d.get("format")
    if isinstance(fmt, str) and fmt in checked_formats() and fmt not in JSON_FORMATS_EXACT:
        yield "format", JSON_FORMATS_UNSOUND.get(fmt, f"llguidance does not know format {fmt!r} (lenient mode)")
    if "multipleOf" in d and "multipleOf" not in gone and Fraction(d["multipleOf"]).denominator != 1:
        yield "multipleOf", "not an integer: jsonschema's floating-point division decides"
    if _may_be_fractional(d):
        for keyword in ("exclusiveMinimum", "exclusiveMaximum"):
            if keyword in d and keyword not in gone:
                yield keyword, "a decimal just inside the bound can round onto it as a float"
    if "oneOf" in d and not plan.strict and not lowerer.disjoint(d["oneOf"]):
        yield "oneOf", "lenient mode turns oneOf into anyOf and the branches may overlap"
    if not plan.strict and "maxProperties" in d and not set(d.get("properties", {})) <= set(d.get("required", ())):
        # lenient mode counts only the extra properties (so minProperties holds, narrowly; maxProperties not)
        yield "maxProperties", "llguidance counts only extra properties when some listed ones are optional"
    if _open_object(shape):
        yield "additionalProperties", "llguidance lets an extra property repeat a key, which a JSON parser refuses"
    if _open_items(shape):
        yield "items", "items left open may be objects, and llguidance lets an object repeat a key"


def _open_items(d: dict[str, Any]) -> bool:
    """Whether an array here may hold any value (no ``items``), so possibly an object with a repeated key."""
    if "array" not in declared_types(d) or "const" in d or "enum" in d or d.get("maxItems") == 0:
        return False
    if "items" in d or "unevaluatedItems" in d:
        return False  # bounded items ("any value", bounded) hold objects of one key at most
    delegated = any(k in d for k in ("$ref", "allOf", "anyOf", "oneOf")) and "type" not in d
    return not delegated


def _may_be_fractional(d: dict[str, Any]) -> bool:
    return "float" in declared_types(d) and "const" not in d and "enum" not in d


def _open_object(d: dict[str, Any]) -> bool:
    """Whether llguidance may write an object with keys beyond ``properties`` here (so possibly repeated)."""
    if "object" not in declared_types(d) or "const" in d or "enum" in d or d.get("additionalProperties") is False:
        return False
    if is_number(d.get("maxProperties")) and d["maxProperties"] <= 1:
        return False  # one key cannot repeat
    delegated = any(k in d for k in ("$ref", "allOf", "anyOf", "oneOf")) and "type" not in d
    return not delegated


def json_pattern_risk(pattern: str) -> str | None:
    """Why llguidance's reading of ``pattern`` may accept strings the validators refuse (None: it is safe)."""
    try:
        pattern_rx(pattern)
    except Unsupported as exc:
        return f"not checked against the validators' regex engines: {exc}"
    sre = sre_parser()
    parsed = sre.parse(pattern).data
    if _has_op(parsed, sre, negated_category=True):
        return ("llguidance's \\s (it takes U+0085), \\D, \\W, \\S (or a negated class with \\d, \\w, \\s) differ "
                "from ECMA-262's")
    if _has_op(parsed, sre, any_char=True):
        return "llguidance's '.' matches \\r, which ECMA-262's does not"
    if _has_op(parsed, sre, escaped_excluded=True):
        return "llguidance's negated class still takes an escaped '\"' or '\\\\' (probed: [^\"] accepts \\\")"
    return None


_ESCAPED = (ord('"'), ord("\\"))
"""The characters JSON writes escaped: llguidance's negated classes do not keep them out."""


def _risky_category(name: str) -> bool:
    """A negated class escape, or ``\\s``: llguidance's takes U+0085 (NEL), which ECMA-262's does not."""
    return "NOT" in name or "SPACE" in name


def _has_op(items, sre, negated_category: bool = False, any_char: bool = False,
            escaped_excluded: bool = False) -> bool:
    for op, av in items:
        if any_char and op is sre.ANY:
            return True
        if escaped_excluded and op is sre.NOT_LITERAL and av in _ESCAPED:
            return True
        if escaped_excluded and op is sre.IN and av and av[0][0] is sre.NEGATE and any(
                (o is sre.LITERAL and a in _ESCAPED) or (o is sre.RANGE and any(a[0] <= c <= a[1] for c in _ESCAPED))
                for o, a in av[1:]):
            return True
        if negated_category and op is sre.IN:
            negate = bool(av) and av[0][0] is sre.NEGATE
            for sub_op, sub_av in av:
                if sub_op is sre.CATEGORY and (negate or _risky_category(constant_name(sub_av))):
                    return True
        if negated_category and op is sre.CATEGORY and _risky_category(constant_name(av)):
            return True
        subs = []
        if op is sre.BRANCH:
            subs = [b.data for b in av[1]]
        elif op is sre.SUBPATTERN:
            subs = [av[3].data]
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
            subs = [av[2].data]
        if any(_has_op(sub, sre, negated_category, any_char, escaped_excluded) for sub in subs):
            return True
    return False

