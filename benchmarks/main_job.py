"""The README main job's cost: wall time, peak memory and its headline figures, as JSON.

    python benchmarks/main_job.py [--per-structure 3] [--rounds 2] [--out DIR]

Runs ``corral eval collie --limit structure=N --decoding both --rounds R`` as a child process with a fresh, empty
response cache (so the model really runs; a warm cache would time nothing), then prints one JSON object: the wall
seconds, the child's peak resident memory (``getrusage(RUSAGE_CHILDREN).ru_maxrss``: the largest of the children,
which is the evaluation itself), the CPU variant and thread policy ``corral doctor`` reports, and each half's
headline figures read back from its ``summary.json`` (passed as written, after the rounds, with closing, cut off,
closed, NLL/token pooled and per output). The README's figures come from ``--per-structure 3 --rounds 2``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-structure", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", type=Path, help="run directory to keep (default: a temporary one)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="corral-main-job-") as scratch:
        out = args.out or Path(scratch) / "run"
        env_cache = {"CORRAL_CACHE_DIR": str(Path(scratch) / "cache")}
        corral = shutil.which("corral") or sys.exit("the corral command is not on PATH (pip install .)")
        command = [corral, "eval", "collie", "--limit", f"structure={args.per_structure}",
                   "--decoding", "both", "--rounds", str(args.rounds), "--out", str(out), "--no-report"]
        started = time.perf_counter()
        done = subprocess.run(command, env={**os.environ, **env_cache}, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - started
        peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        if done.returncode != 0:
            sys.exit(f"the main job exited {done.returncode}: {done.stderr[-2000:]}")
        doctor = json.loads(subprocess.run([corral, "doctor", "--json"], capture_output=True, text=True,
                                           check=True).stdout)
        halves = {}
        for half in ("free", "constrained"):
            summary = json.loads((out / half / "summary.json").read_text(encoding="utf-8"))
            counts, fluency = summary.get("counts", {}), summary.get("fluency", {})
            halves[half] = {
                "passed_as_written": summary.get("success"),
                "after_rounds": summary.get("final_success"),
                "with_closing": summary.get("final_success_with_closing"),
                "cut_off": counts.get("truncated"),
                "closed": counts.get("closed"),
                "appended_chars": counts.get("appended_chars"),
                "nll_per_token": fluency.get("nll_per_token"),
                "mean_nll_per_token": fluency.get("mean_nll_per_token"),
            }
    print(json.dumps({"command": "corral " + " ".join(command[1:]), "seconds": round(seconds, 1),
                      "peak_rss_mb": round(peak_kb / 1024), "variant": doctor.get("llama_cpp", {}).get("variant"),
                      "threads": doctor.get("threads"), "cpu": doctor.get("cpu", {}).get("model"),
                      "halves": halves}, indent=1))


if __name__ == "__main__":
    main()
