"""Exclusion (``not``, ``maxContains``): a node minus the values of another, soundly or ``Unsupported``.

Constants are tested with the validator; other alternatives subtract outer bounds of the excluded node's
languages, which must then be exact (not narrowed): only constants, plain strings and plain numbers qualify.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ._enforcement import Unsupported
from ._model import Alt, Arr, Const, Float, Int, Node, Obj, Str, node
from ._numbers import multiple_regex
from ._rx import rx_literal
from ._values import is_number

MAX_EXCLUDED = 40
"""Number ranges one alternative may exclude before exclusion is given up (``Unsupported``)."""


def exclude(target: Node, c_node: Node, c_valid: Callable[[Any], bool]) -> Node:
    """``target`` minus the values ``c_valid`` accepts (lowered: ``c_node``)."""
    out: list[Alt] = []
    for alt in target.alts:
        if isinstance(alt, Const):
            if not c_valid(alt.value):
                out.append(alt)
            continue
        reduced: Alt | None = alt
        for c in c_node.alts:
            reduced = subtract(reduced, c) if reduced is not None else None
        if reduced is not None:
            out.append(reduced)
    return node(out)


def subtract(alt: Alt, c: Alt) -> Alt | None:
    if isinstance(c, Const) and c.partial:
        raise Unsupported("the excluded multipleOf has unbounded multiples")
    if isinstance(alt, Obj | Arr):
        if isinstance(c, type(alt)):
            if c.free:
                return None
            raise Unsupported("cannot exclude object or array constraints")
        return alt
    if isinstance(alt, Str):
        if isinstance(c, Const) and isinstance(c.value, str):
            n = len(c.value)
            return _str_minus(alt, Str(n, n, (rx_literal(c.value),)))
        if isinstance(c, Str):
            if c.outer is None or c.exclude:
                raise Unsupported("cannot exclude formats")
            if c.min_len == 0 and c.max_len is None and not c.outer:
                return None
            return _str_minus(alt, Str(c.min_len, c.max_len, c.outer))
        return alt
    if isinstance(alt, Int):
        if isinstance(c, Const) and is_number(c.value):
            v = Fraction(c.value)
            return _int_minus(alt, (int(v), int(v))) if v.denominator == 1 else alt
        if isinstance(c, Int):
            if c.mult is not None or c.exclude:
                raise Unsupported("cannot exclude multipleOf")
            return _int_minus(alt, (c.lo, c.hi))
        return alt
    if isinstance(alt, Float):
        if isinstance(c, Const) and is_number(c.value):
            f = float(c.value)
            return _float_minus(alt, (_down(math.nextafter(f, -math.inf)), _up(math.nextafter(f, math.inf))))
        if isinstance(c, Int):
            return Float(alt.lo, alt.hi, alt.exclude, True, False)
        if isinstance(c, Float):
            if c.exclude or c.nonint:
                raise Unsupported("cannot exclude a number set with exclusions")
            return _float_minus(alt, _float_outer(c))
        return alt
    return alt


def _str_minus(alt: Str, gone: Str) -> Str:
    return Str(alt.min_len, alt.max_len, alt.include, (*alt.exclude, gone), alt.outer if not alt.exclude else None)


def _int_minus(alt: Int, span: tuple[int | None, int | None]) -> Int | None:
    lo, hi = span
    if (lo is None or alt.lo is None or lo <= alt.lo) and (hi is None or alt.hi is None or hi >= alt.hi):
        return None
    if alt.mult is not None and multiple_regex(alt.mult) is None:
        raise Unsupported("cannot exclude values from a multipleOf range")
    return replace(alt, exclude=(*alt.exclude, span))


def _float_minus(alt: Float, span: tuple[Decimal | None, Decimal | None]) -> Float | None:
    if len(alt.exclude) >= MAX_EXCLUDED:
        raise Unsupported(f"more than {MAX_EXCLUDED} number ranges to exclude")
    lo, hi = span
    if (lo is None or (alt.lo is not None and lo <= alt.lo)) and (hi is None or (alt.hi is not None and hi >= alt.hi)):
        return None
    return Float(alt.lo, alt.hi, (*alt.exclude, span), alt.nonint, False)


def _float_outer(c: Float) -> tuple[Decimal | None, Decimal | None]:
    """Outer bounds of a Float alternative: one float step beyond its (already rounding-safe) bounds."""
    lo = None if c.lo is None else _down(math.nextafter(float(c.lo), -math.inf))
    hi = None if c.hi is None else _up(math.nextafter(float(c.hi), math.inf))
    return lo, hi


def _down(f: float) -> Decimal:
    """A short decimal at most ``f`` (17 significant digits, rounded toward minus infinity)."""
    return _short(f, "ROUND_FLOOR")


def _up(f: float) -> Decimal:
    return _short(f, "ROUND_CEILING")


def _short(f: float, rounding: str) -> Decimal:
    exact = Decimal(f)
    if exact == 0:
        return exact
    places = 17 - exact.adjusted() - 1
    return exact.quantize(Decimal(1).scaleb(-places), rounding=rounding)
