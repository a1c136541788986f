"""Lispress, SMCalFlow's program notation: read it, print it one canonical way, and compare two programs.

A program is an s-expression: ``(f :arg value ...)`` calls, ``#(Type "text")`` and ``#(Number 2)`` value
literals, ``^(Type)`` annotations, ``[...]`` lists, ``"..."`` strings with backslash escapes, and atoms (names,
``:keywords``, ``^Type``, numbers such as ``2L``; a type's brackets belong to its name: ``Constraint[Event]``).
BenchCLAMP scores SMCalFlow by *Lispress match*: two programs match when they print the same after canonical
printing, so spacing and line breaks do not count, and nothing else is forgiven (argument order, literal types
and string contents all count).

The canonical form here is one line: a group's items joined by one space, no space inside its brackets, strings
written with JSON's escapes. A text that does not read as one whole program (unbalanced brackets, an
unterminated string, text after the program) raises ``LispressError`` naming the character offset.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from corral.errors import InputError

__all__ = ["Group", "LispressError", "Node", "canonical_lispress", "lispress_match", "read_lispress"]

MAX_DEPTH = 200
"""Deeper programs are refused (SMCalFlow's deepest validation program nests 31 levels)."""


class LispressError(InputError):
    """A text that is not one Lispress program."""


@dataclass(frozen=True)
class Group:
    """A bracketed group: ``(...)``, ``#(...)`` (a value literal), ``^(...)`` (a type) or ``[...]``."""

    opener: str
    items: tuple[Node, ...]


Node = Group | str
"""A group, or an atom: a name, keyword, number or a string literal as written (quotes included)."""

_CLOSERS = {"(": ")", "#(": ")", "^(": ")", "[": "]"}


def read_lispress(text: str) -> Node:
    """The one program ``text`` holds (surrounding whitespace allowed)."""
    stack: list[tuple[str, list[Node], int]] = []
    done: list[Node] = []
    i, end = 0, len(text)
    while i < end:
        c = text[i]
        if c.isspace():
            i += 1
            continue
        if c in "([" or (c in "#^" and text.startswith("(", i + 1)):
            opener = c + "(" if c in "#^" else c
            if len(stack) >= MAX_DEPTH:
                raise LispressError(f"nested deeper than {MAX_DEPTH} groups at offset {i}")
            stack.append((opener, [], i))
            i += len(opener)
            continue
        if c in ")]":
            if not stack or _CLOSERS[stack[-1][0]] != c:
                raise LispressError(f"unexpected {c!r} at offset {i}")
            opener, items, start = stack.pop()
            node: Node = Group(opener, tuple(items))
            i += 1
        elif c == '"':
            start, j = i, _string_end(text, i)
            node = _canonical_string(text[i:j], i)
            i = j
        else:
            start, j = i, _atom_end(text, i)
            node = text[i:j]
            i = j
        if stack:
            stack[-1][1].append(node)
        else:
            done.append(node)
            if len(done) > 1:
                raise LispressError(f"text after the program at offset {start}")
    if stack:
        raise LispressError(f"unclosed {stack[-1][0]!r} opened at offset {stack[-1][2]}")
    if not done:
        raise LispressError("no program: the text is empty")
    return done[0]


def canonical_lispress(program: str | Node) -> str:
    """``program`` (text or tree) printed the canonical way."""
    return _flat(read_lispress(program) if isinstance(program, str) else program)


def lispress_match(predicted: str, gold: str) -> bool:
    """BenchCLAMP's Lispress match: both read, and print the same. An unreadable prediction does not match."""
    try:
        return canonical_lispress(predicted) == canonical_lispress(gold)
    except LispressError:
        return False


def _flat(node: Node) -> str:
    if isinstance(node, str):
        return node
    parts: list[str] = []
    stack: list[tuple[Group, int]] = [(node, 0)]  # iterative: a deep program must not exhaust Python's stack
    while stack:
        group, k = stack.pop()
        if k == 0:
            parts.append(group.opener)
        if k < len(group.items):
            stack.append((group, k + 1))
            if k:
                parts.append(" ")
            item = group.items[k]
            if isinstance(item, str):
                parts.append(item)
            else:
                stack.append((item, 0))
        else:
            parts.append(_CLOSERS[group.opener])
    return "".join(parts)


def _atom_end(text: str, start: int) -> int:
    """The offset just past the atom at ``start``; brackets right after a name belong to it (``Constraint[Event]``,
    ``List[Path]``), while a ``[`` after a space opens a list."""
    i, depth = start, 0
    while i < len(text):
        c = text[i]
        if c == "[" and i > start:
            depth += 1
        elif c == "]" and depth:
            depth -= 1
        elif c.isspace() or c in '()[]"':
            break
        i += 1
    return i


def _string_end(text: str, start: int) -> int:
    """The offset just past the string literal opening at ``start``."""
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == '"':
            return i + 1
        else:
            i += 1
    raise LispressError(f"unterminated string opened at offset {start}")


def _canonical_string(literal: str, at: int) -> str:
    """A string literal with JSON's escapes (``"a\\"b"`` stays, ``"\\u0041"`` becomes ``"A"``)."""
    try:
        value = json.loads(literal)
    except json.JSONDecodeError:
        value = literal[1:-1].replace('\\"', '"').replace("\\\\", "\\")  # (an escape JSON lacks: kept as read)
    if not isinstance(value, str):
        raise LispressError(f"bad string literal at offset {at}")
    return json.dumps(value, ensure_ascii=False)

