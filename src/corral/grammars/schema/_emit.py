"""What the YAML and XML writers share (``Emitter``): scalar terminals, chains of optional items, extra
properties with distinct names, and sets of distinct items, over llguidance's Lark dialect.

What a schema leaves open is bounded here (sound narrowing: a small model otherwise writes digits, characters or
items until its token budget ends): the ``OPEN_*`` limits.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ._lark import Encoding, LarkBuilder, all_of, count_suffix, repeat, term, terminal_has_text, when
from ._model import EMPTY, OPEN_ITEMS, Arr, Float, Int, Node, Obj, Str
from ._numbers import dec_range, int_regex, max_known, min_known, multiple_regex, split_decimal
from ._rx import UNIVERSE

FENCE = "```"
"""Text YAML and XML output never contains: the sample parser reads it as the start of a fenced block."""
OPEN_INT_DIGITS = 15
"""An integer with no bound on a side gets at most this many digits past the other bound (sound narrowing: a
small model otherwise writes digits until its token budget ends)."""
OPEN_LENGTH = 64
"""A string with no maxLength and no pattern or format gets at most this many characters (or minLength)."""
OPEN_PLACES = 6
"""Digits after the point in a number whose bounds need no more (a model repeats 8s until the budget ends)."""

LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
"""First letters of extra property names: one bit each, so no two extra names are equal."""
KEY_CHARS = 31
"""Extra property names (``additionalProperties``) are identifiers of at most 1 + this many characters."""


@dataclass(frozen=True)
class Group:
    """``lo..hi`` items in a row; the first item of a block is written with ``lead``, the others with ``sep``."""

    lead: str
    sep: str
    lo: int
    hi: int | None


class Emitter:
    """What the YAML and XML writers share: scalar terminals, item chains, extra-key and unique-set rules."""

    encoding: Encoding
    xml: bool = False

    def __init__(self) -> None:
        self.b = LarkBuilder()
        self.memo: dict[Any, str | None] = {}

    def cached(self, key: Any, make) -> str | None:
        if key not in self.memo:
            self.memo[key] = make()
        return self.memo[key]

    # ------------------------------------------------------------------------------------- scalars
    def written(self, expression: str) -> str | None:
        """A terminal for ``expression``, or None if no text matches it: an intersection can be empty (a bucket
        "integers ending in 1" under multipleOf 4), and an empty terminal after an opening tag is a dead end
        where decoding can only stop, mid-sample."""
        return self.b.terminal(expression) if terminal_has_text(expression) else None

    def string_terminal(self, alt: Str, quote: str, nonempty: bool) -> str | None:
        """One terminal for the strings of ``alt`` (with ``quote`` around them), or None if none can be written."""
        enc = self.encoding
        char = enc.char_regex(UNIVERSE)
        lo = max(alt.min_len, 1 if nonempty else 0)
        if alt.max_len is not None and lo > alt.max_len:
            return None
        hi = alt.max_len if alt.max_len is not None or alt.include else max(lo, OPEN_LENGTH)
        parts = [f"(?:{char}){count_suffix(lo, hi)}" if (lo, hi) != (0, None) else f"(?:{char})*"]
        for rx in alt.include:
            found = enc.rx_regex(rx)
            if found is None:
                return None
            parts.append(found)
        if alt.exclude:
            parts.append(f"(?:{enc.char_regex(UNIVERSE, canonical=True)})*")
        expression = " & ".join(term(quote + p + quote) for p in parts)
        # never three backticks: corral.schema's sample parser would take them for a code fence
        gone = [term(f"{quote}(?s:.*)```(?s:.*){quote}")]
        for ex in alt.exclude:
            inner = [f"(?:{char}){count_suffix(ex.min_len, ex.max_len)}"] + [enc.rx_regex(rx) for rx in ex.include]
            if all(p is not None for p in inner):
                gone.append(" & ".join(term(quote + p + quote) for p in inner))  # type: ignore[operator]
        if gone:
            expression += " & ~(" + " | ".join(gone) + ")"
        return self.written(expression)

    def int_symbol(self, alt: Int) -> str | None:
        if alt.mult is not None and multiple_regex(alt.mult) is None:
            # llguidance's own integer rule; it builds 64-bit ranges only, so the range is clamped (narrowing)
            lo, hi = max_known(alt.lo, -(2**62)), min_known(alt.hi, 2**62)
            if not _has_multiple(lo, hi, alt.mult):
                return None
            schema: dict[str, Any] = {"type": "integer", "multipleOf": alt.mult, "minimum": lo, "maximum": hi}
            return self.b.rule([f"%json {json.dumps(schema)}"])
        span = 10**OPEN_INT_DIGITS - 1
        lo = alt.lo if alt.lo is not None else min(-span, (alt.hi if alt.hi is not None else 0) - span)
        hi = alt.hi if alt.hi is not None else max(span, lo + span)
        found = int_regex(lo, hi)
        if found is None:
            return None
        expression = term(found)
        if alt.mult is not None:
            expression += " & " + term(multiple_regex(alt.mult) or "")
        if alt.last_digit is not None:
            expression += " & " + term(f"-?[0-9]*{alt.last_digit}")
        gone = [term(r) for r in (int_regex(lo, hi) for lo, hi in alt.exclude) if r is not None]
        if gone:
            expression = f"{expression} & ~({' | '.join(gone)})"
        return self.written(expression)

    def float_symbol(self, alt: Float) -> str | None:
        bounds = [abs(b) for b in (alt.lo, alt.hi) if b is not None]
        digits = max([16] + [len(split_decimal(b)[0]) + 1 for b in bounds])
        places = max([OPEN_PLACES] + [len(split_decimal(b)[1]) + 2 for b in bounds])  # room between tiny bounds
        frac = f"\\.[0-9]{{1,{places}}}"
        form = f"-?(?:0|[1-9][0-9]{{0,{digits}}})" + (frac if not self.xml else f"(?:{frac})?")
        if alt.exponent:
            form += "(?:[eE][-+]?[0-9]{1,2})?" if self.xml else "(?:[eE][-+][0-9]{1,2})?"
        options = dec_range(alt.lo, alt.hi)
        if options is None:
            return None
        parts = [term(form)]
        if alt.lo is not None or alt.hi is not None:
            parts.append("(" + " | ".join(options) + ")")
        if alt.nonint:
            parts.append(term("-?[0-9]+\\.[0-9]*[1-9][0-9]*"))
        if alt.last_digit is not None:
            parts.append(term(f"-?[0-9]+\\.[0-9]*{alt.last_digit}"))
        if alt.digits is not None or alt.nonint:
            # 15 significant digits: a text with a nonzero fraction then parses to a non-integral float
            # (81920529963145849.5 would parse to an integer)
            parts.append(term(f"-?[0-9.]{{2,{min(alt.digits or 15, 15) + 1}}}"))
        expression = " & ".join(parts)
        gone = [" | ".join(found) for found in (dec_range(lo, hi) for lo, hi in alt.exclude) if found]
        if gone:
            expression += " & ~(" + " | ".join(f"({g})" for g in gone) + ")"
        return self.written(expression)

    # --------------------------------------------------------------------------------------- chains
    def chain(self, groups: list[Group], first: bool, end) -> str | None:
        """Groups in order, each ``lo..hi`` times; ``first``: nothing written yet (so at least one item must
        come, written with its ``lead``). ``end(first)`` is what follows the last group (None: impossible)."""
        memo: dict[tuple[int, bool], str | None] = {}

        def at(i: int, first: bool) -> str | None:
            if (i, first) in memo:
                return memo[(i, first)]
            if i == len(groups):
                found = end(first)
            else:
                g = groups[i]
                options = []
                if g.lo == 0:
                    rest = at(i + 1, first)
                    if rest is not None:
                        options.append(rest)
                if g.hi is None or g.hi >= 1:
                    rest = at(i + 1, False)
                    if rest is not None:
                        if first:
                            more = repeat(g.sep, max(g.lo - 1, 0), None if g.hi is None else g.hi - 1)
                            head = g.lead if more == '""' else f"{g.lead} {more}"
                        else:
                            head = repeat(g.sep, max(g.lo, 1), g.hi)
                        options.append(head if rest == '""' else f"{head} {rest}")
                found = self.b.rule(options) if options else None
            memo[(i, first)] = found
            return found

        return at(0, first)

    def extras(self, obj: Obj, first: bool, entry) -> str | None:
        """Extra properties, distinct by first letter: ``entry(letter, first)`` writes one (None: impossible)."""
        count = "[0:52]"
        most = min(obj.extra_max, max(obj.extra_min, OPEN_ITEMS))
        rest = [when('""', f"bit_count_ge({count}, {obj.extra_min})" if obj.extra_min > 0 else "")]
        heads: list[str] = []
        for k, letter in enumerate(LETTERS):
            sym = entry(letter, False)
            if sym is None:
                continue
            room = f"bit_count_lt({count}, {most})" if most < 52 else ""
            rest.append(when(f"{sym} \0::set_bit({k})", all_of(f"bit_clear({k})", room)))
            if first:
                heads.append(f"{entry(letter, True)} \0::{hex(1 << k)}")
        name = self.b.parametric(rest)
        if not first:
            return f"{name}::0x0"
        if not heads or most < 1:
            return None
        return self.b.rule(h.replace("\0", name) for h in heads)

    def unique(self, arr: Arr, item, first: bool) -> str | None:
        """A set of distinct constants (bit k: value k used); the first ``unique_hits`` values match contains."""
        values = arr.unique or ()
        n, h = len(values), arr.unique_hits
        low = max(arr.min, 1 if first else 0)
        high = min(n, max(low, OPEN_ITEMS)) if arr.max is None else min(arr.max, n)
        if low > high:
            return None
        everything, hits = f"[0:{n}]", f"[0:{h}]"
        end = all_of(f"bit_count_ge({everything}, {low})" if low else "",
                   f"bit_count_ge({hits}, {arr.hit_min})" if h and arr.hit_min else "")
        options = [when('""', end)]
        # a value that does not match contains may be added only while the hits still missing fit in what is
        # left under the item limit: with j hits so far, fewer than high - (hit_min - j) items are written
        room = all_of(*(f"or(bit_count_ge({hits}, {j + 1}), bit_count_lt({everything}, {high - arr.hit_min + j}))"
                        for j in range(arr.hit_min))) if h and arr.hit_min and high - arr.hit_min < n else ""
        for k, value in enumerate(values):
            cond = all_of(f"bit_clear({k})", f"bit_count_lt({everything}, {high})" if high < n else "",
                        f"bit_count_lt({hits}, {arr.hit_max})" if k < h and arr.hit_max is not None else "",
                        room if k >= h else "")
            lead, sep = item(value, True), item(value, False)
            if sep is None:
                continue  # an empty bucket
            if lead == sep:
                options.append(when(f"{sep} \0::set_bit({k})", cond))
                continue
            if lead is not None and first:
                options.append(when(f"{lead} \0::set_bit({k})", all_of(cond, f"is_zeros({everything})")))
            if sep is not None:
                sep_cond = all_of(cond, f"not(is_zeros({everything}))") if first else cond
                options.append(when(f"{sep} \0::set_bit({k})", sep_cond))
        return f"{self.b.parametric(options)}::0x0"

    def items(self, arr: Arr, item, first: bool) -> str | None:
        """The items of ``arr``: ``item(node, first)`` writes one item of ``node`` (None: impossible)."""
        if arr.unique is not None:
            return self.unique(arr, lambda value, f: item(Node((value,)), f), first)
        p = len(arr.prefix)

        def from_position(i: int, first: bool) -> str | None:
            if i == p:
                return self.tail(arr, item, first)
            options = []
            head, rest = item(arr.prefix[i], first), from_position(i + 1, False)
            if head is not None and rest is not None:
                options.append(head if rest == '""' else f"{head} {rest}")
            if i >= arr.min and not first:
                options.append('""')
            return self.b.rule(options) if options else None

        return from_position(0, first)

    def tail(self, arr: Arr, item, first: bool) -> str | None:
        """The items after the prefix: plain tail items, or contains hits first and then the rest."""
        p = len(arr.prefix)
        lo = max(0, arr.min - p)
        hi = max(lo, arr.hit_min, OPEN_ITEMS - p) if arr.max is None else arr.max - p

        def end(first: bool) -> str | None:
            return None if first else '""'

        if arr.tail is None or hi == 0:
            return end(first) if lo == 0 else None
        if arr.hit is None:
            plans = [[(arr.tail, lo, hi)]]
        elif arr.hit_max is None:
            rest_hi = None if hi is None else hi - arr.hit_min
            plans = [[(arr.hit, arr.hit_min, arr.hit_min), (arr.tail, max(0, lo - arr.hit_min), rest_hi)]]
        else:
            top = arr.hit_max if hi is None else min(arr.hit_max, hi)
            plans = [[(arr.hit, h, h), (arr.miss or EMPTY, max(0, lo - h), None if hi is None else hi - h)]
                     for h in range(arr.hit_min, top + 1)]
        options = []
        for plan in plans:
            groups: list[Group] = []
            for n, a, b in plan:
                sep = item(n, False) if n.alts else None
                if sep is None or b == 0:
                    if a > 0:
                        break
                    continue
                groups.append(Group(item(n, True) if first else sep, sep, a, b))
            else:
                found = self.chain(groups, first, end)
                if found is not None:
                    options.append(found)
        return self.b.rule(options) if options else None


def _has_multiple(lo: int, hi: int, mult: int) -> bool:
    return -(-lo // mult) * mult <= hi
