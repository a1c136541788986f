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
import itertools
import json
import math
import random
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from corral.constraints import (
    TEXT,
    UNIT,
    Constraint,
    ConstraintSyntaxError,
    Count,
    ForEach,
    Match,
    Quantifier,
    UnitRef,
    check,
    parse,
    render,
)
from corral.errors import InputError
from corral.text import Level, segment

from ._chunks import Chunk

_HOLE = re.compile(r"\?([A-Za-z_]\w*)")
_WORDLIKE = re.compile(r"\w")
_NUMBER_BASE = 987_000_000  # numeric holes parse as these (no real text has a count near a billion)


class StructureError(InputError):
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


def holes(spec: str) -> list[str]:
    """The names of a structure's ``?holes``, in order of appearance."""
    return _HOLE.findall(spec)


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
    source: str = ""
    structure: str = ""

    def to_json(self) -> dict[str, Any]:
        """One line of an instances file (what ``corral eval FILE.jsonl`` reads)."""
        return {"id": f"{self.structure}-{self.key[:12]}", "structure": self.structure,
                "constraint": str(self.constraint), "values": self.values, "prompt": render(self.constraint),
                "example": self.example, "source": self.source, "document": self.document, "chunk": self.chunk}


def observable_holes(structure: Structure) -> set[str]:
    """The holes ``observe`` can read: a count's number, the string of an ``==`` comparison, either inside
    ``all(text, ...)``. An absent word (``count(text, word, ?w) == 0``) is not: nothing in the text shows it."""
    names = {v: n for n, v in {**structure.numbers, **structure.strings}.items()}
    found: set[str] = set()

    def walk(node: Any, readable: bool) -> None:
        if isinstance(node, Count):
            if readable and node.value in names:
                found.add(names[node.value])
        elif isinstance(node, Match):
            if readable and node.rel.value == "==" and node.value in names:
                found.add(names[node.value])
        elif isinstance(node, ForEach):
            walk(node.body, readable and node.quantifier is Quantifier.ALL and node.of == TEXT)
        elif isinstance(node, tuple):
            for item in node:
                walk(item, readable)
        elif dataclasses.is_dataclass(node) and not isinstance(node, type):
            for f in dataclasses.fields(node):
                walk(getattr(node, f.name), readable)

    walk(structure.template.body, True)
    return found


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
            if isinstance(value, str | int | UnitRef) and not isinstance(value, bool) and value in sentinels:
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
    verdict = check(structure.template, text)
    values: dict[str, Any] = {}
    wanted_numbers = {v: n for n, v in structure.numbers.items()}
    wanted_strings = {v: n for n, v in structure.strings.items()}
    for part in verdict.detail.parts:
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
        elif isinstance(node, ForEach) and node.quantifier is Quantifier.ALL and node.of == TEXT:
            inner = _each_unit(structure, node, text)
            if inner is None:
                return None
            values.update(inner)
    return values


_BY_SPEC: dict[str, Structure] = {}


def _observe_cached(structure: Structure, text: str) -> dict[str, Any] | None:
    """``observe``, remembered per (structure, text): words and short sentences repeat across a corpus ("the"
    thousands of times), and the checker's answer for a text never changes."""
    _BY_SPEC.setdefault(structure.spec, structure)
    return _observe_text(structure.spec, text)


@lru_cache(maxsize=1 << 16)
def _observe_text(spec: str, text: str) -> dict[str, Any] | None:
    return observe(_BY_SPEC[spec], text)


def _each_unit(structure: Structure, node: ForEach, text: str) -> dict[str, Any] | None:
    """Values read inside ``all(text, level, body)``: the body observed on each unit, the same in every one."""
    profile = structure.template.profile
    body = Structure(structure.spec, Constraint(_replace(node.body, {UNIT: TEXT}), node.level, profile),
                     structure.numbers, structure.strings)
    agreed: dict[str, Any] | None = None
    for unit in segment(text, node.level, profile):
        if not unit.text.strip():
            continue
        seen = observe(body, unit.text)
        if seen is None or (agreed is not None and seen != agreed):
            return None
        agreed = seen
    return agreed


def _number(rel: str, observed: Any) -> int | None:
    seen = list(observed) if isinstance(observed, tuple | list) else [observed]
    if not seen or not all(isinstance(x, int) for x in seen):
        return None
    if rel in ("==", "!="):
        return seen[0] if len(set(seen)) == 1 and rel == "==" else (max(seen) + 1 if rel == "!=" else None)
    return {"<=": max(seen), "<": max(seen) + 1, ">=": min(seen), ">": min(seen) - 1}[rel]


Candidates = Mapping[str, "Sequence[str] | str"]
"""Per hole, the values to sweep: a list, or ``@word`` / ``@sentence`` ... for the chunk's own units at that level."""

MAX_SWEEP = 64  # combinations tried per chunk for swept holes (in the chunk's seeded order)
ENUMERATE_UP_TO = 512  # below this many combinations all are enumerated and shuffled; above, drawn at random


@dataclass(frozen=True)
class Recipe:
    """What to extract under one name: alternative structures (e.g. para05 with 3, 4 or 5 sentences), the value
    range of numeric holes, candidates for holes, for passage structures how many paragraphs a passage has (one
    entry per alternative), and ``where`` conditions a chunk must meet that are not part of the instance."""

    name: str
    structures: tuple[Structure, ...]
    ranges: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    candidates: Candidates = field(default_factory=dict)
    passage_paragraphs: tuple[int, ...] = ()
    where: tuple[Constraint | str, ...] = ()

    def __post_init__(self) -> None:
        conditions = []
        for condition in self.where:
            try:
                conditions.append(condition if isinstance(condition, Constraint) else parse(condition))
            except ConstraintSyntaxError as exc:
                raise StructureError(f"{self.name}: bad condition {condition!r}: {exc}") from None
        object.__setattr__(self, "where", tuple(conditions))
        if not self.structures:
            raise StructureError(f"{self.name}: no structure given")
        holes = {h for s in self.structures for h in s.holes}
        for hole in [*self.ranges, *self.candidates]:
            if hole not in holes:
                raise StructureError(f"{self.name}: ?{hole} is not a hole of {self.structures[0].spec!r}; its holes: "
                                     f"{', '.join('?' + h for h in sorted(holes))}")
        for hole, (low, high) in self.ranges.items():
            if low > high:
                raise StructureError(f"{self.name}: the range of ?{hole} is empty: {low}..{high}")
        for hole, values in self.candidates.items():
            if isinstance(values, str):
                Level.parse(values.removeprefix("@"))  # raises a ValueError naming the levels
            elif not values:
                raise StructureError(f"{self.name}: the candidates of ?{hole} are empty")
        for structure in self.structures:
            readable = observable_holes(structure)
            for hole in structure.holes:
                if hole not in readable and hole not in self.candidates:
                    raise StructureError(f"{self.name}: ?{hole} cannot be read from text (the checker observes no "
                                         f"value for it); give candidates for it, e.g. --candidates {hole}=the,and,of")
        if self.passage_paragraphs and len(self.passage_paragraphs) != len(self.structures):
            raise StructureError(f"{self.name}: one passage size per structure, got {len(self.passage_paragraphs)} "
                                 f"for {len(self.structures)}")

    def chunking(self, alternative: int) -> tuple[Level, int]:
        """The level and passage size the chunks of ``alternative`` are cut at."""
        level = self.structures[alternative].template.level
        width = self.passage_paragraphs[alternative] if self.passage_paragraphs else 3
        return level, width if level is Level.PASSAGE else 1


def recipe(spec: str | Structure, *, name: str = "", ranges: Mapping[str, tuple[int, int]] | None = None,
           candidates: Candidates | None = None, passage_paragraphs: int = 3,
           where: Sequence[Constraint | str] = ()) -> Recipe:
    """A one-structure recipe from a spec with holes."""
    structure = spec if isinstance(spec, Structure) else parse_structure(spec)
    return Recipe(name or structure.spec, (structure,), dict(ranges or {}), dict(candidates or {}),
                  (passage_paragraphs,), tuple(where))


class BottomK:
    """The ``k`` entries with the smallest keys seen: a seeded sample that does not depend on arrival order, and
    that merges exactly (the bottom-k of a union is the bottom-k of the parts' bottom-k)."""

    def __init__(self, k: int) -> None:
        self.k = k
        self._heap: list[tuple[_Neg, Extracted]] = []

    def wants(self, key: str) -> bool:
        """Whether an entry with ``key`` would be kept now (checked before any expensive work)."""
        return self.k > 0 and (len(self._heap) < self.k or key < self._heap[0][0].key)

    def offer(self, item: Extracted) -> None:
        if not self.wants(item.key):
            return
        entry = (_Neg(item.key), item)
        if len(self._heap) < self.k:
            heapq.heappush(self._heap, entry)
        else:
            heapq.heapreplace(self._heap, entry)

    def items(self) -> list[Extracted]:
        return sorted((item for _, item in self._heap), key=lambda e: e.key)


@dataclass(frozen=True)
class _Neg:
    """Reverses key order so that Python's min-heap keeps the largest kept key on top."""

    key: str

    def __lt__(self, other: _Neg) -> bool:
        return self.key > other.key


def chunk_key(seed: int, name: str, chunk: Chunk, alternative: int = 0) -> str:
    """The sampling key of a chunk for one recipe's alternative: a hash of the seed, the recipe, the alternative
    and where the chunk is (never of when or by whom it was seen)."""
    return key_hasher(seed, name, chunk.document, chunk.level, chunk.width, alternative)(chunk.index)


def key_hasher(seed: int, name: str, document: str, level: Level, width: int,
               alternative: int = 0) -> Callable[[int], str]:
    """``chunk_key`` for the chunks of one document and chunking: the common prefix is hashed once."""
    prefix = [seed, name, document, level.value, width] + ([alternative] if alternative else [])
    base = hashlib.sha256(json.dumps(prefix, ensure_ascii=False).encode())

    def key(index: int) -> str:
        hasher = base.copy()
        hasher.update(b"#%d" % index)
        return hasher.hexdigest()
    return key


def extract_chunk(recipe: Recipe, alternative: int, chunk: Chunk, key: str) -> Extracted | None:
    """The instance ``chunk`` gives for ``recipe``'s alternative, or None. At most one per chunk: swept holes are
    tried in an order seeded by the chunk's key, and the first combination the chunk passes is taken."""
    structure = recipe.structures[alternative]
    if not all(check(condition, chunk.text).passed for condition in recipe.where):  # type: ignore[union-attr]
        return None
    observed = _observe_cached(structure, chunk.text)
    if observed is None:
        return None
    for hole, value in observed.items():
        low, high = recipe.ranges.get(hole, (value, value)) if isinstance(value, int) else (value, value)
        if not low <= value <= high:
            return None
        if isinstance(value, str) and not _WORDLIKE.search(value):
            return None  # punctuation alone ("``", "''") makes no instruction a person would give
        allowed = recipe.candidates.get(hole)
        if isinstance(allowed, Sequence) and not isinstance(allowed, str) and value not in allowed:
            return None
    missing = [h for h in structure.holes if h not in observed]
    if any(h not in recipe.candidates for h in missing):
        return None  # a readable hole this text shows no value for (Recipe refuses holes no text can show)
    rng = random.Random(key)
    for combo in _sweep(missing, recipe.candidates, chunk, structure.template.profile, rng):
        values = {**observed, **combo}
        constraint = fill(structure, values)
        if check(constraint, chunk.text).passed:
            return Extracted(constraint, values, chunk.text, chunk.document, chunk.index, key, chunk.source,
                             recipe.name)
    return None


def _sweep(holes: list[str], candidates: Candidates, chunk: Chunk, profile: str,
           rng: random.Random) -> Iterator[dict[str, str]]:
    """Combinations of distinct values for the swept holes, in a seeded order. Holes sweeping the same list take
    values in the list's order (w1 before w2 in the sentence), so a combination is a set, not a permutation."""
    if not holes:
        yield {}
        return
    groups: dict[tuple[str, ...], list[str]] = {}
    for hole in holes:
        values = candidates[hole]
        pool = _units(chunk, values, profile) if isinstance(values, str) else tuple(dict.fromkeys(values))
        groups.setdefault(pool, []).append(hole)
    total = 1
    for pool, members in groups.items():
        total *= math.comb(len(pool), len(members))
    if total == 0:
        return
    if total <= ENUMERATE_UP_TO:
        combos = list(itertools.product(*[itertools.combinations(range(len(p)), len(m)) for p, m in groups.items()]))
        rng.shuffle(combos)
        chosen: Iterable[tuple[tuple[int, ...], ...]] = combos[:MAX_SWEEP]
    else:
        seen: set[tuple[tuple[int, ...], ...]] = set()
        for _ in range(MAX_SWEEP):
            seen.add(tuple(tuple(sorted(rng.sample(range(len(p)), len(m)))) for p, m in groups.items()))
        chosen = sorted(seen, key=lambda c: rng.random())
    for combo in chosen:
        yield {hole: pool[i] for (pool, members), picks in zip(groups.items(), combo, strict=True)
               for hole, i in zip(members, picks, strict=True)}


def _units(chunk: Chunk, level: str, profile: str) -> tuple[str, ...]:
    found = (u.text for u in segment(chunk.text, Level.parse(level.removeprefix("@")), profile))
    return tuple(dict.fromkeys(t for t in found if t.strip()))


def extract(structure: Structure | Recipe, chunks: Iterable[Chunk], *,
            ranges: Mapping[str, tuple[int, int]] | None = None, candidates: Candidates | None = None,
            per_structure: int = 100, seed: int = 0, name: str = "") -> list[Extracted]:
    """Up to ``per_structure`` instances, the seeded bottom-k over every chunk that gives one (one per chunk)."""
    the_recipe = structure if isinstance(structure, Recipe) else recipe(
        structure, name=name, ranges=ranges, candidates=candidates)
    sample = BottomK(per_structure)
    for chunk in chunks:
        for alternative in range(len(the_recipe.structures)):
            if the_recipe.chunking(alternative) != (chunk.level, chunk.width):
                continue
            key = chunk_key(seed, the_recipe.name, chunk, alternative)
            if sample.wants(key) and (found := extract_chunk(the_recipe, alternative, chunk, key)) is not None:
                assert_passes(found)
                sample.offer(found)
    return sample.items()


def assert_passes(item: Extracted) -> None:
    """The invariant of extraction: never ship an instance its own example fails."""
    verdict = check(item.constraint, item.example)
    if not verdict.passed:
        raise AssertionError(f"extracted {item.constraint} fails its example {item.example!r}: {verdict.feedback}")
