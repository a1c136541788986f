"""What a training run is: one pydantic config, saved in the run directory and compared on resume.

A run directory belongs to one config. Rerunning with the same config resumes from the last checkpoint; a
different config is refused with the fields that differ (``RunMismatch``), so two experiments never share
checkpoints by accident. Fields that only say where, how fast or how long to train (``RUNTIME_FIELDS``) are not
part of that identity and may change between a run and its resume.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from corral.errors import InputError
from corral.files import MAX_RUN_FILE_BYTES, read_input_bytes
from corral.tasks import ReasoningSpec

Method = Literal["rl", "sft", "distill"]
Setting = Literal["tst", "trn", "trn-ft"]
RewardMode = Literal["binary", "graded", "gated"]

CONFIG_FILE = "train.json"
RUNTIME_FIELDS = frozenset({"device", "threads", "vllm", "minutes", "max_steps", "epochs", "save_steps"})
"""Fields that say where, how fast and how long a run trains, not what it learns from: a resume may change them
(a longer ``max_steps`` or ``minutes`` extends a finished run from its last checkpoint)."""


class TrainError(InputError):
    """A training config, task or run directory that cannot be used; one line naming what is wrong and where."""


class RunMismatch(TrainError):
    """The run directory was made by a different config."""


class TaskSpec(BaseModel):
    """One task in the training mix: which instances, how its outputs are rewarded.

    Attributes:
        task: a registered task (``corral tasks``) or an instances file.
        options: the task's options, as ``-T`` takes them (they must match the evaluation's).
        where: only instances whose group has one of these values (``{"task": ["eqa"]}``).
        limit: at most this many instances (after ``where``), held-out ones included.
        reward: binary (+1 passed, -1 failed, as ReFF), graded (the verdict's score mapped to [-1, 1]: partial
            progress counts), or gated (format x quality mapped to [-1, 1] where the task has a quality metric
            and the instance a reference: passing with zero quality earns nothing).
        quality_metric: which of the task's quality values gates the reward (default: the first one).
        max_tokens: this task's completion budget in tokens (default: the instances' own ``max_tokens``).
        train_options: options that select the training split in settings ``trn`` and ``trn-ft`` (merged over
            ``options``), for a task that ships one; the held-out instances always come from ``options``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)  # nan or inf: refused

    task: str
    options: dict[str, str] = Field(default_factory=dict)
    where: dict[str, list[str]] = Field(default_factory=dict)
    limit: int | None = Field(default=None, ge=1)
    reward: RewardMode = "binary"
    quality_metric: str | None = None
    max_tokens: int | None = Field(default=None, ge=1)
    train_options: dict[str, str] = Field(default_factory=dict)

    @property
    def key(self) -> str:
        """A short name for logs and reports: the task, then its ``where`` values (``formatbench:eqa``)."""
        values = [v for key in sorted(self.where) for v in self.where[key]]
        return ":".join([self.task, *values]) if values else self.task


class TrainConfig(BaseModel):
    """A training run: the method, the base model, the task mix, and the optimiser's settings.

    ReFF's settings (Table 3): ``tst`` trains on the evaluation pool's queries without labels; ``trn`` on a
    training split's queries (the task built with ``train_options`` where a task ships such a split; otherwise
    the same pool as ``tst``); ``trn-ft`` first fine-tunes on the training instances' references, then runs RL
    from there. In every setting the ``holdout`` share of each task's instances is never trained on and is what
    ``corral train compare`` evaluates.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)  # nan or inf: refused

    method: Method = "rl"
    base: str = "smollm2"
    tasks: list[TaskSpec] = Field(min_length=1)
    setting: Setting = "tst"
    holdout: float = Field(default=0.2, ge=0.0, lt=1.0)
    algorithm: Literal["grpo", "rloo"] = "grpo"
    # LoRA (ReFF Table 10: rank 16, alpha 8, no dropout, attention layers)
    lora_r: int = Field(default=16, ge=1)
    lora_alpha: int = Field(default=8, ge=1)
    lora_dropout: float = Field(default=0.0, ge=0.0, lt=1.0)
    lora_targets: list[str] = Field(default_factory=lambda: ["q_proj", "k_proj", "v_proj", "o_proj"])
    # optimisation
    learning_rate: float = Field(default=1e-4, gt=0)
    beta: float = Field(default=0.04, gt=0, description="the KL anchor's weight; ReFF needs one, so 0 is refused")
    num_generations: int = Field(default=8, ge=2)
    prompts_per_step: int = Field(default=1, ge=1)
    temperature: float = Field(default=1.0, gt=0)
    max_steps: int | None = Field(default=None, ge=1)
    epochs: float = Field(default=1.0, gt=0)
    minutes: float | None = Field(default=None, gt=0, description="stop after this much training time")
    save_steps: int = Field(default=10, ge=1)
    seed: int = 0
    # supervised fine-tuning (sft, distill, and trn-ft's first stage)
    sft_learning_rate: float = Field(default=2e-4, gt=0)
    sft_batch_size: int = Field(default=4, ge=1)
    # constrained self-distillation
    distill_samples: int = Field(default=4, ge=1, description="constrained samples per training instance")
    distill_temperature: float = Field(default=0.8, ge=0)
    # where to run
    device: Literal["auto", "cpu", "cuda"] = "auto"
    threads: int | None = Field(default=None, ge=1)
    vllm: bool = Field(default=False, description="generate RL rollouts with vLLM (trl's colocate mode; a GPU)")
    # a reasoning model: rewards, distillation and comparison judge the answer after its block (docs/reasoning.md)
    reasoning: ReasoningSpec | None = None

    @field_validator("tasks")
    @classmethod
    def _distinct(cls, tasks: list[TaskSpec]) -> list[TaskSpec]:
        keys = [spec.key for spec in tasks]
        duplicated = sorted({key for key in keys if keys.count(key) > 1})
        if duplicated:
            raise ValueError(f"a task appears twice in the mix: {', '.join(duplicated)}")
        return tasks

    @model_validator(mode="after")
    def _consistent(self) -> TrainConfig:
        if self.method != "rl" and self.setting == "trn-ft":
            raise ValueError("setting trn-ft is RL after fine-tuning; it needs method rl")
        return self

    def identity(self) -> dict[str, Any]:
        """What the run learns from: every field except the runtime ones (and ``reasoning`` when there is none, so
        that runs made before it existed keep their identity)."""
        return self.model_dump(mode="json", exclude=set(RUNTIME_FIELDS) | ({"reasoning"} if self.reasoning is None
                                                                             else set()))


def load_config(path: Path | str) -> TrainConfig:
    """A config file (JSON or YAML), validated; errors name the field path."""
    from corral.schema import read_data_file

    try:
        return parse_config(read_data_file(path), str(path))
    except TrainError:
        raise
    except InputError as exc:
        raise TrainError(str(exc)) from None


def parse_config(data: Any, where: str = "config") -> TrainConfig:
    try:
        return TrainConfig.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "(top level)"
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise TrainError(f"{where}: {field}: {first['msg']}{more}") from None


def claim_run(run: Path, config: TrainConfig) -> bool:
    """Make ``run`` this config's directory; True when it already was (a resume). A directory made by another
    config is refused with the differing fields."""
    path = run / CONFIG_FILE
    if os.path.lexists(path):
        try:  # the run's own regular file (not a link out of it, a FIFO or a device), at most 64 MiB
            old = TrainConfig.model_validate_json(read_input_bytes(path, MAX_RUN_FILE_BYTES, within=run))
        except (ValidationError, InputError) as exc:
            raise RunMismatch(f"{path} is not a training config Corral can read ({exc}); use another --out") from None
        if old.identity() != config.identity():
            mine, theirs = config.identity(), old.identity()
            changed = [f"{key}: {theirs.get(key)!r} -> {mine.get(key)!r}" for key in mine
                       if mine.get(key) != theirs.get(key)]
            raise RunMismatch(f"{run} holds a run with another config ({'; '.join(changed)}); use another --out "
                              "or the same config to resume")
        return True
    if run.exists() and any(run.iterdir()):
        raise RunMismatch(f"{run} exists and is not a training run; use another --out")
    run.mkdir(parents=True, exist_ok=True)
    from corral.jsonl import atomic_write

    atomic_write(path, config.model_dump_json(indent=2) + "\n")
    return False
