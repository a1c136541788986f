"""Fluency figures: exact small cases, and properties that hold for any text."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corral.metrics import (
    distinct_n,
    fluency,
    fluency_signature,
    has_triple_repeat,
    is_nonword,
    nll_per_token,
    nonword_share,
    triple_repeat_share,
    words,
)

VOCABULARY = ["the", "cat", "sat", "on", "mat", "ire", "mybest", "qzxv", "Dog", "isn't", "3rd", "2024", "e-mail"]
SEPARATORS = [" ", ", ", ". ", "! ", " - ", "\n", " 7 "]

pieces = st.lists(st.tuples(st.sampled_from(VOCABULARY), st.sampled_from(SEPARATORS)), max_size=12)
texts = pieces.map(lambda parts: "".join(word + sep for word, sep in parts))
any_texts = st.text(alphabet=st.characters(codec="utf-8", categories=["L", "N", "P", "Zs"]), max_size=60)


# ----------------------------------------------------------------------------------------------- exact cases

def test_words_are_wordfreq_tokens_with_a_letter():
    assert words("Don't stop! It's 2024, the 3rd e-mail.") == ["don't", "stop", "it's", "the", "3rd", "e", "mail"]


@pytest.mark.parametrize(("word", "nonword"), [("cat", False), ("isnt", False), ("mybest", True), ("qzxv", True)])
def test_nonwords_are_absent_from_wordfreq(word, nonword):
    assert is_nonword(word) is nonword  # 'isnt' is a common misspelling: wordfreq lists it (Zipf 3.9)


def test_exact_figures_of_a_small_run():
    outputs = ["I isnt mybest ire, IRE. ire ire", "The cat sat on the mat.", ""]
    block = fluency(outputs, [(10, -20.0), None, (0, 0.0)])
    assert block["words"] == 13 and block["outputs"] == 3
    assert block["nonword_share"] == pytest.approx(1 / 13)  # mybest
    assert block["triple_repeat_share"] == pytest.approx(1 / 3)
    # bigrams: 6 in the first output (4 distinct: i-isnt, isnt-mybest, mybest-ire, ire-ire), 5 distinct in the second
    assert block["distinct_2"] == pytest.approx(9 / 11)
    assert block["nll_per_token"] == 2.0 and block["scored"] == 2 and block["scored_tokens"] == 10
    assert block["signature"] == fluency_signature() and "wordfreq:3." in block["signature"]


@pytest.mark.parametrize(("text", "repeated"), [
    ("ire ire ire", True), ("Ire, IRE! ire.", True), ("ire ire", False), ("ire 5 ire ire", False),
    ("7 7 7", False), ("a b a b a b", False), ("so so so good", True), ("", False)])
def test_triple_repeats(text, repeated):
    assert has_triple_repeat(text) is repeated


def test_empty_runs_have_no_figures():
    assert nonword_share([]) is None and nonword_share(["2024 ..."]) is None
    assert triple_repeat_share([]) is None
    assert distinct_n(["one"]) is None and distinct_n([]) is None
    assert nll_per_token([]) is None and nll_per_token([None, (0, 0.0)]) is None
    block = fluency([], [])
    assert block["outputs"] == 0 and block["nll_per_token"] is None and block["distinct_2"] is None


def test_nll_is_token_weighted():
    assert nll_per_token([(1, -1.0), (3, -9.0)]) == pytest.approx(10 / 4)  # not the mean of 1 and 3


def test_distinct_n_rejects_n_below_one():
    with pytest.raises(ValueError, match="n must be >= 1"):
        distinct_n(["a b"], 0)


# ----------------------------------------------------------------------------------------------- properties

@given(st.lists(texts, max_size=5))
def test_shares_are_shares_and_none_only_when_empty(outputs):
    share = nonword_share(outputs)
    assert (share is None) == (not any(words(text) for text in outputs))
    assert share is None or 0 <= share <= 1
    repeats = triple_repeat_share(outputs)
    assert (repeats is None) == (not outputs) and (repeats is None or 0 <= repeats <= 1)
    distinct = distinct_n(outputs)
    assert distinct is None or 0 < distinct <= 1


@given(any_texts)
def test_words_hold_a_letter_and_are_case_folded(text):
    for word in words(text):
        assert any(ch.isalpha() for ch in word) and word == word.casefold()


@given(st.lists(texts, min_size=1, max_size=5))
def test_repeating_the_run_halves_distinct_2(outputs):
    once = distinct_n(outputs)
    if once is not None:
        assert distinct_n(outputs + outputs) == pytest.approx(once / 2)


@given(texts, st.sampled_from(["cat", "ire", "mybest", "Dog"]), st.sampled_from([" ", ", ", "! "]))
def test_a_word_three_times_in_a_row_is_a_triple_repeat_whatever_the_case_and_punctuation(text, word, sep):
    assert has_triple_repeat(f"{text} {word}{sep}{word.upper()}{sep}{word.lower()}")


@given(texts)
def test_case_and_punctuation_do_not_change_the_word_figures(text):
    louder = text.upper().replace(" ", " ... ")
    assert nonword_share([text]) == nonword_share([louder])
    assert has_triple_repeat(text) == has_triple_repeat(louder)


@given(st.lists(st.tuples(st.integers(1, 500), st.floats(-2000, 0)), min_size=1, max_size=8))
def test_nll_per_token_lies_between_the_outputs_own(scores):
    value = nll_per_token(scores)
    own = [-logprob / count for count, logprob in scores]
    assert value is not None and min(own) - 1e-9 <= value <= max(own) + 1e-9
    assert math.isclose(nll_per_token(scores + scores), value, rel_tol=1e-9, abs_tol=1e-12)
