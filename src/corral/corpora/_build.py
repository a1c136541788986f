"""Building an instance suite from a corpus: read → chunk → clean and filter → extract, for several recipes at once.

One pass over the corpus serves every recipe: each document is cut once per chunking the recipes need (a level,
the passage size, the profile), the chunks are cleaned and filtered once, and each recipe's seeded bottom-k
sample sees them. ``process`` is the whole per-document work and is what every engine runs (the local engine
over all shards in order; the Ray engine per shard, then ``merge``), which is why the engines agree exactly.

The result is written atomically: instances to a temporary file renamed over ``out``, so an interrupted or
failed build leaves either the old file or none, never half a file.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from corral.jsonl import atomic_write, dumps
from corral.text import Level

from ._chunks import chunks
from ._extract import BottomK, Extracted, Recipe, assert_passes, extract_chunk, key_hasher
from ._filters import FilterReport, Pipeline, default_pipeline
from ._sources import Document, Shard, SourceStats, read_shard

Chunking = tuple[Level, int, str]  # level, passage size (1 below passages), profile


@dataclass(frozen=True)
class BuildPlan:
    """Everything that decides a build's output: the recipes, how many instances each, the seed, and cleaning."""

    recipes: tuple[Recipe, ...]
    per_structure: int = 100
    seed: int = 0
    pipeline: Pipeline | None = None  # None: each level's default (``default_pipeline``)
    text_field: str = "text"

    def __post_init__(self) -> None:
        names = [r.name for r in self.recipes]
        if len(set(names)) != len(names):
            raise ValueError(f"recipe names repeat: {', '.join(sorted(n for n in set(names) if names.count(n) > 1))}")
        if self.per_structure < 1:
            raise ValueError(f"--per-structure must be at least 1, got {self.per_structure}")

    def chunkings(self) -> dict[Chunking, list[tuple[Recipe, int]]]:
        """For each chunking the recipes need, the (recipe, alternative) pairs that read it."""
        out: dict[Chunking, list[tuple[Recipe, int]]] = {}
        for recipe in self.recipes:
            for alternative, structure in enumerate(recipe.structures):
                level, width = recipe.chunking(alternative)
                out.setdefault((level, width, structure.template.profile), []).append((recipe, alternative))
        return out


@dataclass
class BuildState:
    """What a build has gathered so far; engines fill one per worker and ``merge`` them."""

    samples: dict[str, BottomK]
    filters: dict[str, FilterReport] = field(default_factory=dict)  # by chunking label ("sentence", "passage/3")
    sources: SourceStats = field(default_factory=SourceStats)
    documents: Counter[str] = field(default_factory=Counter)  # by source label
    chunks: Counter[str] = field(default_factory=Counter)  # chunks kept by the filters, by chunking label

    @classmethod
    def empty(cls, plan: BuildPlan) -> BuildState:
        return cls({r.name: BottomK(plan.per_structure) for r in plan.recipes})

    def merge(self, other: BuildState) -> None:
        for name, sample in other.samples.items():
            for item in sample.items():
                self.samples[name].offer(item)
        for label, report in other.filters.items():
            mine = self.filters.setdefault(label, FilterReport())
            mine.seen += report.seen
            mine.removed.update(report.removed)
        self.sources.documents += other.sources.documents
        self.sources.skipped += other.sources.skipped
        self.documents.update(other.documents)
        self.chunks.update(other.chunks)


def chunking_label(chunking: Chunking) -> str:
    level, width, _ = chunking
    return f"{level.value}/{width}" if level is Level.PASSAGE else level.value


def process(plan: BuildPlan, documents: Iterable[Document], state: BuildState) -> None:
    """Run the per-document pipeline over ``documents`` into ``state``."""
    groups = [(chunking, chunking_label(chunking), plan.pipeline or default_pipeline(chunking[0]), readers)
              for chunking, readers in plan.chunkings().items()]
    for document in documents:
        state.documents[str(document.meta.get("source", document.source))] += 1
        for (level, width, profile), label, pipeline, readers in groups:
            report = state.filters.setdefault(label, FilterReport())
            keyed = [(recipe, alternative, state.samples[recipe.name],
                      key_hasher(plan.seed, recipe.name, document.id, level, width, alternative))
                     for recipe, alternative in readers]
            for chunk in pipeline.run(chunks(document, level, profile, width), report):
                state.chunks[label] += 1
                for recipe, alternative, sample, key_of in keyed:
                    key = key_of(chunk.index)
                    if not sample.wants(key):  # outside the sample whatever the chunk holds: no check needed
                        continue
                    found = extract_chunk(recipe, alternative, chunk, key)
                    if found is not None:
                        assert_passes(found)
                        sample.offer(found)


def process_shards(plan: BuildPlan, shard_list: Sequence[Shard], state: BuildState,
                   on_shard: Callable[[Shard], None] | None = None) -> None:
    """The local engine: every shard in order, in this process."""
    for shard in shard_list:
        process(plan, read_shard(shard, plan.text_field, state.sources), state)
        if on_shard is not None:
            on_shard(shard)


@dataclass(frozen=True)
class BuildResult:
    """A finished build: instances per recipe (in plan order, each sorted by key) and what was read and removed."""

    plan: BuildPlan
    instances: dict[str, list[Extracted]]
    filters: dict[str, FilterReport]
    sources: SourceStats
    documents: dict[str, int]
    chunks: dict[str, int]

    @classmethod
    def of(cls, plan: BuildPlan, state: BuildState) -> BuildResult:
        return cls(plan, {r.name: state.samples[r.name].items() for r in plan.recipes}, dict(state.filters),
                   state.sources, dict(sorted(state.documents.items())), dict(state.chunks))

    def lines(self) -> list[str]:
        """The instances file's lines: recipes in plan order, instances by key; no timestamps, so reruns match."""
        return [dumps(item.to_json()) for name in self.instances
                for item in self.instances[name]]


def build_local(plan: BuildPlan, shard_list: Sequence[Shard],
                on_shard: Callable[[Shard], None] | None = None) -> BuildResult:
    state = BuildState.empty(plan)
    process_shards(plan, shard_list, state, on_shard)
    return BuildResult.of(plan, state)


def write_instances(result: BuildResult, out: Path) -> int:
    lines = result.lines()
    atomic_write(out, "".join(line + "\n" for line in lines))
    return len(lines)
