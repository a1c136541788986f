"""Text at Corral's boundaries: what comes in from a model, a file or the command line is made encodable once.

Why: Python strings may hold lone surrogates (U+D800–U+DFFF: a JSON escape such as ``"\\ud800"`` in a server's
reply, or bytes that are not UTF-8 read with ``surrogateescape``). They cannot be written as UTF-8, so one such
character in a model's output used to break the response cache, the run's records and the terminal, and a rerun
read the same poisoned output again. Each is replaced by U+FFFD (the replacement character) where the text enters,
and the caller flags the record.
"""

from __future__ import annotations

import re

__all__ = ["REPLACEMENT", "scrub"]

REPLACEMENT = "\ufffd"
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def scrub(text: str) -> tuple[str, int]:
    """``text`` with every lone surrogate replaced by U+FFFD, and how many were replaced (0: ``text`` itself)."""
    if _LONE_SURROGATE.search(text) is None:
        return text, 0
    return _LONE_SURROGATE.subn(REPLACEMENT, text)
