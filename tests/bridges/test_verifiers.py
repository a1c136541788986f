"""The verifiers bridge end to end: ``load_environment`` over a COLLIE + FormatBench mix, rolled out by verifiers'
own ``evaluate`` against llama-cpp-python's server on the bundled model, scored by Corral's checker reward; held
against Corral's own run of the same instances."""

from __future__ import annotations

import pytest

pytest.importorskip("verifiers")

import verifiers as vf

from corral.bridges.verifiers import completion_text, load_environment
from corral.training import reward_value

from ..models._servers import LlamaServer
from .conftest import COLLIE, FORMATBENCH, MAX_TOKENS, PLAIN_GREEDY, Reference

pytestmark = [pytest.mark.model, pytest.mark.server]

KEY_VARIABLE = "CORRAL_BRIDGE_TEST_KEY"


def test_rollouts_are_rewarded_by_corrals_checker(llama: LlamaServer, reference: dict[str, Reference],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    mix = [{"task": s.task, "options": {k: str(v) for k, v in s.options.items()}, "where": s.where,
            "reward": mode} for s, mode in ((COLLIE, "graded"), (FORMATBENCH, "gated"))]
    mix[0]["where"] = {"structure": ["word01"]}  # TaskSpec takes a count, not COLLIE's per-structure limit
    mix[0]["limit"], mix[1]["limit"] = 1, 2
    env = load_environment(task=mix, max_tokens=MAX_TOKENS)
    assert isinstance(env, vf.SingleTurnEnv)
    monkeypatch.setenv(KEY_VARIABLE, "none")
    client = vf.ClientConfig(api_base_url=llama.url, api_key_var=KEY_VARIABLE, max_retries=0)
    # verifiers sends max_tokens as max_completion_tokens, which llama-cpp-python's server ignores: the budget goes
    # in the body as well
    results = env.evaluate_sync(client, "smollm2", sampling_args={
        "temperature": 0.0, "max_tokens": MAX_TOKENS, "extra_body": {**PLAIN_GREEDY, "max_tokens": MAX_TOKENS}})
    outputs = results["outputs"]
    assert len(outputs) == 3
    for output in outputs:
        key, instance = output["info"]["task_key"], output["info"]["instance_id"]
        ref = reference[key.split(":")[0]]
        text = completion_text(output["completion"])
        assert text == ref.outputs[instance]  # the rollout is the runner's output, token for token
        assert output["metrics"]["passed"] == float(ref.passed[instance])
        assert output["metrics"]["score"] == pytest.approx(ref.scores[instance])
        if key.startswith("collie"):  # graded: 2 * score - 1
            assert output["reward"] == pytest.approx(reward_value("graded", ref.passed[instance],
                                                                  ref.scores[instance], None))
        else:  # gated: FormatBench has a quality metric and mcq a reference; a failed format earns -1
            assert output["reward"] <= (1.0 if ref.passed[instance] else -1.0)


def test_verifiers_loads_it_by_module_name() -> None:
    env = vf.load_environment("corral.bridges.verifiers", task="formatbench", options={"shots": 0},
                              where="task=mcq", limit=2, reward="binary")
    dataset = env.get_eval_dataset()
    assert len(dataset) == 2 and dataset[0]["info"]["task_key"] == "formatbench:mcq"
    assert [m["role"] for m in dataset[0]["prompt"]] == ["user"] and dataset[0]["answer"]
    assert env.sampling_args["max_tokens"] == 12  # mcq's own budget
    with pytest.raises(ValueError, match="GROUP=N"):
        load_environment(task="collie", limit="structure=2")
