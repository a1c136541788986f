"""Constrained decoding overhead on the llamacpp backend, in one run: tokens/s free vs under llguidance grammars vs
under llama.cpp's own grammar sampler, on the same prompts.

    python benchmarks/decode_overhead.py [--prompts 8] [--max-tokens 64] [--repeat 3]

Three workloads: COLLIE-v1 instances (their compiled constraint grammars; llama.cpp's sampler cannot take these),
small JSON records, and JSON records with free-text fields (the same schema for llguidance and for llama.cpp's
JSON-Schema-to-GBNF converter). Greedy decoding. tokens/s = decoded tokens / decoding time, where decoding time
is the workload's wall time less its prompt-reading time (measured separately, per mode: Corral's loop and
llama-cpp-python's ``create_chat_completion`` read prompts alike, with the cache reset). Best of ``--repeat``
interleaved rounds. Also reported: free decoding through llama-cpp-python's own ``create_chat_completion`` (the
baseline Corral's loop must not be slower than), the grammar's own time (every check, mask and consume, timed
inside ``SequenceMask``) as a share of decoding time, which is not subject to the machine's noise as the
difference of two rates is, the share of tokens that needed a full mask, and the p50 time of one full mask.
"""

from __future__ import annotations

import argparse
import functools
import json
import time

from corral.grammars import NotExpressible, compile_constraint, compile_schema
from corral.models import Request, Sampling, load_model
from corral.suites.collie import constraint_for, instances

RECORDS = [
    {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
     "required": ["name", "age"]},
    {"type": "object", "required": ["city", "tags"],
     "properties": {"city": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}}},
]
FREE_TEXT = [
    {"type": "object", "required": ["title", "summary"],
     "properties": {"title": {"type": "string"}, "summary": {"type": "string"}}},
    {"type": "object", "required": ["name", "biography"],
     "properties": {"name": {"type": "string"}, "biography": {"type": "string"}}},
]
MODES = ("free", "free_llamacpp", "llguidance", "native")


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


def _schema_requests(schemas: list[dict], count: int, max_tokens: int, ask: str) -> list[Request]:
    return [Request.user(f"{ask} Reply with JSON for the schema {json.dumps(s)} (example {i})",
                         Sampling(max_tokens=max_tokens), compile_schema(s, "json"))
            for s in schemas for i in range(max(1, count // len(schemas)))]


@functools.cache
def _own_llama(path: str, threads: int):  # -> llama_cpp.Llama
    """llama-cpp-python's own Llama on the same GGUF (Corral's keeps a context too small to generate in)."""
    from llama_cpp import Llama

    return Llama(model_path=path, n_ctx=8192, n_threads=threads, n_threads_batch=threads, verbose=False)


def _llamacpp_chat(model, request: Request, grammar=None, max_tokens: int | None = None) -> int:
    """One greedy completion through llama-cpp-python's own API, prompt cache reset; completion tokens."""
    llama = _own_llama(str(model.path), model.threads)
    llama.reset()
    out = llama.create_chat_completion(
        messages=list(request.messages), temperature=0.0, top_k=0, min_p=0.0,
        max_tokens=max_tokens or request.sampling.max_tokens, grammar=grammar, seed=0)
    return out["usage"]["completion_tokens"]


def _prefill_seconds(model, requests: list[Request], via_llamacpp: bool) -> float:
    """Time to read the prompts and emit one token, subtracted so that rates compare decoding alone (a
    constrained answer is often shorter, and would otherwise be charged more prompt time per token)."""
    started = time.perf_counter()
    for request in requests:
        if via_llamacpp:
            _llamacpp_chat(model, request, max_tokens=1)
        else:
            model.complete([Request(request.messages, Sampling(max_tokens=1))])
    return time.perf_counter() - started


def _run(model, requests: list[Request], mode: str, prefill: float) -> tuple[float, int]:
    """Decoded tokens/s over the workload in one mode, and the tokens decoded."""
    from llama_cpp import LlamaGrammar

    tokens, started = 0, time.perf_counter()
    for request in requests:
        if mode == "free_llamacpp":
            tokens += _llamacpp_chat(model, request)
        elif mode == "native":
            grammar = LlamaGrammar.from_json_schema(json.dumps(request.grammar.schema), verbose=False)
            tokens += _llamacpp_chat(model, request, grammar=grammar)
        else:
            grammar = request.grammar if mode == "llguidance" else None
            [[completion]] = model.complete([Request(request.messages, request.sampling, grammar)])
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

    workloads = {
        "COLLIE-v1": _collie_requests(args.prompts, args.max_tokens),
        "JSON records": _schema_requests(RECORDS, args.prompts, args.max_tokens, "Describe someone."),
        "JSON free text": _schema_requests(FREE_TEXT, args.prompts, args.max_tokens * 2,
                                           "Write about a famous scientist."),
    }
    print("| workload | free (Corral) | free (llama-cpp-python) | llguidance | llama.cpp grammar | overhead "
          "| grammar time | llguidance / llama.cpp | masked tokens | p50 full mask |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, requests in workloads.items():
        modes = [m for m in MODES if m != "native" or name != "COLLIE-v1"]
        prefill = {via: min(_prefill_seconds(model, requests, via) for _ in range(args.repeat))
                   for via in (False, True)}
        best: dict[str, tuple[float, int]] = {}
        stats = model.masks.stats
        for _ in range(args.repeat):
            for mode in modes:
                if mode == "llguidance":
                    stats.mask_seconds.clear()
                    stats.accepted_tokens = stats.masked_tokens = 0
                    stats.constraint_seconds = 0.0
                rate, tokens = _run(model, requests, mode, prefill[mode in ("free_llamacpp", "native")])
                if rate > best.get(mode, (0.0, 0))[0]:
                    best[mode] = (rate, tokens)
                    if mode == "llguidance":  # the grammar's own time, as a share of decoding time
                        share = stats.constraint_seconds / ((tokens - len(requests)) / rate)
                if mode == "llguidance":
                    masked, p50 = stats.masked_fraction(), stats.p50_mask_us()
        free, guided = best["free"][0], best["llguidance"][0]
        native = best.get("native", (0.0, 0))[0]
        print(f"| {name} ({len(requests)} prompts, {best['llguidance'][1]} constrained tokens) | {free:.1f} tok/s "
              f"| {best['free_llamacpp'][0]:.1f} tok/s | {guided:.1f} tok/s "
              f"| {f'{native:.1f} tok/s' if native else '—'} | {1 - guided / free:+.1%} | {share:.1%} "
              f"| {f'{guided / native:.2f}x' if native else '—'} | {masked:.0%} | {p50:.0f} µs |", flush=True)
    compile_ms = sorted(model.masks.stats.compile_seconds)[len(model.masks.stats.compile_seconds) // 2] * 1e3
    print(f"\nmedian grammar compile {compile_ms:.2f} ms over {len(model.masks.stats.compile_seconds)} grammars")


if __name__ == "__main__":
    main()
