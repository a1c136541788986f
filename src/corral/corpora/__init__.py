"""Corpora: build constraint instances from real text (COLLIE §3, stage 2), reproducibly and at corpus scale.

Sources stream documents (text files, JSONL, Hugging Face datasets from local files, the shipped public-domain
corpus); chunks are cut by level with ``corral.text``'s one segmentation; registered filters and
post-processors clean them; ``extract`` fills a structure's ``?holes`` from the checker's observations with a
seeded bottom-k sample that does not depend on chunk order, so the local and Ray engines agree exactly.
"""

from . import _suites  # noqa: F401  (registers the collie-v1 suite)
from ._build import BuildPlan, BuildResult, BuildState, build_local, process, write_instances
from ._chunks import Chunk, chunks
from ._document import CorpusError, Document, SourceStats
from ._extract import Extracted, Recipe, Structure, StructureError, extract, fill, holes, parse_structure, recipe
from ._filters import COLLIE_FILTERS, COLLIE_PROCESSORS, FilterReport, Pipeline, default_pipeline, length
from ._ray import build_ray
from ._sources import DEFAULT_DOCUMENTS, Shard, default_corpus, read_corpus, read_shard, shards
from ._stats import chart as stats_chart
from ._stats import markdown as stats_markdown
from ._stats import summary as stats_summary
from ._suites import collie_v1

__all__ = [
    "COLLIE_FILTERS",
    "COLLIE_PROCESSORS",
    "DEFAULT_DOCUMENTS",
    "BuildPlan",
    "BuildResult",
    "BuildState",
    "Chunk",
    "CorpusError",
    "Document",
    "Extracted",
    "FilterReport",
    "Pipeline",
    "Recipe",
    "Shard",
    "SourceStats",
    "Structure",
    "StructureError",
    "build_local",
    "build_ray",
    "chunks",
    "collie_v1",
    "default_corpus",
    "default_pipeline",
    "extract",
    "fill",
    "holes",
    "length",
    "parse_structure",
    "process",
    "read_corpus",
    "read_shard",
    "recipe",
    "shards",
    "stats_chart",
    "stats_markdown",
    "stats_summary",
    "write_instances",
]
