"""Replies decoded together against one at a time, on the bundled model: tokens/s and whether the texts match.

    python benchmarks/batched_decoding.py [--streams 1 2 4 8 16] [--tokens 64] [--json]

Two measurements in one run, nothing else on the machine:
1. Raw decoding rate of the llamacpp backend's stream context (``corral.models._llamacpp_streams``) with N streams
   each writing one token per llama.cpp call (greedy, fixed tokens fed, no sampling or grammar): tokens/s for each
   N and the ratio to N = 1.
2. The backend end to end: 8 greedy requests (COLLIE-v1 prompts, free, ``--tokens`` each) through
   ``LlamaCppModel.complete`` one request per call against all eight in one call: wall seconds, the ratio, and
   whether every reply (text, finish, tokens, likelihood) is the same both ways (it must be: each stream's logits
   are bit for bit a lone sequence's).
"""

from __future__ import annotations

import argparse
import json
import time

from corral.models import Request, Sampling, load_model
from corral.models._llamacpp_streams import StreamContext
from corral.suites.collie import instances


def raw_rate(model, streams: int, tokens: int) -> float:
    prompt = model.prompt_tokens([{"role": "user", "content": "Write a long story about a dragon."}])
    context = StreamContext(model._llama, streams, 1024, model.threads)
    try:
        for k in range(streams):
            context.decode([(t, i, k, i == len(prompt) - 1) for i, t in enumerate(prompt)])
        started = time.perf_counter()
        for step in range(tokens):
            context.decode([(1000 + k, len(prompt) + step, k, True) for k in range(streams)])
        return streams * tokens / (time.perf_counter() - started)
    finally:
        context.close()


def end_to_end(model, tokens: int) -> dict:
    prompts = [inst.prompt for inst in list(instances())[::97][:8]]
    requests = [Request.user(p, Sampling(max_tokens=tokens)) for p in prompts]
    started = time.perf_counter()
    alone = [model.complete([r])[0][0] for r in requests]
    one_at_a_time = time.perf_counter() - started
    started = time.perf_counter()
    together = [c for [c] in model.complete(requests)]
    batched = time.perf_counter() - started

    def seen(c):
        return c.text, c.finish_reason, c.completion_tokens, c.likelihood

    return {"requests": len(requests), "tokens_written": sum(c.completion_tokens for c in together),
            "one_at_a_time_s": round(one_at_a_time, 2), "together_s": round(batched, 2),
            "speedup": round(one_at_a_time / batched, 2),
            "identical": [seen(c) for c in alone] == [seen(c) for c in together]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    model = load_model("smollm2")
    try:
        rates = {n: raw_rate(model, n, args.tokens) for n in args.streams}
        base = rates.get(1) or next(iter(rates.values()))
        result = {"runtime": model.runtime, "threads": model.threads,
                  "raw": {str(n): {"tokens_per_s": round(r, 1), "ratio": round(r / base, 2)} for n, r in rates.items()},
                  "end_to_end": end_to_end(model, args.tokens)}
    finally:
        model.close()
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print(result["runtime"], f"threads {result['threads']}")
    for n, row in result["raw"].items():
        print(f"{n:>3} streams: {row['tokens_per_s']:7.1f} tokens/s  x{row['ratio']}")
    e = result["end_to_end"]
    print(f"8 requests: one at a time {e['one_at_a_time_s']} s, together {e['together_s']} s (x{e['speedup']}), "
          f"identical: {e['identical']}")


if __name__ == "__main__":
    main()
