"""Corral's GRPO training against trl used directly with the same config: optimiser steps per minute.

    python benchmarks/train_steps.py [--steps 6] [--repeats 2] [--json OUT]

Both sides train a fresh LoRA adapter (rank 16) on SmolLM2-135M's plain checkpoint with trl's GRPOTrainer and
identical ``GRPOConfig`` arguments (8 completions of at most 24 tokens per step, beta 0.04, fp32 on CPU, seed 0),
on the same prompt rows (FormatBench EQA, zero shots). The only differences are Corral's: its reward
(``CheckerReward``: routing, budget cut, stop strings, the checker, the quality gate, the judgement log) against
a bare function computing the same values from the same checker, and its step logger (``steps.jsonl``,
``rewards.jsonl``). Equal rewards and seeds give both sides the same training trajectory.
Each side runs ``--steps`` steps after one warm-up step, alternating sides ``--repeats`` times; the ratio is
Corral's steps/min over trl's (>= 0.95 is the target: Corral's bookkeeping costs under 5%).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
import warnings
from pathlib import Path

os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
warnings.filterwarnings("ignore")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--json", type=Path)
    options = parser.parse_args()

    from datasets import Dataset
    from transformers import AutoTokenizer
    from transformers.trainer_callback import PrinterCallback
    from trl import GRPOConfig, GRPOTrainer

    from corral.models import cpu_model
    from corral.training import TaskSpec, TrainConfig, build_mix
    from corral.training._data import rl_rows
    from corral.training._model import base_checkpoint, lora_config
    from corral.training._rl import build_trainer, trainer_arguments

    config = TrainConfig(tasks=[TaskSpec(task="formatbench", where={"task": ["eqa"]}, options={"shots": "0"},
                                         limit=60, reward="gated", quality_metric="eqa_f1", max_tokens=24)],
                         num_generations=8, max_steps=options.steps + 1, device="cpu", seed=0)
    parts = build_mix(config)
    base = str(base_checkpoint(config.base))
    tokenizer = AutoTokenizer.from_pretrained(base, local_files_only=True)
    (part,) = parts
    by_id = {inst.id: inst for inst in part.train}

    def bare_reward(prompts, completions, instance_id, **_):
        """What a user of trl alone would write for the same reward: check each completion, gate by F1. The values
        equal Corral's, so both sides train the same trajectory and only the bookkeeping differs."""
        rewards = []
        for completion, i in zip(completions, instance_id, strict=True):
            answer = completion[-1]["content"]
            for stop in part.task.stop:
                answer = answer.split(stop)[0]
            answer = answer.strip()
            verdict = part.task.check(by_id[i], answer)
            f1 = part.task.quality(by_id[i], answer)["eqa_f1"]
            rewards.append(2.0 * (1.0 if verdict.passed else verdict.score) * f1 - 1.0)
        return rewards

    def corral_side(folder: Path) -> float:
        trainer, _ = build_trainer(config, parts, base, folder)
        trainer.remove_callback(PrinterCallback)
        return _timed(trainer, options.steps)

    def trl_side(folder: Path) -> float:
        args = GRPOConfig(**trainer_arguments(config, parts, folder))  # the very arguments Corral passes
        plain = GRPOTrainer(model=base, reward_funcs=bare_reward, args=args,
                            train_dataset=Dataset.from_list(rl_rows(parts)), processing_class=tokenizer,
                            peft_config=lora_config(config))
        plain.remove_callback(PrinterCallback)
        return _timed(plain, options.steps)

    rates: dict[str, list[float]] = {"corral": [], "trl": []}
    with tempfile.TemporaryDirectory() as scratch:
        for repeat in range(options.repeats):
            for name, side in (("trl", trl_side), ("corral", corral_side)):
                seconds = side(Path(scratch) / f"{name}-{repeat}")
                rates[name].append(options.steps / seconds * 60)
                print(f"{name:7s} repeat {repeat}: {options.steps} steps in {seconds:.1f} s "
                      f"({rates[name][-1]:.2f} steps/min)", flush=True)
    corral, trl = (sum(v) / len(v) for v in (rates["corral"], rates["trl"]))
    result = {"cpu": cpu_model(), "steps": options.steps, "repeats": options.repeats,
              "corral_steps_per_min": round(corral, 3), "trl_steps_per_min": round(trl, 3),
              "ratio": round(corral / trl, 3)}
    print(json.dumps(result, indent=2))
    if options.json:
        options.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


def _timed(trainer, steps: int) -> float:
    """Seconds for ``steps`` optimiser steps after the first (model warm-up, first allocation)."""
    from transformers import TrainerCallback

    marks: list[float] = []

    class Clock(TrainerCallback):
        def on_step_end(self, args, state, control, **_):
            marks.append(time.perf_counter())

    trainer.add_callback(Clock())
    trainer.train()
    return marks[-1] - marks[0] if len(marks) > steps else float("nan")


if __name__ == "__main__":
    main()
