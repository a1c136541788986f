"""Rewards from checkers: the one verdict every suite returns, turned into a number trl can optimise.

``CheckerReward`` is a trl reward function (called with ``prompts``, ``completions``, ``completion_ids`` and the
dataset's columns) that routes each completion to its own task by the ``task_key`` column, so one function
serves a mixed COLLIE + FormatBench + JSON Schema + parsing dataset. Rows of a task it does not know get ``None``
(trl's "not judged"), and so does a completion whose check raises: that error is logged and training goes on.
A task with a reasoning block (``TrainConfig.reasoning``) is judged on the answer after it (``Task.judge``), and a
block that never closes earns the failure's reward.

The three modes put every reward in [-1, 1]:
- binary: +1 passed, -1 failed (ReFF's checker reward);
- graded: ``2 * score - 1`` with the verdict's score (the share of rules met), so partial progress pays;
- gated: ``2 * score * quality - 1`` where the task has a quality metric and the instance a reference (format x
  quality, the format part graded so that near misses still differ), so an output that meets the format with
  zero quality (ReFF's reward hacking, Figure 4) earns no more than the worst failure; without a reference it
  is graded.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from corral.tasks import CHECKER_ERROR, TaskInstance

from ._data import TaskPart

ANSWER_CHARS = 300


@dataclass(frozen=True)
class Judgement:
    """One completion's reward and what it was made of (a row of ``rewards.jsonl``)."""

    task: str
    instance: str
    reward: float | None
    passed: bool | None = None
    score: float | None = None
    quality: float | None = None
    tokens: int = 0
    error: str | None = None
    answer: str | None = None  # what was checked, cut to ANSWER_CHARS (to read what the reward favoured)
    thinking_chars: int | None = None  # the reasoning block's length, where the task declares one

    def to_json(self) -> dict[str, Any]:
        return {key: value for key, value in self.__dict__.items() if value is not None}


def reward_value(mode: str, passed: bool, score: float, quality: float | None) -> float:
    """The reward of one verdict in ``mode`` (see the module docstring); ``quality`` in [0, 1] or None."""
    score = 1.0 if passed else min(max(score, 0.0), 1.0)
    if mode == "gated" and quality is not None:
        return 2.0 * score * min(max(quality, 0.0), 1.0) - 1.0
    if mode in ("graded", "gated"):
        return 2.0 * score - 1.0
    return 1.0 if passed else -1.0


def quality_value(values: Mapping[str, float], metric: str | None) -> float | None:
    """The gating quality in [0, 1]: the named metric (or the first), BLEU-like values above 1 read as percent."""
    if not values:
        return None
    name = metric if metric is not None else next(iter(values))
    if name not in values:
        return None
    value = float(values[name])
    return value / 100.0 if value > 1.0 else value


@dataclass
class CheckerReward:
    """trl reward function over a task mix; ``judgements`` collects every completion's ``Judgement`` until a
    logger drains it. ``decode`` turns token ids into text (for a task's own token budget, shorter than the
    generation's)."""

    parts: Sequence[TaskPart]
    decode: Callable[[Sequence[int]], str] | None = None
    judgements: list[Judgement] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self._parts = {part.key: part for part in self.parts}
        self._instances: dict[tuple[str, str], TaskInstance] = {
            (part.key, inst.id): inst for part in self.parts for inst in (*part.train, *part.heldout)}

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], completion_ids: Sequence[Sequence[int]] |
                 None = None, *, task_key: Sequence[str] | None = None, instance_id: Sequence[str] | None = None,
                 **_: Any) -> list[float | None]:
        if task_key is None or instance_id is None:
            raise ValueError("the dataset needs task_key and instance_id columns (corral.training builds them)")
        rewards: list[float | None] = []
        made = []
        for i, completion in enumerate(completions):
            ids = list(completion_ids[i]) if completion_ids is not None else []
            judgement = self.judge(task_key[i], instance_id[i], _text(completion), ids)
            made.append(judgement)
            rewards.append(judgement.reward)
        with self._lock:
            self.judgements.extend(made)
        return rewards

    def judge(self, key: str, instance_id: str, text: str, ids: Sequence[int] = ()) -> Judgement:
        """One completion's judgement; never raises (an error is recorded and the reward is None)."""
        part = self._parts.get(key)
        instance = self._instances.get((key, instance_id))
        if part is None or instance is None:
            return Judgement(key, instance_id, None, tokens=len(ids), error="not a task or instance of this mix")
        budget = part.max_tokens(instance)
        if len(ids) > budget and self.decode is not None:
            text = self.decode(ids[:budget])  # what evaluation, with this task's budget, would have seen
        for stop in part.task.stop:
            if stop and stop in text:
                text = text[:text.index(stop)]
        try:  # judged as evaluation judges (Task.judge: the answer, the verdict within the check budget, quality)
            gated = part.spec.reward == "gated" and instance.reference is not None
            judged = part.task.judge(instance, text, quality=gated)
            verdict = judged.verdict
            if verdict.violations and verdict.violations[0].rule == CHECKER_ERROR:
                # the checker's fault, not the model's: no reward rather than -1
                error = verdict.violations[0].message.removeprefix("the checker failed on this output: ")
                return Judgement(key, instance_id, None, tokens=len(ids), error=error)
            quality = quality_value(judged.quality, part.spec.quality_metric) if gated and judged.quality else None
            reward = reward_value(part.spec.reward, verdict.passed, verdict.score, quality)
        except Exception as exc:  # a quality metric's bug on one completion must not stop a training run
            return Judgement(key, instance_id, None, tokens=len(ids), error=f"{type(exc).__name__}: {exc}")
        thinking = len(judged.thought.thinking) if judged.thought is not None else None
        return Judgement(key, instance_id, reward, verdict.passed, verdict.score, quality, min(len(ids), budget),
                         answer=judged.answer[:ANSWER_CHARS], thinking_chars=thinking)

    def drain(self) -> list[Judgement]:
        with self._lock:
            taken, self.judgements = self.judgements, []
        return taken


def _text(completion: Any) -> str:
    """A completion's text: trl gives a string (plain prompts) or a list of messages (chat prompts)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and completion and isinstance(completion[-1], Mapping):
        return str(completion[-1].get("content", ""))
    return str(completion)

