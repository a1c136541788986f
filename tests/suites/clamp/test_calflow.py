"""The shipped SMCalFlow validation turns and BenchCLAMP's dev splits (``corral.suites.clamp._calflow``)."""

from __future__ import annotations

import pytest

from corral.suites.clamp import CALFLOW_SPLITS, calflow_split, calflow_turns, canonical_lispress


def test_every_validation_turn_is_shipped_with_its_context():
    turns = calflow_turns()
    assert len(turns) == 14757 and len({t.id for t in turns}) == len(turns)
    assert sum(t.skip for t in turns) == 1258
    first = next(t for t in turns if t.id.endswith("_0"))
    assert first.last_user == "" and first.last_agent == ""
    later = turns[turns.index(first) + 1]
    if later.dialogue == first.dialogue:  # the next turn sees this one as its context
        assert later.last_user == first.utterance
    assert all(canonical_lispress(t.lispress) == t.lispress for t in turns[:500])


@pytest.mark.parametrize(("name", "size"), [("dev-100", 100), ("dev-200", 200)])
def test_a_split_evaluates_its_listed_turns_and_draws_examples_from_other_dialogues(name, size):
    split = calflow_split(name)
    assert len(split.test) == size and all(name in t.splits for t in split.test)
    held = {t.dialogue for t in split.test}
    assert split.examples and not any(t.dialogue in held or t.skip for t in split.examples)
    assert len(split.examples) > 10_000


def test_an_unknown_split_is_refused_with_the_valid_names():
    with pytest.raises(ValueError, match="dev-100, dev-200"):
        calflow_split("train-300")
    assert CALFLOW_SPLITS == ("dev-100", "dev-200")
