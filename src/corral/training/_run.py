"""What every training method shares: the run directory's files, the per-step log, the time budget, checkpoints
that survive a crash or a full disk, and the training curve.

Layout of a run directory::

    train.json        the config (a resume must match it)
    checkpoints/      trl/transformers checkpoints (adapter, optimiser, trainer state)
    steps.jsonl       one row per optimiser step: loss, reward by task, pass rate by task, KL, completion length
    rewards.jsonl     one row per judged completion (RL): task, instance, reward, passed, score, quality, error
    adapter/          the final LoRA adapter and tokenizer: what ``corral eval --model RUN`` loads
    curve.png         reward and pass rate by step
    summary.json      how the run ended
"""

from __future__ import annotations

import errno
import json
import math
import os
import shutil
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from corral.errors import InputError
from corral.files import (
    MAX_RUN_FILE_BYTES,
    MAX_WHOLE_FILE_BYTES,
    open_output,
    read_input_json,
    read_input_text,
    writing,
)
from corral.jsonl import JsonlError, atomic_write, parse_line

from ._config import TrainError
from ._rewards import CheckerReward, Judgement

CHECKPOINTS = "checkpoints"
ADAPTER = "adapter"
STEPS = "steps.jsonl"
REWARDS = "rewards.jsonl"
SUMMARY = "summary.json"
CURVE = "curve.png"

Progress = Callable[[int, int, dict[str, Any]], None]
"""``on_progress(step, total_steps, last_row)`` after each optimiser step."""


def last_checkpoint(run: Path) -> Path | None:
    """The newest complete checkpoint. transformers writes ``trainer_state.json`` last, so a checkpoint without a
    readable one was cut off (a crash or a full disk while saving): it is moved to ``run/incomplete-checkpoint-N``
    and the one before is used."""
    folder = run / CHECKPOINTS
    if not folder.is_dir():
        return None
    found = sorted((p for p in folder.glob("checkpoint-*") if p.name.split("-")[-1].isdigit()),
                   key=lambda p: int(p.name.split("-")[-1]), reverse=True)
    for candidate in found:
        try:  # a regular JSON file of the checkpoint (not a link out of it, a FIFO or a device), or unusable
            read_input_json(candidate / "trainer_state.json", MAX_RUN_FILE_BYTES, within=candidate)
            return candidate
        except (OSError, InputError):
            broken = run / f"incomplete-{candidate.name}"  # out of transformers' checkpoint rotation
            shutil.rmtree(broken, ignore_errors=True)
            candidate.rename(broken)
    return None


def resumed_step(checkpoint: Path | None) -> int:
    if checkpoint is None:
        return 0
    state = read_input_json(checkpoint / "trainer_state.json", MAX_RUN_FILE_BYTES, within=checkpoint)
    step = state.get("global_step", 0) if isinstance(state, dict) else 0
    return step if isinstance(step, int) and step >= 0 else 0


def trim_log(path: Path, step: int) -> float:
    """Drop log rows after ``step`` (they belong to steps a resume redoes); the training seconds up to it. The log
    is one of the run's own files (``corral.files``: not a link out of the run, a FIFO or a device, at most 1 GiB);
    a row that is not a step (cut off by a crash, garbage) is dropped."""
    if not os.path.lexists(path):
        return 0.0
    kept, seconds = [], 0.0
    for line, row in _log_rows(path):
        spent = row.get("seconds", 0.0)
        if row["step"] <= step and isinstance(spent, (int, float)) and 0 <= spent < math.inf:
            seconds = max(seconds, float(spent))
            kept.append(line)
    atomic_write(path, "".join(line + "\n" for line in kept))
    return seconds


def _log_rows(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each line of a run's JSON Lines log that is a step's row (a JSON object whose ``step`` is a whole number),
    with the row; other lines (one cut off by a crash, garbage) are left out."""
    text = read_input_text(path, MAX_WHOLE_FILE_BYTES, within=path.parent)
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            row = parse_line(line, str(path), number)
        except JsonlError:
            continue
        if isinstance(row.get("step"), int) and not isinstance(row["step"], bool) and row["step"] >= 0:
            yield line, row


def step_logger(run: Path, reward: CheckerReward | None, *, minutes: float | None, seconds_before: float,
                on_progress: Progress | None = None) -> Any:
    """A transformers ``TrainerCallback`` that writes ``steps.jsonl`` and ``rewards.jsonl``, reports progress and
    stops training once ``minutes`` of training time (this process and the runs it resumes) are spent."""
    from transformers import TrainerCallback

    class StepLogger(TrainerCallback):  # type: ignore[misc]
        def __init__(self) -> None:
            self.started = time.perf_counter()
            self.pending: list[Judgement] = []

        def elapsed(self) -> float:
            return seconds_before + time.perf_counter() - self.started

        def on_step_end(self, args: Any, state: Any, control: Any, **_: Any) -> Any:
            if reward is not None:
                self.pending = reward.drain()
            if minutes is not None and self.elapsed() >= minutes * 60:
                control.should_training_stop = True
                control.should_save = True
            return control

        def on_log(self, args: Any, state: Any, control: Any, logs: dict[str, float] | None = None,
                   **_: Any) -> None:
            if not logs or "loss" not in logs:
                return  # the final summary line (train_runtime, ...) is not a step
            row: dict[str, Any] = {"step": state.global_step, "seconds": round(self.elapsed(), 2),
                                   "epoch": round(float(logs.get("epoch", 0.0)), 4)}
            for key in ("loss", "kl", "reward", "reward_std", "entropy", "learning_rate", "grad_norm",
                        "completions/mean_length", "completions/clipped_ratio"):
                if key in logs:
                    row[key.replace("completions/", "completion_")] = float(logs[key])
            judged = self.pending
            if judged:
                row |= by_task(judged)
                with open_output(run / REWARDS, append=True, within=run) as handle:
                    for judgement in judged:
                        handle.write(json.dumps({"step": state.global_step, **judgement.to_json()},
                                                ensure_ascii=False) + "\n")
                self.pending = []
            with open_output(run / STEPS, append=True, within=run) as handle:
                handle.write(json.dumps(row) + "\n")
            if on_progress is not None:
                on_progress(state.global_step, state.max_steps, row)

    return StepLogger()


def by_task(judged: Sequence[Judgement]) -> dict[str, Any]:
    """Mean reward, pass rate and errors per task, for one step's completions."""
    rewards: dict[str, list[float]] = defaultdict(list)
    passes: dict[str, list[bool]] = defaultdict(list)
    errors = 0
    for judgement in judged:
        if judgement.reward is not None:
            rewards[judgement.task].append(judgement.reward)
        if judgement.passed is not None:
            passes[judgement.task].append(judgement.passed)
        errors += judgement.error is not None
    every = [p for values in passes.values() for p in values]
    return {"reward_by_task": {k: round(sum(v) / len(v), 4) for k, v in rewards.items()},
            "pass_rate_by_task": {k: round(sum(v) / len(v), 4) for k, v in passes.items()},
            "pass_rate": round(sum(every) / len(every), 4) if every else None,
            "reward_errors": errors}


def train_guarded(trainer: Any, checkpoint: Path | None, run: Path) -> None:
    """``trainer.train``, resuming from ``checkpoint``; a full disk while saving is one clear error naming the
    checkpoint that is still usable. transformers' own printing of every log dict is removed (the step log and
    the caller's progress say it once)."""
    from transformers.trainer_callback import PrinterCallback, ProgressCallback

    trainer.remove_callback(PrinterCallback)
    trainer.remove_callback(ProgressCallback)
    try:
        trainer.train(resume_from_checkpoint=str(checkpoint) if checkpoint else None)
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
            raise
        usable = last_checkpoint(run)
        raise TrainError(f"the disk filled up while saving a checkpoint ({exc.strerror}); "
                         f"{'the last usable one is ' + str(usable) if usable else 'no checkpoint is usable yet'}; "
                         "free some space and rerun the same command to resume") from None


def save_adapter(model: Any, tokenizer: Any, run: Path) -> Path:
    """The trained adapter and tokenizer in ``run/adapter``."""
    return save_whole(model, tokenizer, run / ADAPTER)


def save_whole(model: Any, tokenizer: Any, target: Path) -> Path:
    """A model (or adapter) and its tokenizer saved at ``target``, replaced whole: written beside it first, so a
    crash never leaves a half-written directory where a complete one was."""
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    model.save_pretrained(partial)
    tokenizer.save_pretrained(partial)
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)
    return target


def write_summary(run: Path, data: dict[str, Any]) -> None:
    atomic_write(run / SUMMARY, json.dumps(data, indent=2, sort_keys=True) + "\n")


def read_steps(run: Path) -> list[dict[str, Any]]:
    path = run / STEPS
    if not os.path.lexists(path):
        return []
    return [row for _, row in _log_rows(path)]


def plot_curve(run: Path) -> Path | None:
    """``curve.png``: reward and pass rate per task by step (RL), or the loss (SFT), smoothed over 5 steps."""
    rows = read_steps(run)
    if not rows:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [row["step"] for row in rows]
    rl = any("reward" in row for row in rows)
    figure, axes = plt.subplots(1, 2 if rl else 1, figsize=(10 if rl else 5, 3.6), squeeze=False)
    if rl:
        tasks = sorted({task for row in rows for task in row.get("reward_by_task", {})})
        for task in tasks:
            xs = [row["step"] for row in rows if task in row.get("reward_by_task", {})]
            axes[0][0].plot(xs, _smooth([row["reward_by_task"][task] for row in rows
                                         if task in row.get("reward_by_task", {})]), label=task)
            axes[0][1].plot(xs, _smooth([row["pass_rate_by_task"].get(task, 0.0) for row in rows
                                         if task in row.get("reward_by_task", {})]), label=task)
        axes[0][0].set_title("mean reward (5-step average)")
        axes[0][1].set_title("pass rate of sampled completions")
        axes[0][1].set_ylim(-0.02, 1.02)
        axes[0][0].legend(fontsize=7)
    else:
        axes[0][0].plot(steps, _smooth([row.get("loss", float("nan")) for row in rows]))
        axes[0][0].set_title("training loss (5-step average)")
    for axis in axes[0]:
        axis.set_xlabel("step")
    figure.tight_layout()
    path = run / CURVE
    with writing(path):
        figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


def _smooth(values: Sequence[float], width: int = 5) -> list[float]:
    return [sum(values[max(0, i - width + 1):i + 1]) / len(values[max(0, i - width + 1):i + 1])
            for i in range(len(values))]


def quiet_progress() -> None:
    """No loading and dataset-preparation bars from transformers and datasets: the caller's ``on_progress`` is the
    one report of a run's progress."""
    import datasets
    import transformers

    datasets.disable_progress_bars()
    transformers.utils.logging.disable_progress_bar()
