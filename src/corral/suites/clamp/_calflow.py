"""SMCalFlow 2.0's validation dialogues as the clamp suite's Lispress dataset, with BenchCLAMP's dev id lists.

The shipped file (``data/smcalflow_valid.jsonl.gz``, built by ``python -m scripts.build_clamp_data``) holds every
turn of the 3,649 validation dialogues: the user's utterance, the previous turn's user and agent utterances (the
context BenchCLAMP gives a model) and the gold Lispress program. SMCalFlow's training dialogues are not in the
shared data, so few-shot examples come from the validation turns outside the evaluated split: a split's
``examples`` are the turns of every dialogue none of whose turns is evaluated, so no example shares a dialogue
(and with it, often, the very program) with a test turn. Turns SMCalFlow flags ``skip`` are left out of both.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib.resources import files

from corral.jsonl import iter_jsonl

__all__ = ["CALFLOW_SPLITS", "CalflowSplit", "CalflowTurn", "calflow_split", "calflow_training_turns", "calflow_turns"]

CALFLOW_SPLITS = ("dev-100", "dev-200")
"""BenchCLAMP's uniform samples of validation turns (``ids_dev_100_uniform.txt``, ``ids_dev_200_uniform.txt``)."""
FILE = "smcalflow_valid.jsonl.gz"


@dataclass(frozen=True)
class CalflowTurn:
    """One user turn: what the model reads (``utterance``, with the previous turn's ``last_user`` and
    ``last_agent`` utterances) and the gold ``lispress`` program."""

    id: str
    utterance: str
    last_user: str
    last_agent: str
    lispress: str
    skip: bool = False
    splits: tuple[str, ...] = ()

    @property
    def dialogue(self) -> str:
        return self.id.rsplit("_", 1)[0]

    @property
    def words(self) -> tuple[str, ...]:
        """The utterance's words (what few-shot retrieval compares)."""
        return tuple(self.utterance.split())


@dataclass(frozen=True)
class CalflowSplit:
    name: str
    test: tuple[CalflowTurn, ...]
    examples: tuple[CalflowTurn, ...]


@cache
def calflow_turns() -> tuple[CalflowTurn, ...]:
    """Every validation turn, in the file's order."""
    rows = iter_jsonl(files("corral.suites.clamp").joinpath("data", FILE))
    return tuple(CalflowTurn(row["id"], row["utterance"], row["last_user"], row["last_agent"], row["lispress"],
                             bool(row.get("skip")), tuple(row.get("splits", ()))) for row in rows)


@cache
def calflow_split(name: str) -> CalflowSplit:
    """The evaluated turns of ``name`` (one of ``CALFLOW_SPLITS``) and the example pool beside them."""
    if name not in CALFLOW_SPLITS:
        raise ValueError(f"unknown SMCalFlow split {name!r}; valid: {', '.join(CALFLOW_SPLITS)}")
    turns = calflow_turns()
    test = tuple(t for t in turns if name in t.splits)
    held = {t.dialogue for t in test}
    return CalflowSplit(name, test, tuple(t for t in turns if not t.skip and t.dialogue not in held))


@cache
def calflow_training_turns() -> tuple[CalflowTurn, ...]:
    """The turns of every validation dialogue that no evaluated split touches (``skip`` ones left out): what the
    fine-tuned setting trains on, since SMCalFlow's training dialogues are not in the shared data."""
    held = {t.dialogue for t in calflow_turns() if t.splits}
    return tuple(t for t in calflow_turns() if not t.skip and t.dialogue not in held)
