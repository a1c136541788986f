"""``clamp-cosql``: CoSQL's conversational text-to-SQL on Corral's runner, free or constrained by the SQLite grammar of
the dialogue's database, judged as ``clamp-spider`` is.

Each turn is one instance. Its utterance is BenchCLAMP's ``c | d | u`` form: the dialogue's earlier utterances
(oldest first), the database and its schema, then the turn's own utterance, after few-shot turns retrieved by BM25
from the *other* 19 databases' dialogues within ``budget`` tokens, best match last. The check (the answer runs on
the database) and the quality (test-suite ``execution``, ``exact_set``, ``valid``, ``parses``, ``schema_names``)
are ``clamp-spider``'s; the test suites are Spider's, distilled from Spider's dev queries over the same databases.
CoSQL's two leaderboard figures are the summary's ``execution`` and ``exact_set`` (question level, over turns) and
``interaction_execution`` and ``interaction_exact_set`` (interaction level: the share of dialogues all of whose
selected turns are right; a run over part of a dialogue counts that part).
"""

from __future__ import annotations

from collections.abc import Iterator

from corral.metrics import all_of_stats
from corral.tasks import Task, TaskInstance, register_task

from ._cosql import CosqlTurn, cosql_turns
from ._prompting import check_counts, cross_database_shots, parse_instance, shot_options
from ._spider import spider_schemas
from ._spider_task import sql_quality, sql_task

VERSION = "1"


def render_turn(turn: CosqlTurn) -> str:
    """The turn's utterance in BenchCLAMP's ``c | d | u`` form."""
    schema = spider_schemas()[turn.db_id]
    return " | ".join([*turn.context, turn.db_id, schema.describe(), turn.utterance])


def render_pair(turn: CosqlTurn) -> str:
    return f"Human: {render_turn(turn)}\nComputer: {turn.query}\n"


def cosql_quality(instance: TaskInstance, answer: str) -> dict[str, float]:
    """``clamp-spider``'s quality, and each turn's share of its dialogue's interaction-level figures."""
    values = sql_quality(instance, answer)
    dialogue = instance.target["dialogue"]
    return {**values,
            **all_of_stats("interaction_execution", dialogue, values["execution"] == 1.0),
            **all_of_stats("interaction_exact_set", dialogue, values["exact_set"] == 1.0)}


def _instances(shots: int, budget: int, retriever_method: str) -> Iterator[TaskInstance]:
    for turn, pairs in cross_database_shots(cosql_turns(), shots, budget, retriever_method, render_pair):
        yield parse_instance(turn.id, render_turn(turn), turn.query, pairs,
                             {"dataset": "cosql", "split": "dev", "database": turn.db_id,
                              "turn": str(turn.turn) if turn.turn < 4 else "4+"},
                             db_id=turn.db_id, dialogue=turn.dialogue)


@register_task("clamp-cosql", options=shot_options(4, "turns from the other databases"))
def clamp_cosql(shots: int, budget: int, retriever: str) -> Task:
    """CoSQL dev turns, each after its dialogue's earlier utterances, to SQLite queries."""
    check_counts("clamp-cosql", shots, budget)
    return sql_task("clamp-cosql", VERSION, lambda: _instances(shots, budget, retriever), cosql_quality,
                    "BenchCLAMP (Roy et al. 2023) CoSQL conversational text-to-SQL, question and interaction level")
