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

# Each pytest-xdist worker gets its share of the CPUs for model threads (and so do the processes it starts):
# llama.cpp's threads spin at a barrier, so two workers with a thread per core each run ~100x slower.
if "PYTEST_XDIST_WORKER_COUNT" in os.environ:
    from corral.models import usable_cpus

    os.environ.setdefault(
        "CORRAL_THREADS", str(max(1, usable_cpus() // int(os.environ["PYTEST_XDIST_WORKER_COUNT"]))))

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


_LONG_MARKS = ("model", "server", "ray", "slow")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Long tests (the marks above) run first, in their modules' order, so that xdist's workers end together: the
    last minutes hold only short tests, which ``--dist worksteal`` (pyproject's addopts) moves to whichever worker
    is free. Until this ordering the suite ended with one worker running a three-minute model test alone."""
    items.sort(key=lambda item: not any(item.get_closest_marker(m) for m in _LONG_MARKS))
