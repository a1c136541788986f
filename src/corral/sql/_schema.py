"""A database's schema in Spider's layout (Yu et al., EMNLP 2018), and whether a query keeps to its names."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SpiderSchema", "schema_names_only"]


@dataclass(frozen=True)
class SpiderSchema:
    """One database's schema. ``columns`` are ``(table index, name)``; ``types`` are Spider's column types
    (``text``, ``number``, ``time``, ``boolean``, ``others``); keys index ``columns``."""

    db_id: str
    tables: tuple[str, ...]
    columns: tuple[tuple[int, str], ...]
    types: tuple[str, ...]
    primary_keys: tuple[int, ...]
    foreign_keys: tuple[tuple[int, int], ...]
    """``(column, referenced column)`` pairs."""

    def table_columns(self, table: int) -> tuple[str, ...]:
        return tuple(name for owner, name in self.columns if owner == table)

    def describe(self) -> str:
        """The schema on one line, as text-to-SQL prompts commonly give it: ``table: column, column | ...``."""
        return " | ".join(f"{name}: {', '.join(self.table_columns(k))}" for k, name in enumerate(self.tables))


def schema_names_only(answer: str, schema: SpiderSchema) -> bool:
    """Whether every table and column ``answer`` names is ``schema``'s, as sqlglot reads it (table aliases,
    ``T1``–``T5`` included, result aliases and quoted words that name no column, which SQLite may read as strings,
    aside); False when it does not parse."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    try:
        tree = sqlglot.parse_one(answer, read="sqlite")
    except (SqlglotError, RecursionError, ValueError):
        return False
    tables = {name.lower() for name in schema.tables}
    columns = {name.lower() for _, name in schema.columns}
    aliases = {f"t{k}" for k in range(1, 6)}  # the grammar's table aliases, declared or not
    aliases |= {node.alias.lower() for node in tree.find_all(exp.Table, exp.Subquery) if node.alias}
    aliases |= {node.alias.lower() for node in tree.find_all(exp.Alias)}
    for table in tree.find_all(exp.Table):
        if table.name.lower() not in tables | aliases:
            return False
    for column in tree.find_all(exp.Column):
        quoted_string = column.this.args.get("quoted") and not column.table
        if isinstance(column.this, exp.Star) or quoted_string:
            continue
        name = column.name.lower()
        if name not in columns and name not in aliases:
            return False
        if column.table and column.table.lower() not in tables | aliases:
            return False
    return True
