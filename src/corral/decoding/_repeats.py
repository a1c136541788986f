"""A repeat limit: refuse the tokens that would start one more copy of text the output has just repeated.

Greedy decoding of a small model falls into loops (``AND a = b AND a = b AND ...``, ``(  (  (  (``,
``ire ire ire``). Under a grammar a loop is worse than under free decoding: the grammar keeps every copy legal, so
the output runs to the token budget and is cut off unfinished. A repetition *penalty* rescales logits and still
lets a confident loop through; the guard here is a hard rule with one parameter. With ``limit`` k, once the output
ends with k copies in a row of a block of text, every token whose text would begin copy k + 1 is refused (a
start of the block, or the whole block and anything after it), and the model picks its next best among the
tokens still allowed.

The rule works on the text, not on token ids: a loop is easily written with a different split each time
(`` the`` then `` th`` + ``e``), and a token-level rule never sees it. Which blocks count:

- a block spans a word boundary (it holds whitespace), so ``Mississippi`` and ``banana`` are never loops;
- a block of only digits, closing brackets and whitespace may repeat without limit (``1000``, ``)))``): closing
  brackets is how a nested output ends;
- the output is read as if it began with a space, so ``the the`` already counts as two copies of `` the``.

When every token the grammar allows is refused, the guard gives way: the grammar always wins.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

_ALWAYS_ALLOWED = frozenset(b"0123456789)]}> \t\r\n")


def repeatable(text: bytes) -> bool:
    """Whether a block may repeat without limit: only digits, closing brackets and whitespace."""
    return all(byte in _ALWAYS_ALLOWED for byte in text)


def loop_blocks(text: bytes, limit: int, longest: int = 64) -> list[bytes]:
    """The blocks of at most ``longest`` bytes that end ``text`` ``limit`` times in a row and count as a loop."""
    if limit < 1:
        raise ValueError(f"a repeat limit must be >= 1, got {limit}")
    text = b" " + text[-limit * longest:]
    blocks = []
    for size in range(1, min(longest, len(text) // limit) + 1):
        block = text[-size:]
        if text[-limit * size:] == block * limit and not repeatable(block) and any(c in b" \t\r\n" for c in block):
            blocks.append(block)
    return blocks


@dataclass(frozen=True)
class TokenTable:
    """A vocabulary's token texts as bytes, indexed by id; ids by text, and texts in sorted order for finding
    every token that begins with a given block (built once per model)."""

    texts: tuple[bytes, ...]
    ids: dict[bytes, tuple[int, ...]] = field(init=False, repr=False)
    _sorted: list[bytes] = field(init=False, repr=False)
    longest: int = field(init=False)

    def __post_init__(self) -> None:
        ids: dict[bytes, list[int]] = {}
        for token, text in enumerate(self.texts):
            if text:
                ids.setdefault(text, []).append(token)
        object.__setattr__(self, "ids", {text: tuple(found) for text, found in ids.items()})
        object.__setattr__(self, "_sorted", sorted(ids))
        object.__setattr__(self, "longest", max(map(len, ids), default=1))

    def starting_with(self, start: bytes) -> list[bytes]:
        """The token texts that begin with ``start``."""
        first = bisect.bisect_left(self._sorted, start)
        last = first
        while last < len(self._sorted) and self._sorted[last].startswith(start):
            last += 1
        return self._sorted[first:last]


@dataclass
class RepeatGuard:
    """The repeat limit for one sequence: ``push`` each token the output takes, ask ``refused`` before the next."""

    limit: int
    table: TokenTable
    longest: int = 64
    text: bytearray = field(default_factory=bytearray)

    def push(self, token: int) -> None:
        self.text += self.table.texts[token] if 0 <= token < len(self.table.texts) else b""

    def refused(self) -> set[int]:
        """The tokens that would make a looping block appear ``limit + 1`` times in a row, and those that would
        begin copy ``limit + 1`` right after ``limit`` whole copies.

        For each block size, the run is the longest end of the text with that period; a token extends the run
        by as many bytes as it agrees with the run's continuation. Copy ``limit + 1`` of some rotation of the
        block is complete once the run reaches ``(limit + 1) * size`` bytes, possibly inside the token.
        """
        text = b" " + bytes(self.text[-(self.limit + 1) * self.longest:])
        n, reach = len(text), self.table.longest
        found: set[int] = set()
        for size in range(1, min(self.longest, n) + 1):
            run = size
            while run < n and text[n - run - 1] == text[n - run - 1 + size]:
                run += 1
            need = max((self.limit + 1) * size - run, 1)
            whole = run >= self.limit * size  # whole copies end the text: a start of the next one is refused too
            if need > reach and not whole:
                continue
            block = text[n - size:]
            if repeatable(block) or not any(byte in b" \t\r\n" for byte in block):
                continue
            following = block * (reach // size + 2)
            if need <= reach:
                for start in self.table.starting_with(following[:need]):
                    found.update(self.table.ids[start])
            if whole:
                for end in range(1, min(need, reach + 1)):
                    found.update(self.table.ids.get(following[:end], ()))
        return found
