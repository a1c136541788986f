"""The seeded ConCodeEval-style schema generator, the valid-sample drawer and the subschema walker."""

from __future__ import annotations

import copy
import json
import math
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from corral.schema import (
    ALL_KEYWORDS,
    CONCODE,
    GeneratorConfig,
    NoSampleError,
    generate_one,
    generate_schema,
    generate_suite,
    keyword_census,
    schema_depth,
    subschemas,
    suite_census,
    valid_sample,
)
from corral.schema import GENERATOR_PATTERNS as PATTERNS
from corral.schema import STRING_FORMATS as FORMATS
from corral.schema import sample_words as words

SEEDS = st.integers(min_value=0, max_value=2**40)


def _validator(schema: object) -> Draft202012Validator:
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def _errors(schema: object, instance: object) -> list[str]:
    return [error.message for error in _validator(schema).iter_errors(instance)]


@pytest.fixture(scope="module")
def suite():
    return generate_suite(602, 0)


# ---------------------------------------------------------------- generated schemas


@given(SEEDS)
@settings(max_examples=150)
def test_every_generated_schema_is_valid_and_satisfiable(seed):
    schema = generate_schema(seed)
    Draft202012Validator.check_schema(schema)
    for draw in range(3):
        sample = valid_sample(schema, random.Random(draw))
        assert _errors(schema, sample) == [], (schema, sample)


@given(SEEDS)
@settings(max_examples=60)
def test_generation_is_deterministic_per_seed(seed):
    state = random.getstate()
    first = generate_schema(seed)
    random.seed(12345)  # the global generator must not matter
    second = generate_schema(seed)
    random.setstate(state)
    assert json.dumps(first) == json.dumps(second)  # same keys in the same order
    assert valid_sample(first, random.Random(seed)) == valid_sample(second, random.Random(seed))


def test_different_seeds_give_different_schemas():
    texts = {json.dumps(generate_schema(seed)) for seed in range(40)}
    assert len(texts) >= 35


def _check_sensible(path: str, sub: dict) -> None:
    """The satisfiability rules the generator promises, one subschema at a time."""
    lows = [sub[key] for key in ("minimum", "exclusiveMinimum") if key in sub]
    highs = [sub[key] for key in ("maximum", "exclusiveMaximum") if key in sub]
    if lows and highs:
        assert max(lows) < min(highs), path
    if "minLength" in sub and "maxLength" in sub:
        assert sub["minLength"] <= sub["maxLength"], path
    if "pattern" in sub:
        entry = next(entry for entry in PATTERNS if entry[0] == sub["pattern"])
        assert max(sub.get("minLength", 0), entry[1]) <= min(sub.get("maxLength", math.inf), entry[2]), path
    if "format" in sub:
        assert sub["format"] in FORMATS, path
    if "minItems" in sub and "maxItems" in sub:
        assert sub["minItems"] <= sub["maxItems"], path
    if "maxContains" in sub:
        assert sub.get("minContains", 1) <= sub["maxContains"] <= sub.get("maxItems", math.inf), path
    if "minContains" in sub or "maxContains" in sub:
        assert "contains" in sub, path
    if "required" in sub:
        assert set(sub["required"]) <= set(sub.get("properties", {})), path
    if "enum" in sub:
        assert 2 <= len(sub["enum"]) <= 5 and len({json.dumps(v) for v in sub["enum"]}) == len(sub["enum"]), path
        checker = Draft202012Validator.TYPE_CHECKER
        assert all(checker.is_type(value, sub["type"]) for value in sub["enum"]), path
    if "multipleOf" in sub:
        assert sub["multipleOf"] > 0, path


@given(SEEDS)
@settings(max_examples=150)
def test_constraint_combinations_are_sensible(seed):
    for path, sub in subschemas(generate_schema(seed)):
        _check_sensible(path, sub)


def test_suite_covers_every_keyword_with_ids_and_valid_samples(suite):
    census = suite_census(suite)
    assert set(census) == set(ALL_KEYWORDS)
    assert census == {key: sum(item.census.get(key, 0) for item in suite) for key in census}
    assert list(census.values()) == sorted(census.values(), reverse=True)
    assert [item.id for item in suite] == [f"s{index:04d}" for index in range(1, 603)]
    assert len({item.seed for item in suite}) == 602
    for item in suite:
        assert _errors(item.schema, item.sample) == [], item.id
        assert item.census == dict(keyword_census(item.schema))
        assert item.size == sum(item.census.values())
        assert item.depth == schema_depth(item.schema) <= CONCODE.max_depth


def test_suite_looks_like_concodeeval(suite):
    roots = [item.schema.get("type") for item in suite]
    assert roots.count("object") > 0.5 * len(suite)
    assert roots.count("array") > 0.1 * len(suite)
    assert {"string", "number", "integer", "boolean", "null"} <= set(roots)
    objects = [item.schema for item in suite if item.schema.get("type") == "object"]
    counts = [len(schema.get("properties", {})) for schema in objects]
    assert min(counts) >= CONCODE.min_properties and max(counts) == CONCODE.max_properties
    assert {item.depth for item in suite} >= {0, 1, 2, 3}
    kinds = {json.dumps(sub) for item in suite for _, sub in subschemas(item.schema)}
    assert {"{}", '{"type": "null"}', '{"type": "boolean"}'} <= kinds  # as in the paper's Listing 7


def test_suite_items_regenerate_from_their_own_seed(suite):
    for item in suite[::50]:
        assert generate_schema(item.seed) == item.schema
        assert generate_one(int(item.id[1:]) - 1, 0) == item


def test_number_bounds_look_like_the_paper(suite):
    floats = [
        sub[key]
        for item in suite
        for _, sub in subschemas(item.schema)
        for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
        if isinstance(sub.get(key), float)
    ]
    steps = [sub["multipleOf"] for item in suite for _, sub in subschemas(item.schema) if "multipleOf" in sub]
    assert len(floats) > 200 and any(len(repr(value)) > 12 for value in floats)  # 27.65410407394338
    assert any(isinstance(step, int) for step in steps) and any(isinstance(step, float) for step in steps)


# ---------------------------------------------------------------- knobs


@given(SEEDS, st.integers(min_value=0, max_value=3))
@settings(max_examples=80)
def test_max_depth_is_respected(seed, depth):
    schema = generate_schema(seed, GeneratorConfig(max_depth=depth))
    assert schema_depth(schema) <= depth


def test_max_depth_is_reached():
    depths = {schema_depth(generate_schema(seed, GeneratorConfig(max_depth=1))) for seed in range(60)}
    assert depths == {0, 1}
    zero = [generate_schema(seed, GeneratorConfig(max_depth=0)) for seed in range(30)]
    assert all(schema["type"] in ("string", "number", "integer", "boolean", "null") for schema in zero)


@given(SEEDS)
@settings(max_examples=60)
def test_restricting_keywords_removes_the_others(seed):
    allowed = frozenset({"type", "properties", "minimum", "maxLength", "items", "enum"})
    schema = generate_schema(seed, GeneratorConfig(keywords=allowed))
    assert set(keyword_census(schema)) <= allowed
    assert _errors(schema, valid_sample(schema, random.Random(seed))) == []


def test_restricted_keywords_still_appear():
    allowed = frozenset({"type", "properties", "minimum", "maxLength", "items"})
    census = suite_census(generate_suite(80, 3, GeneratorConfig(keywords=allowed)))
    assert set(census) == allowed


def test_property_counts_and_root_types_follow_the_config():
    config = GeneratorConfig(root_types=(("object", 1.0),), min_properties=5, max_properties=6, untyped_rate=0.0)
    for seed in range(30):
        schema = generate_schema(seed, config)
        assert schema["type"] == "object"
        assert 5 <= len(schema["properties"]) <= 6
        assert {} not in schema["properties"].values()
    arrays = GeneratorConfig(root_types=(("array", 1.0),))
    assert {generate_schema(seed, arrays)["type"] for seed in range(20)} == {"array"}


def test_untyped_share_follows_the_config():
    config = GeneratorConfig(root_types=(("object", 1.0),), untyped_rate=1.0)
    schema = generate_schema(1, config)
    assert set(map(json.dumps, schema["properties"].values())) == {"{}"}


@pytest.mark.parametrize(
    "kwargs",
    [
        {"keywords": frozenset({"type", "minimun"})},
        {"min_properties": 5, "max_properties": 2},
        {"root_types": (("tuple", 1.0),)},
        {"max_depth": -1},
    ],
)
def test_bad_configs_are_refused(kwargs):
    with pytest.raises(ValueError):
        GeneratorConfig(**kwargs)


# ---------------------------------------------------------------- words and formats


def test_word_list_is_a_few_thousand_plain_words():
    vocabulary = words()
    assert 2000 <= len(vocabulary) <= 20000
    assert list(vocabulary) == sorted(set(vocabulary))
    assert all(re.fullmatch(r"[a-z]{4,14}", word) for word in vocabulary)
    assert not {"type", "items", "format", "pattern", "required", "enum", "const"} & set(vocabulary)
    assert words() is vocabulary  # cached


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_every_format_maker_gives_values_jsonschema_accepts(fmt):
    rng = random.Random(7)
    checker = Draft202012Validator.FORMAT_CHECKER
    for _ in range(25):
        assert checker.conforms(FORMATS[fmt](rng), fmt)
    assert not checker.conforms("not valid !!", fmt)  # the checker really asserts this format


# ---------------------------------------------------------------- valid_sample


PAPER_LISTING_1 = {
    "type": "array",
    "contains": {
        "type": "number",
        "multipleOf": 2.66,
        "exclusiveMinimum": 0.08231885995435284,
        "exclusiveMaximum": 5.1100233535478,
    },
    "minContains": 7,
}


def test_sample_for_the_papers_contains_schema():
    for seed in range(10):
        sample = valid_sample(PAPER_LISTING_1, random.Random(seed))
        assert _errors(PAPER_LISTING_1, sample) == []
        assert sample.count(2.66) >= 7


def test_samples_vary_optional_properties_and_lengths():
    schema = {
        "type": "object",
        "properties": {name: {"type": "array", "items": {"type": "integer"}} for name in ("a", "b", "c", "d")},
        "required": ["a"],
    }
    samples = [valid_sample(schema, random.Random(seed)) for seed in range(30)]
    assert all("a" in sample for sample in samples)
    assert len({tuple(sorted(sample)) for sample in samples}) > 3
    assert len({len(sample["a"]) for sample in samples}) > 2


def test_float_multiples_pass_jsonschemas_float_check():
    schema = {"type": "number", "multipleOf": 0.1, "minimum": 0.25, "maximum": 3.05}
    for seed in range(40):
        value = valid_sample(schema, random.Random(seed))
        assert _errors(schema, value) == []


def test_unique_items_with_few_distinct_values():
    schema = {"type": "array", "items": {"type": "boolean"}, "uniqueItems": True, "minItems": 2, "maxItems": 6}
    for seed in range(20):
        sample = valid_sample(schema, random.Random(seed))
        assert sorted(sample) == [False, True]


def test_pattern_and_lengths_together():
    schema = {"type": "string", "pattern": "^[a-f0-9]{6,12}$", "minLength": 9, "maxLength": 10}
    values = {valid_sample(schema, random.Random(seed)) for seed in range(30)}
    assert {len(value) for value in values} == {9, 10}


REAL_WORLD = {
    "$defs": {
        "node": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1},
                "children": {"type": "array", "items": {"$ref": "#/$defs/node"}, "maxItems": 3},
            },
            "required": ["name"],
            "additionalProperties": False,
        },
        "id": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "string", "format": "uuid"}]},
    },
    "type": "object",
    "properties": {
        "root": {"$ref": "#/$defs/node"},
        "owner": {"$ref": "#/$defs/id"},
        "kind": {"oneOf": [{"const": "tree"}, {"const": "forest"}]},
        "limits": {"allOf": [{"type": "integer", "minimum": 3}, {"maximum": 9}]},
    },
    "required": ["root", "owner", "kind", "limits"],
}


def test_best_effort_for_refs_and_combinators():
    for seed in range(15):
        sample = valid_sample(REAL_WORLD, random.Random(seed))
        assert _errors(REAL_WORLD, sample) == []
        assert 3 <= sample["limits"] <= 9


def test_sample_error_names_the_schema_path():
    schema = {"type": "object", "properties": {"x": {"type": "integer", "minimum": 5, "maximum": 4}}, "required": ["x"]}
    with pytest.raises(NoSampleError, match=r"^/properties/x: "):
        valid_sample(schema, random.Random(0))
    with pytest.raises(NoSampleError, match="only local"):
        valid_sample({"$ref": "https://example.com/schema.json"}, random.Random(0))
    assert issubclass(NoSampleError, ValueError)


def test_valid_sample_does_not_touch_the_schema():
    schema = generate_schema(11)
    before = copy.deepcopy(schema)
    valid_sample(schema, random.Random(0))
    assert schema == before


# ---------------------------------------------------------------- walking


def test_census_counts_keywords_not_property_names():
    schema = {
        "type": "object",
        "properties": {
            "type": {"type": "string", "enum": ["type", "items"]},
            "items": {"type": "array", "items": {"type": "integer", "minimum": 0}, "minItems": 1},
            "meta": {"type": "object", "properties": {"required": {}}, "required": ["required"]},
        },
        "required": ["type"],
        "additionalProperties": {"type": "number", "multipleOf": 2.5},
        "x-note": "not a keyword",
    }
    assert keyword_census(schema) == {
        "type": 6,
        "properties": 2,
        "enum": 1,
        "items": 1,
        "minimum": 1,
        "minItems": 1,
        "required": 2,
        "additionalProperties": 1,
        "multipleOf": 1,
    }


def test_subschemas_on_a_real_world_schema():
    paths = [path for path, _ in subschemas(REAL_WORLD)]
    assert paths == [  # depth first, in the schema's own key order
        "",
        "/$defs/node",
        "/$defs/node/properties/name",
        "/$defs/node/properties/children",
        "/$defs/node/properties/children/items",
        "/$defs/id",
        "/$defs/id/anyOf/0",
        "/$defs/id/anyOf/1",
        "/properties/root",
        "/properties/owner",
        "/properties/kind",
        "/properties/kind/oneOf/0",
        "/properties/kind/oneOf/1",
        "/properties/limits",
        "/properties/limits/allOf/0",
        "/properties/limits/allOf/1",
    ]
    assert dict(subschemas(REAL_WORLD))["/$defs/id/anyOf/1"] == {"type": "string", "format": "uuid"}


def test_subschemas_covers_every_applicator_and_escapes_names():
    schema = {
        "prefixItems": [{"type": "integer"}],
        "contains": {"const": 1},
        "not": {"type": "null"},
        "if": {"minimum": 0},
        "then": {"maximum": 9},
        "else": {"const": -1},
        "patternProperties": {"^a/b~": {"type": "string"}},
        "dependentSchemas": {"x": {"required": ["y"]}},
        "dependencies": {"p": ["q"], "r": {"required": ["s"]}},
        "definitions": {"old": {"items": [{"type": "string"}]}},
        "additionalProperties": False,
        "enum": [{"type": "object", "properties": {"fake": {}}}],
    }
    assert sorted(path for path, _ in subschemas(schema)) == sorted(
        [
            "",
            "/prefixItems/0",
            "/contains",
            "/not",
            "/if",
            "/then",
            "/else",
            "/patternProperties/^a~1b~0",
            "/dependentSchemas/x",
            "/dependencies/r",
            "/definitions/old",
            "/definitions/old/items/0",
        ]
    )


def test_schema_depth():
    assert schema_depth({"type": "string"}) == 0
    assert schema_depth({"type": "object", "properties": {"a": {}}}) == 1
    assert schema_depth({"properties": {"a": {"items": {"properties": {"b": {}}}}}, "additionalProperties": False}) == 3
