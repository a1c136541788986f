"""The repeat limit: which blocks count as a loop, and that a decoder bent on looping cannot loop past it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corral.decoding import RepeatGuard, TokenTable, loop_blocks, repeatable

WORDS = ["the", " the", " th", "e", " cat", " sat", ".", " ", "  (", "(", ")", " AND", " a", " =", " b", "0", "1"]
TABLE = TokenTable(tuple(word.encode() for word in WORDS))


def test_a_block_repeated_limit_times_is_a_loop():
    assert loop_blocks(b"the cat the cat", 2) == [b" the cat"]
    assert b" the" in loop_blocks(b"the the", 2)  # the output reads as if it began with a space
    assert loop_blocks(b"the the", 3) == []
    assert loop_blocks(b"x AND a = b AND a = b", 2) == [b" AND a = b"]


def test_what_never_counts_as_a_loop():
    assert loop_blocks(b"Mississi", 2) == []  # no word boundary inside the block
    assert loop_blocks(b"f(x)))))", 2) == []  # closing brackets end nested outputs
    assert loop_blocks(b"1000 000 000", 2) == []  # digits
    assert repeatable(b" ) ]\n") and repeatable(b"42") and not repeatable(b" (")


def test_every_split_of_the_next_copy_is_refused():
    guard = RepeatGuard(2, TABLE)
    for token in (0, 1):  # "the the"
        guard.push(token)
    refused = {WORDS[t] for t in guard.refused()}
    assert refused == {" the", " th", " "}  # "e" does not begin a copy


def test_no_guard_no_limit():
    with pytest.raises(ValueError):
        loop_blocks(b"a a", 0)


def _decode(preference: list[int], limit: int, steps: int) -> bytes | None:
    """A greedy 'model' that always wants the same tokens in the same order, and otherwise any token left;
    None if every token was refused at some step (where the guard would give way to the grammar)."""
    guard = RepeatGuard(limit, TABLE)
    for _ in range(steps):
        refused = guard.refused()
        left = [t for t in [*preference, *range(len(WORDS))] if t not in refused]
        if not left:
            return None
        guard.push(left[0])
    return bytes(guard.text)


def _longest_run(text: bytes) -> int:
    """The most copies in a row of any block that counts as a loop, ending anywhere in ``text``."""
    most = 1
    for end in range(1, len(text) + 1):
        for copies in range(most + 1, 12):
            if not loop_blocks(text[:end], copies):
                break
            most = copies
    return most


@settings(max_examples=80, deadline=None)
@given(preference=st.lists(st.integers(0, len(WORDS) - 1), min_size=1, max_size=6, unique=True),
       limit=st.integers(2, 4))
def test_a_decoder_that_wants_to_loop_stops_at_the_limit(preference, limit):
    text = _decode(preference, limit, 40)
    assert text is None or _longest_run(text) <= limit, text


def test_the_guard_breaks_a_sql_loop():
    """A model that would write its condition forever writes it twice, then takes its next choice."""
    guard = RepeatGuard(2, TABLE)
    cycle = [WORDS.index(w) for w in (" AND", " a", " =", " b")]
    for step in range(40):
        if cycle[step % len(cycle)] in guard.refused():
            guard.push(WORDS.index("."))
            break
        guard.push(cycle[step % len(cycle)])
    assert guard.text == b" AND a = b AND a = b."
