"""The value language a schema is lowered to: a ``Node`` is a union of alternatives ``Const``, ``Str``, ``Int``,
``Float``, ``Obj``, ``Arr``, each a set of values with a simple shape that every output can write.

Lowering (``_lower``) turns a schema into nodes; the emitters (``_yaml``, ``_xml``) write them as Lark grammars.
The limits below bound what lowering expands and what a grammar leaves open.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from ._rx import Rx

ANY_DEPTH = 2
"""How deep an untyped value (``{}``, a free ``items`` or ``additionalProperties``) may nest in YAML and XML."""
MAX_COMBINATIONS = 256
"""``allOf`` over ``anyOf`` branches multiplies out; beyond this many alternatives a schema is refused."""
MAX_NESTING = 64
"""References nested deeper than this are refused."""
MULTIPLES = 500
"""A fractional ``multipleOf`` is enumerated: this many multiples at most (from a bound, or -100 to 400 times)."""
MAX_UNIQUE_VALUES = 60
"""``uniqueItems`` is exact when the items are at most this many constants (one bit each in a parametric rule)."""
OPEN_ITEMS = 6
"""An array with no maxItems gets at most this many items (or minItems, if more), an object at most this many
extra properties (sound narrowing: a small model otherwise writes items until its token budget ends)."""


@dataclass(frozen=True)
class Node:
    """A union of alternatives (empty: no value fits)."""

    alts: tuple[Alt, ...]


@dataclass(frozen=True, eq=False)
class Const:
    """One JSON scalar, written literally (equal only to the same value of the same type: False != 0.0).

    ``partial``: one of a window of values standing for more (a fractional ``multipleOf``), so excluding these
    values would not exclude them all.
    """

    value: str | int | float | bool | None
    partial: bool = False

    def _key(self) -> tuple[str, Any]:
        return type(self.value).__name__, self.value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Const) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())


@dataclass(frozen=True)
class Str:
    """Strings of ``min_len..max_len`` code points matching every ``include`` language and none of ``exclude``.

    Languages are ``Rx`` over decoded characters; each output encodes them (escapes, entities) itself. ``outer``
    holds supersets of the ``include`` languages (None when some has none, e.g. a format), which is what
    excluding this alternative from another needs.
    """

    min_len: int = 0
    max_len: int | None = None
    include: tuple[Rx, ...] = ()
    exclude: tuple[Str, ...] = ()
    outer: tuple[Rx, ...] | None = ()


@dataclass(frozen=True)
class Int:
    """Integers written ``-?(0|[1-9][0-9]*)`` in ``lo..hi`` (None: unbounded), multiples of ``mult``, outside
    each ``exclude`` range."""

    lo: int | None = None
    hi: int | None = None
    mult: int | None = None
    exclude: tuple[tuple[int | None, int | None], ...] = ()
    last_digit: int | None = None


@dataclass(frozen=True)
class Float:
    """Numbers written with a fraction (``1.5``; XML may omit it) whose text lies in ``lo..hi`` as a decimal.

    The bounds are already moved to the nearest floats inside the schema's bounds, so the parsed float is valid
    whatever its rounding. ``exclude`` ranges are outer bounds (every text that could parse into them);
    ``nonint`` forbids integral values (1.0 is an integer to JSON Schema; so does a text whose fraction a float
    cannot hold, hence at most 15 significant digits); ``exponent`` allows ``1.5e+10``;
    ``last_digit`` and ``digits`` (significant digits, at most 15 so distinct texts are distinct floats) make
    buckets of distinct values for ``uniqueItems``.
    """

    lo: Decimal | None = None
    hi: Decimal | None = None
    exclude: tuple[tuple[Decimal | None, Decimal | None], ...] = ()
    nonint: bool = False
    exponent: bool = False
    last_digit: int | None = None
    digits: int | None = None


@dataclass(frozen=True)
class Prop:
    name: str
    node: Node
    required: bool


@dataclass(frozen=True)
class Obj:
    """Declared properties in this order, then ``extra_min..extra_max`` extra properties of ``extra``.

    Extra names are identifiers with distinct first letters (so no key repeats) and none of ``reserved``.
    ``free``: the schema put no constraint on objects (so excluding it excludes every object).
    """

    props: tuple[Prop, ...] = ()
    extra: Node | None = None
    extra_min: int = 0
    extra_max: int = 52
    reserved: frozenset[str] = frozenset()
    free: bool = False

    @property
    def can_be_empty(self) -> bool:
        return self.extra_min == 0 and not any(p.required for p in self.props)


@dataclass(frozen=True)
class Arr:
    """``prefix`` items, then ``tail`` items (None: none), ``min..max`` items in all.

    With ``hit``, the first ``hit_min..hit_max`` tail items match ``contains`` (``hit``) and the rest are
    ``miss`` items (``tail`` minus ``contains``) when ``hit_max`` is set, else ``tail`` items. With ``unique``,
    the items come from these alternatives, at most one each, and no two alternatives share a value (constants,
    or buckets such as "integers ending in 7"); the first ``unique_hits`` of them match ``contains``.
    """

    prefix: tuple[Node, ...] = ()
    tail: Node | None = None
    min: int = 0
    max: int | None = None
    hit: Node | None = None
    hit_min: int = 0
    hit_max: int | None = None
    miss: Node | None = None
    unique: tuple[Alt, ...] | None = None
    unique_hits: int = 0
    free: bool = False


Alt = Const | Str | Int | Float | Obj | Arr
EMPTY = Node(())


def node(alts: Iterable[Alt]) -> Node:
    return Node(tuple(dict.fromkeys(alts)))


Piece = tuple[dict[str, Any], str]
"""A schema's keywords without its applicators (``$ref``, ``allOf``, ...), with the schema's path."""
Flat = tuple[Piece, ...]
"""One alternative of a schema's expansion: pieces that must all hold."""
