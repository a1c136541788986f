"""Spider gold queries read with sqlglot: the literals and joins they use, and their near variants.

Test-suite execution accuracy (Zhong, Yu and Klein, EMNLP 2020; ``_test_suite``) needs two things from the gold
queries of a database. The database generator needs their *values*: the literals each column is compared with (so
that a ``WHERE`` matches some generated rows and not others) and the columns they equate (joins the schema's foreign
keys do not declare, and ``IN`` subqueries), so that such joins find partners. The choice of databases needs
*near variants*: queries that differ from a gold query in one small way, the mistakes a model is likely to make,
which a good set of databases tells apart from the gold. A variant swaps a comparison in a ``WHERE`` or ``HAVING``
(``>`` and ``>=``, ``<`` and ``<=``, ``=`` and ``!=``), moves a number one up or down, puts another literal of the
same column in place of a string, turns ``ASC`` into ``DESC`` or the reverse, raises a ``LIMIT`` by one, adds or
drops the outer ``DISTINCT``, swaps ``max`` and ``min``, ``avg`` and ``sum``, ``count(x)`` and
``count(DISTINCT x)``, ``AND`` and ``OR``, drops one ``WHERE`` conjunct, swaps ``UNION``, ``INTERSECT`` and
``EXCEPT``, or selects another column of the same table. Variants are built on the syntax tree and printed back as
SQLite. One that prints like the gold is left out, and so is one equivalent to it for a reason visible in the
query: ``DISTINCT`` where there is at most one row (an aggregate without ``GROUP BY``, ``LIMIT 1``, the table's
key equal to a literal) or where the projection holds every ``GROUP BY`` key or its only table's key;
``count(DISTINCT key)``; a ``LIMIT`` or an order in a subquery whose order cannot matter.

Spider writes string literals in double quotes too (``WHERE name = "Paris"``): SQLite reads a double-quoted word
that names no column as a string, and so do these functions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from ._schema import SpiderSchema

__all__ = ["ValueHints", "has_top_level_order", "near_variants", "normalise", "parse_query", "value_hints"]

_SWAPPED_COMPARISON: dict[type[exp.Expression], type[exp.Expression]] = {
    exp.GT: exp.GTE, exp.GTE: exp.GT, exp.LT: exp.LTE, exp.LTE: exp.LT, exp.EQ: exp.NEQ, exp.NEQ: exp.EQ}
_SWAPPED_AGGREGATE: dict[type[exp.Expression], type[exp.Expression]] = {
    exp.Max: exp.Min, exp.Min: exp.Max, exp.Avg: exp.Sum, exp.Sum: exp.Avg}
_SET_OPERATIONS: tuple[type[exp.Expression], ...] = (exp.Union, exp.Intersect, exp.Except)
_COMPARED = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Like, exp.ILike)
_ORDER_BY = re.compile(r"\border\s+by\b", re.IGNORECASE)


@dataclass(frozen=True)
class ValueHints:
    """What a database's gold queries say about its values. ``literals``: by column index, the literals the
    queries compare the column with (``=``, ``<``, ``LIKE``, ``IN``, ``BETWEEN``), in order of first use;
    ``links``: pairs of columns (lower index first) that the queries equate, as join conditions or through an
    ``IN`` subquery; ``real``: number columns compared with a non-integer literal; ``numeric``: columns the
    queries treat as numbers (compared with a number, summed or averaged), whatever their Spider type."""

    literals: Mapping[int, tuple[object, ...]]
    links: frozenset[tuple[int, int]] = frozenset()
    real: frozenset[int] = frozenset()
    numeric: frozenset[int] = frozenset()


class _Names:
    """A schema's names, case-folded as SQLite folds them, and column references resolved against them."""

    def __init__(self, schema: SpiderSchema) -> None:
        self.schema = schema
        self.tables = {name.lower(): k for k, name in enumerate(schema.tables)}
        self.columns = {(table, name.lower()): k for k, (table, name) in enumerate(schema.columns)}
        self.names = frozenset(name.lower() for _, name in schema.columns)
        keyed: dict[int, list[int]] = {}
        for column in schema.primary_keys:
            keyed.setdefault(schema.columns[column][0], []).append(column)
        borrowed = {child for child, _ in schema.foreign_keys}
        self.unique = frozenset(columns[0] for columns in keyed.values()
                                if len(columns) == 1 and columns[0] not in borrowed)
        """Columns that are their table's whole primary key: a key column that is also a foreign key is left out, as
        Spider lists the first column of a composite key that way (``_test_suite.table_keys``)."""

    def sources(self, select: exp.Expression) -> dict[str, int]:
        """A ``SELECT``'s own tables (not its subqueries') by alias and by name."""
        found: dict[str, int] = {}
        items = [select.args["from_"].this] if select.args.get("from_") else []
        items += [join.this for join in select.args.get("joins") or ()]
        for item in items:
            if isinstance(item, exp.Table) and (table := self.tables.get(item.name.lower())) is not None:
                found[item.alias_or_name.lower()] = table
                found.setdefault(item.name.lower(), table)
        return found

    def resolve(self, node: exp.Expression) -> int | None:
        """The schema column a ``Column`` node names, looking in its ``SELECT`` and then the enclosing ones."""
        if not isinstance(node, exp.Column) or isinstance(node.this, exp.Star):
            return None
        name, qualifier = node.name.lower(), node.table.lower()
        scope = node.find_ancestor(exp.Select)
        while scope is not None:
            sources = self.sources(scope)
            if qualifier:
                if qualifier in sources:
                    return self.columns.get((sources[qualifier], name))
            else:
                for table in dict.fromkeys(sources.values()):
                    if (column := self.columns.get((table, name))) is not None:
                        return column
            scope = scope.find_ancestor(exp.Select)
        return None

    def single_table(self, select: exp.Expression | None) -> bool:
        """A ``SELECT`` reading one schema table, without joins."""
        return (isinstance(select, exp.Select) and not select.args.get("joins") and select.args.get("from_")
                is not None and isinstance(select.args["from_"].this, exp.Table) and len(self.sources(select)) >= 1)


@lru_cache(maxsize=64)
def _names(schema: SpiderSchema) -> _Names:
    return _Names(schema)


@lru_cache(maxsize=4096)
def _parsed(query: str, schema: SpiderSchema) -> exp.Expression:
    tree = sqlglot.parse_one(query, read="sqlite")
    names = _names(schema).names
    for column in list(tree.find_all(exp.Column)):
        identifier = column.this
        if (isinstance(identifier, exp.Identifier) and identifier.quoted and not column.table
                and identifier.name.lower() not in names):
            column.replace(exp.Literal.string(identifier.name))
    return tree


def parse_query(query: str, schema: SpiderSchema) -> exp.Expression:
    """``query``'s syntax tree (a fresh copy), double-quoted strings read as strings; raises sqlglot's
    ``SqlglotError`` when it does not parse."""
    return _parsed(query, schema).copy()


def normalise(query: str, schema: SpiderSchema) -> str:
    """``query`` as sqlglot prints it back for SQLite (the form variants are compared in)."""
    return _parsed(query, schema).sql(dialect="sqlite")


@lru_cache(maxsize=4096)
def has_top_level_order(query: str) -> bool:
    """Whether the query's outermost ``SELECT`` (or set operation) has an ``ORDER BY``: only then does the order
    of its rows count. A query sqlglot cannot parse counts as ordered when it says ``ORDER BY`` anywhere."""
    try:
        tree = sqlglot.parse_one(query, read="sqlite")
    except SqlglotError:
        return bool(_ORDER_BY.search(query))
    return isinstance(tree, exp.Query) and tree.args.get("order") is not None


_NO_VALUE = object()


def _literal(node: exp.Expression) -> object:
    """A literal's Python value (``str``, ``int`` or ``float``), else ``_NO_VALUE``."""
    sign = 1
    if isinstance(node, exp.Neg):
        node, sign = node.this, -1
    if not isinstance(node, exp.Literal):
        return _NO_VALUE
    if node.is_string:
        return _NO_VALUE if sign < 0 else node.this
    try:
        return sign * int(node.this)
    except ValueError:
        try:
            return sign * float(node.this)
        except ValueError:
            return _NO_VALUE


def _compared(node: exp.Expression) -> Iterable[tuple[exp.Expression, exp.Expression]]:
    """The (column side, other side) pairs a predicate node compares."""
    if isinstance(node, _COMPARED):
        yield node.this, node.expression
        if not isinstance(node, (exp.Like, exp.ILike)):
            yield node.expression, node.this
    elif isinstance(node, exp.In):
        for item in node.expressions:
            yield node.this, item
        if isinstance(query := node.args.get("query"), exp.Expression):
            inner = query.this if isinstance(query, exp.Subquery) else query
            if isinstance(inner, exp.Select) and len(inner.expressions) == 1:
                yield node.this, inner.expressions[0]
    elif isinstance(node, exp.Between):
        yield node.this, node.args["low"]
        yield node.this, node.args["high"]


def value_hints(schema: SpiderSchema, queries: Iterable[str]) -> ValueHints:
    """What ``queries`` (gold queries of ``schema``'s database) compare each column with; queries that do not
    parse are skipped."""
    names = _names(schema)
    literals: dict[int, dict[object, None]] = {}
    links: set[tuple[int, int]] = set()
    real: set[int] = set()
    numeric: set[int] = set()
    for query in queries:
        try:
            tree = _parsed(query, schema)
        except SqlglotError:
            continue
        for node in tree.walk():
            if isinstance(node, (exp.Avg, exp.Sum)) and (column := names.resolve(node.this)) is not None:
                numeric.add(column)
            for side, other in _compared(node):
                column = names.resolve(side)
                if column is None:
                    continue
                value = _literal(other)
                if value is not _NO_VALUE:
                    literals.setdefault(column, {})[value] = None
                    if isinstance(value, (int, float)):
                        numeric.add(column)
                    if isinstance(value, float) and not value.is_integer() and schema.types[column] == "number":
                        real.add(column)
                elif (isinstance(node, (exp.EQ, exp.In)) and (partner := names.resolve(other)) is not None
                      and partner != column):
                    links.add((min(column, partner), max(column, partner)))
    return ValueHints({column: tuple(values) for column, values in literals.items()}, frozenset(links),
                      frozenset(real), frozenset(numeric))


# --- near variants ---------------------------------------------------------------------------------------------

_Edit = Callable[[exp.Expression], exp.Expression]
"""Changes a node of a copied tree in place and returns what now stands where the node stood."""


def _in_join_condition(node: exp.Expression) -> bool:
    ancestor = node.parent
    while ancestor is not None and not isinstance(ancestor, exp.Query):
        if isinstance(ancestor, exp.Join):
            return True
        ancestor = ancestor.parent
    return False


def _in_filter(node: exp.Expression) -> bool:
    """Inside a ``WHERE`` or ``HAVING`` (of any ``SELECT``), not in a join condition."""
    ancestor = node.parent
    while ancestor is not None:
        if isinstance(ancestor, (exp.Where, exp.Having)):
            return True
        if isinstance(ancestor, (exp.Join, exp.Query)):
            return False
        ancestor = ancestor.parent
    return False


def _single_row(select: exp.Expression) -> bool:
    """A ``SELECT`` that aggregates without ``GROUP BY``: exactly one row, whatever the data."""
    return (isinstance(select, exp.Select) and not select.args.get("group") and any(
        aggregate.find_ancestor(exp.Select) is select for item in select.expressions
        for aggregate in item.find_all(exp.AggFunc)))


def _at_most_one_row(query: exp.Expression, names: _Names) -> bool:
    """A query that returns at most one row whatever the data: ``_one_row``, or ``LIMIT 1``."""
    limit = query.args.get("limit")
    return _one_row(query, names) or (limit is not None and _literal(limit.expression) == 1)


def _one_row(query: exp.Expression, names: _Names) -> bool:
    """A query that returns at most one row before any ``LIMIT``: it aggregates without ``GROUP BY``, or reads one
    table where the table's key equals a literal."""
    if _single_row(query):
        return True
    where = query.args.get("where")
    if where is None or query.args.get("group") or not names.single_table(query):
        return False
    conjuncts = list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this.unnest()]
    return any(isinstance(item, exp.EQ) and any(
        names.resolve(side) in names.unique and _literal(other) is not _NO_VALUE
        for side, other in ((item.this, item.expression), (item.expression, item.this))) for item in conjuncts)


def _scalar(query: exp.Expression) -> bool:
    """A subquery read as one value (compared with ``=``, ``<``, ...): only its first row counts."""
    return isinstance(query.parent, exp.Subquery) and isinstance(query.parent.parent, exp.Binary)


def _swap_class(cls: type[exp.Expression], wrap: bool = False) -> _Edit:
    def edit(node: exp.Expression) -> exp.Expression:
        new = cls(**{key: value for key, value in node.args.items() if value is not None})
        new = exp.Paren(this=new) if wrap else new
        node.replace(new)
        return new
    return edit


def _replace_with(make: Callable[[], exp.Expression]) -> _Edit:
    def edit(node: exp.Expression) -> exp.Expression:
        new = make()
        node.replace(new)
        return new
    return edit


def _set_arg(key: str, value: Callable[[exp.Expression], object]) -> _Edit:
    def edit(node: exp.Expression) -> exp.Expression:
        node.set(key, value(node))
        return node
    return edit


def _toggle_order(node: exp.Expression) -> exp.Expression:
    descending = not node.args.get("desc")
    node.set("desc", descending)
    node.set("nulls_first", not descending)  # SQLite's own NULL placement, so nothing but the direction changes
    return node


def _drop_conjunct(position: int) -> _Edit:
    def edit(where: exp.Expression) -> exp.Expression:
        conjuncts = list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]
        rest = [item for k, item in enumerate(conjuncts) if k != position]
        if not rest:
            where.pop()
            return where
        where.set("this", exp.and_(*rest, copy=False))
        return where
    return edit


def _count_toggle(node: exp.Count) -> exp.Expression:
    argument = node.this
    if isinstance(argument, exp.Distinct):
        new = exp.Count(this=argument.expressions[0])
    else:
        new = exp.Count(this=exp.Distinct(expressions=[argument]))
    node.replace(new)
    return new


def _outer_selects(tree: exp.Expression) -> list[exp.Select]:
    """The ``SELECT``s whose rows are the query's result: the root, or the branches of root set operations."""
    if isinstance(tree, exp.Select):
        return [tree]
    if isinstance(tree, exp.SetOperation):
        return _outer_selects(tree.this) + _outer_selects(tree.expression)
    if isinstance(tree, exp.Subquery):
        return _outer_selects(tree.this)
    return []


def _distinct_is_moot(select: exp.Select, names: _Names) -> bool:
    """Whether ``DISTINCT`` cannot change the rows of ``select``: one aggregate row, every ``GROUP BY`` key in the
    projection, or the key of its only table projected."""
    if _at_most_one_row(select, names):
        return True
    projected = {item.unalias().sql(dialect="sqlite") for item in select.expressions}
    if (group := select.args.get("group")) and all(key.sql(dialect="sqlite") in projected
                                                     for key in group.expressions):
        return True
    return names.single_table(select) and any(
        names.resolve(item.unalias()) in names.unique for item in select.expressions)


def _replacement_column(column: int, schema: SpiderSchema) -> str | None:
    """Another column of ``column``'s table, of the same Spider type where there is one (the next such after it,
    wrapping around)."""
    table = schema.columns[column][0]
    others = [k for k, (owner, _) in enumerate(schema.columns) if owner == table and k != column]
    if not others:
        return None
    same = [k for k in others if schema.types[k] == schema.types[column]] or others
    after = [k for k in same if k > column]
    return schema.columns[(after or same)[0]][1]


def _edits(node: exp.Expression, tree: exp.Expression, names: _Names, hints: ValueHints) -> Iterable[_Edit]:
    """The one-step changes to make at ``node`` of the gold ``tree``."""
    schema = names.schema
    kind = type(node)
    if kind in _SWAPPED_COMPARISON and _in_filter(node):
        yield _swap_class(_SWAPPED_COMPARISON[kind])
    elif isinstance(node, exp.Literal):
        if node.find_ancestor(exp.Limit, exp.Offset) is not None or _in_join_condition(node):
            return
        value = _literal(node)
        if isinstance(value, (int, float)):
            for step in (1, -1):
                yield _replace_with(lambda shifted=value + step: exp.Literal.number(shifted))
        elif isinstance(value, str) and node.parent is not None:
            for side, other in _compared(node.parent):
                if other is node and (column := names.resolve(side)) is not None:
                    alternatives = [v for v in hints.literals.get(column, ()) if isinstance(v, str) and v != value]
                    if alternatives:
                        yield _replace_with(lambda text=alternatives[0]: exp.Literal.string(text))
                    break
    elif isinstance(node, exp.Ordered):
        query = node.parent.parent if node.parent is not None else None
        if query is not None and (query is tree or query.args.get("limit")) and not _one_row(query, names):
            yield _toggle_order
    elif isinstance(node, exp.Limit):
        query = node.parent
        value = _literal(node.expression) if node.expression is not None else _NO_VALUE
        if isinstance(value, int) and query is not None and not _one_row(query, names) and not _scalar(query):
            yield _set_arg("expression", lambda _node, n=value: exp.Literal.number(n + 1))
    elif kind in _SWAPPED_AGGREGATE:
        yield _swap_class(_SWAPPED_AGGREGATE[kind])
    elif isinstance(node, exp.Count) and not isinstance(node.this, exp.Star) and node.this is not None:
        argument = node.this.expressions[0] if isinstance(node.this, exp.Distinct) else node.this
        if isinstance(node.this, exp.Distinct) and len(node.this.expressions) != 1:
            return
        select = node.find_ancestor(exp.Select)
        if not (names.single_table(select) and names.resolve(argument) in names.unique):
            yield _count_toggle
    elif isinstance(node, (exp.And, exp.Or)) and _in_filter(node):
        yield _swap_class(exp.Or if isinstance(node, exp.And) else exp.And, wrap=True)
    elif isinstance(node, exp.Where):
        count = len(list(node.this.flatten())) if isinstance(node.this, exp.And) else 1
        for position in range(count):
            yield _drop_conjunct(position)
    elif isinstance(node, _SET_OPERATIONS):
        for other in _SET_OPERATIONS:
            if other is not kind:
                yield _swap_class(other)
    if isinstance(node, exp.Select) and node is tree and not _distinct_is_moot(node, names):
        yield _set_arg("distinct", lambda select: None if select.args.get("distinct") else exp.Distinct())
    if isinstance(node, exp.Column) and any(node.find_ancestor(exp.Select) is select and _projected(node, select)
                                            for select in _outer_selects(tree)):
        column = names.resolve(node)
        if column is not None and (replacement := _replacement_column(column, schema)) is not None:
            yield _rename(replacement, None if node.table else _alias(node, schema.columns[column][0], names))


def _alias(node: exp.Expression, table: int, names: _Names) -> str | None:
    """What an unqualified column of ``table`` must be qualified with in ``node``'s ``SELECT`` (another of its
    tables may have a column of the new name): the table's alias there, where it reads more than one table."""
    select = node.find_ancestor(exp.Select)
    if select is None or len(set(names.sources(select).values())) < 2:
        return None
    items = [select.args["from_"].this, *(join.this for join in select.args.get("joins") or ())]
    return next((item.alias_or_name for item in items if isinstance(item, exp.Table)
                 and names.tables.get(item.name.lower()) == table), None)


def _rename(name: str, qualifier: str | None) -> _Edit:
    def edit(node: exp.Expression) -> exp.Expression:
        node.set("this", exp.to_identifier(name))
        if qualifier is not None:
            node.set("table", exp.to_identifier(qualifier))
        return node
    return edit


def _projected(node: exp.Expression, select: exp.Select) -> bool:
    """Whether ``node`` sits in ``select``'s projection (its column list), not elsewhere in it."""
    child = node
    while child.parent is not None and child.parent is not select:
        child = child.parent
    return child.parent is select and child.arg_key == "expressions"


def near_variants(query: str, schema: SpiderSchema, hints: ValueHints | None = None) -> list[str]:
    """Queries one small change away from the gold ``query`` (see the module doc), as SQLite text, in a fixed
    order, none printing like the gold. ``hints`` (``value_hints`` of the database's gold queries) give string
    literals their alternatives; without them only ``query``'s own literals are known. A query that does not
    parse has no variants."""
    try:
        tree = _parsed(query, schema)
    except SqlglotError:
        return []
    names = _names(schema)
    hints = hints if hints is not None else value_hints(schema, [query])
    gold = tree.sql(dialect="sqlite")
    edits = [(position, edit) for position, node in enumerate(tree.walk())
             for edit in _edits(node, tree, names, hints)]
    variants: dict[str, None] = {}
    for position, edit in edits:
        copy = tree.copy()
        target = next(node for k, node in enumerate(copy.walk()) if k == position)
        replaced = edit(target)
        root = replaced if target is copy else copy
        try:
            text = root.sql(dialect="sqlite")
        except SqlglotError:
            continue
        if text != gold:
            variants[text] = None
    return list(variants)
