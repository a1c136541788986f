"""A served model's reply is untrusted input: read it within a size cap, parse it within a depth cap, and check it
against the chat-completions protocol's types before anything of it is used.

Everything here fails with ``HostileReply``, whose message is one line naming what was wrong (``choices[0].message
.content is a list, not a string``); the backend turns that into the request's error, never a traceback.
"""

from __future__ import annotations

import math
import re
import zlib
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from corral.errors import ModelError
from corral.text import printable

MAX_BODY_BYTES = 16 * 2**20
"""The largest reply body read (after decompression): a chat completion of any sane length is far below it."""

MAX_DEPTH = 64
"""The deepest JSON nesting accepted in a reply (a chat completion nests about 5 deep)."""

MAX_TOKEN_COUNT = 10**9
"""The largest token count believed in ``usage`` (no model's context comes near it)."""


class HostileReply(ModelError):
    """A reply that breaks the protocol: too big, not JSON, too deep, or a field of the wrong type (a model's
    error: the server, not the caller, sent it)."""


@dataclass(frozen=True)
class ServedReply:
    """What the backend uses of a chat completion, each field checked."""

    text: str
    finish_reason: str | None
    refusal: str | None
    prompt_tokens: int
    completion_tokens: int
    reasoning: str | None = None  # the thinking a server's reasoning parser separated (reasoning_content)


# ----------------------------------------------------------------------------------------------- the body
def body_cap(limit: int) -> Callable[[Any], Coroutine[Any, Any, None]]:
    """An httpx response hook that makes every body read through it stop at ``limit`` bytes (decompressed).

    It runs when the headers have arrived and before the body is read, so a declared ``Content-Length`` over the
    limit is refused at once, and a body without one is counted as it arrives. gzip and deflate (which a server
    may send though identity was asked for) are decoded here, with the same cap on what they expand to; any other
    encoding is refused rather than handed to a decoder whose output is not bounded.
    """
    import httpx2

    class Capped(_Capped, httpx2.AsyncByteStream):
        pass

    async def hook(response: Any) -> None:
        declared = response.headers.get("content-length", "")
        if declared.strip().isdigit() and int(declared) > limit:
            await response.aclose()
            raise HostileReply(f"the server's reply is {int(declared):,} bytes, over the {limit:,}-byte limit")
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if encoding not in ("", "identity", "gzip", "x-gzip", "deflate"):
            await response.aclose()
            raise HostileReply(f"the server's reply is {printable(encoding)[:40]}-encoded, which was not asked for")
        decoder = None
        if encoding not in ("", "identity"):
            decoder = zlib.decompressobj(zlib.MAX_WBITS | 32 if "gzip" in encoding else zlib.MAX_WBITS)
            del response.headers["content-encoding"]  # decoded here, so httpx must not decode again
        response.stream = Capped(response.stream, limit, decoder)

    return hook


class _Capped:
    """An async byte stream that raises ``HostileReply`` once more than ``limit`` bytes have come through (mixed
    into httpx's ``AsyncByteStream`` by ``body_cap``)."""

    def __init__(self, raw: Any, limit: int, decoder: Any) -> None:
        self.raw = raw
        self.limit = limit
        self.decoder = decoder

    async def __aiter__(self) -> AsyncIterator[bytes]:
        size = 0
        async for chunk in self.raw:
            if self.decoder is not None:
                try:
                    chunk = self.decoder.decompress(chunk, self.limit - size + 1)
                except zlib.error as exc:
                    raise HostileReply(f"the server's compressed reply does not decompress: {exc}") from None
                if self.decoder.unconsumed_tail:
                    size = self.limit + 1
            size += len(chunk)
            if size > self.limit:
                raise HostileReply(f"the server's reply is over the {self.limit:,}-byte limit")
            yield chunk

    async def aclose(self) -> None:
        await self.raw.aclose()


def read_json(body: bytes, max_depth: int = MAX_DEPTH) -> Any:
    """``body`` as JSON, or ``HostileReply`` saying why not (not JSON, nested too deep, a number too long)."""
    if body.count(b"[") + body.count(b"{") > max_depth and json_depth(body) > max_depth:
        raise HostileReply(f"the server's reply is JSON nested deeper than {max_depth} levels")
    import json

    try:
        return json.loads(body)
    except RecursionError:
        raise HostileReply(f"the server's reply is JSON nested deeper than {max_depth} levels") from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, an integer over Python's digit limit
        snippet = printable(body[:120].decode("utf-8", "replace"))
        raise HostileReply(f"the server's reply is not JSON ({printable(str(exc))[:120]}): {snippet}") from None


_JSON_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+"', re.DOTALL)
_BRACKETS = bytes(range(256)).translate(None, b"[]{}")  # every byte but the brackets, to delete
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def json_depth(body: bytes) -> int:
    """How deep the brackets of ``body`` nest outside its strings (a cheap scan, in C but for one pass)."""
    brackets = _JSON_STRING.sub(b"", body).translate(None, _BRACKETS)
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


# ----------------------------------------------------------------------------------------------- the protocol
def parse_completion(data: Any, body: bytes = b"") -> ServedReply:
    """The checked fields of a chat completion (``HostileReply`` naming the first field of the wrong type).

    Missing or null ``content`` is an empty text and missing or null token counts are 0, as servers send them;
    anything present must have the protocol's type."""
    if not isinstance(data, dict):
        raise HostileReply(f"the server's reply is {kind(data)}, not an object")
    choices = data.get("choices")
    if not choices:
        snippet = printable(body[:200].decode("utf-8", "replace")) if body else kind(choices)
        raise HostileReply(f"no choices in the answer: {snippet}")
    if not isinstance(choices, list):
        raise HostileReply(f"choices is {kind(choices)}, not a list")
    choice = choices[0]
    if not isinstance(choice, dict):
        raise HostileReply(f"choices[0] is {kind(choice)}, not an object")
    message = choice.get("message")
    if message is None:
        raise HostileReply("the first choice has no message")
    if not isinstance(message, dict):
        raise HostileReply(f"choices[0].message is {kind(message)}, not an object")
    text = _optional_string(message.get("content"), "choices[0].message.content")
    # vLLM and SGLang with a reasoning parser; newer vLLM also names it ``reasoning``
    reasoning = _optional_string(message.get("reasoning_content"), "choices[0].message.reasoning_content")
    if reasoning is None:
        reasoning = _optional_string(message.get("reasoning"), "choices[0].message.reasoning")
    refusal = _optional_string(message.get("refusal"), "choices[0].message.refusal")
    finish = _optional_string(choice.get("finish_reason"), "choices[0].finish_reason")
    usage = data.get("usage")
    if usage is None:
        usage = {}
    if not isinstance(usage, dict):
        raise HostileReply(f"usage is {kind(usage)}, not an object")
    return ServedReply(
        text=text or "",
        finish_reason=finish,
        refusal=refusal,
        prompt_tokens=_token_count(usage.get("prompt_tokens"), "usage.prompt_tokens"),
        completion_tokens=_token_count(usage.get("completion_tokens"), "usage.completion_tokens"),
        reasoning=reasoning,
    )


def _optional_string(value: Any, path: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise HostileReply(f"{path} is {kind(value)}, not a string")


def _token_count(value: Any, path: str) -> int:
    if value is None:
        return 0
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        if 0 <= value <= MAX_TOKEN_COUNT:
            return value
        raise HostileReply(f"{path} is {kind(value)}, not a token count from 0 to {MAX_TOKEN_COUNT:,}")
    raise HostileReply(f"{path} is {kind(value)}, not a token count")


def kind(value: Any) -> str:
    """A short description of a JSON value for an error message (never its whole text)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({'true' if value else 'false'})"
    if isinstance(value, int):
        if value.bit_length() > 64:
            return f"a number of about {int(value.bit_length() * math.log10(2)) + 1:,} digits"
        return f"the number {value}"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "infinity" if value > 0 else "minus infinity"
        return f"the number {value!r}"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


