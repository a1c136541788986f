"""Constrained self-distillation: the model writes its own training data under Corral's grammar constraints.

For every training instance the base model samples ``distill_samples`` outputs with constrained decoding (the
same runner and grammars as ``corral eval --decoding constrained``); the outputs that pass the checker, ended by
the model rather than closed at the token budget, and (for a gated task) have quality above zero become SFT
targets, each distinct output once per instance. The question it answers: does the model learn the
format well enough from its own constrained outputs to drop the constraint at inference?
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

from ._config import TrainConfig, TrainError, claim_run
from ._data import build_mix
from ._rewards import quality_value
from ._run import Progress, write_summary
from ._sft import train_sft

GENERATIONS = "generations"


def distill(config: TrainConfig, run: Path | str, *, on_progress: Progress | None = None) -> dict[str, Any]:
    """Generate (resumable: the evaluation runner's records), keep what passes, fine-tune on it. ``on_progress``
    hears the generation too, as rows with ``generating`` (the task) and ``passed``."""
    from corral.evaluation import EvalSpec, SamplingConfig, evaluate, plan_run, read_records

    if config.method != "distill":
        raise TrainError(f"distill runs method distill, not {config.method}")
    run = Path(run)
    parts = build_mix(config)
    claim_run(run, config)
    kept: dict[tuple[str, str], list[str]] = defaultdict(list)
    generated = passed = finished = 0
    for part in parts:
        pool = replace(part.task, instances=lambda part=part: part.train)
        sampling = SamplingConfig(temperature=config.distill_temperature, seed=config.seed,
                                  max_tokens=part.spec.max_tokens)
        folder = run / GENERATIONS / part.key.replace(":", "-")

        def generated_so_far(done: int, total: int, passed: int, key: str = part.key) -> None:
            if on_progress is not None:
                on_progress(done, total, {"generating": key, "passed": passed})

        spec = EvalSpec(task=pool.name, model=config.base, decoding="constrained", sampling=sampling,
                        samples=config.distill_samples)
        evaluate(plan_run(spec, pool), folder, on_progress=generated_so_far)
        for record in read_records(folder):
            if record.round != 0:
                continue
            generated += 1
            passed += record.passed
            if not record.passed or record.finish_reason != "stop":
                continue  # an output closed at the token budget is not one the model finished
            finished += 1
            if part.spec.reward == "gated" and record.quality:
                quality = quality_value(record.quality, part.spec.quality_metric)
                if quality is not None and quality <= 0.0:
                    continue
            if record.output not in kept[(part.key, record.instance)]:
                kept[(part.key, record.instance)].append(record.output)
    examples = sum(len(v) for v in kept.values())
    if not examples:
        raise TrainError(f"self-distillation kept no output ({generated} generated, {passed} passed, {finished} "
                         "passed and finished within the budget)")
    summary = train_sft(config, run, answers=kept, on_progress=on_progress, claim=False)
    summary |= {"generated": generated, "passed": passed, "finished": finished, "kept": examples}
    write_summary(run, summary)
    return summary
