"""Supervised fine-tuning with completion-only loss: the SFT baseline (gold references), trn-ft's first stage, and
self-distillation's last step (the model's own constrained outputs that passed)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ._config import TrainConfig, TrainError, claim_run
from ._data import build_mix, sft_rows
from ._model import base_checkpoint, device_defaults, lora_config
from ._run import (
    CHECKPOINTS,
    STEPS,
    Progress,
    last_checkpoint,
    plot_curve,
    resumed_step,
    save_adapter,
    step_logger,
    train_guarded,
    trim_log,
    write_summary,
)


def train_sft(config: TrainConfig, run: Path | str, *, answers: Mapping[tuple[str, str], Sequence[str]] | None = None,
              on_progress: Progress | None = None, claim: bool = True) -> dict[str, Any]:
    """Fine-tune a LoRA adapter on prompt -> answer pairs (the references, or ``answers`` per (task key, instance
    id)); only the answer's tokens carry loss. Resumes from the run's last checkpoint."""
    run = Path(run)
    parts = build_mix(config)
    rows = sft_rows(parts, answers)
    if not rows:
        raise TrainError("nothing to fine-tune on: no training instance has a reference"
                         if answers is None else "nothing to fine-tune on: no kept output")
    if claim:
        claim_run(run, config)
    trainer = build_sft_trainer(config, rows, str(base_checkpoint(config.base)), run, on_progress=on_progress)
    train_guarded(trainer, last_checkpoint(run), run)
    save_adapter(trainer.model, trainer.processing_class, run)
    plot_curve(run)
    summary = {"method": config.method, "steps": trainer.state.global_step, "examples": len(rows),
               "tasks": {part.key: {"train": len(part.train), "heldout": len(part.heldout)} for part in parts}}
    write_summary(run, summary)
    return summary


def build_sft_trainer(config: TrainConfig, rows: list[dict[str, Any]], base: str, run: Path, *,
                      on_progress: Progress | None = None) -> Any:
    from datasets import Dataset
    from transformers import AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    tokenizer = AutoTokenizer.from_pretrained(base, local_files_only=True)
    dataset = Dataset.from_list([{"prompt": row["prompt"], "completion": row["completion"]} for row in rows])
    per_epoch = max(1, -(-len(rows) // config.sft_batch_size))
    max_steps = config.max_steps or max(1, round(per_epoch * config.epochs))
    args = SFTConfig(
        output_dir=str(run / CHECKPOINTS), per_device_train_batch_size=config.sft_batch_size, max_steps=max_steps,
        learning_rate=config.sft_learning_rate, lr_scheduler_type="constant", completion_only_loss=True,
        logging_steps=1, save_steps=config.save_steps, save_total_limit=2, seed=config.seed, report_to=[],
        disable_tqdm=True, max_length=1024, **device_defaults(config))
    step = resumed_step(last_checkpoint(run))
    seconds_before = trim_log(run / STEPS, step)
    logger = step_logger(run, None, minutes=config.minutes, seconds_before=seconds_before, on_progress=on_progress)
    return SFTTrainer(model=base, args=args, train_dataset=dataset, processing_class=tokenizer,
                      peft_config=lora_config(config), callbacks=[logger])
