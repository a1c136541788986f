"""The constraint algebra as values: selectors, base constraints, compositions, and the top-level Constraint.

Everything here is a frozen, hashable dataclass with no behaviour of its own beyond operators and its textual form
(``str``): the functions that interpret a constraint (``check``, ``render``, ``to_json``) live in their own modules
and import these values, never the other way round, in the way outlines keeps ``Term`` separate from ``to_regex``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from corral.text import Level

from ._kinds import kind_of


class Rel(StrEnum):
    """Relations of the grammar (Eq. 6) and Corral's string relations."""

    EQ = "=="
    NE = "!="
    LT = "<"
    GT = ">"
    LE = "<="
    GE = ">="
    CONTAINS = "contains"
    STARTSWITH = "startswith"
    ENDSWITH = "endswith"

    @property
    def numeric(self) -> bool:
        return self in _NUMERIC

    @property
    def for_strings(self) -> bool:
        return self in _STRING


_NUMERIC = frozenset({Rel.EQ, Rel.NE, Rel.LT, Rel.GT, Rel.LE, Rel.GE})
_STRING = frozenset({Rel.EQ, Rel.NE, Rel.CONTAINS, Rel.STARTSWITH, Rel.ENDSWITH})


class Quantifier(StrEnum):
    """How many units of a for-each must satisfy its body."""

    ALL = "all"
    ANY = "any"
    AT_LEAST = "at_least"
    AT_MOST = "at_most"
    EXACTLY = "exactly"

    @property
    def takes_k(self) -> bool:
        return self in (Quantifier.AT_LEAST, Quantifier.AT_MOST, Quantifier.EXACTLY)


# ----------------------------------------------------------------------------------------------- selectors
@dataclass(frozen=True, slots=True)
class TextRef:
    """ξ: the whole generated text."""

    def __str__(self) -> str:
        return "text"


@dataclass(frozen=True, slots=True)
class UnitRef:
    """The unit bound by the innermost for-each (``unit`` in the textual form)."""

    def __str__(self) -> str:
        return "unit"


@dataclass(frozen=True, slots=True)
class Pos:
    """``pos(of, level, index)``: the index-th level unit of ``of``; 1-based, negative counts from the end."""

    of: Selector
    level: Level
    index: int

    def __post_init__(self) -> None:
        if self.index == 0:
            raise ValueError("pos() index is 1-based: use 1 for the first unit and -1 for the last, not 0")

    def __str__(self) -> str:
        return f"pos({self.of}, {self.level}, {self.index})"


Selector = TextRef | UnitRef | Pos
TEXT = TextRef()
UNIT = UnitRef()


# ------------------------------------------------------------------------------------------ expressions
class Expr:
    """Base of every constraint node: operators for composition and conveniences for the interpreters."""

    __slots__ = ()
    kind: ClassVar[str]

    def __and__(self, other: Expr) -> And:
        return And(_flatten(And, self) + _flatten(And, other))

    def __or__(self, other: Expr) -> Or:
        return Or(_flatten(Or, self) + _flatten(Or, other))

    def __invert__(self) -> Not:
        return Not(self)

    def __str__(self) -> str:
        return to_text(self)


def _flatten(cls: type, expr: Expr) -> tuple[Expr, ...]:
    return expr.parts if isinstance(expr, cls) else (expr,)  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class And(Expr):
    """All parts hold."""

    kind: ClassVar[str] = "and"
    parts: tuple[Expr, ...]

    def __post_init__(self) -> None:
        _require_parts(self)



@dataclass(frozen=True, slots=True)
class Or(Expr):
    """At least one part holds."""

    kind: ClassVar[str] = "or"
    parts: tuple[Expr, ...]

    def __post_init__(self) -> None:
        _require_parts(self)



def _require_parts(node: And | Or) -> None:
    if not isinstance(node.parts, tuple):
        object.__setattr__(node, "parts", tuple(node.parts))
    if len(node.parts) < 2:
        raise ValueError(f"{node.kind} needs at least two parts, got {len(node.parts)}")


@dataclass(frozen=True, slots=True)
class Not(Expr):
    """The part does not hold."""

    kind: ClassVar[str] = "not"
    part: Expr



@dataclass(frozen=True, slots=True)
class ForEach(Expr):
    """A quantifier over the ``level`` units of ``of``: ``all(text, sentence, count(unit, word) >= 10)``.

    ``all`` over zero units holds (as in COLLIE); ``k`` is required by at_least / at_most / exactly.
    """

    kind: ClassVar[str] = "foreach"
    quantifier: Quantifier
    of: Selector
    level: Level
    body: Expr
    k: int | None = None

    def __post_init__(self) -> None:
        if self.quantifier.takes_k != (self.k is not None):
            need = "needs a count k" if self.quantifier.takes_k else "takes no count k"
            raise ValueError(f"quantifier {self.quantifier.value} {need}")
        if self.k is not None and self.k < 0:
            raise ValueError(f"quantifier count must be >= 0, got {self.k}")



@dataclass(frozen=True, slots=True)
class Count(Expr):
    """``count(of, level[, string | per_level]) rel value`` (Eq. 3).

    * no ``string`` and no ``per``: how many ``level`` units ``of`` has;
    * ``string``: how many ``level`` units of ``of`` equal ``string`` (after the profile's normalisation);
    * ``per``: the count of ``level`` units in each ``per`` unit of ``of``. When ``per`` is the level of
      ``of`` itself (``count(text, word, sentence)`` for a sentence) that is one unit, the whole of ``of``.
    """

    kind: ClassVar[str] = "count"
    of: Selector
    level: Level
    rel: Rel
    value: int
    string: str | None = None
    per: Level | None = None
    case_sensitive: bool = False

    def __post_init__(self) -> None:
        if not self.rel.numeric:
            raise ValueError(f"count compares numbers; relation {self.rel.value!r} is for strings")
        if self.string is not None and self.per is not None:
            raise ValueError("count takes either a string to count or a per-level, not both")



@dataclass(frozen=True, slots=True)
class Match(Expr):
    """``pos(text, word, 3) == 'soft'`` or ``text contains 'x'``: a selected unit compared with a string.

    A missing unit (index out of range) satisfies only ``!=`` (as in COLLIE).
    """

    kind: ClassVar[str] = "match"
    of: Selector
    rel: Rel
    value: str
    case_sensitive: bool = False

    def __post_init__(self) -> None:
        if not self.rel.for_strings:
            raise ValueError(f"relation {self.rel.value!r} compares numbers; strings take ==, !=, contains, "
                             "startswith or endswith")



@dataclass(frozen=True, slots=True)
class Regex(Expr):
    """``regex(of, 'pattern')``: the selected unit matches the pattern (``search``; anchor it yourself).

    A registered base constraint like any other, and the worked example of extending Corral.
    """

    kind: ClassVar[str] = "regex"
    of: Selector
    pattern: str

    def __post_init__(self) -> None:
        import regex

        from ._pattern import bound_pattern

        if not isinstance(self.pattern, str):
            raise ValueError(f"a regular expression must be a string, not {type(self.pattern).__name__}")
        bound_pattern(self.pattern)  # before compiling: a huge repeat count takes gigabytes to compile
        try:
            regex.compile(self.pattern)
        except regex.error as exc:
            raise ValueError(f"invalid regular expression {self.pattern!r}: {exc}") from None



# ------------------------------------------------------------------------------------------- top level
@dataclass(frozen=True, slots=True)
class Constraint:
    """A constraint specification (Eq. 1): an optional generation level, the body, and a profile.

    ``level`` says what the model must produce (a word, a sentence, ...); it is the level of ``text`` inside
    the body. ``profile`` names the segmentation used to check it (``default`` or ``collie-v1``).
    """

    body: Expr
    level: Level | None = None
    profile: str = "default"

    def __str__(self) -> str:
        return to_text(self)


# ------------------------------------------------------------------------------------------- textual form
def to_text(node: Constraint | Expr) -> str:
    """The compact textual form, ``str(constraint)``; ``parse`` reads it back to an equal value."""
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

