"""One sample's feedback rounds (``Chain``): which round is due, how many records a chain will hold, whether it is
complete, and whether it was solved by a round, against a plain reading of the rules on random chains."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from corral.evaluation import Chain, SampleRecord, chains_of

OUTCOMES = st.sampled_from(["fail", "pass", "closed-pass", "repeat", "context"])


def _record(round_: int, outcome: str, sample: int = 0) -> SampleRecord:
    return SampleRecord(instance="i", sample=sample, round=round_, messages=[], output="x", answer="x",
                        passed=outcome in ("pass", "closed-pass"), score=0.0,
                        appended=")" if outcome == "closed-pass" else "",
                        finish_reason="length" if outcome == "closed-pass" else
                        "context" if outcome == "context" else "stop",
                        written_passed=False if outcome == "closed-pass" else None,
                        repeated=outcome == "repeat")


def _ends(outcome: str, stop_on_repeat: bool) -> bool:
    return outcome in ("pass", "closed-pass", "context") or (stop_on_repeat and outcome == "repeat")


@given(outcomes=st.lists(OUTCOMES, min_size=0, max_size=6), written=st.sets(st.integers(0, 5)),
       last=st.integers(0, 5), stop_on_repeat=st.booleans())
def test_a_chain_follows_its_rules(outcomes, written, last, stop_on_repeat):
    rounds = {r: _record(r, outcome) for r, outcome in enumerate(outcomes) if r in written}
    chain = Chain(rounds, stop_on_repeat)
    ends = [r for r, outcome in enumerate(outcomes) if r in written and _ends(outcome, stop_on_repeat)]
    # a round is due when it is the first, or the round before it is written and did not end the chain
    for r in range(7):
        assert chain.needs(r) == (r == 0 or (r - 1 in rounds and r - 1 not in ends))
    # complete: every round from 0 written up to the first one that ends the chain, or up to the last
    stop = min([r for r in ends if r <= last], default=last)
    assert chain.complete(last) == all(r in rounds for r in range(stop + 1))
    # the records it will hold, as far as known: up to the first written round that ends it, else every round
    assert chain.expected(last) == min([r + 1 for r in ends if r < last], default=last + 1)
    # solved by round r: a pass as written at or before r; unknown while a needed round is missing
    for r in range(6):
        as_written = any(rounds[q].passed_as_written for q in rounds if q <= r)
        got = chain.solved_by(r)
        if as_written:
            assert got is True
        elif got is None:
            assert any(q not in rounds for q in range(min([e for e in ends if e <= r], default=r) + 1))
        else:
            assert got is False
    assert chain.final is (rounds[max(rounds)] if rounds else None)
    assert all(chain.latest(r) is rounds[max(q for q in rounds if q <= r)] for r in range(6)
               if any(q <= r for q in rounds))


def test_a_closed_pass_solves_only_with_closing_and_chains_group_by_sample():
    chain = Chain({0: _record(0, "fail"), 1: _record(1, "closed-pass")})
    assert chain.solved_by(1) is False and chain.solved_by(1, closing=True) is True
    assert chain.complete(3) and chain.expected(3) == 2  # the closed pass ends the chain
    grouped = chains_of([_record(0, "fail"), _record(0, "pass", sample=1), _record(1, "pass")])
    assert set(grouped) == {("i", 0), ("i", 1)} and grouped["i", 0].final.round == 1
