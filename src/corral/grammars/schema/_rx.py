"""Regular languages over decoded characters (``Rx``): JSON Schema patterns and string formats as languages.

An ``Rx`` is a language as nested tuples (hashable, so alternatives dedupe)::

    ("set", ranges)  ("seq", (rx, ...))  ("alt", (rx, ...))  ("rep", rx, lo, hi|None)

where ``ranges`` are sorted, disjoint, inclusive code point ranges. Languages are over *decoded* characters:
each output writes them with its own escapes (``_encoding``). A pattern is read with Python's parser (what
jsonschema validates with) and translated twice: an *inner* language, in what both Python and ECMA-262 match
(for generating), and an *outer* one, holding what either matches (for excluding). A format is a narrowing
regex (a URI of at most 8 path segments, a hostname of at most 3 labels): every string it matches is valid.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from ._enforcement import Unsupported, refuse

Ranges = tuple[tuple[int, int], ...]
Rx = tuple[Any, ...]
UNIVERSE: Ranges = ((0, 0xD7FF), (0xE000, 0x10FFFF))
ASCII: Ranges = ((0, 0x7F),)


def ranges_of(points: Iterable[int]) -> Ranges:
    out: list[list[int]] = []
    for p in sorted(set(points)):
        if out and out[-1][1] + 1 == p:
            out[-1][1] = p
        else:
            out.append([p, p])
    return tuple((a, b) for a, b in out)


def union(*sets: Ranges) -> Ranges:
    spans = sorted(r for s in sets for r in s)
    out: list[list[int]] = []
    for a, b in spans:
        if out and a <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return tuple((a, b) for a, b in out)


def complement(s: Ranges, within: Ranges = UNIVERSE) -> Ranges:
    out: list[tuple[int, int]] = []
    for lo, hi in within:
        start = lo
        for a, b in s:
            if b < start or a > hi:
                continue
            if a > start:
                out.append((start, a - 1))
            start = max(start, b + 1)
        if start <= hi:
            out.append((start, hi))
    return tuple(out)


def intersect(a: Ranges, b: Ranges) -> Ranges:
    return complement(union(complement(a), complement(b)))


def rx_set(s: Ranges) -> Rx:
    return ("set", s)


def rx_seq(*items: Rx) -> Rx:
    return ("seq", tuple(items))


def rx_literal(text: str) -> Rx:
    return rx_seq(*(rx_set(((ord(c), ord(c)),)) for c in text))


ANY_CHAR = rx_set(UNIVERSE)
ANY_TEXT: Rx = ("rep", ANY_CHAR, 0, None)


def _category_sets() -> dict[str, tuple[Ranges, Ranges]]:
    """Each class escape as (inner, outer): inner ⊆ what Python's ``re`` and ECMA-262 both match, outer ⊇ both.

    Inside ASCII both engines agree except for \\x1c-\\x1f, which Python calls space and ECMA-262 does not;
    outside ASCII they disagree (Unicode digits, letters, spaces), so inner stays in ASCII and outer takes all.
    """
    non_ascii = complement(ASCII)
    digit = ranges_of(range(0x30, 0x3A))
    word = ranges_of([*range(0x30, 0x3A), *range(0x41, 0x5B), *range(0x61, 0x7B), 0x5F])
    space_both = ranges_of([9, 10, 11, 12, 13, 32])
    space_any = union(space_both, ((0x1C, 0x1F),))
    return {
        "CATEGORY_DIGIT": (digit, union(digit, non_ascii)),
        "CATEGORY_WORD": (word, union(word, non_ascii)),
        "CATEGORY_SPACE": (space_both, union(space_any, non_ascii)),
        "CATEGORY_NOT_DIGIT": (complement(digit, ASCII), complement(digit)),
        "CATEGORY_NOT_WORD": (complement(word, ASCII), complement(word)),
        "CATEGORY_NOT_SPACE": (complement(space_any, ASCII), complement(space_both)),
    }


_CATEGORIES = _category_sets()
_DOT_INNER = complement(ranges_of([10, 13, 0x2028, 0x2029]))  # ECMA-262's '.' also stops at \r, U+2028/9
_DOT_OUTER = complement(ranges_of([10]))


def sre_parser():
    """The parser of Python's ``re``, the engine jsonschema validates patterns with."""
    import re._parser

    return re._parser


_BAD_SYNTAX = re.compile(r"\(\?P|\(\?[a-zA-Z-]+[:)]|\\[AZzbBpPGk]|\{,|\[:|\\[0-7]{1,3}")
"""Pattern syntax that Python's ``re`` and ECMA-262 read differently (or only one reads): refused."""


@lru_cache(maxsize=1024)
def ecma_checked(pattern: str, path: str, keyword: str) -> None:
    """Refuse a pattern Corral's validator cannot read (ECMA-262, unicode mode), as validation would: a grammar
    built from Python's more forgiving reading (``]`` as a literal) would give samples no validator judges."""
    from corral.schema import is_regex

    if not is_regex(pattern):
        raise refuse(path, keyword, f"{pattern[:60]!r} is not an ECMA-262 regular expression")


def pattern_rx(pattern: str, outer: bool = False) -> Rx:
    """The strings a JSON Schema ``pattern`` matches anywhere, over decoded characters.

    ``outer=False`` gives a subset of what both Python's ``re`` (jsonschema) and ECMA-262 accept (for
    generating); ``outer=True`` a superset (for excluding). Raises ``Unsupported`` for look-around,
    back-references, flags, ``\\b`` and syntax the two engines read differently.
    """
    if _BAD_SYNTAX.search(pattern):
        raise Unsupported("uses syntax Python's re and ECMA-262 read differently (flags, \\A, \\Z, \\b, {,n}, ...)")
    sre = sre_parser()
    try:
        parsed = sre.parse(pattern)
    except re.error as exc:
        raise Unsupported(f"not a regular expression Python can read: {exc}") from None
    if parsed.state.flags & (re.IGNORECASE | re.MULTILINE | re.LOCALE | re.DOTALL):
        raise Unsupported("inline flags are not supported")
    return _search(list(parsed.data), sre, outer)


def constant_name(constant: Any) -> str:
    """The name of one of ``re``'s parser constants (``CATEGORY_DIGIT``)."""
    return getattr(constant, "name", str(constant))


def _search(items: list, sre, outer: bool) -> Rx:
    """Unanchored search: strip leading ``^`` and trailing ``$`` (per branch); anchors elsewhere are refused."""
    if len(items) == 1 and items[0][0] is sre.BRANCH:
        return ("alt", tuple(_search(list(b.data), sre, outer) for b in items[0][1][1]))
    if len(items) == 1 and items[0][0] is sre.SUBPATTERN and not items[0][1][1] and not items[0][1][2]:
        return _search(list(items[0][1][3].data), sre, outer)
    start = end = False
    while items and items[0] == (sre.AT, sre.AT_BEGINNING):
        items, start = items[1:], True
    ends = (sre.AT_END, sre.AT_END_STRING)
    end_newline = False
    while items and items[-1][0] is sre.AT and items[-1][1] in ends:
        end_newline = end_newline or items[-1][1] is sre.AT_END
        items, end = items[:-1], True
    body = [_rx(op, av, sre, outer) for op, av in items]
    if not start:
        body.insert(0, ANY_TEXT)
    if not end:
        body.append(ANY_TEXT)
    elif outer and end_newline:  # Python's '$' also matches before a final newline
        body.append(("rep", rx_literal("\n"), 0, 1))
    return ("seq", tuple(body))


def _rx(op, av, sre, outer: bool) -> Rx:
    pick = 1 if outer else 0
    if op is sre.LITERAL:
        return rx_set(((av, av),))
    if op is sre.NOT_LITERAL:
        return rx_set(complement(((av, av),)))
    if op is sre.ANY:
        return rx_set(_DOT_OUTER if outer else _DOT_INNER)
    if op is sre.IN:
        return rx_set(_class(av, sre, outer))
    if op is sre.CATEGORY:
        return rx_set(_CATEGORIES[constant_name(av)][pick])
    if op is sre.BRANCH:
        return ("alt", tuple(rx_seq(*(_rx(o, a, sre, outer) for o, a in b.data)) for b in av[1]))
    if op is sre.SUBPATTERN:
        if av[1] or av[2]:
            raise Unsupported("inline flags are not supported")
        return rx_seq(*(_rx(o, a, sre, outer) for o, a in av[3].data))
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
        lo, hi, sub = av
        inner = rx_seq(*(_rx(o, a, sre, outer) for o, a in sub.data))
        return ("rep", inner, lo, None if hi == sre.MAXREPEAT else hi)
    if op is sre.AT:
        raise Unsupported("anchors (^, $) are supported only at the start and end")
    raise Unsupported(f"{str(op).lower()} (look-around, back-references, ...) has no regular equivalent")


def _class(items, sre, outer: bool) -> Ranges:
    negate = bool(items) and items[0][0] is sre.NEGATE
    members = items[1:] if negate else items
    # a negated class takes the complement of the other bound of its categories
    pick = (0 if negate else 1) if outer else (1 if negate else 0)
    parts: list[Ranges] = []
    for op, av in members:
        if op is sre.LITERAL:
            parts.append(((av, av),))
        elif op is sre.RANGE:
            parts.append(((av[0], av[1]),))
        elif op is sre.CATEGORY:
            parts.append(_CATEGORIES[constant_name(av)][pick])
        else:
            raise Unsupported(f"character class item {op} is not supported")
    s = union(*parts)
    return complement(s) if negate else s



def full_match_rx(pattern: str) -> Rx:
    """The strings a Python regex written by Corral (no anchors) matches whole, as an inner language."""
    sre = sre_parser()
    return rx_seq(*(_rx(op, av, sre, False) for op, av in sre.parse(pattern).data))


def rx_matches(rx: Rx, text: str) -> bool:
    """Whether ``text`` is in the language of ``rx`` (a small backtracking matcher over positions)."""
    return len(text) in _ends(rx, text, 0)


def _ends(rx: Rx, text: str, start: int) -> frozenset[int]:
    kind = rx[0]
    if kind == "set":
        if start < len(text) and any(a <= ord(text[start]) <= b for a, b in rx[1]):
            return frozenset({start + 1})
        return frozenset()
    if kind == "seq":
        points = frozenset({start})
        for item in rx[1]:
            points = frozenset(e for p in points for e in _ends(item, text, p))
        return points
    if kind == "alt":
        return frozenset(e for item in rx[1] for e in _ends(item, text, start))
    _, item, lo, hi = rx
    reached, frontier, count = set(), {start}, 0
    if lo == 0:
        reached.add(start)
    while frontier and (hi is None or count < hi):
        count += 1
        frontier = {e for p in frontier for e in _ends(item, text, p)} - (reached if count > lo else set())
        if count >= lo:
            reached |= frontier
    return frozenset(reached)


# ------------------------------------------------------------------------------------------------- formats
def _leap_years() -> str:
    leap = "(?:0[48]|[2468][048]|[13579][26])"
    return f"(?:[0-9]{{2}}{leap}|{leap}00)"


def _formats() -> dict[str, str]:
    """Python regexes (full match) for formats; each accepts only strings jsonschema's checker accepts."""
    year = "(?:000[1-9]|00[1-9][0-9]|0[1-9][0-9]{2}|[1-9][0-9]{3})"
    month_day = ("(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
                 "|02-(?:0[1-9]|1[0-9]|2[0-8]))")
    date = f"(?:{year}-{month_day}|{_leap_years()}-02-29)"
    hour, minute = "(?:[01][0-9]|2[0-3])", "[0-5][0-9]"
    time = f"{hour}:{minute}:{minute}(?:\\.[0-9]{{1,9}})?(?:Z|[+-]{hour}:{minute})"
    label = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    host = f"{label}(?:\\.{label}){{0,2}}"  # at most 3 labels: never over the 253-character limit
    short = "[a-z0-9](?:[a-z0-9-]{0,14}[a-z0-9])?"
    octet = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
    pchar = "[A-Za-z0-9._~!$&'()*+,;=:@-]"
    uri = (f"[a-z][a-z0-9+.-]{{0,15}}://{short}(?:\\.{short}){{0,3}}(?::[0-9]{{1,5}})?"
           f"(?:/{pchar}{{0,32}}){{0,8}}(?:\\?(?:{pchar}|[/?]){{0,64}})?(?:#(?:{pchar}|[/?]){{0,32}})?")
    email = f"[A-Za-z0-9](?:[A-Za-z0-9._+-]{{0,30}}[A-Za-z0-9])?@{short}(?:\\.{short}){{0,2}}\\.[a-z]{{2,8}}"
    idn_label = "[a-z0-9]{1,20}(?:-[a-z0-9]{1,20}){0,2}"
    pointer = "(?:/(?:[A-Za-z0-9_.-]|~[01]){0,16}){0,6}"
    n = "[0-9]{1,4}"
    day = f"(?:{n}Y(?:{n}M)?(?:{n}D)?|{n}M(?:{n}D)?|{n}D)"
    clock = f"T(?:{n}H(?:{n}M)?(?:{n}S)?|{n}M(?:{n}S)?|{n}S)"
    return {
        "date": date,
        "time": time,
        "date-time": f"{date}T{time}",
        "email": email,
        "idn-email": email,
        "ipv4": f"{octet}(?:\\.{octet}){{3}}",
        "ipv6": _ipv6(),
        "uuid": "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
        "hostname": host,
        "idn-hostname": f"{idn_label}(?:\\.{idn_label}){{0,2}}",
        "uri": uri,
        "uri-reference": uri,
        "iri": uri,
        "iri-reference": uri,
        "json-pointer": pointer,
        # jsonschema refuses a digit after a 0 anywhere in the number ("100"), not only a leading zero
        "relative-json-pointer": f"(?:0|[1-9]{{1,3}}0?)(?:#|{pointer})",
        "duration": f"P(?:{day}(?:{clock})?|{clock}|{n}W)",
        "uri-template": "[A-Za-z0-9/._~:-]{0,32}",
        "regex": "[A-Za-z0-9_]{0,32}",
    }


def _ipv6() -> str:
    h = "[0-9a-fA-F]{1,4}"

    def groups(n: int) -> str:
        return "" if n == 0 else h if n == 1 else f"(?:{h}:){{{n - 1}}}{h}"

    forms = [groups(8)] + [f"{groups(k)}::{groups(j)}" for k in range(8) for j in range(8 - k)]
    return "(?:" + "|".join(forms) + ")"


FORMAT_PATTERNS = _formats()


@lru_cache(maxsize=64)
def format_rx(name: str) -> Rx:
    return full_match_rx(FORMAT_PATTERNS[name])


@lru_cache(maxsize=1)
def checked_formats() -> frozenset[str]:
    """Formats jsonschema's format checker asserts (others are annotations: nothing to enforce)."""
    from jsonschema import Draft202012Validator

    return frozenset(Draft202012Validator.FORMAT_CHECKER.checkers)
