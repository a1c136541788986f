"""FormatBench's per-instance grammars: build and compile time, recall of the gold answers, and soundness.

    python benchmarks/formatbench_grammars.py [--per-task 100] [--samples 5] [--json OUT]

For the first ``per_task`` test instances of each task: the time to build the instance's grammar
(``corral.suites.formatbench._grammars.format_grammar``) and to compile it into an llguidance matcher for the
bundled SmolLM2's vocabulary (what constrained decoding does once per instance; p50 and p99); how many gold
answers that pass the strict checker the grammar accepts (recall); and, for ``samples`` texts drawn from each
grammar by seeded random walks, how many pass the strict checker (soundness: all must, except for violations of
the rules the grammar leaves to the checker, which are counted apart).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from corral.grammars import GrammarError, NotExpressible, accepts, random_walk, sample
from corral.models import load_model
from corral.suites.formatbench import TASKS, check_format, load_instances
from corral.suites.formatbench._grammars import format_grammar


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1) + 0.5))] if ordered else 0.0


def measure(task: str, rows: list[dict], factory, samples: int) -> dict:
    builds, compiles, golds, recalled, drawn, sound, left, missing = [], [], 0, 0, 0, 0, 0, 0
    for row in rows:
        started = time.perf_counter()
        try:
            built = format_grammar(task, row)
        except NotExpressible:
            missing += 1
            continue
        builds.append(time.perf_counter() - started)
        started = time.perf_counter()
        try:
            factory.matcher(built.grammar)
        except GrammarError:
            missing += 1
            continue
        compiles.append(time.perf_counter() - started)
        gold = row.get("gold")
        if isinstance(gold, str) and check_format(task, row, gold).passed:
            golds += 1
            recalled += accepts(built.grammar, gold)
        allowed = set(built.left_to_checker)
        for seed in range(samples):
            text = sample(built.grammar, random_walk(seed, stop=0.2, close=0.5), max_bytes=4000)
            if text is None:
                continue
            drawn += 1
            broken = {v.rule for v in check_format(task, row, text).violations}
            sound += not broken
            left += bool(broken) and broken <= allowed
    ms = 1000
    return {"instances": len(rows), "no_grammar": missing,
            "build_p50_ms": ms * statistics.median(builds) if builds else 0.0,
            "build_p99_ms": ms * _percentile(builds, 0.99),
            "compile_p50_ms": ms * statistics.median(compiles) if compiles else 0.0,
            "compile_p99_ms": ms * _percentile(compiles, 0.99),
            "gold_accepted": recalled, "gold_passing": golds, "sampled": drawn, "sampled_pass": sound,
            "sampled_fail_only_left_rules": left}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--per-task", type=int, default=100)
    parser.add_argument("--samples", type=int, default=5)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    model = load_model("smollm2", n_ctx=512)
    results = {}
    print("| task | instances | build p50 / p99 (ms) | compile p50 / p99 (ms) | gold accepted | sampled texts "
          "passing strict | failing only on rules left to the checker |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for task in TASKS:
        rows = list(load_instances(task, "test"))[: args.per_task]
        row = results[task] = measure(task, rows, model.masks, args.samples)
        print(f"| {task} | {row['instances'] - row['no_grammar']} of {row['instances']} | "
              f"{row['build_p50_ms']:.1f} / {row['build_p99_ms']:.1f} | "
              f"{row['compile_p50_ms']:.1f} / {row['compile_p99_ms']:.1f} | "
              f"{row['gold_accepted']}/{row['gold_passing']} | {row['sampled_pass']}/{row['sampled']} | "
              f"{row['sampled_fail_only_left_rules']} |")
    model.close()
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
