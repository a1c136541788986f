"""The shortest text that completes a prefix into a sentence of a grammar: how a cut-off output is closed.

A constrained output that reaches its token budget mid-structure (a model looping inside a recursive rule) is
a prefix of the grammar but not a sentence: it does not parse, and its work is lost. Appending the grammar's
shortest completion makes it a sentence with as little text as possible that the model did not write; the
runner records what was appended.

The search is A* over bytes with llguidance's masks as the oracle (the byte-level vocabulary of
``corral.grammars.sample``): a path is a byte string, it ends when the matcher accepts, and the cost is its
length. The heuristic counts what is still open in the text: brackets and quotes (a byte each to close) and XML
elements (``</name>``), so it never overestimates on text where those marks mean what they look like. Along
a path of closing bytes the estimate stays flat, so the search dives straight to the end of a deeply nested
prefix. A required argument (a Lispress ``:date``) is a short detour the
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
from dataclasses import dataclass, replace

from ._grammar import Grammar
from ._sample import EOS, allowed_bytes, byte_matcher

_OPENERS = {ord("("): ord(")"), ord("["): ord("]"), ord("{"): ord("}")}
_CLOSERS = set(_OPENERS.values())
_QUOTES = {ord('"'), ord("'")}
_SPACE = ord(" ")
_SPACES = {ord(c) for c in " \t\r\n"}
_SPACE_BYTES = {bytes([c]) for c in _SPACES}


_NAME_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-:.")


@dataclass(frozen=True)
class _Nesting:
    """What is still open at the end of a text: brackets (innermost last), a string's quote (0 if none) and XML
    elements (names, innermost last), with where a tag being written stands."""

    open: tuple[int, ...] = ()
    quote: int = 0
    elements: tuple[bytes, ...] = ()
    tag: str = ""  # "" outside a tag; "<" just opened; "name" / "attrs" in a start tag; "/" at its "/>"; "end"
    name: bytes = b""

    def step(self, byte: int) -> _Nesting:
        if self.quote:
            return replace(self, quote=0) if byte == self.quote else self
        if self.tag:
            return self._in_tag(byte)
        if byte in _QUOTES:
            return replace(self, quote=byte)
        if byte == ord("<"):
            return replace(self, tag="<", name=b"")
        if byte in _OPENERS:
            return replace(self, open=(*self.open, _OPENERS[byte]))
        if byte in _CLOSERS and self.open and self.open[-1] == byte:
            return replace(self, open=self.open[:-1])
        return self

    def _in_tag(self, byte: int) -> _Nesting:
        tag = self.tag
        if tag == "<":
            if byte == ord("/"):
                return replace(self, tag="end")
            return replace(self, tag="name", name=bytes([byte])) if byte in _NAME_BYTES else replace(self, tag="")
        if tag == "end":
            if byte == ord(">"):
                return replace(self, tag="", elements=self.elements[:-1])
            return self
        if tag == "name" and byte in _NAME_BYTES:
            return replace(self, name=self.name + bytes([byte]))
        if byte in _QUOTES:
            return replace(self, tag="attrs", quote=byte)
        if byte == ord(">"):
            opened = self.elements if tag == "/" else (*self.elements, self.name)
            return replace(self, tag="", elements=opened, name=b"")
        return replace(self, tag="/" if byte == ord("/") else "attrs")

    @property
    def depth(self) -> int:
        """How many brackets and elements are open."""
        return len(self.open) + len(self.elements)

    @property
    def estimate(self) -> int:
        """Bytes at least still needed: one per open bracket, one for an open string, ``</name>`` per open
        element, and the ``>`` of a tag being written."""
        return (len(self.open) + (1 if self.quote else 0) + sum(len(name) + 3 for name in self.elements)
                + (1 if self.tag and self.tag != "<" else 0))


def nesting(text: bytes) -> _Nesting:
    state = _Nesting()
    for byte in text:
        state = state.step(byte)
    return state


def shortest_completion(grammar: Grammar, prefix: str, *, max_nodes: int = 500_000, seconds: float = 5.0,
                        max_bytes: int = 2_000) -> str | None:
    """The shortest ``s`` such that ``prefix + s`` is a sentence of ``grammar`` ("" if it already is), found by
    A* in the first quarter of ``seconds`` (where it succeeds it takes milliseconds); failing that, a completion
    found greedily in the rest.

    None when ``prefix`` is not a prefix of the grammar, or no completion was found within ``max_nodes``
    expanded paths, ``seconds`` or ``max_bytes`` (the budgets: a grammar can make the search explode).
    """
    matcher = byte_matcher(grammar)
    data = prefix.encode("utf-8")
    if data and not matcher.consume_tokens(list(data)):
        return None
    if matcher.is_error():
        return None
    for candidate in _hinted(grammar.hints):
        trial = matcher.deep_copy()
        if trial.consume_tokens(list(candidate)) and trial.is_accepting():
            return candidate.decode("utf-8")
    deadline = time.perf_counter() + seconds
    start = nesting(data)
    found = _shortest(matcher.deep_copy(), data, start, max_nodes, time.perf_counter() + seconds / 4, max_bytes)
    if found is None:
        found = _greedy(matcher, data, start, deadline, max_bytes, _chunks(grammar.hints))
    return None if found is None else found.decode("utf-8", errors="replace")


def _hinted(hints: tuple[str, ...]) -> list[bytes]:
    """Completions made of the grammar's hints, tried first: a byte search would almost never spell a required
    word ("witness"), while "the text still needs these words" is the usual reason a cut-off sentence fails. The
    words are tried in their order, with fewer of them first, each ending in a period."""
    words = list(dict.fromkeys(h.lower() for h in hints if h and " " not in h and h.strip(".") == h))[:4]
    out: list[bytes] = [b".", b""]
    for r in range(1, len(words) + 1):
        for chosen in itertools.combinations(words, r):
            out.append((" " + " ".join(chosen) + ".").encode())
    return out


def _options(allowed: list[int], last: bytes) -> list[int]:
    """The bytes worth trying: no end-of-sequence, and one whitespace byte at a time, a space where allowed."""
    return [byte for byte in allowed if byte != EOS and not (byte in _SPACES and (
        last in _SPACE_BYTES or (byte != _SPACE and _SPACE in allowed)))]


def _shortest(matcher, data: bytes, start: _Nesting, max_nodes: int, deadline: float,
              max_bytes: int) -> bytes | None:
    """A*: the shortest completion, or None past the budgets.

    One matcher walks the whole search: to visit a path it rolls back to what that path shares with the one it
    holds and consumes the rest (a few bytes: A* visits neighbours). A copy per expanded path would hold the parse
    of the whole prefix each time: on a 1,200-token COLLIE passage 5,000 of them took 380 MB."""
    order = itertools.count()
    # (estimated total, -length, tie, path, nesting after it)
    queue: list[tuple[int, int, int, bytes, _Nesting]] = [(start.estimate, 0, next(order), b"", start)]
    held = b""  # the path the matcher has consumed beyond the prefix
    expanded = 0
    while queue and expanded < max_nodes and time.perf_counter() < deadline:
        _, _, _, path, state = heapq.heappop(queue)
        shared = _shared(held, path)
        if len(held) > shared:
            matcher.rollback(len(held) - shared)
        held = path[:shared]
        if len(path) > shared:
            consumed = matcher.try_consume_tokens(list(path[shared:]))
            held = path[:shared + consumed]
            if consumed < len(path) - shared:
                continue
        if matcher.is_accepting():
            return path
        if len(path) >= max_bytes:
            continue
        expanded += 1
        for allowed in _options(allowed_bytes(matcher), path[-1:] or data[-1:]):
            following = state.step(allowed)
            cost = len(path) + 1
            heapq.heappush(queue, (cost + following.estimate, -cost, next(order), path + bytes([allowed]), following))
    return None


def _shared(a: bytes, b: bytes) -> int:
    """The length of the longest common prefix of ``a`` and ``b``."""
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


_PREFERRED = b')]}"\'>/<;,.01 aeiostnrlTSAI'
"""The greedy search's order among bytes of equal estimate: close things, end tags, then short common text."""


def _chunks(hints: tuple[str, ...]) -> tuple[bytes, ...]:
    """The hints the greedy search writes whole where it can (in the constraint's order, each at most once on a
    path): a passage cut off before its fixed sentences is finished in a few steps instead of a search that spells
    them byte by byte."""
    return tuple(dict.fromkeys(h.encode("utf-8") for h in hints if h.strip()))


def _greedy(matcher, data: bytes, start: _Nesting, deadline: float, max_bytes: int,
            hints: tuple[bytes, ...] = ()) -> bytes | None:
    """*A* completion where the shortest is out of reach (a grammar that requires long content, such as an XML
    document's required sections): depth first, trying first the bytes that close the most, with iterative
    deepening on how many brackets and elements may be open beyond the prefix's own. Without that bound the
    search follows a recursive rule forever (``(andConstraint (andConstraint ...``)."""
    for deeper in (1, 2, 3, 5, 8, 13):
        if time.perf_counter() >= deadline:
            return None
        found = _depth_first(matcher.deep_copy(), data, start, deadline, max_bytes, start.depth + deeper, hints)
        if found is not None:
            return found
    return None


def _hint_options(text: bytes, hints: tuple[bytes, ...]) -> list[bytes]:
    """The hints (whole sentences) worth trying after ``text`` (the output's last bytes, all of it when short):
    right after a sentence's final mark, each after a
    paragraph break or a space (the byte search never writes a line break where a space is allowed, so without
    this a passage cut off before its last paragraphs is never finished); at a line start, each as it is."""
    if not text or text.endswith(b"\n"):
        return list(hints)
    if text.rstrip(b"\"')\xe2\x80\x9d\x99")[-1:] in (b".", b"!", b"?"):
        return [sep + h for sep in (b"\n\n", b" ") for h in hints]
    return []


def _fits(matcher, chunk: bytes) -> bool:
    """Whether the matcher takes all of ``chunk`` next (it is left as it was)."""
    consumed = matcher.try_consume_tokens(list(chunk))
    if consumed:
        matcher.rollback(consumed)
    return consumed == len(chunk)


def _depth_first(matcher, data: bytes, start: _Nesting, deadline: float, max_bytes: int,
                 max_depth: int, hints: tuple[bytes, ...] = ()) -> bytes | None:
    rank = {byte: i for i, byte in enumerate(_PREFERRED)}
    path = bytearray()
    states = [start]  # the nesting after each step
    taken: list[int] = []  # bytes consumed per step: one, or a run the grammar forces (a copied word)
    stack: list[list[bytes]] = []
    written: dict[bytes, int] = {}  # hint chunks on the path, by the step that wrote them: each is written once
    while time.perf_counter() < deadline:
        if matcher.is_accepting():
            return bytes(path)
        if len(stack) == len(taken):
            state = states[-1]
            forced = bytes(matcher.compute_ff_bytes()) if len(path) < max_bytes else b""
            if forced:
                options = [forced]
            else:
                tail = bytes(path[-8:]) if len(path) >= 8 else data[-8:] + bytes(path)  # no copy of the prefix
                allowed = _options(allowed_bytes(matcher), tail[-1:]) if len(path) < max_bytes else []
                following = {byte: state.step(byte) for byte in allowed}
                allowed = [byte for byte in allowed if following[byte].depth <= max_depth]
                allowed.sort(key=lambda byte: (following[byte].estimate, rank.get(byte, len(rank)), byte))
                options = [bytes([byte]) for byte in allowed]
                if hints:
                    options = [h for h in _hint_options(tail, hints) if h not in written
                               and len(path) + len(h) <= max_bytes and _fits(matcher, h)] + options
            stack.append(options)
        options = stack[-1]
        if not options:
            stack.pop()
            if not taken:
                return None
            for chunk in [c for c, at in written.items() if at == len(taken)]:
                del written[chunk]  # a hint written at the step undone may be written again
            n = taken.pop()
            del path[len(path) - n:]
            states.pop()
            matcher.rollback(n)
            stack[-1].pop(0)
            continue
        chunk = options[0]
        consumed = matcher.try_consume_tokens(list(chunk))
        if consumed < len(chunk):
            if consumed:
                matcher.rollback(consumed)
            options.pop(0)
            continue
        state = states[-1]
        for byte in chunk:
            state = state.step(byte)
        if state.depth > max_depth:
            matcher.rollback(len(chunk))
            options.pop(0)
            continue
        path += chunk
        taken.append(len(chunk))
        if len(chunk) > 1 and chunk not in written:
            written[chunk] = len(taken)
        states.append(state)
    return None
