"""JSON values and schema documents as plain data: types, equality as JSON Schema sees it, walking and writing.

Nothing here knows about grammars; every other module of the schema compiler may use it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from fractions import Fraction
from typing import Any

import orjson

TYPES = ("null", "boolean", "object", "array", "integer", "float", "string")
"""The kinds of JSON values the lowering tells apart: ``number`` is ``integer`` or ``float`` (a fraction)."""
TYPE_SETS = {"null": {"null"}, "boolean": {"boolean"}, "object": {"object"}, "array": {"array"},
             "integer": {"integer"}, "number": {"integer", "float"}, "string": {"string"}}


def declared_types(d: dict[str, Any]) -> set[str]:
    """The kinds a schema's ``type`` keyword allows (every kind when it has none)."""
    declared = d.get("type")
    if declared is None:
        return set(TYPES)
    return set().union(*(TYPE_SETS[t] for t in ([declared] if isinstance(declared, str) else declared)))


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def json_types(value: Any) -> set[str]:
    if value is None:
        return {"null"}
    if isinstance(value, bool):
        return {"boolean"}
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return {"integer", "float"}
    if isinstance(value, float):
        return {"float"}
    if isinstance(value, str):
        return {"string"}
    return {"array"} if isinstance(value, list) else {"object"}


def value_key(value: Any) -> Any:
    """A key equal for values JSON Schema calls equal (1 == 1.0, but true != 1)."""
    if isinstance(value, bool) or value is None:
        return ("const", value)
    if is_number(value):
        return ("number", Fraction(value))
    if isinstance(value, str):
        return ("string", value)
    if isinstance(value, list):
        return ("array", tuple(value_key(v) for v in value))
    return ("object", tuple(sorted((k, value_key(v)) for k, v in value.items())))


def json_equal(a: Any, b: Any) -> bool:
    return value_key(a) == value_key(b)


def dedupe_values(values: Iterable[Any]) -> list[Any]:
    seen: dict[Any, Any] = {}
    for v in values:
        seen.setdefault(value_key(v), v)
    return list(seen.values())


def schema_dependencies(d: dict[str, Any]) -> dict[str, Any]:
    """``dependentSchemas`` plus draft 7's ``dependencies`` whose values are schemas."""
    found = dict(d.get("dependentSchemas", {}))
    found.update({k: v for k, v in d.get("dependencies", {}).items() if not isinstance(v, list)})
    return found


def escape_pointer(token: Any) -> str:
    return str(token).replace("~", "~0").replace("/", "~1")


def walk_schemas(schema: Any, path: str = "#") -> Iterator[tuple[dict[str, Any], str]]:
    """Every schema object inside ``schema`` (``$defs`` included) with its path."""
    if not isinstance(schema, dict):
        return
    yield schema, path
    for keyword in ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas"):
        for name, sub in schema.get(keyword, {}).items() if isinstance(schema.get(keyword), dict) else ():
            yield from walk_schemas(sub, f"{path}/{keyword}/{escape_pointer(name)}")
    for keyword in ("items", "additionalProperties", "contains", "not", "if", "then", "else", "propertyNames",
                    "unevaluatedProperties", "unevaluatedItems", "additionalItems"):
        if keyword in schema:
            yield from walk_schemas(schema[keyword], f"{path}/{keyword}")
    for keyword in ("prefixItems", "allOf", "anyOf", "oneOf"):
        for i, sub in enumerate(schema.get(keyword, ())):
            yield from walk_schemas(sub, f"{path}/{keyword}/{i}")
    if isinstance(schema.get("dependencies"), dict):
        for name, sub in schema["dependencies"].items():
            yield from walk_schemas(sub, f"{path}/dependencies/{escape_pointer(name)}")



def compact(schema: Any) -> str:
    """The schema's text as the plan reads it and llguidance gets it: compact, in the schema's own key order
    (llguidance writes properties in the order the schema lists them). orjson is 7 times faster than ``json``,
    which matters at a compile's scale (1 ms); ``json`` writes what orjson refuses (integers past 64 bits)."""
    try:
        return orjson.dumps(schema).decode()
    except TypeError:
        return json.dumps(schema, separators=(",", ":"), ensure_ascii=False)
