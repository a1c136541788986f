"""The constraint algebra: COLLIE's grammar (Eq. 1-7) and more, as immutable values.

A ``Constraint`` is a value that functions interpret: checked (``check(c, text)`` → ``corral.verdicts.Verdict``,
its detail the per-part results), rendered (``render(c)``), printed and parsed (``str(c)``, ``parse(spec)``) and
serialised (``to_json(c)``, ``from_json(data)``). New base constraints are added with ``register_kind``.
"""

from . import _builtin  # noqa: F401  (registers count, match, regex)
from ._budget import DEFAULT_BUDGET, Budget, BudgetExceeded, Meter, enforce
from ._check import Checked, Context, Result
from ._english import Phrasing
from ._english import selection as selection_phrase
from ._json import ConstraintJSONError, from_json, to_json
from ._kinds import BaseKind, Call, get_kind, kind_of, register_kind
from ._nodes import (
    TEXT,
    UNIT,
    And,
    Constraint,
    Count,
    Expr,
    ForEach,
    Match,
    Not,
    Or,
    Pos,
    Quantifier,
    Regex,
    Rel,
    Selector,
    TextRef,
    UnitRef,
    to_text,
)
from ._parse import ConstraintSyntaxError, parse
from ._pattern import MAX_PATTERN_CHARS, MAX_PATTERN_SIZE, PatternTooLarge, bound_pattern
from ._render import render
from ._strings import encode_string
from ._verdict import check

__all__ = [
    "DEFAULT_BUDGET",
    "MAX_PATTERN_CHARS",
    "MAX_PATTERN_SIZE",
    "TEXT",
    "UNIT",
    "And",
    "BaseKind",
    "Budget",
    "BudgetExceeded",
    "Call",
    "Checked",
    "Constraint",
    "ConstraintJSONError",
    "ConstraintSyntaxError",
    "Context",
    "Count",
    "Expr",
    "ForEach",
    "Match",
    "Meter",
    "Not",
    "Or",
    "PatternTooLarge",
    "Phrasing",
    "Pos",
    "Quantifier",
    "Regex",
    "Rel",
    "Result",
    "Selector",
    "TextRef",
    "UnitRef",
    "bound_pattern",
    "check",
    "encode_string",
    "enforce",
    "from_json",
    "get_kind",
    "kind_of",
    "parse",
    "register_kind",
    "render",
    "selection_phrase",
    "to_json",
    "to_text",
]
