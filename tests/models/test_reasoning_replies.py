"""What the model layer knows of reasoning blocks: a served reply's separated thinking (``reasoning_content``, as
vLLM and SGLang send it with a reasoning parser, or ``reasoning``), checked like every other field; and a model's
chat template, read without loading its weights, for ``reasoning: auto``."""

from __future__ import annotations

import pytest

from corral.models import Completion, HostileReply, OpenAIModel, Request, parse_completion, read_chat_template

from ._servers import ScriptedServer, completion_reply, json_reply

FAST = {"backoff_base": 0.01, "backoff_max": 0.05}


def _reply(**message: object) -> dict:
    return {"choices": [{"message": {"role": "assistant", **message}, "finish_reason": "stop"}]}


def test_a_reply_s_separated_thinking_is_read() -> None:
    assert parse_completion(_reply(content="4", reasoning_content="2 + 2")).reasoning == "2 + 2"
    assert parse_completion(_reply(content="4", reasoning="2 + 2")).reasoning == "2 + 2"
    assert parse_completion(_reply(content="4")).reasoning is None


def test_a_thinking_field_of_the_wrong_type_is_a_hostile_reply() -> None:
    with pytest.raises(HostileReply, match=r"choices\[0\]\.message\.reasoning_content is a list, not a string"):
        parse_completion(_reply(content="4", reasoning_content=["2", "+", "2"]))


def test_the_served_completion_carries_the_thinking() -> None:
    import json

    body = json.loads(completion_reply("Paris.")[2])
    body["choices"][0]["message"]["reasoning_content"] = "The capital of France \ud800"
    with ScriptedServer([json_reply(200, body)]) as server, OpenAIModel("m", base_url=server.url, **FAST) as model:
        [[completion]] = model.complete([Request.user("Capital of France?")])
    assert completion.text == "Paris." and completion.reasoning == "The capital of France \ufffd"
    assert completion.replaced == 1  # the thinking is scrubbed like the text


def test_a_cached_completion_keeps_its_thinking(tmp_path) -> None:
    from corral.evaluation import ResponseCache

    cache = ResponseCache(tmp_path / "cache.sqlite3")
    cache.put("k", Completion("4", "stop", reasoning="2 + 2"))
    assert cache.get("k") == Completion("4", "stop", reasoning="2 + 2")
    cache.close()


def test_the_bundled_model_s_template_is_read_without_its_weights() -> None:
    template = read_chat_template("smollm2")
    assert template is not None and "<|im_start|>" in template.source
    assert template.prompt.endswith("<|im_start|>assistant\n") and "Hello" in template.prompt
    assert read_chat_template("openai:some-model") is None  # the server applies its own template
    assert read_chat_template("scripted:s") is None
