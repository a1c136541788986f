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


def collie_file(name: str) -> list[dict]:
    """Every row of a shared COLLIE file; skips the calling test when the shared data is absent."""
    path = COLLIE_DATA / name
    if not path.is_file():
        pytest.skip(f"COLLIE data not found at {path} (set CORRAL_SHARED_DATA)")
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def collie_texts(name: str, field: str) -> list[str]:
    """One field of every row of a shared COLLIE file."""
    return [row[field] for row in collie_file(name)]


@pytest.fixture(scope="session")
def dev_generations() -> list[dict]:
    return collie_file("generations_dev.jsonl")


@pytest.fixture(scope="session")
def collie_rows() -> list[dict]:
    return collie_file("collie_v1.jsonl")
