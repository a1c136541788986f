"""The static JSON plan (``corral.grammars.schema._plan.scan``) against llguidance's own verdict.

The scan decides strict or lenient mode and vouches for numbers and patterns without compiling; these tests
compile anyway and check it never vouches for what llguidance refuses, on every schema Corral ships and on
hypothesis-drawn numbers and patterns.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corral.grammars import GrammarError, NotExpressible, compile_schema, enforcement

# the JSON plan (what llguidance's JSON path is handed) and its pieces, tested one by one
from corral.grammars.schema._compile import canonical  # a schema's compact text after its meta-schema check
from corral.grammars.schema._plan import (  # the plan's own steps and its plain number patterns
    _PLAIN_INTEGER,
    _PLAIN_NUMBER,
    _compiled_plan,
    json_plan,
    llg_error,
    plain_pattern,
    scan,
)
from corral.grammars.schema._values import compact  # the schema text the plan reads and llguidance gets

from .._sizes import sized


def _shipped_schemas():
    from corral.schema import generate_suite, jsonschemabench, schemastore

    yield from ((b.id, b.schema) for b in jsonschemabench())
    yield from ((s.name, s.schema) for s in schemastore())
    yield from ((g.id, g.schema) for g in generate_suite(602, seed=0))


def test_the_scan_agrees_with_llguidance_on_every_shipped_schema():
    """Every fourth shipped schema (full size: all of them, about 3,400)."""
    every = sized(4, 1)
    counts = {"strict": 0, "lenient": 0, "tried": 0, "conservative": 0}
    for i, (ident, schema) in enumerate(_shipped_schemas()):
        if i % every:
            continue
        try:
            text = canonical(schema)
        except GrammarError:
            continue
        verdict = scan(text)
        try:
            compiled = _compiled_plan(text)
        except NotExpressible:
            compiled = None
        if verdict is None:
            counts["tried"] += 1
            continue
        counts["strict" if verdict else "lenient"] += 1
        plan = json_plan(text)
        if compiled is None:  # refused in every mode: the static plan is refused too, at its first compile
            assert llg_error(plan.source) is not None, ident
            continue
        assert not compiled.dropped, (ident, compiled.dropped)  # a refused value is never vouched for
        assert not (plan.strict and not compiled.strict), ident  # lenient only ever by caution
        if plan.source != compiled.source:  # lenient where strict would do: it compiles all the same
            counts["conservative"] += 1
            assert llg_error(plan.source) is None, (ident, llg_error(plan.source))
    assert counts["strict"] > 2000 // every and counts["lenient"] > 500 // every, counts
    # tried: the 602-suite's fractional multipleOf values (llguidance refuses most) and the rare odd regex
    assert counts["tried"] < 0.03 * (counts["strict"] + counts["lenient"]), counts


_PATTERN_ALPHABET = "ab^$()|[]{}*+?.,-:01\\dpxuLsw"


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(_PATTERN_ALPHABET, max_size=12))
def test_a_plain_pattern_compiles_in_llguidance(pattern):
    if plain_pattern(pattern):
        schema = compact({"type": "string", "pattern": pattern})
        assert llg_error(schema) is None, (pattern, llg_error(schema))


@pytest.mark.parametrize("pattern", [
    "^a$", "^$|^\\d+$", "(^a$)", "[^a]", "[]a]", "\\x01", "\\p{L}+", "(?:ab)+", "^[a-z]{2,3}$", "a|$",
])
def test_common_patterns_are_plain(pattern):
    assert plain_pattern(pattern)


@pytest.mark.parametrize("pattern", [
    "a$b", "x^", "\\(^", "\\b", "(?=a)", "(?!a)", "[[:alpha:]]", "\\1", "(a", "a)", "[a",
    "^(\\/?((\\.{2})|([a-z]*))($|\\/))*$",  # an anchor inside a repeated group: llguidance refuses it
])
def test_unusual_patterns_are_tried(pattern):
    assert not plain_pattern(pattern)


_kinds = st.sampled_from(["number", "integer"])
_json_numbers = st.from_regex(r"-?(?:0|[1-9][0-9]{0,11})(?:\.[0-9]{1,6})?", fullmatch=True)  # as a JSON writer


@settings(max_examples=200, deadline=None)
@given(low=_json_numbers, high=_json_numbers, kind=_kinds)
def test_plain_numbers_compile_as_bounds(low, high, kind):
    assert _PLAIN_NUMBER.fullmatch(low) and _PLAIN_NUMBER.fullmatch(high)
    low, high = sorted([low, high], key=Fraction)
    if kind == "integer" and math.ceil(Fraction(low)) > math.floor(Fraction(high)):
        return  # no integer in the range: llguidance refuses an empty range, rightly
    for text in (f'{{"type":"{kind}","minimum":{low},"maximum":{high}}}',
                 f'{{"type":"{kind}","exclusiveMinimum":{low}}}', f'{{"type":"{kind}","maximum":{high}}}'):
        assert llg_error(text) is None, text


@settings(max_examples=100, deadline=None)
@given(step=st.from_regex(r"[1-9][0-9]{0,8}", fullmatch=True), kind=_kinds)
def test_plain_integers_compile_as_multiples(step, kind):
    assert _PLAIN_INTEGER.fullmatch(step)
    text = f'{{"type":"{kind}","multipleOf":{step}}}'
    assert llg_error(text) is None, text


def test_the_plan_keeps_the_schemas_property_order():
    """llguidance writes properties in the order the schema lists them, the order the prompt shows."""
    schema = {"type": "object", "properties": {"zeta": {"type": "integer"}, "alpha": {"type": "integer"}},
              "required": ["zeta", "alpha"]}
    from corral.grammars import accepts

    grammar = compile_schema(schema, "json")
    assert accepts(grammar, '{"zeta":1,"alpha":2}')
    assert not accepts(grammar, '{"alpha":2,"zeta":1}')


def test_a_refusal_the_scan_cannot_foresee_surfaces_at_the_first_compile():
    schema = {"allOf": [{"type": "boolean"}, {"type": "string"}]}
    grammar = compile_schema(schema, "json")  # static plan: nothing compiled yet
    with pytest.raises(GrammarError, match="incompatible types"):
        grammar.validate()
    with pytest.raises(NotExpressible, match=r"llguidance refuses it: .*incompatible types"):
        compile_schema(schema, "json", bounded=True)  # the bounded path compiles before decoding


def test_a_value_llguidance_refuses_is_dropped_and_reported():
    schema = {"type": "object", "properties": {"x": {"type": "string", "pattern": "^(?=a)ab$"}}}
    assert scan(compact(schema)) is None
    found = enforcement(schema, "json")
    assert ("#/properties/x", "pattern", "llguidance cannot compile this value, so decoding drops it") in found.after
    assert llg_error(json_plan(canonical(schema)).source) is None


# ------------------------------------------------------------------------ compact JSON written into the schema
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-9, 9) | st.text("ab\"\\{}x- ", max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(
        ["type", "x-guidance", "a", "lenient", "{", "properties"]), inner, max_size=3),
    max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(body=st.dictionaries(st.sampled_from(["type", "x-guidance", "a", "properties", "b"]), _json_values,
                            max_size=4), lenient=st.booleans(), spaced=st.booleans())
def test_compact_json_is_written_into_the_schema_as_llguidance_would_merge_it(body, lenient, spaced):
    import json

    from llguidance import LLMatcher

    from corral.grammars._grammar import _with_compact_json  # the fast path against llguidance's own option merge

    schema = {"x-guidance": {"lenient": True}, **body} if lenient and "x-guidance" not in body else body
    source = json.dumps(schema) if spaced else compact(schema)
    ours = _with_compact_json(source)
    if ours is None:  # llguidance merges it (an x-guidance of the author's own): nothing to compare
        assert '"x-guidance"' in source
        return
    try:
        theirs = LLMatcher.grammar_from_json_schema(source, defaults={"whitespace_flexible": False})
    except ValueError:
        return  # (llguidance refuses options of the wrong shape; ours is refused at the matcher then)
    assert json.loads(ours)["grammars"][0]["json_schema"] == json.loads(theirs)["grammars"][0]["json_schema"]
