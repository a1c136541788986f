"""Lowering arrays: prefix items, tail items, counts, ``contains`` and ``uniqueItems``.

A mixin of ``Lowerer`` (``_lower``), like ``ObjectLowering``. ``contains`` is met by the first tail items
(``maxContains`` by excluding its matches from the rest); ``uniqueItems`` is exact for at most one item, for a
small set of constants, or for scalars split into buckets that cannot share a value.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ._enforcement import Unsupported, refuse
from ._exclude import exclude, subtract
from ._model import (
    ANY_DEPTH,
    EMPTY,
    MAX_UNIQUE_VALUES,
    OPEN_ITEMS,
    Alt,
    Arr,
    Const,
    Flat,
    Float,
    Int,
    Node,
    Obj,
    Piece,
    Str,
)
from ._numbers import min_known, multiple_regex
from ._rx import ANY_TEXT, rx_seq, rx_set
from ._values import dedupe_values, value_key

_ARRAY_KEYWORDS = ("items", "prefixItems", "contains", "minContains", "maxContains", "minItems", "maxItems",
                   "uniqueItems", "unevaluatedItems", "additionalItems")


class ArrayLowering:
    def arrays(self, flat: Flat, budget: int) -> list[Alt]:
        pieces = [(d, p) for d, p in flat if any(k in d for k in _ARRAY_KEYWORDS)]
        for d, path in pieces:
            for keyword in ("unevaluatedItems", "additionalItems"):
                if keyword in d and d[keyword] is not True and d[keyword] != {}:
                    self.note(path, keyword, "not enforced")
        low = max([d["minItems"] for d, _ in pieces if "minItems" in d], default=0)
        high = min([d["maxItems"] for d, _ in pieces if "maxItems" in d], default=None)
        length = max([len(d.get("prefixItems", ())) for d, _ in pieces], default=0)
        prefix: list[Node] = []
        for i in range(length):
            schemas, closed = self._position(pieces, i)
            child = EMPTY if closed else self.lower_all(schemas, ANY_DEPTH)
            if not child.alts:
                high = min_known(high, i)
                break
            prefix.append(child)
        schemas, closed = self._position(pieces, length)
        if closed:
            tail = None
        elif schemas:
            tail = self.lower_all(schemas, ANY_DEPTH)
        else:
            tail = self.lower(True, "#", budget - 1) if budget > 0 else None
        if tail is not None and not tail.alts:
            tail = None
        if tail is None:
            high = min_known(high, len(prefix))
        if high is not None and low > high:
            return []
        if high is not None and high < len(prefix):  # maxItems cuts the prefix short
            prefix, tail = prefix[:high], None
        arr = Arr(tuple(prefix), tail, low, high, free=not pieces)
        arr = self._contains(arr, pieces)
        if arr is not None:
            arr = self._unique(arr, pieces)
        return [] if arr is None else [arr]

    def _position(self, pieces: list[Piece], i: int) -> tuple[list[tuple[Any, str]], bool]:
        """The schemas item ``i`` must match, and whether some piece forbids an item there."""
        schemas: list[tuple[Any, str]] = []
        closed = False
        for d, path in pieces:
            prefix = d.get("prefixItems", ())
            if i < len(prefix):
                schemas.append((prefix[i], f"{path}/prefixItems/{i}"))
            elif "items" in d:
                if d["items"] is False:
                    closed = True
                else:
                    schemas.append((d["items"], f"{path}/items"))
        return schemas, closed

    def _contains(self, arr: Arr, pieces: list[Piece]) -> Arr | None:
        """``contains``: the first tail items match it; with ``maxContains`` the others are excluded from it."""
        spec = [(d, p) for d, p in pieces if "contains" in d]
        if not spec:
            return arr
        if len(spec) > 1:
            raise refuse(spec[1][1], "contains", "several contains in one schema are not supported")
        d, path = spec[0]
        least = d.get("minContains", 1)
        most = d.get("maxContains")
        if most is not None and least > most:
            return None
        capacity = None if arr.max is None else arr.max - len(arr.prefix)
        if most is not None and capacity is not None and capacity + len(arr.prefix) <= most:
            most = None  # never reachable
        if least == 0 and most is None:
            return arr
        if arr.tail is None or (capacity is not None and capacity < least):
            self.note(path, "contains", "only tail items can match contains; here there is no room for them")
            return arr
        tail_schemas, _ = self._position(pieces, len(arr.prefix))
        hit = self.lower_all([*tail_schemas, (d["contains"], f"{path}/contains")], ANY_DEPTH)
        if not hit.alts:
            if least > 0:
                return None
            if most is None or not arr.prefix:
                return arr
            # no tail item can match contains, but a prefix item can: maxContains keeps the prefix from it
            return self._prefix_without(arr, d["contains"], path)
        miss = None
        prefix = arr.prefix
        if most is not None:
            try:
                c_node = self.lower(d["contains"], f"{path}/contains", ANY_DEPTH)

                def matches(value: Any) -> bool:
                    return self.valid(d["contains"], value)

                miss = exclude(arr.tail, c_node, matches)
                prefix = tuple(exclude(p, c_node, matches) for p in arr.prefix)
            except Unsupported as exc:
                self.note(path, "maxContains", f"cannot exclude contains matches: {exc}")
                most, miss, prefix = None, None, arr.prefix
        if any(not p.alts for p in prefix):  # the tail (and its hits) cannot be reached
            cut = next(i for i, p in enumerate(prefix) if not p.alts)
            return Arr(prefix[:cut], None, arr.min, cut) if least == 0 and arr.min <= cut else None
        low = max(arr.min, len(prefix) + least)
        if arr.max is not None and low > arr.max:
            return None
        rest = None if miss is None or not miss.alts else miss
        return Arr(prefix, arr.tail, low, arr.max, hit, least, most, rest)

    def _prefix_without(self, arr: Arr, contains: Any, path: str) -> Arr | None:
        """``arr`` with no prefix item matching ``contains`` (cut before a prefix item that then has no value)."""
        try:
            c_node = self.lower(contains, f"{path}/contains", ANY_DEPTH)
            prefix = tuple(exclude(p, c_node, lambda value: self.valid(contains, value)) for p in arr.prefix)
        except Unsupported as exc:
            self.note(path, "maxContains", f"cannot exclude contains matches: {exc}")
            return arr
        if any(not p.alts for p in prefix):
            cut = next(i for i, p in enumerate(prefix) if not p.alts)
            return Arr(prefix[:cut], None, arr.min, cut) if arr.min <= cut else None
        return Arr(prefix, arr.tail, arr.min, arr.max)

    def _unique(self, arr: Arr, pieces: list[Piece]) -> Arr | None:
        """``uniqueItems``: exact for arrays of at most one item or of a small set of constants, else later."""
        spec = [(d, p) for d, p in pieces if d.get("uniqueItems") is True]
        if not spec:
            return arr
        path = spec[0][1]
        if arr.max is not None and arr.max <= 1:
            return arr
        values = self._finite(arr)
        if values is None:
            buckets = _buckets(arr) if not arr.prefix and arr.hit is None and arr.tail is not None else None
            if buckets is None:
                self.note(path, "uniqueItems", "items are not constants or scalars this compiler can keep apart")
                return arr
            values = [], buckets
        hits, misses = values
        count = len(hits) + len(misses)
        low = max(arr.min, arr.hit_min)
        high = min(count, max(low, OPEN_ITEMS)) if arr.max is None else min(arr.max, count)
        if low > high or len(hits) < arr.hit_min:
            return None
        return Arr((), Node(tuple(hits + misses)), low, high, hit_min=arr.hit_min,
                   hit_max=arr.hit_max, unique=tuple(hits + misses), unique_hits=len(hits))

    def _finite(self, arr: Arr) -> tuple[list[Alt], list[Alt]] | None:
        """The tail's constants split into contains hits and misses, if the array is a prefix-free set of them."""
        if arr.prefix or arr.tail is None or not all(isinstance(a, Const) for a in arr.tail.alts):
            return None
        consts = [a for a in arr.tail.alts if isinstance(a, Const)]
        consts = [Const(v) for v in dedupe_values([c.value for c in consts])]
        if len(consts) > MAX_UNIQUE_VALUES:
            return None
        if arr.hit is None:
            return [], consts
        if any(not isinstance(a, Const) for a in arr.hit.alts):
            return None
        hit_keys = {value_key(a.value) for a in arr.hit.alts if isinstance(a, Const)}
        hits = [c for c in consts if value_key(c.value) in hit_keys]
        return hits, [c for c in consts if value_key(c.value) not in hit_keys]


def _buckets(arr: Arr) -> list[Alt] | None:
    """The tail's alternatives split so that no two can hold the same value: constants, integers by last digit,
    fractions by last digit, strings by first character (containers dropped); None if that cannot be done
    within 64 buckets."""
    assert arr.tail is not None
    consts = [a for a in arr.tail.alts if isinstance(a, Const)]
    out: list[Alt] = [Const(v) for v in dedupe_values([c.value for c in consts])]
    strings: list[Str] = []
    kinds: set[type] = set()
    scalars = [a for a in arr.tail.alts if not isinstance(a, Obj | Arr)]
    if not scalars:
        return None
    for alt in scalars:  # narrowing: containers are left out
        if isinstance(alt, Const):
            continue
        if type(alt) in kinds - {Str} or (isinstance(alt, Int) and alt.mult and multiple_regex(alt.mult) is None):
            return None
        kinds.add(type(alt))
        reduced: Alt | None = alt
        try:
            for c in out:
                reduced = subtract(reduced, c) if reduced is not None else None
        except Unsupported:
            return None
        if isinstance(reduced, Int):
            out += [replace(reduced, last_digit=d) for d in range(10)]
        elif isinstance(reduced, Float):
            out += [replace(reduced, nonint=True, exponent=False, last_digit=d, digits=15) for d in range(1, 10)]
        elif isinstance(reduced, Str):
            strings.append(reduced)
    if strings:
        room = 64 - len(out) - 1
        firsts = [ord(c) for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"][:max(room, 0)]
        if len(firsts) < len(strings):
            return None
        out.append(replace(strings[0], max_len=0))
        for i, c in enumerate(firsts):
            first = strings[i % len(strings)]
            out.append(replace(first, include=(*first.include, rx_seq(rx_set(((c, c),)), ANY_TEXT)), outer=None))
    return out if len(out) <= 64 else None
