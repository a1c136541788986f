"""The regular language of a grammar, as a minimal DFA (``_dfa.Dfa``), where the grammar is exactly one.

Why: a server that speaks only GBNF (llama.cpp's) can enforce a Corral grammar exactly only if its language is
written out in GBNF. A regex grammar, and a Lark grammar whose every text is *one lexeme* (``start: TEXT`` with
``TEXT`` built from string literals, ``/regex/`` literals, other terminals, ``|``, concatenation, ``?``, ``*``,
``+``, ``{m,n}``, and llguidance's ``&`` and ``~``), denote one regular language, which a DFA holds exactly and
a right-linear GBNF writes out (``_gbnf``). A grammar of several lexemes is not convertible: llguidance lexes
greedily, so its language can differ from the character-level grammar that a GBNF would state.

Semantics are llguidance's: regexes are Rust ``regex`` syntax in Unicode mode (``.`` is any character but
``\\n``); a regex is parsed with Python's own parser (``re._parser``) where the two syntaxes agree and refused where
they might not (flags, anchors, look-arounds, Rust-only class syntax, escapes outside a known list); the classes
``\\d``, ``\\w``, ``\\s`` are read from llguidance itself, so they are Rust's Unicode classes, not Python's.
Anything not understood is refused with ``NotConvertible``, never guessed.
"""

from __future__ import annotations

import json
import re
import time
import warnings
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from . import _dfa
from ._dfa import EPSILON, NULL, Dfa, Ranges
from ._grammar import Grammar, GrammarError

MULTI_LEXEME = "lark grammar with several lexemes"
"""The refusal of a Lark grammar whose texts are sequences of lexemes (the plan summary groups by it)."""


class NotConvertible(GrammarError):
    """A grammar has no exact regular form (or one over budget). ``kind`` is a short, stable label (the plans group
    instances by it); ``detail`` says what in this grammar was refused."""

    def __init__(self, kind: str, detail: str = "") -> None:
        self.kind = kind
        self.detail = detail
        super().__init__(f"{kind}: {detail}" if detail else kind)


@dataclass
class _Limits:
    """The work a conversion may do: states of any intermediate DFA, and a deadline (checked between steps)."""

    max_states: int
    deadline: float
    seconds: float

    def grow(self, states: int) -> None:
        """Stop a construction whose (unminimised) automaton passes ``INTERMEDIATE`` times the budget."""
        if states > INTERMEDIATE * self.max_states:
            limit = INTERMEDIATE * self.max_states
            raise NotConvertible("over the DFA size budget", f"a step needs more than {limit:,} states")
        if time.monotonic() > self.deadline:
            raise NotConvertible("over the conversion time budget", f"more than {self.seconds:g} s")

    def check(self, dfa: Dfa) -> Dfa:
        if dfa.size > self.max_states:
            raise NotConvertible("over the DFA size budget", f"more than {self.max_states:,} states")
        if time.monotonic() > self.deadline:
            raise NotConvertible("over the conversion time budget", f"more than {self.seconds:g} s")
        return dfa


INTERMEDIATE = 8
"""How much larger than the state budget an automaton may grow before it is minimised (a product or a subset
construction builds more states than its result keeps)."""


def regular_dfa(grammar: Grammar, max_states: int = 2_000, seconds: float = 20.0,
                max_source: int | None = None) -> Dfa:
    """The minimal DFA of ``grammar``'s language; ``NotConvertible`` (one line) if it has none this module can
    build exactly, or it needs more than ``max_states`` states (in any intermediate step) or ``seconds``. A source
    longer than ``max_source`` is refused once its shape is known to be one lexeme (so the reason is the shape's
    when that is what stands in the way), before any automaton is built."""
    limits = _Limits(max_states, time.monotonic() + seconds, seconds)
    if grammar.format == "regex":
        _source_budget(grammar, max_source)
        return limits.check(_regex(grammar.source, limits))
    if grammar.format == "lark":
        parser = _Lark(grammar.source, limits)
        parser.dry = True
        parser.start()
        _source_budget(grammar, max_source)
        parser.dry = False
        return limits.check(parser.start())
    raise NotConvertible(f"a {grammar.format} grammar is not one regular language",
                         "JSON Schema travels as a schema, not as GBNF")


def _source_budget(grammar: Grammar, max_source: int | None) -> None:
    if max_source is not None and len(grammar.source) > max_source:
        raise NotConvertible("over the GBNF size budget", f"a {len(grammar.source):,}-character grammar (the "
                             f"conversion takes up to {max_source:,})")


# --------------------------------------------------------------------------------------------- Lark
_TOKEN = re.compile(r"""
    (?P<nl>(?:\r?\n)+[ \t]*)
  | (?P<skip>[ \t]+|(?:\#|//)[^\n]*)
  | (?P<string>"(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2})|[^"\\\x00-\x1f\x7f])*"i?)
  | (?P<regex>/(?:\\.|[^/\\])+/[imslux]*)
  | (?P<name>!?[_?]?[a-z][_a-z0-9\-]*|_?[A-Z][_A-Z0-9\-]*)
  | (?P<number>[0-9]+)
  | (?P<punct>->|::|\.\.|[:,.(){}\[\]~|&=+*?%@<>\#_])
""", re.VERBOSE)


def _tokens(source: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    position = 0
    while position < len(source):
        found = _TOKEN.match(source, position)
        if found is None:
            raise NotConvertible("unsupported Lark syntax", f"cannot read {source[position:position + 20]!r}")
        position = found.end()
        kind = found.lastgroup or ""
        if kind != "skip":
            out.append((kind, found.group()))
    out.append(("nl", "\n"))
    return out


# expressions: ("alt", [...]), ("and", [...]), ("seq", [...]), ("rep", x, low, high|None), ("not", x), ("opt", x),
# ("str", text), ("rx", pattern), ("name", name), ("range", a, b)
Node = tuple


class _Lark:
    """A parser for the subset of llguidance's Lark that can be one lexeme, and the DFA of its start rule."""

    def __init__(self, source: str, limits: _Limits) -> None:
        self.limits = limits
        self.tokens = _tokens(source)
        self.at = 0
        self.rules: dict[str, Node] = {}
        self.terminals: dict[str, Node] = {}
        self.memo: dict[str, Dfa] = {}
        self.busy: set[str] = set()
        self.dry = False  # check the start rule's shape only: every lexeme stands for the empty text
        self._statements()

    # ---- parsing
    def _peek(self, offset: int = 0) -> tuple[str, str]:
        return self.tokens[min(self.at + offset, len(self.tokens) - 1)]

    def _take(self) -> tuple[str, str]:
        token = self._peek()
        self.at = min(self.at + 1, len(self.tokens) - 1)
        return token

    def _expect(self, value: str) -> None:
        _, text = self._take()
        if text != value:
            raise NotConvertible("unsupported Lark syntax", f"expected {value!r}, found {text!r}")

    def _statements(self) -> None:
        while self.at < len(self.tokens) - 1:
            kind, text = self._take()
            if kind == "nl":
                continue
            if text == "%":
                name = self._peek()[1]
                raise NotConvertible("lark grammar with directives", f"%{name} changes the engine's lexing")
            if kind != "name" or self._peek()[1] != ":":
                raise NotConvertible("unsupported Lark syntax",
                                     f"a rule head {text!r} {self._peek()[1]!r} (templates, priorities, attributes)")
            if text[0] in "!?" or text.startswith("_?"):
                raise NotConvertible("unsupported Lark syntax", f"rule modifiers in {text!r}")
            self._take()
            body = self._alternatives()
            if self._peek()[0] != "nl":
                raise NotConvertible("unsupported Lark syntax", f"{self._peek()[1]!r} after the rule {text}")
            table = self.terminals if text.lstrip("_")[:1].isupper() else self.rules
            if text in table:
                raise NotConvertible("unsupported Lark syntax", f"{text} is defined twice")
            table[text] = body

    def _alternatives(self) -> Node:
        options = [self._conjunction()]
        while True:
            if self._peek()[1] == "|":
                self._take()
            elif self._peek()[0] == "nl" and self._peek(1)[1] == "|":
                self._take()
                self._take()
            else:
                break
            options.append(self._conjunction())
        return options[0] if len(options) == 1 else ("alt", options)

    def _conjunction(self) -> Node:
        parts = [self._sequence()]
        while self._peek()[1] == "&":
            self._take()
            parts.append(self._sequence())
        if self._peek()[1] in ("->", "%"):
            raise NotConvertible("unsupported Lark syntax", "aliases and %if conditions")
        return parts[0] if len(parts) == 1 else ("and", parts)

    def _sequence(self) -> Node:
        items = []
        while self._peek()[0] != "nl" and self._peek()[1] not in ("|", ")", "]", "&", "->", "%", "}"):
            items.append(self._expression())
        return items[0] if len(items) == 1 else ("seq", items)

    def _expression(self) -> Node:
        atom = self._atom()
        _, text = self._peek()
        if text in ("*", "+", "?"):
            self._take()
            return {"*": ("rep", atom, 0, None), "+": ("rep", atom, 1, None), "?": ("opt", atom)}[text]
        if text == "{":
            self._take()
            low = int(self._take()[1]) if self._peek()[0] == "number" else 0
            high: int | None = low
            if self._peek()[1] == ",":
                self._take()
                high = int(self._take()[1]) if self._peek()[0] == "number" else None
            self._expect("}")
            if high is not None and high < low:
                raise NotConvertible("unsupported Lark syntax", f"the range {{{low},{high}}}")
            return ("rep", atom, low, high)
        if text == "~":
            raise NotConvertible("unsupported Lark syntax", "the range form x ~ m..n")
        return atom

    def _atom(self) -> Node:
        kind, text = self._take()
        if text == "~":
            return ("not", self._atom())
        if text in ("(", "["):
            inner = self._alternatives()
            self._expect(")" if text == "(" else "]")
            return inner if text == "(" else ("opt", inner)
        if kind == "string":
            if text.endswith("i"):
                raise NotConvertible("unsupported Lark syntax", "case-insensitive strings (\"...\"i)")
            value = _string(text)
            if self._peek()[1] == "..":
                self._take()
                kind2, end = self._take()
                if kind2 != "string" or end.endswith("i"):
                    raise NotConvertible("unsupported Lark syntax", "a literal range needs two strings")
                return ("range", value, _string(end))
            return ("str", value)
        if kind == "regex":
            body, flags = text[1:text.rindex("/")], text[text.rindex("/") + 1:]
            if flags:
                raise NotConvertible("regex with flags", f"/{body[:30]}/{flags}")
            return ("rx", body)
        if kind == "name":
            if self._peek()[1] == "::" or (self._peek()[1] == "{" and self._peek(1)[0] != "number"
                                           and self._peek(1)[1] != ","):
                raise NotConvertible("unsupported Lark syntax", f"templates or parameters on {text}")
            return ("name", text)
        raise NotConvertible("unsupported Lark syntax", f"{text!r} (special tokens, %json, grammar references)")

    # ---- meaning
    def start(self) -> Dfa:
        """The start rule's language, when each of its texts is one lexeme."""
        if "start" not in self.rules:
            raise NotConvertible("unsupported Lark syntax", "no start rule")
        return self._one_lexeme(self.rules["start"], set())

    def _one_lexeme(self, node: Node, rules: set[str]) -> Dfa:
        """A rule-level expression whose every derivation is a single lexeme: the union of those lexemes."""
        grow = self.limits.grow
        tag = node[0]
        if tag == "alt":
            return self.limits.check(_dfa.union(*(self._one_lexeme(n, rules) for n in node[1]), grow=grow))
        if tag == "opt":
            return self.limits.check(_dfa.union(self._one_lexeme(node[1], rules), EPSILON, grow=grow))
        if tag == "seq" and not node[1]:
            return EPSILON
        if tag == "name" and node[1] in self.rules:
            name = node[1]
            if name in rules:
                raise NotConvertible(MULTI_LEXEME, f"the rule {name} is recursive")
            return self._one_lexeme(self.rules[name], rules | {name})
        if tag in ("seq", "rep", "and"):
            raise NotConvertible(MULTI_LEXEME, "the engine lexes greedily, so its language can differ from the "
                                 "character-level grammar")
        return self._lexeme(node)

    def _lexeme(self, node: Node) -> Dfa:
        """A terminal expression's language."""
        if self.dry:
            return EPSILON
        limits = self.limits
        grow = limits.grow
        tag = node[0]
        if tag == "str":
            return _literal(node[1])
        if tag == "rx":
            return _regex(node[1], limits)
        if tag == "range":
            a, b = node[1], node[2]
            if len(a) != 1 or len(b) != 1 or a > b:
                raise NotConvertible("unsupported Lark syntax", f"the literal range {a!r}..{b!r}")
            return _dfa.of_class(((ord(a), ord(b)),))
        if tag == "name":
            return self._terminal(node[1])
        if tag == "alt":
            return limits.check(_dfa.union(*(self._lexeme(n) for n in node[1]), grow=grow)) if node[1] else NULL
        if tag == "and":
            return limits.check(_dfa.intersection(*(self._lexeme(n) for n in node[1]), grow=grow))
        if tag == "seq":
            return _concat([self._lexeme(n) for n in node[1]], limits)
        if tag == "opt":
            return limits.check(_dfa.union(self._lexeme(node[1]), EPSILON, grow=grow))
        if tag == "not":
            return limits.check(_dfa.complement(self._lexeme(node[1])))
        if tag == "rep":
            return _repeat(self._lexeme(node[1]), node[2], node[3], limits)
        raise NotConvertible("unsupported Lark syntax", str(tag))

    def _terminal(self, name: str) -> Dfa:
        if name in self.rules:
            raise NotConvertible(MULTI_LEXEME, f"the terminal expression refers to the rule {name}")
        if name not in self.terminals:
            raise NotConvertible("unsupported Lark syntax", f"{name} is not defined here (imports?)")
        if name not in self.memo:
            if name in self.busy:
                raise NotConvertible("unsupported Lark syntax", f"the terminal {name} refers to itself")
            self.busy.add(name)
            self.memo[name] = self._lexeme(self.terminals[name])
            self.busy.discard(name)
        return self.memo[name]


def _string(token: str) -> str:
    """A Lark string literal's text: JSON, plus ``\\xHH`` (as llguidance reads it)."""
    body = re.sub(r"(?<!\\)((?:\\\\)*)\\x([0-9a-fA-F]{2})", r"\1\\u00\2", token)
    try:
        return json.loads(body)
    except ValueError:
        raise NotConvertible("unsupported Lark syntax", f"the string {token[:30]}") from None


# --------------------------------------------------------------------------------------------- regex
_RUST_ESCAPES = set("ntrfvadDwWsSxuU")
_BRACED = re.compile(r"[xuU]\{([0-9a-fA-F]{1,8})\}")


def _python_syntax(pattern: str) -> str:
    """``pattern`` (Rust syntax) rewritten where Python's syntax differs but means the same (``\\x{HH}``), or
    ``NotConvertible`` for an escape whose meaning might differ (``\\b``, ``\\p``, ``\\A``, ``\\z``, ``\\<``...)."""
    out = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char != "\\":
            out.append(char)
            i += 1
            continue
        following = pattern[i + 1:i + 2]
        braced = _BRACED.match(pattern, i + 1)
        if braced:
            out.append(f"\\U{int(braced[1], 16):08X}")
            i = braced.end()
            continue
        if following in _RUST_ESCAPES or (following and following.isascii() and not following.isalnum()
                                          and following not in "<>"):
            out.append(pattern[i:i + 2])
            i += 2
            continue
        raise NotConvertible("regex feature without an exact GBNF", f"the escape \\{following}")
    return "".join(out)


def _regex(pattern: str, limits: _Limits) -> Dfa:
    from re import _constants as c
    from re import _parser

    text = _python_syntax(pattern)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # "possible nested set / set operation": Rust class syntax
            parsed = _parser.parse(text)
    except (re.error, FutureWarning, DeprecationWarning, ValueError, OverflowError) as exc:
        raise NotConvertible("regex feature without an exact GBNF", f"{str(exc).splitlines()[0][:80]}") from None
    if parsed.state.flags & ~c.SRE_FLAG_UNICODE:
        raise NotConvertible("regex with flags", "inline flags such as (?i) or (?x)")
    return _sre(list(parsed), limits)


def _sre(items: list[tuple[Any, Any]], limits: _Limits) -> Dfa:
    from re import _constants as c

    parts = []
    for op, av in items:
        if op is c.LITERAL:
            parts.append(_dfa.of_class(((av, av),)))
        elif op is c.NOT_LITERAL:
            parts.append(_dfa.of_class(_dfa.negate(((av, av),))))
        elif op is c.ANY:
            parts.append(_dfa.of_class(_dfa.negate(((10, 10),))))
        elif op is c.IN:
            parts.append(_dfa.of_class(_set(av)))
        elif op is c.BRANCH:
            parts.append(limits.check(_dfa.union(*(_sre(list(b), limits) for b in av[1]), grow=limits.grow)))
        elif op is c.SUBPATTERN:
            _, add, remove, inner = av
            if add or remove:
                raise NotConvertible("regex with flags", "scoped flags such as (?i:...)")
            parts.append(_sre(list(inner), limits))
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT):
            low, high, inner = av
            parts.append(_repeat(_sre(list(inner), limits), low, None if high == c.MAXREPEAT else high, limits))
        else:
            raise NotConvertible("regex feature without an exact GBNF", f"{str(op).lower()} (anchors, look-arounds, "
                                 "back-references, possessive or atomic groups)")
    return _concat(parts, limits)


def _set(items: list[tuple[Any, Any]]) -> Ranges:
    from re import _constants as c

    negated = False
    pairs: list[tuple[int, int]] = []
    for op, av in items:
        if op is c.NEGATE:
            negated = True
        elif op is c.LITERAL:
            pairs.append((av, av))
        elif op is c.RANGE:
            pairs.append((av[0], av[1]))
        elif op is c.CATEGORY:
            pairs.extend(_category(av))
        else:
            raise NotConvertible("regex feature without an exact GBNF", f"{str(op).lower()} in a class")
    out = _dfa.normalize(pairs)
    return _dfa.negate(out) if negated else out


_CATEGORIES = {"CATEGORY_DIGIT": ("\\d", False), "CATEGORY_NOT_DIGIT": ("\\d", True),
               "CATEGORY_WORD": ("\\w", False), "CATEGORY_NOT_WORD": ("\\w", True),
               "CATEGORY_SPACE": ("\\s", False), "CATEGORY_NOT_SPACE": ("\\s", True)}


def _category(category: Any) -> Ranges:
    escape, negated = _CATEGORIES[str(category)]
    positive = engine_class(escape)
    return _dfa.negate(positive) if negated else positive


@lru_cache(maxsize=8)
def engine_class(regex: str) -> Ranges:
    """The characters llguidance's regex ``regex`` (one character long) matches, read from the engine itself.

    ``\\d``, ``\\w`` and ``\\s`` are Rust's Unicode classes, which Python's differ from (``\\s`` and U+001C, the
    Unicode version of ``\\d``); asking the engine which UTF-8 sequences it allows makes the class exactly its own.
    A walk over the byte trie of allowed prefixes: about 20,000 mask computations for ``\\w``, a fraction of a
    second, once per process."""
    from ._sample import EOS, allowed_bytes, byte_matcher

    matcher = byte_matcher(Grammar.regex(regex))
    points: list[int] = []

    def walk(prefix: bytes, length: int) -> None:
        for byte in allowed_bytes(matcher):
            if byte == EOS:
                continue
            if not prefix:
                length = 1 if byte < 0x80 else 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            data = prefix + bytes([byte])
            if len(data) == length:
                points.append(ord(data.decode("utf-8")))
                continue
            matcher.consume_token(byte)
            walk(data, length)
            matcher.rollback(1)

    walk(b"", 0)
    return _dfa.normalize((point, point) for point in points)


def _concat(parts: list[Dfa], limits: _Limits) -> Dfa:
    out = EPSILON
    for part in parts:
        out = limits.check(_dfa.concat(out, part, grow=limits.grow)) if out is not EPSILON else part
    return out


def _literal(text: str) -> Dfa:
    return _dfa.literal(text)


def _repeat(dfa: Dfa, low: int, high: int | None, limits: _Limits) -> Dfa:
    """``dfa{low,high}`` (high None: unbounded), one copy at a time, each step minimised; ``x{0,n}`` is built inside
    out as ``(x(x(...)?)?)?``, which keeps every intermediate automaton as small as the result."""
    grow = limits.grow
    head = EPSILON
    for _ in range(low):
        head = limits.check(_dfa.concat(head, dfa, grow=grow))
    if high is None:
        return limits.check(_dfa.concat(head, _dfa.star(dfa, grow=grow), grow=grow))
    tail = EPSILON
    for _ in range(high - low):
        tail = limits.check(_dfa.union(EPSILON, _dfa.concat(dfa, tail, grow=grow), grow=grow))
    return limits.check(_dfa.concat(head, tail, grow=grow))
