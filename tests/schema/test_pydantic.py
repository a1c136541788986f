"""The pydantic form: the source imports, pydantic's own JSON Schema of it matches the original on every keyword
pydantic can express, and every other keyword is still in the source as a comment."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

from corral.schema import (
    PYDANTIC_CONDITIONAL,
    PYDANTIC_UNSUPPORTED,
    generate_suite,
    pydantic_equivalent,
    to_pydantic,
    unsupported_keywords,
)
from tests.schema.form_strategies import LISTING_7, json_literal, schemas

LISTING_7_PYTHON = """from typing import Any
from pydantic import BaseModel, ConfigDict, Field


class Schema(BaseModel):
    model_config = ConfigDict(extra="allow")
    footbaths: bool = None
    deluded: None = None
    bravadoing: float = Field(None, lt=5.131849487240756)
    queintise: Any = None
    manucodia: float = None
    antagonized: Any = None
    outbacker: float = None
    sphenotripsy: bool = None
    hw: None = None
"""


def _load(source: str, tmp_path: Path) -> Any:
    """The Schema class of our own generated source (the test writes it; nothing untrusted is imported)."""
    path = tmp_path / "generated_model.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("generated_model", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["generated_model"] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop("generated_model", None)
    return module.Schema


def _node(schema: Any, pointer: str) -> Any:
    for token in pointer.split("/")[1:]:
        schema = schema[token.replace("~1", "/").replace("~0", "~")]
    return schema


def _comments(source: str) -> str:
    return "\n".join(line.split("  # also: ", 1)[1] for line in source.splitlines() if "  # also: " in line)


def test_listing_7() -> None:
    source = to_pydantic(LISTING_7)
    assert source == LISTING_7_PYTHON
    assert pydantic_equivalent(LISTING_7, source) == []
    assert unsupported_keywords(LISTING_7) == []


def test_listing_7_model_validates_like_the_schema(tmp_path: Path) -> None:
    model = _load(to_pydantic(LISTING_7), tmp_path)
    model.model_validate({"bravadoing": 5.0, "extra": 1})
    with pytest.raises(ValueError):
        model.model_validate({"bravadoing": 5.2})


def test_required_optional_bounds_and_literals() -> None:
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "minimum": 0, "maximum": 10, "multipleOf": 2},
            "x": {"type": "number", "exclusiveMinimum": 0.5, "exclusiveMaximum": 9.5},
            "s": {"type": "string", "minLength": 1, "maxLength": 5, "pattern": "^[a-z]+$"},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
            "color": {"enum": ["red", "green", None]},
            "one": {"const": 5.0},
            "maybe": {"type": ["string", "null"], "maxLength": 3},
            "when": {"type": "string", "format": "date-time"},
        },
        "required": ["n", "s"],
        "additionalProperties": False,
    }
    source = to_pydantic(schema)
    lines = source.splitlines()
    assert "from pydantic import AwareDatetime, BaseModel, ConfigDict, Field" in lines
    assert '    model_config = ConfigDict(extra="forbid")' in lines
    assert "    n: int = Field(ge=0, le=10, multiple_of=2)" in lines
    assert "    x: float = Field(None, gt=0.5, lt=9.5)" in lines
    assert "    s: str = Field(min_length=1, max_length=5, pattern='^[a-z]+$')" in lines
    assert "    tags: list[str] = Field(None, min_length=1, max_length=3)" in lines
    assert "    color: Literal['red', 'green', None] = None" in lines
    assert "    one: Literal[5.0] = None" in lines
    assert "    maybe: Annotated[str, Field(max_length=3)] | None = None" in lines
    assert "    when: AwareDatetime = None" in lines
    assert pydantic_equivalent(schema, source) == []


def test_nested_objects_become_classes_named_from_their_path() -> None:
    schema = {
        "type": "object",
        "properties": {
            "address": {"type": "object", "properties": {"geo": {"type": "object", "properties": {
                "lat": {"type": "number"}}, "required": ["lat"]}}},
            "people": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
        },
        "required": ["address"],
    }
    source = to_pydantic(schema)
    classes = re.findall(r"^class (\w+)\((\w+)\):", source, re.M)
    assert classes == [("AddressGeo", "BaseModel"), ("Address", "BaseModel"), ("PeopleItem", "BaseModel"),
                       ("Schema", "BaseModel")]
    assert "    address: Address" in source.splitlines()
    assert "    people: list[PeopleItem] = None" in source.splitlines()
    assert pydantic_equivalent(schema, source) == []


def test_root_that_is_not_an_object_is_a_root_model() -> None:
    schema = {"type": "array", "items": {"type": "integer", "minimum": 1}, "minItems": 2}
    source = to_pydantic(schema)
    assert "class Schema(RootModel):" in source
    assert "    root: list[Annotated[int, Field(ge=1)]] = Field(min_length=2)" in source
    assert pydantic_equivalent(schema, source) == []
    scalar = {"type": "string", "maxLength": 4}
    assert pydantic_equivalent(scalar, to_pydantic(scalar)) == []


def test_awkward_property_names_get_aliases(tmp_path: Path) -> None:
    names = ["class", "foo-bar", "foo_bar", "1st", "", "model_config", "schema", "int", "_private", "日本", "Field"]
    schema = {"type": "object", "properties": {name: {"type": "integer"} for name in names}, "required": names}
    source = to_pydantic(schema)
    assert "    class_: int = Field(alias='class')" in source
    assert "    foo_bar: int = Field(alias='foo-bar')" in source
    assert "    foo_bar_: int = Field(alias='foo_bar')" in source
    assert pydantic_equivalent(schema, source) == []
    model = _load(source, tmp_path)
    data = {name: i for i, name in enumerate(names)}
    assert model.model_validate(data).model_dump(by_alias=True) == data


def test_additional_properties_schema_is_a_typed_extra() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}},
              "additionalProperties": {"type": "integer", "minimum": 0}}
    source = to_pydantic(schema)
    assert '    model_config = ConfigDict(extra="allow")' in source
    assert "    __pydantic_extra__: dict[str, Annotated[int, Field(ge=0)]]" in source
    assert pydantic_equivalent(schema, source) == []
    plain = {"type": "object", "additionalProperties": {"type": "boolean"}, "minProperties": 1}
    assert "root: dict[str, bool] = Field(min_length=1)" in to_pydantic(plain)
    assert pydantic_equivalent(plain, to_pydantic(plain)) == []


def test_unique_scalar_items_are_a_set() -> None:
    schema = {"type": "array", "items": {"type": "string"}, "uniqueItems": True}
    assert "root: set[str]" in to_pydantic(schema)
    assert pydantic_equivalent(schema, to_pydantic(schema)) == []
    untyped = {"type": "array", "uniqueItems": True}  # items may be objects: a set cannot hold them
    assert unsupported_keywords(untyped) == [("", "uniqueItems")]


def test_lookaround_pattern_switches_the_regex_engine() -> None:
    schema = {"type": "object", "properties": {"p": {"type": "string", "pattern": "^(?!x)a"}}}
    source = to_pydantic(schema)
    assert 'regex_engine="python-re"' in source
    assert pydantic_equivalent(schema, source) == []
    bad = {"type": "string", "pattern": "\\p{L}+"}  # ECMA-262, not Python re
    assert unsupported_keywords(bad) == [("", "pattern")]
    assert '# also: pattern "\\\\p{L}+"' in to_pydantic(bad)


def test_unsupported_keywords_are_comments_on_their_line() -> None:
    schema = {
        "type": "object",
        "properties": {
            "flags": {"type": "array", "contains": {"type": "boolean"}, "minContains": 1},
            "mail": {"type": "string", "format": "email"},
            "pair": {"type": "array", "items": {"type": "array", "prefixItems": [{"type": "integer"}]}},
        },
        "required": ["mail", "ghost"],
        "minProperties": 1,
        "$comment": "a comment",
    }
    source = to_pydantic(schema)
    lines = source.splitlines()
    assert 'class Schema(BaseModel):  # also: required ["mail", "ghost"], minProperties 1, $comment "a comment"' \
        in lines
    assert '    flags: list[Any] = None  # also: contains {"type": "boolean"}, minContains 1' in lines
    assert '    mail: str  # also: format "email"' in lines
    assert '    pair: list[list[Any]] = None  # also: items.prefixItems [{"type": "integer"}]' in lines
    assert unsupported_keywords(schema) == [
        ("", "required"), ("", "minProperties"), ("", "$comment"), ("/properties/flags", "contains"),
        ("/properties/flags", "minContains"), ("/properties/mail", "format"),
        ("/properties/pair/items", "prefixItems"),
    ]
    assert pydantic_equivalent(schema, source) == []


def test_equivalence_check_finds_differences() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer", "minimum": 5}}, "required": ["a"]}
    assert pydantic_equivalent(schema, to_pydantic(schema)) == []
    other = to_pydantic({"type": "object", "properties": {"a": {"type": "integer", "minimum": 5.0}}})
    assert pydantic_equivalent(schema, other.replace("ge=5.0", "ge=6")) != []
    looser = to_pydantic({"type": "object", "properties": {"a": {"type": "integer"}}})
    assert any("minimum" in d for d in pydantic_equivalent(schema, looser))
    assert any("required" in d for d in pydantic_equivalent(schema, looser))
    typed = to_pydantic({"type": "object", "properties": {"a": {"type": "number", "minimum": 5}},
                         "required": ["a"]})
    assert pydantic_equivalent(schema, typed) != []


def test_equivalence_tells_int_bounds_from_float_bounds() -> None:
    schema = {"type": "number", "maximum": 5}
    assert pydantic_equivalent(schema, to_pydantic(schema)) == []
    assert pydantic_equivalent(schema, to_pydantic({"type": "number", "maximum": 5.0})) != []


def test_the_unsupported_tables_explain_themselves() -> None:
    for table in (PYDANTIC_UNSUPPORTED, PYDANTIC_CONDITIONAL):
        assert all(isinstance(why, str) and why for why in table.values())
    assert {"contains", "minContains", "maxContains", "prefixItems"} <= set(PYDANTIC_UNSUPPORTED)


@settings(max_examples=120)
@given(schemas())
def test_generated_source_is_equivalent_on_what_pydantic_expresses(schema: dict) -> None:
    source = to_pydantic(schema)
    compile(source, "<generated>", "exec")
    assert pydantic_equivalent(schema, source) == []


@settings(max_examples=150)
@given(schemas())
def test_every_unsupported_keyword_stays_visible(schema: dict) -> None:
    source = to_pydantic(schema)
    comments = _comments(source)
    for pointer, keyword in unsupported_keywords(schema):
        node = _node(schema, pointer)
        if keyword == "false":
            assert "false (no value is valid)" in comments
        else:
            assert f"{json_literal(keyword)[1:-1]} {json_literal(node[keyword])}" in comments


@settings(max_examples=60)
@given(schemas())
def test_source_is_plain_lines(schema: dict) -> None:
    source = to_pydantic(schema)
    assert source.splitlines() == source.split("\n")[:-1]
    imports = [line for line in source.splitlines() if line.startswith(("import ", "from "))]
    assert all(re.match(r"from (typing|pydantic|annotated_types) import ", line) for line in imports)


def test_generated_suite_keeps_unsupported_keywords_visible() -> None:
    for item in generate_suite(100, 0):
        comments = _comments(to_pydantic(item.schema))
        for pointer, keyword in unsupported_keywords(item.schema):
            assert f"{keyword} {json_literal(_node(item.schema, pointer)[keyword])}" in comments
