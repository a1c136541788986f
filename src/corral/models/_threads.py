"""How many CPU threads a local backend computes with.

llama.cpp's threads meet at a spinning barrier after every op and PyTorch's do much the same: when two
processes each take every core (two pytest-xdist workers, an evaluation beside a benchmark) the threads wait
on descheduled siblings and a 12-token answer goes from 0.3 s to 45 s (measured on 2 cores). ``CORRAL_THREADS``
lets whoever runs several model processes side by side give each its share.
"""

from __future__ import annotations

import os

from ._protocol import ModelError

THREADS_VARIABLE = "CORRAL_THREADS"


def usable_cpus() -> int:
    """The CPUs this process may run on (taskset and cgroup cpusets included)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def default_threads() -> int:
    """``CORRAL_THREADS`` when set (a positive integer), else every usable CPU."""
    raw = os.environ.get(THREADS_VARIABLE, "").strip()
    if not raw:
        return usable_cpus()
    try:
        threads = int(raw)
    except ValueError:
        threads = 0
    if threads < 1:
        raise ModelError(f"{THREADS_VARIABLE}={raw!r}: expected a positive whole number of threads")
    return threads
