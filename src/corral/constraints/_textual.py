"""The compact textual form, printed: ``str(constraint)``; ``parse`` reads it back to an equal value."""

from __future__ import annotations

from ._kinds import kind_of
from ._nodes import And, Constraint, Expr, ForEach, Not, Or


def to_text(node: Constraint | Expr) -> str:
    if isinstance(node, Constraint):
        prefix = "" if node.profile == "default" else f"[{node.profile}] "
        level = f"{node.level.value}: " if node.level is not None else ""
        return f"{prefix}{level}{to_text(node.body)}"
    kind = kind_of(node)
    if kind is not None:
        return kind.to_text(node)
    if isinstance(node, And):
        return " and ".join(_wrap(part, (And, Or)) for part in node.parts)
    if isinstance(node, Or):
        return " or ".join(_wrap(part, (Or,)) for part in node.parts)
    if isinstance(node, Not):
        return f"not {_wrap(node.part, (And, Or))}"
    if isinstance(node, ForEach):
        k = f"{node.k}, " if node.k is not None else ""
        return f"{node.quantifier.value}({k}{node.of}, {node.level.value}, {to_text(node.body)})"
    raise TypeError(f"not a constraint node: {node!r}")


def _wrap(node: Expr, needs_parens: tuple[type, ...]) -> str:
    text = to_text(node)
    return f"({text})" if isinstance(node, needs_parens) else text
