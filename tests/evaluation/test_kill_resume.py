"""A run killed with SIGKILL mid-way and rerun ends exactly like an uninterrupted run with the same seeds."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from corral.evaluation import read_records

pytestmark = pytest.mark.model

# 8 first attempts and their retries, short outputs (40 tokens: many are cut off, which is fine here): three runs
# of the real model in about a minute
ARGS = ["eval", "collie", "--where", "structure=word01,sent01", "--limit", "structure=2", "--samples", "2",
        "--rounds", "1", "--set", "sampling.temperature=0.8", "--set", "sampling.seed=3",
        "--set", "sampling.max_tokens=40", "--no-cache", "--no-report"]


def _corral(out: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "corral.cli", *ARGS, "--out", str(out)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _comparable(run: Path) -> dict:
    """Records without timings or cache flags, by key; the summary without time."""
    records = {r.key: r.model_dump(exclude={"seconds", "cached"}) for r in read_records(run)}
    summary = json.loads((run / "summary.json").read_text())
    summary.pop("seconds")
    summary.pop("hash")
    return {"records": records, "summary": summary}


def test_sigkill_mid_run_then_rerun_equals_an_uninterrupted_run(tmp_path):
    env = {**os.environ, "CORRAL_CACHE_DIR": str(tmp_path / "cache")}
    killed = tmp_path / "killed"
    process = _corral(killed, env)
    records = killed / "records.jsonl"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and process.poll() is None:
        if records.exists() and records.read_text().count("\n") >= 3:
            break
        time.sleep(0.05)
    assert process.poll() is None, f"the run ended before it could be killed: {process.stderr.read().decode()}"
    process.send_signal(signal.SIGKILL)
    process.wait()
    partial = len(read_records(killed))
    assert 3 <= partial < 8

    resumed = _corral(killed, env)
    assert resumed.wait(timeout=600) == 0, resumed.stderr.read().decode()
    keys = [r.key for r in read_records(killed)]
    assert len(keys) == len(set(keys)), "a record was written twice"

    straight = _corral(tmp_path / "straight", env)
    assert straight.wait(timeout=600) == 0, straight.stderr.read().decode()
    a, b = _comparable(killed), _comparable(tmp_path / "straight")
    assert a["records"].keys() == b["records"].keys()
    assert a == b
    expected = {(i, s, 0) for i in {k[0] for k in keys} for s in range(2)}
    assert expected <= set(keys) and len({k[0] for k in keys}) == 4
