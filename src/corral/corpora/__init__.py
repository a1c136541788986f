"""Corpora: read text sources (streaming), chunk them by level with the one segmentation, filter and clean chunks.

Extraction of constraint instances from chunks builds on these (see the corpora issue); this package has no
model dependency.
"""

from ._chunks import Chunk, chunks
from ._filters import COLLIE_FILTERS, COLLIE_PROCESSORS, FilterReport, Pipeline, length
from ._sources import CorpusError, Document, SourceStats, default_corpus, read_corpus

__all__ = [
    "COLLIE_FILTERS",
    "COLLIE_PROCESSORS",
    "Chunk",
    "CorpusError",
    "Document",
    "FilterReport",
    "Pipeline",
    "SourceStats",
    "chunks",
    "default_corpus",
    "length",
    "read_corpus",
]
