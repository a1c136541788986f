"""A SQLite grammar per Spider database: BenchCLAMP's SQL SCFG (source side) with the database's own names.

BenchCLAMP §3.2 constrains SQL with a general SQLite grammar (adapted from the ANTLR grammars-v4 one) plus, per
example, rules that name the database's tables and columns ("parsing without guards"). The shipped ``.scfg`` files
(``data/benchclamp_sql_grammar.jsonl.gz``) are converted by ``corral.grammars.scfg`` on their source side, which
takes SQL as people write it: keywords in any case, any spacing. Per database this module adds or replaces:

- ``table_name``: each table, besides the grammar's aliases ``T1``–``T5``; ``column_name``: each column of any table
  (a CFG cannot follow which alias stands for which table). A name is written as the schema has it or in one of
  four other common cases (``name_rule``), unquoted when SQLite reads it bare and also in double quotes, backticks
  or brackets; a name SQLite cannot read bare (``Official_ratings_(millions)``) is only quoted.
- ``schema_name`` is ``main``; ``possibly_qualified_column_name`` is ``[table .] column``.
- Places where the SCFG allows what SQLite reads differently or refuses are closed (found by running texts
  sampled from the grammar through SQLite, and by the model):
  - result-column aliases are dropped: the SCFG's alias is any identifier, keywords included, so
    ``SELECT count(*) from`` was a complete query with ``from`` its alias (Spider's gold names none);
  - two-character operators take no space inside (``< =``); ``*``, ``/`` and ``%`` no longer carry an operand of
    their own (``2 *.5 age``); ``IN`` is no plain binary operator (SQLite reads ``5 IN is_male`` as a table);
  - strings hold no control characters (a NUL ends SQLite's text); bind parameters (nothing to bind), blob
    literals (``X'..'`` must be hex), ``REGEXP`` and ``MATCH`` (no function without an extension) are dropped;
  - no unary ``+`` or ``-`` (``5--x`` starts a comment; Spider writes no negative number);
  - an aggregate takes one argument and only ``count`` takes ``*``; window clauses are dropped;
  - the postfix ``ISNULL``, ``NOTNULL`` and ``NOT NULL`` are dropped (``IS NULL`` and ``IS NOT NULL`` stay):
    sqlglot, which reads answers for exact set match, cannot read ``2 ISNULL % x`` or ``x NOT NULL + 1``;
  - ``x IN (...)`` only: ``x IN table`` is dropped (Spider never writes it, and sqlglot, which reads answers for
    exact set match, cannot read it); ``LIMIT`` takes a number, as every gold query writes it;
  - a string holds at most 100 characters (Spider's longest has 30), and subqueries nest at most two deep
    (``SUBQUERY_DEPTH``): cut off at its token budget, a query is no query;
  - tables named ``sqlite_*`` are SQLite's own bookkeeping (Spider lists ``sqlite_sequence``) and not offered.
- A query is one ``SELECT`` statement (optionally ending in ``;``) on one line: the grammar's lists of
  statements, ``EXPLAIN`` and line breaks are dropped, since a prediction is run as one statement and read as the
  first line of the answer. It may end with a line break, after which nothing may follow: a few-shot model ends
  its answer that way (``Computer: SELECT ...`` then a new line), and without it keeps writing until the budget.
- The grammar's three other places for a free identifier are narrowed so a query names nothing the database does
  not have: ``x IN table_function(...)`` is dropped (and ``x IN table``, above), ``INDEXED BY`` takes no index
  name (``NOT INDEXED`` stays), and ``COLLATE`` takes SQLite's built-in collations.
"""

from __future__ import annotations

import re
from functools import cache
from importlib.resources import files

from corral.grammars import Grammar
from corral.grammars.scfg import (
    Alternative,
    Scfg,
    Symbol,
    bound_depth,
    fold_lexemes,
    read_scfg,
    regex_escape,
    scfg_to_lark,
)
from corral.jsonl import iter_jsonl
from corral.sql import SpiderSchema

__all__ = ["benchclamp_sql_scfg", "name_rule", "sql_grammar"]

FILE = "benchclamp_sql_grammar.jsonl.gz"
_BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LEXICAL = re.compile(r"[A-Z][A-Z0-9_]*")
"""The SCFG's lexer rules (keywords, operators, literals), each folded into one lexeme."""
_QUOTES = (('"', '"'), ("`", "`"), ("[", "]"))
_OPERATORS = {"PIPE2": "||", "LT2": "<<", "GT2": ">>", "LT_EQ": "<=", "GT_EQ": ">=", "EQ": "==", "NOT_EQ1": "!=",
              "NOT_EQ2": "<>"}


@cache
def benchclamp_sql_scfg() -> Scfg:
    """BenchCLAMP's SQLite SCFG as shipped."""
    rows = iter_jsonl(files("corral.suites.clamp").joinpath("data", FILE))
    return read_scfg((row["file"], row["text"]) for row in rows)


def _spelled(name: str) -> Alternative:
    """``name`` in any letter case: each letter through the grammar's own case-blind letter rules (``a`` takes
    ``a`` or ``A``), anything else as itself."""
    return tuple(Symbol("name", char.lower()) if "a" <= char.lower() <= "z" else Symbol("literal", char)
                 for char in name)


def name_rule(name: str) -> list[Alternative]:
    """The ways a query may write the identifier ``name``, each one lexeme: as the schema writes it, in lower or
    upper case, with its first letter's case changed, or capitalised (SQLite ignores case; Spider's gold writes
    ``age`` for ``Age``, ``FLIGHTS`` and ``Flights`` for ``flights``, ``petType`` for ``PetType``, never ``aGe``),
    bare if SQLite reads it bare, and quoted. Any case at all would let a small model spell ``COnCeRt`` token by
    token."""
    forms = list(dict.fromkeys((name, name.lower(), name.upper(), name[:1].swapcase() + name[1:],
                                name.lower().capitalize())))
    quoted = [left + form + right for form in forms for left, right in _QUOTES
              if left not in name and right not in name]
    return [(Symbol("regex", regex_escape(text)),) for text in (forms if _BARE.fullmatch(name) else []) + quoted]


def _names(names: list[str]) -> list[Alternative]:
    unique = sorted({name.lower(): name for name in names}.values())
    return [alternative for name in unique for alternative in name_rule(name)]


def _keywords(*words: str) -> list[Alternative]:
    return [_spelled(word) for word in words]


def _ref(*names: str) -> Alternative:
    return tuple(Symbol("name", name.rstrip("?"), "?" if name.endswith("?") else "") for name in names)


LIST_LIMITS: dict[str, tuple[tuple[str, ...], int]] = {
    "comma_result_column_star": (("ws_star", "COMMA", "ws_star", "result_column"), 7),
    "comma_table_or_subquery_star": (("ws_star", "COMMA", "ws_star", "table_or_subquery"), 4),
    "join_star": (("ws", "join_operator", "table_or_subquery", "ws_join_constraint?"), 4),
    "comma_expr_star": (("ws_star", "COMMA", "ws_star", "expr"), 7),
    "compound_select_star": (("ws", "compound_operator", "ws", "select_core"), 3),
}
"""How many more items each list may take (eight result columns, five tables, three set operations): a small
model otherwise repeats ``, SINGER_IN_CONCERT`` until its token budget ends, and a query cut off is not a query.
Every Spider dev gold query fits within them (the coverage test says so)."""


SUBQUERY_DEPTH = 2
"""A query may hold subqueries two deep (Spider's gold holds at most one inside another); a small model otherwise
opens ``(SELECT * FROM (SELECT * FROM (...`` until its budget ends."""


def _bounded(unit: tuple[str, ...], most: int, again: tuple[str, ...] | None = None,
             more: int = 0) -> list[Alternative]:
    """``unit`` repeated 0 to ``most`` times; with ``again``, ``unit`` once then ``again`` 0 to ``more`` times."""
    if again is not None:
        return [_ref(*unit, *(again * k)) for k in range(more + 1)]
    return [_ref(*(unit * k)) for k in range(most + 1)]


def _without(scfg: Scfg, name: str, *used: str) -> list[Alternative]:
    """``name``'s source alternatives except those that use any of ``used``."""
    return [alt for alt in scfg.source[name] if not any(s.kind == "name" and s.text in used for s in alt)]


@cache
def _grammar(schema: SpiderSchema, lexemes: bool) -> Grammar:
    scfg = benchclamp_sql_scfg()
    replace: dict[str, list[Alternative]] = {
        "column_name": _names([name for _, name in schema.columns]),
        "schema_name": _keywords("main"),
        "possibly_qualified_column_name": [_ref("table_dot?", "column_name")],
        # the alternatives that name no table function / no index
        "ws_in_clause": _without(scfg, "ws_in_clause", "table_function_name", "table_name"),
        "indexed_or_not": _without(scfg, "indexed_or_not", "index_name"),
        "collation_name": _keywords("BINARY", "NOCASE", "RTRIM"),
        "parse": [_ref("ws_star", "sql_stmt", "ws_star_empty", "end?"),
                  _ref("ws_star", "sql_stmt", "ws_star", "SCOL", "end?")],
        "end": [(Symbol("literal", "\n"),)],
        "sql_stmt": [_ref("sql_stmt_tail")],
        # lists of bounded length (see LIST_LIMITS)
        **{star: _bounded(unit, most) for star, (unit, most) in LIST_LIMITS.items()},
        "ordering_term_plus": _bounded(("ordering_term",), 1, ("ws_star", "COMMA", "ws_star", "ordering_term"),
                                       LIST_LIMITS["comma_expr_star"][1]),
        # whole lexemes where the SCFG spells them a character at a time (see corral.grammars.scfg.fold_lexemes)
        "ws": [(Symbol("regex", "[ \t]+"),)],
        "ws_star": [(), _ref("ws")],
        "ws_star_empty": [(), _ref("ws")],
        "NUMERIC_LITERAL": [(Symbol("regex", r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|0x[0-9a-fA-F]+"),)],
        "STRING_LITERAL": [(Symbol("regex", r"'[^'\x00-\x1f]{0,100}'|\"[^\"\x00-\x1f]{0,100}\""),)],
        "IDENTIFIER": [(Symbol("regex", "[A-Za-z_][A-Za-z0-9_]*"),)],
        # the holes of the module doc, closed
        "result_column": [*_without(scfg, "result_column", "expr"), _ref("expr")],
        "expr_base_case": _without(scfg, "expr_base_case", "BIND_PARAMETER"),
        "literal_value_complex": _without(scfg, "literal_value_complex", "BLOB_LITERAL"),
        "like_glob_regex_match": _keywords("LIKE", "GLOB"),
        "expr_compound": _without(scfg, "expr_compound", "nullness"),
        "non_binop_expr_compound": _without(scfg, "non_binop_expr_compound", "nullness"),
        "limit_stmt": [_ref("LIMIT_", "ws", "NUMERIC_LITERAL"),
                       _ref("LIMIT_", "ws", "NUMERIC_LITERAL", "ws", "OFFSET_", "ws", "NUMERIC_LITERAL")],
        "expr_binop": _without(scfg, "expr_binop", "MATCH_", "REGEXP_", "IN_"),
        "unary_operator": [_ref("TILDE"), _ref("NOT_")],
        "aggregate_function_invocation": [
            _ref("aggregate_func", "ws_star", "OPEN_PAR", "ws_star", "distinct_ws?", "expr", "ws_star", "CLOSE_PAR"),
            _ref("COUNT_", "ws_star", "OPEN_PAR", "ws_star", "STAR", "ws_star", "CLOSE_PAR")],
        "binary_operator": [_ref("ws_star", "star_div_mod", "ws_star"),
                            *_without(scfg, "binary_operator", "star_div_mod")],
        **{name: [(Symbol("literal", text),)] for name, text in _OPERATORS.items()},
    }
    rules = {name: list(alternatives) for name, alternatives in scfg.source.items()}
    tables = [name for name in schema.tables if not name.lower().startswith("sqlite_")]
    rules["table_name"] = rules.get("table_name", []) + _names(tables)
    rules.update(replace)
    rules = bound_depth(rules, "select_stmt", SUBQUERY_DEPTH)
    if lexemes:
        rules = fold_lexemes(rules, [name for name in rules if _LEXICAL.fullmatch(name)])
    source = scfg_to_lark(Scfg(rules, rules, scfg.where), "source")
    return Grammar.lark(source, description=f"SQLite over the tables and columns of {schema.db_id}")


def sql_grammar(schema: SpiderSchema, lexemes: bool = True) -> Grammar:
    """The SQLite grammar for queries over ``schema``'s database (see the module doc); cached per schema.
    ``lexemes=False`` leaves the lexer rules a character at a time, as the SCFG writes them: the same language,
    kept only as the baseline ``benchmarks/sql_grammar.py`` measures the folded grammar against."""
    return _grammar(schema, lexemes)
