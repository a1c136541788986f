"""BenchCLAMP's synchronous grammar files (``.scfg``) read and converted into Lark grammars for Corral's grammar path.

An ``.scfg`` file pairs two context-free grammars rule by rule: ``lhs -> source , plan``. One side is what a
person writes (an utterance, or SQL with any spacing and case), the other what the program side prints (Lispress,
or SQL normalised to single spaces). A rule without a comma is the same on both sides. Each side is a sequence of

- ``"..."`` literals (JSON-style escapes such as ``\\"`` and ``\\u000B``), ``/.../`` one-character regexes and
  nonterminal names, each optionally followed by ``?``, ``*`` or ``+``,
- ``#e`` or ``empty`` (nothing),

with ``|`` between alternatives. Lines starting with ``#`` are comments. ``read_scfg`` reads files into rules
(``ScfgError`` names the file, line and column of anything else); ``scfg_to_lark`` writes one side as a Lark
grammar that llguidance compiles: only the rules reachable from ``start`` (a reachable name no rule defines is an
error naming where it is used), every literal split into one-character literals. The split matters: the SQL
grammar spells keywords, identifiers and per-database names letter by letter (``S E L E C T``, ``s i n g e r``),
and a many-character literal beside them would be one lexeme to the engine's greedy lexer, which cannot back out of
a lexeme that turns out not to end (``na`` read as the start of ``name`` when the text is ``nax``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from corral.errors import InputError

__all__ = ["Alternative", "Scfg", "ScfgError", "Symbol", "bound_depth", "fold_lexemes", "productive", "read_scfg",
           "regex_escape", "scfg_to_lark"]


class ScfgError(InputError):
    """An ``.scfg`` text Corral cannot read, or a side that does not make a grammar (with where)."""


@dataclass(frozen=True)
class Symbol:
    """One item of a rule's side: ``kind`` is ``literal`` (``text`` the decoded string), ``regex`` (``text`` the
    pattern between the slashes) or ``name`` (``text`` the nonterminal); ``repeat`` is ``""``, ``?``, ``*`` or
    ``+``."""

    kind: str
    text: str
    repeat: str = ""


Alternative = tuple[Symbol, ...]


@dataclass(frozen=True)
class Scfg:
    """Rules by left-hand side: each rule's source and plan alternatives, and where it was written."""

    source: Mapping[str, tuple[Alternative, ...]]
    plan: Mapping[str, tuple[Alternative, ...]]
    where: Mapping[str, str]
    """``file:line`` of each name's first rule (what error messages point at)."""

    def side(self, name: str) -> Mapping[str, tuple[Alternative, ...]]:
        if name not in ("source", "plan"):
            raise ValueError(f"an SCFG side is 'source' or 'plan', not {name!r}")
        return self.source if name == "source" else self.plan


_TOKEN = re.compile(r"""
    (?P<space>[ \t]+)
  | (?P<literal>"(?:[^"\\\n]|\\.)*")
  | (?P<regex>/(?:[^/\\\n]|\\.)+/)
  | (?P<empty>\#e\b|empty\b)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<repeat>[?*+])
  | (?P<bar>\|)
  | (?P<comma>,)
""", re.VERBOSE)
_RULE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*->\s*")
MAX_SCFG_CHARS = 2_000_000
"""Larger texts are refused unread (BenchCLAMP's SQL grammar is 60 kB)."""


def read_scfg(texts: Iterable[tuple[str, str]]) -> Scfg:
    """The rules of ``(file name, text)`` pairs, in order; alternatives of one name accumulate across files."""
    source: dict[str, list[Alternative]] = {}
    plan: dict[str, list[Alternative]] = {}
    where: dict[str, str] = {}
    total = 0
    for file, text in texts:
        total += len(text)
        if total > MAX_SCFG_CHARS:
            raise ScfgError(f"{file}: the grammar texts pass {MAX_SCFG_CHARS:,} characters")
        for number, line in enumerate(text.splitlines(), 1):
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            rule = _RULE.match(stripped)
            if rule is None:
                raise ScfgError(f"{file}:{number}: a rule starts with a name and '->': {stripped[:60]!r}")
            lhs = rule.group(1)
            offset = len(line) - len(line.lstrip()) + rule.end()
            sides = _read_sides(stripped[rule.end():], f"{file}:{number}", offset)
            where.setdefault(lhs, f"{file}:{number}")
            source.setdefault(lhs, []).extend(sides[0])
            plan.setdefault(lhs, []).extend(sides[-1])
    return Scfg({k: tuple(v) for k, v in source.items()}, {k: tuple(v) for k, v in plan.items()}, where)


def _read_sides(text: str, place: str, offset: int) -> list[list[Alternative]]:
    """One rule's right-hand side: the alternatives of its one side, or of its source and plan sides."""
    sides: list[list[Alternative]] = [[]]
    current: list[Symbol] = []
    position = 0
    while position < len(text):
        token = _TOKEN.match(text, position)
        if token is None:
            raise ScfgError(f"{place}:{offset + position + 1}: cannot read {text[position:position + 20]!r}")
        kind = token.lastgroup
        if kind == "repeat":
            if not current or current[-1].repeat:
                raise ScfgError(f"{place}:{offset + position + 1}: {token.group()!r} follows nothing to repeat")
            current[-1] = Symbol(current[-1].kind, current[-1].text, token.group())
        elif kind == "literal":
            current.append(Symbol("literal", _decode(token.group(), place, offset + position)))
        elif kind == "regex":
            current.append(Symbol("regex", token.group()[1:-1]))
        elif kind == "name":
            current.append(Symbol("name", token.group()))
        elif kind in ("bar", "comma"):
            sides[-1].append(tuple(current))
            current = []
            if kind == "comma":
                if len(sides) == 2:
                    raise ScfgError(f"{place}:{offset + position + 1}: a rule has at most two sides")
                sides.append([])
        position = token.end()
    sides[-1].append(tuple(current))
    return sides


def _decode(literal: str, place: str, column: int) -> str:
    try:
        return json.loads(literal)
    except json.JSONDecodeError:
        raise ScfgError(f"{place}:{column + 1}: the literal {literal[:40]} has an escape JSON does not know") \
            from None


def scfg_to_lark(scfg: Scfg, side: str = "source", start: str = "start",
                 extra: Mapping[str, Sequence[Alternative]] | None = None,
                 split: Callable[[str], list[str]] = list) -> str:
    """``side`` of ``scfg`` as Lark source, from ``start``; ``extra`` adds alternatives (per-instance rules, such
    as a database's table names) before the reachable rules are chosen. ``split`` cuts each literal into the
    pieces written as separate lexemes: one character each by default (see the module doc); a grammar whose names
    always end at a delimiter may keep them whole (the Lispress grammar splits at spaces, brackets and quotes)."""
    rules = {name: list(alternatives) for name, alternatives in scfg.side(side).items()}
    for name, alternatives in (extra or {}).items():
        rules.setdefault(name, []).extend(alternatives)
    if start not in rules:
        raise ScfgError(f"the grammar has no rule for its start symbol {start!r}")
    reachable = _reachable(rules, start, scfg.where)
    names = _lark_names(reachable, start)
    lines = []
    for name in reachable:
        written = [" ".join(_lark_item(symbol, names, split) for symbol in alternative)
                   for alternative in rules[name]]
        lines.append(f"{names[name]}: " + " | ".join(alternative or '""' for alternative in written))
    return "\n".join(lines) + "\n"


def _reachable(rules: Mapping[str, list[Alternative]], start: str, where: Mapping[str, str]) -> list[str]:
    order, seen, todo = [], {start}, [start]
    while todo:
        name = todo.pop()
        order.append(name)
        for alternative in rules[name]:
            for symbol in alternative:
                if symbol.kind != "name" or symbol.text in seen:
                    continue
                if symbol.text not in rules:
                    raise ScfgError(f"{where.get(name, name)}: {name!r} uses {symbol.text!r}, which no rule defines")
                seen.add(symbol.text)
                todo.append(symbol.text)
    return order


_LARK_NAME = re.compile(r"[a-z][a-z0-9_]*")


def _lark_names(names: Iterable[str], start: str) -> dict[str, str]:
    """A Lark rule name per SCFG name: lower-case names stay, others become ``u_<lowered>`` (``A`` and ``a`` are
    different nonterminals of the SQL grammar), numbered on a clash; the start symbol is ``start``."""
    chosen: dict[str, str] = {start: "start"}
    taken = {"start"}
    for name in names:
        if name in chosen:
            continue
        base = name if _LARK_NAME.fullmatch(name) and name != "start" else "u_" + name.lower().lstrip("_")
        candidate, k = base, 2
        while candidate in taken:
            candidate, k = f"{base}_{k}", k + 1
        chosen[name] = candidate
        taken.add(candidate)
    return chosen


def bound_depth(rules: Mapping[str, Sequence[Alternative]], name: str, depth: int) -> dict[str, list[Alternative]]:
    """``rules`` where ``name`` nests inside itself at most ``depth`` times (``depth=2``: a query, a subquery in it
    and one in that): the rules on a cycle through ``name`` are copied once per level (``x__d1``), each level's
    ``name`` refers to the next level's, and the last level's alternatives that would go deeper are dropped, with
    whatever could then derive nothing. The language is the old one cut at that depth."""
    cycle = _reaches(rules, name) & {x for x in rules if name in _reaches(rules, x)}
    if name not in cycle:
        return {k: list(v) for k, v in rules.items()}
    out = {k: list(v) for k, v in rules.items() if k not in cycle}

    def level(x: str, k: int) -> str:
        return x if k == 0 else f"{x}__d{k}"

    for k in range(depth + 1):
        for x in cycle:
            alternatives = []
            for alternative in rules[x]:
                renamed, deeper = [], False
                for symbol in alternative:
                    if symbol.kind == "name" and symbol.text in cycle:
                        at = k + 1 if symbol.text == name else k
                        deeper |= at > depth
                        symbol = Symbol("name", level(symbol.text, at), symbol.repeat)
                    renamed.append(symbol)
                if not deeper:
                    alternatives.append(tuple(renamed))
            out[level(x, k)] = alternatives
    return productive(out)


def _reaches(rules: Mapping[str, Sequence[Alternative]], start: str) -> set[str]:
    """The names ``start``'s rules use, directly or not (``start`` itself only on a cycle)."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for alternative in rules.get(todo.pop(), ()):
            for symbol in alternative:
                if symbol.kind == "name" and symbol.text not in seen:
                    seen.add(symbol.text)
                    todo.append(symbol.text)
    return seen


def productive(rules: Mapping[str, Sequence[Alternative]]) -> dict[str, list[Alternative]]:
    """``rules`` without the alternatives that use a name deriving no text (undefined, or only through itself),
    and without the rules left with none: the same language. An optional use (``x?``, ``x*``) of such a name is
    dropped from its alternative rather than dropping the alternative."""
    good: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, alternatives in rules.items():
            if name not in good and any(all(s.kind != "name" or s.text in good or s.repeat in ("?", "*")
                                            for s in alternative) for alternative in alternatives):
                good.add(name)
                changed = True
    out = {}
    for name, alternatives in rules.items():
        kept = []
        for alternative in alternatives:
            if all(s.kind != "name" or s.text in good for s in alternative):
                kept.append(alternative)
            elif all(s.kind != "name" or s.text in good or s.repeat in ("?", "*") for s in alternative):
                kept.append(tuple(s for s in alternative if s.kind != "name" or s.text in good))
        if kept or name not in good:
            out[name] = kept
    return {name: alternatives for name, alternatives in out.items() if alternatives}


_META = set("\\.^$|?*+()[]{}/")


def regex_escape(text: str) -> str:
    """``text`` as a regex for llguidance (which refuses some escapes Python's ``re.escape`` writes, such as
    ``\\<``)."""
    return "".join("\\" + char if char in _META else char for char in text)


def fold_lexemes(rules: Mapping[str, Sequence[Alternative]], names: Iterable[str]) -> dict[str, list[Alternative]]:
    """``rules`` with each of ``names`` turned into one regex, so the engine reads it as one lexeme (a keyword, an
    operator, a number), with what it uses inlined. A name whose rules recurse is left as it is.

    Why: with every lexeme one character long, llguidance runs its Earley parser once per byte of every token it
    considers, and a mask over a 49k-token vocabulary passes its limit of items (``ParserTooComplex``). Only
    rules that are words of their own should be folded: a folded lexeme is read greedily, so one that could end
    inside what another continues (``[ \\t]+AS`` beside ``[ \\t]+``) would make the engine refuse valid text.
    """
    out = {name: list(alternatives) for name, alternatives in rules.items()}
    memo: dict[str, str | None] = {}

    def regex(name: str, stack: frozenset[str]) -> str | None:
        if name in memo:
            return memo[name]
        if name in stack or name not in rules:
            return None
        parts: list[str] = []
        for alternative in rules[name]:
            pieces = [item(symbol, stack | {name}) for symbol in alternative]
            if any(piece is None for piece in pieces):
                memo[name] = None
                return None
            parts.append("".join(piece for piece in pieces if piece is not None))
        if all(len(part) == 1 for part in parts) and len(parts) > 1:
            found = "[" + "".join("\\" + p if p in "\\]^-[" else p for p in parts) + "]"
        elif len(parts) == 1:
            found = parts[0]
        else:
            found = "(?:" + "|".join(parts) + ")"
        memo[name] = found
        return found

    def item(symbol: Symbol, stack: frozenset[str]) -> str | None:
        if symbol.kind == "literal":
            text = regex_escape(symbol.text)
            body = text if len(symbol.text) == 1 else f"(?:{text})"
        elif symbol.kind == "regex":
            body = f"(?:{symbol.text})"
        else:
            inner = regex(symbol.text, stack)
            if inner is None:
                return None
            body = inner if inner.startswith(("[", "(?:")) and _one_group(inner) else f"(?:{inner})"
        if not symbol.repeat:
            return body if symbol.kind != "literal" or len(symbol.text) == 1 else regex_escape(symbol.text)
        return body + symbol.repeat

    for name in names:
        found = regex(name, frozenset())
        if found:
            out[name] = [(Symbol("regex", found),)]
    return out


def _one_group(text: str) -> bool:
    """Whether ``text`` is a single ``[...]`` class or ``(?:...)`` group (so a repeat applies to all of it)."""
    depth = 0
    escaped = False
    for k, char in enumerate(text):
        if escaped:
            escaped = False
            continue
        if char == "\\":
            escaped = True
        elif char in "[(":
            depth += 1
        elif char in "])":
            depth -= 1
            if depth == 0 and k != len(text) - 1:
                return False
    return True


def _lark_item(symbol: Symbol, names: Mapping[str, str], split: Callable[[str], list[str]]) -> str:
    if symbol.kind == "name":
        return names[symbol.text] + symbol.repeat
    if symbol.kind == "regex":
        return f"/{symbol.text}/{symbol.repeat}"
    pieces = [json.dumps(piece) for piece in split(symbol.text)] or ['""']
    return f"({' '.join(pieces)}){symbol.repeat}" if symbol.repeat and len(pieces) > 1 else \
        " ".join(pieces) + symbol.repeat
