"""Corral tasks as a verifiers environment: ``load_environment`` over any Corral task mix, rewarded by its checkers.

So an RL stack built on verifiers (its rollouts, its trainers, its ``vf-eval``) trains on Corral's tasks with the
rewards ``corral train`` uses: the rubric is ``corral.training.CheckerReward``, in the same modes (``binary``,
``graded``, ``gated``; see ``corral.training``), on the same ``Task.judge`` verdicts::

    from corral.bridges.verifiers import load_environment
    env = load_environment(task="collie", where="structure=word01", limit=4, reward="graded")
    results = env.evaluate_sync(client, "smollm2", sampling_args={"max_tokens": 24})

verifiers finds it by module name too: ``verifiers.load_environment("corral.bridges.verifiers", task="collie")``.
A mix of tasks is a list of ``corral.training.TaskSpec`` (or mappings of its fields), as a ``corral train`` config
lists them: ``load_environment(task=[{"task": "collie", "limit": 4}, {"task": "formatbench", "where": {"task":
["mcq"]}, "reward": "gated"}])``.

Each row is one Corral instance: ``prompt`` is Corral's chat, ``answer`` the reference (or ""), ``info`` the
``task_key`` and ``instance_id`` the reward routes on. The rubric's reward is the ``CheckerReward`` value of the
completion (0.0 where that is None: the checker itself failed, which is not the model's fault); its metrics
``passed`` and ``score`` (weight 0) are the verdict's.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from corral.extras import require

require("verifiers", "verifiers", "corral.bridges.verifiers")
require("datasets", "verifiers", "corral.bridges.verifiers")

import verifiers as vf
from datasets import Dataset

from corral.tasks import select
from corral.training import CheckerReward, Judgement, TaskPart, TaskSpec

from ._select import Where, built_task, parse_limit, parse_where

MIN_PASS = 1.0
"""verifiers' ``pass_threshold`` (its pass@k counts rewards at or above it): 1.0, the highest reward, which binary and
graded rewards give exactly the completions that pass (a gated one also needs full quality)."""
JUDGED_CACHE = 4096
"""Judgements kept so that the rubric's reward and its two metrics judge a completion once."""


def task_specs(task: str | Sequence[TaskSpec | Mapping[str, Any]], *, options: Mapping[str, Any] | None = None,
               where: Where = None, limit: int | None = None, reward: str = "graded",
               quality_metric: str | None = None, max_tokens: int | None = None) -> list[TaskSpec]:
    """The mix as ``TaskSpec`` values: one task from the keywords, or each entry of a list (a ``TaskSpec`` or a
    mapping of its fields, validated by it as a ``corral train`` config is)."""
    if isinstance(task, str):
        return [TaskSpec(task=task, options={k: str(v) for k, v in (options or {}).items()}, where=parse_where(where),
                         limit=limit, reward=reward, quality_metric=quality_metric, max_tokens=max_tokens)]
    if options or where or limit is not None:
        raise ValueError("options, where and limit are for one task; give each task of a mix its own")
    return [spec if isinstance(spec, TaskSpec) else TaskSpec.model_validate(dict(spec)) for spec in task]


def task_parts(specs: Sequence[TaskSpec]) -> list[TaskPart]:
    """Each spec built and its instances chosen (all of them used: a verifiers environment has no held-out split;
    evaluate held-out instances with ``corral eval``)."""
    parts = []
    for spec in specs:
        task = built_task(spec.task, spec.options)
        chosen = select(task, spec.where or None, limit=spec.limit)
        parts.append(TaskPart(spec, task, tuple(chosen), ()))
    return parts


def rows(parts: Sequence[TaskPart]) -> Dataset:
    """verifiers' dataset: ``prompt`` (Corral's chat), ``answer`` (the reference or ""), ``info`` (where the reward
    routes: ``task_key``, ``instance_id``)."""
    return Dataset.from_list([
        {"prompt": [dict(m) for m in part.messages(inst)], "answer": inst.reference or "",
         "info": {"task_key": part.key, "instance_id": inst.id}}
        for part in parts for inst in part.train])


def checker_rubric(reward: CheckerReward) -> vf.Rubric:
    """A verifiers rubric whose reward is ``reward``'s value for each completion, with the verdict's ``passed`` and
    ``score`` as metrics (weight 0). Each completion is judged once: the metrics read the judgement the reward made."""

    @functools.lru_cache(maxsize=JUDGED_CACHE)
    def judged(key: str, instance_id: str, text: str) -> Judgement:
        return reward.judge(key, instance_id, text)

    def judgement(completion: Any, info: Mapping[str, Any]) -> Judgement:
        return judged(str(info["task_key"]), str(info["instance_id"]), completion_text(completion))

    def corral_reward(completion: Any, info: Mapping[str, Any], **_: Any) -> float:
        value = judgement(completion, info).reward
        return 0.0 if value is None else float(value)

    def passed(completion: Any, info: Mapping[str, Any], **_: Any) -> float:
        return 1.0 if judgement(completion, info).passed else 0.0

    def score(completion: Any, info: Mapping[str, Any], **_: Any) -> float:
        return float(judgement(completion, info).score or 0.0)

    rubric = vf.Rubric(funcs=[corral_reward], weights=[1.0])
    rubric.add_metric(passed)
    rubric.add_metric(score)
    return rubric


def load_environment(task: str | Sequence[TaskSpec | Mapping[str, Any]] = "collie", *,
                     options: Mapping[str, Any] | None = None, where: Where = None, limit: int | str | None = None,
                     reward: str = "graded", quality_metric: str | None = None, max_tokens: int | None = None,
                     **kwargs: Any) -> vf.SingleTurnEnv:
    """A single-turn verifiers environment over a Corral task (or mix) whose rubric is Corral's checker reward.

    Args:
        task: a registered Corral task name, or a mix: a list of ``TaskSpec`` (or mappings of its fields).
        options: the one task's options (``{"checker_mode": "reference"}``).
        where: the one task's instance filters (``"structure=word01,sent01"`` or a mapping).
        limit: the one task's instance count (N; ``GROUP=N`` is not a ``TaskSpec`` limit and is refused).
        reward: ``binary``, ``graded`` or ``gated`` (``corral.training.reward_value``).
        quality_metric: which quality metric gates a ``gated`` reward (default: the task's first).
        max_tokens: the completion budget sent with every request (default: the largest instance budget of the mix).
            The task's stop strings go along when every task of the mix has the same ones.
        **kwargs: passed to ``vf.SingleTurnEnv`` (``sampling_args``, ``max_workers``, ...).
    """
    count, per_group = parse_limit(limit)
    if per_group is not None:
        raise ValueError(f"limit {limit!r}: a verifiers environment takes N instances per task, not GROUP=N")
    parts = task_parts(task_specs(task, options=options, where=where, limit=count, reward=reward,
                                  quality_metric=quality_metric, max_tokens=max_tokens))
    budget = max_tokens or max(part.max_tokens(inst) for part in parts for inst in part.train)
    sampling: dict[str, Any] = {"max_tokens": budget}
    stops = {part.task.stop for part in parts}
    if len(stops) == 1 and next(iter(stops)):  # the tasks' own stop strings, when the whole mix shares them (a
        sampling["stop"] = list(next(iter(stops)))  # mix's reward cuts each output at its own task's anyway)
    sampling |= dict(kwargs.pop("sampling_args", None) or {})
    return vf.SingleTurnEnv(dataset=rows(parts), rubric=checker_rubric(CheckerReward(parts)), sampling_args=sampling,
                            pass_threshold=MIN_PASS, **kwargs)


def completion_text(completion: Any) -> str:
    """The text a rollout's completion ends with: a string as it is, or the content of its last message (a mapping
    or a verifiers message model), content parts joined."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and completion:
        last = completion[-1]
        content = last.get("content") if isinstance(last, Mapping) else getattr(last, "content", None)
        if isinstance(content, str):
            return content
        if isinstance(content, Sequence):
            return "".join(str(part.get("text", "") if isinstance(part, Mapping) else getattr(part, "text", ""))
                           for part in content)
        return ""
    return str(completion or "")


__all__ = ["JUDGED_CACHE", "MIN_PASS", "checker_rubric", "completion_text", "load_environment", "rows", "task_parts",
           "task_specs"]
