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


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` with every control character but newline and tab written as ``\\xNN``, for a terminal: escape
    sequences from a model or a server (``\\x1b[2J``, ``\\x1b]0;title\\x07``) then show as text instead of acting
    on it. Records keep the exact text; this is for what is printed."""
    return _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", text)
