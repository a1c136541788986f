"""Constrained decoding: llguidance token masks from a ``Grammar``, applied inside the local backends, and the
repeat limit that keeps greedy decoding out of loops."""

from ._masks import MaskStats, MatcherFactory, SequenceMask
from ._repeats import RepeatGuard, TokenTable, loop_blocks, repeatable

__all__ = ["MaskStats", "MatcherFactory", "RepeatGuard", "SequenceMask", "TokenTable", "loop_blocks",
           "repeatable"]
