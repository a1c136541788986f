"""Small real corpora for tests: part of the default corpus written as a JSONL file."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from corral.corpora import default_corpus


def write_sample_corpus(path: Path, every: int, malformed_after: int) -> Path:
    """Every ``every``-th default-corpus document as JSONL, with one malformed line after document
    ``malformed_after`` (0-based), so that skipping and line numbers are exercised too."""
    with path.open("w", encoding="utf-8") as f:
        for i, doc in enumerate(itertools.islice(default_corpus(), 0, None, every)):
            f.write(json.dumps({"id": doc.id, "text": doc.text, "source": doc.meta.get("source")}) + "\n")
            if i == malformed_after:
                f.write("{not json\n")
    return path
