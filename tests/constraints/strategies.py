"""Hypothesis strategies for constraints: every node kind, nested selectors, quantifiers, odd strings."""

from __future__ import annotations

from hypothesis import strategies as st

from corral.constraints import (
    TEXT,
    UNIT,
    And,
    Constraint,
    Count,
    ForEach,
    Match,
    Not,
    Or,
    Pos,
    Quantifier,
    Regex,
    Rel,
)
from corral.text import Level

levels = st.sampled_from(list(Level))
indices = st.integers(-6, 6).filter(lambda i: i != 0)
numeric_rels = st.sampled_from([Rel.EQ, Rel.NE, Rel.LT, Rel.GT, Rel.LE, Rel.GE])
string_rels = st.sampled_from([Rel.EQ, Rel.NE, Rel.CONTAINS, Rel.STARTSWITH, Rel.ENDSWITH])
# any code point, surrogates and control characters included: values must survive printing and parsing
values = st.text(alphabet=st.characters(codec=None, categories=None), max_size=12) | st.sampled_from(
    ["soft", "I sit.", "it's", 'say "hi"', "back\\slash", "", "don't", "\n", "\ud800"])
patterns = st.sampled_from(["^[A-Z]", r"\d+", "(?i)soft", "end$", r"\bthe\b", "'quoted'"])


def selectors(in_quantifier: bool) -> st.SearchStrategy:
    roots = st.just(TEXT) | (st.just(UNIT) if in_quantifier else st.nothing())
    return st.recursive(roots, lambda inner: st.builds(Pos, inner, levels, indices), max_leaves=3)


def bases(in_quantifier: bool) -> st.SearchStrategy:
    sel = selectors(in_quantifier)
    count = st.builds(
        lambda of, level, rel, value, extra, case: Count(
            of, level, rel, value,
            string=extra if isinstance(extra, str) and not isinstance(extra, Level) else None,
            per=extra if isinstance(extra, Level) else None,
            case_sensitive=case),
        sel, levels, numeric_rels, st.integers(0, 40), st.none() | values | levels, st.booleans())
    match = st.builds(Match, sel, string_rels, values, st.booleans())
    regex = st.builds(Regex, sel, patterns)
    return count | match | regex


def _for_each(q: Quantifier, of, level: Level, body, k: int) -> ForEach:
    return ForEach(q, of, level, body, k if q.takes_k else None)


def _compose(children: st.SearchStrategy, in_quantifier: bool, inner: st.SearchStrategy) -> st.SearchStrategy:
    many = st.lists(children, min_size=2, max_size=3).map(tuple)
    return st.one_of(
        many.map(And), many.map(Or), children.map(Not),
        st.builds(_for_each, st.sampled_from(list(Quantifier)), selectors(in_quantifier), levels, inner,
                  st.integers(0, 4)),
    )


# depth-limited without nested st.recursive: level 0 are bases; each level composes the one below
_outside = [bases(False)]
_inside = [bases(True)]
for _ in range(3):
    _outside.append(_outside[0] | _compose(_outside[-1], False, _inside[-1]))
    _inside.append(_inside[0] | _compose(_inside[-1], True, _inside[-1]))


def expressions(in_quantifier: bool = False, depth: int = 3) -> st.SearchStrategy:
    return (_inside if in_quantifier else _outside)[depth]


constraints = st.builds(Constraint, expressions(), st.none() | levels, st.sampled_from(["default", "collie-v1"]))
