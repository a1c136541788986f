"""A Lispress grammar induced from example programs, as BenchCLAMP §3.2 induces SMCalFlow's from its training data.

BenchCLAMP adds, for every (sub-)expression of a training program, a rule from the expression's type to the types
of its parts. The programs carry no types here, so the place an expression fills stands in for its type: a *slot*
is an argument place (function ``f``'s argument ``:k``, or its i-th positional argument, or the items of a list
there), and a slot's rule allows every kind of value seen in it anywhere in the examples:

- a call of a function seen there, written as that function was ever written: named arguments each optional, in
  one order that keeps every example's (``(Constraint[Event] :subject … :start …)`` puts ``:subject`` first, so
  ``(Constraint[Event] :start …)`` alone is allowed too; where the examples leave two keywords unordered, the one
  at the lower mean position goes first), or, for positional calls, each arity seen;
- a value literal of a type seen there: ``#(String "…")`` with any string, ``#(Number 2)`` with any number,
  ``#(List[Path] [])`` as seen;
- a bare atom seen there (a variable such as ``x0``, a number);
- a list, whose items form a slot of their own.

Whatever the slot, the program is written canonically (one space between items, none inside brackets), so a
constrained program needs no normalising before Lispress match. A function whose calls mix named and positional
arguments keeps each shape seen, whole.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import pairwise

from corral.grammars import Grammar

from ._lispress import Group, Node, canonical_lispress, read_lispress

__all__ = ["LispressGrammar", "induce_lispress_grammar"]

NUMBER = r"/-?[0-9]+(\.[0-9]+)?L?/"
STRING = r'/"([^"\\]|\\.)*"/'
_NUMERIC = re.compile(r"-?[0-9]+(\.[0-9]+)?L?")

Slot = tuple[str, ...]
"""An argument place: ``("<root>",)``, ``(head, ":name")``, ``(head, "1")`` (positional), ``(*slot, "[]")``."""


@dataclass
class _Seen:
    """What the examples show: each slot's kinds of value, each function's shapes of call."""

    values: dict[Slot, set[tuple[str, ...]]] = field(default_factory=lambda: defaultdict(set))
    named: dict[str, set[tuple[str, ...]]] = field(default_factory=lambda: defaultdict(set))
    other: dict[str, set[tuple[str, ...]]] = field(default_factory=lambda: defaultdict(set))

    def program(self, node: Node) -> None:
        todo: list[tuple[Node, Slot]] = [(node, ("<root>",))]
        while todo:  # (iterative: programs may nest deeply)
            node, slot = todo.pop()
            if isinstance(node, str):
                self.values[slot].add(("number",) if _NUMERIC.fullmatch(node) else ("string",)
                                      if node.startswith('"') else ("atom", node))
            elif node.opener == "[":
                self.values[slot].add(("list",))
                todo.extend((item, (*slot, "[]")) for item in node.items)
            elif node.opener in ("#(", "^(") or not node.items or not isinstance(node.items[0], str):
                self.values[slot].add(("literal", _literal_shape(node)))
            else:
                head, rest = node.items[0], node.items[1:]
                self.values[slot].add(("call", head))
                shape: list[str] = []  # a keyword per named argument, a position per positional one
                k = 0
                while k < len(rest):
                    item = rest[k]
                    if isinstance(item, str) and item.startswith(":") and k + 1 < len(rest):
                        shape.append(item)
                        todo.append((rest[k + 1], (head, item)))
                        k += 2
                    else:
                        shape.append(str(len(shape)))
                        todo.append((item, (head, str(len(shape) - 1))))
                        k += 1
                (self.named if all(s.startswith(":") for s in shape) else self.other)[head].add(tuple(shape))


def _literal_shape(node: Group) -> str:
    """A literal's rule body: its opener, its type words as written, and ``STRING``/``NUMBER`` for its value."""
    out = json.dumps(node.opener)
    for k, item in enumerate(node.items):
        if k:
            out += ' " "'
        if isinstance(item, Group):
            out += " " + json.dumps(canonical_lispress(item))
        elif item.startswith('"'):
            out += " STRING"
        elif _NUMERIC.fullmatch(item) and k:
            out += " NUMBER"
        else:
            out += " " + json.dumps(item)
    return out + ' ")"'


@dataclass(frozen=True)
class LispressGrammar:
    """The induced grammar (``grammar``, llguidance Lark) and what it was induced from."""

    grammar: Grammar
    programs: int
    functions: int
    slots: int


def induce_lispress_grammar(programs: Iterable[str]) -> LispressGrammar:
    """The grammar of the programs' slots (see the module doc); raises ``LispressError`` on a program that does
    not read."""
    seen = _Seen()
    count = 0
    for text in programs:
        seen.program(read_lispress(text))
        count += 1
    names: dict[object, str] = {}

    def name(key: object, prefix: str) -> str:
        if key not in names:
            names[key] = f"{prefix}{len(names)}"
        return names[key]

    rules: list[str] = []
    for slot in sorted(seen.values):
        alternatives = []
        for value in sorted(seen.values[slot]):
            kind = value[0]
            if kind == "call":
                alternatives.append(name(("call", value[1]), "call"))
            elif kind == "literal":
                alternatives.append(value[1])
            elif kind == "atom":
                alternatives.append(json.dumps(value[1]))
            elif kind == "list":
                item = name(("slot", (*slot, "[]")), "slot") if (*slot, "[]") in seen.values else None
                alternatives.append(f'"[" ({item} (" " {item})*)? "]"' if item else '"[]"')
            else:
                alternatives.append(kind.upper())
        rules.append(f"{name(('slot', slot), 'slot')}: " + " | ".join(f"({a})" for a in alternatives))
    for head in sorted({*seen.named, *seen.other}):
        shapes = [_named_call(head, seen.named[head], name)] if head in seen.named else []
        shapes += [_call(head, shape, name) for shape in sorted(seen.other.get(head, ()))]
        rules.append(f"{name(('call', head), 'call')}: " + " | ".join(f"({s})" for s in shapes))
    start = name(("slot", ("<root>",)), "slot")
    source = "\n".join([f"start: {start}", *rules, f"STRING: {STRING}", f"NUMBER: {NUMBER}"]) + "\n"
    return LispressGrammar(Grammar.lark(source, description=f"Lispress induced from {count:,} programs"),
                           count, len(seen.named.keys() | seen.other.keys()), len(seen.values))


def _named_call(head: str, shapes: set[tuple[str, ...]], name: Callable[[object, str], str]) -> str:
    """``(head :a … :b …)`` with each keyword optional, in the order the examples keep (as seen, if they keep none)."""
    keywords = _keyword_order(shapes)
    if keywords is None:
        return " | ".join(_call(head, shape, name) for shape in sorted(shapes))
    parts = [json.dumps(f"({head}")]
    parts += [f'(" {k} " {name(("slot", (head, k)), "slot")})?' for k in keywords]
    return " ".join(parts) + ' ")"'


def _keyword_order(shapes: set[tuple[str, ...]]) -> list[str] | None:
    """One order of all the shapes' keywords that keeps each shape's order (None if there is none, or a keyword
    repeats). Where the shapes leave a choice, the keyword with the lower mean position goes first, then the
    alphabetically first, so the same examples always give the same grammar."""
    if any(len(set(shape)) < len(shape) for shape in shapes):
        return None
    after: dict[str, set[str]] = defaultdict(set)
    waiting: dict[str, int] = defaultdict(int)
    positions: dict[str, list[int]] = defaultdict(list)
    for shape in shapes:
        for k, keyword in enumerate(shape):
            positions[keyword].append(k)
            waiting.setdefault(keyword, 0)
        for before, later in pairwise(shape):
            if later not in after[before]:
                after[before].add(later)
                waiting[later] += 1
    rank = {k: (sum(p) / len(p), k) for k, p in positions.items()}
    ready = sorted((k for k, n in waiting.items() if n == 0), key=rank.__getitem__)
    order: list[str] = []
    while ready:
        keyword = ready.pop(0)
        order.append(keyword)
        for later in after[keyword]:
            waiting[later] -= 1
            if waiting[later] == 0:
                ready.append(later)
        ready.sort(key=rank.__getitem__)
    return order if len(order) == len(waiting) else None


def _call(head: str, shape: tuple[str, ...], name: Callable[[object, str], str]) -> str:
    """``(head …)`` written as one call of the examples was: a keyword and its slot, or a positional slot."""
    parts = [json.dumps(f"({head}")]
    for k in shape:
        separator = json.dumps(f" {k} " if k.startswith(":") else " ")
        parts.append(f'{separator} {name(("slot", (head, k)), "slot")}')
    return " ".join(parts) + ' ")"'
