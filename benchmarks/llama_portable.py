"""Decode tokens/s of the portable llama.cpp build against a native (``-march=native``) build, one run.

The portable build (``GGML_BACKEND_DL`` + ``GGML_CPU_ALL_VARIANTS``, the README's install) ships every CPU variant
and Corral loads the best one this CPU runs. A peer is another build of llama-cpp-python 0.3.36, installed with
``pip --target`` and put first on ``PYTHONPATH`` (Corral's own code is the same). Each configuration runs
in its own process (a process can hold one llama.cpp), interleaved over ``--repeat`` rounds; the median counts:

  * portable        — the variant Corral picks here;
  * portable-haswell — the AVX2 variant forced (``CORRAL_LLAMA_CPU=haswell``): what an AVX2-only CPU gets;
  * portable-x64    — the lowest variant (no SIMD beyond x86-64's SSE2), for scale;
  * native          — llama-cpp-python's default build (``GGML_NATIVE=ON``: ``-march=native``), and, on a CPU that
                      reports AMX, native-no-amx (the same without AMX: llama.cpp's AMX kernels crash in some VMs).
                      Built by ``--build-native`` into ``--cache``, or given with ``--peer NAME=DIR``.

Decode is measured as llama.cpp's single-token evaluations after a fixed prompt (greedy token fed back), prompt
processing separately, on the bundled SmolLM2-135M-Instruct (Q4_1).

Usage: python benchmarks/llama_portable.py [--build-native] [--peer NAME=DIR] [--variant NAME] [--tokens 128]
       [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from corral.models import cpu_flags

LLAMA_CPP_PYTHON = "0.3.36"
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "corral-native-llama"

_CHILD = r"""
import json, sys, time
import llama_cpp
import numpy as np
from corral.models import Request, load_model

tokens = int(sys.argv[1])
model = load_model("smollm2")
llama = llama_cpp.Llama(model_path=str(model.path), n_ctx=4096, n_threads=model.threads, verbose=False)
prompt = model.prompt_tokens(Request.user("Write a long story about a lighthouse keeper and the sea.").messages)
llama.reset()
start = time.perf_counter()
llama.eval(prompt)
prompt_s = time.perf_counter() - start
n_vocab, ctx = llama.n_vocab(), llama._ctx.ctx
def greedy():
    return int(np.argmax(np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(ctx, -1), shape=(n_vocab,))))
token = greedy()
start = time.perf_counter()
for _ in range(tokens):
    llama.eval([token])
    token = greedy()
decode_s = time.perf_counter() - start
print(json.dumps({"runtime": model.runtime, "prompt_tps": len(prompt) / prompt_s, "decode_tps": tokens / decode_s}))
"""


def build_peer(cache: Path, name: str, cmake_args: str, extra_env: dict[str, str]) -> Path:
    """llama-cpp-python built with ``cmake_args`` and installed into ``cache/name`` (reused when present)."""
    site = cache / name
    if (site / "llama_cpp" / "lib" / "libggml-cpu.so").exists():
        return site
    env = {**os.environ, **extra_env, "CMAKE_ARGS": cmake_args, "PIP_NO_CACHE_DIR": "1"}
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-binary", "llama-cpp-python",
                    "--target", str(site), f"llama-cpp-python=={LLAMA_CPP_PYTHON}"], env=env, check=True)
    return site


def measure(tokens: int, env: dict[str, str]) -> dict:
    done = subprocess.run([sys.executable, "-c", _CHILD, str(tokens)], capture_output=True, text=True,
                          env={**os.environ, **env}, check=False)
    if done.returncode < 0:
        return {"error": f"killed by {signal.Signals(-done.returncode).name}"}
    if done.returncode != 0:
        return {"error": f"exit {done.returncode}: {done.stderr.strip()[-300:]}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--peer", action="append", default=[], metavar="NAME=DIR",
                        help="another llama-cpp-python build installed with pip --target DIR (repeatable)")
    parser.add_argument("--build-native", action="store_true",
                        help="build the native peers into --cache (about 5 min each): native, and native-no-amx "
                             "where the CPU reports AMX")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--variant", action="append", default=[], metavar="NAME",
                        help="also time this CPU variant forced (CORRAL_LLAMA_CPU=NAME; repeatable), e.g. to see "
                             "what a CPU whose own variant is left out of the build gets from the next one down")
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path, help="write the results as JSON")
    args = parser.parse_args()

    configs: dict[str, dict[str, str]] = {"portable": {}, "portable-haswell": {"CORRAL_LLAMA_CPU": "haswell"},
                                          "portable-x64": {"CORRAL_LLAMA_CPU": "x64"}}
    configs.update({f"portable-{name}": {"CORRAL_LLAMA_CPU": name} for name in args.variant})
    peers = dict(item.split("=", 1) for item in args.peer)
    if args.build_native:
        peers["native"] = str(build_peer(args.cache, "native", "-DGGML_NATIVE=ON", {}))
        if "amx_int8" in cpu_flags():
            no_amx = "-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"  # explicit -mno-* outlast -march=native in gcc
            peers["native-no-amx"] = str(build_peer(args.cache, "native-no-amx", "-DGGML_NATIVE=ON",
                                                    {"CFLAGS": no_amx, "CXXFLAGS": no_amx}))
    for name, site in peers.items():
        configs[name] = {"PYTHONPATH": os.pathsep.join(filter(None, [site, os.environ.get("PYTHONPATH")]))}
    runs: dict[str, list[dict]] = {name: [] for name in configs}
    for _ in range(args.repeat):
        for name, env in configs.items():
            runs[name].append(measure(args.tokens, env))

    results = {}
    for name, rows in runs.items():
        good = [r for r in rows if "error" not in r]
        if not good:
            results[name] = {"error": rows[0]["error"]}
            continue
        results[name] = {"runtime": good[0]["runtime"], "runs": len(good),
                         "decode_tps": statistics.median(r["decode_tps"] for r in good),
                         "prompt_tps": statistics.median(r["prompt_tps"] for r in good)}
    print(f"{'config':<18} {'decode tok/s':>13} {'prompt tok/s':>13}  runtime")
    for name, r in results.items():
        if "error" in r:
            print(f"{name:<18} {'failed':>13} {'':>13}  {r['error']}")
        else:
            print(f"{name:<18} {r['decode_tps']:13.1f} {r['prompt_tps']:13.1f}  {r['runtime']}")
    for peer in peers:
        if "error" in results[peer]:
            continue
        for name in ("portable", "portable-haswell", "portable-x64"):
            if "error" not in results[name]:
                ratio = results[name]["decode_tps"] / results[peer]["decode_tps"]
                print(f"{name} / {peer} decode: {ratio:.3f}x")
                results[name][f"decode_vs_{peer}"] = ratio
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
