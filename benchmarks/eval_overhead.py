"""What the evaluation runner adds on top of the generations it makes, in one run.

    python benchmarks/eval_overhead.py [--per-structure 2] [--repeat 3]

The runner (``corral.evaluation.evaluate``: planning, grammar-free greedy requests, checking every output,
writing and flushing one JSONL record per sample, the summary) against the same requests sent straight to the
backend (``model.complete``), on the same loaded SmolLM2, without the response cache. Each round runs both in
turn into a fresh directory; the best round of each counts. The outputs must be identical.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from corral.evaluation import EvalSpec, evaluate, read_records
from corral.models import Request, Sampling, load_model
from corral.tasks import get_task, select

FILTERS = {"structure": ["word01", "word02", "word03", "sent01", "sent02", "sent03", "sent04"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-structure", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    task = get_task("collie")
    chosen = select(task, FILTERS, per_group=("structure", args.per_structure))
    requests = [Request(tuple(task.template.messages(i)), Sampling(max_tokens=i.max_tokens, seed=0)) for i in chosen]
    model = load_model("smollm2")
    model.complete(requests[:1])  # warm up

    best_runner = best_direct = float("inf")
    direct_outputs: list[str] = []
    runner_outputs: list[str] = []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            started = time.perf_counter()
            spec = EvalSpec(task="collie", where=FILTERS, per_group=("structure", args.per_structure))
            run, _ = evaluate(spec, Path(tmp) / "run", model=model)
            best_runner = min(best_runner, time.perf_counter() - started)
            runner_outputs = [r.output for r in read_records(run)]
        started = time.perf_counter()
        direct_outputs = [c.text for request in requests for c in model.complete([request])[0]]
        best_direct = min(best_direct, time.perf_counter() - started)
    assert runner_outputs == direct_outputs, "the runner and the backend gave different outputs"
    print(f"{len(requests)} COLLIE-v1 instances ({', '.join(FILTERS['structure'])}), greedy, best of {args.repeat}:")
    print(f"  backend directly: {best_direct:.2f} s")
    print(f"  corral runner:    {best_runner:.2f} s")
    print(f"  runner / direct = {best_runner / best_direct:.3f} (overhead {best_runner / best_direct - 1:+.1%})")


if __name__ == "__main__":
    main()
