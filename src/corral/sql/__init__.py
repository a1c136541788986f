"""SQL: untrusted queries run read-only, and judged against a gold query by execution and by exact set match.

``run_query(database, query)`` runs a query read-only against a SQLite file, refused before it runs if it would
write, attach or change anything, and cut off in time, rows and bytes (``QueryResult``; nothing raises).
``exact_set_match(prediction, gold)`` is Spider's exact set match without values, on sqlglot's syntax trees.
``execution_match(prediction, gold, databases)`` is execution accuracy on a distilled test suite (Zhong, Yu and
Klein, EMNLP 2020): ``distinguishing_set`` generates databases for a schema (``SpiderSchema``) from its gold
queries and keeps the few that tell the gold from its near variants (``near_variants``, ``value_hints``).
``schema_names_only`` says whether a query names only a schema's tables and columns.

The modules: ``_sandbox`` (running), ``_exact_set`` (matching), ``_schema``, ``_variants`` (gold queries read
with sqlglot: their values and near variants), ``_test_suite`` (databases generated and chosen; execution match).
"""

from typing import TYPE_CHECKING

from ._exact_set import exact_set_match, query_shape
from ._sandbox import MAX_QUERY_CHARS, QueryResult, run_query
from ._schema import SpiderSchema, schema_names_only

if TYPE_CHECKING:
    from ._test_suite import (
        CANDIDATES,
        KEEP,
        MAX_ROWS,
        MIN_ROWS,
        DatabaseSet,
        GoldCoverage,
        Match,
        distinguishing_set,
        execution_match,
        generate_database,
        informative,
        results_equal,
        sqlite_types,
        table_keys,
    )
    from ._variants import ValueHints, has_top_level_order, near_variants, normalise, parse_query, value_hints

# The names of ``_test_suite`` and ``_variants`` load their module on first use (PEP 562): both import sqlglot
# (``_exact_set`` and ``_schema`` import it where they use it), and every suite imports this package, so a run
# that reads no SQL should not load it.
_WHERE = {
    **dict.fromkeys(("CANDIDATES", "KEEP", "MAX_ROWS", "MIN_ROWS", "DatabaseSet", "GoldCoverage", "Match",
                     "distinguishing_set", "execution_match", "generate_database", "informative", "results_equal",
                     "sqlite_types", "table_keys"), "._test_suite"),
    **dict.fromkeys(("ValueHints", "has_top_level_order", "near_variants", "normalise", "parse_query",
                     "value_hints"), "._variants"),
}


def __getattr__(name: str) -> object:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(where, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "CANDIDATES",
    "KEEP",
    "MAX_QUERY_CHARS",
    "MAX_ROWS",
    "MIN_ROWS",
    "DatabaseSet",
    "GoldCoverage",
    "Match",
    "QueryResult",
    "SpiderSchema",
    "ValueHints",
    "distinguishing_set",
    "exact_set_match",
    "execution_match",
    "generate_database",
    "has_top_level_order",
    "informative",
    "near_variants",
    "normalise",
    "parse_query",
    "query_shape",
    "results_equal",
    "run_query",
    "schema_names_only",
    "sqlite_types",
    "table_keys",
    "value_hints",
]
