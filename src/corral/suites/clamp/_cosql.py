"""CoSQL's development set (Yu et al., EMNLP 2019) as the clamp suite's conversational text-to-SQL dataset.

The shipped file (``data/cosql_dev.jsonl.gz``, built by ``python -m scripts.build_clamp_data``) holds its 293
dialogues' 1,007 turns with SQL, over the same 20 databases as Spider's dev set (their schemas and test suites are
Spider's). A turn is asked in the context of the dialogue's earlier utterances.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib.resources import files

from corral.jsonl import iter_jsonl

__all__ = ["CosqlTurn", "cosql_turns"]

FILE = "cosql_dev.jsonl.gz"


@dataclass(frozen=True)
class CosqlTurn:
    id: str
    dialogue: str
    turn: int
    db_id: str
    utterance: str
    query: str
    context: tuple[str, ...]
    """The dialogue's earlier utterances, oldest first."""

    @property
    def words(self) -> tuple[str, ...]:
        """The utterance's words (what few-shot retrieval compares)."""
        return tuple(self.utterance.split())


@cache
def cosql_turns() -> tuple[CosqlTurn, ...]:
    """The 1,007 dev turns, dialogue by dialogue, each with its earlier utterances."""
    out: list[CosqlTurn] = []
    earlier: dict[str, list[str]] = {}
    for row in iter_jsonl(files("corral.suites.clamp").joinpath("data", FILE)):
        seen = earlier.setdefault(row["dialogue"], [])
        out.append(CosqlTurn(row["id"], row["dialogue"], row["turn"], row["db_id"], row["utterance"], row["query"],
                             tuple(seen)))
        seen.append(row["utterance"])
    return tuple(out)
