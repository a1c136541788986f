"""Validators built with a registry are reused per (schema, registry object): never across registries that
resolve the same ``$ref`` differently, and always with jsonschema's own verdict."""

from __future__ import annotations

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from corral.schema import validate

SCHEMA = {"$ref": "https://example.com/item"}


def _registry(kind: str) -> Registry:
    return Registry().with_resource("https://example.com/item",
                                    Resource.from_contents({"type": kind}, default_specification=DRAFT202012))


def test_two_registries_with_the_same_uri_keep_their_own_meaning():
    integers, strings = _registry("integer"), _registry("string")
    for _ in range(3):  # the second and third calls are served from the cache
        assert validate(SCHEMA, 3, registry=integers) == []
        assert [v.keyword for v in validate(SCHEMA, 3, registry=strings)] == ["type"]
        assert validate(SCHEMA, "a", registry=strings) == []


def test_a_new_registry_object_is_never_served_an_old_validator():
    for kind, good, bad in [("integer", 1, "x"), ("string", "x", 1), ("boolean", True, 1)] * 2:
        registry = _registry(kind)  # a fresh object each time, possibly at a freed object's address
        assert validate(SCHEMA, good, registry=registry) == []
        assert validate(SCHEMA, bad, registry=registry) != []


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["integer", "string", "boolean", "null", "number", "array", "object"]),
       st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=5),
                 st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)))
def test_the_cached_verdict_is_jsonschemas(kind, sample):
    registry = _registry(kind)
    expected = jsonschema.Draft202012Validator({"type": kind}).is_valid(sample)
    assert (validate(SCHEMA, sample, registry=registry) == []) == expected
    assert (validate(SCHEMA, sample, registry=registry) == []) == expected  # again, from the cache
