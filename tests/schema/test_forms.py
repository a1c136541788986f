"""The five schema forms: the JSON, YAML and typed-XML texts read back exactly (value types and key order
included), samples too, and ConCodeEval's Listing 7 comes out as its Listings 8 and 10 show it."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corral.schema import (
    DATA_FORMS,
    FORMS,
    generate_suite,
    parse_sample,
    parse_schema,
    pydantic_equivalent,
    render_sample,
    render_schema,
)
from tests.schema.form_strategies import (
    LISTING_7,
    json_values,
    keys,
    map_strings,
    schemas,
    strings,
    tagged,
    xml_safe,
)

# ConCodeEval's Listing 10 (the paper's text lost the indentation; dicttoxml indents by two spaces)
LISTING_10 = """<all>
  <type type="str">object</type>
  <properties type="dict">
    <footbaths type="dict">
      <type type="str">boolean</type>
    </footbaths>
    <deluded type="dict">
      <type type="str">null</type>
    </deluded>
    <bravadoing type="dict">
      <type type="str">number</type>
      <exclusiveMaximum type="float">5.131849487240756</exclusiveMaximum>
    </bravadoing>
    <queintise type="dict"/>
    <manucodia type="dict">
      <type type="str">number</type>
    </manucodia>
    <antagonized type="dict"/>
    <outbacker type="dict">
      <type type="str">number</type>
    </outbacker>
    <sphenotripsy type="dict">
      <type type="str">boolean</type>
    </sphenotripsy>
    <hw type="dict">
      <type type="str">null</type>
    </hw>
  </properties>
  <additionalProperties type="bool">true</additionalProperties>
  <required type="list"/>
</all>
"""

# XML 1.0 cannot hold control characters; "\r" needs &#13; (see test_xml_keeps_carriage_returns)
XML_STRINGS = strings.filter(lambda s: xml_safe(s) and "\r" not in s)
XML_KEYS = keys.filter(lambda s: xml_safe(s) and not any(ch in s for ch in "\r\n\t"))


def _xml_safe_schema(schema: dict) -> dict:
    return map_strings(schema, lambda s: "".join(ch for ch in s if xml_safe(ch) and ch not in "\r\t\n") or "x")


def test_forms_listed() -> None:
    assert FORMS == ("json", "yaml", "xml", "python", "english")
    assert DATA_FORMS == ("json", "yaml", "xml")


def test_listing_7_json_is_indented_json_in_schema_order() -> None:
    text = render_schema(LISTING_7, "json")
    assert text == json.dumps(LISTING_7, indent=2)
    assert list(json.loads(text)) == ["type", "properties", "additionalProperties", "required"]


def test_listing_7_xml_is_listing_10() -> None:
    text = render_schema(LISTING_7, "xml")
    declaration, _, body = text.partition("\n")
    assert declaration == '<?xml version="1.0" ?>'
    assert body == LISTING_10
    assert parse_schema(text, "xml") == LISTING_7
    assert parse_schema(LISTING_10, "xml") == LISTING_7  # without the declaration too


def test_listing_7_yaml_keeps_the_schema_order_and_quotes_null() -> None:
    text = render_schema(LISTING_7, "yaml")
    # Listing 8 sorts the keys and writes `type: null`, which YAML reads as null, not "null": not lossless
    assert text.splitlines()[:3] == ["type: object", "properties:", "  footbaths:"]
    assert "    type: 'null'" in text.splitlines()
    assert "  queintise: {}" in text.splitlines()
    assert text.endswith("additionalProperties: true\nrequired: []\n")
    assert tagged(parse_schema(text, "yaml")) == tagged(LISTING_7)


def test_listing_7_python_and_english_forms() -> None:
    source = render_schema(LISTING_7, "python")
    assert "class Schema(BaseModel):" in source
    assert "    bravadoing: float = Field(None, lt=5.131849487240756)" in source
    assert pydantic_equivalent(LISTING_7, source) == []
    english = render_schema(LISTING_7, "english")
    assert '- "bravadoing" (optional): a number that is strictly less than 5.131849487240756.' in english


@pytest.mark.parametrize("form", DATA_FORMS)
def test_awkward_scalars_keep_their_types(form: str) -> None:
    schema = {
        "int": 5, "float": 5.0, "bool": True, "one": 1, "null": None, "empty": "", "dict": {}, "list": [],
        "yes": "yes", "no": "no", "null-string": "null", "number-string": "1.0", "date": "2024-01-01",
        "time": "2024-01-01T10:00:00Z", "tilde": "~", "big": 10**30, "tiny": 5e-324, "neg-zero": -0.0,
        "unicode": "日本語 é 😀", "markup": "<a href='x'>&amp;</a> ]]>", "lead": "  x", "trail": "x  ",
        "newline": "a\nb", "not a name": {"1st": [None, True, 0, 0.0, ""]}, "xmlish": {"xml": 1, "item": [2]},
        "nel": "a\x85b\u2028c", "bom": "\ufeff",
    }  # fmt: skip
    back = parse_schema(render_schema(schema, form), form)
    assert tagged(back) == tagged(schema)


def test_yaml_line_break_characters_round_trip() -> None:
    value = {"nel\x85key": "a\x85b", "ls": "x\u2028y", "ps": "\u2029"}
    assert tagged(parse_schema(render_schema(value, "yaml"), "yaml")) == tagged(value)


def test_yaml_has_no_anchors_for_a_shared_subschema() -> None:
    shared = {"type": "string", "minLength": 2}
    schema = {"type": "object", "properties": {"a": shared, "b": shared}}
    text = render_schema(schema, "yaml")
    assert "&" not in text and "*" not in text
    assert parse_schema(text, "yaml") == schema


def test_yaml_does_not_fold_long_strings() -> None:
    pattern = "^" + "(abc|def) " * 30 + "$"
    text = render_schema({"type": "string", "pattern": pattern}, "yaml")
    assert len(text.splitlines()) == 2
    assert parse_schema(text, "yaml")["pattern"] == pattern


@pytest.mark.parametrize("form", DATA_FORMS)
def test_empty_schema(form: str) -> None:
    assert parse_schema(render_schema({}, form), form) == {}


def test_xml_root_keeps_its_type_when_reading_needs_it() -> None:
    assert render_schema({}, "xml").splitlines()[1] == '<all type="dict"/>'
    only_item = {"item": {"type": "string"}}  # untyped, <all> with only <item> children would read as a list
    text = render_schema(only_item, "xml")
    assert text.splitlines()[1] == '<all type="dict">'
    assert parse_schema(text, "xml") == only_item


def test_parse_schema_refuses_the_one_way_forms_and_non_objects() -> None:
    with pytest.raises(ValueError, match="cannot parse"):
        parse_schema("class Schema(BaseModel): ...", "python")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not a schema"):
        parse_schema("[1, 2]", "json")
    with pytest.raises(ValueError, match="unknown form"):
        render_schema({}, "toml")  # type: ignore[arg-type]


def test_render_sample_scalar_roots() -> None:
    assert render_sample(5, "yaml") == "5\n"
    assert render_sample("yes", "yaml") == "'yes'\n"
    assert render_sample(None, "json") == "null"
    assert render_sample([1, "a"], "xml").splitlines()[1] == '<root type="list">'
    for form in DATA_FORMS:
        for value in (5, 5.0, True, None, "", "null", [], {}):
            assert tagged(parse_sample(render_sample(value, form), form, extract=False)) == tagged(value)


def test_xml_keeps_carriage_returns() -> None:
    value = {"a\nb\tc": "x\ry\r\n"}
    assert parse_schema(render_schema(value, "xml"), "xml") == value


@settings(max_examples=150)
@given(schemas())
def test_schemas_round_trip_exactly_in_json_and_yaml(schema: dict) -> None:
    for form in ("json", "yaml"):
        assert tagged(parse_schema(render_schema(schema, form), form)) == tagged(schema)


@settings(max_examples=150)
@given(schemas())
def test_schemas_round_trip_exactly_in_xml(schema: dict) -> None:
    schema = _xml_safe_schema(schema)
    assert tagged(parse_schema(render_schema(schema, "xml"), "xml")) == tagged(schema)


@settings(max_examples=300)
@given(json_values())
def test_samples_round_trip_exactly_in_json_and_yaml(value: object) -> None:
    for form in ("json", "yaml"):
        assert tagged(parse_sample(render_sample(value, form), form, extract=False)) == tagged(value)


@settings(max_examples=300)
@given(json_values(XML_KEYS, XML_STRINGS))
def test_samples_round_trip_exactly_in_xml(value: object) -> None:
    assert tagged(parse_sample(render_sample(value, "xml"), "xml", extract=False)) == tagged(value)


@settings(max_examples=60)
@given(schemas())
def test_every_form_renders_deterministically(schema: dict) -> None:
    for form in FORMS:
        value = _xml_safe_schema(schema) if form == "xml" else schema
        assert render_schema(value, form) == render_schema(value, form)


@given(st.sampled_from(FORMS))
def test_forms_are_strings_ending_in_a_newline_or_json(form: str) -> None:
    text = render_schema(LISTING_7, form)
    assert isinstance(text, str) and text.strip()
    assert text.endswith("\n") or form == "json"


def test_generated_suite_in_every_form() -> None:
    for item in generate_suite(100, 0):
        schema = item.schema
        for form in DATA_FORMS:
            assert tagged(parse_schema(render_schema(schema, form), form)) == tagged(schema), form
        assert pydantic_equivalent(schema, render_schema(schema, "python")) == []
        assert render_schema(schema, "english").startswith("The value must be ")


def test_every_public_name_of_the_schema_package_loads_from_its_module():
    """The package loads its names lazily from one table; each listed name must resolve, and none be unlisted."""
    import corral.schema as package

    assert set(package.__all__) == set(package._WHERE)
    for name in package.__all__:
        assert getattr(package, name) is not None, name
