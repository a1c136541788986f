"""The lm-eval bridge end to end: ``lm_eval.simple_evaluate`` with Corral tasks (checker as the metric) on the
``corral`` lm-eval model wrapping the bundled llama.cpp model, held against Corral's own run of the same instances
on the same loaded model."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("lm_eval")

import lm_eval
from lm_eval.api.instance import Instance
from lm_eval.api.registry import get_model
from lm_eval.tasks import TaskManager

from corral.bridges.lm_eval import CorralLM, corral_lm_task, plain_prompt
from corral.models import Model

from .conftest import COLLIE, FORMATBENCH, MAX_TOKENS, Reference

pytestmark = pytest.mark.model


def test_simple_evaluate_scores_corral_tasks_as_corral_does(local_model: Model,
                                                            reference: dict[str, Reference]) -> None:
    tasks = [corral_lm_task(s.task, where=s.where, limit=s.limit, max_tokens=MAX_TOKENS, **s.options)
             for s in (COLLIE, FORMATBENCH)]
    # a task manager without lm-eval's own task folders: the Corral tasks are given whole, nothing is looked up
    results = lm_eval.simple_evaluate(model=CorralLM(local_model), tasks=tasks, apply_chat_template=True,
                                      task_manager=TaskManager(include_defaults=False), bootstrap_iters=0,
                                      log_samples=True)
    assert results is not None
    for selection in (COLLIE, FORMATBENCH):
        name, ref = f"corral_{selection.task}", reference[selection.key]
        samples = results["samples"][name]
        assert sorted(s["doc"]["corral_instance"] for s in samples) == sorted(ref.outputs)
        for s in samples:
            instance = s["doc"]["corral_instance"]
            [[output]] = s["resps"]
            assert output == ref.outputs[instance]  # Corral's chat reached the model unchanged
            assert s["passed"] == float(ref.passed[instance]) and s["score"] == pytest.approx(ref.scores[instance])
        assert results["results"][name]["passed,none"] == pytest.approx(ref.pass_rate)
        assert results["configs"][name]["metadata"]["corral_task"] == selection.task


def test_without_a_chat_template_the_chat_is_one_text() -> None:
    """A completion model (``apply_chat_template=False``) gets the turns' texts; a chat model gets the messages
    through its template, which for the corral model is the chat itself, decoded back into messages."""
    task = corral_lm_task("formatbench", where={"task": ["mcq"]}, limit=1, shots=1, template="chat")
    doc = task.test_docs()[0]
    messages = json.loads(doc["messages"])
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]  # a few-shot pair as turns
    assert task.fewshot_context(doc, 0) == plain_prompt(messages)
    lm = CorralLM.__new__(CorralLM)  # the template and request building need no model
    lm.seed = 0
    context = task.fewshot_context(doc, 0, apply_chat_template=True, chat_template=lm.apply_chat_template)
    [request] = [task.construct_requests(doc, context, metadata=("t", 0, 1))]
    asked = lm._request(*request.args)
    assert [dict(m) for m in asked.messages] == messages and asked.sampling.max_tokens == doc["max_tokens"]
    assert lm._request("plain words", {"until": ["\n"], "max_gen_toks": 3}).messages == (
        {"role": "user", "content": "plain words"},)


def test_the_corral_model_is_registered_and_says_it_cannot_score() -> None:
    assert get_model("corral") is CorralLM
    lm = CorralLM.__new__(CorralLM)
    with pytest.raises(NotImplementedError, match="generate_until"):
        lm.loglikelihood([Instance("loglikelihood", {}, ("a", "b"), 0)])
