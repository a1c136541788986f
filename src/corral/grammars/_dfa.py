"""Deterministic automata over Unicode: the regular languages behind the GBNF converter (``_regular``, ``_gbnf``).

A character class is a tuple of code-point ranges; an automaton's alphabet is a partition of all of Unicode into
such classes, so ``.`` or ``[^ ]`` costs one symbol, not a million. Every operation the converter needs is here:
union, intersection (``&``), complement (``~``), concatenation, star, and minimisation.

Why not greenery (which does all of these): it minimises by double reversal (Brzozowski), which is exponential on
exactly the languages compiled constraints make: "the tenth character is an r" (``.{10}[rR].*``) reversed is
"the tenth from the end", whose DFA has 2^10 states, and greenery built it for 14 s where Hopcroft's partition
refinement below takes a millisecond; its state search is also quadratic (a list lookup per transition). The
automata here are small and complete (a dead state where needed), every result is minimised, and every
construction reports its size to a ``grow`` callback, so a caller's budget stops a blow-up while it happens.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

MAX_CODE = 0x10FFFF

Ranges = tuple[tuple[int, int], ...]
"""A character class: sorted, disjoint, non-adjacent inclusive code-point ranges."""

Grow = Callable[[int], None]
"""Told the number of states a construction has reached; raises to stop it."""


def normalize(pairs: Iterable[tuple[int, int]]) -> Ranges:
    """``pairs`` (any order, overlapping) as a class."""
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(pairs):
        if out and lo <= out[-1][1] + 1:
            if hi > out[-1][1]:
                out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return tuple(out)


def negate(ranges: Ranges) -> Ranges:
    """Every code point not in ``ranges``."""
    out = []
    at = 0
    for lo, hi in ranges:
        if lo > at:
            out.append((at, lo - 1))
        at = hi + 1
    if at <= MAX_CODE:
        out.append((at, MAX_CODE))
    return tuple(out)


def _nothing(_: int) -> None:
    return None


@dataclass(frozen=True, eq=False)
class Dfa:
    """A complete DFA: ``classes`` partition Unicode, ``table[s][i]`` is the state after a character of
    ``classes[i]`` in state ``s``; state 0 starts; ``finals`` accept."""

    classes: tuple[Ranges, ...]
    table: tuple[tuple[int, ...], ...]
    finals: frozenset[int]

    @property
    def size(self) -> int:
        return len(self.table)

    def accepts(self, text: str) -> bool:
        state = 0
        for char in text:
            point = ord(char)
            column = next(i for i, cls in enumerate(self.classes) if any(lo <= point <= hi for lo, hi in cls))
            state = self.table[state][column]
        return state in self.finals

    def live(self) -> set[int]:
        """States reachable from the start from which a final state can be reached."""
        reachable = {0}
        frontier = [0]
        backwards: dict[int, set[int]] = defaultdict(set)
        while frontier:
            state = frontier.pop()
            for target in self.table[state]:
                backwards[target].add(state)
                if target not in reachable:
                    reachable.add(target)
                    frontier.append(target)
        live = {s for s in self.finals if s in reachable}
        frontier = list(live)
        while frontier:
            for source in backwards.get(frontier.pop(), ()):
                if source not in live:
                    live.add(source)
                    frontier.append(source)
        return live


def of_class(ranges: Ranges) -> Dfa:
    """The one-character texts of a class."""
    rest = negate(ranges)
    if not ranges:
        return NULL
    classes = (ranges, rest) if rest else (ranges,)
    dead = (2, 2) if rest else (2,)
    return Dfa(classes, ((1, 2) if rest else (1,), dead, dead), frozenset({1}))


def literal(text: str) -> Dfa:
    """The text itself and nothing else."""
    out = EPSILON
    for char in text:
        out = concat(out, of_class(((ord(char), ord(char)),)))
    return out


EPSILON = Dfa((((0, MAX_CODE),),), ((1,), (1,)), frozenset({0}))
NULL = Dfa((((0, MAX_CODE),),), ((0,),), frozenset())


# ----------------------------------------------------------------------------------------------- operations
def _refine(dfas: Sequence[Dfa]) -> tuple[tuple[Ranges, ...], list[list[int]]]:
    """A common alphabet for ``dfas``: the coarsest partition finer than each one's classes, and for each automaton
    the column of its own table that each new class reads (a sweep over the class boundaries)."""
    cuts = sorted({0, MAX_CODE + 1} | {p for d in dfas for cls in d.classes for lo, hi in cls for p in (lo, hi + 1)})
    owners = []
    for d in dfas:
        spans = sorted((lo, hi, i) for i, cls in enumerate(d.classes) for lo, hi in cls)
        owner, k = [], 0
        for start in cuts[:-1]:
            while spans[k][1] < start:
                k += 1
            owner.append(spans[k][2])
        owners.append(owner)
    groups: dict[tuple[int, ...], list[tuple[int, int]]] = {}
    for s, start in enumerate(cuts[:-1]):
        groups.setdefault(tuple(owner[s] for owner in owners), []).append((start, cuts[s + 1] - 1))
    signatures = list(groups)
    classes = tuple(normalize(groups[sig]) for sig in signatures)
    return classes, [[sig[n] for sig in signatures] for n in range(len(dfas))]


def _build(classes: tuple[Ranges, ...], start: object, step: Callable[[object, int], object],
           final: Callable[[object], bool], grow: Grow) -> Dfa:
    """The DFA whose states are the values reachable from ``start`` by ``step`` (each a hashable value)."""
    index = {start: 0}
    states = [start]
    table = []
    finals = set()
    at = 0
    while at < len(states):
        state = states[at]
        if final(state):
            finals.add(at)
        row = []
        for column in range(len(classes)):
            target = step(state, column)
            number = index.get(target)
            if number is None:
                number = index[target] = len(states)
                states.append(target)
                if len(states) % 256 == 0:
                    grow(len(states))
            row.append(number)
        table.append(tuple(row))
        at += 1
    grow(len(states))
    return minimize(Dfa(classes, tuple(table), frozenset(finals)))


def product(dfas: Sequence[Dfa], accept: Callable[[list[bool]], bool], grow: Grow = _nothing) -> Dfa:
    """The automaton that runs ``dfas`` side by side and accepts where ``accept`` (of their verdicts) says."""
    if len(dfas) == 1:
        only = dfas[0]
        return Dfa(only.classes, only.table, frozenset(s for s in range(only.size) if accept([s in only.finals])))
    classes, columns = _refine(dfas)

    def step(state: object, column: int) -> object:
        return tuple(d.table[s][columns[n][column]] for n, (d, s) in enumerate(zip(dfas, state, strict=True)))

    def final(state: object) -> bool:
        return accept([s in d.finals for d, s in zip(dfas, state, strict=True)])

    return _build(classes, tuple(0 for _ in dfas), step, final, grow)


def union(*dfas: Dfa, grow: Grow = _nothing) -> Dfa:
    return product(dfas, any, grow) if dfas else NULL


def intersection(*dfas: Dfa, grow: Grow = _nothing) -> Dfa:
    return product(dfas, all, grow)


def complement(dfa: Dfa) -> Dfa:
    """Every text ``dfa`` refuses (its table is complete, so flipping the finals is enough)."""
    return minimize(Dfa(dfa.classes, dfa.table, frozenset(range(dfa.size)) - dfa.finals))


def concat(first: Dfa, second: Dfa, grow: Grow = _nothing) -> Dfa:
    """Texts of ``first`` followed by texts of ``second``: ``first``'s state and the set of ``second``'s states
    that a split of the text so far could have reached (dead ones dropped)."""
    classes, (left, right) = _refine((first, second))
    alive = second.live()
    enter = frozenset({0} & alive)

    def step(state: object, column: int) -> object:
        a, bs = state  # type: ignore[misc]
        a2 = first.table[a][left[column]]
        b2 = {t for b in bs if (t := second.table[b][right[column]]) in alive}
        if a2 in first.finals:
            b2 |= enter
        return a2, frozenset(b2)

    def final(state: object) -> bool:
        return any(b in second.finals for b in state[1])  # type: ignore[index]

    return _build(classes, (0, enter if 0 in first.finals else frozenset()), step, final, grow)


def star(dfa: Dfa, grow: Grow = _nothing) -> Dfa:
    """Any number of texts of ``dfa`` in a row (the empty text included)."""
    alive = dfa.live()

    def step(state: object, column: int) -> object:
        targets = {t for s in state[1] if (t := dfa.table[s][column]) in alive}  # type: ignore[index]
        if targets & dfa.finals:
            targets.add(0)
        return False, frozenset(targets)

    def final(state: object) -> bool:
        return state[0] or any(s in dfa.finals for s in state[1])  # type: ignore[index]

    return _build(dfa.classes, (True, frozenset({0} & alive)), step, final, grow)


def minimize(dfa: Dfa) -> Dfa:
    """The minimal DFA of ``dfa``'s language (unreachable states dropped, then Hopcroft's partition refinement)."""
    reachable = {0: 0}
    order = [0]
    for state in order:
        for target in dfa.table[state]:
            if target not in reachable:
                reachable[target] = len(order)
                order.append(target)
    table = [tuple(reachable[t] for t in dfa.table[s]) for s in order]
    finals = {reachable[s] for s in dfa.finals if s in reachable}
    n, width = len(table), len(dfa.classes)
    inverse: list[dict[int, list[int]]] = [defaultdict(list) for _ in range(width)]
    for source, row in enumerate(table):
        for column, target in enumerate(row):
            inverse[column][target].append(source)
    blocks = [b for b in (set(finals), set(range(n)) - finals) if b]
    block_of = [0] * n
    for number, block in enumerate(blocks):
        for state in block:
            block_of[state] = number
    waiting = {min(range(len(blocks)), key=lambda b: len(blocks[b]))} if len(blocks) == 2 else set()
    while waiting:
        splitter = list(blocks[waiting.pop()])
        for column in range(width):
            touched: dict[int, set[int]] = defaultdict(set)
            for target in splitter:
                for source in inverse[column].get(target, ()):
                    touched[block_of[source]].add(source)
            for number, inside in touched.items():
                block = blocks[number]
                if len(inside) == len(block):
                    continue
                blocks[number] = block - inside
                blocks.append(inside)
                for state in inside:
                    block_of[state] = len(blocks) - 1
                if number in waiting or len(inside) <= len(blocks[number]):
                    waiting.add(len(blocks) - 1)
                else:
                    waiting.add(number)
    renumber = {block_of[0]: 0}
    for state in range(n):
        renumber.setdefault(block_of[state], len(renumber))
    rows: list[tuple[int, ...]] = [()] * len(renumber)
    for state in range(n):
        new = renumber[block_of[state]]
        if not rows[new]:
            rows[new] = tuple(renumber[block_of[t]] for t in table[state])
    return _merge_columns(Dfa(dfa.classes, tuple(rows), frozenset(renumber[block_of[s]] for s in finals)))


def _merge_columns(dfa: Dfa) -> Dfa:
    """The same automaton with classes that every state treats alike merged into one (a smaller alphabet)."""
    same: dict[tuple[int, ...], list[int]] = defaultdict(list)
    for column in range(len(dfa.classes)):
        same[tuple(row[column] for row in dfa.table)].append(column)
    if len(same) == len(dfa.classes):
        return dfa
    groups = list(same.values())
    classes = tuple(normalize(p for column in group for p in dfa.classes[column]) for group in groups)
    table = tuple(tuple(row[group[0]] for group in groups) for row in dfa.table)
    return Dfa(classes, table, dfa.finals)
