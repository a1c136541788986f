"""Single-keyword mutations of valid samples, verified against jsonschema."""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from corral.schema import (
    BROKEN_FORMATS,
    MUTABLE_KEYWORDS,
    Mutation,
    generate_schema,
    generate_suite,
    mutate,
    valid_sample,
)
from corral.schema import STRING_FORMATS as FORMATS
from corral.schema import json_pointer as pointer

SEEDS = st.integers(min_value=0, max_value=2**40)

PAPER_LISTING_2 = {
    "type": "object",
    "properties": {
        "tamil": {"type": "boolean"},
        "baser": {"type": "null"},
        "anisic": {"type": "number", "multipleOf": 17.02},
        "stingo": {"type": "string", "maxLength": 20},
        "pigheadedness": {"type": "number", "exclusiveMinimum": 27.65410407394338, "maximum": 93.85523810367313},
    },
    "additionalProperties": False,
    "required": ["tamil", "stingo"],
}
PAPER_SAMPLE = {"tamil": False, "baser": None, "anisic": 1906.24, "stingo": "officiis tellus.", "pigheadedness": 52.0}


def _check(schema: object, original: object, mutation: Mutation) -> None:
    """The mutation breaks exactly the recorded keyword, at the recorded instance and schema paths."""
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    errors = list(validator.iter_errors(mutation.sample))
    assert len(errors) == 1, (mutation, [error.message for error in errors])
    error = errors[0]
    assert error.validator == mutation.keyword
    assert pointer(error.absolute_path) == mutation.instance_path
    assert pointer(error.absolute_schema_path) == mutation.schema_path
    assert mutation.sample != original
    assert mutation.description and "\n" not in mutation.description


def _expected_keywords(requested: str) -> set[str]:
    """What jsonschema may report for a requested keyword (see the _mutate docstring)."""
    if requested == "minContains":
        return {"minContains", "contains"}
    if requested == "additionalProperties":
        return {"additionalProperties"} | MUTABLE_KEYWORDS  # a schema-valued one reports its inner keyword
    return {requested}


def test_paper_sample_is_valid():
    validator = Draft202012Validator(PAPER_LISTING_2)
    assert validator.is_valid(PAPER_SAMPLE)


@pytest.mark.parametrize(
    ("keyword", "path"),
    [
        ("type", None),
        ("multipleOf", "/anisic"),
        ("maxLength", "/stingo"),
        ("exclusiveMinimum", "/pigheadedness"),
        ("maximum", "/pigheadedness"),
        ("required", ""),
        ("additionalProperties", ""),
    ],
)
def test_each_keyword_on_the_papers_listing(keyword, path):
    original = copy.deepcopy(PAPER_SAMPLE)
    mutation = mutate(PAPER_LISTING_2, PAPER_SAMPLE, random.Random(3), keyword)
    assert mutation is not None
    assert mutation.keyword == keyword
    if path is not None:
        assert mutation.instance_path == path
    _check(PAPER_LISTING_2, PAPER_SAMPLE, mutation)
    assert original == PAPER_SAMPLE  # never in place


def test_bounds_are_broken_just_beyond():
    below = mutate(PAPER_LISTING_2, PAPER_SAMPLE, random.Random(0), "exclusiveMinimum")
    assert 26.6 < below.sample["pigheadedness"] <= 27.65410407394338
    above = mutate(PAPER_LISTING_2, PAPER_SAMPLE, random.Random(0), "maximum")
    assert 93.85523810367313 < above.sample["pigheadedness"] < 95
    longer = mutate(PAPER_LISTING_2, PAPER_SAMPLE, random.Random(0), "maxLength")
    assert len(longer.sample["stingo"]) == 21


def test_required_description_and_paths():
    mutation = mutate(PAPER_LISTING_2, {"tamil": True, "stingo": "x"}, random.Random(0), "required")
    assert mutation.description in ("removed the required property 'tamil'", "removed the required property 'stingo'")
    assert mutation.schema_path == "/required" and mutation.instance_path == ""
    assert len(mutation.sample) == 1


def test_additional_properties_false_adds_an_unknown_property():
    mutation = mutate(PAPER_LISTING_2, PAPER_SAMPLE, random.Random(1), "additionalProperties")
    added = set(mutation.sample) - set(PAPER_SAMPLE)
    assert len(added) == 1 and added.pop() not in PAPER_LISTING_2["properties"]
    assert mutation.schema_path == "/additionalProperties"


def test_additional_properties_schema_reports_the_inner_keyword():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": {"type": "integer"}}
    mutation = mutate(schema, {"a": 1}, random.Random(0), "additionalProperties")
    assert mutation is not None
    _check(schema, {"a": 1}, mutation)
    assert mutation.schema_path == "/additionalProperties/type" and mutation.keyword == "type"
    (name,) = set(mutation.sample) - {"a"}
    assert mutation.instance_path == f"/{name}"


def test_contains_family_and_jsonschemas_naming():
    one = {"type": "array", "contains": {"type": "integer", "minimum": 10}, "minContains": 1}
    mutation = mutate(one, [12, "x", 40], random.Random(0), "minContains")
    assert mutation.keyword == "contains" and mutation.schema_path == "/contains"  # zero matches: `contains`
    two = {"type": "array", "contains": {"type": "integer", "minimum": 10}, "minContains": 2}
    mutation = mutate(two, [12, "x", 40], random.Random(0), "minContains")
    assert mutation.keyword == "minContains" and mutation.schema_path == "/contains"
    _check(two, [12, "x", 40], mutation)
    most = {"type": "array", "contains": {"type": "integer", "minimum": 10}, "maxContains": 2}
    mutation = mutate(most, [12, "x", 40], random.Random(0), "maxContains")
    assert mutation.keyword == "maxContains" and mutation.schema_path == "/contains"
    assert sum(isinstance(item, int) and item >= 10 for item in mutation.sample) == 3
    zero = {"type": "array", "contains": {"type": "integer"}, "minContains": 0}
    assert mutate(zero, [1, 2], random.Random(0), "contains") is None


def test_unique_items_duplicates_an_element():
    schema = {"type": "array", "items": {"type": "string"}, "uniqueItems": True, "maxItems": 3}
    mutation = mutate(schema, ["a", "b", "c"], random.Random(0), "uniqueItems")
    assert mutation is not None and len(mutation.sample) == 3 and len(set(mutation.sample)) == 2
    assert mutate(schema, [], random.Random(0), "uniqueItems") is None


def test_min_and_max_items():
    schema = {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 3}
    fewer = mutate(schema, [1, 2, 3], random.Random(0), "minItems")
    assert len(fewer.sample) == 1
    more = mutate(schema, [1, 2], random.Random(0), "maxItems")
    assert len(more.sample) == 4 and all(isinstance(item, int) for item in more.sample)
    assert mutate({"type": "array", "minItems": 0}, [], random.Random(0), "minItems") is None


def test_type_mutation_keeps_everything_else_valid():
    schema = {"type": "integer", "minimum": 3, "maximum": 9, "multipleOf": 3}
    for seed in range(10):
        mutation = mutate(schema, 6, random.Random(seed), "type")
        _check(schema, 6, mutation)
        assert not isinstance(mutation.sample, int) or isinstance(mutation.sample, bool)
    assert mutate({"type": "string", "enum": ["a", "b"]}, "a", random.Random(0), "type") is None


def test_enum_and_const():
    enum = mutate({"type": "string", "enum": ["red", "blue"]}, "red", random.Random(0), "enum")
    assert isinstance(enum.sample, str) and enum.sample not in ("red", "blue")
    const = mutate({"type": "integer", "const": 4}, 4, random.Random(0), "const")
    assert isinstance(const.sample, int) and const.sample != 4


def test_pattern_keeps_the_length():
    schema = {"type": "string", "pattern": "^[A-Z][0-9]{2}$", "minLength": 3, "maxLength": 3}
    mutation = mutate(schema, "B26", random.Random(0), "pattern")
    assert mutation.keyword == "pattern" and len(mutation.sample) == 3


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_every_format_can_be_broken(fmt):
    assert fmt in BROKEN_FORMATS
    schema = {"type": "string", "format": fmt}
    value = valid_sample(schema, random.Random(5))
    mutation = mutate(schema, value, random.Random(5), "format")
    assert mutation is not None and mutation.keyword == "format"
    _check(schema, value, mutation)


def test_unmutable_requests_give_none():
    assert mutate({"type": "object", "properties": {"a": {}}}, {"a": 1}, random.Random(0), "properties") is None
    assert mutate({}, 3, random.Random(0)) is None
    assert mutate({"type": "string", "minLength": 0}, "", random.Random(0), "minLength") is None


def test_mutation_is_deterministic_per_rng():
    schema = generate_schema(21)
    sample = valid_sample(schema, random.Random(2))
    assert mutate(schema, sample, random.Random(9)) == mutate(schema, sample, random.Random(9))


@given(SEEDS, st.integers(min_value=0, max_value=1000))
@settings(max_examples=60)
def test_every_mutation_breaks_exactly_its_keyword(seed, draw):
    schema = generate_schema(seed)
    sample = valid_sample(schema, random.Random(draw))
    frozen = copy.deepcopy(sample)
    rng = random.Random(draw)
    for keyword in sorted(MUTABLE_KEYWORDS):
        mutation = mutate(schema, sample, rng, keyword)
        if mutation is not None:
            _check(schema, sample, mutation)
            assert mutation.keyword in _expected_keywords(keyword)
    anything = mutate(schema, sample, rng)
    if anything is not None:
        _check(schema, sample, anything)
    assert sample == frozen


def test_the_suite_offers_a_mutation_for_almost_every_sample_and_every_keyword():
    suite = generate_suite(602, 0)
    found: set[str] = set()
    missing = 0
    for item in suite:
        rng = random.Random(item.seed)
        mutation = mutate(item.schema, item.sample, rng)
        missing += mutation is None
        for keyword in sorted((MUTABLE_KEYWORDS & set(item.census)) - found):
            if mutate(item.schema, item.sample, rng, keyword) is not None:
                found.add(keyword)
    assert missing <= 6
    assert found == MUTABLE_KEYWORDS
