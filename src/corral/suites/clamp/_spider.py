"""Spider's development set (Yu et al., EMNLP 2018) as the clamp suite's text-to-SQL dataset.

The shipped file (``data/spider_dev.jsonl.gz``, built by ``python -m scripts.build_clamp_data``) holds the 1,034
dev questions with their gold SQL and the schemas of their 20 databases, with SQLite's own (original) names. The
database files themselves are not open data; execution accuracy runs on databases generated from the schemas
(``corral.sql``'s test suites). Spider is cross-database, so few-shot examples for a question come from the other
19 databases.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib.resources import files

from corral.jsonl import iter_jsonl
from corral.sql import SpiderSchema

__all__ = ["SpiderQuestion", "SpiderSchema", "spider_questions", "spider_schemas"]

FILE = "spider_dev.jsonl.gz"


@dataclass(frozen=True)
class SpiderQuestion:
    id: str
    db_id: str
    question: str
    query: str

    @property
    def words(self) -> tuple[str, ...]:
        """The question's words (what few-shot retrieval compares)."""
        return tuple(self.question.split())


def _rows() -> list[dict]:
    return list(iter_jsonl(files("corral.suites.clamp").joinpath("data", FILE)))


@cache
def spider_schemas() -> dict[str, SpiderSchema]:
    """The 20 dev databases' schemas by ``db_id``."""
    return {row["db_id"]: SpiderSchema(
        row["db_id"], tuple(row["tables"]), tuple((t, c) for t, c in row["columns"]), tuple(row["types"]),
        tuple(row["primary_keys"]), tuple((a, b) for a, b in row["foreign_keys"]))
        for row in _rows() if row["kind"] == "schema"}


@cache
def spider_questions() -> tuple[SpiderQuestion, ...]:
    """The 1,034 dev questions, in Spider's order."""
    return tuple(SpiderQuestion(row["id"], row["db_id"], row["question"], row["query"])
                 for row in _rows() if row["kind"] == "question")
