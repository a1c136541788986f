"""Numbers: the bounds a schema's keywords put on integers and floats, and regexes of number texts in a range.

Bounds are exact for integers and rounding-safe for floats (every text inside parses to a float inside). The
regexes are flat unions (llguidance allows at most 250 nested groups, and bounds may have hundreds of digits)
of canonical texts: no ``-0``, no leading zeros.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ._lark import term


def int_bounds(pieces: list[tuple[str, Any]]) -> tuple[int | None, int | None]:
    """The integer range of minimum/maximum/exclusive* keywords (any number type), exactly."""
    lo: int | None = None
    hi: int | None = None
    for keyword, value in pieces:
        v = Fraction(value)
        if keyword == "minimum":
            lo = max_known(lo, math.ceil(v))
        elif keyword == "exclusiveMinimum":
            lo = max_known(lo, math.floor(v) + 1)
        elif keyword == "maximum":
            hi = min_known(hi, math.floor(v))
        elif keyword == "exclusiveMaximum":
            hi = min_known(hi, math.ceil(v) - 1)
    return lo, hi


def float_bounds(pieces: list[tuple[str, Any]]) -> tuple[Decimal | None, Decimal | None] | None:
    """Decimal text bounds whose every text parses to a float within the schema's bounds (None: none fits).

    Rounding to the nearest float is monotonic, so a text at most ``repr(f)`` parses to at most ``f``: the bound
    becomes the largest float not above the maximum (below it when exclusive), likewise for the minimum.
    """
    lo: Decimal | None = None
    hi: Decimal | None = None
    for keyword, value in pieces:
        strict = keyword.startswith("exclusive")
        if keyword in ("minimum", "exclusiveMinimum"):
            f = _float_at_least(Fraction(value), strict)
            if f is None:
                return None
            lo = max_known(lo, Decimal(repr(f)))
        else:
            f = _float_at_most(Fraction(value), strict)
            if f is None:
                return None
            hi = min_known(hi, Decimal(repr(f)))
    if lo is not None and hi is not None and lo > hi:
        return None
    return lo, hi


def _float_at_least(bound: Fraction, strict: bool) -> float | None:
    try:
        f = float(bound)
    except OverflowError:
        return None if bound > 0 else -math.inf
    while math.isfinite(f) and (Fraction(f) < bound or (strict and Fraction(f) == bound)):
        f = math.nextafter(f, math.inf)
    return f if math.isfinite(f) else None


def _float_at_most(bound: Fraction, strict: bool) -> float | None:
    f = _float_at_least(-bound, strict)
    return None if f is None else -f


def max_known(a, b):
    """The larger of two bounds, None being no bound."""
    return b if a is None else max(a, b)


def min_known(a, b):
    return b if a is None else min(a, b)


def uint_range(lo: int, hi: int | None) -> str:
    """Rust regex for the canonical decimal naturals in ``lo..hi`` (``hi`` None: unbounded), one flat union
    (llguidance allows at most 250 nested groups, and bounds may have hundreds of digits)."""
    parts = []
    width = len(str(lo))
    top = len(str(hi)) if hi is not None else width
    for n in range(width, top + 1):
        a = max(lo, 0 if n == 1 else 10 ** (n - 1))
        b = 10**n - 1 if hi is None or n < top else hi
        if a <= b:
            parts += _fixed(str(a).zfill(n), str(b).zfill(n))
    if hi is None:
        parts.append(f"[1-9][0-9]{{{top},}}")
    return "(?:" + "|".join(parts) + ")" if parts else ""


def _fixed(a: str, b: str) -> list[str]:
    """Digit strings of this width between ``a`` and ``b``, as regexes without groups (prefix, class, any)."""
    if not a:
        return [""]
    if a[0] == b[0]:
        return [a[0] + rest for rest in _fixed(a[1:], b[1:])]
    n = len(a) - 1
    tail = f"[0-9]{{{n}}}" if n else ""
    if a[1:] == "0" * n and b[1:] == "9" * n:
        return [f"[{a[0]}-{b[0]}]{tail}"]
    parts = [a[0] + rest for rest in _fixed(a[1:], "9" * n)]
    if int(a[0]) + 1 <= int(b[0]) - 1:
        parts.append(f"[{int(a[0]) + 1}-{int(b[0]) - 1}]{tail}")
    return parts + [b[0] + rest for rest in _fixed("0" * n, b[1:])]


def multiple_regex(k: int) -> str | None:
    """Integer texts that are multiples of ``k`` when ``k`` divides 1000 (the last three digits decide)."""
    if 1000 % k:
        return None
    width = next(j for j in range(4) if 10**j % k == 0)
    if width == 0:
        return "-?[0-9]+"
    endings = [str(n).zfill(width) for n in range(0, 10**width, k)]
    short = [str(n) for n in range(0, 10 ** (width - 1), k)]
    return f"-?(?:[0-9]*(?:{'|'.join(endings)})|{'|'.join(short)})"


def int_regex(lo: int | None, hi: int | None) -> str | None:
    """Canonical integer texts (no ``-0``, no leading zeros) in ``lo..hi``; None if the range is empty."""
    if lo is not None and hi is not None and lo > hi:
        return None
    parts = []
    if hi is None or hi >= 0:
        parts.append(uint_range(max(lo or 0, 0), hi))
    if lo is None or lo < 0:
        top = None if lo is None else -lo
        parts.append("-" + uint_range(max(1, -hi if hi is not None and hi < 0 else 1), top))
    return "(?:" + "|".join(parts) + ")"


UDEC = "(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?"


def split_decimal(d: Decimal) -> tuple[str, str]:
    text = format(d, "f")
    whole, _, frac = text.partition(".")
    return whole, frac.rstrip("0")


def udec_ge(d: Decimal) -> str:
    """Unsigned decimal texts (``UDEC``) with a value of at least ``d`` (``d >= 0``)."""
    whole, frac = split_decimal(d)
    greater = uint_range(int(whole) + 1, None) + "(?:\\.[0-9]+)?"
    if not frac:
        same = whole + "(?:\\.[0-9]+)?"
    else:
        options = [re.escape(frac) + "[0-9]*"]
        options += [frac[:k] + f"[{int(frac[k]) + 1}-9][0-9]*" for k in range(len(frac)) if frac[k] != "9"]
        same = whole + "\\.(?:" + "|".join(options) + ")"
    return f"(?:{greater}|{same})"


def udec_le(d: Decimal) -> str:
    """Unsigned decimal texts with a value of at most ``d`` (``d >= 0``)."""
    whole, frac = split_decimal(d)
    parts = []
    if int(whole) > 0:
        parts.append(uint_range(0, int(whole) - 1) + "(?:\\.[0-9]+)?")
    if not frac:
        parts.append(whole + "(?:\\.0+)?")
    else:
        options = ["0+"] + [frac[:k] + "0*" for k in range(1, len(frac) + 1)]
        options += [frac[:k] + f"[0-{int(frac[k]) - 1}][0-9]*" for k in range(len(frac)) if frac[k] != "0"]
        parts.append(whole + "(?:\\.(?:" + "|".join(options) + "))?")
    return "(?:" + "|".join(parts) + ")"


def dec_range(lo: Decimal | None, hi: Decimal | None) -> list[str] | None:
    """Signed decimal texts in ``lo..hi``: Lark terminal expressions (intersections of regexes) to unite."""
    if lo is not None and hi is not None and lo > hi:
        return None
    options = []
    if hi is None or hi >= 0:
        parts = [UDEC]
        if lo is not None and lo > 0:
            parts.append(udec_ge(lo))
        if hi is not None:
            parts.append(udec_le(hi))
        options.append(" & ".join(term(p) for p in parts))
    if lo is None or lo < 0:
        parts = [UDEC]
        if hi is not None and hi < 0:
            parts.append(udec_ge(-hi))
        if lo is not None:
            parts.append(udec_le(-lo))
        # no negative zero: its value would escape an exclusion written for 0
        options.append(" & ".join(term("-" + p) for p in parts) + " & ~" + term("-0(?:\\.0+)?"))
    return options
