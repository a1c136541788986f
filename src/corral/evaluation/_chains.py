"""One sample's feedback rounds as one value: a ``Chain``.

Why: a sample's rounds (round 0, then a round after each failed check, until one passes, the prompt no longer
fits, the model repeats itself or the rounds run out) used to be followed by five functions over raw ``(instance,
sample, round)`` keys, in the runner (what to generate next, how many records to expect) and in the summary
(solved by round r, complete, the latest answer). Each rule of a chain is written here once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ._records import SampleRecord


@dataclass(frozen=True)
class Chain:
    """The records of one (instance, sample), by round, as far as they are written. ``stop_on_repeat``: a round
    whose answer repeats an earlier one ends the chain (ReFF's refinement stops)."""

    rounds: Mapping[int, SampleRecord] = field(default_factory=dict)
    stop_on_repeat: bool = False

    @property
    def first(self) -> SampleRecord | None:
        return self.rounds.get(0)

    @property
    def final(self) -> SampleRecord | None:
        """The latest record written: the answer the sample ends with (so far)."""
        return self.rounds[max(self.rounds)] if self.rounds else None

    def latest(self, round_: int) -> SampleRecord | None:
        """The record of the latest round at or before ``round_``."""
        written = [r for r in self.rounds if r <= round_]
        return self.rounds[max(written)] if written else None

    def ends_at(self, round_: int) -> bool:
        """Whether the record of ``round_`` exists and no round follows it."""
        record = self.rounds.get(round_)
        return record is not None and record.ends_chain(self.stop_on_repeat)

    def needs(self, round_: int) -> bool:
        """Whether ``round_`` is due: round 0 always; a later one when the round before it is written and did not
        end the chain."""
        return round_ == 0 or (round_ - 1 in self.rounds and not self.ends_at(round_ - 1))

    def expected(self, last: int) -> int:
        """How many records the chain will hold with rounds up to ``last``, as far as known now (it ends early
        when a written round ends it)."""
        for r in range(last):
            if self.ends_at(r):
                return r + 1
        return last + 1

    def complete(self, last: int) -> bool:
        """Whether the rounds run from 0 to the round that ends the chain, or to ``last``."""
        for r in range(last + 1):
            if r not in self.rounds:
                return False
            if self.ends_at(r):
                return True
        return True

    def solved_by(self, round_: int, closing: bool = False) -> bool | None:
        """Whether the sample passed as written (with ``closing``: passed at all) at some round <= ``round_``;
        None while a round it still needs is missing (its outcome is not known yet)."""
        if any((record.passed if closing else record.passed_as_written)
               for r, record in self.rounds.items() if r <= round_):
            return True
        for r in range(round_ + 1):
            if r not in self.rounds:
                return None
            if self.ends_at(r):
                break
        return False


def chains_of(records: Iterable[SampleRecord], stop_on_repeat: bool = False) -> dict[tuple[str, int], Chain]:
    """The records grouped into chains by (instance, sample); a record written twice for one round (a resumed run
    redoing it) counts once, the later one."""
    grouped: dict[tuple[str, int], dict[int, SampleRecord]] = {}
    for record in records:
        grouped.setdefault((record.instance, record.sample), {})[record.round] = record
    return {key: Chain(rounds, stop_on_repeat) for key, rounds in grouped.items()}
