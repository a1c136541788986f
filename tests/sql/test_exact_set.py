"""Spider's exact set match accepts meaning-preserving rewrites of every dev gold query: a bare column written with
its table's alias (and a qualified one written bare where the schema leaves one owner), the sides of a column
equality swapped, a condition put in parentheses. Each rewrite is made on sqlglot's tree of the gold query, and the
rewritten query must differ from the gold as text, so that the test checks something."""

from __future__ import annotations

import random

import pytest
import sqlglot
from sqlglot import exp

from corral.sql import exact_set_match
from corral.suites.clamp import spider_questions, spider_schemas

QUESTIONS = spider_questions()
SCHEMAS = spider_schemas()


def _own(node: exp.Expression, select: exp.Select) -> bool:
    """Whether ``node`` belongs to ``select`` itself, not to a subquery inside it."""
    return node.find_ancestor(exp.Select) is select


def _tables(select: exp.Select) -> list[exp.Table]:
    from_ = select.args.get("from_") or select.args.get("from")
    sources = ([from_.this] if from_ is not None else []) + [join.this for join in select.args.get("joins") or []]
    return [source for source in sources if isinstance(source, exp.Table)] if all(
        isinstance(source, exp.Table) for source in sources) else []


def qualify(query: str) -> str:
    """Every bare column of a one-table ``SELECT`` written with an alias of its table (``FROM singer AS q1``)."""
    tree = sqlglot.parse_one(query, read="sqlite")
    for k, select in enumerate(list(tree.find_all(exp.Select))):
        tables = _tables(select)
        if len(tables) != 1 or tables[0].alias:
            continue
        alias = f"q{k}"
        bare = [c for c in select.find_all(exp.Column) if _own(c, select) and not c.table
                and not isinstance(c.this, exp.Star) and not c.this.args.get("quoted")]
        if not bare:
            continue
        tables[0].set("alias", exp.TableAlias(this=exp.to_identifier(alias)))
        for column in bare:
            column.set("table", exp.to_identifier(alias))
    return tree.sql(dialect="sqlite")


def unqualify(query: str, db_id: str) -> str:
    """Every qualified column of a join written bare where only one of the join's tables has such a column."""
    schema = SCHEMAS[db_id]
    owners = {table.lower(): {name.lower() for name in schema.table_columns(k)}
              for k, table in enumerate(schema.tables)}
    tree = sqlglot.parse_one(query, read="sqlite")
    for select in list(tree.find_all(exp.Select)):
        tables = _tables(select)
        names = [table.name.lower() for table in tables]
        if len(set(names)) < 2 or len(set(names)) != len(names):
            continue
        for column in [c for c in select.find_all(exp.Column) if _own(c, select) and c.table]:
            if sum(column.name.lower() in owners.get(name, ()) for name in names) == 1:
                column.set("table", None)
    return tree.sql(dialect="sqlite")


def swap(query: str) -> str:
    """The sides of every equality between two columns swapped (``ON T2.id = T1.id``)."""
    tree = sqlglot.parse_one(query, read="sqlite")
    def column(side: exp.Expression) -> bool:  # a double-quoted word without a table is Spider's string
        return isinstance(side, exp.Column) and not (side.this.args.get("quoted") and not side.table)

    for eq in list(tree.find_all(exp.EQ)):
        if column(eq.left) and column(eq.right):
            left, right = eq.left.copy(), eq.right.copy()
            eq.set("this", right)
            eq.set("expression", left)
    return tree.sql(dialect="sqlite")


def parenthesise(query: str) -> str:
    """Every condition of every ``WHERE`` that is not a conjunction put in parentheses."""
    tree = sqlglot.parse_one(query, read="sqlite")
    for where in list(tree.find_all(exp.Where)):
        parts, todo = [], [where.this]
        while todo:
            item = todo.pop()
            if isinstance(item, (exp.And, exp.Or)):
                todo += [item.left, item.right]
            elif not isinstance(item, exp.Paren):
                parts.append(item)
        for part in parts:
            part.replace(exp.Paren(this=part.copy()))
    return tree.sql(dialect="sqlite")


@pytest.mark.parametrize("rewrite", ["qualify", "unqualify", "swap", "parenthesise"])
def test_every_dev_gold_query_matches_its_meaning_preserving_rewrite(rewrite):
    changed = 0
    for question in QUESTIONS:
        schema = SCHEMAS[question.db_id]
        text = {"qualify": qualify, "swap": swap, "parenthesise": parenthesise}.get(rewrite)
        rewritten = unqualify(question.query, question.db_id) if text is None else text(question.query)
        if rewritten == sqlglot.parse_one(question.query, read="sqlite").sql(dialect="sqlite"):
            continue  # nothing to rewrite in this query
        changed += 1
        assert exact_set_match(rewritten, question.query, schema), (question.query, rewritten)
        assert exact_set_match(question.query, rewritten, schema)
    assert changed >= 100, changed  # the rewrite reached a good share of the dev set


def test_rewrites_compose_and_real_differences_still_count():
    rng = random.Random(0)
    for question in rng.sample(QUESTIONS, 200):
        schema = SCHEMAS[question.db_id]
        rewritten = parenthesise(swap(qualify(question.query)))
        assert exact_set_match(rewritten, question.query, schema), (question.query, rewritten)
    schema = SCHEMAS["concert_singer"]
    # a different column, a different table for a bare column, a different join condition still differ
    assert not exact_set_match("SELECT name FROM singer", "SELECT country FROM singer", schema)
    assert not exact_set_match("SELECT T1.name FROM singer AS T1", "SELECT T1.name FROM stadium AS T1", schema)
    assert not exact_set_match(
        "SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id",
        "SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 ON T1.concert_id = T2.stadium_id", schema)
    # without the schema, a bare column of a join keeps no table: the qualified form differs
    join = "SELECT T2.location FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id"
    bare = "SELECT location FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id"
    assert exact_set_match(bare, join, schema) and not exact_set_match(bare, join)
