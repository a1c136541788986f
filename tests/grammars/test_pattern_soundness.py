"""No pattern is reported as enforced when its grammar can write a text the pattern rejects.

The property behind issue 26: llguidance reads a JSON string's pattern on the string as written, so a negated
class that leaves out ``"`` or ``\\`` still lets the escape ``\\"`` through, which decodes to the very character
the pattern forbids. Whatever the output (JSON, YAML, XML) and wherever the pattern sits, a text drawn from the
grammar that breaks the pattern must find the pattern in ``enforcement(...).after``.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corral.grammars import NotExpressible, compile_schema, enforcement, random_walk, sample
from corral.schema import SampleError, is_valid, parse_sample

OUTPUTS = ("json", "yaml", "xml")

# what a negated class may leave out: the characters a format escapes (JSON's " and \, YAML's quotes and #, XML's
# < & >), controls, ranges that cover them, and ordinary letters
_LEFT_OUT = ['"', "\\\\", "'", "<", "&", ">", "#", ":", " ", "\\n", "\\t", "\\x00-\\x1f", "\\x20-\\x7e", "a-z", "0-9",
             "a", "\\u00e9", "/", "|", "*", "?"]


@st.composite
def negated_patterns(draw: st.DrawFn) -> str:
    """An anchored pattern built around a negated class: ``^(?:[^...]|lit)*$``-like, with a quantifier."""
    left_out = "".join(draw(st.lists(st.sampled_from(_LEFT_OUT), min_size=1, max_size=4, unique=True)))
    piece = f"[^{left_out}]"
    if draw(st.booleans()):
        piece = f"(?:{piece}|{draw(st.sampled_from(['x', 'ab', '-']))})"
    quantifier = draw(st.sampled_from(["*", "+", "{1,6}", "{0,3}"]))
    prefix = draw(st.sampled_from(["", "a", "[a-z]"]))
    return f"^{prefix}{piece}{quantifier}$" if draw(st.booleans()) else f"{piece}{quantifier}"


def _where(draw_object: bool, pattern: str) -> tuple[dict[str, Any], str]:
    string = {"type": "string", "pattern": pattern}
    if draw_object:
        return ({"type": "object", "properties": {"name": string}, "required": ["name"],
                 "additionalProperties": False}, "#/properties/name")
    return string, "#"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(negated_patterns(), st.booleans(), st.sampled_from(OUTPUTS))
def test_a_pattern_the_grammar_can_break_is_never_reported_enforced(pattern: str, in_object: bool,
                                                                     output: str) -> None:
    schema, path = _where(in_object, pattern)
    try:
        grammar = compile_schema(schema, output)
    except NotExpressible:
        return  # a refusal is sound
    reported = {(where, keyword) for where, keyword, _ in enforcement(schema, output).after}
    for seed in range(40):
        text = sample(grammar, random_walk(seed, close=0.15), max_bytes=300)
        if text is None:
            continue
        try:
            value = parse_sample(text, output)
        except SampleError:
            assert reported, f"{output} text {text!r} of {schema} does not parse, and nothing is reported"
            continue
        if not is_valid(schema, value):
            assert (path, "pattern") in reported, (
                f"{output}: {text!r} breaks {pattern!r}, yet the pattern is reported enforced")


def test_the_known_escape_case_is_reported():
    """The shape found in a real schema: a negated class without '"' (JSON writes it as the escape \\")."""
    schema = {"type": "string", "pattern": '^[^"]*$'}
    grammar = compile_schema(schema, "json")
    from corral.grammars import accepts

    assert accepts(grammar, '"\\""')  # llguidance takes the escape...
    assert not re.search('^[^"]*$', '"')  # ...whose value the pattern refuses...
    assert ("#", "pattern") in {(p, k) for p, k, _ in enforcement(schema, "json").after}  # ...so it is reported


def test_a_grammar_past_the_engines_limits_is_refused_at_compile_time(monkeypatch):
    """The shape of a large real schema whose XML grammar ran out of the engine's lexer fuel in the middle of
    decoding ("too many expressions constructed"): with the fuel lowered so that a schema written here shows it,
    compiling refuses with the reason, for YAML and XML, instead of failing later inside the engine."""
    import corral.grammars._grammar as engine  # the engine's fuel, lowered (no public knob: a real limit)

    schema = {"type": "object", "properties": {f"p{i}": {"type": "string", "pattern": "^[a-z]{2,9}[0-9]+$"}
                                               for i in range(40)}}
    compile_schema(schema, "xml")  # within the real limits
    monkeypatch.setattr(engine, "LEXER_FUEL", 1)
    monkeypatch.setattr(engine, "STEP_FUEL", 1)
    for output in ("xml", "yaml"):
        try:
            compile_schema(schema, output)
        except NotExpressible as exc:
            assert "past the grammar engine's limits" in str(exc)
        else:
            raise AssertionError(f"{output}: compiled past the engine's limits")


def test_mutate_returns_none_when_the_validator_cannot_judge_a_candidate(monkeypatch):
    """A pattern the ECMA engine gives up on for the changed value (a timeout, found on a real schema): no
    mutation, as the docstring says, not a SchemaInputError out of mutate."""
    import random

    import corral.schema._dialect as dialect  # the ECMA search replaced by one that gives up
    from corral.schema import SchemaInputError, mutate

    schema = {"type": "object", "properties": {"s": {"type": "string", "pattern": "^a+$", "maxLength": 8}},
              "required": ["s"]}
    assert mutate(schema, {"s": "aaaa"}, random.Random(0), "maxLength").keyword == "maxLength"
    real = dialect._search

    def gives_up(pattern: str, text: str) -> bool:
        if len(text) > 8:
            raise SchemaInputError(f"pattern {pattern!r} timed out")
        return real(pattern, text)

    monkeypatch.setattr(dialect, "_search", gives_up)
    assert mutate(schema, {"s": "aaaa"}, random.Random(0), "maxLength") is None
