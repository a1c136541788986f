"""``CheckerReward`` is a trl reward function as it is: called exactly as trl 1.16.0's GRPO trainer calls one
(``trl/trainer/grpo_trainer.py``, ``_calculate_rewards``: keyword arguments ``prompts``, ``completions``,
``completion_ids`` and every dataset column but the prompt, plus ``trainer_state``, ``log_extra`` and
``log_metric``), and named as trl names it."""

from __future__ import annotations

import pytest

from corral.tasks import get_task, select
from corral.training import CheckerReward, TaskPart, TaskSpec


def test_checker_reward_takes_trls_call() -> None:
    # trl (and with it transformers and torch) imported here, not at collection: every xdist worker collects every
    # module, and only the one that runs this test needs it (3.5 s)
    get_callable_name = pytest.importorskip("trl.trainer.utils").get_callable_name
    spec = TaskSpec(task="collie", where={"structure": ["sent01"]}, limit=2, reward="binary")
    task = get_task("collie")
    chosen = tuple(select(task, spec.where, limit=spec.limit))
    reward = CheckerReward([TaskPart(spec, task, chosen, ())])
    assert get_callable_name(reward) == "CheckerReward"  # the column trl logs the reward under
    good = chosen[0].reference or ""
    rows = [  # the dataset rows corral.training builds: the chat prompt and the columns the reward routes on
        {"prompt": task.template.messages(inst), "task_key": spec.key, "instance_id": inst.id} for inst in chosen]
    completions = [[{"role": "assistant", "content": good}], [{"role": "assistant", "content": ""}]]
    keys = [key for key in rows[0] if key not in ("prompt", "completion", "completion_ids")]
    columns = {key: [row[key] for row in rows] for key in keys}
    logged: list[tuple[str, float]] = []
    rewards = reward(prompts=[row["prompt"] for row in rows], completions=completions,
                     completion_ids=[[1, 2, 3], []], trainer_state=None, log_extra=lambda *a, **k: None,
                     log_metric=lambda name, value: logged.append((name, value)), **columns)
    assert rewards == [1.0, -1.0]
    assert [j.passed for j in reward.drain()] == [True, False]


def test_checker_reward_wants_the_routing_columns() -> None:
    reward = CheckerReward([])
    with pytest.raises(ValueError, match="task_key and instance_id"):
        reward(prompts=["p"], completions=["c"], completion_ids=[[1]], trainer_state=None)
