"""``clamp-spider``: Spider text-to-SQL on Corral's runner, free or constrained by a SQLite grammar of the
question's own database (``_sql_grammar``).

The prompt is BenchCLAMP's few-shot template with the schema in the utterance: ``Human: {question} | {db_id} |
{table}: {column}, ... | ...`` then ``Computer: {sql}``, for up to ``shots`` questions retrieved by BM25 from the
*other* 19 databases (Spider is cross-database: an example over the same tables would hand the model the names),
best match last, within ``budget`` tokens. The checker judges **validity**: the answer is one read-only query that
SQLite runs against the database without error (so it names only tables and columns the database has). Quality:

- ``execution``: the test-suite execution accuracy (``corral.sql.execution_match``): the gold's result on every
  database of the database's distilled suite; the suites are generated once per database and seed and kept under
  ``$CORRAL_CACHE_DIR/spider-suites``;
- ``exact_set``: Spider's exact set match without values (``corral.sql.exact_set_match``);
- ``valid``: the checker's verdict as a number; ``parses``: SQLite finds no syntax error (a query may parse and
  still fail, naming a column no table in its ``FROM`` has); ``schema_names``: every table and column the query
  names is the database's (aliases aside), as sqlglot reads it (``corral.sql.schema_names_only``).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

from corral.paths import cache_dir
from corral.sql import SpiderSchema, exact_set_match, run_query, schema_names_only
from corral.tasks import Task, TaskInstance, register_task
from corral.verdicts import Verdict, Violation

from ._prompting import check_counts, cross_database_shots, parse_instance, parse_task, shot_options
from ._spider import SpiderQuestion, spider_questions, spider_schemas
from ._sql_grammar import sql_grammar

VERSION = "1"
SUITE_VERSION = "1"
"""Bump when database generation changes: suites on disk under another version are not reused."""
_LOCK = threading.Lock()


def render_question(question: SpiderQuestion, schema: SpiderSchema) -> str:
    return f"{question.question} | {schema.db_id} | {schema.describe()}"


def render_pair(question: SpiderQuestion) -> str:
    return f"Human: {render_question(question, spider_schemas()[question.db_id])}\nComputer: {question.query}\n"


# --------------------------------------------------------------------------------------------------- suites
def suite_folder(seed: int = 0) -> Path:
    return cache_dir() / "spider-suites" / f"v{SUITE_VERSION}-seed{seed}"


def spider_suite(db_id: str, seed: int = 0) -> tuple[Path, ...]:
    """The distilled test suite of ``db_id``'s database: built from its gold queries on first use (a few seconds),
    then read from disk. Built in a scratch folder and moved into place whole, so a killed build leaves nothing
    half-made and two processes building at once both end with a complete suite."""
    if db_id not in spider_schemas():
        raise ValueError(f"unknown Spider database {db_id!r}")
    return _suite(suite_folder(seed), db_id, seed)


@cache
def _suite(root: Path, db_id: str, seed: int) -> tuple[Path, ...]:
    from corral.sql import distinguishing_set

    folder = root / db_id
    manifest = folder / "suite.json"
    with _LOCK:
        if not manifest.is_file():
            schema = spider_schemas()[db_id]
            golds = [q.query for q in spider_questions() if q.db_id == db_id]
            folder.parent.mkdir(parents=True, exist_ok=True)
            scratch = Path(tempfile.mkdtemp(prefix=f".{db_id}-", dir=folder.parent))
            try:
                built = distinguishing_set(schema, golds, directory=scratch, seed=seed)
                (scratch / db_id / "suite.json").write_text(json.dumps(
                    {"databases": [path.name for path in built.paths], "golds": len(golds),
                     "variants": built.variants, "distinguished": built.distinguished}), encoding="utf-8")
                try:
                    os.replace(scratch / db_id, folder)
                except OSError:  # another process put a complete suite there first
                    if not manifest.is_file():
                        raise
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
    names = json.loads(manifest.read_text(encoding="utf-8"))["databases"]
    return tuple(folder / name for name in names)


# --------------------------------------------------------------------------------------------------- judging
def check_sql(instance: TaskInstance, answer: str) -> Verdict[dict[str, Any]]:
    """Valid: one read-only query that SQLite runs without error on the database (its first suite database)."""
    database = spider_suite(instance.target["db_id"])[0]
    result = run_query(database, answer, max_rows=1)
    found = [] if result.ok else [Violation("sql", f"SQLite does not run the answer: {result.error}.",
                                            seen=answer[:80])]
    return Verdict.of(found, detail={"valid": result.ok})


_SYNTAX = ("OperationalError: near ", "OperationalError: incomplete input", "OperationalError: unrecognized token",
           "OperationalError: parser stack overflow", "refused: more than one statement", "refused: an empty query")


def sql_quality(instance: TaskInstance, answer: str) -> dict[str, float]:
    from corral.sql import execution_match

    gold, db_id = instance.target["gold"], instance.target["db_id"]
    suite = spider_suite(db_id)
    ran = run_query(suite[0], answer, max_rows=1)
    return {"execution": float(ran.ok and execution_match(answer, gold, suite).correct),
            "exact_set": float(exact_set_match(answer, gold, spider_schemas()[db_id])), "valid": float(ran.ok),
            "parses": float(ran.ok or not (ran.error or "").startswith(_SYNTAX)),
            "schema_names": float(schema_names_only(answer, spider_schemas()[db_id]))}


# --------------------------------------------------------------------------------------------------- the task
def sql_task(name: str, version: str, instances: Callable[[], Iterator[TaskInstance]],
             quality: Callable[[TaskInstance, str], dict[str, float]], description: str) -> Task:
    """A text-to-SQL task over Spider's dev databases: each instance's database grammar, the validity check, a
    completion-style prompt whose answer is the first line."""
    return parse_task(name, version, instances, check_sql,
                      lambda instance: sql_grammar(spider_schemas()[instance.target["db_id"]]), quality, description)


def _instances(shots: int, budget: int, retriever_method: str) -> Iterator[TaskInstance]:
    schemas = spider_schemas()
    for question, pairs in cross_database_shots(spider_questions(), shots, budget, retriever_method, render_pair):
        schema = schemas[question.db_id]
        yield parse_instance(question.id, render_question(question, schema), question.query, pairs,
                             {"dataset": "spider", "split": "dev", "database": question.db_id}, db_id=question.db_id)


@register_task("clamp-spider", options=shot_options(8, "examples from the other databases"))
def clamp_spider(shots: int, budget: int, retriever: str) -> Task:
    """Spider dev questions to SQLite queries, judged by test-suite execution and exact set match."""
    check_counts("clamp-spider", shots, budget)
    return sql_task("clamp-spider", VERSION, lambda: _instances(shots, budget, retriever), sql_quality,
                    "BenchCLAMP (Roy et al. 2023) Spider text-to-SQL, test-suite execution accuracy")
