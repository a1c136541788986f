"""Texts drawn from a grammar for property tests: a few seeded byte-level walks, each stopping more readily."""

from __future__ import annotations

from corral.grammars import Grammar, random_walk, sample


def drawn(grammar: Grammar, seed: int, count: int = 3, stop: float = 0.1, max_bytes: int = 3000) -> list[str]:
    """Up to ``count`` texts (walk k stops with probability ``stop + 0.2 k`` where it may); a walk that runs past
    ``max_bytes`` gives none. A dead end raises (``strict``): for a compiled grammar it is a bug."""
    texts = (sample(grammar, random_walk(seed + k, stop + 0.2 * k), max_bytes=max_bytes, strict=True)
             for k in range(count))
    return [text for text in texts if text is not None]
