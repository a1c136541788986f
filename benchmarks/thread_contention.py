"""Does decoding stay fast when another process wants the CPU? Tokens/s of the bundled SmolLM2-135M-Instruct
(llamacpp, greedy, no grammar) alone and beside 1 or 2 competing busy processes, for each thread policy, in one run.

    python benchmarks/thread_contention.py [--tokens 128] [--repeat 3] [--competitors 0 1 2] [--json]

Policies: ``adaptive`` (Corral's default: one thread per CPU other processes leave free, decided again every 16
tokens), and ``fixed-N`` for N = 1 .. the usable CPUs (``CORRAL_THREADS=N``; ``fixed-<all>`` was the default
before). Each measurement is a fresh child process (model load excluded from the timing; one warm-up generation
first), interleaved over ``--repeat`` rounds; the figure is the median tokens/s. A competitor is a Python busy
loop (``while True: pass``) started before the child and killed after it. The ratio of interest: each policy's
rate beside one competitor over the adaptive policy's rate alone (the issue's goal: >= 0.70).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

CHILD = r"""
import json, sys, time
from corral.models import Request, Sampling, load_model
model = load_model("smollm2")
request = Request(messages=({"role": "user", "content": "Tell me a long story about a lighthouse keeper."},),
                  sampling=Sampling(max_tokens=int(sys.argv[1]), temperature=0.0))
model.complete([request])
started = time.perf_counter()
[[completion]] = model.complete([request])
seconds = time.perf_counter() - started
print(json.dumps({"tokens": completion.completion_tokens, "seconds": seconds, "threads": model.threads}))
"""


def measure(policy: str, competitors: int, tokens: int) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if k != "CORRAL_THREADS"}
    if policy.startswith("fixed-"):
        env["CORRAL_THREADS"] = policy.removeprefix("fixed-")
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(competitors)]
    try:
        time.sleep(0.5 if busy else 0.0)
        done = subprocess.run([sys.executable, "-c", CHILD, str(tokens)], env=env, capture_output=True, text=True,
                              check=True, timeout=1800)
    finally:
        for process in busy:
            process.kill()
            process.wait()
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return {"tokens_per_s": result["tokens"] / result["seconds"], "threads_at_end": result["threads"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--competitors", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()

    cpus = len(os.sched_getaffinity(0))
    policies = ["adaptive", *(f"fixed-{n}" for n in range(1, cpus + 1))]
    rates: dict[tuple[str, int], list[float]] = {}
    threads: dict[tuple[str, int], list[float]] = {}
    for _ in range(args.repeat):
        for competitors in args.competitors:
            for policy in policies:
                got = measure(policy, competitors, args.tokens)
                rates.setdefault((policy, competitors), []).append(got["tokens_per_s"])
                threads.setdefault((policy, competitors), []).append(got["threads_at_end"])

    alone = statistics.median(rates[("adaptive", 0)]) if ("adaptive", 0) in rates else None
    rows = []
    for policy in policies:
        for competitors in args.competitors:
            rate = statistics.median(rates[(policy, competitors)])
            rows.append({"policy": policy, "competitors": competitors, "tokens_per_s": round(rate, 1),
                         "threads_at_end": statistics.median(threads[(policy, competitors)]),
                         "vs_adaptive_alone": round(rate / alone, 3) if alone else None})
    if args.json:
        print(json.dumps({"cpus": cpus, "tokens": args.tokens, "repeat": args.repeat, "rows": rows}, indent=1))
        return
    print(f"{cpus} usable CPUs, {args.tokens} tokens, median of {args.repeat}")
    print("| policy | competing busy processes | tokens/s | threads at the end | vs adaptive alone |")
    print("|---|---:|---:|---:|---:|")
    for row in rows:
        print(f"| {row['policy']} | {row['competitors']} | {row['tokens_per_s']} | {row['threads_at_end']:g} | "
              f"{row['vs_adaptive_alone']} |")


if __name__ == "__main__":
    main()
