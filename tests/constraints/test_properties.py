"""Property tests: textual and JSON round trips, checking never raises, counts built to size."""

from __future__ import annotations

import json

from hypothesis import example, given, settings
from hypothesis import strategies as st

from corral import from_json, parse
from corral.constraints import Budget, Constraint, check, to_json
from corral.suites.collie import constraint_for

from .._sizes import sized
from .strategies import constraints

any_text = st.text(alphabet=st.characters(codec=None, categories=None), max_size=300)


@settings(max_examples=400)
@given(constraints)
def test_textual_form_round_trips(c: Constraint):
    assert parse(str(c)) == c


@settings(max_examples=400)
@given(constraints)
def test_json_form_round_trips(c: Constraint):
    data = json.loads(json.dumps(to_json(c)))
    assert from_json(data) == c
    assert hash(from_json(data)) == hash(c)


@settings(max_examples=300)
@given(constraints, any_text)
@example(parse("all(text, sentence, count(unit, word) >= 3)"), "")
@example(parse("pos(pos(text, paragraph, 3), sentence, -1) == 'x'"), "\ud800\x00\r\n\r\n\u2028")
def test_check_never_raises_and_is_consistent(c: Constraint, text: str):
    verdict = check(c, text)
    assert isinstance(verdict.passed, bool)
    assert 0.0 <= verdict.score <= 1.0
    assert (verdict.feedback == "") == verdict.passed
    assert (not verdict.violations) == verdict.passed  # one violation per failed part, none when it passes
    assert verdict.passed or len(verdict.violations) == len(verdict.detail.failed)
    assert all(not isinstance(part.observed, str) or not part.observed.startswith("error:")
               for part in verdict.detail.parts), verdict.detail.parts
    json.dumps(verdict.to_json())


COLLIE_TARGETS = {
    "c01": [11], "c02": [12, ["o", "s", "r"]], "c03": [11, "x"], "c04": 82, "c05": [17, ["a", "b", "c"]],
    "c06a": [20, 6], "c07": ["a", "is", "the"], "c08": "He", "c09": [6, "there", "this", "is"],
    "c10": [5, 11, 15], "c11": [3, 16], "c12": [3, ["x", "y", "z"]], "c14": [["I sit.", "I cry."], 2],
}


@settings(max_examples=150)
@given(st.sampled_from(sorted(COLLIE_TARGETS)), any_text)
def test_collie_checks_never_raise(code: str, text: str):
    verdict = check(constraint_for(code, COLLIE_TARGETS[code]), text)
    assert isinstance(verdict.passed, bool)


def test_check_survives_megabytes_past_the_limit():
    size = sized(3_000_000, 10_000_000)  # past the default limit of 2,000,000 characters either way
    text = ("He said \"don't\" -- twice... Dr. Smith left.\n\n" * (size // 40 + 1))[:size]
    # (the default profile's segmentation of as much: tests/text/test_default_profile.py)
    for spec in ("count(text, word) >= 3 and count(text, paragraph) >= 2 and pos(text, word, 1) == 'He'",
                 "[collie-v1] paragraph: count(text, sentence) >= 3 and count(text, word) >= 3"):
        verdict = check(parse(spec), text, budget=Budget(seconds=300, max_chars=len(text)))  # past the default
        assert verdict.passed, verdict.feedback
        assert check(parse(spec), text).undecided == f"the text is {size:,} characters; the limit is 2,000,000"


WORDS = ["apple", "river", "stone", "cloud", "green", "quietly", "runs", "over", "the", "bridge"]


@settings(max_examples=60)
@given(st.integers(0, 30), st.lists(st.sampled_from(WORDS), min_size=40, max_size=40),
       st.sampled_from(["default", "collie-v1"]))
def test_count_of_built_text(k: int, vocab: list[str], profile: str):
    """A text built to have exactly k units passes == k and fails == k + 1, at every level."""
    words = " ".join(vocab[:k])
    sentences = " ".join(f"{w.capitalize()} {vocab[i + 1]} {vocab[i + 2]}." for i, w in enumerate(vocab[:k]))
    paragraphs = "\n\n".join(f"{w.capitalize()} is here." for w in vocab[:k])
    chars = ("ab" * 20)[:k]
    cases = [("word", words), ("sentence", sentences), ("char", chars)]
    if profile == "default" or k > 0:  # collie-v1: "".split("\n\n") is one (empty) paragraph
        cases.append(("paragraph", paragraphs))
    for level, text in cases:
        prefix = f"[{profile}] " if profile != "default" else ""
        assert check(parse(f"{prefix}count(text, {level}) == {k}"), text).passed, (level, text)
        assert not check(parse(f"{prefix}count(text, {level}) == {k + 1}"), text).passed, (level, text)
