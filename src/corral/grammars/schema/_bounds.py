"""Bounds added to a JSON Schema before llguidance compiles it, so that constrained decoding ends.

A schema with no ``maxItems``, ``maximum``, ``maxLength`` or ``additionalProperties`` lets a small model write
digits, items, characters or extra properties until its token budget runs out (SmolLM2 wrote 500-digit
integers, arrays of hundreds of ``null``s and ``"trees:":1.0`` again and again), and a truncated sample is no
sample. The YAML and XML compilers bound these themselves (``OPEN_INT_DIGITS``,
``OPEN_ITEMS``); for JSON the same bounds are written into the schema as keywords llguidance enforces.

Every added keyword only removes values, so a text of the bounded schema is valid against the original: the
narrowing is sound. It is never applied under ``not`` or ``if`` (where removing values adds some) or under
``oneOf`` (a value of two branches, invalid, could lose one of them); when the schema has any of these,
``$defs`` are left alone too, since a ``$ref`` from there may reach them. An object that lists properties is
closed to them (``additionalProperties: false``, as the YAML and XML grammars write no extra ones either) only
where no other schema applies to the same value (``allOf``, ``anyOf``, ``then``, a ``$ref`` with siblings), so
no sibling's property is shut out.
"""

from __future__ import annotations

import copy
from typing import Any

OPEN_NUMBER = 10**15 - 1
"""How far an open side of a number reaches past the other bound (15 digits, as the YAML/XML compilers)."""
OPEN_ITEMS = 6
"""Items (and properties) at most, where the schema gives no maximum, or its minimum if larger."""
OPEN_LENGTH = 64
"""Characters at most in a string with no maxLength (and no pattern, which llguidance would have to intersect)."""
OPEN_KEYS = 1
"""Properties at most in an object that lists none (and needs no more): llguidance does not keep extra keys
distinct, and two extra keys may repeat one, which a JSON parser refuses."""
ANY_DEPTH = 2
"""How deep an unconstrained value (``{}``) may nest once bounded."""

ANY_NAME = "corral-bounded-any"
"""Where the bounded "any value" schema is kept in ``$defs``, so each open place refers to it (a copy at each
would make llguidance's grammar many times larger and slower to build)."""

_UNSAFE = ("not", "if", "oneOf")
_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")


def bounded(schema: Any) -> Any:
    """A copy of ``schema`` with bounds on every open number, array, object and string (see the module doc)."""
    if not isinstance(schema, dict):
        return schema
    out = copy.deepcopy(schema)
    nested_ids = _has_id(list(schema.values()))
    if nested_ids or ANY_NAME in (schema.get("$defs") or {}):
        anything: dict[str, Any] = bounded_any()  # a "#/..." reference would resolve inside an inner $id
    else:
        root = schema["$id"].split("#")[0] if isinstance(schema.get("$id"), str) else ""
        anything = {"$ref": f"{root}#/$defs/{ANY_NAME}"}
    _bound(out, not _has_unsafe(schema), anything, closable=True, defs_closable=_defs_closable(schema))
    if "$ref" in anything:
        out.setdefault("$defs", {})[ANY_NAME] = bounded_any()
    return out


def bounded_any(depth: int = ANY_DEPTH) -> dict[str, Any]:
    """Any JSON value, nested at most ``depth`` levels, each level bounded."""
    if depth <= 0:
        return {"type": ["null", "boolean", "integer", "number", "string"], "maxLength": OPEN_LENGTH,
                "maximum": OPEN_NUMBER, "minimum": -OPEN_NUMBER}
    inner = bounded_any(depth - 1)
    return {"maxItems": OPEN_ITEMS, "maxProperties": OPEN_KEYS, "maxLength": OPEN_LENGTH,
            "maximum": OPEN_NUMBER, "minimum": -OPEN_NUMBER, "items": inner, "additionalProperties": inner}


def _has_unsafe(schema: Any) -> bool:
    if isinstance(schema, dict):
        return any(k in schema for k in _UNSAFE) or any(_has_unsafe(v) for v in schema.values())
    if isinstance(schema, list):
        return any(_has_unsafe(v) for v in schema)
    return False


def _has_id(value: Any) -> bool:
    if isinstance(value, dict):
        return isinstance(value.get("$id"), str) or any(_has_id(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_id(v) for v in value)
    return False


def _types(d: dict[str, Any]) -> set[str]:
    declared = d.get("type")
    if isinstance(declared, str):
        declared = [declared]
    if not isinstance(declared, list):
        return set(_TYPES)
    found = {t for t in declared if isinstance(t, str)}
    return found | ({"number"} if "integer" in found else set()) | ({"integer"} if "number" in found else set())


def _number(value: Any) -> int | float | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _bound(d: dict[str, Any], defs: bool, anything: dict[str, Any], closable: bool, defs_closable: bool) -> None:
    """Bound ``d`` in place. ``closable``: no sibling schema applies to the same value (``allOf``, ``anyOf``,
    ``then`` do), so closing its object to the listed properties cannot contradict one."""
    if "const" in d or "enum" in d or ("$ref" in d and len(d) == 1):
        _descend(d, defs, anything, defs_closable)
        return
    kinds = _types(d)
    if kinds & {"integer", "number"}:
        lows = [v for v in (_number(d.get("minimum")), _number(d.get("exclusiveMinimum"))) if v is not None]
        highs = [v for v in (_number(d.get("maximum")), _number(d.get("exclusiveMaximum"))) if v is not None]
        if not highs:
            d["maximum"] = max(OPEN_NUMBER, int(max(lows)) + OPEN_NUMBER) if lows else OPEN_NUMBER
        if not lows:
            d["minimum"] = min(-OPEN_NUMBER, int(min(highs)) - OPEN_NUMBER) if highs else -OPEN_NUMBER
    if "array" in kinds:
        if "maxItems" not in d:
            d["maxItems"] = max(OPEN_ITEMS, _count(d.get("minItems")))
        if "items" not in d and "unevaluatedItems" not in d:
            d["items"] = dict(anything)
    if "object" in kinds:
        listed = d.get("properties") if isinstance(d.get("properties"), dict) else {}
        required = d.get("required") if isinstance(d.get("required"), list) else []
        composed = any(k in d for k in ("allOf", "anyOf", "$ref"))
        if "maxProperties" not in d and set(listed) <= set(required) and not composed:
            # llguidance (strict) counts properties only when every listed one is required (merged ones too)
            d["maxProperties"] = max(OPEN_KEYS if not listed else OPEN_ITEMS, _count(d.get("minProperties")),
                                     len(listed), len(required))
        if closable and _closes(d, listed, required):
            # extra properties are where a small model loops ('"trees:":1.0' again and again), and llguidance
            # lets them repeat a key; YAML and XML write none beside listed ones either
            d["additionalProperties"] = False
        if not listed and not any(k in d for k in ("additionalProperties", "unevaluatedProperties",
                                                   "patternProperties")):
            # only for objects that list nothing: beside listed names llguidance must build a regex excluding
            # them, which made compiling JSONSchemaBench about 14 times slower
            d["additionalProperties"] = dict(anything)
    if "string" in kinds and "maxLength" not in d and "pattern" not in d:
        d["maxLength"] = max(OPEN_LENGTH, _count(d.get("minLength")))
    _descend(d, defs, anything, defs_closable)


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _closes(d: dict[str, Any], listed: dict[str, Any], required: list[Any]) -> bool:
    """Whether an object listing properties may be closed to them: nothing else names or counts properties,
    and nothing it requires (directly, by ``dependentRequired``, by ``minProperties``) lies outside the list."""
    if not listed or any(k in d and not _says_nothing(k, d[k]) for k in (*_OPENERS, *_COMPOSERS)):
        return False
    dependent = d.get("dependentRequired") if isinstance(d.get("dependentRequired"), dict) else {}
    needed = {*required, *dependent, *(n for names in dependent.values() if isinstance(names, list) for n in names)}
    least = _count(d.get("minProperties"))
    # llguidance counts properties only when every listed one is required; otherwise (lenient) minProperties
    # counts extra ones, which a closed object has none of
    return needed <= set(listed) and (least == 0 or (set(listed) <= set(required) and least <= len(listed)))


def _says_nothing(keyword: str, value: Any) -> bool:
    """``additionalProperties: true`` (or ``{}``) allows what leaving it out allows."""
    return keyword in ("additionalProperties", "unevaluatedProperties") and value in (True, {})


NOTES = frozenset({"title", "description", "$comment", "default", "examples", "deprecated", "readOnly", "writeOnly"})
"""Annotations that neither constrain a value nor change how references resolve (``$id`` does)."""
_OPENERS = ("additionalProperties", "unevaluatedProperties", "patternProperties", "propertyNames", "dependencies")
_COMPOSERS = ("allOf", "anyOf", "oneOf", "$ref", "$dynamicRef", "if", "then", "else", "not", "dependentSchemas")


def _defs_closable(schema: Any) -> bool:
    """Whether objects under ``$defs`` may be closed: every reference stands alone and no applicator joins
    two schemas on one value (a definition used inside ``allOf`` must not lose its siblings' properties)."""
    if isinstance(schema, dict):
        if any(k in schema for k in ("allOf", "anyOf", "oneOf", "then", "else", "dependentSchemas",
                                     "patternProperties")):
            return False
        if "$ref" in schema and set(schema) - {"$ref", *NOTES}:
            return False
        return all(_defs_closable(v) for v in schema.values())
    if isinstance(schema, list):
        return all(_defs_closable(v) for v in schema)
    return True


def _descend(d: dict[str, Any], defs: bool, anything: dict[str, Any], defs_closable: bool) -> None:
    alone = "patternProperties" not in d  # a property's value also meets every pattern its name matches
    for keyword, closable in (("properties", alone), ("patternProperties", False)):
        if isinstance(d.get(keyword), dict):
            for sub in d[keyword].values():
                if isinstance(sub, dict):
                    _bound(sub, defs, anything, closable, defs_closable)
    if defs:
        for keyword in ("$defs", "definitions"):
            if isinstance(d.get(keyword), dict):
                for sub in d[keyword].values():
                    if isinstance(sub, dict):
                        _bound(sub, defs, anything, defs_closable, defs_closable)
    for keyword, closable in (("items", True), ("additionalProperties", True), ("then", False), ("else", False),
                              ("unevaluatedProperties", True), ("unevaluatedItems", True),
                              ("additionalItems", True)):
        if isinstance(d.get(keyword), dict):
            _bound(d[keyword], defs, anything, closable, defs_closable)
    for keyword, closable in (("prefixItems", True), ("allOf", False), ("anyOf", False)):
        if isinstance(d.get(keyword), list):
            for sub in d[keyword]:
                if isinstance(sub, dict):
                    _bound(sub, defs, anything, closable, defs_closable)
