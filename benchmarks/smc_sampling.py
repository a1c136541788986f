"""Does sequential Monte Carlo keep constrained outputs fluent and finished? Greedy masked decoding against SMC over
the grammar (``Sampling.particles``) on COLLIE-v1 prompts, with free decoding for reference, on the bundled
SmolLM2-135M-Instruct (llamacpp), measured in one run.

    python benchmarks/smc_sampling.py [--per-structure 3] [--structures c01,c07] [--particles 4 8]
                                      [--temperatures 1 0.5] [--methods free,greedy,smc,plain,free-t1]

The instances are those ``corral eval collie --limit structure=N`` runs (``corral.tasks.select`` with
``per_group=("structure", N)``); each is decoded from the task's own chat (``task.template.messages``) with its
grammar (``task.grammar``), its ``max_tokens`` and the runner's repeat limit for constrained decoding, by:

- free: greedy, no grammar (the reference for NLL/token);
- greedy masked: temperature 0 under the grammar (today's constrained decoding);
- SMC K: K particles at each of ``--temperatures`` (seed 0), a draw from the model tempered at T given the grammar;
- plain masked T (``plain``): sampling at T under the mask, the proposal SMC corrects;
- free T 1 (``free-t1``): temperature-1 sampling with no grammar (seed 0), the reference for a sampler: a draw
  from the model's own distribution has an NLL/token near the model's entropy, well above greedy decoding's.

"Passed as written" counts the outputs that ended by themselves (finish ``stop``) and pass the checker
(``task.check(instance, task.answer(text))``), over the instances whose constraint compiles to a grammar.
NLL/token is the mean over outputs of each output's NLL/token under the model with no grammar (``model.score``).
Time is each method's decoding wall time (scoring excluded); the ratio is against greedy masked decoding. Run with
``CORRAL_THREADS`` set to the cores that are free: llama.cpp's threads spin at a barrier beside a competitor.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from corral.evaluation import CONSTRAINED_REPEAT_LIMIT
from corral.grammars import NotExpressible
from corral.models import Request, Sampling, load_model
from corral.tasks import get_task, select


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-structure", type=int, default=3)
    parser.add_argument("--structures", default="", help="COLLIE codes to keep (c01,c07,...); default all")
    parser.add_argument("--particles", type=int, nargs="+", default=[4, 8])
    parser.add_argument("--temperatures", type=float, nargs="+", default=[1.0],
                        help="SMC's and plain masked sampling's temperatures: SMC targets the model tempered token by "
                             "token at T given the grammar (1: the model's own distribution)")
    parser.add_argument("--methods", default="free,greedy,smc",
                        help="which of free, greedy, smc, plain, free-t1 to run (free is the NLL reference)")
    parser.add_argument("--repeat-limit", type=int, default=CONSTRAINED_REPEAT_LIMIT)
    parser.add_argument("--out", type=Path, help="write every output as JSONL here")
    args = parser.parse_args()

    task = get_task("collie")
    chosen = select(task, per_group=("structure", args.per_structure))
    if args.structures:
        codes = set(args.structures.split(","))
        chosen = [inst for inst in chosen if inst.id.split("_")[1] in codes]
    grammars = {}
    for inst in chosen:
        try:
            grammars[inst.id] = task.grammar(inst)
        except NotExpressible:
            grammars[inst.id] = None
    expressible = [inst for inst in chosen if grammars[inst.id] is not None]

    def request(inst, sampling: Sampling, constrained: bool = True) -> Request:
        return Request(tuple(task.template.messages(inst)), sampling,  # type: ignore[arg-type]
                       grammars[inst.id] if constrained else None)

    def sampling(inst, **options) -> Sampling:
        return Sampling(max_tokens=inst.max_tokens, stop=task.stop, seed=0, **options)

    wanted = set(args.methods.split(","))
    if unknown := wanted - {"free", "greedy", "smc", "plain", "free-t1"}:
        parser.error(f"unknown methods {sorted(unknown)}")
    wanted.add("free")
    methods = [("free (greedy, no grammar)", lambda i: request(i, sampling(i), constrained=False))]
    if "free-t1" in wanted:
        methods.append(("free (T 1, no grammar)", lambda i: request(i, sampling(i, temperature=1.0),
                                                                    constrained=False)))
    if "greedy" in wanted:
        methods.append(("greedy masked", lambda i: request(i, sampling(i, repeat_limit=args.repeat_limit))))
    if "smc" in wanted:
        methods += [(f"SMC K={k} (T {t:g})", lambda i, k=k, t=t: request(i, sampling(
                        i, temperature=t, particles=k, repeat_limit=args.repeat_limit)))
                    for t in args.temperatures for k in args.particles]
    if "plain" in wanted:
        methods += [(f"plain masked (T {t:g})", lambda i, t=t: request(i, sampling(
                        i, temperature=t, repeat_limit=args.repeat_limit)))
                    for t in args.temperatures]

    model = load_model("smollm2")
    stats = model.masks.stats
    results: dict[str, dict] = {}
    out = args.out.open("w", encoding="utf-8") if args.out else None
    try:
        for name, make in methods:
            masks_before, rows, seconds = len(stats.mask_seconds), [], 0.0
            for n, inst in enumerate(expressible):
                req = make(inst)
                started = time.perf_counter()
                [[completion]] = model.complete([req])
                seconds += time.perf_counter() - started
                rows.append((inst, req, completion))
                print(f"{name}: {n + 1}/{len(expressible)} {inst.id} {completion.finish_reason} "
                      f"{completion.completion_tokens} tokens {completion.seconds:.1f} s", file=sys.stderr, flush=True)
            likelihoods = model.score([r for _, r, _ in rows], [c.text for _, _, c in rows])
            passed = [c.finish_reason == "stop" and task.check(inst, task.answer(c.text)).passed
                      for inst, _, c in rows]
            masks = stats.mask_seconds[masks_before:]
            results[name] = {"passed": sum(passed), "n": len(rows), "seconds": seconds,
                             "stopped": sum(c.finish_reason == "stop" for _, _, c in rows),
                             "nll": [lk.nll_per_token for lk in likelihoods if lk and lk.nll_per_token is not None],
                             "tokens": sum(c.completion_tokens for _, _, c in rows),
                             "mask_p50_us": statistics.median(masks) * 1e6 if masks else None,
                             "masks": len(masks),
                             "finished": [c.particles_finished for _, _, c in rows]}
            if out:
                for (inst, _, c), lk, ok in zip(rows, likelihoods, passed, strict=True):
                    out.write(json.dumps({"method": name, "instance": inst.id, "text": c.text,
                                          "finish": c.finish_reason, "passed_as_written": ok,
                                          "tokens": c.completion_tokens, "seconds": c.seconds,
                                          "nll_per_token": lk.nll_per_token if lk else None,
                                          "log_evidence": c.log_evidence,
                                          "particles_finished": c.particles_finished}) + "\n")
                out.flush()
    finally:
        if out:
            out.close()
        runtime = getattr(model, "runtime", "llama.cpp")
        model.close()

    print(f"{len(expressible)} of {len(chosen)} COLLIE-v1 instances expressible ({args.per_structure} per structure"
          f"{', ' + args.structures if args.structures else ''}), bundled SmolLM2-135M-Instruct on {runtime}, "
          f"repeat limit {args.repeat_limit}\n")
    free = statistics.fmean(results[methods[0][0]]["nll"])
    greedy = results["greedy masked"]["seconds"] if "greedy masked" in results else float("nan")
    print("| decoding | passed as written | finished (stop) | NLL/token (free model) | × free's NLL | tokens | "
          "time | time / greedy masked | masks (p50 µs) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in results.items():
        nll = statistics.fmean(r["nll"]) if r["nll"] else float("nan")
        constrained = "no grammar" not in name
        passed = f"{r['passed']}/{r['n']} ({100 * r['passed'] / r['n']:.1f}%)" if constrained else "—"
        masks = f"{r['masks']} ({r['mask_p50_us']:.0f})" if r["mask_p50_us"] is not None else "—"
        print(f"| {name} | {passed} | {r['stopped']}/{r['n']} | {nll:.3f} | {nll / free:.2f}× | {r['tokens']} "
              f"| {r['seconds']:.1f} s | {r['seconds'] / greedy:.2f}× | {masks} |")


if __name__ == "__main__":
    main()
