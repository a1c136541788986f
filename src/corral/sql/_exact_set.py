"""Spider's exact set match, on sqlglot's syntax trees: two queries match when each clause holds the same set of
parts, whatever their order, spelling, case or table aliases, with the values left out.

Spider's evaluation (Yu et al. 2018) compares a prediction with the gold clause by clause as *sets* (``SELECT a, b``
is ``SELECT b, a``; ``WHERE x AND y`` is ``WHERE y AND x``) and, by default, without the values (a model cannot be
expected to copy ``'France'`` exactly; execution accuracy judges values). Here each query is parsed with sqlglot
(SQLite dialect), identifiers are lower-cased, table aliases are replaced by the table they stand for, a bare
column is given its table (the only table of its ``SELECT``, or, with the database's schema, the only table of the
``SELECT`` that has such a column: ``name`` is ``T1.name`` in ``FROM singer AS T1``), an equality between two
columns reads the same both ways round (``T2.id = T1.id`` is ``T1.id = T2.id``), a condition in parentheses is the
condition, and each
``SELECT`` becomes its clauses: the select list, ``DISTINCT``, the tables of ``FROM`` and ``JOIN``, the join
conditions, the conditions of ``WHERE`` and ``HAVING`` split at their top-level ``AND``/``OR`` (with the
connectives kept as a multiset), ``GROUP BY``, ``ORDER BY`` (in order, with direction), whether there is a
``LIMIT``, and set operations with both sides. Subqueries are compared the same way, recursively. A query sqlglot
cannot parse matches nothing.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ._schema import SpiderSchema

# sqlglot is imported in the functions that use it, not here: corral.sql is imported with every suite, and most
# runs never read a query.
if TYPE_CHECKING:
    from sqlglot import exp

__all__ = ["exact_set_match", "query_shape"]

VALUE = "value"


def exact_set_match(prediction: str, gold: str, schema: SpiderSchema | None = None) -> bool:
    """Whether ``prediction`` and ``gold`` have the same clauses as sets, values aside (see the module doc);
    ``schema`` (the database's) lets a bare column of a join be read as its table's."""
    predicted, expected = query_shape(prediction, schema), query_shape(gold, schema)
    return predicted is not None and predicted == expected


@lru_cache(maxsize=8192)
def query_shape(query: str, schema: SpiderSchema | None = None) -> Any:
    """The comparable form of ``query`` (nested tuples and frozensets), or None when sqlglot cannot read it."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    try:
        tree = sqlglot.parse_one(query, read="sqlite")
    except (SqlglotError, RecursionError, ValueError):
        return None
    if not isinstance(tree, exp.Query):
        return None
    return _shape(tree, _columns(schema))


def _columns(schema: SpiderSchema | None) -> dict[str, frozenset[str]]:
    """Each table's columns, lower-cased (none without a schema)."""
    if schema is None:
        return {}
    return {table.lower(): frozenset(name.lower() for name in schema.table_columns(k))
            for k, table in enumerate(schema.tables)}


def _shape(node: exp.Expression, columns: dict[str, frozenset[str]]) -> Any:
    from sqlglot import exp

    if isinstance(node, exp.SetOperation):
        operation = type(node).__name__.lower() + ("" if node.args.get("distinct", True) else " all")
        tail = (_order(node), node.args.get("limit") is not None)
        return ("set", operation, _shape(node.left, columns), _shape(node.right, columns), tail)
    if isinstance(node, exp.Subquery):
        return _shape(node.this, columns)
    if not isinstance(node, exp.Select):
        return ("other", _text(node, _Scope({}, {}, columns)))
    aliases = _scope(node, columns)
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


@dataclass(frozen=True)
class _Scope:
    """What the names of one ``SELECT`` stand for: each table alias (and table name) -> its table, each bare column
    that can belong to one table only -> that table; ``columns`` is the schema's, for subqueries."""

    tables: dict[str, str]
    bare: dict[str, str]
    columns: dict[str, frozenset[str]]
    only: str | None = None
    """The one table of a ``SELECT`` that reads one table: every bare column is its."""

    def table_of(self, column: exp.Column) -> str | None:
        written = column.table.lower()
        if written:
            return self.tables.get(written, written)
        return self.only or self.bare.get(column.name.lower())


def _sources(select: exp.Select) -> list[exp.Expression]:
    from_ = select.args.get("from_") or select.args.get("from")
    found = [from_.this] if from_ is not None else []
    found += [join.this for join in select.args.get("joins") or []]
    return found


def _scope(select: exp.Select, columns: dict[str, frozenset[str]]) -> _Scope:
    """The scope of this ``SELECT``: its aliases (``t1`` -> ``singer``) and its bare columns' tables: every column
    is the table's when the ``SELECT`` reads one table; with a schema, a column only one of its tables has is that
    table's."""
    from sqlglot import exp

    tables: dict[str, str] = {}
    names: list[str] = []
    for source in _sources(select):
        if isinstance(source, exp.Table):
            names.append(source.name.lower())
            tables[names[-1]] = names[-1]
            if source.alias:
                tables[source.alias.lower()] = names[-1]
    bare: dict[str, str] = {}
    if len(set(names)) == 1 and len(names) == len(_sources(select)):  # one table, no subquery beside it
        return _Scope(tables, bare, columns, names[0])
    if columns and len(names) == len(_sources(select)):
        owners: dict[str, set[str]] = {}
        for table in set(names):
            for column in columns.get(table, ()):
                owners.setdefault(column, set()).add(table)
        bare = {column: next(iter(found)) for column, found in owners.items() if len(found) == 1}
    return _Scope(tables, bare, columns)


def _source(source: exp.Expression, scope: _Scope) -> Any:
    from sqlglot import exp

    if isinstance(source, exp.Table):
        return source.name.lower()
    if isinstance(source, exp.Subquery):
        return _shape(source.this, scope.columns)
    return _text(source, scope)


def _conditions(node: exp.Expression | None, scope: _Scope) -> Any:
    """A condition's top-level parts as a multiset, with the multiset of connectives joining them; parentheses
    around a part are the part, and an equality between two columns is written with its sides in order."""
    from sqlglot import exp

    if node is None:
        return (frozenset(), frozenset())
    parts: list[Any] = []
    connectives: list[str] = []
    todo = [node]
    while todo:
        item = todo.pop()
        while isinstance(item, exp.Paren):
            item = item.this
        if isinstance(item, (exp.And, exp.Or)):
            connectives.append(type(item).__name__.lower())
            todo.extend((item.left, item.right))
        elif isinstance(item, exp.EQ) and all(isinstance(side, exp.Column) and not _is_string(side)
                                              for side in (item.left, item.right)):
            parts.append(("=", *sorted((_text(item.left, scope), _text(item.right, scope)))))
        else:
            parts.append(_text(item, scope))
    return (frozenset(Counter(parts).items()), frozenset(Counter(connectives).items()))


def _order(node: exp.Expression, scope: _Scope | None = None) -> tuple[Any, ...]:
    order = node.args.get("order")
    if order is None:
        return ()
    scope = scope or _Scope({}, {}, {})
    return tuple((_text(term.this, scope), bool(term.args.get("desc"))) for term in order.expressions)


def _text(node: exp.Expression, scope: _Scope) -> Any:
    """One part of a clause in a normal form: aliases resolved, bare columns given their table, names lower-cased,
    values replaced, subqueries compared by shape."""
    from sqlglot import exp

    subqueries: list[Any] = []

    def normal(item: exp.Expression) -> exp.Expression:
        if isinstance(item, (exp.Subquery, exp.Select, exp.SetOperation)) and item is not node:
            subqueries.append(_shape(item, scope.columns))
            return exp.Placeholder(this=f"q{len(subqueries)}")
        if isinstance(item, exp.Literal) or (isinstance(item, exp.Column) and _is_string(item)):
            return exp.Placeholder(this=VALUE)
        if isinstance(item, exp.Column):
            return exp.column(item.name.lower(), table=scope.table_of(item))
        if isinstance(item, exp.Identifier):
            return exp.to_identifier(item.name.lower())
        return item

    written = node.copy().transform(normal).sql(dialect="sqlite").lower()
    return (written, tuple(subqueries)) if subqueries else written


def _is_string(column: exp.Column) -> bool:
    """A double-quoted "word" that sqlglot reads as a column: Spider's gold writes strings that way."""
    from sqlglot import exp

    identifier = column.this
    return isinstance(identifier, exp.Identifier) and bool(identifier.args.get("quoted")) and not column.table
