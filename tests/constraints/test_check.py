"""Checking: compositions, quantifiers, string relations, case, per-part results and feedback."""

from __future__ import annotations

import pytest

from corral import parse
from corral.constraints import Match, Pos, Rel, check


def verdict(spec: str, text: str):
    return check(parse(spec), text)


@pytest.mark.parametrize(("spec", "text", "passed"), [
    ("count(text, word) == 3 or count(text, word) == 5", "one two three four five", True),
    ("count(text, word) == 3 or count(text, word) == 4", "one two three four five", False),
    ("not count(text, word) == 5", "one two three four five", False),
    ("not not count(text, word) == 5", "one two three four five", True),
    ("any(text, sentence, pos(unit, word, 1) == 'Then')", "It rained. Then it stopped.", True),
    ("all(text, sentence, pos(unit, word, 1) == 'Then')", "It rained. Then it stopped.", False),
    ("at_least(2, text, sentence, count(unit, word) >= 2)", "It rained. Then it stopped. Yes.", True),
    ("at_most(1, text, sentence, count(unit, word) >= 2)", "It rained. Then it stopped. Yes.", False),
    ("exactly(1, text, sentence, count(unit, word) == 1)", "It rained. Then it stopped. Yes.", True),
    ("all(text, sentence, count(unit, word) > 100)", "", True),  # a for-each over no units holds
    ("any(text, sentence, count(unit, word) > 0)", "", False),
    ("text contains 'rain'", "It rained.", True),
    ("text startswith 'it'", "It rained.", True),
    ("text startswith 'it' case-sensitive", "It rained.", False),
    ("pos(text, word, -1) endswith 'ed'", "It rained.", True),
    ("pos(text, word, 9) != 'x'", "It rained.", True),  # a missing unit satisfies only !=
    ("pos(text, word, 9) == 'x'", "It rained.", False),
    ("count(text, word, 'the') == 2", "The cat saw the dog.", True),
    ("count(text, word, 'the') == 1 case-sensitive", "The cat saw the dog.", True),
    ("regex(pos(text, word, 2), '^c.t$')", "The cat saw the dog.", True),
    ("all(text, paragraph, count(unit, sentence) >= 2)", "It rained. It stopped.\n\nWe ran. We hid.", True),
    ("all(text, paragraph, count(unit, sentence) >= 2)", "It rained. It stopped.\n\nWe ran.", False),
    ("sentence: count(text, word, sentence) == 4", "One two. Three four.", True),  # T is one sentence
    ("count(text, word, sentence) == 2", "One two. Three four.", True),  # no level: each sentence
])
def test_verdicts(spec, text, passed):
    assert verdict(spec, text).passed is passed


def test_parts_report_expected_observed_and_spans():
    v = verdict("sentence: count(text, word) == 4 and pos(text, word, 2) == 'cat'", "The dog saw me.")
    count, match = v.detail.parts
    assert (count.passed, count.observed, count.expected) == (True, 4, "exactly 4")
    assert (match.passed, match.observed, match.expected) == (False, "dog", "'cat'")
    assert match.spans == ((4, 7),)
    assert v.score == 0.5
    assert v.feedback == "The 2nd word is 'dog'; it must be 'cat'."


def test_for_each_reports_the_failing_units():
    v = verdict("all(text, sentence, count(unit, word) <= 2)", "One two. Three four five. Six.")
    (part,) = v.detail.parts
    assert (part.observed, part.expected) == (2, "all")
    assert part.spans == ((9, 25),)
    assert [child.unit for child in part.children] == [1, 2, 3]
    assert [child.passed for child in part.children] == [True, False, True]


def test_feedback_names_only_failed_parts_with_plurals():
    v = verdict("word: count(text, char, 'v') == 2 and count(text, char, 'i') == 3 and count(text, char) >= 1",
                "vvviiii")
    assert v.feedback == "You wrote a word with 3 'v' characters and 4 'i' characters; it must have exactly 2 and 3."
    v = verdict("word: count(text, char, 'v') == 2", "vix")
    assert v.feedback == "You wrote a word with 1 'v' character; it must have exactly 2."


def test_feedback_for_or_not_and_quantifiers():
    assert verdict("sentence: count(text, word) == 1 or pos(text, word, 1) == 'A'", "Big dog.").feedback == (
        "None of the alternatives holds: You wrote a sentence with 2 words; it must have exactly 1. "
        "Alternatively: The 1st word is 'Big'; it must be 'A'.")
    assert verdict("not count(text, word) == 2", "Big dog.").feedback == (
        "It must not be the case that the text has exactly 2 words, but it is.")
    assert verdict("at_least(2, text, sentence, pos(unit, word, 1) == 'So')", "So it goes. It is.").feedback == (
        "Required: the 1st word of at least 2 sentences is 'So'; but 1 of the 2 sentences does.")
    long = " ".join(f"Word{i} here." for i in range(8))
    fb = verdict("all(text, sentence, count(unit, word) == 1)", long).feedback
    assert fb.startswith("Required: every sentence has exactly 1 word. Sentence 1 has 2 words; it must have")
    assert fb.endswith("(3 more sentences fail the same way.)")


def test_segmentation_is_shared_across_parts():
    import dataclasses

    import catalogue

    from corral.registry import profiles
    from corral.text import get_profile

    calls = []
    default = get_profile("default")

    def counting(text, level):
        calls.append(level.value)
        return default.split(text, level)

    profiles.register("counting-test", func=dataclasses.replace(default, name="counting-test", split=counting))
    try:
        c = parse("[counting-test] count(text, word) >= 1 and pos(text, word, 1) == 'a' and "
                  "count(text, word, 'b') == 1 and all(text, word, count(unit, char) < 9)")
        assert check(c, "a b c").passed
        assert calls.count("word") == 1  # every word-level part used the one split
        assert "sentence" not in calls  # levels no part uses are never split
    finally:
        catalogue._remove(("corral", "profiles", "counting-test"))


def test_match_constructor_rejects_numeric_relations():
    with pytest.raises(ValueError, match="compares numbers"):
        Match(Pos.__new__(Pos), Rel.LT, "x")


def test_check_rejects_non_text():
    with pytest.raises(TypeError, match="str"):
        check(parse("count(text, word) == 1"), b"bytes")  # type: ignore[arg-type]
