"""The textual form: the paper's notation parses, prints back, and bad specs name line, column and expectation."""

from __future__ import annotations

import pytest

from corral import parse
from corral.constraints import (
    TEXT,
    UNIT,
    And,
    ConstraintSyntaxError,
    Count,
    ForEach,
    Match,
    Not,
    Or,
    Pos,
    Quantifier,
    Rel,
)
from corral.text import Level


def test_issue_examples_parse_to_the_expected_values():
    c = parse("sentence: count(text, word, sentence) == 10 and pos(text, word, 3) == 'soft'")
    assert c.level is Level.SENTENCE
    assert c.body == And((Count(TEXT, Level.WORD, Rel.EQ, 10, per=Level.SENTENCE),
                          Match(Pos(TEXT, Level.WORD, 3), Rel.EQ, "soft")))
    c = parse("paragraph: pos(pos(text, sentence, 1), word, 1) == 'soft'")
    assert c.body == Match(Pos(Pos(TEXT, Level.SENTENCE, 1), Level.WORD, 1), Rel.EQ, "soft")


@pytest.mark.parametrize("spec", [
    "count(text, word, 'happy') <= 3",
    "count(text, char, sentence) == 50",
    "pos(text, char, -1) != 'x'",
    "pos(pos(text, paragraph, 3), sentence, -1) == 'I sit.'",
    "count(text, word) > 2 and count(text, word) < 9 or not pos(text, word, 1) == 'a'",
    "(count(text, word) > 2 or count(text, word) < 9) and not (pos(text, word, 1) == 'a' or text contains 'z')",
    "all(text, sentence, count(unit, word) >= 10)",
    "at_least(2, text, paragraph, any(unit, sentence, pos(unit, word, -1) endswith 'ing'))",
    "exactly(0, text, word, unit == 'very')",
    "at_most(3, pos(text, paragraph, 1), sentence, unit startswith 'And')",
    "pos(text, word, 1) == 'Soft' case-sensitive",
    "count(text, word, 'The') >= 1 case-sensitive",
    "[collie-v1] passage: count(text, sentence, paragraph) >= 2",
    "regex(text, '^[A-Z][a-z]+')",
    "text endswith 'it\\'s' and text contains '\\\\'",
])
def test_round_trip(spec):
    c = parse(spec)
    assert str(c) == spec
    assert parse(str(c)) == c


def test_precedence_and_flattening():
    a, b, c = "count(text, word) == 1", "count(text, word) == 2", "count(text, word) == 3"
    assert isinstance(parse(f"{a} and {b} or {c}").body, Or)
    assert len(parse(f"{a} and {b} and {c}").body.parts) == 3
    assert isinstance(parse(f"not {a} and {b}").body.parts[0], Not)
    assert parse(f"{a} and ({b} and {c})").body.parts[1] == parse(f"{b} and {c}").body


def test_quantifier_values():
    c = parse("at_least(2, text, sentence, pos(unit, word, 1) == 'He')").body
    assert c == ForEach(Quantifier.AT_LEAST, TEXT, Level.SENTENCE, Match(Pos(UNIT, Level.WORD, 1), Rel.EQ, "He"), 2)


def test_double_quotes_and_character_level_name():
    assert parse('count(text, character, "v") == 2') == parse("count(text, char, 'v') == 2")


def test_constraints_are_hashable_values():
    spec = "sentence: count(text, word) == 10"
    assert parse(spec) == parse(spec)
    assert len({parse(spec), parse(spec)}) == 1
    with pytest.raises(AttributeError):
        parse(spec).level = Level.WORD  # type: ignore[misc]


@pytest.mark.parametrize(("spec", "column", "message"), [
    ("count(text, wrd) == 3", 13, "unexpected 'wrd'; expected"),
    ("count(text, word) == ", 22, "unexpected the end of the spec; expected a quoted string, a whole number"),
    ("pos(text, word, 0) == 'a'", 17, "1-based"),
    ("count(text, word) = 3", 19, "unexpected '='"),
    ("sentence: (count(text, word) == 1", 34, "expected ')'"),
    ("unit == 'x'", 1, "'unit' names the unit of an enclosing"),
    ("frobnicate(text) == 1", 1, "unknown base constraint 'frobnicate'; available: count, match, regex"),
    ("count(text, word) == 'ten'", 1, "compared with a whole number"),
    ("pos(text, word, 1) > 'a'", 1, "compares numbers"),
    ("[collie-v9] count(text, word) == 1", 1, "unknown segmentation profile 'collie-v9'"),
    ("word: count(text, char) == 3 and", 33, "unexpected the end of the spec"),
    ("count(text, word) == 3 and 'loose string'", 28, "unexpected"),
    ("regex(text, '(unclosed')", 1, "invalid regular expression"),
    ("text == 'bad \\q escape'", 14, "unknown escape"),
])
def test_errors_name_the_column(spec, column, message):
    with pytest.raises(ConstraintSyntaxError) as info:
        parse(spec)
    assert info.value.column == column, str(info.value)
    assert message in str(info.value)
    assert str(info.value).startswith(f"line 1, column {column}: ")


def test_error_on_a_later_line():
    with pytest.raises(ConstraintSyntaxError) as info:
        parse("count(text, word) == 3\nand count(text, wrod) == 2")
    assert (info.value.line, info.value.column) == (2, 17)
