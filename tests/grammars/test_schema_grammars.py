"""Schema grammars: every text a grammar accepts parses to a valid value (property-tested over random schemas and
the generated ConCodeEval-like suite), ``enforcement`` tells the truth about what is left unchecked (for JSON:
probes of llguidance itself), and what cannot be compiled is refused in one line naming path and keyword."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from corral.grammars import (
    Grammar,
    GrammarError,
    NotExpressible,
    accepts,
    compile_schema,
    enforcement,
    engine_check,
    random_walk,
    sample,
)

# the schema compiler's parts, each tested against the languages they stand for (number ranges, patterns, formats)
from corral.grammars.schema._enforcement import ASSERTIONS  # the keywords a grammar enforces, listed by the compiler
from corral.grammars.schema._llguidance import json_pattern_risk  # where llguidance reads patterns too widely
from corral.grammars.schema._numbers import int_regex, multiple_regex, udec_ge, udec_le  # number ranges as regexes
from corral.grammars.schema._rx import FORMAT_PATTERNS  # each format as a regular language
from corral.schema import parse_sample

OUTPUTS = ("json", "yaml", "xml")


# ----------------------------------------------------------------------------------------------- helpers
def _walk(seed: int, stop: float = 0.2):
    return random_walk(seed, stop)


def _valid(schema: Any, value: Any) -> bool:
    """Valid for jsonschema (Python regexes) and for Corral's validator (ECMA-262 regexes), formats asserted."""
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    try:
        if not validator.is_valid(value):
            return False
    except (OverflowError, ValueError):  # jsonschema's multipleOf on an infinite float
        return False
    try:
        from corral.schema import is_valid
    except ImportError:  # pragma: no cover - the schema package is optional here
        return True
    return is_valid(schema, value)


def _check_samples(schema: Any, output: str, seeds: range, max_bytes: int = 1500) -> int:
    """Draw texts from the grammar; each must parse and validate. Returns how many were drawn."""
    grammar = compile_schema(schema, output)
    drawn = 0
    for seed in seeds:
        text = sample(grammar, _walk(seed, 0.05 + 0.1 * (seed % 4)), max_bytes=max_bytes, strict=True)
        if text is None:
            continue
        drawn += 1
        value = parse_sample(text, output)  # as a model's output is read: a fenced block would be taken
        assert _valid(schema, value), f"{output} text {text!r} -> {value!r} is not valid against {schema}"
    return drawn


def _grammar_or_none(schema: Any, output: str) -> Grammar | None:
    try:
        grammar = compile_schema(schema, output)
    except NotExpressible as exc:
        assert "\n" not in str(exc) and " at #" in str(exc), str(exc)
        return None
    try:
        grammar.validate()  # llguidance's own refusals of a JSON plan surface at its first compile
    except GrammarError as exc:
        assert output == "json" and "\n" not in str(exc), str(exc)
        return None
    return grammar


# ------------------------------------------------------------------------------------- schema strategy
NAMES = ["a", "name", "yes", "Null", "weird key", "a&b", "xml_tag", "key", "item", "_x", "é", "n2", "On", "x.y"]
PATTERNS = ["^[a-z]{2,5}$", "^[A-Z][0-9]{2}$", "ab", "^(red|green|blue)$", "^v[0-9]\\.[0-9]{1,2}$", "[0-9]+",
            "^\\d{3}-\\w+$", "^[^\"<&]{1,4}$", "é|ü", "^\\s?x\\S$", "^.{2}$", "&<>", "^(?:a|b)+$", "\\\\"]
NUMBERS = st.one_of(st.integers(-50, 200), st.sampled_from([0.1, -2.5, 3.75, 0.3, 1e-3, 12.25]))
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.sampled_from([0.5, -1.25, 2.0]),
                    st.sampled_from(["", "x", "yes", "a b", "q\"<&", "\n\t", "é", "\u2028"]))


def _typed(kind: str, **optional: st.SearchStrategy) -> st.SearchStrategy:
    return st.fixed_dictionaries({"type": st.just(kind)}, optional=optional)


def _strings() -> st.SearchStrategy:
    return _typed("string", minLength=st.integers(0, 4), maxLength=st.integers(2, 9),
                  pattern=st.sampled_from(PATTERNS), format=st.sampled_from([*FORMAT_PATTERNS, "nonsense"]))


def _numbers() -> st.SearchStrategy:
    bounds = {k: NUMBERS for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")}
    multiple = st.sampled_from([2, 3, 5, 0.5, 0.25, 1.5, 0.1])
    return st.one_of(_typed("integer", **bounds, multipleOf=multiple), _typed("number", **bounds, multipleOf=multiple))


def _leaves() -> st.SearchStrategy:
    return st.one_of(
        _strings(), _numbers(), _typed("boolean"), _typed("null"),
        st.lists(SCALARS, min_size=1, max_size=4).map(lambda values: {"enum": values}),
        SCALARS.map(lambda value: {"const": value}),
        st.just({}),
        st.sampled_from([["string", "null"], ["integer", "boolean"], ["number", "string"]]).map(lambda t: {"type": t}),
    )


def _objects(child: st.SearchStrategy) -> st.SearchStrategy:
    def build(props: dict[str, Any], required: list[str], extra: Any, counts: tuple[int | None, int | None],
              more: dict[str, Any]) -> dict:
        schema: dict[str, Any] = {"type": "object", "properties": props, **more}
        if required:
            schema["required"] = [n for n in required if n in props] or required[:1]
        if extra is not None:
            schema["additionalProperties"] = extra
        if counts[0] is not None:
            schema["minProperties"] = counts[0]
        if counts[1] is not None:
            schema["maxProperties"] = counts[1]
        return schema

    return st.builds(
        build,
        st.dictionaries(st.sampled_from(NAMES), child, max_size=4),
        st.lists(st.sampled_from(NAMES), max_size=3, unique=True),
        st.one_of(st.none(), st.booleans(), child),
        st.tuples(st.one_of(st.none(), st.integers(0, 3)), st.one_of(st.none(), st.integers(1, 4))),
        st.fixed_dictionaries({}, optional={
            "patternProperties": st.dictionaries(st.sampled_from(["^a", "e", "^[A-Z]", "\\s"]), child, max_size=2),
            "propertyNames": st.sampled_from([{"maxLength": 3}, {"pattern": "^[a-z_]+$"}, {"not": {"const": "a"}}]),
            "dependentRequired": st.dictionaries(st.sampled_from(NAMES), st.lists(st.sampled_from(NAMES), max_size=2,
                                                                                     unique=True),
                                                 max_size=2),
            "dependentSchemas": st.dictionaries(st.sampled_from(NAMES), child, max_size=1),
        }),
    )


def _arrays(child: st.SearchStrategy) -> st.SearchStrategy:
    def build(items: Any, prefix: list[Any], lengths: tuple[int | None, int | None], contains: Any,
              counts: tuple[int | None, int | None], unique: bool) -> dict:
        schema: dict[str, Any] = {"type": "array"}
        if items is not None:
            schema["items"] = items
        if prefix:
            schema["prefixItems"] = prefix
        for keyword, value in zip(("minItems", "maxItems"), lengths, strict=True):
            if value is not None:
                schema[keyword] = value
        if contains is not None:
            schema["contains"] = contains
            for keyword, value in zip(("minContains", "maxContains"), counts, strict=True):
                if value is not None:
                    schema[keyword] = value
        if unique:
            schema["uniqueItems"] = True
        return schema

    optional_count = st.one_of(st.none(), st.integers(0, 3))
    return st.builds(
        build,
        st.one_of(st.none(), st.just(False), child),
        st.lists(child, max_size=2),
        st.tuples(optional_count, st.one_of(st.none(), st.integers(1, 5))),
        st.one_of(st.none(), _leaves()),
        st.tuples(optional_count, optional_count),
        st.booleans(),
    )


def _combinations(child: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(
        st.lists(child, min_size=1, max_size=3).map(lambda b: {"anyOf": b}),
        st.lists(child, min_size=1, max_size=3).map(lambda b: {"oneOf": b}),
        st.lists(child, min_size=1, max_size=2).map(lambda b: {"allOf": b}),
        st.tuples(child, child).map(lambda pair: {"if": pair[0], "then": pair[1]}),
        st.tuples(child, _leaves()).map(lambda pair: {**pair[0], "not": pair[1]}),
    )


schemas = st.recursive(_leaves(), lambda child: st.one_of(_objects(child), _arrays(child), _combinations(child)),
                       max_leaves=8)
with_defs = st.tuples(schemas, schemas).map(
    lambda pair: {"$defs": {"d": pair[0]}, "type": "object", "properties": {"p": {"$ref": "#/$defs/d"}, "q": pair[1],
                                                                             "r": {"$ref": "#/$defs/d"}}})


def _listing(names: st.SearchStrategy) -> st.SearchStrategy:
    """An object listing some of ``names`` and requiring some of those (typed, so it joins with others)."""
    return st.lists(names, min_size=1, max_size=3, unique=True).flatmap(
        lambda listed: st.lists(st.sampled_from(listed), max_size=len(listed), unique=True).map(
            lambda required: {"type": "object", "properties": {n: {"type": "integer", "minimum": 0, "maximum": 9}
                                                                for n in listed}, "required": required}))


_NAMES = st.sampled_from(["a", "b", "c", "d"])
joined = st.one_of(  # two object schemas on one value: each may require what only the other lists
    st.tuples(_listing(_NAMES), _listing(_NAMES)).map(lambda p: {**p[0], "allOf": [p[1]]}),
    st.tuples(_listing(_NAMES), _listing(_NAMES)).map(lambda p: {**p[0], "anyOf": [p[1], {"type": "null"}]}),
    st.tuples(_listing(_NAMES), _listing(_NAMES)).map(lambda p: {"allOf": [p[0], p[1]]}),
    st.tuples(_listing(_NAMES), _listing(_NAMES)).map(
        lambda p: {"$defs": {"o": p[1]}, **p[0], "allOf": [{"$ref": "#/$defs/o"}]}),
    st.tuples(_listing(_NAMES), _listing(_NAMES)).map(
        lambda p: {"$defs": {"o": p[1]}, "$ref": "#/$defs/o", "properties": p[0]["properties"],
                   "required": p[0]["required"]}),
    st.tuples(_listing(_NAMES), _listing(_NAMES)).map(
        lambda p: {**p[0], "if": {"required": ["a"]}, "then": p[1]}),
)


# ------------------------------------------------------------------------------------ soundness (core)
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(schema=st.one_of(schemas, with_defs), output=st.sampled_from(["yaml", "xml"]), seed=st.integers(0, 10**6))
# an empty-string constant once became an empty regex terminal, which Lark reads as a comment
@example(schema={"type": "array", "prefixItems": [{"type": "array", "contains": {"const": ""}, "maxContains": 1}]},
         output="xml", seed=0)
# a fraction past 15 significant digits once parsed to an integral float, breaking `not: {type: integer}`
@example(schema={"type": "object", "properties": {"r": {"anyOf": [{}], "not": {"type": "integer"}}}},
         output="yaml", seed=0)
# a unique array at its item limit filled with values that miss contains: a prefix with no completion
@example(schema={"type": "array", "items": {"enum": [None, False, 0]}, "maxItems": 2,
                 "contains": {"type": "boolean"}, "uniqueItems": True}, output="yaml", seed=0)
def test_every_sampled_text_is_valid_when_all_keywords_are_exact(schema, output, seed):
    if _grammar_or_none(schema, output) is None:
        return
    found = enforcement(schema, output)
    used = _keywords(schema)
    assert set(found.exact) <= used
    if used <= set(found.exact):
        assert found.sound, found.after  # YAML and XML report only keywords the schema has
    if found.sound:  # an example where no text could be drawn checked nothing: it is not counted
        assume(_check_samples(schema, output, range(seed, seed + 4)) > 0)


# most drawn schemas leave some keyword to the validator and are filtered out on purpose: with some seeds that
# trips hypothesis's filter health check (seen on main before this change with --hypothesis-seed=8, 10, 13)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                                 HealthCheck.filter_too_much])
@given(schema=schemas, seed=st.integers(0, 10**6))
def test_json_texts_are_valid_when_enforcement_is_sound(schema, seed):
    assume(_grammar_or_none(schema, "json") is not None and enforcement(schema, "json").sound)
    assume(_check_samples(schema, "json", range(seed, seed + 3)) > 0)  # (else nothing was checked)


def _keywords(schema: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(schema, dict):
        found |= {k for k in schema if k in ASSERTIONS}
        for key, value in schema.items():
            if key in ("properties", "$defs", "patternProperties", "dependentSchemas"):
                for sub in value.values():
                    found |= _keywords(sub)
            elif key in ("enum", "const"):
                continue
            elif isinstance(value, dict):
                found |= _keywords(value)
            elif isinstance(value, list):
                for sub in value:
                    found |= _keywords(sub)
    return found


def test_the_generated_suite_compiles_and_its_samples_are_valid():
    from corral.schema import generate_suite

    sound = 0
    for item in generate_suite(60, 0):
        for output in OUTPUTS:
            grammar = compile_schema(item.schema, output)
            assert engine_check(grammar) is None
            if enforcement(item.schema, output).sound:
                sound += output != "json"
                assert _check_samples(item.schema, output, range(3)) > 0, (item.id, output)
    assert sound >= 90  # of 120: only uniqueItems over non-constant items (and rare maxContains) are left


# ------------------------------------------------------------------------------------------ conventions
def test_yaml_layout_and_scalars():
    schema = {"type": "object", "properties": {
        "name": {"type": "string"}, "yes": {"type": "boolean"}, "ratio": {"type": "number", "minimum": 0},
        "free": {"type": "number"},
        "tags": {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "integer"},
                                                                            "v": {"type": "null"}}}}},
        "required": ["name"], "additionalProperties": False}
    grammar = compile_schema(schema, "yaml")
    good = 'name: "aé\\u0001\\/"\n"yes": true\nratio: 1.5\ntags:\n  - k: 1\n    v: null\n  - {}\n'
    assert accepts(grammar, good)
    assert parse_sample(good, "yaml", extract=False)["name"] == "aé\x01/"
    assert accepts(grammar, good.rstrip("\n"))
    for bad in ['name: "a"\nyes: true', 'name: "a"\nratio: 1e5', 'name: "a"\nratio: 1.0e5', "name: a",
                'name: "a"\n\n', 'name:  "a"', 'name: "a"\ntags:\n- k: 1', 'name: "a"\nratio: -1']:
        assert not accepts(grammar, bad), bad
    assert accepts(grammar, 'name: "a"\nfree: 10.0e+5') and not accepts(grammar, 'name: "a"\nratio: 10.0e+5')
    assert accepts(grammar, 'name: "a"\ntags: []')


def test_yaml_strings_round_trip_through_pyyaml():
    text = "q\"\\/\t\n\x00\x1f\x7f\x85\u2028\ufeff\uffff é😀"
    grammar = compile_schema({"const": text}, "yaml")
    written = sample(grammar, _walk(0, 1.0))
    assert written is not None and parse_sample(written, "yaml", extract=False) == text
    assert "\x85" not in written and "\u2028" not in written


def test_xml_layout_and_names():
    schema = {"type": "object", "properties": {
        "a b": {"type": "string", "maxLength": 3}, "xmlns": {"type": "integer"}, "n": {"type": "number"},
        "list": {"type": "array", "items": {"type": "boolean"}}, "nothing": {"type": "null"}},
        "required": ["a b"]}
    grammar = compile_schema(schema, "xml")
    good = ('<?xml version="1.0" ?>\n<root type="dict">\n  <key name="a b" type="str">&lt;&amp;</key>\n'
            '  <key name="xmlns" type="int">-3</key>\n  <n type="float">2.5e-3</n>\n'
            '  <list type="list"><item type="bool">true</item></list>\n  <nothing type="null"/>\n</root>\n')
    assert accepts(grammar, good)
    assert parse_sample(good, "xml", extract=False)["a b"] == "<&"
    assert accepts(grammar, '<root type="dict"><key name="a b" type="str"/><n type="int">7</n></root>')
    for bad in ['<root type="dict"><key name="a b" type="str">&lt;&lt;&lt;&lt;</key></root>',
                '<root type="dict"><key name="a b" type="str">&</key></root>',
                '<root type="dict"><key name="a b" type="str">x</key>\n\n</root>',
                '<root type="dict"><key name="a b" type="str">x</key>' + " " * 41 + "</root>",
                '<root type="dict"><xmlns type="int">1</xmlns><key name="a b" type="str">x</key></root>']:
        assert not accepts(grammar, bad), bad


def test_greedy_lexing_never_shadows_a_value():
    """llguidance's lexer is greedy: a literal that is a prefix of another lexeme must not cut a valid text."""
    xml = compile_schema({"anyOf": [{"const": "abc"}, {"type": "string"}, {"const": 5}, {"type": "integer"}]}, "xml")
    assert accepts(xml, '<root type="str">abd</root>') and accepts(xml, '<root type="int">57</root>')
    keyed = {"type": "object", "properties": {"key": {"type": "integer"}, "a b": {"type": "integer"}},
             "additionalProperties": {"type": "integer"}}
    xml = compile_schema(keyed, "xml")
    assert accepts(xml, '<root type="dict"><key name="key" type="int">1</key><key name="zz" type="int">2</key></root>')
    yaml = compile_schema({"type": "array", "items": {"anyOf": [{"const": True}, {"type": "object",
                                                                                 "additionalProperties": {}}]}}, "yaml")
    assert accepts(yaml, "- true\n- truex: 1\n- t: 2")


def test_no_text_opens_a_code_fence():
    schema = {"type": "object", "properties": {"s": {"type": "string"}, "c": {"const": "a```b"},
                                               "k```": {"type": "integer"}}}
    for output in ("yaml", "xml"):
        grammar = compile_schema(schema, output)
        assert "k```" not in grammar.source and "a```b" not in grammar.source
    assert not accepts(compile_schema(schema, "yaml"), 's: "```json"')
    assert accepts(compile_schema(schema, "yaml"), 's: "``json`"')
    assert not accepts(compile_schema(schema, "xml"), '<root type="dict"><s type="str">```\nx</s></root>')


def test_no_unbounded_whitespace_anywhere():
    for output in ("yaml", "xml"):
        grammar = compile_schema({"type": "array", "items": {"type": "object", "properties": {"a": {}}}}, output)
        padded = sample(grammar, lambda allowed: 32 if 32 in allowed else 10 if 10 in allowed else allowed[0],
                        max_bytes=3000)
        assert padded is None or len(padded) < 3000


def test_extra_properties_never_repeat_a_key():
    schema = {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"],
              "additionalProperties": {"type": "integer"}, "maxProperties": 4}
    for output in ("yaml", "xml"):
        assert enforcement(schema, output).sound
        assert _check_samples(schema, output, range(40)) > 20
    yaml = compile_schema(schema, "yaml")
    assert accepts(yaml, "id: 1\nabc: 2\nbcd: 3")
    assert not accepts(yaml, "id: 1\nabc: 2\nazz: 3")  # same first letter: could be the same key
    assert not accepts(yaml, "id: 1\nid2: 2\nidx: 3")
    assert not accepts(yaml, "id: 1\nabc: 2\nbcd: 3\ncde: 4\ndef: 5")  # maxProperties
    xml = compile_schema(schema, "xml")
    assert accepts(xml, '<root type="dict"><id type="int">1</id><key name="zz" type="int">2</key></root>')
    assert not accepts(xml, '<root type="dict"><id type="int">1</id><key name="id" type="int">2</key></root>')


def test_numbers_are_exact_at_float_bounds():
    schema = {"type": "number", "exclusiveMaximum": 0.1, "minimum": -0.5}
    for output in ("yaml", "xml"):
        grammar = compile_schema(schema, output)
        assert not accepts(grammar, _number("0.09999999999999999999", output))  # rounds onto 0.1
        assert not accepts(grammar, _number("0.1", output))
        assert accepts(grammar, _number("0.09999999999999999", output))
        assert not accepts(grammar, _number("-0.50000000000000000001", output))
        assert accepts(grammar, _number("-0.5", output))


def test_an_integral_multiple_of_a_number_writes_integers_only():
    schema = {"type": "number", "multipleOf": 1, "minimum": 0, "maximum": 100000}  # JSONSchemaBench o13152
    for output in ("yaml", "xml"):
        grammar = compile_schema(schema, output)
        assert accepts(grammar, "63873" if output == "yaml" else '<root type="int">63873</root>')
        assert not accepts(grammar, _number("63873.8", output))
        assert enforcement(schema, output).sound


def test_non_integers_keep_a_fraction_a_float_can_hold():
    schema = {"not": {"type": "integer"}, "type": "number"}
    for output in ("yaml", "xml"):
        grammar = compile_schema(schema, output)
        assert accepts(grammar, _number("81920529963.5", output))
        assert not accepts(grammar, _number("81920529963145849.5", output))  # parses to an integral float
        assert not accepts(grammar, _number("2.0", output))


def _number(text: str, output: str) -> str:
    return text if output == "yaml" else f'<root type="float">{text}</root>'


@settings(max_examples=300, deadline=None)
@given(lo=st.integers(-10**6, 10**6), width=st.integers(0, 10**6), probe=st.integers(-10**7, 10**7))
def test_integer_range_regexes_match_exactly(lo, width, probe):
    import re

    hi = lo + width
    pattern = re.compile(int_regex(lo, hi))
    for x in (lo - 1, lo, hi, hi + 1, probe):
        assert bool(pattern.fullmatch(str(x))) == (lo <= x <= hi)
    assert not pattern.fullmatch("-0") and not pattern.fullmatch("007")


@settings(max_examples=300, deadline=None)
@given(bound=st.decimals(0, 10**6, places=6), probe=st.decimals(0, 10**7, places=7))
def test_decimal_bound_regexes_match_exactly(bound, probe):
    import re

    for text in {format(probe, "f"), format(probe, "f") + "0", str(int(probe)), format(bound, "f")}:
        value = type(bound)(text)
        assert bool(re.fullmatch(udec_ge(bound), text)) == (value >= bound), (bound, text)
        assert bool(re.fullmatch(udec_le(bound), text)) == (value <= bound), (bound, text)


def test_multiple_regexes_match_exactly():
    import re

    for k in (1, 2, 4, 5, 8, 10, 20, 25, 125, 1000):
        pattern = re.compile(multiple_regex(k) or "")
        assert all(bool(pattern.fullmatch(str(n))) == (n % k == 0) for n in range(-2100, 2100))
    assert multiple_regex(3) is None and multiple_regex(7) is None


def test_fractional_multiple_of_is_a_validated_window():
    schema = {"type": "number", "multipleOf": 0.1, "minimum": 0, "maximum": 1}
    for output in ("yaml", "xml"):
        assert enforcement(schema, output).sound
        assert _check_samples(schema, output, range(30)) > 0
    assert not accepts(compile_schema(schema, "yaml"), "0.3")  # 0.3 / 0.1 == 2.9999999999999996


# ------------------------------------------------------------------------------------------- after
AFTER_CASES = [
    ({"type": "array", "items": {"type": "integer", "multipleOf": 3}, "uniqueItems": True}, "uniqueItems",
     "- 3\n- 3"),
    ({"type": "string", "pattern": "^(?=a)"}, "pattern", '"b"'),
    ({"type": "string", "pattern": "\\bx"}, "pattern", '"ax"'),
    ({"oneOf": [{"type": "integer"}, {"type": "number"}]}, "oneOf", "1"),
    ({"type": "array", "prefixItems": [{"type": "integer"}], "items": False, "contains": {"const": "x"}},
     "contains", "- 1"),
]


@pytest.mark.parametrize(("schema", "keyword", "violation"), AFTER_CASES)
def test_keywords_left_for_later_are_reported_and_really_unchecked(schema, keyword, violation):
    found = enforcement(schema, "yaml")
    assert keyword in {k for _, k, _ in found.after} and keyword not in found.exact
    assert all(path.startswith("#") and reason for path, _, reason in found.after)
    grammar = compile_schema(schema, "yaml")
    assert accepts(grammar, violation)
    assert not _valid(schema, parse_sample(violation, "yaml", extract=False))


EXACT_CASES = [
    ({"type": "array", "items": {"enum": ["a", "b", 3]}, "uniqueItems": True, "minItems": 2}, '- "a"\n- "a"'),
    ({"type": "array", "items": {"type": "integer"}, "uniqueItems": True}, "- 1\n- 2\n- 1"),
    ({"type": "array", "items": {"type": "number"}, "uniqueItems": True}, "- 1.5\n- 1.50"),
    ({"type": "array", "items": {"type": "string"}, "uniqueItems": True}, '- "ab"\n- "ab"'),
    ({"type": "array", "prefixItems": [{"type": "string"}, {"type": "boolean"}], "maxItems": 1}, '- "a"\n- true'),
    ({"type": "array", "items": {"type": "integer"}, "maxItems": 1, "uniqueItems": True}, "- 1\n- 2"),
    ({"type": "array", "items": {"type": "integer"}, "contains": {"minimum": 10}, "minContains": 2,
      "maxContains": 2}, "- 10\n- 11\n- 12"),
    ({"type": "object", "dependentRequired": {"a": ["b"]}, "properties": {"a": {}, "b": {}}, "required": ["a"]},
     "a: 1"),
    ({"not": {"type": "string"}, "type": ["string", "integer"]}, '"x"'),
    ({"type": "integer", "not": {"enum": [1, 2]}, "minimum": 0}, "2"),
    ({"type": "string", "format": "date"}, '"2023-02-29"'),
    ({"type": "object", "propertyNames": {"maxLength": 2}, "properties": {"abc": {}, "ab": {}}}, "abc: 1"),
    ({"if": {"type": "integer"}, "then": {"minimum": 5}}, "3"),
]


@pytest.mark.parametrize(("schema", "violation"), EXACT_CASES)
def test_exact_keywords_reject_violations(schema, violation):
    assert enforcement(schema, "yaml").sound
    assert not accepts(compile_schema(schema, "yaml"), violation)
    assert enforcement(schema, "xml").sound


# ------------------------------------------------------------------------------------- not expressible
REFUSED = [
    ({"$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}}}, "$ref": "#/$defs/n"},
     "$ref", "#/$defs/n/properties/next"),
    ({"type": "object", "properties": {"x": {"not": {"type": "object", "properties": {"a": {"const": 1}}}}}},
     "not", "#/properties/x/not"),
    ({"properties": {"y": {"$ref": "https://example.com/s.json"}}}, "$ref", "#/properties/y"),
    ({"type": "object", "patternProperties": {"^(?=a)": {}}, "properties": {"ab": {}}}, "patternProperties", "#"),
    # a lone ']' is a literal to Python, an error to ECMA-262 (unicode mode), so no validator can judge a sample
    ({"type": "object", "properties": {"name": {"type": "string", "pattern": "^[[a-z]*[-]?[a-z]*]*$"}}},
     "pattern", "#/properties/name"),
    ({"type": "object", "patternProperties": {"^[a]]$": {}}, "properties": {"a]": {}}}, "patternProperties", "#"),
]


@pytest.mark.parametrize(("schema", "keyword", "path"), REFUSED)
@pytest.mark.parametrize("output", ["yaml", "xml"])
def test_refusals_name_path_and_keyword_in_one_line(schema, keyword, path, output):
    with pytest.raises(NotExpressible) as caught:
        compile_schema(schema, output)
    message = str(caught.value)
    assert "\n" not in message and f"{keyword} at {path}" in message


def test_a_definition_reached_many_times_is_lowered_once(monkeypatch):
    """SchemaStore's service-schema (540 kB) reaches its definitions through hundreds of anyOf branches; it
    used to validate every enum value against every branch again at each use and ran for over 30 minutes."""
    from corral.grammars.schema._lower import Lowerer, lowered  # the lowering to the value language, step by step

    colours = [f"colour-{i}" for i in range(40)]
    schema = {"$defs": {"c": {"anyOf": [{"enum": colours}, {"type": "integer", "minimum": 0, "maximum": 9}]}},
              "type": "object",
              "properties": {f"p{i}": {"$ref": "#/$defs/c"} for i in range(30)},
              "required": ["p0", "p29"], "additionalProperties": False}
    calls = []
    real = Lowerer.valid
    monkeypatch.setattr(Lowerer, "valid",
                        lambda self, sub, value: calls.append(value) or real(self, sub, value))
    for output in ("yaml", "xml"):
        calls.clear()
        lowered.cache_clear()  # one lowering serves both outputs: lower afresh for each
        assert enforcement(schema, output).sound
        assert len(calls) == len(colours)  # each value checked once, not once per property
        assert _check_samples(schema, output, range(6)) > 0


def test_a_reference_used_twice_is_no_recursion():
    schema = {"$defs": {"a": {"type": "integer", "minimum": 0}, "b": {"$ref": "#/$defs/a"}},
              "allOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/b"}],
              "not": {"const": 3}}
    for output in ("yaml", "xml"):
        assert enforcement(schema, output).sound
        assert _check_samples(schema, output, range(20)) > 0


def test_recursive_schemas_compile_for_json():
    schema = REFUSED[0][0]
    assert compile_schema(schema, "json").format == "json_schema"
    _check_samples(schema, "json", range(10))


# ------------------------------------------------------------------------- JSON: probes of llguidance
def _json_accepts(schema: Any, text: str) -> bool:
    return accepts(compile_schema(schema, "json"), text)


IGNORED_PROBES = [
    ({"type": "array", "items": {"type": "integer"}, "uniqueItems": True}, "uniqueItems", "[1,1]"),
    ({"type": "array", "contains": {"const": 3}}, "contains", "[1]"),
    ({"type": "array", "contains": {"const": 3}, "maxContains": 1}, "maxContains", "[3,3]"),
    ({"type": "integer", "not": {"const": 1}}, "not", "1"),
    ({"if": {"type": "integer"}, "then": {"minimum": 5}}, "if", "3"),
    ({"type": "object", "dependentRequired": {"a": ["b"]}}, "dependentRequired", '{"a":1}'),
    ({"type": "object", "propertyNames": {"maxLength": 1}}, "propertyNames", '{"ab":1}'),
    ({"type": "object", "properties": {"a": {}, "b": {}, "c": {}}, "maxProperties": 2}, "maxProperties",
     '{"a":1,"b":2,"c":3}'),
    ({"oneOf": [{"type": "integer"}, {"type": "number"}]}, "oneOf", "1"),
    ({"type": "string", "format": "date"}, "format", '"2023-02-29"'),
    ({"type": "string", "format": "date-time"}, "format", '"2020-01-01T23:59:60Z"'),
    ({"type": "string", "format": "time"}, "format", '"23:59:60Z"'),
    ({"type": "string", "format": "hostname"}, "format", json.dumps(".".join(["a" * 63] * 4))),
    ({"type": "string", "format": "json-pointer"}, "format", '"x"'),
    ({"type": "number", "exclusiveMaximum": 0.1}, "exclusiveMaximum", "0.09999999999999999999"),
    ({"type": "number", "exclusiveMinimum": 0.1}, "exclusiveMinimum", "0.10000000000000000001"),
    ({"type": "object", "additionalProperties": {"type": "integer"}}, "additionalProperties", '{"a":1,"a":2}'),
    ({"type": "string", "pattern": "^.$"}, "pattern", '"\\r"'),
    # JSONSchemaBench's MIME-type schema: llguidance's \s takes U+0085 (NEL), ECMA-262's does not
    ({"type": "string", "pattern": "^a\\s*b$"}, "pattern", '"a\u0085b"'),
    ({"type": "number", "multipleOf": 0.1}, "multipleOf", "0.3"),
    # where a number is joined with another schema Corral leaves it be: its exponent may overflow to inf
    ({"allOf": [{"type": ["number", "null"]}, {"type": ["number", "string"]}]}, "type", "1e999"),
]


@pytest.mark.parametrize(("schema", "keyword", "violation"), IGNORED_PROBES)
def test_json_enforcement_reports_what_llguidance_lets_through(schema, keyword, violation):
    """Each reported gap is real: llguidance accepts a text that is not a valid sample."""
    assert keyword in {k for _, k, _ in enforcement(schema, "json").after}
    assert _json_accepts(schema, violation)
    try:
        value = parse_sample(violation, "json", extract=False)
    except ValueError:
        return  # the sample parser refuses it (a repeated key)
    assert not _valid(schema, value)


EXACT_PROBES = [
    ({"type": "number"}, "1e999"),  # narrowed to 15 digits, as YAML and XML
    ({"type": "object"}, '{"a":1,"a":2}'),  # narrowed to one extra key
    ({"type": "object", "properties": {"a": {}}}, '{"a":1,"b":2}'),  # closed, as YAML and XML
    ({"type": "string", "format": "email"}, '"ab"'),
    ({"type": "string", "format": "ipv4"}, '"01.2.3.4"'),
    ({"type": "string", "format": "ipv6"}, '"1:2"'),
    ({"type": "string", "format": "uuid"}, '"123"'),
    ({"type": "string", "format": "uri"}, '"no scheme"'),
    ({"type": "string", "format": "duration"}, '"P"'),
    ({"type": "integer", "multipleOf": 3}, "4"),
    ({"type": "number", "multipleOf": 3}, "1.5"),
    ({"type": "integer", "exclusiveMaximum": 2.5}, "3"),
    ({"type": "number", "maximum": 0.1}, "0.10000000000000000001"),
    ({"type": "string", "minLength": 2}, '"😀"'),
    ({"type": "string", "pattern": "^[a-c]+$"}, '"abd"'),
    ({"type": "array", "prefixItems": [{"type": "integer"}], "items": False}, "[1,2]"),
    ({"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": False}, '{"a":1,"a":2}'),
    ({"oneOf": [{"type": "integer"}, {"type": "string"}]}, "true"),
    ({"type": "object", "properties": {"a": {"type": "null"}, "b": {"type": "null"}}, "minProperties": 1,
      "additionalProperties": False}, "{}"),
    ({"enum": [1, "a"]}, '"b"'),
]


@pytest.mark.parametrize(("schema", "violation"), EXACT_PROBES)
def test_json_keywords_called_exact_are_enforced_by_llguidance(schema, violation):
    found = enforcement(schema, "json")
    assert found.sound, found.after
    assert not _json_accepts(schema, violation)


def test_bounds_close_the_overflow_gap_that_narrowing_leaves():
    joined = {"allOf": [{"type": ["number", "null"]}, {"type": ["number", "boolean"]}]}
    schema = {"type": "object", "properties": {"x": joined}, "required": ["x"], "additionalProperties": False}
    assert ("#/properties/x/allOf/0", "type") in {(p, k) for p, k, _ in enforcement(schema, "json").after}
    assert _json_accepts(schema, '{"x":-1e999}')
    assert enforcement(schema, "json", bounded=True).sound
    assert not accepts(compile_schema(schema, "json", bounded=True), '{"x":-1e999}')
    plain = {"type": "object", "properties": {"x": {"type": "number"}, "y": {}}}
    assert enforcement(plain, "json").sound and not _json_accepts(plain, '{"x":-1e999}')
    assert not _json_accepts(plain, '{"y":[2e999]}') and _json_accepts(plain, '{"x":-1.5,"y":[2]}')


def test_json_lenient_mode_only_when_needed():
    strict = compile_schema({"type": "integer"}, "json")
    assert "x-guidance" not in strict.schema
    lenient = compile_schema({"type": "array", "uniqueItems": True}, "json")
    assert lenient.schema["x-guidance"] == {"lenient": True}
    dropped = compile_schema({"type": "string", "pattern": "(a)\\1"}, "json")
    assert "pattern" not in dropped.schema
    after = enforcement({"type": "string", "pattern": "(a)\\1"}, "json").after
    assert ("#", "pattern") in {(path, keyword) for path, keyword, _ in after}


def test_json_pattern_risks():
    assert json_pattern_risk("^[a-z]+\\d$") is None
    assert json_pattern_risk("^\\S+$") and json_pattern_risk("^[^\\d]$") and json_pattern_risk("a.b")
    assert json_pattern_risk("(?i)abc")


# ---------------------------------------------------------------------------------------------- misc
def test_compiling_finishes_and_the_engine_is_happy():
    schema = {"type": "object", "properties": {
        f"p{i}": {"type": t, **extra} for i, (t, extra) in enumerate([
            ("string", {"maxLength": 40, "pattern": "^[a-z ]+$"}), ("integer", {"minimum": -3, "maximum": 999}),
            ("number", {"exclusiveMinimum": 0.5, "maximum": 99.75}), ("string", {"format": "email"}),
            ("array", {"items": {"type": "string", "enum": ["x", "y"]}, "uniqueItems": True}),
            ("boolean", {}), ("string", {"format": "date-time"}), ("integer", {"multipleOf": 7})])},
        "required": ["p0", "p1"]}
    for output in OUTPUTS:
        start = time.perf_counter()
        grammar = compile_schema(schema, output)
        elapsed = time.perf_counter() - start
        assert elapsed < 30 and engine_check(grammar) is None  # a hang guard; speed is benchmarks/schema_compile.py
        assert enforcement(schema, output).exact


def test_bad_outputs_and_schemas():
    with pytest.raises(ValueError, match="unknown output"):
        compile_schema({}, "toml")
    from corral.grammars import GrammarError

    with pytest.raises(GrammarError):
        compile_schema({"type": "strin"}, "yaml")
    assert compile_schema(True, "yaml").format == "lark"
    with pytest.raises(NotExpressible):
        compile_schema(False, "xml")


@pytest.mark.parametrize("output", ["yaml", "xml"])
def test_open_integers_and_arrays_are_narrowed_so_decoding_ends(output):
    """A small model writes digits or items until its budget runs out when nothing stops it (seen with SmolLM2):
    an open integer gets at most 15 digits past its bound, an open array at most 6 items (or minItems), an
    open string at most 64 characters."""
    ints = compile_schema({"type": "integer"}, output)
    write = (lambda v: f"{v}") if output == "yaml" else (lambda v: f'<root type="int">{v}</root>')
    assert accepts(ints, write(10**15 - 1)) and accepts(ints, write(-(10**15) + 1))
    assert not accepts(ints, write(10**15)) and not accepts(ints, write(-(10**15)))
    high = compile_schema({"type": "integer", "minimum": 10**20}, output)
    assert accepts(high, write(10**20 + 10**15 - 1)) and not accepts(high, write(10**20 + 10**15))
    assert not accepts(high, write(10**20 - 1))

    def array(n: int) -> str:
        if output == "yaml":
            return "\n".join(["- 1"] * n) if n else "[]"
        return '<root type="list">' + '<item type="int">1</item>' * n + "</root>"

    items = compile_schema({"type": "array", "items": {"const": 1}}, output)
    assert accepts(items, array(6)) and not accepts(items, array(7))
    many = compile_schema({"type": "array", "items": {"const": 1}, "minItems": 20}, output)
    assert accepts(many, array(20)) and not accepts(many, array(19)) and not accepts(many, array(21))


@pytest.mark.parametrize("output", ["yaml", "xml"])
def test_unique_items_never_open_an_item_no_value_can_fill(output):
    """Under multipleOf 4 only even last digits exist: once the five even buckets are used, the grammar must end
    the list, not open a sixth item (SmolLM2 stopped mid-sample there, suite schema s0039)."""
    schema = {"type": "array", "items": {"type": "number", "multipleOf": 4}, "minItems": 0, "uniqueItems": True}
    grammar = compile_schema(schema, output)
    for seed in range(30):
        text = sample(grammar, _walk(seed, 0.02), max_bytes=3000, strict=True)
        assert text is not None and _valid(schema, parse_sample(text, output))
    five = [0, 4, 8, 12, 16]
    full = ("\n".join(f"- {v}" for v in five) if output == "yaml"
            else '<root type="list">' + "".join(f'<item type="int">{v}</item>' for v in five) + "</root>")
    assert accepts(grammar, full)
    assert not accepts(grammar, full.replace("- 16", "- 16\n- 20") if output == "yaml"
                       else full.replace("</root>", '<item type="int">20</item></root>'))


# ------------------------------------------------------------------------------------ bounded JSON output
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(schema=st.one_of(schemas, with_defs, joined), seed=st.integers(0, 10**6))
def test_bounded_json_texts_are_valid_against_the_original_schema(schema, seed):
    """Bounds only remove values, and close what llguidance leaves unchecked (an extra key repeated): where the
    bounded grammar is called sound, every text it gives is valid against the original schema."""
    if _grammar_or_none(schema, "json") is None or not enforcement(schema, "json", bounded=True).sound:
        return
    assert enforcement(schema, "json", bounded=True).sound >= enforcement(schema, "json").sound
    grammar = compile_schema(schema, "json", bounded=True)
    for s in range(seed, seed + 3):
        text = sample(grammar, _walk(s, 0.05 + 0.1 * (s % 4)), max_bytes=3000, strict=True)
        if text is not None:
            assert _valid(schema, json.loads(text)), (text, schema)


def test_bounded_json_closes_what_the_schema_leaves_open():
    from corral.grammars.schema._narrow import bounded  # the narrowing of a bound to what a grammar can write

    ints = compile_schema({"type": "integer", "minimum": 70, "multipleOf": 5}, "json", bounded=True)
    assert accepts(ints, str(10**15 + 65)) and not accepts(ints, str(10**15 + 75))
    assert accepts(compile_schema({"type": "integer"}, "json"), "1" * 20)  # unbounded unless asked
    items = compile_schema({"type": "array", "items": {"type": "null"}}, "json", bounded=True)
    assert accepts(items, "[" + ",".join(["null"] * 6) + "]") and not accepts(items, "[" + ",".join(["null"] * 7) + "]")
    anything = compile_schema({"type": "array"}, "json", bounded=True)
    assert accepts(anything, '[{"a":[1,"x",null]}]') and not accepts(anything, "[" + "[" * 5 + "]" * 5 + "]")
    text = compile_schema({"type": "string", "format": "email"}, "json", bounded=True)
    assert accepts(text, '"a@b.co"') and not accepts(text, '"' + "a" * 60 + '@b.co"')
    # under not, if and oneOf, removing values could add some: nothing there is bounded
    for schema, key in (({"not": {"type": "integer"}}, "not"), ({"if": {"maxItems": 2}, "then": {}}, "if"),
                        ({"oneOf": [{"type": "integer"}, {"minimum": 3}]}, "oneOf")):
        assert bounded(schema)[key] == schema[key] and "maxItems" in bounded(schema)
    assert bounded({"$defs": {"n": {"type": "integer"}}, "not": {"$ref": "#/$defs/n"}})["$defs"]["n"] == {
        "type": "integer"}


def test_bounded_json_closes_objects_to_their_listed_properties_where_nothing_else_applies():
    from corral.grammars.schema._narrow import bounded  # the narrowing of a bound to what a grammar can write

    listed = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "boolean"}}, "required": ["a"]}
    closed = compile_schema(listed, "json", bounded=True)
    assert accepts(closed, '{"a":1,"b":true}') and accepts(closed, '{"a":1}')
    assert not accepts(closed, '{"a":1,"trees":1.0}')
    assert not accepts(compile_schema(listed, "json"), '{"a":1,"trees":1.0}')  # closed unbounded too
    # where another schema applies to the same value, closing could shut out its properties: left open
    joined = {"allOf": [listed, {"properties": {"c": {"type": "null"}}, "required": ["c"]}]}
    assert "additionalProperties" not in bounded(joined)["allOf"][0]
    assert accepts(compile_schema(joined, "json", bounded=True), '{"a":1,"c":null}')
    in_defs = {"$defs": {"o": listed}, "anyOf": [{"$ref": "#/$defs/o"}, {"type": "null"}], "required": ["c"]}
    assert "additionalProperties" not in bounded(in_defs)["$defs"]["o"]  # the anyOf joins o with required c
    union = {"$defs": {"o": listed}, "anyOf": [{"$ref": "#/$defs/o"}, {"type": "null"}]}
    assert bounded(union)["$defs"]["o"]["additionalProperties"] is False  # o or null: nothing joins o
    alone_defs = {"$defs": {"o": listed}, "type": "object", "properties": {"x": {"$ref": "#/$defs/o"}}}
    assert bounded(alone_defs)["$defs"]["o"]["additionalProperties"] is False
    # a name it requires but does not list, or a count only extra properties can meet: left open
    for schema in ({**listed, "required": ["a", "z"]}, {**listed, "minProperties": 1},
                   {**listed, "dependentRequired": {"b": ["y"]}}, {**listed, "patternProperties": {"^x": {}}}):
        assert "additionalProperties" not in bounded(schema) or bounded(schema)["additionalProperties"] is not False
    every = {**listed, "required": ["a", "b"], "minProperties": 2}
    assert bounded(every)["additionalProperties"] is False


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(schema=st.one_of(schemas, with_defs, joined), seed=st.integers(0, 10**6))
def test_bounding_never_empties_a_grammar(schema, seed):
    """Bounds narrow; they must not narrow a schema with valid texts down to none (a closed object missing a
    property that a sibling schema requires would)."""
    if _grammar_or_none(schema, "json") is None:
        return
    walks = range(seed, seed + 6)
    plain = compile_schema(schema, "json")
    if all(sample(plain, _walk(s, 0.3), max_bytes=3000, strict=True) is None for s in walks):
        return
    narrowed = compile_schema(schema, "json", bounded=True)
    assert any(sample(narrowed, _walk(s, 0.3), max_bytes=3000, strict=True) is not None for s in range(seed, seed + 30))


@pytest.mark.parametrize("output", ["yaml", "xml"])
def test_open_strings_and_extra_properties_are_narrowed(output):
    strings = compile_schema({"type": "string"}, output)
    quoted = (lambda t: f'"{t}"') if output == "yaml" else (lambda t: f'<root type="str">{t}</root>')
    assert accepts(strings, quoted("a" * 64)) and not accepts(strings, quoted("a" * 65))
    longer = compile_schema({"type": "string", "minLength": 100}, output)
    assert accepts(longer, quoted("a" * 100)) and not accepts(longer, quoted("a" * 101))
    assert accepts(compile_schema({"type": "string", "pattern": "^a+$"}, output), quoted("a" * 200))
    extras = compile_schema({"type": "object"}, output)

    def obj(n: int) -> str:
        names = "abcdefgh"[:n]
        if output == "yaml":
            return "\n".join(f"{c}: 1" for c in names) if n else "{}"
        return '<root type="dict">' + "".join(f'<key name="{c}" type="int">1</key>' for c in names) + "</root>"

    assert accepts(extras, obj(6)) and not accepts(extras, obj(7))


@pytest.mark.parametrize("output", ["yaml", "xml"])
def test_max_contains_keeps_prefix_items_from_matching_when_no_tail_item_can(output):
    """Found by the property above: with ``maxContains: 0`` and a tail that can never match ``contains``, a prefix
    item that matches it was still written (``[null, "x"]`` against ``prefixItems: [null]``)."""
    schema = {"type": "array", "items": {"type": "string"}, "prefixItems": [{"type": "null"}],
              "contains": {"type": "null"}, "minContains": 0, "maxContains": 0}
    assert "maxContains" in enforcement(schema, output).exact
    assert _check_samples(schema, output, range(40)) >= 30
