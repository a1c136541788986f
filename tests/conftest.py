"""Shared test fixtures: where the shared data lives, and hypothesis profiles."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("CORRAL_SHARED_DATA", REPO.parent / "shared" / "data"))
COLLIE_DATA = SHARED_DATA / "collie"

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("default")


def collie_texts(name: str, field: str) -> list[str]:
    """One field of every row of a shared COLLIE file; skips the calling test when the shared data is absent."""
    path = COLLIE_DATA / name
    if not path.is_file():
        pytest.skip(f"COLLIE data not found at {path} (set CORRAL_SHARED_DATA)")
    return [row[field] for row in read_jsonl(path)]


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(scope="session")
def dev_generations() -> list[dict]:
    path = COLLIE_DATA / "generations_dev.jsonl"
    if not path.exists():
        pytest.skip(f"COLLIE dev generations not found at {path} (set CORRAL_SHARED_DATA)")
    return read_jsonl(path)


@pytest.fixture(scope="session")
def collie_rows() -> list[dict]:
    path = COLLIE_DATA / "collie_v1.jsonl"
    if not path.exists():
        pytest.skip(f"COLLIE-v1 data not found at {path} (set CORRAL_SHARED_DATA)")
    return read_jsonl(path)
