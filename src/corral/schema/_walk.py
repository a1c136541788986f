"""Walk every subschema of a JSON Schema and count its keywords.

Both the generator (depth, census of what it produced) and the analysis of real-world schemas need the same notion
of "a subschema position", so it lives here once. Positions follow draft 2020-12 and also the older spellings
(`definitions`, `dependencies`, array-form `items`, `additionalItems`) so that schemas found in the wild are walked
completely. Boolean subschemas (`"additionalProperties": false`) are not yielded: they carry no keywords.
"""

from __future__ import annotations

import collections
from collections.abc import Iterator
from typing import Any

# keywords whose value is a single subschema
_SINGLE = (
    "additionalItems",
    "items",
    "contains",
    "additionalProperties",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
)
# keywords whose value is an array of subschemas
_ARRAY = ("prefixItems", "allOf", "anyOf", "oneOf", "items")
# keywords whose value is an object whose values are subschemas
_MAPPING = ("$defs", "definitions", "properties", "patternProperties", "dependentSchemas", "dependencies")

#: every keyword of drafts 4 to 2020-12 (core, applicator, validation, format, content, meta-data, unevaluated)
KEYWORDS: frozenset[str] = frozenset(
    {
        "$schema", "$id", "id", "$ref", "$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor",
        "$anchor", "$vocabulary", "$comment", "$defs", "definitions",
        "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "dependencies",
        "prefixItems", "items", "additionalItems", "contains", "properties", "patternProperties",
        "additionalProperties", "propertyNames", "unevaluatedItems", "unevaluatedProperties",
        "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
        "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains", "minContains",
        "maxProperties", "minProperties", "required", "dependentRequired",
        "format", "contentEncoding", "contentMediaType", "contentSchema",
        "title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples",
    }
)  # fmt: skip


def _escape(token: str) -> str:
    """JSON-pointer escaping (RFC 6901): property names may contain '/' or '~'."""
    return token.replace("~", "~0").replace("/", "~1")


def _children(schema: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """(relative pointer, value) of every direct subschema position of one schema object, in the schema's order."""
    for key, value in schema.items():
        if key in _SINGLE and not isinstance(value, list):
            yield f"/{_escape(key)}", value
        elif key in _ARRAY and isinstance(value, list):
            for index, item in enumerate(value):
                yield f"/{_escape(key)}/{index}", item
        elif key in _MAPPING and isinstance(value, dict):
            for name, item in value.items():
                # draft-7 `dependencies` mixes subschemas with arrays of names: the walk skips the arrays
                yield f"/{_escape(key)}/{_escape(name)}", item


def _walk(schema: Any, path: str, depth: int) -> Iterator[tuple[str, dict[str, Any], int]]:
    if not isinstance(schema, dict):
        return
    yield path, schema, depth
    for relative, child in _children(schema):
        yield from _walk(child, path + relative, depth + 1)


def subschemas(schema: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield (JSON-pointer schema path, subschema) for the root ("") and every nested subschema, depth first.

    Values of `enum`, `const`, `default` and `examples` are data, never walked, so a property called "type" or an
    enum of objects is not mistaken for a keyword.
    """
    for path, sub, _ in _walk(schema, "", 0):
        yield path, sub


def schema_depth(schema: Any) -> int:
    """How many subschema hops the deepest subschema lies below the root (a lone `{"type": "string"}` is 0)."""
    return max((depth for _, _, depth in _walk(schema, "", 0)), default=0)


def keyword_census(schema: Any) -> collections.Counter[str]:
    """Count JSON Schema keywords over every subschema position; property names and unknown keys are not counted."""
    census: collections.Counter[str] = collections.Counter()
    for _, sub in subschemas(schema):
        census.update(key for key in sub if key in KEYWORDS)
    return census
