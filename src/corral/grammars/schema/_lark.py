"""Writing llguidance's Lark dialect: literals, regex terminals, counted repeats, parametric conditions, a
builder that names each distinct rule and terminal once, and how an output writes a string's characters
(``Encoding``: raw, by named escapes such as ``\\n`` or ``&amp;``, or ``\\uXXXX``; ``canonical``: one form each)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from .._grammar import Grammar, GrammarError
from .._sample import EOS, allowed_bytes, byte_matcher
from ._rx import Ranges, Rx, intersect, ranges_of


def count_suffix(lo: int, hi: int | None) -> str:
    if hi is None:
        return "*" if lo == 0 else "+" if lo == 1 else f"{{{lo},}}"
    if lo == hi:
        return "" if lo == 1 else f"{{{lo}}}"
    return "?" if (lo, hi) == (0, 1) else f"{{{lo},{hi}}}"


def lark_string(text: str) -> str:
    """A Lark string literal."""
    return json.dumps(text, ensure_ascii=False)


def term(regex: str) -> str:
    """A Lark regex terminal (``/`` escaped; ``//`` would end the line as a comment, so empty is ``(?:)``)."""
    return "/" + (regex.replace("/", "\\/") or "(?:)") + "/"


class LarkBuilder:
    """Collects rules and terminals (deduplicated by body) and writes the Lark source."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.names: dict[tuple[str, str], str] = {}

    def _add(self, kind: str, body: str, make) -> str:
        key = (kind, body)
        if key not in self.names:
            name = make(len(self.names))
            self.names[key] = name
            self.lines.append(body.replace("\0", name))
        return self.names[key]

    def rule(self, options: Iterable[str]) -> str:
        """A rule whose alternatives are ``options`` (Lark expressions; ``""`` is the empty string)."""
        body = " | ".join(dict.fromkeys(options))
        return self._add("rule", f"\0: {body}", lambda n: f"r{n}")

    def terminal(self, expression: str) -> str:
        return self._add("terminal", f"\0: {expression}", lambda n: f"T{n}")

    def parametric(self, options: Iterable[str]) -> str:
        """A parametric rule: ``\\0`` in ``options`` stands for the rule's own name."""
        body = "\n    | ".join(options)
        return self._add("param", f"\0::_ : {body}", lambda n: f"p{n}")

    def source(self, start: str) -> str:
        return "\n".join(['%llguidance {}', f"start: {start}", *self.lines]) + "\n"


@lru_cache(maxsize=4096)
def terminal_has_text(expression: str) -> bool:
    """Whether some text matches a Lark terminal expression (regexes with ``&`` and ``~``), as llguidance's
    lexer decides it: a grammar of that terminal alone must let a first byte (or the end) through. When the
    engine gives up (its lexer fuel), the terminal counts as empty: leaving it out only narrows."""
    try:
        matcher = byte_matcher(Grammar.lark(f"start: T\nT: {expression}\n"))
    except (ValueError, GrammarError):
        return False
    allowed = allowed_bytes(matcher)
    if matcher.is_error():
        return False
    return allowed != [EOS] or matcher.is_accepting()


def repeat(symbol: str, lo: int, hi: int | None) -> str:
    if hi == 0:
        return '""'
    return f"{symbol}{count_suffix(lo, hi)}" if (lo, hi) != (1, 1) else symbol


def all_of(*conditions: str) -> str:
    """The conjunction of parametric conditions (``and`` takes two), empty ones left out."""
    conditions = tuple(c for c in conditions if c)
    if not conditions:
        return ""
    out = conditions[-1]
    for c in reversed(conditions[:-1]):
        out = f"and({c}, {out})"
    return out


def when(expression: str, condition: str) -> str:
    """``expression`` allowed only where ``condition`` holds (always, if it is empty)."""
    return f"{expression} %if {condition}" if condition else expression


def class_regex(s: Ranges) -> str:
    """A Rust regex character class for ``s`` (every non-alphanumeric character as ``\\x{...}``)."""
    def one(c: int) -> str:
        return chr(c) if chr(c).isascii() and chr(c).isalnum() else f"\\x{{{c:X}}}"

    if len(s) == 1 and s[0][0] == s[0][1]:
        return one(s[0][0])
    return "[" + "".join(one(a) if a == b else f"{one(a)}-{one(b)}" for a, b in s) + "]"


def literal_regex(text: str) -> str:
    return "".join(class_regex(((ord(c), ord(c)),)) for c in text)


def _hex_regex(points: Iterable[int], canonical: bool) -> str | None:
    """``\\uXXXX`` for each of ``points`` (BMP), as a compact regex; both hex cases unless ``canonical``."""
    groups: dict[int, list[int]] = {}
    for p in points:
        groups.setdefault(p >> 4, []).append(p & 15)
    if not groups:
        return None

    def digit_class(values: Iterable[int]) -> str:
        chars = set()
        for v in values:
            chars.add(f"{v:x}")
            if not canonical:
                chars.add(f"{v:X}")
        return class_regex(ranges_of(ord(c) for c in chars))

    options = []
    for high, lows in sorted(groups.items()):
        prefix = "".join(digit_class([int(h, 16)]) for h in f"{high:03x}")
        options.append(prefix + digit_class(lows))
    return "\\x{5C}u(?:" + "|".join(options) + ")"


@dataclass(frozen=True)
class Encoding:
    """How an output writes a string's characters: ``raw`` ones as themselves, others by their escapes.

    ``named``: the escapes of single characters (the first is canonical); ``hex``: characters that may also be
    written ``\\uXXXX`` (canonical for those without a named escape and not raw). Characters outside
    ``universe`` cannot be written at all.
    """

    universe: Ranges
    raw: Ranges
    named: tuple[tuple[int, tuple[str, ...]], ...] = ()
    hex: Ranges = ()

    def is_raw(self, c: int) -> bool:
        return any(a <= c <= b for a, b in self.raw)

    def canonical(self, c: int) -> str | None:
        if not any(a <= c <= b for a, b in self.universe):
            return None
        if self.is_raw(c):
            return chr(c)
        for point, forms in self.named:
            if point == c:
                return forms[0]
        return f"\\u{c:04x}" if any(a <= c <= b for a, b in self.hex) else None

    def literal(self, text: str) -> str | None:
        parts = [self.canonical(ord(c)) for c in text]
        return None if any(p is None for p in parts) else "".join(parts)  # type: ignore[arg-type]

    def char_regex(self, s: Ranges, canonical: bool = False) -> str | None:
        """A regex for the encodings of the characters in ``s`` (None: none can be written)."""
        s = intersect(s, self.universe)
        options = []
        raw = intersect(s, self.raw)
        if raw:
            options.append(class_regex(raw))
        named_points = set()
        for point, forms in self.named:
            if any(a <= point <= b for a, b in s):
                named_points.add(point)
                if not (canonical and self.is_raw(point)):
                    options += [literal_regex(f) for f in (forms[:1] if canonical else forms)]
        hexed = [c for a, b in intersect(s, self.hex) for c in range(a, b + 1)
                 if not (canonical and (c in named_points or self.is_raw(c)))]
        found = _hex_regex(hexed, canonical)
        if found:
            options.append(found)
        if not options:
            return None
        return options[0] if len(options) == 1 else "(?:" + "|".join(options) + ")"

    def rx_regex(self, rx: Rx, canonical: bool = False) -> str | None:
        """A regex for the encodings of the strings of ``rx`` (None: the language is empty here)."""
        kind = rx[0]
        if kind == "set":
            return self.char_regex(rx[1], canonical)
        if kind == "seq":
            parts = [self.rx_regex(item, canonical) for item in rx[1]]
            return None if any(p is None for p in parts) else "".join(parts)  # type: ignore[arg-type]
        if kind == "alt":
            parts = [p for p in (self.rx_regex(item, canonical) for item in rx[1]) if p is not None]
            return ("(?:" + "|".join(parts) + ")") if parts else None
        _, item, lo, hi = rx
        inner = self.rx_regex(item, canonical)
        if inner is None:
            return "" if lo == 0 else None
        return f"(?:{inner}){count_suffix(lo, hi)}"
