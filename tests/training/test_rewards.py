"""Rewards from verdicts: the three modes' values, routing in a mixed dataset, and completions that cannot be
judged (an unknown row, a checker that raises) getting no reward while the rest are judged."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corral.tasks import get_task
from corral.training import CheckerReward, TaskPart, TaskSpec, TrainConfig, build_mix, quality_value, reward_value
from corral.verdicts import Verdict

unit = st.floats(0.0, 1.0, allow_nan=False)


@given(passed=st.booleans(), score=unit, quality=st.none() | unit, mode=st.sampled_from(["binary", "graded", "gated"]))
def test_every_reward_lies_in_minus_one_to_one(passed, score, quality, mode):
    value = reward_value(mode, passed, 1.0 if passed else score, quality)
    assert -1.0 <= value <= 1.0
    if mode == "binary":
        assert value == (1.0 if passed else -1.0)


@given(low=unit, high=unit)
def test_graded_reward_rises_with_the_share_of_rules_met(low, high):
    low, high = sorted((low, high))
    assert reward_value("graded", False, low, None) <= reward_value("graded", False, high, None)


@given(score=unit, quality=unit)
def test_gated_reward_never_pays_a_pass_with_zero_quality_more_than_any_failure(score, quality):
    hacked = reward_value("gated", True, 1.0, 0.0)
    assert hacked == -1.0
    assert reward_value("gated", False, score, quality) >= hacked
    assert reward_value("gated", True, 1.0, 1.0) == 1.0
    # without a quality value, gated is graded
    assert reward_value("gated", False, score, None) == reward_value("graded", False, score, None)


def test_quality_reads_the_named_metric_and_bleu_as_percent():
    assert quality_value({"eqa_exact": 0.0, "eqa_f1": 0.5}, "eqa_f1") == 0.5
    assert quality_value({"eqa_exact": 1.0, "eqa_f1": 0.5}, None) == 1.0
    assert quality_value({"mtt_bleu": 37.0}, None) == pytest.approx(0.37)
    assert quality_value({}, None) is None
    assert quality_value({"eqa_f1": 0.5}, "missing") is None


@pytest.fixture(scope="module")
def mix():
    config = TrainConfig(tasks=[
        TaskSpec(task="collie", where={"structure": ["word02"]}, limit=10, reward="graded"),
        TaskSpec(task="formatbench", where={"task": ["eqa"]}, options={"shots": "0"}, limit=10, reward="gated",
                 quality_metric="eqa_f1")])
    return build_mix(config)


def _completion(text):
    return [{"role": "assistant", "content": text}]


def test_each_row_is_judged_by_its_own_task(mix):
    collie, eqa = mix
    word, span = collie.train[0], eqa.train[0]
    reward = CheckerReward(mix)
    given_back = reward(prompts=[None] * 4, completions=[_completion(word.reference), _completion("Sure! A word."),
                                                         _completion(span.reference), _completion("zzz qqq")],
                        task_key=[collie.key, collie.key, eqa.key, eqa.key],
                        instance_id=[word.id, word.id, span.id, span.id])
    assert given_back[0] == 1.0  # the corpus word meets every part of its constraint
    assert given_back[1] < 1.0
    assert given_back[2] == 1.0  # the gold span passes and has F1 1
    assert given_back[3] == -1.0  # not a span of the passage, F1 0
    judged = reward.drain()
    assert [j.task for j in judged] == [collie.key, collie.key, eqa.key, eqa.key]
    assert judged[0].passed and judged[2].quality == 1.0
    assert reward.drain() == []


def test_a_gated_pass_with_zero_quality_earns_the_floor(mix):
    _, eqa = mix
    instance = eqa.train[0]
    context = instance.target["context"]
    wrong = next(word for word in context.split() if word.isalpha() and word.lower() not in instance.reference.lower())
    judgement = CheckerReward(mix).judge(eqa.key, instance.id, wrong)
    assert judgement.passed and judgement.quality == 0.0 and judgement.reward == -1.0


def test_rows_it_cannot_judge_get_none_and_an_error_and_the_rest_still_count(mix):
    collie, eqa = mix
    word = collie.train[0]

    def brittle(instance, answer):
        if answer == "boom":
            raise RuntimeError("checker bug")
        return Verdict(True, 1.0)

    broken = replace(collie, task=replace(collie.task, check=brittle))
    reward = CheckerReward([broken, eqa])
    given_back = reward(prompts=[None] * 3, completions=["boom", "fine", "x"],
                        task_key=[collie.key, collie.key, "nope"], instance_id=[word.id, word.id, "x"])
    assert given_back == [None, 1.0, None]
    errors = [j.error for j in reward.drain()]
    assert "RuntimeError: checker bug" in errors[0] and errors[1] is None and "not a task" in errors[2]


def test_an_output_is_judged_within_its_task_budget_and_before_its_stop_string(mix):
    collie, _ = mix
    word = collie.train[0]
    short = replace(collie, spec=collie.spec.model_copy(update={"max_tokens": 2}))
    # ids past the task's budget are cut before the text is judged (decode sees only the first two)
    seen = []
    reward = CheckerReward([short], decode=lambda ids: seen.append(list(ids)) or word.reference)
    judgement = reward.judge(short.key, word.id, word.reference + " and more words", [5, 6, 7, 8])
    assert seen == [[5, 6]] and judgement.passed and judgement.tokens == 2
    stopped = replace(collie, task=replace(collie.task, stop=("\n###",)))
    assert CheckerReward([stopped]).judge(collie.key, word.id, word.reference + "\n### Example").passed


def test_the_dataset_must_carry_the_routing_columns(mix):
    with pytest.raises(ValueError, match="task_key"):
        CheckerReward(mix)(prompts=["p"], completions=["c"])


@pytest.mark.parametrize(("mode", "expected"), [("binary", [1.0, -1.0, -1.0]), ("graded", [1.0, 0.0, -1.0])])
def test_ifeval_rewards_are_its_checker_per_prompt_or_by_instruction_share(mode, expected):
    """IFEval as a reward (issue 47): binary is the prompt-level strict pass, graded the share of the prompt's
    instructions followed, read from the same verdict evaluation records."""
    from corral.suites.ifeval import Instruction, Prompt

    task = get_task("ifeval")
    no_comma = Instruction.parse("punctuation:no_comma", {})
    lower = Instruction.parse("change_case:english_lowercase", {})
    prompt = Prompt("two", "Say hello.", (no_comma, lower))
    instance = replace(next(iter(task.instances())), id="two", prompt=prompt.prompt, target=prompt)
    spec = TaskSpec(task="ifeval", reward=mode)
    reward = CheckerReward([TaskPart(spec, task, (instance,), ())])
    texts = ["hello there friend", "hello, there friend", "Hello, there friend"]  # both, one, none followed
    got = [reward.judge(spec.key, "two", text).reward for text in texts]
    assert got == pytest.approx(expected)
    for text, judgement in zip(texts, [reward.judge(spec.key, "two", t) for t in texts], strict=True):
        verdict = task.verdict(instance, text)
        assert judgement.passed == verdict.passed and judgement.score == pytest.approx(verdict.score)
