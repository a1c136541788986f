"""The model a run trains: the base as a plain transformers checkpoint, LoRA on top, and on which device."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corral.models import ModelError, plain_checkpoint

from ._config import TrainConfig, TrainError


def base_checkpoint(base: str) -> Path:
    """A transformers checkpoint directory for ``base`` (the bundled GGUF is converted once and cached)."""
    try:
        return plain_checkpoint(base)
    except (ModelError, OSError) as exc:
        raise TrainError(f"base {base!r}: {exc}") from None


def device_defaults(config: TrainConfig) -> dict[str, Any]:
    """trl/transformers arguments for the device: fp32 on CPU (trl's bf16 default is slow or absent on CPUs),
    bf16 on a GPU that has it. ``auto`` is CUDA when torch sees one."""
    import torch

    device = config.device
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise TrainError("--device cuda, but torch sees no CUDA device")
    if device == "cpu":
        from corral.models import default_threads

        torch.set_num_threads(config.threads or default_threads())
        return {"use_cpu": True, "bf16": False, "fp16": False}
    return {"use_cpu": False, "bf16": torch.cuda.is_bf16_supported(), "fp16": False}


def lora_config(config: TrainConfig) -> Any:
    """ReFF's LoRA (Table 10): rank, alpha, dropout and target modules from the config."""
    from peft import LoraConfig

    return LoraConfig(r=config.lora_r, lora_alpha=config.lora_alpha, lora_dropout=config.lora_dropout,
                      target_modules=list(config.lora_targets), task_type="CAUSAL_LM")

