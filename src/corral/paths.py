"""Where Corral keeps what it can rebuild (responses, CPU probes, generated test databases)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cache_dir"]


def cache_dir() -> Path:
    """``$CORRAL_CACHE_DIR``, else ``~/.cache/corral``: one root, so a test or a CI job can move all of it."""
    return Path(os.environ.get("CORRAL_CACHE_DIR") or Path.home() / ".cache" / "corral")
