"""Extraction: constraint instances whose values come from real text, so each has a natural solution (COLLIE §3).

A *structure* is a constraint with holes for values, in the textual form with ``?name`` where a value goes:
``sentence: count(text, word, sentence) == ?n and pos(text, word, 3) == ?w``. The checker fills the holes:
checking a chunk against the structure reports, for each base constraint, what it *observed* (the word count,
the 3rd word), and that observation is the value. Holes that no observation can fill (``count(text, word, ?w)
== 0``: a word that is absent) are swept over candidates instead (COLLIE's {the, and, of}). Every instance is
re-checked on its source chunk before it is kept: the example passes its own constraint, by construction and
by assertion.

Sampling is seeded and independent of the order chunks arrive in: each candidate gets a key hashed from
(seed, structure, document, chunk index, values) and the ``per_structure`` smallest keys are kept (bottom-k).
The same seed therefore gives the same instances from a local pass or from any parallel engine.
"""

from __future__ import annotations

import dataclasses
import hashlib
import heapq
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from corral.constraints import Constraint, ConstraintSyntaxError, Count, Match, parse

from ._chunks import Chunk

_HOLE = re.compile(r"\?([A-Za-z_]\w*)")
_NUMBER_BASE = 987_000_000  # numeric holes parse as these (no real text has a count near a billion)


class StructureError(ValueError):
    """A structure spec that cannot be used: bad syntax, or a hole that cannot be filled; the message says which."""


@dataclass(frozen=True)
class Structure:
    """A constraint with holes. ``numbers`` and ``strings`` map hole names to their sentinel values."""

    spec: str
    template: Constraint
    numbers: Mapping[str, int]
    strings: Mapping[str, str]

    @property
    def holes(self) -> tuple[str, ...]:
        return (*self.numbers, *self.strings)


def parse_structure(spec: str) -> Structure:
    """Parse a spec with ``?name`` holes; each hole is a whole number or a string, as its place requires."""
    names = list(dict.fromkeys(_HOLE.findall(spec)))
    if not names:
        raise StructureError(f"structure {spec!r} has no holes (?name) to fill")
    kinds = {name: "number" for name in names}
    for _ in range(len(names) + 1):
        text, spans = _substitute(spec, kinds)
        try:
            template = parse(text)
        except ConstraintSyntaxError as exc:
            offset = _offset(text, exc.line, exc.column)
            # the error points into the hole, or at the call that holds it: the first numeric hole from there
            numeric = sorted((end, n) for n, (_, end) in spans.items() if kinds[n] == "number" and end > offset)
            hole = numeric[0][1] if numeric else None
            if hole is None:
                raise StructureError(f"bad structure: {exc}") from None
            kinds[hole] = "string"
            continue
        numbers = {n: _NUMBER_BASE + i for i, n in enumerate(names) if kinds[n] == "number"}
        strings = {n: f"hole{i}x" for i, n in enumerate(names) if kinds[n] == "string"}
        return Structure(spec, template, numbers, strings)
    raise StructureError(f"bad structure {spec!r}")  # pragma: no cover - each pass fixes one hole


def _substitute(spec: str, kinds: Mapping[str, str]) -> tuple[str, dict[str, tuple[int, int]]]:
    names = list(kinds)
    out, spans, last = [], {}, 0
    for match in _HOLE.finditer(spec):
        name = match.group(1)
        i = names.index(name)
        value = str(_NUMBER_BASE + i) if kinds[name] == "number" else f"'hole{i}x'"
        out.append(spec[last:match.start()])
        start = sum(map(len, out))
        out.append(value)
        spans.setdefault(name, (start, start + len(value)))
        last = match.end()
    out.append(spec[last:])
    return "".join(out), spans


def _offset(text: str, line: int, column: int) -> int:
    lines = text.split("\n")
    return sum(len(x) + 1 for x in lines[: line - 1]) + column - 1


@dataclass(frozen=True)
class Extracted:
    """One instance: the filled constraint, its values, and the chunk it came from (which passes it)."""

    constraint: Constraint
    values: dict[str, Any]
    example: str
    document: str
    chunk: int
    key: str = field(compare=False)

    def to_json(self, structure: str) -> dict[str, Any]:
        return {"structure": structure, "constraint": str(self.constraint), "values": self.values,
                "prompt": self.constraint.render(), "example": self.example, "document": self.document,
                "chunk": self.chunk}


def fill(structure: Structure, values: Mapping[str, Any]) -> Constraint:
    """The structure's constraint with every hole replaced by its value."""
    sentinels = {v: values[n] for n, v in structure.numbers.items()}
    sentinels.update({v: values[n] for n, v in structure.strings.items()})
    return dataclasses.replace(structure.template, body=_replace(structure.template.body, sentinels))


def _replace(node: Any, sentinels: Mapping[Any, Any]) -> Any:
    if isinstance(node, tuple):
        return tuple(_replace(x, sentinels) for x in node)
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        changes = {}
        for f in dataclasses.fields(node):
            value = getattr(node, f.name)
            if isinstance(value, str | int) and not isinstance(value, bool) and value in sentinels:
                changes[f.name] = sentinels[value]
            elif dataclasses.is_dataclass(value) or isinstance(value, tuple):
                new = _replace(value, sentinels)
                if new is not value:
                    changes[f.name] = new
        return dataclasses.replace(node, **changes) if changes else node
    return node


def observe(structure: Structure, text: str) -> dict[str, Any] | None:
    """The hole values ``text`` itself shows, read from the checker's observations; None if it shows none for
    some hole that needs one (a per-unit count that differs between units, for ``==``)."""
    verdict = structure.template.check(text)
    values: dict[str, Any] = {}
    wanted_numbers = {v: n for n, v in structure.numbers.items()}
    wanted_strings = {v: n for n, v in structure.strings.items()}
    for part in verdict.parts:
        node = part.constraint
        if isinstance(node, Count) and node.value in wanted_numbers:
            value = _number(node.rel.value, part.observed)
            if value is None:
                return None
            values[wanted_numbers[node.value]] = value
        elif isinstance(node, Match) and node.value in wanted_strings and node.rel.value == "==":
            if not isinstance(part.observed, str):
                return None
            values[wanted_strings[node.value]] = part.observed
    return values


def _number(rel: str, observed: Any) -> int | None:
    seen = list(observed) if isinstance(observed, tuple | list) else [observed]
    if not seen or not all(isinstance(x, int) for x in seen):
        return None
    if rel in ("==", "!="):
        return seen[0] if len(set(seen)) == 1 and rel == "==" else (max(seen) + 1 if rel == "!=" else None)
    return {"<=": max(seen), "<": max(seen) + 1, ">=": min(seen), ">": min(seen) - 1}[rel]


def extract(structure: Structure, chunks: Iterable[Chunk], *, ranges: Mapping[str, tuple[int, int]] | None = None,
            candidates: Mapping[str, Sequence[str]] | None = None, per_structure: int = 100, seed: int = 0,
            name: str = "") -> list[Extracted]:
    """Up to ``per_structure`` instances, seeded bottom-k over every (chunk, values) that passes."""
    ranges, candidates = dict(ranges or {}), dict(candidates or {})
    for hole in [*ranges, *candidates]:
        if hole not in structure.holes:
            raise StructureError(f"?{hole} is not a hole of {structure.spec!r}; its holes: "
                                 f"{', '.join('?' + h for h in structure.holes)}")
    for hole, (low, high) in ranges.items():
        if low > high:
            raise StructureError(f"the range of ?{hole} is empty: {low}..{high}")
    heap: list[tuple[str, int, Extracted]] = []  # max-heap on key via negation of ordering: keep k smallest
    counter = 0
    for chunk in chunks:
        for candidate in _candidates(structure, chunk, ranges, candidates):
            key = _key(seed, name or structure.spec, chunk, candidate)
            entry = (_neg(key), counter, _extracted(structure, chunk, candidate, key))
            counter += 1
            if len(heap) < per_structure:
                heapq.heappush(heap, entry)
            elif entry[0] > heap[0][0]:
                heapq.heapreplace(heap, entry)
    return sorted((e for _, _, e in heap), key=lambda e: e.key)


def _candidates(structure: Structure, chunk: Chunk, ranges: Mapping[str, tuple[int, int]],
                candidates: Mapping[str, Sequence[str]]) -> Iterator[dict[str, Any]]:
    observed = observe(structure, chunk.text)
    if observed is None:
        return
    for hole, (low, high) in ranges.items():
        if hole in observed and not low <= observed[hole] <= high:
            return
    missing = [h for h in structure.holes if h not in observed]
    unfillable = [h for h in missing if h not in candidates]
    if unfillable:
        raise StructureError(f"?{unfillable[0]} cannot be read from text (the checker observes no value for it); "
                             f"give candidates for it, e.g. --candidates {unfillable[0]}=the,and,of")
    for combo in _product([list(candidates[h]) for h in missing]):
        values = {**observed, **dict(zip(missing, combo, strict=True))}
        if fill(structure, values).check(chunk.text).passed:
            yield values


def _product(lists: list[list[str]]) -> Iterator[tuple[str, ...]]:
    if not lists:
        yield ()
        return
    for head in lists[0]:
        for rest in _product(lists[1:]):
            yield (head, *rest)


def _extracted(structure: Structure, chunk: Chunk, values: dict[str, Any], key: str) -> Extracted:
    constraint = fill(structure, values)
    verdict = constraint.check(chunk.text)
    if not verdict.passed:  # the invariant of extraction: never ship an instance its own example fails
        raise AssertionError(f"extracted {constraint} fails its example {chunk.text!r}: {verdict.feedback}")
    return Extracted(constraint, values, chunk.text, chunk.document, chunk.index, key)


def _key(seed: int, name: str, chunk: Chunk, values: Mapping[str, Any]) -> str:
    data = json.dumps([seed, name, chunk.document, chunk.index, values], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(data.encode()).hexdigest()


class _neg(str):
    def __lt__(self, other: str) -> bool:
        return str.__gt__(self, other)

    def __gt__(self, other: str) -> bool:
        return str.__lt__(self, other)
