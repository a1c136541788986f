"""ReFF's reinforcement with checker rewards on today's trl: GRPO (or RLOO) with a LoRA adapter and a KL anchor.

ReFF (Yao et al. 2024, Algorithm 1 and Appendix B) samples a response, scores it with the format checker (+1/-1)
and updates the policy with a KL penalty towards the original model. trl's GRPO/RLOO do the same with groups of
samples per prompt instead of a value model; ``beta > 0`` keeps the KL term (trl's default is 0, no anchor). The
settings of ReFF's Table 3 are in ``TrainConfig``; ``trn-ft`` runs ``train_sft`` first, merges its adapter into
the base, and anchors RL to that fine-tuned model.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ._config import TrainConfig, TrainError, claim_run
from ._data import TaskPart, build_mix, rl_rows
from ._export import merge
from ._model import base_checkpoint, device_defaults, lora_config
from ._rewards import CheckerReward
from ._run import (
    CHECKPOINTS,
    REWARDS,
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

FT_STAGE = "sft-stage"
MERGED = "sft-merged"


def train_rl(config: TrainConfig, run: Path | str, *, on_progress: Progress | None = None) -> dict[str, Any]:
    """Train (or resume) an RL run in ``run``; returns its summary. See ``TrainConfig`` for every option."""
    if config.method != "rl":
        raise TrainError(f"train_rl runs method rl, not {config.method}")
    run = Path(run)
    parts = build_mix(config)  # a bad task or option is refused before the run directory is made
    claim_run(run, config)
    base = str(base_checkpoint(config.base))
    if config.setting == "trn-ft":
        base = str(_fine_tuned_base(config, run, base, on_progress))
    trainer, _ = build_trainer(config, parts, base, run, on_progress=on_progress)
    checkpoint = last_checkpoint(run)
    train_guarded(trainer, checkpoint, run)
    save_adapter(trainer.model, trainer.processing_class, run)
    plot_curve(run)
    summary = {"method": "rl", "algorithm": config.algorithm, "setting": config.setting,
               "steps": trainer.state.global_step, "base": base,
               "tasks": {part.key: {"train": len(part.train), "heldout": len(part.heldout)} for part in parts}}
    write_summary(run, summary)
    return summary


def build_trainer(config: TrainConfig, parts: list[TaskPart], base: str, run: Path, *,
                  on_progress: Progress | None = None, log: bool = True) -> tuple[Any, CheckerReward]:
    """The trl trainer for ``config`` over ``parts``, training a new LoRA adapter on ``base`` (a checkpoint
    directory), with Corral's step log as a callback (``log``). Exposed for the benchmark, which times it against
    trl used directly with the same config."""
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from datasets import Dataset
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(base, local_files_only=True)
    reward = CheckerReward(parts, decode=lambda ids: tokenizer.decode(ids, skip_special_tokens=True))
    dataset = Dataset.from_list(rl_rows(parts))
    trainer_class, config_class = _algorithm(config.algorithm)
    args = config_class(**trainer_arguments(config, parts, run))
    seconds_before = 0.0
    callbacks = []
    if log:
        step = resumed_step(last_checkpoint(run))
        seconds_before = trim_log(run / STEPS, step)
        trim_log(run / REWARDS, step)
        callbacks.append(step_logger(run, reward, minutes=config.minutes, seconds_before=seconds_before,
                                     on_progress=on_progress))
    trainer = trainer_class(model=base, reward_funcs=reward, args=args, train_dataset=dataset,
                            processing_class=tokenizer, peft_config=lora_config(config), callbacks=callbacks)
    return trainer, reward


def trainer_arguments(config: TrainConfig, parts: list[TaskPart], run: Path) -> dict[str, Any]:
    """The ``GRPOConfig``/``RLOOConfig`` arguments of a run: one completion length for the mix (its longest task
    budget; each task's own budget is applied when judging), a constant learning rate (ReFF), a log row per step."""
    budget = max(part.max_tokens(inst) for part in parts for inst in part.train)
    rows = sum(len(part.train) for part in parts)
    per_epoch = max(1, rows // config.prompts_per_step)
    return dict(
        output_dir=str(run / CHECKPOINTS), per_device_train_batch_size=config.prompts_per_step * config.num_generations,
        num_generations=config.num_generations, max_completion_length=budget, learning_rate=config.learning_rate,
        lr_scheduler_type="constant", beta=config.beta, temperature=config.temperature,
        max_steps=config.max_steps or max(1, round(per_epoch * config.epochs)), logging_steps=1,
        save_steps=config.save_steps, save_total_limit=2, seed=config.seed, report_to=[], disable_tqdm=True,
        gradient_accumulation_steps=1, **device_defaults(config), **_vllm(config))


def _vllm(config: TrainConfig) -> dict[str, Any]:
    """trl's vLLM generation, in the training process (colocate), where vLLM is installed and a GPU is used."""
    if not config.vllm:
        return {}
    import importlib.util

    if importlib.util.find_spec("vllm") is None:
        raise TrainError("--vllm needs vLLM installed (pip install vllm, on a machine with a CUDA GPU)")
    return {"use_vllm": True, "vllm_mode": "colocate"}


def _algorithm(name: str) -> tuple[Any, Any]:
    if name == "rloo":
        from trl import RLOOConfig, RLOOTrainer

        return RLOOTrainer, RLOOConfig
    from trl import GRPOConfig, GRPOTrainer

    return GRPOTrainer, GRPOConfig


def _fine_tuned_base(config: TrainConfig, run: Path, base: str, on_progress: Progress | None) -> Path:
    """trn-ft's first stage: SFT on the references (in ``run/sft-stage``), merged into the base once."""
    merged = run / MERGED
    if (merged / "config.json").is_file():
        return merged
    from ._sft import train_sft

    stage = config.model_copy(update={"method": "sft", "setting": "trn"})
    train_sft(stage, run / FT_STAGE, on_progress=on_progress)
    return merge(run / FT_STAGE, merged)

