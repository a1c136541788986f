"""Bounds added to a JSON Schema before llguidance compiles it, so that constrained decoding ends.

A schema with no ``maxItems``, ``maximum`` or ``maxLength`` lets a small model write digits, items or characters
until its token budget runs out (SmolLM2 wrote 500-digit integers and arrays of hundreds of ``null``s), and a
truncated sample is no sample. The YAML and XML compilers bound these themselves (``OPEN_INT_DIGITS``,
``OPEN_ITEMS``); for JSON the same bounds are written into the schema as keywords llguidance enforces.

Every added keyword only removes values, so a text of the bounded schema is valid against the original: the
narrowing is sound. It is never applied under ``not`` or ``if`` (where removing values adds some) or under
``oneOf`` (a value of two branches, invalid, could lose one of them); when the schema has any of these,
``$defs`` are left alone too, since a ``$ref`` from there may reach them.
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
    _bound(out, not _has_unsafe(schema), anything)
    if "$ref" in anything:
        out.setdefault("$defs", {})[ANY_NAME] = bounded_any()
    return out


def bounded_any(depth: int = ANY_DEPTH) -> dict[str, Any]:
    """Any JSON value, nested at most ``depth`` levels, each level bounded."""
    if depth <= 0:
        return {"type": ["null", "boolean", "integer", "number", "string"], "maxLength": OPEN_LENGTH,
                "maximum": OPEN_NUMBER, "minimum": -OPEN_NUMBER}
    inner = bounded_any(depth - 1)
    return {"maxItems": OPEN_ITEMS, "maxProperties": OPEN_ITEMS, "maxLength": OPEN_LENGTH,
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


def _bound(d: dict[str, Any], defs: bool, anything: dict[str, Any]) -> None:
    if "const" in d or "enum" in d or ("$ref" in d and len(d) == 1):
        _descend(d, defs, anything)
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
            d["maxProperties"] = max(OPEN_ITEMS, _count(d.get("minProperties")), len(listed), len(required))
        if not listed and not any(k in d for k in ("additionalProperties", "unevaluatedProperties",
                                                   "patternProperties")):
            # only for objects that list nothing: beside listed names llguidance must build a regex excluding
            # them, which made compiling JSONSchemaBench about 14 times slower
            d["additionalProperties"] = dict(anything)
    if "string" in kinds and "maxLength" not in d and "pattern" not in d:
        d["maxLength"] = max(OPEN_LENGTH, _count(d.get("minLength")))
    _descend(d, defs, anything)


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _descend(d: dict[str, Any], defs: bool, anything: dict[str, Any]) -> None:
    named = ["properties", "patternProperties"] + (["$defs", "definitions"] if defs else [])
    for keyword in named:
        if isinstance(d.get(keyword), dict):
            for sub in d[keyword].values():
                if isinstance(sub, dict):
                    _bound(sub, defs, anything)
    for keyword in ("items", "additionalProperties", "then", "else", "unevaluatedProperties", "unevaluatedItems",
                    "additionalItems"):
        if isinstance(d.get(keyword), dict):
            _bound(d[keyword], defs, anything)
    for keyword in ("prefixItems", "allOf", "anyOf"):
        if isinstance(d.get(keyword), list):
            for sub in d[keyword]:
                if isinstance(sub, dict):
                    _bound(sub, defs, anything)
