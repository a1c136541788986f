"""Hostile and unusual JSON Schemas: boolean schemas everywhere a schema goes, reference cycles that never reach into
the data refused with the cycle named, and keywords whose values break arithmetic (a tiny ``multipleOf``)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from corral.cli import app
from corral.grammars import Grammar, GrammarError, accepts
from corral.schema import SchemaInputError, check_schema, endless_cycle, mutate, parse_schema, render_schema, validate
from tests.conftest import SHARED_DATA

runner = CliRunner()
BOOLEAN_CASES = SHARED_DATA / "json-schema-test-suite" / "tests" / "draft2020-12" / "boolean_schema.json"


# ------------------------------------------------------------------------------------------- boolean schemas

def _official_boolean_cases() -> list[tuple[bool, object, bool]]:
    if not BOOLEAN_CASES.exists():
        pytest.skip(f"JSON-Schema-Test-Suite not found at {BOOLEAN_CASES}")
    groups = json.loads(BOOLEAN_CASES.read_text(encoding="utf-8"))
    return [(group["schema"], case["data"], case["valid"]) for group in groups for case in group["tests"]]


def test_boolean_schemas_validate_as_the_official_suite_says():
    cases = _official_boolean_cases()
    assert len(cases) == 18
    for schema, data, valid in cases:
        check_schema(schema)
        found = validate(schema, data)
        assert (not found) == valid, (schema, data)
        if found:
            assert found[0].keyword == "false" and "no value is valid" in found[0].message


@pytest.mark.parametrize("form", ["json", "yaml", "xml"])
@pytest.mark.parametrize("schema", [True, False])
def test_boolean_schemas_read_back_from_every_data_form(schema, form):
    assert parse_schema(render_schema(schema, form), form) is schema


@pytest.mark.parametrize("form", ["python", "english"])
def test_boolean_schemas_render_in_the_one_way_forms(form):
    assert "any value" in render_schema(True, "english") and "no value" in render_schema(False, "english")
    assert render_schema(True, form) and render_schema(False, form)


def test_boolean_schemas_in_the_cli(tmp_path: Path):
    (tmp_path / "t.json").write_text("true")
    (tmp_path / "f.json").write_text("false")
    (tmp_path / "x.json").write_text('{"a": [1, 2]}')
    valid = runner.invoke(app, ["schema", "validate", str(tmp_path / "t.json"), str(tmp_path / "x.json")])
    assert valid.exit_code == 0, valid.output
    invalid = runner.invoke(app, ["schema", "validate", str(tmp_path / "f.json"), str(tmp_path / "x.json")])
    assert invalid.exit_code == 1 and "no value is valid" in invalid.output
    for form in ("json", "yaml", "xml", "python", "english"):
        shown = runner.invoke(app, ["schema", "render", str(tmp_path / "f.json"), "--as", form])
        assert shown.exit_code == 0, (form, shown.output)
    nothing = runner.invoke(app, ["schema", "mutate", str(tmp_path / "t.json"), str(tmp_path / "x.json")])
    assert nothing.exit_code == 2 and "no single change" in nothing.output
    assert mutate(True, {"a": 1}, random.Random(0)) is None


def test_boolean_schemas_compile_or_say_why_not():
    anything = Grammar.json_schema(True)
    assert accepts(anything, '[1,{"a":null}]') and accepts(anything, '"x"')
    with pytest.raises(GrammarError, match="false allows no value"):
        Grammar.json_schema(False)


def test_boolean_subschemas_still_work():
    schema = {"type": "object", "properties": {"a": True, "b": False}}
    assert validate(schema, {"a": 1}) == []
    [broken] = validate(schema, {"b": 1})
    # jsonschema reports a false subschema without the property's name in its paths; the keyword and value say it
    assert broken.keyword == "false" and broken.seen == 1 and broken.schema_path == "/properties"


# ------------------------------------------------------------------------------------------- reference cycles

ENDLESS = {
    "itself": ({"$ref": "#"}, ["", ""]),
    "a pair of definitions": ({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
                               "$ref": "#/$defs/a"}, ["/$defs/a", "/$defs/b", "/$defs/a"]),
    "through allOf": ({"allOf": [{"$ref": "#"}]}, ["", "/allOf/0", ""]),
    "through dependentSchemas": ({"dependentSchemas": {"a": {"$ref": "#"}}}, ["", "/dependentSchemas/a", ""]),
    "through an anchor": ({"$defs": {"x": {"$anchor": "me", "not": {"$ref": "#me"}}}, "anyOf": [{"$ref": "#me"}]},
                          ["/$defs/x", "/$defs/x/not", "/$defs/x"]),
    "within an $id": ({"$defs": {"x": {"$id": "http://example.com/x", "if": {"$ref": "#"}}},
                       "allOf": [{"$ref": "#/$defs/x"}]}, ["/$defs/x", "/$defs/x/if", "/$defs/x"]),
}

RECURSION = {
    "a tree": {"$defs": {"node": {"type": "object", "properties": {
        "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}, "$ref": "#/$defs/node"},
    "a child": {"type": "object", "properties": {"child": {"$ref": "#"}}},
    "a property called properties": {"properties": {"properties": {"$ref": "#/properties/x"}, "x": {}}},
    "an $id's own root through items": {"$defs": {"x": {"$id": "http://example.com/x", "items": {"$ref": "#"}}}},
}


@pytest.mark.parametrize("name", ENDLESS)
def test_a_cycle_that_never_reaches_the_data_is_refused_with_the_cycle_named(name, tmp_path: Path):
    schema, cycle = ENDLESS[name]
    assert endless_cycle(schema) == cycle
    with pytest.raises(SchemaInputError, match="refers back to itself without reaching into the data"):
        check_schema(schema)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(schema))
    (tmp_path / "x.json").write_text('{"a": 1}')
    for command in (["validate", str(path), str(tmp_path / "x.json")], ["render", str(path), "--as", "english"],
                    ["mutate", str(path), str(tmp_path / "x.json")]):
        result = runner.invoke(app, ["schema", *command])
        assert result.exit_code == 2 and "#" + cycle[0] in result.output, (command, result.output)
        assert "Traceback" not in result.output


@pytest.mark.parametrize("name", RECURSION)
def test_recursion_through_the_data_is_ordinary(name):
    schema = RECURSION[name]
    assert endless_cycle(schema) == []
    check_schema(schema)
    assert validate(schema, {}) == []


def test_a_cycle_behind_a_property_is_checked_only_by_data_that_reaches_it():
    """SchemaStore's cloudify schema has a definition whose allOf refers to itself: most documents never reach it."""
    schema = {"$defs": {"loop": {"type": "object", "allOf": [{"$ref": "#/$defs/loop"}]}},
              "properties": {"node": {"$ref": "#/$defs/loop"}}}
    check_schema(schema)
    assert validate(schema, {"other": 1}) == []
    with pytest.raises(SchemaInputError, match="recurse without end"):
        validate(schema, {"node": {}})


def test_a_cycle_check_cannot_see_still_ends_in_one_line():
    """A cycle through a reference the check does not follow (to another resource by its URI) is caught where
    validation recurses past Python's limit."""
    schema = {"$id": "http://example.com/root", "$ref": "http://example.com/root"}
    with pytest.raises(SchemaInputError, match="recurse without end"):
        validate(schema, {"a": 1})


_SCHEMAS = st.recursive(
    st.one_of(st.booleans(), st.sampled_from([{"$ref": "#"}, {"$ref": "#/$defs/a"}, {"type": "string"}, {}])),
    lambda inner: st.one_of(
        st.fixed_dictionaries({"allOf": st.lists(inner, min_size=1, max_size=3)}),
        st.fixed_dictionaries({"not": inner}),
        st.fixed_dictionaries({"properties": st.dictionaries(st.sampled_from("ab"), inner, max_size=2)}),
        st.fixed_dictionaries({"if": inner, "then": inner}),
    ),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None)
@given(_SCHEMAS, _SCHEMAS, st.sampled_from([{}, {"a": "x"}, {"a": {"b": 1}}, [1], "s", 3]))
def test_a_schema_either_validates_or_is_refused_in_one_line(root, definition, sample):
    """Whatever the shape of references, checking and validating end in a verdict or a SchemaInputError, and a
    schema the cycle check passes never recurses without end."""
    schema = {"$defs": {"a": definition}, "allOf": [root]}
    try:
        check_schema(schema)
    except SchemaInputError:
        assert endless_cycle(schema)
        return
    try:
        validate(schema, sample)  # a verdict, or (a cycle only some data reaches) the one-line error
    except SchemaInputError as exc:
        assert "recurse without end" in str(exc)


# ------------------------------------------------------------------------------------------- numeric keywords

@pytest.mark.parametrize("step", [1e-300, 5e-324, 1e300, 0.1])
def test_mutating_a_multiple_of_with_an_extreme_step_ends_in_a_mutation_or_none(step):
    schema = {"type": "object", "properties": {"n": {"type": "number", "multipleOf": step, "maximum": 1e308}}}
    sample = {"n": 0}
    assert validate(schema, sample) == []
    for seed in range(5):
        mutation = mutate(schema, sample, random.Random(seed))
        assert mutation is None or validate(schema, mutation.sample)


@pytest.mark.parametrize(("schema", "sample"), [
    ({"uniqueItems": True}, [{"a": i} for i in range(20_000)]),  # jsonschema compares every pair of objects
    ({"type": "array", "items": {"uniqueItems": True}}, [[{"a": i} for i in range(3_000)]] * 8),
])
def test_schema_validate_past_its_budget_is_undecided(tmp_path: Path, schema: object, sample: object) -> None:
    """Validation is jsonschema's code, which ticks no meter; the check budget bounds it from outside (exit 3, as
    ``corral check``). 8,000 objects under ``uniqueItems`` took 95 s before."""
    import time

    (tmp_path / "s.json").write_text(json.dumps(schema))
    (tmp_path / "x.json").write_text(json.dumps(sample))
    started = time.monotonic()
    result = runner.invoke(app, ["schema", "validate", str(tmp_path / "s.json"), str(tmp_path / "x.json"),
                                 "--timeout", "1"])
    assert result.exit_code == 3, result.output
    assert result.output.strip() == "UNDECIDED  the check took more than 1 s"
    assert time.monotonic() - started < 1 + 10
