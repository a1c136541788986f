"""The English form: Listing 11's content, regular; every property name and every constraint's exact value is in
the text, deterministically."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings

from corral.schema import describe, generate_suite, subschemas
from tests.schema.form_strategies import LISTING_7, json_literal, number, schemas

LISTING_7_ENGLISH = """The value must be an object.
Its properties:
- "footbaths" (optional): a boolean.
- "deluded" (optional): null.
- "bravadoing" (optional): a number that is strictly less than 5.131849487240756.
- "queintise" (optional): any value.
- "manucodia" (optional): a number.
- "antagonized" (optional): any value.
- "outbacker" (optional): a number.
- "sphenotripsy" (optional): a boolean.
- "hw" (optional): null.
It may have other properties.
No property is required.
"""

_NUMBERS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
            "minItems", "maxItems", "minProperties", "maxProperties")
_LITERALS = ("pattern", "format", "const", "title", "description", "default", "examples", "$comment")


def test_listing_7() -> None:
    assert describe(LISTING_7) == LISTING_7_ENGLISH


def test_nested_object_and_array_constraints() -> None:
    schema = {
        "type": "object",
        "properties": {
            "id": {"type": "integer", "minimum": 1, "multipleOf": 2},
            "tags": {"type": "array", "items": {"type": "string", "minLength": 1, "pattern": "^[a-z]+$"},
                     "minItems": 1, "uniqueItems": True},
            "geo": {"type": "object", "properties": {"lat": {"type": "number", "maximum": 90.0}},
                    "required": ["lat"], "additionalProperties": False},
            "flags": {"type": "array", "contains": {"type": "boolean"}, "minContains": 2, "maxContains": 4},
            "kind": {"enum": ["a", 1, None]},
            "when": {"type": "string", "format": "date-time"},
        },
        "required": ["id", "ghost"],
    }
    assert describe(schema) == """The value must be an object.
Its properties:
- "id" (required): an integer that is at least 1 and is a multiple of 2.
- "tags" (optional): an array that has at least 1 item and has no duplicate items.
  Each item must be a string that has at least 1 character and matches the regular expression "^[a-z]+$".
- "geo" (optional): an object.
  Its properties:
  - "lat" (required): a number that is at most 90.0.
  Required properties: "lat".
  It must have no other properties.
- "flags" (optional): an array.
  At least 2 and at most 4 of its items must be a boolean.
- "kind" (optional): any value that is one of these values: "a", 1, null.
- "when" (optional): a string that is in the "date-time" format.
Required properties: "id", "ghost".
"""


def test_constraints_for_other_types_are_conditional() -> None:
    text = describe({"type": ["string", "null"], "minLength": 2, "minimum": 3})
    assert text == ("The value must be a string or null.\nIf it is a string, it has at least 2 characters.\n"
                    "If it is a number, it is at least 3.\n")
    untyped = describe({"properties": {"a": {"type": "integer"}}, "maxItems": 3})
    assert untyped == ('The value must be any value.\nIf it is an object:\n  Its properties:\n'
                       '  - "a" (optional): an integer.\nIf it is an array, it has at most 3 items.\n')


def test_combinators_and_unknown_keywords_are_said() -> None:
    text = describe({"anyOf": [{"type": "string"}, {"type": "integer", "maximum": 5}], "not": {"const": 3},
                     "x-custom": [1, "two"], "$schema": "https://json-schema.org/draft/2020-12/schema"})
    assert "It must be at least one of these:\n- a string.\n- an integer that is at most 5." in text
    assert "It must not be any value that is exactly 3." in text
    assert 'Also: "x-custom" is [1, "two"].' in text
    assert 'dialect "https://json-schema.org/draft/2020-12/schema"' in text


def test_exact_numbers_and_escaped_names() -> None:
    text = describe({"type": "object", "properties": {"a\nb": {"type": "number", "minimum": 5.0, "maximum": 5},
                                                      "line\u2028sep": {}}})
    assert '"a\\nb"' in text and "at least 5.0" in text and "at most 5." in text
    assert '"line\\u2028sep"' in text
    assert text.splitlines() == text.split("\n")[:-1]


def test_boolean_schemas() -> None:
    assert describe(True) == "The value must be any value.\n"
    assert describe({"type": "array", "items": False}) == \
        "The value must be an array.\nEach item must be nothing (no value is allowed).\n"


def _expected_fragments(schema: Any) -> list[str]:
    """The texts every constraint of every subschema must put in the English."""
    fragments = []
    for _, node in subschemas(schema):
        for kw, value in node.items():
            if kw in _NUMBERS:
                fragments.append(number(value))
            elif kw in _LITERALS:
                fragments.append(json_literal(value))
            elif kw == "enum" and isinstance(value, list):
                fragments += [json_literal(v) for v in value]
            elif kw in ("properties", "patternProperties", "required") and isinstance(value, dict | list):
                fragments += [json_literal(name) for name in value]
            elif kw in ("minContains", "maxContains"):
                fragments.append(number(value))
            elif kw == "dependentRequired":
                fragments += [json_literal(name) for name in value]
                fragments += [json_literal(n) for names in value.values() for n in names]
            elif kw == "additionalProperties" and value is False:
                fragments.append("no ")
            elif kw == "uniqueItems":
                fragments.append("no duplicate items" if value else "may have duplicate items")
            elif kw.startswith("$") and kw not in ("$ref", "$defs", "$comment", "$schema", "$id", "$anchor"):
                fragments += [json_literal(kw), json_literal(value)]
    return fragments


@settings(max_examples=200)
@given(schemas())
def test_every_name_and_constraint_value_is_in_the_text(schema: dict) -> None:
    text = describe(schema)
    missing = [fragment for fragment in _expected_fragments(schema) if fragment not in text]
    assert missing == []


@settings(max_examples=100)
@given(schemas())
def test_deterministic_one_statement_a_line(schema: dict) -> None:
    text = describe(schema)
    assert text == describe(schema)
    assert text.startswith("The value must be ") and text.endswith(".\n")
    assert text.splitlines() == text.split("\n")[:-1]
    for name in _property_names(schema):
        assert f"- {json_literal(name)} (" in text


def _property_names(schema: Any) -> list[str]:
    return [name for _, node in subschemas(schema) if isinstance(node.get("properties"), dict)
            for name in node["properties"]]


def test_generated_suite_names_every_constraint() -> None:
    for item in generate_suite(100, 0):
        text = describe(item.schema)
        assert [fragment for fragment in _expected_fragments(item.schema) if fragment not in text] == []
