"""Training with checker rewards: ReFF's RL (trl GRPO or RLOO with a LoRA adapter and a KL anchor), the SFT
baseline, and constrained self-distillation; the same verdicts that evaluation reports are the rewards.

Needs the ``train`` extra (trl, peft, datasets) and the ``hf`` extra (torch, transformers)::

    from corral.training import TaskSpec, TrainConfig, train
    config = TrainConfig(method="rl", tasks=[TaskSpec(task="formatbench", where={"task": ["eqa"]})], minutes=30)
    train(config, "runs/eqa-rl")          # rerun to resume; corral eval --model runs/eqa-rl evaluates it
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ._compare import bootstrap, compare, comparison_markdown, comparison_row, held_out_output, recompute_row
from ._config import (
    CONFIG_FILE,
    RunMismatch,
    TaskSpec,
    TrainConfig,
    TrainError,
    claim_run,
    load_config,
    parse_config,
)
from ._data import TaskPart, build_mix, is_heldout, rl_rows, sft_rows
from ._export import export
from ._rewards import CheckerReward, Judgement, quality_value, reward_value
from ._run import Progress, last_checkpoint, quiet_progress, read_steps, resumed_step, trim_log

__all__ = [
    "CONFIG_FILE",
    "CheckerReward",
    "Judgement",
    "Progress",
    "RunMismatch",
    "TaskPart",
    "TaskSpec",
    "TrainConfig",
    "TrainError",
    "bootstrap",
    "build_mix",
    "claim_run",
    "compare",
    "comparison_markdown",
    "comparison_row",
    "export",
    "held_out_output",
    "is_heldout",
    "last_checkpoint",
    "load_config",
    "parse_config",
    "quality_value",
    "read_steps",
    "recompute_row",
    "resumed_step",
    "reward_value",
    "rl_rows",
    "sft_rows",
    "train",
    "trim_log",
]


def train(config: TrainConfig, run: Path | str, *, on_progress: Progress | None = None) -> dict[str, Any]:
    """Train (or resume) ``config`` in ``run`` by its method; returns the run's summary."""
    from corral.extras import require

    for module in ("trl", "peft", "datasets"):
        require(module, "train", "corral train")
    require("transformers", "hf", "corral train")
    quiet_progress()
    if config.method == "rl":
        from ._rl import train_rl

        return train_rl(config, run, on_progress=on_progress)
    if config.method == "sft":
        from ._sft import train_sft

        return train_sft(config, run, on_progress=on_progress)
    from ._distill import distill

    return distill(config, run, on_progress=on_progress)

