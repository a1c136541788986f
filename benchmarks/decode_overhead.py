"""Constrained decoding overhead on the llamacpp backend: tokens/s free vs under llguidance masks vs under
llama.cpp's own grammar sampler, on the same prompts, in one run.

    python benchmarks/decode_overhead.py [--prompts 8] [--max-tokens 64]

Two workloads: COLLIE-v1 instances (their compiled constraint grammars; llama.cpp's sampler cannot take these)
and JSON Schemas (the same schema for llguidance and for llama.cpp's JSON-Schema-to-GBNF converter). Greedy
decoding; tokens/s = decoded tokens / decoding time (the workload's wall time less its prompt-reading time,
measured separately), best of ``--repeat`` interleaved rounds; p50 mask time from the matcher.
"""

from __future__ import annotations

import argparse
import json
import time

from corral.collie import constraint_for
from corral.collie._data import instances
from corral.grammars import Grammar, NotExpressible, compile_constraint
from corral.models import Request, Sampling, load_model

SCHEMAS = [
    {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
     "required": ["name", "age"]},
    {"type": "object", "required": ["city", "tags"],
     "properties": {"city": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}}},
]


def _collie_requests(count: int, max_tokens: int) -> list[Request]:
    requests: list[Request] = []
    codes: dict[str, int] = {}
    for inst in instances():
        if codes.get(inst.code, 0) >= max(1, count // 10) or inst.code in ("c01", "c02", "c03"):
            continue
        try:
            grammar = compile_constraint(constraint_for(inst.code, inst.targets))
        except NotExpressible:
            continue
        codes[inst.code] = codes.get(inst.code, 0) + 1
        requests.append(Request.user(inst.prompt, Sampling(max_tokens=max_tokens), grammar))
        if len(requests) == count:
            break
    return requests


def _prefill_seconds(model, requests: list[Request]) -> float:
    """Time to read the prompts and emit one token: subtracted so that rates compare decoding alone (a
    constrained answer is often shorter, and would otherwise be charged more prompt time per token)."""
    started = time.perf_counter()
    model.complete([Request(r.messages, Sampling(max_tokens=1)) for r in requests])
    return time.perf_counter() - started


def _run(model, requests: list[Request], native: bool = False, prefill: float = 0.0) -> tuple[float, int]:
    """Decoded tokens/s over the workload (native: llama.cpp's grammar sampler with the schema as GBNF)."""
    from llama_cpp import LlamaGrammar

    tokens, started = 0, time.perf_counter()
    for request in requests:
        if native:
            grammar = LlamaGrammar.from_json_schema(json.dumps(request.grammar.schema), verbose=False)
            out = model._llama.create_chat_completion(messages=list(request.messages), temperature=0.0, top_k=0,
                                                      min_p=0.0, max_tokens=request.sampling.max_tokens,
                                                      grammar=grammar, seed=0)
            tokens += out["usage"]["completion_tokens"]
        else:
            [[completion]] = model.complete([request])
            tokens += completion.completion_tokens
    return (tokens - len(requests)) / (time.perf_counter() - started - prefill), tokens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--prompts", type=int, default=8)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3, help="rounds, modes interleaved; the best round counts")
    args = parser.parse_args()
    model = load_model("smollm2")
    model.complete([Request.user("warm up", Sampling(max_tokens=8))])

    collie = _collie_requests(args.prompts, args.max_tokens)
    free = [Request(r.messages, r.sampling) for r in collie]
    schema_requests = [Request.user(f"Reply with JSON for the schema {json.dumps(s)} (example {i})",
                                    Sampling(max_tokens=args.max_tokens), Grammar.json_schema(s))
                       for s in SCHEMAS for i in range(max(1, args.prompts // len(SCHEMAS)))]
    schema_free = [Request(r.messages, r.sampling) for r in schema_requests]
    best: dict[str, tuple[float, int]] = {}
    prefill = {"collie": min(_prefill_seconds(model, free) for _ in range(args.repeat)),
               "schema": min(_prefill_seconds(model, schema_free) for _ in range(args.repeat))}
    for _ in range(args.repeat):
        for mode, requests, native in (("free", free, False), ("guided", collie, False),
                                       ("s_free", schema_free, False), ("s_guided", schema_requests, False),
                                       ("s_native", schema_requests, True)):
            if mode == "guided":
                model.masks.stats.mask_seconds.clear()
            workload = "schema" if mode.startswith("s_") else "collie"
            rate, tokens = _run(model, requests, native=native, prefill=prefill[workload])
            if rate > best.get(mode, (0.0, 0))[0]:
                best[mode] = (rate, tokens)
            if mode == "guided":
                p50 = model.masks.stats.p50_mask_us()
    compile_ms = sorted(model.masks.stats.compile_seconds)[len(model.masks.stats.compile_seconds) // 2] * 1e3
    (free_rate, free_tokens), (guided_rate, guided_tokens) = best["free"], best["guided"]
    s_free_rate, s_guided_rate, s_native_rate = best["s_free"][0], best["s_guided"][0], best["s_native"][0]

    print(f"COLLIE-v1 ({len(collie)} prompts): free {free_rate:.1f} tok/s ({free_tokens} tokens), "
          f"llguidance {guided_rate:.1f} tok/s ({guided_tokens} tokens): overhead {1 - guided_rate / free_rate:+.1%}")
    print(f"  p50 mask {p50:.0f} us/token, median grammar compile {compile_ms:.2f} ms")
    print(f"JSON Schema ({len(schema_requests)} prompts): free {s_free_rate:.1f} tok/s, llguidance "
          f"{s_guided_rate:.1f} tok/s (overhead {1 - s_guided_rate / s_free_rate:+.1%}), llama.cpp grammar "
          f"{s_native_rate:.1f} tok/s: llguidance / llama.cpp = {s_guided_rate / s_native_rate:.2f}x")


if __name__ == "__main__":
    main()
