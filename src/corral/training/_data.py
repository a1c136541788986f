"""The training mix as data: each task's instances, split once into a training pool and a held-out set, and the
rows trl reads (a chat prompt plus the columns the reward routes on).

The split is a pure function of the task and the instance id (a hash), so the held-out set is the same for every
run, method and seed: RL, SFT and self-distillation are compared on the same unseen instances, and a resumed run
never sees a held-out instance.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from corral.models import Message, ModelError
from corral.tasks import Task, TaskInstance, TaskOptionError, get_task, select

from ._config import TaskSpec, TrainConfig, TrainError


@dataclass(frozen=True)
class TaskPart:
    """One task of the mix, built: the task value, its training pool and its held-out instances."""

    spec: TaskSpec
    task: Task
    train: tuple[TaskInstance, ...]
    heldout: tuple[TaskInstance, ...]

    @property
    def key(self) -> str:
        return self.spec.key

    def max_tokens(self, instance: TaskInstance) -> int:
        return self.spec.max_tokens or instance.max_tokens

    def messages(self, instance: TaskInstance) -> list[Message]:
        return self.task.template.messages(instance)


def build_mix(config: TrainConfig) -> list[TaskPart]:
    """Every task of the config, built and split; a bad task, option or filter is a ``TrainError`` naming it. With
    a ``reasoning`` block (resolved for the base model), every task judges the answer after it: the reward, and
    the evaluations that distillation and comparison run (``plan_run`` takes the task's block)."""
    parts = [build_part(spec, config.holdout, config.setting) for spec in config.tasks]
    if config.reasoning is None:
        return parts
    try:
        block = config.reasoning.resolve(config.base).block()
    except (ValueError, ModelError) as exc:
        raise TrainError(f"reasoning: {exc}") from None
    return [replace(part, task=replace(part.task, reasoning=block)) for part in parts]


def build_part(spec: TaskSpec, holdout: float, setting: str = "tst") -> TaskPart:
    task, chosen = _instances(spec, dict(spec.options))
    heldout = tuple(inst for inst in chosen if is_heldout(spec.task, inst.id, holdout))
    if setting != "tst" and spec.train_options:  # a training split of its own (ReFF's trn, BenchCLAMP's fine-tuned
        # setting): every instance of it but the held-out ones, which are excluded by id, not by the share
        held = {inst.id for inst in heldout}
        _, chosen = _instances(spec, {**spec.options, **spec.train_options})
        train = tuple(inst for inst in chosen if inst.id not in held)
    else:
        train = tuple(inst for inst in chosen if not is_heldout(spec.task, inst.id, holdout))
    if not train:
        raise TrainError(f"task {spec.key}: all {len(chosen)} instances are held out; lower holdout or raise limit")
    if setting == "trn-ft" and not any(inst.reference for inst in train):
        raise TrainError(f"task {spec.key}: setting trn-ft fine-tunes on references, and no training instance "
                         "has one")
    return TaskPart(spec, task, train, heldout)


def _instances(spec: TaskSpec, options: dict[str, Any]) -> tuple[Task, list[TaskInstance]]:
    try:
        task = get_task(spec.task, **options)
        return task, select(task, spec.where or None, limit=spec.limit)
    except (TaskOptionError, ValueError, LookupError) as exc:
        raise TrainError(f"task {spec.key}: {exc}") from None


def is_heldout(task: str, instance_id: str, share: float) -> bool:
    """Whether an instance is held out: a stable hash of (task, id) below ``share``."""
    digest = hashlib.sha256(f"{task}\0{instance_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < share


def rl_rows(parts: Sequence[TaskPart]) -> list[dict[str, Any]]:
    """trl's prompt rows: the chat prompt, and ``task_key`` / ``instance_id`` for the reward to route on."""
    return [{"prompt": part.messages(inst), "task_key": part.key, "instance_id": inst.id}
            for part in parts for inst in part.train]


def sft_rows(parts: Sequence[TaskPart], answers: Mapping[tuple[str, str], Sequence[str]] | None = None) -> list[
        dict[str, Any]]:
    """Prompt/completion rows for completion-only SFT: each training instance's reference (``answers`` is None),
    or the given answers per (task key, instance id) (self-distillation's kept outputs)."""
    rows = []
    for part in parts:
        for inst in part.train:
            targets = ([inst.reference] if inst.reference else []) if answers is None else \
                list(answers.get((part.key, inst.id), ()))
            rows += [{"prompt": part.messages(inst), "completion": [{"role": "assistant", "content": text}],
                      "task_key": part.key, "instance_id": inst.id} for text in targets]
    return rows
