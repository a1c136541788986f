"""JSON output narrowed for llguidance (``corral.grammars.schema._narrow.narrowed``): every text drawn from the
compiled grammar of a small schema parses and validates, and ``enforcement`` calls every keyword exact."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corral.grammars import Grammar, GrammarError, accepts, compile_schema, enforcement, random_walk, sample
from corral.schema import is_valid, parse_sample

from .drawing import drawn

NAMES = st.sampled_from(["a", "b", "id", "x y"])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.sampled_from([0.5, -1.25, 1e20]),
                    st.sampled_from(["", "x", "é"]))
INTS = st.integers(-50, 50)
NUMBERS = st.one_of(INTS, st.sampled_from([-2.5, 0.5, 3.25]))


def _typed(kind: str | list[str], **optional: st.SearchStrategy) -> st.SearchStrategy:
    return st.fixed_dictionaries({"type": st.just(kind)}, optional=optional)


leaves = st.one_of(
    st.just({}),
    _typed("number", minimum=NUMBERS, maximum=NUMBERS),
    _typed("integer", minimum=INTS, maximum=INTS, exclusiveMinimum=INTS, exclusiveMaximum=INTS),
    _typed("string", minLength=st.integers(0, 4), maxLength=st.integers(0, 9)),
    st.sampled_from(["boolean", "null", ["number", "null"], ["integer", "string"], ["number", "string"]]).map(
        lambda kind: {"type": kind}),
    st.lists(SCALARS, min_size=1, max_size=4).map(lambda values: {"enum": values}),
    SCALARS.map(lambda value: {"const": value}),
)


def _containers(child: st.SearchStrategy) -> st.SearchStrategy:
    def obj(properties: dict[str, Any], required: list[str], typed: bool) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "object"} if typed else {}
        schema["properties"] = properties
        if [n for n in required if n in properties]:
            schema["required"] = [n for n in required if n in properties]
        return schema

    def arr(items: Any, low: int | None, high: int | None) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "array"}
        for keyword, value in (("items", items), ("minItems", low), ("maxItems", high)):
            if value is not None:
                schema[keyword] = value
        return schema

    return st.one_of(
        st.builds(obj, st.dictionaries(NAMES, child, max_size=3), st.lists(NAMES, max_size=3, unique=True),
                  st.booleans()),
        st.builds(arr, st.one_of(st.none(), child), st.one_of(st.none(), st.integers(0, 2)),
                  st.one_of(st.none(), st.integers(2, 4))),
        st.sampled_from([{"type": "object"}, {"type": "array"}, {"type": "object", "minProperties": 1}]),
    )


small_schemas = st.recursive(leaves, _containers, max_leaves=6)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(schema=small_schemas, seed=st.integers(0, 10**6))
def test_every_text_of_a_small_schema_validates(schema, seed):
    try:
        Grammar.json_schema(schema)  # llguidance's own verdict on the schema as written
    except GrammarError:
        return  # no value fits (minimum 0 with exclusiveMaximum 0)
    found = enforcement(schema, "json")
    assert found.sound, found.after
    grammar = compile_schema(schema, "json")
    grammar.validate()  # narrowing left a value
    texts = drawn(grammar, seed)
    for text in texts:
        assert is_valid(schema, parse_sample(text, "json")), (text, schema)
    assert texts, "no text drawn: nothing was checked"


def test_an_untyped_schema_keeps_its_other_kinds_where_its_own_kind_may_be_empty():
    # found by the property test above: inferring "object" from `properties` left no value at all, as no
    # integer fits `a`; the schema as written still allows every value that is not an object
    schema = {"properties": {"a": {"type": "integer", "minimum": 0, "exclusiveMaximum": 0}}, "required": ["a"]}
    grammar = compile_schema(schema, "json")
    grammar.validate()
    assert accepts(grammar, "1") and accepts(grammar, '"x"') and not accepts(grammar, '{"a":0}')
    inferred = compile_schema({"properties": {"a": {"type": "integer", "minimum": 0}}, "required": ["a"]}, "json")
    assert accepts(inferred, '{"a":3}') and not accepts(inferred, "1")


def test_narrowing_keeps_what_the_schema_asks_and_drops_only_what_llguidance_would_get_wrong():
    schema = {"type": "object", "properties": {"n": {"type": "number", "description": "a price"},
                                               "m": {"type": ["number", "null"]}, "any": {}},
              "required": ["n"]}
    grammar = compile_schema(schema, "json")
    assert "description" not in grammar.source and '"additionalProperties":false' in grammar.source
    for text in ('{"n":-12.5}', '{"n":3,"m":null}', '{"n":1,"m":0.25,"any":{"k":[1,"x"]}}'):
        assert accepts(grammar, text), text
    for text in ('{"n":1e999}', '{"n":1,"other":2}', '{"n":1,"any":1.5}', '{"n":1,"any":{"a":1,"b":2}}'):
        assert not accepts(grammar, text), text



def test_a_schema_a_reference_reaches_under_an_authors_own_word_is_narrowed_too():
    # JSONSchemaBench Github_easy/o18039 and Github_hard/o65978 keep their schemas under words of their own
    # (`#/baudrate`, `#/twitter/statuses/args`): left unnarrowed, llguidance wrote 5e723 for an open number
    schema = {"type": "object", "required": ["rate", "args"],
              "rate": {"type": "number", "title": "baud"},
              "twitter": {"statuses": {"args": {"type": "object", "properties": {"lat": {"type": "number"}}},
                                       "result": {"type": "array"}}},
              "properties": {"rate": {"$ref": "#/rate"}, "args": {"$ref": "#/twitter/statuses/args"},
                             "deep": {"$ref": "#/twitter/statuses/args/properties/lat"}}}
    assert enforcement(schema, "json").sound
    grammar = compile_schema(schema, "json")
    for text in ('{"rate":9600,"args":{"lat":1.5}}', '{"rate":-2.25,"args":{},"deep":3}'):
        assert accepts(grammar, text), text
    for text in ('{"rate":5e723,"args":{}}', '{"rate":1,"args":{"lat":1e999}}', '{"rate":1,"args":{"x":1}}',
                 '{"rate":1,"args":{},"deep":7e400}'):
        assert not accepts(grammar, text), text
    assert schema["rate"] == {"type": "number", "title": "baud"}  # the caller's schema is not changed
    for seed in range(6):
        text = sample(grammar, random_walk(seed, 0.3), max_bytes=3000, strict=True)
        assert text is None or is_valid(schema, parse_sample(text, "json")), text


def test_a_negated_class_that_excludes_a_quote_or_backslash_is_left_to_the_validator():
    # llguidance's [^"] still takes an escaped quote (JSONSchemaBench Github_medium/o37613: '^[^,"]+$')
    for pattern in ('^[^,"]+$', "^[^\"]$", "^[^\\\\]+$", "^(a|[^ -~])$"):
        after = enforcement({"type": "string", "pattern": pattern}, "json").after
        assert [keyword for _, keyword, _ in after] == ["pattern"], pattern
    for pattern in ("^[^a]+$", '^[a"]+$', "^[^\\n]+$"):
        assert enforcement({"type": "string", "pattern": pattern}, "json").sound, pattern


def test_a_risky_property_name_pattern_is_left_to_the_validator():
    # JSONSchemaBench Github_medium/o83341: llguidance's \s takes U+0085 in a pattern property's name
    risky = {"type": "object", "patternProperties": {"^(GET|DELETE)\\s+/": {"type": "integer"}},
             "additionalProperties": False}
    assert [keyword for _, keyword, _ in enforcement(risky, "json").after] == ["patternProperties"]
    plain = {"type": "object", "patternProperties": {"^x-[a-z]+$": {"type": "integer"}}, "additionalProperties": False}
    assert enforcement(plain, "json").sound


def test_an_object_whose_branches_only_require_listed_properties_is_closed():
    # "one of a or b is required" (JSONSchemaBench Github_easy/o68296): closing the object to its listed
    # properties keeps each branch satisfiable, and llguidance meets each branch with the closed object
    schema = {"type": "object", "properties": {"a": {"type": "string", "maxLength": 3}, "b": {"type": "integer"}},
              "anyOf": [{"required": ["a"]},
                        {"required": ["b"], "properties": {"b": {"type": "integer", "minimum": 0}}}]}
    assert enforcement(schema, "json").sound
    grammar = compile_schema(schema, "json")
    assert accepts(grammar, '{"a":"x"}') and accepts(grammar, '{"b":2}')
    assert not accepts(grammar, '{"a":"x","c":1}') and not accepts(grammar, "{}")
    drawn = [sample(grammar, random_walk(seed, 0.3), max_bytes=2000, strict=True) for seed in range(12)]
    assert all(is_valid(schema, parse_sample(text, "json")) for text in drawn if text is not None)
    # a branch requiring a property not listed beside it keeps the object open (closing would empty the branch)
    other = {"type": "object", "properties": {"a": {"type": "string"}}, "anyOf": [{"required": ["zz"]}]}
    assert '"additionalProperties":false' not in compile_schema(other, "json").source


def test_keys_no_pattern_matches_get_an_open_value_not_an_unbounded_number():
    # JSONSchemaBench Github_hard/o48094: llguidance wrote {"<key>": 701E43596455932} for a key beside
    # patternProperties, which no float holds
    grammar = compile_schema({"type": "object", "patternProperties": {"^a": {"type": "number"}}}, "json")
    for text in ('{"a":1.5}', '{"b":3}', '{"b":"x"}'):
        assert accepts(grammar, text), text
    for text in ('{"b":3e4407}', '{"a":3e4407}', '{"b":1.5}'):
        assert not accepts(grammar, text), text


def test_a_closing_walk_draws_a_schema_of_many_required_strings_within_the_byte_budget():
    names = [f"field{i}" for i in range(40)]
    schema = {"type": "object", "properties": {n: {"type": "string"} for n in names}, "required": names}
    grammar = compile_schema(schema, "json")
    plain = [sample(grammar, random_walk(seed, 0.3), max_bytes=4000) for seed in range(3)]
    closing = [sample(grammar, random_walk(seed, 0.3, close=0.5), max_bytes=4000) for seed in range(3)]
    assert plain.count(None) >= 2  # a uniform byte closes a string about once in 200
    assert all(text is not None and is_valid(schema, parse_sample(text, "json")) for text in closing)
