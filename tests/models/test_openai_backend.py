"""The ``openai`` backend against real servers: llama-cpp-python's OpenAI-compatible server on the bundled
SmolLM2-135M-Instruct, and small scripted HTTP servers that fail on purpose (500s, bad JSON, 429s, refusals).

Nothing of ours or the SDK's is mocked: every failure arrives over a real socket. Backoff is kept tiny through
the model's own options so the whole file runs in well under a minute and a half on 2 cores.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from corral.grammars import Grammar
from corral.models import ModelError, OpenAIModel, Request, Sampling, load_model

from ._servers import (
    LlamaServer,
    ScriptedServer,
    completion_reply,
    error_reply,
    free_port,
    have_llama_server,
    json_reply,
    raw_reply,
    served_smollm2,
    smollm2_gguf,
)

pytestmark = pytest.mark.server

FAST = {"backoff_base": 0.01, "backoff_max": 0.05}
"""Backoff small enough that bounded retries finish in a blink (a server's Retry-After is still honoured)."""

PERSON = {
    "type": "object",
    "properties": {"name": {"type": "string", "maxLength": 12}, "age": {"type": "integer"}},
    "required": ["name", "age"],
    "additionalProperties": False,
}

STRICT_PERSON = {**PERSON, "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}}
"""PERSON inside OpenAI's strict subset (which has no maxLength)."""

WORDS = ("apple", "river", "stone", "cloud", "tiger", "piano", "lemon", "candle")


def prompts(count: int) -> list[str]:
    return [f"Repeat exactly: {WORDS[i % len(WORDS)]}{i}" for i in range(count)]


needs_llama = pytest.mark.skipif(not have_llama_server(), reason="needs llama-cpp-python[server]")


@pytest.fixture(scope="module")
def llama(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    yield from served_smollm2(tmp_path_factory)


@pytest.fixture(scope="module")
def smol(llama: LlamaServer) -> Iterator[OpenAIModel]:
    model = load_model("openai:smollm2", base_url=llama.url, grammar_mode="llamacpp")
    assert isinstance(model, OpenAIModel)
    try:
        yield model
    finally:
        model.close()


# ------------------------------------------------------------------------------------------- llama.cpp server
@needs_llama
def test_generates_through_load_model(smol: OpenAIModel) -> None:
    [[completion]] = smol.complete([Request.user("What is the capital of France?", Sampling(max_tokens=12))])
    assert completion.error is None
    assert completion.text.strip()
    assert completion.finish_reason in ("stop", "length")
    assert completion.prompt_tokens > 0
    assert 0 < completion.completion_tokens <= 12
    assert completion.seconds > 0
    assert not completion.constrained


@needs_llama
def test_json_schema_grammar_through_llamacpp_field(smol: OpenAIModel) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    grammar = Grammar.json_schema(PERSON)
    asks = ["Describe a person as JSON.", "Give me a made-up user record.", "Who is your favourite author?"]
    results = smol.complete([Request.user(ask, Sampling(max_tokens=48), grammar) for ask in asks])
    for [completion] in results:
        assert completion.error is None, completion.error
        assert completion.constrained
        assert completion.finish_reason == "stop", completion.text
        jsonschema.validate(json.loads(completion.text), PERSON)


@needs_llama
def test_server_rejecting_the_grammar_field_gives_a_clear_bounded_error(llama: LlamaServer) -> None:
    """llama-cpp-python knows no ``response_format`` of type json_schema (what an OpenAI-style server is sent); it
    answers 500, so this is retried (a 5xx might be transient) and then reported, with the server's words and a hint
    at ``grammar_mode``."""
    with OpenAIModel("smollm2", base_url=llama.url, grammar_mode="openai", max_retries=1, **FAST) as model:
        started = time.monotonic()
        [[completion]] = model.complete([Request.user("hi", Sampling(max_tokens=4),
                                                      Grammar.json_schema(STRICT_PERSON))])
    assert time.monotonic() - started < 10
    assert completion.finish_reason == "error"
    assert "HTTP 500" in completion.error and "json_object" in completion.error
    assert "grammar_mode='openai'" in completion.error


@needs_llama
def test_64_concurrent_requests_each_at_its_own_index(smol: OpenAIModel) -> None:
    requests = [Request.user(prompt, Sampling(max_tokens=4)) for prompt in prompts(64)]
    concurrent = [completions[0] for completions in smol.complete(requests)]
    assert len(concurrent) == 64
    assert all(c.error is None and c.text.strip() for c in concurrent)
    # greedy decoding gives one text per prompt whatever the order, so a reversed serial pass must agree slot by slot
    with OpenAIModel("smollm2", base_url=smol.base_url, concurrency=1) as serial:
        reference = [completions[0] for completions in serial.complete(requests[::-1])][::-1]
    assert [c.text for c in concurrent] == [r.text for r in reference]
    assert len({c.text for c in concurrent}) > 8  # distinct prompts, distinct answers: not one answer copied around


@needs_llama
def test_server_killed_mid_run_and_restarted(llama: LlamaServer, smol: OpenAIModel, tmp_path: Path) -> None:
    requests = [Request.user(prompt, Sampling(max_tokens=6)) for prompt in prompts(24)]
    expected = [completions[0].text for completions in smol.complete(requests)]
    server = LlamaServer(smollm2_gguf(), tmp_path / "restarted.log").start()
    model = OpenAIModel("smollm2", base_url=server.url, concurrency=4, max_retries=60, backoff_base=0.05,
                        backoff_max=0.5, timeout=30)
    try:
        with ThreadPoolExecutor(1) as pool:
            batch = pool.submit(model.complete, requests)
            deadline = time.monotonic() + 30
            while server.served() < 6 and not batch.done() and time.monotonic() < deadline:
                time.sleep(0.02)
            assert not batch.done(), "the batch finished before the server could be killed"
            server.kill()
            time.sleep(2)
            server.start()
            results = batch.result(timeout=60)
    finally:
        model.close()
        server.stop()
    completions = [completions[0] for completions in results]
    assert len(completions) == 24
    assert [c.error for c in completions] == [None] * 24
    assert [c.text for c in completions] == expected  # nothing lost, nothing duplicated, nothing out of place
    assert model.retries > 0
    assert server.served() >= 24


# ------------------------------------------------------------------------------------------- misbehaving servers
@pytest.mark.parametrize(("reply", "says"), [
    (error_reply(500, "the GPU caught fire"), "HTTP 500: the GPU caught fire"),
    (error_reply(503, "overloaded, come back later"), "HTTP 503: overloaded"),
    (raw_reply(200, b'{"choices": [ {"message": '), "malformed response"),
    (json_reply(200, {"id": "x", "object": "chat.completion"}), "malformed response: no choices"),
    (raw_reply(200, b"<html>proxy error</html>", "text/html"), "malformed response"),
], ids=["500", "503", "truncated-json", "no-choices", "html"])
def test_bounded_retries_then_a_clear_error(reply: tuple, says: str) -> None:
    with ScriptedServer([reply]) as server, OpenAIModel("m", base_url=server.url, max_retries=3, **FAST) as model:
        started = time.monotonic()
        [[completion]] = model.complete([Request.user("hi")])
        elapsed = time.monotonic() - started
    assert server.hits == 4  # one try and three retries, counted where they land
    assert model.retries == 3
    assert elapsed < 5
    assert completion.finish_reason == "error" and completion.text == ""
    assert says in completion.error
    assert server.url in completion.error and "4 attempts" in completion.error
    assert "\n" not in completion.error


def test_429_with_retry_after_is_bounded_and_waits_as_told() -> None:
    with (ScriptedServer([error_reply(429, "slow down", **{"Retry-After": "1"})]) as server,
          OpenAIModel("m", base_url=server.url, max_retries=2, **FAST) as model):
        started = time.monotonic()
        [[completion]] = model.complete([Request.user("hi")])
        elapsed = time.monotonic() - started
    assert server.hits == 3
    assert 2.0 <= elapsed < 6  # Retry-After (1 s) beat the 0.05 s backoff cap twice, and then it stopped
    assert all(later - earlier >= 0.95 for earlier, later in zip(server.hit_times, server.hit_times[1:], strict=False))
    assert completion.finish_reason == "error" and "HTTP 429: slow down" in completion.error


@pytest.mark.parametrize("retry_after", ["1", "date"])
def test_429_then_success_honours_retry_after(retry_after: str) -> None:
    value = email.utils.formatdate(time.time() + 2.5, usegmt=True) if retry_after == "date" else retry_after
    script = [error_reply(429, "rate limited", **{"Retry-After": value}), completion_reply("fine", 5, 2)]
    with ScriptedServer(script) as server, OpenAIModel("m", base_url=server.url, **FAST) as model:
        started = time.monotonic()
        [[completion]] = model.complete([Request.user("hi")])
        elapsed = time.monotonic() - started
    assert completion.error is None and completion.text == "fine"
    assert (completion.prompt_tokens, completion.completion_tokens) == (5, 2)
    assert server.hits == 2 and model.retries == 1
    assert elapsed >= 1.0 and server.hit_times[1] - server.hit_times[0] >= 0.95
    assert completion.seconds >= 1.0  # a sample's time includes its retries


def test_retry_after_is_capped() -> None:
    script = [error_reply(429, "come back tomorrow", **{"Retry-After": "86400"}), completion_reply("ok")]
    with ScriptedServer(script) as server, OpenAIModel("m", base_url=server.url, retry_after_max=0.2) as model:
        started = time.monotonic()
        [[completion]] = model.complete([Request.user("hi")])
    assert completion.text == "ok" and time.monotonic() - started < 3


@pytest.mark.parametrize(("status", "hint"), [(400, "grammar not supported"), (401, "$MY_KEY"), (404, "/v1")])
def test_final_statuses_raise_at_once_naming_status_and_message(status: int, hint: str) -> None:
    with (ScriptedServer([error_reply(status, "grammar not supported")]) as server,
          OpenAIModel("m", base_url=server.url, api_key_env="MY_KEY", **FAST) as model):
        started = time.monotonic()
        with pytest.raises(ModelError, match=f"HTTP {status}: grammar not supported") as caught:
            model.complete([Request.user("hi"), Request.user("there")])
    assert time.monotonic() - started < 3
    assert server.url in str(caught.value) and hint in str(caught.value)
    assert model.retries == 0 and server.hits <= 2  # never retried


def test_nothing_listening_fails_fast_naming_the_url() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    with OpenAIModel("m", base_url=url) as model:  # building a model touches no network
        started = time.monotonic()
        with pytest.raises(ModelError, match="cannot reach a server at " + url.replace(".", r"\.")):
            model.complete([Request.user("hi")])
    assert time.monotonic() - started < 5


def test_missing_base_url_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ModelError, match=r"no server given for model 'smollm2'.*base_url"):
        load_model("openai:smollm2")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ModelError, match=r"needs a key: set \$OPENAI_API_KEY"):
        load_model("openai:gpt-4o-mini")


@pytest.mark.parametrize(("choice", "says"), [
    ({"message": {"role": "assistant", "content": None, "refusal": "I can't help with that."}, "finish_reason": "stop"},
     "the model refused: I can't help with that."),
    ({"message": {"role": "assistant", "content": "partial"}, "finish_reason": "content_filter"}, "content filter"),
], ids=["refusal", "content-filter"])
def test_refusals_are_errors_not_empty_successes(choice: dict, says: str) -> None:
    body = {"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": [{"index": 0, **choice}]}
    with ScriptedServer([json_reply(200, body)]) as server, OpenAIModel("m", base_url=server.url) as model:
        [[completion]] = model.complete([Request.user("hi")])
    assert completion.finish_reason == "error" and says in completion.error
    assert server.hits == 1  # an answer, however unwelcome, is not retried


# ------------------------------------------------------------------------------------------- requests as sent
def test_each_sample_is_its_own_request_with_its_own_seed() -> None:
    with ScriptedServer([completion_reply("x")]) as server, OpenAIModel("m", base_url=server.url) as model:
        results = model.complete([
            Request.user("a", Sampling(n=3, seed=7, temperature=0.8, max_tokens=9, stop=("\n",))),
            Request.user("b", Sampling(seed=None)),
        ])
    assert [len(r) for r in results] == [3, 1]
    bodies = sorted(server.bodies, key=lambda body: (body["messages"][0]["content"], body.get("seed", -1)))
    assert [(b["messages"][0]["content"], b.get("seed"), b["n"]) for b in bodies] == [
        ("a", 7, 1), ("a", 8, 1), ("a", 9, 1), ("b", None, 1)]
    assert bodies[0]["max_tokens"] == 9 and bodies[0]["stop"] == ["\n"] and bodies[0]["temperature"] == 0.8


@pytest.mark.parametrize(("mode", "grammar", "field"), [
    ("auto", Grammar.json_schema(STRICT_PERSON),
     {"response_format": {"type": "json_schema", "json_schema": {
         "name": f"corral_{Grammar.json_schema(STRICT_PERSON).hash}", "schema": STRICT_PERSON, "strict": True}}}),
    ("llamacpp", Grammar.json_schema(PERSON), {"response_format": {"type": "json_object", "schema": PERSON}}),
    ("vllm", Grammar.regex(r"[a-z]+"), {"structured_outputs": {"regex": "[a-z]+"}}),
    ("vllm", Grammar.lark('start: "yes" | "no"'), {"structured_outputs": {"choice": ["yes", "no"]}}),
    ("vllm", Grammar.lark('start: "y" W\nW: /[a-z]+/'),
     {"structured_outputs": {"grammar": 'start: "y" W\nW: /[a-z]+/'}}),
    ("vllm-legacy", Grammar.lark('start: "a" | "b"'), {"guided_choice": ["a", "b"]}),
    ("vllm", Grammar.json_schema(PERSON), {"structured_outputs": {"json": PERSON}}),
    ("vllm-legacy", Grammar.regex(r"[a-z]+"), {"guided_regex": "[a-z]+"}),
    ("vllm-legacy", Grammar.json_schema(PERSON), {"guided_json": PERSON}),
])
def test_grammar_modes_put_the_grammar_where_the_server_looks(mode: str, grammar: Grammar, field: dict) -> None:
    with (ScriptedServer([completion_reply("{}")]) as server,
          OpenAIModel("m", base_url=server.url, grammar_mode=mode) as model):  # type: ignore[arg-type]
        [[completion]] = model.complete([Request.user("hi", grammar=grammar)])
    assert completion.constrained
    [body] = server.bodies
    assert {key: body[key] for key in field} == field


@pytest.mark.parametrize(("mode", "source", "says"), [
    ("auto", 'start: "yes" | "no"', "takes no lark grammar"),
    ("json_schema", 'start: "yes" | "no"', "takes no lark grammar"),
    ("llamacpp", 'start: A B\nA: "a"\nB: "b"', "several lexemes"),
])
def test_grammars_a_mode_cannot_carry_are_refused_before_sending(mode: str, source: str, says: str) -> None:
    with (ScriptedServer([completion_reply()]) as server,
          OpenAIModel("m", base_url=server.url, grammar_mode=mode) as model,  # type: ignore[arg-type]
          pytest.raises(ModelError, match=f"cannot enforce this grammar: .*{says}") as caught):
        model.complete([Request.user("hi", grammar=Grammar.lark(source))])
    assert server.hits == 0
    assert "\n" not in str(caught.value)


def test_a_repeat_limit_is_refused_before_sending() -> None:
    """The limit needs Corral's own token loop; a server would silently decode without it."""
    with (ScriptedServer([completion_reply()]) as server, OpenAIModel("m", base_url=server.url) as model,
          pytest.raises(ModelError, match="repeat limit")):
        model.complete([Request.user("hi", Sampling(repeat_limit=2))])
    assert server.hits == 0


# ------------------------------------------------------------------------------------------- how it runs
def test_works_from_a_thread_and_inside_a_running_event_loop() -> None:
    with ScriptedServer([completion_reply("hello")]) as server, OpenAIModel("m", base_url=server.url) as model:
        from_thread: list[str] = []
        worker = threading.Thread(target=lambda: from_thread.append(model.complete([Request.user("x")])[0][0].text))
        worker.start()
        worker.join(timeout=10)

        async def inside_a_loop() -> str:
            return model.complete([Request.user("y")])[0][0].text

        assert from_thread == ["hello"]
        assert asyncio.run(inside_a_loop()) == "hello"


def test_close_leaves_no_connection_open() -> None:
    before = {t for t in threading.enumerate() if t.name == "corral-openai"}
    with ScriptedServer([completion_reply()]) as server:
        model = OpenAIModel("m", base_url=server.url, concurrency=4)
        model.complete([Request.user(str(i)) for i in range(8)])
        assert server.open_connections >= 1  # keep-alive: the pool holds them between calls
        model.close()
        deadline = time.monotonic() + 5
        while server.open_connections and time.monotonic() < deadline:
            time.sleep(0.02)
        assert server.open_connections == 0
        assert {t for t in threading.enumerate() if t.name == "corral-openai"} <= before  # its loop thread is gone
        assert model.complete([Request.user("again")])[0][0].text == "ok"  # a closed model reopens on demand
        model.close()


def test_closing_during_a_batch_ends_it_with_an_error_not_a_hang() -> None:
    def slow(_: int) -> tuple:
        time.sleep(0.3)
        return completion_reply()

    with ScriptedServer(slow) as server:
        model = OpenAIModel("m", base_url=server.url, concurrency=2)
        with ThreadPoolExecutor(1) as pool:
            batch = pool.submit(model.complete, [Request.user(str(i)) for i in range(40)])
            deadline = time.monotonic() + 10
            while server.hits < 2 and time.monotonic() < deadline:
                time.sleep(0.01)
            model.close()
            with pytest.raises(ModelError, match="closed while this batch was running"):
                batch.result(timeout=10)
