"""How large the slowest tests run.

The README's test command (and CI, which runs it verbatim) uses the quick sizes, chosen so that the suite fits
12 minutes on 2 cores while every property is still checked on real data and the real model; ``CORRAL_TEST_FULL=1``
runs the full sizes (more instances, samples and tokens: about three times as long), for a release or a change to
the decoder, the grammars or the runner.
"""

from __future__ import annotations

import os
from typing import TypeVar

T = TypeVar("T")

FULL = os.environ.get("CORRAL_TEST_FULL", "") == "1"


def sized(quick: T, full: T) -> T:
    """``full`` under ``CORRAL_TEST_FULL=1``, else ``quick``."""
    return full if FULL else quick
