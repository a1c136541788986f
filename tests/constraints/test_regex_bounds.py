"""A spec's regular expression is bounded before it is compiled (its length, and the size its counted repeats
expand to, nested repeats multiplied), so ``parse`` refuses ``a{1000000}`` in a moment instead of growing by
gigabytes; and a pattern that backtracks for ever ends a check undecided at the time budget."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corral.constraints import (
    MAX_PATTERN_CHARS,
    MAX_PATTERN_SIZE,
    TEXT,
    Budget,
    ConstraintJSONError,
    ConstraintSyntaxError,
    PatternTooLarge,
    Regex,
    bound_pattern,
    check,
    encode_string,
    from_json,
    parse,
)

LIMIT = f"{MAX_PATTERN_SIZE:,}"


def spec(pattern: str, of: str = "text") -> str:
    return f"regex({of}, {encode_string(pattern)})"


@pytest.mark.parametrize("pattern", [
    "a{1000000}", "a{4294967294}", "(a{1000}){1000}", "(?:ab{100}){101}", "((a{10}){10}){101}", "a{10001}",
    "a{5000}b{5001}", "(x{5000})(y{5001})", "a{9999,}bc", "a{,20000}", r"\w{100000}", "[abc]{20000}",
    "(?P<x>a{200}){201}", "(?i:a{100}){101}", "(?i)(?:a{100}){101}", r"\p{L}{20000}", "a{100}{101}",
])
def test_huge_repeat_counts_are_refused_at_parse_naming_the_limit(pattern):
    text = spec(pattern)
    started = time.monotonic()
    with pytest.raises(ConstraintSyntaxError) as info:
        parse(text)
    assert time.monotonic() - started < 1.0
    message = str(info.value)
    assert "\n" not in message
    assert f"the limit is {LIMIT}" in message and "repeat counts multiply out" in message
    assert info.value.line == 1 and info.value.column == text.index("'") + 1  # at the pattern, not the call


def test_the_error_names_where_in_the_pattern():
    with pytest.raises(ConstraintSyntaxError) as info:
        parse("word: count(text, word) == 2 and\n  regex(text, 'ab(c{100}){1000}')")
    assert (info.value.line, info.value.column) == (2, 15)
    assert "at '{1000}', character 11 of the pattern" in str(info.value)


def test_a_pattern_too_long_is_refused():
    with pytest.raises(ConstraintSyntaxError, match=f"characters long; the limit is {MAX_PATTERN_CHARS:,}"):
        parse("regex(text, '" + "a" * (MAX_PATTERN_CHARS + 1) + "')")
    parse("regex(text, '" + "a" * 1000 + "')")


def test_the_bound_holds_for_every_way_in():
    with pytest.raises(ValueError, match="multiply out"):
        Regex(TEXT, "(a{1000}){1000}")
    data = {"format": "corral.constraint.v1", "body": {"kind": "regex", "of": "text", "pattern": "a{1000000}"}}
    with pytest.raises(ConstraintJSONError, match=f"the limit is {LIMIT}"):
        from_json(data)


@pytest.mark.parametrize("pattern", [
    r"\d{4}-\d{2}-\d{2}", "^[A-Z][a-z]+$", "(ab){3}", r"\p{L}{2,5}", "a{10000}", "(a{100}){100}",
    r"x\{1000000\}", "[{]1000000}", "a{,5}b", r"(?#a{1000000})z", "a{", "a+b*c?",
    r"\N{LATIN SMALL LETTER A}{3}", "(?:cat|dog){1,3}", "(?P<x>a{100}){100}", "(?i)(?:a{100}){100}",
    "(?<=a{100})b", "(?i:a)",
])
def test_normal_patterns_still_parse_and_check(pattern):
    constraint = parse(spec(pattern))
    assert constraint.body.pattern == pattern
    assert check(constraint, "2024-01-31 Hello abababa aaa cat").undecided is None


def test_a_normal_pattern_checks_per_word():
    constraint = parse(r"all(text, word, regex(unit, '^[a-z]{2,8}$'))")
    assert check(constraint, "short words only").passed
    assert not check(constraint, "Capital words fail").passed


@pytest.mark.parametrize(("spec", "text"), [
    ("all(text, word, regex(unit, '^(a|aa)+$'))", " ".join(["a" * 40 + "b"] * 5)),
    ("any(text, word, regex(unit, '(x+x+)+y'))", " ".join(["x" * 5000] * 5)),
    ("not regex(text, '^(a|aa)+$')", "a" * 40 + "b"),
])
def test_catastrophic_backtracking_ends_undecided(spec, text):
    started = time.monotonic()
    verdict = check(parse(spec), text, budget=Budget(seconds=0.5))
    assert time.monotonic() - started < 3.0
    assert verdict.undecided is not None and "time budget" in verdict.undecided
    assert not verdict.passed and verdict.score == 0.0 and verdict.violated_rules == ["budget"]


def _nest(nest: list[tuple[int, int]], atom: str) -> tuple[str, int]:
    """A pattern of nested quantifiers around ``atom``, and the items it compiles to (``atom`` counted once; the
    body of a ``{0}`` is still compiled once)."""
    pattern, size = atom, 1
    for kind, count in nest:
        if kind == 5:  # a repeat beside, not around: sizes add
            pattern, size = f"{pattern}b{{{count}}}", size + count
            continue
        quantifier = {0: f"{{{count}}}", 1: f"{{{count},}}", 2: f"{{0,{count}}}", 3: "*", 4: "+?"}[kind]
        pattern, size = f"(?:{pattern}){quantifier}", size * max(count, 1) if kind < 3 else size
    return pattern, size


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5000)), min_size=1, max_size=6),
       st.sampled_from(["a", r"\w", "[ab]", "(?:ab|c)", r"\p{L}"]))
def test_random_quantifier_nests_parse_quickly_or_raise_the_documented_error(nest, atom):
    pattern, size = _nest(nest, atom)
    started = time.monotonic()
    try:
        constraint = parse(spec(pattern))
    except ConstraintSyntaxError as exc:
        assert f"the limit is {LIMIT}" in str(exc) and "\n" not in str(exc)
    else:
        assert size <= MAX_PATTERN_SIZE  # never lets a pattern past the bound through
        assert constraint.body.pattern == pattern
    if size <= MAX_PATTERN_SIZE and atom != "(?:ab|c)" and all(count for _, count in nest):
        parse(spec(pattern))  # and refuses none within it (an atom of one item, no empty repeat)
    assert time.monotonic() - started < 2.0


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="ab(){},0123456789?*+|[]\\", max_size=40))
def test_the_scan_never_raises_anything_else(pattern):
    try:
        bound_pattern(pattern)
    except PatternTooLarge as exc:
        assert 0 <= exc.at <= len(pattern)


def test_the_cli_refuses_a_huge_repeat_with_exit_2_and_one_line():
    from typer.testing import CliRunner

    from corral.cli import app

    for command in (["parse"], ["render"], ["check"]):
        args = [*command, "regex(text, '(a{1000}){1000}')"] + (["aaa"] if command == ["check"] else [])
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 2, (command, result.output)
        assert f"the limit is {LIMIT}" in result.output and "Traceback" not in result.output
