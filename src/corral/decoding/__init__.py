"""Constrained decoding: llguidance token masks from a ``Grammar``, applied inside the local backends."""

from ._masks import MaskStats, MatcherFactory, SequenceMask

__all__ = ["MaskStats", "MatcherFactory", "SequenceMask"]
