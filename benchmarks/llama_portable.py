"""Decode tokens/s of the portable llama.cpp build against a native (``-march=native``) build, one run.

The portable build (``GGML_BACKEND_DL`` + ``GGML_CPU_ALL_VARIANTS``, the README's install) ships every CPU variant
and Corral loads the best one this CPU runs. The peer is llama-cpp-python 0.3.36 built with ``GGML_NATIVE=ON`` on
this machine, whose libraries the same Python package loads through ``LLAMA_CPP_LIB_PATH``. Each configuration runs
in its own process (a process can hold one llama.cpp), interleaved over ``--repeat`` rounds; the median counts:

  * portable        — the variant Corral picks here;
  * portable-haswell — the AVX2 variant forced (``CORRAL_LLAMA_CPU=haswell``): what an AVX2-only CPU gets;
  * native          — the native build (``--native-lib``, or built by ``--build-native`` into ``--cache``).

Decode is measured as llama.cpp's single-token evaluations after a fixed prompt (greedy token fed back), prompt
processing separately, on the bundled SmolLM2-135M-Instruct (Q4_1).

Usage: python benchmarks/llama_portable.py [--build-native] [--native-lib DIR] [--tokens 128] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

LLAMA_CPP_PYTHON = "0.3.36"
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "corral-native-llama"

_CHILD = r"""
import json, sys, time
import llama_cpp
import numpy as np
from corral.models import Request, load_model

tokens = int(sys.argv[1])
model = load_model("smollm2")
llama = model._llama
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


def build_native(cache: Path) -> Path:
    """llama-cpp-python built with -march=native, unpacked; returns its lib directory (reused when present)."""
    lib = cache / "llama_cpp" / "lib"
    if (lib / "libggml-cpu.so").exists():
        return lib
    cache.mkdir(parents=True, exist_ok=True)
    wheels = cache / "wheel"
    env = {**os.environ, "CMAKE_ARGS": "-DGGML_NATIVE=ON", "PIP_NO_CACHE_DIR": "1"}
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-binary", "llama-cpp-python",
                    f"llama-cpp-python=={LLAMA_CPP_PYTHON}", "-w", str(wheels)], env=env, check=True)
    [wheel] = wheels.glob("llama_cpp_python-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(cache)
    return lib


def measure(tokens: int, env: dict[str, str]) -> dict:
    done = subprocess.run([sys.executable, "-c", _CHILD, str(tokens)], capture_output=True, text=True,
                          env={**os.environ, **env}, check=False)
    if done.returncode != 0:
        return {"error": f"exit {done.returncode}: {done.stderr.strip()[-300:]}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--native-lib", type=Path, help="lib directory of a native llama-cpp-python build")
    parser.add_argument("--build-native", action="store_true", help="build the native peer (about 5 min)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path, help="write the results as JSON")
    args = parser.parse_args()

    configs: dict[str, dict[str, str]] = {"portable": {}, "portable-haswell": {"CORRAL_LLAMA_CPU": "haswell"}}
    native = args.native_lib or (build_native(args.cache) if args.build_native else None)
    if native is not None:
        configs["native"] = {"LLAMA_CPP_LIB_PATH": str(native)}
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
    if "native" in results and "error" not in results["native"]:
        for name in ("portable", "portable-haswell"):
            if "error" not in results[name]:
                ratio = results[name]["decode_tps"] / results["native"]["decode_tps"]
                print(f"{name} / native decode: {ratio:.3f}x")
                results[name]["decode_vs_native"] = ratio
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
