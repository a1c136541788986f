"""Running untrusted SQL (``corral.sql.run_query``): reads run, nothing else does."""

from __future__ import annotations

import hashlib
import sqlite3
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corral.sql import MAX_QUERY_CHARS, run_query


@pytest.fixture(scope="module")
def database(tmp_path_factory):
    path = tmp_path_factory.mktemp("db") / "concert.sqlite"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, age INTEGER)")
        connection.executemany("INSERT INTO singer (name, age) VALUES (?, ?)",
                               [("Joe", 52), ("Timbaland", 32), ("Justin", 29), ("Rose", 41)])
    connection.close()
    return path


def _digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_read_returns_its_rows_in_order_and_says_when_it_was_cut(database):
    result = run_query(database, 'SELECT name FROM singer WHERE age > 30 ORDER BY "age" DESC')
    assert result.ok and result.rows == (("Joe",), ("Rose",), ("Timbaland",)) and not result.truncated
    cut = run_query(database, "SELECT * FROM singer", max_rows=2)
    assert len(cut.rows) == 2 and cut.truncated


@pytest.mark.parametrize(("query", "reason"), [
    ("INSERT INTO singer (name) VALUES ('x')", "insert singer"),
    ("UPDATE singer SET age = 0", "update singer"),
    ("DELETE FROM singer", "delete singer"),
    ("DROP TABLE singer", "not read-only"),
    ("CREATE TABLE t (a)", "not read-only"),
    ("ATTACH DATABASE '/tmp/other.sqlite' AS other", "attach"),
    ("PRAGMA journal_mode = WAL", "pragma journal_mode"),
    ("BEGIN", "transaction"),
    ("SELECT load_extension('/tmp/evil')", "function load_extension"),
    ("SELECT 1; DELETE FROM singer", "more than one statement"),
    ("   ", "empty query"),
    ("SELECT 1 " + " " * MAX_QUERY_CHARS, "characters"),
])
def test_anything_but_a_single_read_is_refused_unrun(database, query, reason):
    before = _digest(database)
    result = run_query(database, query)
    assert not result.ok and result.error.startswith("refused") and reason in result.error, result.error
    assert _digest(database) == before


def test_a_query_that_runs_long_is_interrupted_near_its_limit(database):
    started = time.monotonic()
    result = run_query(database, "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
                                 "SELECT count(*) FROM r", seconds=0.3)
    assert result.error == "interrupted: ran past 0.3 s"
    assert time.monotonic() - started < 5


def test_a_huge_value_or_a_bad_name_is_an_error_not_an_exception(database, tmp_path):
    assert "too big" in run_query(database, "SELECT randomblob(100000000)").error
    assert "no such column: nosuch" in run_query(database, "SELECT nosuch FROM singer").error
    assert "no database file" in run_query(tmp_path / "missing.sqlite", "SELECT 1").error


_WORDS = st.sampled_from(["SELECT", "INSERT", "INTO", "singer", "name", "age", "VALUES", "(", ")", ",", ";", "*",
                          "FROM", "DELETE", "UPDATE", "SET", "=", "1", "'x'", "DROP", "TABLE", "ATTACH", "AS",
                          "PRAGMA", "WHERE", "REPLACE", "VACUUM", "CREATE", "INDEX", "ON", "BEGIN", "COMMIT"])


@settings(max_examples=300, deadline=None)
@given(words=st.lists(_WORDS, min_size=1, max_size=12))
def test_no_query_text_changes_the_database_or_raises(database, words):
    before = _digest(database)
    result = run_query(database, " ".join(words), seconds=0.5)
    assert result.ok or result.error
    assert _digest(database) == before
