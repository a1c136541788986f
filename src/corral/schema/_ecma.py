"""JSON Schema's regular expressions are ECMA-262's: ``\\d`` is ASCII only, ``$`` is the very end, ``\\p{L}``
works. Python's ``re`` differs on all three, so ``pattern``, ``patternProperties`` and ``format: regex`` go
through an ECMA-262 engine (corvus-regex-ecma262, with the ``u`` flag as the specification asks), with a match
timeout: a schema's pattern is untrusted input and may backtrack catastrophically.
"""

from __future__ import annotations

from functools import lru_cache

import corvus_regex_ecma262 as ecma

from corral.errors import InputError

MATCH_TIMEOUT_S = 1.0


class PatternError(InputError):
    """A pattern that is not an ECMA-262 regular expression, or a match that ran past the timeout."""


@lru_cache(maxsize=4096)
def compiled(pattern: str) -> ecma.Regex:
    try:
        return ecma.compile(pattern, "u", timeout=MATCH_TIMEOUT_S)
    except ecma.error as exc:
        raise PatternError(f"{pattern!r} is not an ECMA-262 regular expression: {exc}") from None


def search(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches anywhere in ``text`` (JSON Schema patterns are not anchored)."""
    try:
        return compiled(pattern).search(text) is not None
    except ecma.MatchLimitError:
        raise PatternError(f"matching {pattern!r} took longer than {MATCH_TIMEOUT_S} s") from None


def is_regex(pattern: str) -> bool:
    return ecma.is_valid(pattern, "u")
