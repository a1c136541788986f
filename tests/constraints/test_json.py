"""The JSON form: documented shape, round trip, and errors that name the field path."""

from __future__ import annotations

import pytest

from corral import from_json, parse
from corral.constraints import ConstraintJSONError, to_json


def test_documented_shape():
    c = parse("sentence: count(text, word) == 10 and pos(text, word, 3) == 'soft'")
    assert to_json(c) == {
        "format": "corral.constraint.v1",
        "level": "sentence",
        "profile": "default",
        "body": {"kind": "and", "parts": [
            {"kind": "count", "of": "text", "level": "word", "rel": "==", "value": 10},
            {"kind": "match", "of": {"kind": "pos", "of": "text", "level": "word", "index": 3}, "rel": "==",
             "value": "soft"},
        ]},
    }
    assert from_json(to_json(c)) == c


def test_bare_node_is_a_body():
    assert from_json({"kind": "count", "of": "text", "level": "word", "rel": ">=", "value": 3}) == parse(
        "count(text, word) >= 3")


@pytest.mark.parametrize(("data", "path", "message"), [
    ([], "$", "expected an object"),
    ({"body": {"kind": "count", "of": "text", "level": "wrd", "rel": "==", "value": 1}}, "body.level",
     "unknown level 'wrd'"),
    ({"body": {"kind": "and", "parts": [{"kind": "count", "of": "text", "level": "word", "rel": "==",
                                          "value": "3"}, {"kind": "match", "of": "text", "rel": "==",
                                                          "value": "x"}]}},
     "body.parts[0].value", "expected a whole number"),
    ({"body": {"kind": "match", "of": {"kind": "pos", "of": "text", "level": "word", "index": 0}, "rel": "==",
               "value": "x"}}, "body.of.index", "1-based"),
    ({"body": {"kind": "nope"}}, "body.kind", "unknown base constraint 'nope'"),
    ({"body": {"kind": "match", "of": "text", "rel": "~", "value": "x"}}, "body.rel", "expected one of"),
    ({"body": {"kind": "match", "of": "text", "rel": "==", "value": "x", "extra": 1}}, "body",
     "unknown keys ['extra']"),
    ({"body": {"kind": "match", "of": "text", "rel": "=="}}, "body.value", "missing"),
    ({"profile": "nope", "body": {"kind": "match", "of": "text", "rel": "==", "value": "x"}}, "profile",
     "unknown segmentation profile"),
])
def test_errors_name_the_path(data, path, message):
    with pytest.raises(ConstraintJSONError) as info:
        from_json(data)
    assert info.value.path == path
    assert message in str(info.value)
