"""Corpora: read text sources (streaming), chunk them by level with the one segmentation, filter and clean chunks.

``extract`` fills a structure's ``?holes`` from the checker's observations on each chunk, with seeded,
order-independent sampling; the CLI, statistics and the Ray engine are still to come (see the corpora issue).
"""

from ._chunks import Chunk, chunks
from ._extract import Extracted, Structure, StructureError, extract, fill, parse_structure
from ._filters import COLLIE_FILTERS, COLLIE_PROCESSORS, FilterReport, Pipeline, length
from ._sources import CorpusError, Document, SourceStats, default_corpus, read_corpus

__all__ = [
    "COLLIE_FILTERS",
    "COLLIE_PROCESSORS",
    "Chunk",
    "CorpusError",
    "Document",
    "Extracted",
    "FilterReport",
    "Pipeline",
    "SourceStats",
    "Structure",
    "StructureError",
    "chunks",
    "default_corpus",
    "extract",
    "fill",
    "length",
    "parse_structure",
    "read_corpus",
]
