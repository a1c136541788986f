"""Does reranking keep constrained text fluent? Greedy constrained decoding against the ``rerank`` strategy (k
constrained candidates, the one the unconstrained model finds most likely kept), with free decoding for reference,
on the same COLLIE-v1 prompts and the bundled SmolLM2-135M-Instruct (llamacpp), measured in one run.

    python benchmarks/fluent_decoding.py [--per-structure 2] [--k 4] [--temperature 0.7]

The instances are the first ``--per-structure`` of each structure whose constraint compiles to a grammar (so every
constrained output is decoded under its grammar). Each mode is a real run of the runner (``corral.evaluation.
evaluate``) into a temporary directory with no response cache; its time is the run's wall time, generation and the
scoring of final outputs included (rerank also scores every candidate). NLL/token is under the model with no
grammar; the fluency figures are those of the run summaries (``corral.metrics.fluency``). On a machine where another
process keeps a core busy, run it with ``CORRAL_THREADS=1``: llama.cpp's threads spin at a barrier and run several
times slower beside a competitor, which would measure the neighbour rather than the strategies.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import tempfile
import time
from pathlib import Path

from corral.evaluation import EvalSpec, SampleRecord, evaluate, plan_run, read_records
from corral.grammars import NotExpressible
from corral.models import load_model
from corral.tasks import get_task


def _instances(per_structure: int) -> list:
    task = get_task("collie")
    taken: dict[str, int] = {}
    chosen = []
    for instance in task.instances():
        structure = instance.groups["structure"]
        if taken.get(structure, 0) >= per_structure:
            continue
        try:
            task.grammar(instance)
        except NotExpressible:
            continue
        taken[structure] = taken.get(structure, 0) + 1
        chosen.append(instance)
    return chosen


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-structure", type=int, default=2)
    parser.add_argument("--k", type=int, default=4, help="rerank: candidates per sample")
    parser.add_argument("--temperature", type=float, nargs="+", default=[0.7],
                        help="rerank: the candidates' temperature (several: one rerank run each)")
    args = parser.parse_args()

    chosen = _instances(args.per_structure)
    task = dataclasses.replace(get_task("collie"), instances=lambda: chosen)
    model = load_model("smollm2")
    modes = [("free (greedy)", "free", "greedy", 0.7), ("constrained, greedy", "constrained", "greedy", 0.7),
             *((f"constrained, rerank k={args.k} (T {t:g})", "constrained", "rerank", t) for t in args.temperature)]
    rows, seconds, finals = [], {}, {}
    try:
        with tempfile.TemporaryDirectory() as root:
            for name, decoding, strategy, temperature in modes:
                started = time.perf_counter()
                how = {"kind": "rerank", "k": args.k, "temperature": temperature} if strategy == "rerank" else strategy
                spec = EvalSpec(task=task.name, decoding=decoding, strategy=how)
                run, summary = evaluate(plan_run(spec, task), Path(root) / f"{decoding}-{strategy}-{temperature}",
                                        model=model, on_progress=lambda done, total, _, name=name: print(
                                            f"{name}: {done}/{total}", file=sys.stderr, flush=True))
                seconds[name] = time.perf_counter() - started
                rows.append((name, summary))
                finals[name] = {record.instance: record for record in read_records(run) if record.round == 0}
    finally:
        model.close()

    print(f"{len(chosen)} COLLIE-v1 instances ({args.per_structure} compilable per structure), bundled SmolLM2-135M-"
          f"Instruct on {summary.runtimes[0] if summary.runtimes else 'llama.cpp'}\n")
    greedy = seconds["constrained, greedy"]
    print("| decoding | checker pass | NLL/token (free model) | non-word % | triple-repeat % | distinct-2 | "
          "truncated | time | time / greedy constrained |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, summary in rows:
        fluency, success = summary.fluency, summary.success
        nll = "—" if fluency["nll_per_token"] is None else f"{fluency['nll_per_token']:.3f}"
        distinct = "—" if fluency["distinct_2"] is None else f"{fluency['distinct_2']:.3f}"
        print(f"| {name} | {round(success.value * success.n)}/{success.n} ({100 * success.value:.1f}%) "
              f"| {nll} | {_percent(fluency['nonword_share'])} | {_percent(fluency['triple_repeat_share'])} "
              f"| {distinct} | {summary.counts.truncated} | {seconds[name]:.1f} s "
              f"| {seconds[name] / greedy:.2f}× |")
    _paired(finals)


def _paired(finals: dict[str, dict[str, SampleRecord]]) -> None:
    """Each rerank run against greedy constrained decoding, sample by sample: a mean over different texts hides
    which strategy made each one more likely, and a few cut-off outputs move it."""
    base = finals["constrained, greedy"]
    print("\nPaired with greedy constrained decoding, per sample (NLL/token under the free model; lower is more "
          "likely):\n")
    print("| strategy | samples | more likely | as likely | less likely | mean Δ NLL/token ± se | "
          "where greedy finished: mean Δ ± se (n) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, records in finals.items():
        if "rerank" not in name:
            continue
        pairs = [(base[i], r) for i, r in records.items() if i in base and base[i].likelihood and r.likelihood]
        deltas = [r.likelihood.nll_per_token - g.likelihood.nll_per_token for g, r in pairs]
        finished = [d for d, (g, _) in zip(deltas, pairs, strict=True) if g.finish_reason == "stop"]
        print(f"| {name} | {len(deltas)} | {sum(d < -1e-9 for d in deltas)} | {sum(abs(d) <= 1e-9 for d in deltas)} "
              f"| {sum(d > 1e-9 for d in deltas)} | {_mean_se(deltas)} | {_mean_se(finished)} ({len(finished)}) |")


def _mean_se(values: list[float]) -> str:
    if not values:
        return "—"
    mean = statistics.fmean(values)
    se = statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else 0.0
    return f"{mean:+.3f} ± {se:.3f}"


if __name__ == "__main__":
    main()
