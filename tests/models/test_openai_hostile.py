"""A served model's answers are untrusted input: a hostile server (real, on 127.0.0.1) costs a request an error
completion naming what was wrong, within the documented time bound, never a traceback or a hang.

Bounds are kept small through the model's own options (``timeout``, ``total_timeout``, ``retry_after_max``,
``max_body_bytes``) so that every test takes a few seconds at most.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import string
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from corral.evaluation import ResponseCache
from corral.models import (
    Completion,
    HostileReply,
    ModelError,
    OpenAIModel,
    Request,
    Sampling,
    json_depth,
    parse_completion,
    read_json,
)
from corral.models import parse_retry_after as retry_after
from corral.text import scrub

from ._servers import DEEP_JSON, HOSTILE_BODIES, HostileServer, chat_body

pytestmark = pytest.mark.server

FAST = {"backoff_base": 0.01, "backoff_max": 0.05, "max_retries": 1, "timeout": 1.0, "total_timeout": 3.0,
        "retry_after_max": 0.3, "max_body_bytes": 64 * 1024}
"""Small bounds: one attempt at most 1 s, one request at most 3 s, all told."""

SLACK = 1.5
"""What a call may take beyond its bound (thread hand-offs, a busy 2-core machine)."""


@pytest.fixture(scope="module")
def server() -> Iterator[HostileServer]:
    with HostileServer(drip_every=0.3) as hostile:
        yield hostile


@pytest.fixture(scope="module")
def echo(server: HostileServer) -> Iterator[OpenAIModel]:
    """A model whose server sends back, as its whole reply, the user message it was sent."""
    with OpenAIModel("echo", base_url=server.url(), max_retries=0, timeout=2.0) as model:
        yield model


def ask(server: HostileServer, mode: str, **options: object) -> tuple[Completion, float]:
    with OpenAIModel(mode, base_url=server.url(), **{**FAST, **options}) as model:  # type: ignore[arg-type]
        started = time.monotonic()
        [[completion]] = model.complete([Request.user("hi", Sampling(max_tokens=8))])
        return completion, time.monotonic() - started


# ------------------------------------------------------------------------------------------- wrong types, bad bodies
@pytest.mark.parametrize(("name", "says"), [
    ("content-list", "choices[0].message.content is a list, not a string"),
    ("content-object", "choices[0].message.content is an object, not a string"),
    ("content-number", "choices[0].message.content is the number 42, not a string"),
    ("usage-string", "usage.prompt_tokens is a string, not a token count"),
    ("usage-infinity", "usage.prompt_tokens is infinity, not a token count"),
    ("usage-nan", "usage.completion_tokens is NaN, not a token count"),
    ("usage-digits", "the server's reply is not JSON (Exceeds the limit (4300 digits)"),
    ("usage-list", "usage is a list, not an object"),
    ("deep", "the server's reply is JSON nested deeper than 64 levels"),
    ("deep-content", "the server's reply is JSON nested deeper than 64 levels"),
    ("not-json", "the server's reply is not JSON"),
    ("top-level-list", "the server's reply is a list, not an object"),
    ("choices-object", "choices is an object, not a list"),
])
def test_a_bad_body_is_that_requests_error(server: HostileServer, name: str, says: str) -> None:
    completion, elapsed = ask(server, f"body:{name}")
    assert completion.finish_reason == "error" and completion.text == ""
    assert f"last: malformed response: {says}" in completion.error
    assert "2 attempts (1 retries)" in completion.error  # retried like any malformed answer, then recorded
    assert "\n" not in completion.error and "\x1b" not in completion.error and "\x00" not in completion.error
    assert elapsed < FAST["total_timeout"] + SLACK


@pytest.mark.parametrize(("name", "says"), [
    ("deep", "HTTP 500: " + "[" * 100),
    ("usage-digits", 'HTTP 500: {"id": "chatcmpl-hostile"'),
    ("error-message-list", 'HTTP 500: {"error": {"message": ["not", "words"]}}'),
    ("error-escapes", "HTTP 500: boom \\x1b[2J\\x1b]0;pwned\\x07 done"),
    ("not-json", "HTTP 500: \\x00\ufffd<html>\\x1b[2J definitely not json"),
])
def test_a_bad_error_body_is_shown_as_text(server: HostileServer, name: str, says: str) -> None:
    completion, elapsed = ask(server, f"error:{name}")
    assert completion.finish_reason == "error" and f"last: {says}" in completion.error
    assert "\x1b" not in completion.error and len(completion.error) < 600
    assert elapsed < FAST["total_timeout"] + SLACK


def test_a_bad_body_in_a_batch_costs_only_its_own_request(server: HostileServer) -> None:
    with (OpenAIModel("body:content-list", base_url=server.url(), **FAST) as bad,  # type: ignore[arg-type]
          OpenAIModel("body:escapes", base_url=server.url(), **FAST) as good):  # type: ignore[arg-type]
        [[failed]] = bad.complete([Request.user("hi")])
        [[fine]] = good.complete([Request.user("hi")])
    assert failed.finish_reason == "error"
    assert fine.error is None and fine.text.startswith("red \x1b[31malert")  # the record keeps the exact text


# ------------------------------------------------------------------------------------------- time bounds
@pytest.mark.parametrize(("mode", "says"), [
    ("hang", "no complete answer within 1 s (timeout)"),
    ("drip", "no complete answer within 1 s (timeout)"),
], ids=["hang", "drip"])
def test_a_silent_or_dripping_server_is_bounded_per_attempt(server: HostileServer, mode: str, says: str) -> None:
    completion, elapsed = ask(server, mode)
    assert completion.finish_reason == "error"
    assert "gave up after 2 attempts (1 retries)" in completion.error and says in completion.error
    assert elapsed < FAST["total_timeout"] + SLACK


def test_the_total_bound_covers_every_attempt_and_wait(server: HostileServer) -> None:
    completion, elapsed = ask(server, "drip", max_retries=20, total_timeout=2.5)
    assert completion.finish_reason == "error"
    assert "2.5 s total bound" in completion.error
    assert 2.0 <= elapsed < 2.5 + SLACK


def test_a_huge_retry_after_is_capped(server: HostileServer) -> None:
    completion, elapsed = ask(server, "retry-after")
    assert completion.finish_reason == "error" and "HTTP 429: come back in 31 years" in completion.error
    assert "2 attempts" in completion.error
    assert FAST["retry_after_max"] - 0.05 <= elapsed < FAST["total_timeout"] + SLACK


def test_a_retry_after_past_the_total_bound_gives_up_at_once(server: HostileServer) -> None:
    completion, elapsed = ask(server, "retry-after", retry_after_max=60.0, total_timeout=2.0)
    assert "HTTP 429" in completion.error
    assert "1 attempts (0 retries)" in completion.error
    assert "the next attempt would start past the 2 s total bound" in completion.error
    assert elapsed < 1.5  # not the 2 s bound, nor the 60 s wait


def test_a_probe_that_hangs_is_bounded(server: HostileServer) -> None:
    with OpenAIModel("m", base_url=server.url("/hang"), timeout=1.0) as model:
        started = time.monotonic()
        with pytest.raises(ModelError, match=r"did not answer within 1 s"):
            model.complete([Request.user("hi")])
    assert time.monotonic() - started < 1 + SLACK


# ------------------------------------------------------------------------------------------- size bounds
@pytest.mark.parametrize(("mode", "says"), [
    ("huge-declared", "the server's reply is 1,000,000,000 bytes, over the 65,536-byte limit"),
    ("huge-chunked", "the server's reply is over the 65,536-byte limit"),
    ("gzip-bomb", "the server's reply is over the 65,536-byte limit"),
])
def test_a_huge_body_is_refused_before_it_is_read(server: HostileServer, mode: str, says: str) -> None:
    completion, elapsed = ask(server, mode)
    assert completion.finish_reason == "error" and f"malformed response: {says}" in completion.error
    assert elapsed < FAST["total_timeout"] + SLACK


# ------------------------------------------------------------------------------------------- arbitrary JSON
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
USAGE = st.one_of(JSON_VALUES, st.dictionaries(st.sampled_from(["prompt_tokens", "completion_tokens", "total_tokens"]),
                                               JSON_VALUES, max_size=3))


def _checked(completion: Completion) -> None:
    assert isinstance(completion, Completion)
    assert isinstance(completion.text, str)
    if completion.finish_reason == "error":
        assert completion.error and "\n" not in completion.error
    else:
        assert completion.prompt_tokens >= 0 and completion.completion_tokens >= 0


@settings(max_examples=150, deadline=None)
@given(content=JSON_VALUES, usage=USAGE, finish=JSON_VALUES)
def test_the_parser_never_raises_anything_but_its_own_error(content: object, usage: object, finish: object) -> None:
    body = chat_body(content, usage, finish)
    try:
        reply = parse_completion(read_json(body), body)
    except HostileReply as exc:
        assert "\n" not in str(exc)
    else:
        assert isinstance(reply.text, str) and 0 <= reply.prompt_tokens <= 10**9


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=JSON_VALUES, usage=USAGE)
def test_arbitrary_content_and_usage_through_a_real_socket(echo: OpenAIModel, content: object, usage: object) -> None:
    [[completion]] = echo.complete([Request.user(chat_body(content, usage).decode())])
    _checked(completion)
    if isinstance(content, str) and completion.finish_reason != "error":
        assert completion.text == scrub(content)[0]


@settings(max_examples=60, deadline=None)
@given(body=st.binary(max_size=200) | st.text(alphabet=string.printable + "[]{}\"\\\x1b", max_size=200).map(str.encode))
def test_arbitrary_bytes_never_escape_as_anything_but_hostile_reply(body: bytes) -> None:
    with contextlib.suppress(HostileReply):
        parse_completion(read_json(body), body)


def test_recursion_in_the_parser_is_a_hostile_reply() -> None:
    with pytest.raises(HostileReply, match="nested deeper than 1000000 levels"):
        read_json(DEEP_JSON * 20, max_depth=10**6)  # past the scan's limit: json.loads' RecursionError is caught


@pytest.mark.parametrize(("headers", "seconds"), [
    ({"retry-after": "1e999"}, float("inf")),  # capped by retry_after_max where it is used
    ({"retry-after": "nan"}, None),
    ({"retry-after-ms": "nan", "retry-after": "2"}, 2.0),
    ({"retry-after": "-5"}, 0.0),
    ({"retry-after": "Fri, 99 Foo 99999 99:99:99 GMT"}, None),
    ({"retry-after": "\x00\x1b[2J"}, None),
    ({"retry-after-ms": "1500"}, 1.5),
])
def test_retry_after_never_raises(headers: dict[str, str], seconds: float | None) -> None:
    assert retry_after(headers) == seconds


def test_json_depth_ignores_brackets_in_strings() -> None:
    assert json_depth(b'{"a": "[[[[[[", "b": [[1]]}') == 3
    assert json_depth(DEEP_JSON) == 5000
    assert json_depth(b'{"a": "\\"[[["}') == 1


# ------------------------------------------------------------------------------------------- the terminal
def test_generate_escapes_terminal_controls_but_json_keeps_the_text(server: HostileServer) -> None:
    from corral.cli import app

    runner = CliRunner()
    arguments = ["generate", "hi", "--model", "openai:body:escapes", "--base-url", server.url()]
    shown = runner.invoke(app, arguments)
    assert shown.exit_code == 0, shown.output
    assert "\x1b" not in shown.output and "\x07" not in shown.output and "\x9b" not in shown.output
    assert "red \\x1b[31malert\\x1b[0m \\x1b]0;pwned\\x07 clear \\x1b[2J \\x9b1m done" in shown.output
    assert "tab\nline [/bold]" in shown.output  # newline kept, brackets not taken for markup (rich expands the tab)

    as_json = runner.invoke(app, [*arguments, "--json"])
    assert as_json.exit_code == 0, as_json.output
    assert "\x1b" not in as_json.output and "\x9b" not in as_json.output
    [line] = as_json.output.splitlines()
    assert json.loads(line)["text"] == json.loads(HOSTILE_BODIES["escapes"])["choices"][0]["message"]["content"]


# ------------------------------------------------------------------------------------------- the response cache
@pytest.mark.parametrize("stored", [
    "[" * 100_000 + "]" * 100_000,
    json.dumps({"text": "ok", "finish_reason": "stop"})[:-1] + ', "likelihood": ' + "[" * 50_000 + "]" * 50_000 + "}",
    '{"text": "ok", "finish_reason": "stop", "prompt_tokens": ' + "9" * 5000 + "}",
    '{"text": ["not", "text"], "finish_reason": "stop"}',
    "x" * (64 * 2**20 + 1),
], ids=["deep", "deep-field", "digits", "wrong-type", "huge"])
def test_a_poisoned_cache_entry_is_a_counted_miss(tmp_path: Path, stored: str) -> None:
    cache = ResponseCache(tmp_path / "responses.sqlite3")
    request = Request.user("hi")
    key = cache.key(request, "openai", "m")
    cache.put(key, Completion(text="fine", finish_reason="stop"))
    assert cache.get(key) == Completion(text="fine", finish_reason="stop")
    with sqlite3.connect(tmp_path / "responses.sqlite3") as db:
        db.execute("UPDATE responses SET completion = ? WHERE key = ?", (stored, key))
    assert cache.get(key) is None
    assert cache.skipped == 1 and cache.hits == 1 and cache.problem is None
    cache.close()
