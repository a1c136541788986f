"""Handing freed memory back to the system.

llguidance's lexers and llama.cpp's buffers are native allocations: when a grammar's lexer cache (up to ~100 MB
for a large COLLIE grammar) or a parked KV stream is freed, glibc keeps the pages in its arenas for the next
allocation, fragmented, and the process's resident size stays at its high-water mark. A run that compiles and
decodes grammar after grammar then peaks at the sum of what was freed in between, not at what is live. Calling
``malloc_trim`` where a large native structure has just been let go (after a compile's checks, after a batch of
replies) returns the free pages; it costs about a millisecond.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from functools import cache


@cache
def _trim():  # -> the C function, or None where there is no glibc (macOS, musl)
    name = ctypes.util.find_library("c")
    if not name:
        return None
    try:
        return ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):
        return None


def return_freed_memory() -> bool:
    """Give the pages the C allocator holds free back to the system; False where that cannot be done."""
    trim = _trim()
    if trim is None:
        return False
    trim(ctypes.c_size_t(0))
    return True
