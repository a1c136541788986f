"""What a schema grammar guarantees (``Enforcement``), and the two ways a keyword falls short of it.

A keyword decoding cannot enforce is either *reported* (in ``Enforcement.after``, for a validator to check after
decoding) or, when no grammar can express the schema at all, *refused*: ``refuse`` builds the one-line
``NotExpressible`` naming the schema path and keyword. ``Unsupported`` is the internal signal of a construct a
step cannot translate; its caller decides which of the two it becomes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from .._grammar import NotExpressible

Output = Literal["json", "yaml", "xml"]
OUTPUTS: tuple[Output, ...] = ("json", "yaml", "xml")

ANNOTATIONS = frozenset({
    "$schema", "$id", "$anchor", "$dynamicAnchor", "$comment", "$defs", "definitions", "$vocabulary", "title",
    "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "contentEncoding",
    "contentMediaType", "contentSchema",
})  # fmt: skip
"""Keywords that never make a value invalid (2020-12): neither enforced nor reported."""

ASSERTIONS = frozenset({
    "type", "enum", "const", "properties", "required", "additionalProperties", "patternProperties",
    "propertyNames", "minProperties", "maxProperties", "dependentRequired", "dependentSchemas", "dependencies",
    "unevaluatedProperties", "items", "prefixItems", "additionalItems", "contains", "minContains",
    "maxContains", "minItems", "maxItems", "uniqueItems", "unevaluatedItems", "minLength", "maxLength",
    "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "$ref",
    "$dynamicRef", "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
})  # fmt: skip
"""The keywords ``enforcement`` classifies (every draft 2020-12 keyword that can reject a value)."""


@dataclass(frozen=True)
class Enforcement:
    """What decoding with ``compile_schema(schema, output)`` guarantees.

    ``exact``: the schema's keywords every accepted text satisfies. ``after``: ``(schema path, keyword, reason)``
    for each constraint only a validator after decoding can check (the path is a JSON pointer fragment such as
    ``#/properties/tags``; the keyword may be an implied one, e.g. ``additionalProperties`` left at its default).
    A text accepted by the grammar is valid whenever ``after`` is empty.
    """

    exact: tuple[str, ...]
    after: tuple[tuple[str, str, str], ...]

    @property
    def sound(self) -> bool:
        return not self.after


def enforcement_of(used: Iterable[str], after: Iterable[tuple[str, str, str]]) -> Enforcement:
    """The keywords ``used`` that no ``after`` entry names are exact."""
    after = tuple(sorted(set(after)))
    late = {keyword for _, keyword, _ in after}
    return Enforcement(tuple(sorted(set(used) - late)), after)


def refuse(path: str, keyword: str, reason: str) -> NotExpressible:
    return NotExpressible([(f"{keyword} at {path}", reason)])


class Unsupported(Exception):
    """A construct this compiler does not translate (the caller reports it with a path and keyword)."""
