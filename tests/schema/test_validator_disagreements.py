"""Where Corral's validator and jsonschema disagree on real documents, and which is right (docs/schema.md,
"Where Corral and jsonschema disagree"). Each case pins Corral's answer and shows jsonschema's, so that a change
in either is noticed."""

from __future__ import annotations

import jsonschema
import pytest

from corral.schema import is_valid

DRAFT4 = "http://json-schema.org/draft-04/schema#"

CASES = [
    # (why, schema, value, Corral's answer: the right one)
    ("ECMA-262 \\d is [0-9]; Python's takes every Unicode digit", {"type": "string", "pattern": "^\\d+$"}, "١٢",
     False),
    ("ECMA-262 $ is the very end; Python's also matches before a final newline", {"type": "string",
                                                                                 "pattern": "^abc$"}, "abc\n", False),
    ("ECMA-262 \\w is [A-Za-z0-9_]; Python's takes every Unicode letter", {"type": "string", "pattern": "^\\w+$"},
     "café", False),
    ("ECMA-262 \\s does not take U+0085 (NEL); Python's does", {"type": "string", "pattern": "^\\s+$"}, "\u0085",
     False),
    ("a draft-04 schema's format: date (defined from draft 7) is asserted, as ajv-formats does",
     {"$schema": DRAFT4, "type": "string", "format": "date"}, "not-a-date", False),
    ("a draft-04 schema's format: uri-reference (defined from draft 6) is asserted",
     {"$schema": DRAFT4, "type": "string", "format": "uri-reference"}, "a b", False),
]


def _jsonschema(schema: dict, value: object) -> bool:
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER).is_valid(value)


@pytest.mark.parametrize(("why", "schema", "value", "right"), CASES, ids=[c[0][:40] for c in CASES])
def test_corral_gives_the_right_answer_where_jsonschema_differs(why: str, schema: dict, value: object,
                                                                right: bool) -> None:
    assert is_valid(schema, value) is right, why
    assert _jsonschema(schema, value) is not right  # the disagreement is real (jsonschema with Python's re)


def test_formats_as_annotations_when_asked():
    schema = {"$schema": DRAFT4, "type": "string", "format": "date"}
    assert is_valid(schema, "not-a-date", assert_formats=False)
