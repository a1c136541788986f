"""Before and after: the base model and trained runs evaluated on the held-out instances of the runs' task mix,
free and constrained, as one report.

Every model is run by the transformers backend (the base as its plain fp32 checkpoint, a run as base + merged
adapter), greedy, so the only difference between columns is the training. Error bars are 95% bootstrap
intervals over held-out instances (1,000 resamples, seeded), since a CPU run has one seed per method; the
"format met, quality 0" column counts outputs that pass the checker with a quality of zero (ReFF's reward
hacking, Figure 4). FFR counts passes *as written* (``SampleRecord.passed_as_written``): an output cut off at its
budget, closed by the runner or not, is not the model's pass.

``comparison.json`` keeps, beside each row's aggregates, its per-instance held-out outputs (``outputs``: instance,
output, verdict, quality) and the quality metric it reads, so every figure can be recomputed from the file alone
(``recompute_row``).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from corral.files import MAX_RUN_FILE_BYTES, read_input_bytes, writing
from corral.jsonl import atomic_write

from ._config import CONFIG_FILE, TrainConfig, TrainError
from ._data import TaskPart, build_mix
from ._model import base_checkpoint
from ._rewards import quality_value
from ._run import quiet_progress

RESAMPLES = 1000
DECODINGS = ("free", "constrained")


def compare(runs: Sequence[Path], out: Path, *, limit: int | None = None, decodings: Sequence[str] = DECODINGS,
            include_base: bool = True, on_progress: Callable[[str], None] | None = None) -> Path:
    """Evaluate the base and each run on the held-out instances (the first ``limit`` of each task), write
    ``out/report.md``, ``out/comparison.json`` and ``out/comparison.png``; return the report's path."""
    from corral.models import load_model

    quiet_progress()
    if not runs:
        raise TrainError("no training runs to compare")
    configs = [_config(run) for run in runs]
    first = configs[0]
    for run, config in zip(runs, configs, strict=True):
        if (config.base, config.holdout, [t.model_dump() for t in config.tasks]) != \
                (first.base, first.holdout, [t.model_dump() for t in first.tasks]):
            raise TrainError(f"{run} trained on another base or task mix than {runs[0]}; compare runs of one mix")
    parts = build_mix(first)
    models: list[tuple[str, str]] = []
    if include_base:
        models.append(("base", str(base_checkpoint(first.base))))
    models += [(_label(run, config), str(run)) for run, config in zip(runs, configs, strict=True)]
    rows: list[dict[str, Any]] = []
    for label, model in models:
        loaded = load_model(model)  # once per model: every task and decoding reuses it
        try:
            rows += _evaluate_model(label, model, loaded, parts, out, limit, decodings, on_progress)
        finally:
            loaded.close()
    atomic_write(out / "comparison.json", json.dumps(rows, indent=2) + "\n")  # a failed write: an OutputError
    with writing(out / "comparison.png"):
        _chart(rows, out / "comparison.png")
    path = out / "report.md"
    atomic_write(path, comparison_markdown(rows, models, first, runs))
    return path


def _evaluate_model(label: str, model: str, loaded: Any, parts: list[TaskPart], out: Path, limit: int | None,
                    decodings: Sequence[str], on_progress: Callable[[str], None] | None) -> list[dict[str, Any]]:
    from corral.evaluation import EvalSpec, SamplingConfig, evaluate, plan_run, read_records

    rows = []
    for part in parts:
        heldout = part.heldout[:limit] if limit else part.heldout
        if not heldout:
            raise TrainError(f"task {part.key} has no held-out instances; raise holdout or limit")
        pool = replace(part.task, instances=lambda heldout=heldout: heldout)
        for decoding in decodings:
            folder = out / "runs" / _slug(label) / part.key.replace(":", "-") / decoding
            if on_progress is not None:
                on_progress(f"{label} {part.key} {decoding}")
            spec = EvalSpec(task=pool.name, model=model, decoding=decoding,  # type: ignore[arg-type]
                            sampling=SamplingConfig(max_tokens=part.spec.max_tokens))
            evaluate(plan_run(spec, pool), folder, model=loaded)
            records = [r for r in read_records(folder) if r.round == 0 and r.sample == 0]
            rows.append(_row(label, part, decoding, records))
    return rows


def _slug(label: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in label).strip("-")


def _config(run: Path) -> TrainConfig:
    try:  # the run's own regular file, at most 64 MiB (corral.files): never a FIFO, a device or a link out of it
        return TrainConfig.model_validate_json(read_input_bytes(run / CONFIG_FILE, MAX_RUN_FILE_BYTES, within=run))
    except ValueError as exc:  # an InputError or pydantic's ValidationError
        raise TrainError(f"{run} is not a training run ({exc})") from None


def _label(run: Path, config: TrainConfig) -> str:
    name = config.method if config.method != "rl" else f"rl-{config.setting}"
    return f"{name} ({run.name})"


def _row(label: str, part: TaskPart, decoding: str, records: Sequence[Any]) -> dict[str, Any]:
    return comparison_row(label, part.key, decoding, [held_out_output(r) for r in records],
                          part.spec.quality_metric)


def held_out_output(record: Any) -> dict[str, Any]:
    """What ``comparison.json`` keeps of one held-out record: the output, its verdict and its quality."""
    return {"instance": record.instance, "output": record.output, "answer": record.answer,
            "finish_reason": record.finish_reason, "appended": record.appended, "passed": record.passed,
            "written_passed": record.written_passed, "passed_as_written": record.passed_as_written,
            "score": record.score, "violations": [dict(v) for v in record.violations],
            "quality": dict(record.quality)}


def comparison_row(label: str, task: str, decoding: str, outputs: Sequence[dict[str, Any]],
                   quality_metric: str | None) -> dict[str, Any]:
    """One row of the comparison: aggregates over ``outputs`` (``held_out_output``), with the outputs kept.
    FFR and "format met, quality 0" count passes as written."""
    passed = [float(o["passed_as_written"]) for o in outputs]
    qualities = [quality_value(o["quality"], quality_metric) for o in outputs]
    known = [q for q in qualities if q is not None]
    hacked = sum(1 for o, q in zip(outputs, qualities, strict=True)
                 if o["passed_as_written"] and q is not None and q <= 0.0)
    return {"model": label, "task": task, "decoding": decoding, "n": len(outputs),
            "ffr": _mean(passed), "ffr_ci": bootstrap(passed),
            "quality": _mean(known) if known else None, "quality_ci": bootstrap(known) if known else None,
            "passed_quality_zero": hacked if known else None,
            "truncated": sum(o["finish_reason"] == "length" for o in outputs),
            "closed": sum(bool(o["appended"]) for o in outputs),
            "quality_metric": quality_metric, "outputs": list(outputs)}


def recompute_row(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` (as read back from ``comparison.json``) recomputed from its kept outputs."""
    fresh = comparison_row(row["model"], row["task"], row["decoding"], row["outputs"], row["quality_metric"])
    return json.loads(json.dumps(fresh))  # tuples as lists, as in the file


def bootstrap(values: Sequence[float], resamples: int = RESAMPLES, seed: int = 0) -> tuple[float, float]:
    """The 95% percentile interval of the mean over ``resamples`` resamples of ``values`` (seeded)."""
    if not values:
        return (0.0, 0.0)
    draw = random.Random(seed)
    means = sorted(_mean([values[draw.randrange(len(values))] for _ in values]) for _ in range(resamples))
    return (means[int(0.025 * resamples)], means[min(resamples - 1, int(0.975 * resamples))])


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def comparison_markdown(rows: list[dict[str, Any]], models: list[tuple[str, str]], config: TrainConfig,
              runs: Sequence[Path]) -> str:
    lines = ["# Training: before and after", "",
             "Held-out instances (never trained on), first attempt, greedy, transformers backend. "
             "FFR counts passes as written (an output cut off at its budget, closed or not, is no pass). ± gives the "
             "95% bootstrap interval over instances (1,000 resamples). Quality is the task's own metric scaled to "
             "[0, 1]; \"format met, quality 0\" counts passing outputs with zero quality (reward hacking). "
             "comparison.json keeps every held-out output with its verdict and quality.", "",
             "Models: " + "; ".join(f"**{label}** = `{path}`" for label, path in models), ""]
    for task in dict.fromkeys(row["task"] for row in rows):
        lines += [f"## {task}", "", "| model | decoding | n | FFR | quality | format met, quality 0 | truncated |",
                  "|---|---|---:|---:|---:|---:|---:|"]
        for row in (r for r in rows if r["task"] == task):
            low, high = row["ffr_ci"]
            quality = "—" if row["quality"] is None else \
                f"{row['quality']:.3f} [{row['quality_ci'][0]:.3f}, {row['quality_ci'][1]:.3f}]"
            hacked = "—" if row["passed_quality_zero"] is None else str(row["passed_quality_zero"])
            lines.append(f"| {row['model']} | {row['decoding']} | {row['n']} | {row['ffr']:.1%} "
                         f"[{low:.1%}, {high:.1%}] | {quality} | {hacked} | {row['truncated']} |")
        lines.append("")
    lines += ["![FFR by model](comparison.png)", "", "Runs: " + ", ".join(f"`{run}`" for run in runs), ""]
    return "\n".join(lines)


def _chart(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tasks = list(dict.fromkeys(row["task"] for row in rows))
    series = list(dict.fromkeys((row["model"], row["decoding"]) for row in rows))
    figure, axes = plt.subplots(1, len(tasks), figsize=(4.5 * len(tasks), 3.8), squeeze=False)
    models = list(dict.fromkeys(model for model, _ in series))
    width = 0.8 / max(1, len(series))
    for t, task in enumerate(tasks):
        axis = axes[0][t]
        for s, (model, decoding) in enumerate(series):
            row = next((r for r in rows if r["task"] == task and r["model"] == model and r["decoding"] == decoding),
                       None)
            if row is None:
                continue
            low, high = row["ffr_ci"]
            axis.bar(s * width, row["ffr"], width, yerr=[[row["ffr"] - low], [high - row["ffr"]]],
                     label=f"{model}, {decoding}", capsize=3, color=f"C{models.index(model)}",
                     hatch="//" if decoding == "constrained" else None, edgecolor="white")
        axis.set_title(f"{task}: held-out FFR")
        axis.set_ylim(0, 1.05)
        axis.set_xticks([])
    handles, labels = axes[0][0].get_legend_handles_labels()
    figure.legend(handles, labels, fontsize=7, loc="lower center", ncol=min(4, len(series)))
    figure.tight_layout(rect=(0, 0.06 * ((len(series) + 3) // 4), 1, 1))
    figure.savefig(path, dpi=110)
    plt.close(figure)
