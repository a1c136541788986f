"""The ``clamp-spider`` task: prompts, the validity check, the quality metrics and the cached test suites."""

from __future__ import annotations

import itertools

import pytest

from corral.suites.clamp import check_sql, clamp_spider, spider_questions, spider_suite, sql_quality, suite_folder


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CORRAL_CACHE_DIR", str(folder))
        yield folder


@pytest.fixture(scope="module")
def instances(cache):
    task = clamp_spider(shots=3, budget=1500, retriever="bm25")
    return task, list(itertools.islice(task.instances(), 4))


def test_examples_come_from_other_databases_and_the_prompt_gives_the_schema(instances):
    _, chosen = instances
    for instance in chosen:
        db_id = instance.target["db_id"]
        lines = instance.prompt.splitlines()
        humans = [line for line in lines if line.startswith("Human: ")]
        assert len(humans) == 4 and instance.prompt.endswith("\nComputer:")
        assert all(f" | {db_id} | " not in line for line in humans[:-1])  # no example over the same tables
        assert f" | {db_id} | stadium: Stadium_ID, Location" in humans[-1] and "singer: Singer_ID, Name" in humans[-1]
        assert instance.groups == {"dataset": "spider", "split": "dev", "database": db_id}


def test_the_check_runs_the_query_on_the_database(instances):
    _, chosen = instances
    instance = chosen[0]
    assert check_sql(instance, instance.target["gold"]).passed
    unknown = check_sql(instance, "SELECT foo FROM singer")
    assert not unknown.passed and "no such column: foo" in unknown.violations[0].message
    writes = check_sql(instance, "DROP TABLE singer")
    assert not writes.passed and "refused: not read-only" in writes.violations[0].message
    assert spider_suite("concert_singer")[0].is_file()  # the database was never touched


def test_quality_on_the_gold_and_on_a_near_miss(instances):
    _, chosen = instances
    instance = chosen[0]  # How many singers do we have?
    gold = instance.target["gold"]
    assert sql_quality(instance, gold) == {"execution": 1.0, "exact_set": 1.0, "valid": 1.0, "parses": 1.0,
                                           "schema_names": 1.0}
    near = sql_quality(instance, "SELECT count(*) FROM concert")
    assert near["execution"] == 0.0 and near["exact_set"] == 0.0 and near["valid"] == 1.0
    broken = sql_quality(instance, "SELECT count(*) FROM")
    assert broken["parses"] == 0.0 and broken["valid"] == 0.0 and broken["schema_names"] == 0.0


def test_suites_are_built_once_and_kept(cache):
    first = spider_suite("concert_singer")
    assert first[0].parent == suite_folder() / "concert_singer" and str(cache) in str(first[0])
    assert (first[0].parent / "suite.json").is_file()
    assert not [p for p in first[0].parent.parent.iterdir() if p.name.startswith(".")]  # no scratch left
    assert spider_suite("concert_singer") == first
    with pytest.raises(ValueError, match="unknown Spider database"):
        spider_suite("no_such_db")


def test_every_question_is_an_instance():
    task = clamp_spider(shots=0, budget=0, retriever="bm25")
    ids = [instance.id for instance in task.instances()]
    assert len(ids) == len(spider_questions()) == 1034 and len(set(ids)) == 1034
