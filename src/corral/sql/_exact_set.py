"""Spider's exact set match, on sqlglot's syntax trees: two queries match when each clause holds the same set of
parts, whatever their order, spelling, case or table aliases, with the values left out.

Spider's evaluation (Yu et al. 2018) compares a prediction with the gold clause by clause as *sets* (``SELECT a, b``
is ``SELECT b, a``; ``WHERE x AND y`` is ``WHERE y AND x``) and, by default, without the values (a model cannot be
expected to copy ``'France'`` exactly; execution accuracy judges values). Here each query is parsed with sqlglot
(SQLite dialect), identifiers are lower-cased, table aliases are replaced by the table they stand for, and each
``SELECT`` becomes its clauses: the select list, ``DISTINCT``, the tables of ``FROM`` and ``JOIN``, the join
conditions, the conditions of ``WHERE`` and ``HAVING`` split at their top-level ``AND``/``OR`` (with the
connectives kept as a multiset), ``GROUP BY``, ``ORDER BY`` (in order, with direction), whether there is a
``LIMIT``, and set operations with both sides. Subqueries are compared the same way, recursively. A query sqlglot
cannot parse matches nothing.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

__all__ = ["exact_set_match", "query_shape"]

VALUE = "value"


def exact_set_match(prediction: str, gold: str) -> bool:
    """Whether ``prediction`` and ``gold`` have the same clauses as sets, values aside (see the module doc)."""
    predicted, expected = query_shape(prediction), query_shape(gold)
    return predicted is not None and predicted == expected


@lru_cache(maxsize=8192)
def query_shape(query: str) -> Any:
    """The comparable form of ``query`` (nested tuples and frozensets), or None when sqlglot cannot read it."""
    try:
        tree = sqlglot.parse_one(query, read="sqlite")
    except (SqlglotError, RecursionError, ValueError):
        return None
    if not isinstance(tree, exp.Query):
        return None
    return _shape(tree)


def _shape(node: exp.Expression) -> Any:
    if isinstance(node, exp.SetOperation):
        operation = type(node).__name__.lower() + ("" if node.args.get("distinct", True) else " all")
        tail = (_order(node), node.args.get("limit") is not None)
        return ("set", operation, _shape(node.left), _shape(node.right), tail)
    if isinstance(node, exp.Subquery):
        return _shape(node.this)
    if not isinstance(node, exp.Select):
        return ("other", _text(node, {}))
    aliases = _aliases(node)
    where = node.args.get("where")
    having = node.args.get("having")
    group = node.args.get("group")
    joins = node.args.get("joins") or []
    tables = Counter(_source(source, aliases) for source in _sources(node))
    return (
        "select",
        bool(node.args.get("distinct")),
        frozenset(Counter(_text(e, aliases) for e in node.expressions).items()),
        frozenset(tables.items()),
        frozenset(_conditions(join.args.get("on"), aliases) for join in joins if join.args.get("on") is not None),
        _conditions(where.this if where else None, aliases),
        frozenset(_text(e, aliases) for e in group.expressions) if group else frozenset(),
        _conditions(having.this if having else None, aliases),
        _order(node, aliases),
        node.args.get("limit") is not None,
    )


def _sources(select: exp.Select) -> list[exp.Expression]:
    from_ = select.args.get("from_") or select.args.get("from")
    found = [from_.this] if from_ is not None else []
    found += [join.this for join in select.args.get("joins") or []]
    return found


def _aliases(select: exp.Select) -> dict[str, str]:
    """Each table alias of this ``SELECT`` and the table it names (``t1`` -> ``singer``)."""
    out = {}
    for source in _sources(select):
        if isinstance(source, exp.Table) and source.alias:
            out[source.alias.lower()] = source.name.lower()
    return out


def _source(source: exp.Expression, aliases: dict[str, str]) -> Any:
    if isinstance(source, exp.Table):
        return source.name.lower()
    if isinstance(source, exp.Subquery):
        return _shape(source.this)
    return _text(source, aliases)


def _conditions(node: exp.Expression | None, aliases: dict[str, str]) -> Any:
    """A condition's top-level parts as a multiset, with the multiset of connectives joining them."""
    if node is None:
        return (frozenset(), frozenset())
    parts: list[str] = []
    connectives: list[str] = []
    todo = [node]
    while todo:
        item = todo.pop()
        if isinstance(item, exp.Paren) and isinstance(item.this, (exp.And, exp.Or)):
            item = item.this
        if isinstance(item, (exp.And, exp.Or)):
            connectives.append(type(item).__name__.lower())
            todo.extend((item.left, item.right))
        else:
            parts.append(_text(item, aliases))
    return (frozenset(Counter(parts).items()), frozenset(Counter(connectives).items()))


def _order(node: exp.Expression, aliases: dict[str, str] | None = None) -> tuple[Any, ...]:
    order = node.args.get("order")
    if order is None:
        return ()
    return tuple((_text(term.this, aliases or {}), bool(term.args.get("desc"))) for term in order.expressions)


def _text(node: exp.Expression, aliases: dict[str, str]) -> Any:
    """One part of a clause in a normal form: aliases resolved, names lower-cased, values replaced, subqueries
    compared by shape."""
    subqueries: list[Any] = []

    def normal(item: exp.Expression) -> exp.Expression:
        if isinstance(item, (exp.Subquery, exp.Select, exp.SetOperation)) and item is not node:
            subqueries.append(_shape(item))
            return exp.Placeholder(this=f"q{len(subqueries)}")
        if isinstance(item, exp.Literal) or (isinstance(item, exp.Column) and _is_string(item)):
            return exp.Placeholder(this=VALUE)
        if isinstance(item, exp.Column):
            table = item.table.lower()
            return exp.column(item.name.lower(), table=aliases.get(table, table) or None)
        if isinstance(item, exp.Identifier):
            return exp.to_identifier(item.name.lower())
        return item

    written = node.copy().transform(normal).sql(dialect="sqlite").lower()
    return (written, tuple(subqueries)) if subqueries else written


def _is_string(column: exp.Column) -> bool:
    """A double-quoted "word" that sqlglot reads as a column: Spider's gold writes strings that way."""
    identifier = column.this
    return isinstance(identifier, exp.Identifier) and bool(identifier.args.get("quoted")) and not column.table
