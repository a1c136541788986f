"""The shortest text that completes a prefix into a sentence of a grammar: how a cut-off output is closed.

A constrained output that reaches its token budget mid-structure (a model looping inside a recursive rule) is
a prefix of the grammar but not a sentence: it does not parse, and its work is lost. Appending the grammar's
shortest completion makes it a sentence with as little text as possible that the model did not write; the
runner records what was appended.

The search is A* over bytes with llguidance's masks as the oracle (the byte-level vocabulary of
``corral.grammars.sample``): a path is a byte string, it ends when the matcher accepts, and the cost is its
length. The heuristic counts the brackets and quotes still open in the text: each needs at least one byte to
close, so it never overestimates, and along a path of closing bytes the estimate stays flat, so the search dives
straight to the end of a deeply nested prefix. A required argument (a Lispress ``:date``) is a short detour the
search explores breadth-first.

Whitespace is where the frontier explodes: a grammar that ignores spaces between lexemes allows any run of
spaces, tabs and newlines at every boundary. The search writes at most one whitespace byte in a row, a space
where a space is allowed; this only prunes paths that are longer or equal, and a path is returned only when the
matcher accepts it. Node and time budgets bound the search; past them it gives up (``None``).
"""

from __future__ import annotations

import heapq
import itertools
import time
from dataclasses import dataclass

from ._grammar import Grammar
from ._sample import EOS, _allowed, _matcher

_OPENERS = {ord("("): ord(")"), ord("["): ord("]"), ord("{"): ord("}")}
_CLOSERS = set(_OPENERS.values())
_QUOTES = {ord('"'), ord("'")}
_SPACE = ord(" ")
_SPACES = {ord(c) for c in " \t\r\n"}
_SPACE_BYTES = {bytes([c]) for c in _SPACES}


@dataclass(frozen=True)
class _Nesting:
    """Brackets still open, innermost last, and the quote a string is open with (0 if none)."""

    open: tuple[int, ...] = ()
    quote: int = 0

    def step(self, byte: int) -> _Nesting:
        if self.quote:
            return _Nesting(self.open, 0) if byte == self.quote else self
        if byte in _QUOTES:
            return _Nesting(self.open, byte)
        if byte in _OPENERS:
            return _Nesting((*self.open, _OPENERS[byte]), 0)
        if byte in _CLOSERS and self.open and self.open[-1] == byte:
            return _Nesting(self.open[:-1], 0)
        return self

    @property
    def estimate(self) -> int:
        """Bytes at least still needed: one per open bracket and one for an open string."""
        return len(self.open) + (1 if self.quote else 0)


def nesting(text: bytes) -> _Nesting:
    state = _Nesting()
    for byte in text:
        state = state.step(byte)
    return state


def shortest_completion(grammar: Grammar, prefix: str, *, max_nodes: int = 500_000, seconds: float = 2.0,
                        max_bytes: int = 2_000) -> str | None:
    """The shortest ``s`` such that ``prefix + s`` is a sentence of ``grammar`` ("" if it already is).

    None when ``prefix`` is not a prefix of the grammar, or no completion was found within ``max_nodes``
    expanded paths, ``seconds`` or ``max_bytes`` (the budgets: a grammar can make the search explode).
    """
    matcher = _matcher(grammar)
    data = prefix.encode("utf-8")
    if data and not matcher.consume_tokens(list(data)):
        return None
    if matcher.is_error():
        return None
    started = time.perf_counter()
    order = itertools.count()
    start = nesting(data)
    # (estimated total, -length, tie, path, nesting, the parent's matcher, the byte to consume into it)
    queue: list[tuple[int, int, int, bytes, _Nesting, object, int | None]] = [
        (start.estimate, 0, next(order), b"", start, matcher, None)]
    expanded = 0
    while queue and expanded < max_nodes and time.perf_counter() - started < seconds:
        _, _, _, path, state, parent, byte = heapq.heappop(queue)
        if byte is None:
            current = parent
        else:
            current = parent.deep_copy()  # type: ignore[attr-defined]
            if not current.consume_token(byte):
                continue
        if current.is_accepting():
            return path.decode("utf-8", errors="replace")
        if len(path) >= max_bytes:
            continue
        expanded += 1
        options = _allowed(current)
        last = (data + path)[-1:]
        for allowed in options:
            if allowed == EOS or (allowed in _SPACES and (last in _SPACE_BYTES or (
                    allowed != _SPACE and _SPACE in options))):
                continue
            following = state.step(allowed)
            cost = len(path) + 1
            heapq.heappush(queue, (cost + following.estimate, -cost, next(order), path + bytes([allowed]),
                                   following, current, allowed))
    return None
