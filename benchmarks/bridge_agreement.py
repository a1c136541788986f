"""Do the bridges agree with Corral's runner? The same instances, greedy, the same bundled model, in one run.

    python benchmarks/bridge_agreement.py [--per-group 2] [--max-tokens 24]

For one COLLIE task (structures word01 and sent01, the first ``--per-group`` of each) and one FormatBench task (mcq,
0 shots, 2 x ``--per-group`` instances), the pass rate through ``corral.evaluation.evaluate`` on the local llama.cpp
SmolLM2, and through each bridge: inspect_ai (its ``openai-api`` provider) and verifiers (``env.evaluate``) against
llama-cpp-python's server on the same GGUF, started here on 127.0.0.1, and lm-eval (``simple_evaluate``) on the
``corral`` lm-eval model wrapping the same local model. For each bridge it counts the outputs identical to the
runner's and, among those, the verdicts identical to the runner's (they must all be: a bridge judges through
``Task.judge``). Needs the inspect, lm-eval, verifiers and server extras; offline.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from corral.evaluation import EvalSpec, SamplingConfig, evaluate, read_records
from corral.models import Model, backend_environment, bundled_gguf, cpu_model, load_model

PLAIN_GREEDY = {"repeat_penalty": 1.0, "top_k": 0, "min_p": 0.0}
"""llama-cpp-python's server defaults (repeat_penalty 1.1, top_k 40, min_p 0.05) off, as Corral's local backend."""
Outcome = dict[str, tuple[str, bool]]
"""instance id -> (output, passed)"""


def selections(per_group: int) -> list[dict[str, Any]]:
    return [
        {"label": "COLLIE word01+sent01", "task": "collie", "options": {}, "parts": [
            ({"structure": ["word01"]}, per_group), ({"structure": ["sent01"]}, per_group)]},
        {"label": "FormatBench mcq (0-shot)", "task": "formatbench", "options": {"shots": 0}, "parts": [
            ({"task": ["mcq"]}, 2 * per_group)]},
    ]


def via_runner(sel: dict[str, Any], model: Model, max_tokens: int, tmp: Path) -> Outcome:
    got: Outcome = {}
    for i, (where, count) in enumerate(sel["parts"]):
        spec = EvalSpec(task=sel["task"], task_options=sel["options"], where=where, limit=count,
                        sampling=SamplingConfig(max_tokens=max_tokens))
        run, _ = evaluate(spec, tmp / f"runner-{sel['task']}-{i}", model=model)
        got |= {r.instance: (r.output, r.passed) for r in read_records(run)}
    return got


def via_inspect(sel: dict[str, Any], url: str, max_tokens: int, tmp: Path) -> Outcome:
    import inspect_ai
    from inspect_ai.log import read_eval_log

    from corral.bridges.inspect import INSTANCE_KEY, corral_task

    os.environ["LLAMACPP_BASE_URL"], os.environ["LLAMACPP_API_KEY"] = url, "none"
    tasks = [corral_task(task=sel["task"], where=where, limit=count, max_tokens=max_tokens, extra_body=PLAIN_GREEDY,
                         **sel["options"]) for where, count in sel["parts"]]
    logs = inspect_ai.eval(tasks, model="openai-api/llamacpp/smollm2", temperature=0.0, log_dir=str(tmp / "inspect"),
                           display="none", max_connections=1)
    return {s.metadata[INSTANCE_KEY]: (s.output.completion, s.scores["corral_checker"].value == "C")
            for log in logs for s in (read_eval_log(log.location).samples or [])}


def via_lm_eval(sel: dict[str, Any], model: Model, max_tokens: int) -> Outcome:
    import lm_eval
    from lm_eval.tasks import TaskManager

    from corral.bridges.lm_eval import CorralLM, corral_lm_task

    tasks = [corral_lm_task(sel["task"], where=where, limit=count, max_tokens=max_tokens, name=f"corral_part{i}",
                            **sel["options"]) for i, (where, count) in enumerate(sel["parts"])]
    results = lm_eval.simple_evaluate(model=CorralLM(model), tasks=tasks, apply_chat_template=True,
                                      task_manager=TaskManager(include_defaults=False), bootstrap_iters=0,
                                      log_samples=True)
    assert results is not None
    return {s["doc"]["corral_instance"]: (s["resps"][0][0], s["passed"] == 1.0)
            for samples in results["samples"].values() for s in samples}


def via_verifiers(sel: dict[str, Any], url: str, max_tokens: int) -> Outcome:
    import verifiers as vf

    from corral.bridges.verifiers import completion_text, load_environment

    mix = [{"task": sel["task"], "options": {k: str(v) for k, v in sel["options"].items()}, "where": where,
            "limit": count, "reward": "binary"} for where, count in sel["parts"]]
    env = load_environment(task=mix, max_tokens=max_tokens)
    os.environ["CORRAL_BRIDGE_KEY"] = "none"
    client = vf.ClientConfig(api_base_url=url, api_key_var="CORRAL_BRIDGE_KEY", max_retries=0)
    results = env.evaluate_sync(client, "smollm2", sampling_args={
        "temperature": 0.0, "max_tokens": max_tokens, "extra_body": {**PLAIN_GREEDY, "max_tokens": max_tokens}})
    return {o["info"]["instance_id"]: (completion_text(o["completion"]), o["metrics"]["passed"] == 1.0)
            for o in results["outputs"]}


@contextmanager
def llama_server(log: Path) -> Iterator[str]:
    """llama-cpp-python's OpenAI-compatible server on the bundled GGUF, one thread, on 127.0.0.1."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(bundled_gguf()), "--host", "127.0.0.1",
               "--port", str(port), "--n_ctx", "2048", "--n_threads", "1", "--n_threads_batch", "1",
               "--verbose", "False"]
    with log.open("ab") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT,
                                   env={**os.environ, **backend_environment()})
    url = f"http://127.0.0.1:{port}/v1"
    try:
        for _ in range(600):
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=1):
                    break
            except OSError:
                if process.poll() is not None:
                    raise RuntimeError(f"the llama server exited: {log.read_text()[-2000:]}") from None
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-group", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=24)
    args = parser.parse_args()
    model = load_model("smollm2", n_threads=1)
    rows = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as name, llama_server(Path(name) / "server.log") as url:
        tmp = Path(name)
        for sel in selections(args.per_group):
            runner = via_runner(sel, model, args.max_tokens, tmp)
            bridges = {"inspect": via_inspect(sel, url, args.max_tokens, tmp),
                       "lm-eval": via_lm_eval(sel, model, args.max_tokens),
                       "verifiers": via_verifiers(sel, url, args.max_tokens)}
            rows.append((sel["label"], runner, bridges))
    model.close()
    seconds = time.perf_counter() - started

    def rate(outcome: Outcome) -> str:
        return f"{sum(p for _, p in outcome.values())}/{len(outcome)}"

    print(f"Bridge agreement: SmolLM2-135M-Instruct Q4_1 (bundled), greedy, {args.max_tokens} tokens; "
          f"CPU {cpu_model() or 'unknown'}; {seconds:.0f} s")
    print()
    print("| task | runner | inspect | lm-eval | verifiers | outputs identical to the runner's | "
          "verdicts identical where outputs are |")
    print("|---|---|---|---|---|---|---|")
    disagreements = 0
    for label, runner, bridges in rows:
        same_output = {b: [i for i in runner if i in got and got[i][0] == runner[i][0]] for b, got in bridges.items()}
        same_verdict = {b: [i for i in same_output[b] if bridges[b][i][1] == runner[i][1]] for b in bridges}
        disagreements += sum(len(same_output[b]) - len(same_verdict[b]) for b in bridges)
        print(f"| {label} | {rate(runner)} | " + " | ".join(rate(bridges[b]) for b in bridges) + " | "
              + ", ".join(f"{b} {len(same_output[b])}/{len(runner)}" for b in bridges) + " | "
              + ", ".join(f"{b} {len(same_verdict[b])}/{len(same_output[b])}" for b in bridges) + " |")
    if disagreements:
        raise SystemExit(f"{disagreements} verdict(s) differ on identical outputs")


if __name__ == "__main__":
    main()
