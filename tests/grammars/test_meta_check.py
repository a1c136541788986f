"""The meta-schema check's fast path (jsonschema-rs) against the library it stands in front of (jsonschema)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from corral.grammars import GrammarError
from corral.grammars._grammar import _check_schema, _check_schema_slowly  # the fast meta-check against jsonschema's
from tests.conftest import SHARED_DATA

from .._sizes import sized


def _verdict(check, schema: Any) -> bool:
    try:
        check(schema)
    except GrammarError:
        return False
    return True


def _suite_schemas() -> list[Any]:
    root = SHARED_DATA / "json-schema-test-suite"
    if not root.is_dir():
        pytest.skip(f"JSON-Schema-Test-Suite not found at {root}")
    found = []
    for path in sorted(root.rglob("*.json")):
        try:
            cases = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            continue
        found += [case["schema"] for case in cases if isinstance(case, dict) and "schema" in case] \
            if isinstance(cases, list) else []
    return found


def test_the_fast_check_refuses_only_what_jsonschema_refuses_and_differs_only_on_ecma_patterns():
    from corral.schema import generate_suite, jsonschemabench, schemastore

    schemas = [b.schema for b in jsonschemabench()] + [s.schema for s in schemastore()]
    schemas += [g.schema for g in generate_suite(200, 0)] + _suite_schemas()
    assert len(schemas) > 4000
    schemas = schemas[::sized(4, 1)]  # every fourth one, from every source (full size: all)
    only_fast_accepts = []
    for schema in schemas:
        fast, slow = _verdict(_check_schema, schema), _verdict(_check_schema_slowly, schema)
        assert fast or not slow, schema  # refused only when jsonschema refuses it too (it decides then)
        if fast and not slow:
            try:
                _check_schema_slowly(schema)
            except GrammarError as exc:
                only_fast_accepts.append(str(exc))
    # ECMA-262 patterns Python's re cannot read, lenient uri-reference, a repeated enum value (draft 4)
    assert len(only_fast_accepts) <= 20, only_fast_accepts
    assert all("'regex'" in m or "uri-reference" in m or "enum" in m for m in only_fast_accepts), only_fast_accepts


@pytest.mark.parametrize("schema, where", [({"type": "strin"}, "type"), ({"minLength": -1}, "minLength"),
                                            ({"properties": {"a": {"items": 3}}}, "properties/a/items")])
def test_a_refused_schema_still_gets_jsonschemas_message_with_its_path(schema, where):
    with pytest.raises(GrammarError, match=f"invalid JSON Schema at {where}"):
        _check_schema(schema)
