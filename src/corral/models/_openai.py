"""The ``openai`` backend: any OpenAI-compatible chat-completions server (OpenAI, vLLM, llama.cpp's servers).

Servers fail in ordinary ways (rate limits, restarts, overload, truncated bodies), so the retry policy is ours, not
the SDK's (whose client runs with ``max_retries=0``): it is bounded, visible (``OpenAIModel.retries``), uses
exponential backoff with full jitter so that many clients do not retry in step, and honours ``Retry-After``. A
request that still fails comes back as an ``error`` completion naming the server, the attempts and the last
failure, so a long run loses nothing silently. A request the server refuses outright (400, 401, 404, ...) raises
``ModelError`` instead: retrying cannot help, and every other request of the batch would fail the same way.

Reachability is checked on the first ``complete`` call, not at construction: a model whose answers all come from a
cache never touches the network, and a server may be started after its model is built. A server that was never
reached fails fast with a one-line error naming the URL; once it has answered, connection failures count as
transient (a restart, an overloaded proxy) and are retried.

Grammars travel in whichever request fields the server understands (``_structured``): ``grammar_mode`` names the kind
of server (``GRAMMAR_MODES``), and ``auto`` asks the server (``GET /v1/models`` ``owned_by``). A grammar the server
cannot enforce exactly is never sent: ``plan_grammar`` says so first, and the runner decodes that sample freely.

A server's answers are untrusted input (``_served_reply``): every request is bounded in total time (``timeout``
for each attempt, connect to the body's last byte; ``total_timeout`` for all attempts and waits together), every
body in size (``max_body_bytes``) and JSON depth, and a reply is checked against the protocol's types before use,
so a hanging, dripping or lying server costs that request an ``error`` completion saying what was wrong, never a
traceback or a hang.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import email.utils
import os
import random
import re
import threading
import time
import weakref
from collections.abc import Callable, Coroutine, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal, TypeVar
from urllib.parse import urlsplit

from corral.registry import backends
from corral.text import printable

from ._protocol import Completion, Likelihood, ModelError, Request
from ._served_reply import MAX_BODY_BYTES, HostileReply, body_cap, parse_completion, read_json
from ._structured import SERVER_KINDS, GrammarRoute, ServerKind, kind_from_owner, route_grammar, server_kind

if TYPE_CHECKING:
    from openai import AsyncOpenAI

    from corral.grammars import Grammar

T = TypeVar("T")

GrammarMode = Literal["auto", "openai", "json_schema", "llamacpp", "sglang", "vllm", "vllm-legacy"]

GRAMMAR_MODES: dict[str, str] = {
    "auto": "the server says its kind (GET /v1/models owned_by: vllm, sglang, llamacpp, or llama-cpp-python's 'me'); "
    "any other server is taken for an OpenAI-style API",
    **SERVER_KINDS,
    "json_schema": "the earlier name of openai",
}
"""What each ``grammar_mode`` sends; a grammar a server cannot enforce exactly is checker-only, never sent."""

RETRY_STATUSES = frozenset({408, 409, 429})
"""Statuses worth retrying besides every 5xx: timeouts, conflicts and rate limits pass; other 4xx are final."""

RETRY_AFTER_MAX = 60.0
"""The longest a server's ``Retry-After`` is waited by default (``retry_after_max``); a longer ask waits this long."""

OPENAI_URL = "https://api.openai.com/v1"
_OPENAI_MODEL = re.compile(r"^(gpt-|chatgpt-|o\d|ft:gpt-|davinci|babbage)")


class OpenAIModel:
    """A model behind an OpenAI-compatible server; all (request, sample) pairs of a batch run concurrently.

    Each sample is its own HTTP request (``n=1``) carrying ``seed = sampling.seed_for(j)``, so samples are
    distinct and reproducible wherever the server honours seeds, and one failed sample costs one sample. A
    completion's ``seconds`` runs from when its request may start (a ``concurrency`` slot is free) to its answer,
    retries included, so queueing behind our own batch does not count but a slow or flaky server does.
    ``retries`` counts retries over the model's life (tests and run logs read it).

    Bounds: one attempt (connect, send, the whole body) takes at most ``timeout`` seconds; one sample, all its
    attempts and waits included, at most ``total_timeout`` (default: what the attempts and capped waits could add up
    to, ``(max_retries + 1) * timeout + max_retries * max(backoff_max, retry_after_max)``, 660 s with the defaults);
    a ``Retry-After`` is waited at most ``retry_after_max`` (``RETRY_AFTER_MAX``); a body is read up to
    ``max_body_bytes`` (``MAX_BODY_BYTES``). The bound that ended a sample is named in its error.
    """

    backend = "openai"

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        concurrency: int = 16,
        timeout: float = 60,
        max_retries: int = 5,
        grammar_mode: GrammarMode = "auto",
        backoff_base: float = 0.5,
        backoff_max: float = 30.0,
        retry_after_max: float = RETRY_AFTER_MAX,
        extra_body: Mapping[str, Any] | None = None,
        total_timeout: float | None = None,
        max_body_bytes: int = MAX_BODY_BYTES,
    ) -> None:
        if grammar_mode not in GRAMMAR_MODES:
            raise ModelError(f"unknown grammar_mode {grammar_mode!r}; choose one of {', '.join(GRAMMAR_MODES)}")
        if concurrency < 1 or timeout <= 0 or min(max_retries, backoff_base, backoff_max, retry_after_max) < 0:
            raise ModelError("concurrency and timeout must be positive; max_retries and the waits must be >= 0")
        if (total_timeout is not None and not total_timeout > 0) or max_body_bytes < 1:
            raise ModelError("total_timeout and max_body_bytes must be positive")
        self.name = model
        self.base_url = _base_url(model, base_url)
        self.runtime = f"served at {self.base_url}"
        self.api_key_env = api_key_env
        self.concurrency = concurrency
        self.timeout = float(timeout)
        self.max_retries = max_retries
        self.grammar_mode: GrammarMode = grammar_mode
        self._kind: ServerKind | None = None if grammar_mode == "auto" else server_kind(grammar_mode)
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.retry_after_max = retry_after_max
        self.total_timeout = float(total_timeout) if total_timeout is not None else (
            (max_retries + 1) * self.timeout + max_retries * max(backoff_max, retry_after_max))
        self.max_body_bytes = max_body_bytes
        self.extra_body = dict(extra_body or {})
        self.retries = 0
        self._api_key = _api_key(api_key_env, self.base_url)
        self._reached = False
        self._lock = threading.Lock()
        self._session: _Session | None = None
        self._finalizer: weakref.finalize | None = None

    # ------------------------------------------------------------------------------------------- public
    def complete(self, requests: Sequence[Request]) -> list[list[Completion]]:
        """Blocking for the caller (from any thread, with or without a running event loop); concurrent inside."""
        jobs = [(self._arguments(request, j), request) for request in requests for j in range(request.sampling.n)]
        if not jobs:
            return [[] for _ in requests]
        session = self._open()
        flat = session.run(self._complete_all(session, jobs))
        out: list[list[Completion]] = []
        position = 0
        for request in requests:
            out.append(flat[position:position + request.sampling.n])
            position += request.sampling.n
        return out

    def server_kind(self) -> ServerKind:
        """The kind of server grammars are planned for: ``grammar_mode``, or for ``auto`` what the server says in
        ``GET /v1/models`` (asked once, bounded like the reachability probe); a server that says nothing known, or
        does not answer, is taken for an OpenAI-style API (JSON Schema only)."""
        if self._kind is None:
            owners: list[str] = []
            with contextlib.suppress(Exception):  # no answer: the OpenAI way, which sends what any such server takes
                owners = self._open().run(self._owners())
            self._kind = kind_from_owner(owners)
        return self._kind

    def plan_grammar(self, grammar: Grammar) -> GrammarRoute:
        """How ``grammar`` would travel to this server: enforced (as what), or checker-only with the reason."""
        return route_grammar(grammar, self.server_kind())

    async def _owners(self) -> list[str]:
        async with asyncio.timeout(min(self.timeout, 10.0)):
            page = await self._open().client.models.list()
        self._reached = True
        return [str(getattr(model, "owned_by", "") or "") for model in page.data]

    def score(self, requests: Sequence[Request], texts: Sequence[str]) -> list[Likelihood | None]:
        """None for every text: a served chat model is not scored (``corral.models.Scorer``).

        Scoring a given reply needs the log-probabilities of *prompt* tokens. Chat completions return them only for
        tokens the server generates, and ``/v1/completions`` with ``echo`` and ``logprobs`` (where a server has it:
        vLLM, llama-cpp-python's server when started with ``logits_all``) takes a raw prompt, so the client would
        have to render the chat with the model's own template, which the OpenAI protocol does not give it; a prompt
        rendered another way would score another text. A served run's fluency figures therefore leave NLL/token
        empty, and the ``rerank`` strategy refuses a served model.
        """
        if len(requests) != len(texts):
            raise ValueError(f"{len(requests)} requests but {len(texts)} texts")
        return [None] * len(texts)

    def close(self) -> None:
        """Close the HTTP client (no pooled connection outlives it) and stop the private event loop."""
        with self._lock:
            finalizer, self._finalizer, self._session = self._finalizer, None, None
        if finalizer is not None:
            finalizer()

    def __enter__(self) -> OpenAIModel:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"OpenAIModel({self.name!r}, base_url={self.base_url!r}, grammar_mode={self.grammar_mode!r})"

    # ------------------------------------------------------------------------------------------- requests
    def _arguments(self, request: Request, j: int) -> dict[str, Any]:
        """The keyword arguments of one sample's ``chat.completions.create`` (grammar refusals happen here)."""
        sampling = request.sampling
        if sampling.repeat_limit:
            raise ModelError("a served model cannot apply Corral's repeat limit (it needs the token loop); run "
                             "with repeat limit 0 (--set sampling.repeat_limit=0), or on a local backend")
        arguments: dict[str, Any] = {
            "model": self.name,
            "messages": [dict(message) for message in request.messages],
            "temperature": sampling.temperature,
            "top_p": sampling.top_p,
            "max_tokens": sampling.max_tokens,
            "n": 1,
        }
        if sampling.stop:
            arguments["stop"] = list(sampling.stop)
        seed = sampling.seed_for(j)
        if seed is not None:
            arguments["seed"] = seed
        body = dict(self.extra_body)
        if request.grammar is not None:
            route = self.plan_grammar(request.grammar)
            if not route.enforced:
                raise ModelError(f"{self.base_url} ({route.server}) cannot enforce this grammar: {route.reason}; "
                                 "decode it freely and check it after (the runner does), or pick another grammar_mode"
                                 f": {', '.join(GRAMMAR_MODES)}")
            fields = dict(route.fields)
            if "response_format" in fields and route.server == "openai":
                arguments["response_format"] = fields.pop("response_format")
            body.update(fields)
        if body:
            arguments["extra_body"] = body
        return arguments

    async def _complete_all(self, session: _Session, jobs: list[tuple[dict[str, Any], Request]]) -> list[Completion]:
        if not self._reached:
            await self._probe(session.client)
        try:
            async with asyncio.TaskGroup() as group:
                tasks = [group.create_task(self._sample(session, arguments, request)) for arguments, request in jobs]
        except BaseExceptionGroup as failures:
            refused = [exc for exc in failures.exceptions if isinstance(exc, ModelError)]
            if refused:
                raise refused[0] from None
            raise
        return [task.result() for task in tasks]

    async def _probe(self, client: AsyncOpenAI) -> None:
        """Fail fast, naming the URL, when nothing answers there; any HTTP answer at all counts as reachable.

        Bounded as a whole (a server that accepts the connection and then says nothing, or drips, cannot stall it)."""
        import openai

        limit = min(self.timeout, 10.0)
        try:
            async with asyncio.timeout(limit):
                await client.models.list()
        except (openai.APITimeoutError, TimeoutError):
            raise ModelError(f"the server at {self.base_url} did not answer within {limit:g} s") from None
        except openai.APIConnectionError as exc:
            raise ModelError(f"cannot reach a server at {self.base_url}: {_cause(exc)}") from None
        except Exception:
            pass  # a 404 or an odd body still proves that a server is there
        self._reached = True

    async def _sample(self, session: _Session, arguments: dict[str, Any], request: Request) -> Completion:
        async with session.semaphore:
            started = time.perf_counter()
            deadline = started + self.total_timeout
            failure = ""
            attempts = self.max_retries + 1
            tried = 0
            out_of_time = ""
            for attempt in range(attempts):
                tried += 1
                outcome = await self._attempt(session, arguments, request, started, deadline)
                if isinstance(outcome, Completion):
                    return outcome
                failure, retry_after = outcome
                if attempt + 1 >= attempts:
                    break
                wait = self._delay(attempt, retry_after)
                if time.perf_counter() + wait >= deadline:
                    out_of_time = f"; the next attempt would start past the {self.total_timeout:g} s total bound"
                    break
                self.retries += 1  # only the loop thread touches it, so no lock is needed
                await asyncio.sleep(wait)
            return Completion(
                text="",
                finish_reason="error",
                seconds=time.perf_counter() - started,
                constrained=request.grammar is not None,
                error=f"{self.base_url}: gave up after {tried} attempts ({tried - 1} retries); last: {failure}"
                + out_of_time + self._grammar_hint(request),
            )

    async def _attempt(self, session: _Session, arguments: dict[str, Any], request: Request, started: float,
                       deadline: float) -> Completion | tuple[str, float | None]:
        """One try: a completion (an answer, however unwelcome), or why it failed and the server's Retry-After.

        A refusal (a final 4xx) raises ``ModelError``; nothing else escapes: whatever a server sends or fails to
        send is this attempt's failure."""
        import openai

        remaining = deadline - time.perf_counter()
        limit = min(self.timeout, remaining)
        try:
            async with asyncio.timeout(limit):
                raw = await session.client.chat.completions.with_raw_response.create(**arguments)
                body = raw.http_response.content
            reply = parse_completion(read_json(body), body)
        except openai.APIStatusError as exc:
            if exc.status_code == 400 and _CONTEXT_ERROR.search(_server_message(exc)):
                return Completion(text="", finish_reason="context", seconds=time.perf_counter() - started,
                                  constrained=request.grammar is not None,
                                  error=f"{self.base_url}: {_server_message(exc)}")
            if exc.status_code < 500 and exc.status_code not in RETRY_STATUSES:
                raise self._refusal(exc, request) from None
            return f"HTTP {exc.status_code}: {_server_message(exc)}", parse_retry_after(exc.response.headers)
        except (openai.APITimeoutError, TimeoutError):
            if limit < self.timeout:
                return f"no answer before the {self.total_timeout:g} s total bound (total_timeout) ran out", None
            return f"no complete answer within {self.timeout:g} s (timeout)", None
        except openai.APIConnectionError as exc:
            hostile = _hostile_cause(exc)
            if hostile is not None:
                return f"malformed response: {hostile}", None
            return f"connection failed: {_cause(exc)}", None
        except HostileReply as exc:
            return f"malformed response: {_one_line(str(exc))[:400]}", None
        except Exception as exc:  # the SDK or the HTTP stack choking on something the server sent
            hostile = _hostile_cause(exc)
            if hostile is not None:
                return f"malformed response: {hostile}", None
            return f"malformed response: {type(exc).__name__}: {_safe_str(exc)}", None
        error = f"the model refused: {_one_line(reply.refusal)[:300]}" if reply.refusal else None
        if reply.finish_reason == "content_filter":
            error = "the server's content filter stopped the output"
        return Completion(
            text=reply.text,
            finish_reason="error" if error else ("length" if reply.finish_reason == "length" else "stop"),
            prompt_tokens=reply.prompt_tokens,
            completion_tokens=reply.completion_tokens,
            seconds=time.perf_counter() - started,
            constrained=request.grammar is not None,
            error=error,
            reasoning=reply.reasoning,
        )

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        """Full jitter spreads clients that failed together; a server's ``Retry-After`` wins over it (the server
        knows when it will have room), within ``retry_after_max`` so a wild value cannot stall a run."""
        if retry_after is not None:
            return min(retry_after, self.retry_after_max)
        return random.uniform(0, min(self.backoff_max, self.backoff_base * 2**attempt))

    def _refusal(self, exc: Any, request: Request) -> ModelError:
        status = exc.status_code
        hints = {
            401: f" (check the key in ${self.api_key_env})",
            403: f" (check the key in ${self.api_key_env} and its permissions)",
            404: f" (is the model name {self.name!r} right, and does base_url end in /v1?)",
        }
        return ModelError(
            f"the server at {self.base_url} refused the request with HTTP {status}: {_server_message(exc)}"
            + hints.get(status, "")
            + self._grammar_hint(request)
        )

    def _grammar_hint(self, request: Request) -> str:
        if request.grammar is None:
            return ""
        kind = self._kind or self.grammar_mode
        return (f" [the {request.grammar.format} grammar went as for a {kind} server (grammar_mode="
                f"{self.grammar_mode!r}); if this server takes grammars another way, pick another grammar_mode: "
                f"{', '.join(GRAMMAR_MODES)}]")

    # ------------------------------------------------------------------------------------------- session
    def _open(self) -> _Session:
        with self._lock:
            if self._session is None:
                self._session = _Session(self._client, self.concurrency)
                self._finalizer = weakref.finalize(self, self._session.close)
            return self._session

    def _client(self) -> AsyncOpenAI:
        try:
            from openai import AsyncOpenAI
        except ImportError as exc:
            raise ModelError(f"the openai backend needs the openai package: {exc}") from None
        from openai import DefaultAsyncHttpx2Client

        # identity: a body's size on the wire is its size (body_cap still decodes and caps a gzip sent regardless)
        http_client = DefaultAsyncHttpx2Client(timeout=self.timeout, headers={"Accept-Encoding": "identity"},
                                               event_hooks={"response": [body_cap(self.max_body_bytes)]})
        return AsyncOpenAI(api_key=self._api_key, base_url=self.base_url, timeout=self.timeout, max_retries=0,
                           http_client=http_client)


class _Session:
    """A private event loop in a daemon thread with one HTTP client.

    Why a thread of its own: ``complete`` must work from any thread, including one that already runs an event
    loop (a notebook), and an async client's pooled connections belong to the loop that opened them, so one
    long-lived loop keeps them (and their TLS handshakes) across calls until ``close``.
    """

    def __init__(self, make_client: Callable[[], AsyncOpenAI], concurrency: int) -> None:
        self.client: AsyncOpenAI = make_client()
        self.semaphore = asyncio.Semaphore(concurrency)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="corral-openai", daemon=True)
        self.thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        future = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        try:
            return future.result()
        except concurrent.futures.CancelledError:
            raise ModelError("the model was closed while this batch was running") from None
        except BaseException:
            future.cancel()  # an interrupted caller (Ctrl-C) must not leave requests running
            raise

    def close(self) -> None:
        if self.loop.is_closed():
            return
        try:
            asyncio.run_coroutine_threadsafe(self._shutdown(), self.loop).result(timeout=10)
        except Exception:
            pass  # closing is best effort; the loop stops regardless
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout=10)
            if not self.thread.is_alive():
                self.loop.close()

    async def _shutdown(self) -> None:
        """Cancel a batch still running (its caller gets a ``ModelError``, not a hang), then close the client."""
        others = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in others:
            task.cancel()
        await asyncio.gather(*others, return_exceptions=True)
        await self.client.close()


# ----------------------------------------------------------------------------------------------- grammars
def grammar_fields(grammar: Grammar, mode: str, server: str = "this server") -> dict[str, Any]:
    """The request fields that carry ``grammar`` to a server of kind ``mode`` (not ``auto``), or a ``ModelError``
    saying why it is checker-only there (``route_grammar`` has the whole route)."""
    route = route_grammar(grammar, mode)
    if not route.enforced:
        raise ModelError(f"{server} ({route.server}) cannot enforce this {grammar.format} grammar: {route.reason}")
    return dict(route.fields)


# ----------------------------------------------------------------------------------------------- helpers
def _base_url(model: str, base_url: str | None) -> str:
    url = base_url or os.environ.get("OPENAI_BASE_URL") or ""
    if not url:
        if not _OPENAI_MODEL.match(model):
            raise ModelError(
                f"openai backend: no server given for model {model!r}; pass base_url= (e.g. http://127.0.0.1:8000/v1)"
                " or set OPENAI_BASE_URL (only OpenAI's own models default to the OpenAI API)"
            )
        url = OPENAI_URL
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ModelError(f"openai backend: base_url must be an http(s) URL like http://127.0.0.1:8000/v1, not {url!r}")
    return url.rstrip("/")


def _api_key(env: str, url: str) -> str:
    """The key from ``$env``, else a placeholder: local and self-hosted servers usually want none (and one that does
    answers 401, which names ``$env``); only the OpenAI API itself is known to need one up front."""
    key = os.environ.get(env, "")
    if key:
        return key
    if urlsplit(url).hostname == urlsplit(OPENAI_URL).hostname:
        raise ModelError(f"the OpenAI API at {url} needs a key: set ${env}")
    return "none"


def _server_message(exc: Any) -> str:
    """The server's own words: OpenAI-style ``{"error": {"message"}}``, FastAPI's ``detail``, or the body text.

    Only a string is taken as a message: anything else the server put there is shown as the body's first text."""
    body = exc.body
    message: Any = None
    if isinstance(body, dict):
        error = body.get("error", body)
        message = error.get("message") if isinstance(error, dict) else error
        if not isinstance(message, str) or not message.strip():
            message = next((value for value in (body.get("detail"), body.get("message"))
                            if isinstance(value, str) and value.strip()), None)
    elif isinstance(body, str):
        message = body
    if not isinstance(message, str) or not message.strip():
        try:
            message = exc.response.text[:4000]
        except Exception:  # a body that cannot be read says nothing more
            message = None
    if not isinstance(message, str) or not message.strip():
        message = exc.response.reason_phrase or "no message"
    return _one_line(message[:4000])[:400]


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait from ``retry-after-ms`` (OpenAI) or ``Retry-After`` (seconds or an HTTP date), if given; a
    value that is not a finite non-negative time is no value (infinity is capped by the caller's ``retry_after_max``).
    """
    try:
        milliseconds = headers.get("retry-after-ms")
        if milliseconds:
            seconds = _seconds(milliseconds, 1000)
            if seconds is not None:
                return seconds
        value = headers.get("retry-after")
        if not value:
            return None
        seconds = _seconds(value, 1)
        if seconds is not None:
            return seconds
        when = email.utils.parsedate_to_datetime(value)
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        return max(0.0, (when - datetime.now(UTC)).total_seconds())
    except (TypeError, ValueError, OverflowError, IndexError):
        return None


def _seconds(text: str, per_second: float) -> float | None:
    try:
        value = float(text) / per_second
    except (TypeError, ValueError, OverflowError):
        return None
    if value != value:  # NaN
        return None
    return max(0.0, value)


def _hostile_cause(exc: BaseException) -> str | None:
    """The ``HostileReply`` that caused ``exc`` (the SDK wraps what the HTTP stack raised while reading a body)."""
    seen = 0
    cause: BaseException | None = exc
    while cause is not None and seen < 10:
        if isinstance(cause, HostileReply):
            return _one_line(str(cause))[:400]
        cause, seen = cause.__cause__ or cause.__context__, seen + 1
    return None


def _safe_str(exc: BaseException) -> str:
    try:
        return _one_line(str(exc)[:1000])[:300]
    except Exception:
        return "(no message)"


# how OpenAI, vLLM and llama.cpp's server word a prompt that does not fit (HTTP 400)
_CONTEXT_ERROR = re.compile(r"context length|context window|maximum context|exceeds? the (?:available )?context|"
                            r"too many tokens|context_length_exceeded", re.IGNORECASE)


def _cause(exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__ or exc
    text = str(cause) or type(cause).__name__
    return _one_line(f"{type(cause).__name__}: {text}" if cause is not exc else text)


def _one_line(text: str) -> str:
    """One line, its control characters escaped: a server's words in an error cannot drive a terminal."""
    return printable(" ".join(text.split()))


@backends.register("openai")
def _openai(model: str, **options: Any) -> OpenAIModel:
    return OpenAIModel(model, **options)
