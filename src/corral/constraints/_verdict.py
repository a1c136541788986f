"""Checking: a constraint and a text give Corral's one ``Verdict``, whose violations (one per failed part) and
English feedback are worked out from the evidence only when first read."""

from __future__ import annotations

from functools import partial
from operator import itemgetter

from corral.text import Level, Segmentation
from corral.verdicts import Explanation, Verdict, Violation

from ._budget import DEFAULT_BUDGET, Budget, BudgetExceeded, Meter
from ._check import Checked, Context, evaluate, parts_of, planned
from ._feedback import feedback, part_message
from ._kinds import kind_of
from ._nodes import Constraint, Expr, ForEach, Not


def check(constraint: Constraint | Expr, text: str, profile: str | None = None,
          budget: Budget = DEFAULT_BUDGET) -> Verdict[Checked]:
    """Check ``text`` against ``constraint``; ``profile`` overrides the constraint's own profile. Never raises on
    any string, and never runs past ``budget``: a check that would is *not decided* (``verdict.undecided`` says
    why; it does not pass and scores 0).

    The verdict's score is the share of parts met (1.0 when there are none); its violations, one per failed part,
    and its feedback are computed when first read; ``detail`` is the ``Checked`` evidence (None when undecided)."""
    if not isinstance(constraint, Constraint):
        constraint = Constraint(constraint)
    if not isinstance(text, str):
        raise TypeError(f"check() needs the text as a str, got {type(text).__name__}")
    if len(text) > budget.max_chars:
        return Verdict.not_decided(f"the text is {len(text):,} characters; the limit is {budget.max_chars:,}")
    made = planned(constraint.body)  # None the first time: evaluated, not planned
    seg = Segmentation(text, profile or constraint.profile, made[1] if made is not None else _NOTHING)
    try:
        ctx = Context(seg, constraint.level, Meter(budget))
        result = made[0](ctx) if made is not None else evaluate(constraint.body, ctx)
    except BudgetExceeded as exc:
        return Verdict.not_decided(exc.reason)
    except RecursionError:
        return Verdict.not_decided("the constraint is nested too deeply to evaluate")
    parts = tuple(parts_of(result))
    score = sum(map(_passed, parts)) / len(parts) if parts else 1.0
    checked = Checked.of(constraint, text, result, parts)
    return Verdict.lazy(result.passed, score, partial(explain, checked), detail=checked)


_passed = itemgetter(1)
_NOTHING: frozenset[Level] = frozenset()


def explain(checked: Checked) -> Explanation:
    """One violation per failed part (rule: its kind and level; path: the part; expected and seen), and the
    feedback English that merges what can be said together."""
    violations = tuple(
        Violation(rule=rule(part.constraint), message=part_message(part, checked.constraint.level),
                  path=str(part.constraint), span=part.spans[0] if part.spans else None,
                  expected=part.expected or None, seen=part.observed)
        for part in checked.failed)
    return Explanation(violations, feedback(checked))


def rule(node: Expr) -> str:
    """A part's rule name in a violation: ``count:word``, ``match:sentence``, ``not``, ``for_each``."""
    if isinstance(node, Not):
        return "not"
    if isinstance(node, ForEach):
        return "for_each"
    kind = kind_of(node)
    name = kind.name if kind is not None else type(node).__name__.lower()
    level = getattr(node, "level", None)
    return f"{name}:{level.value}" if isinstance(level, Level) else name
