"""Real servers for the ``openai`` backend's tests: llama-cpp-python's OpenAI-compatible server, and a scripted one.

The scripted server is a genuine HTTP server (stdlib, in a thread, on 127.0.0.1) rather than a mock, so the
backend's whole stack (SDK, HTTP client, connection pool) meets real failures: status codes, headers, bodies that
are not JSON, and connections that close.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

Reply = tuple[int, Mapping[str, str], bytes]
"""One scripted answer: status, headers, body."""


def free_port() -> int:
    """A port nothing listens on right now (the kernel picks it; tests bind it a moment later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# ------------------------------------------------------------------------------------------- scripted server
def json_reply(status: int, body: Any, headers: Mapping[str, str] | None = None) -> Reply:
    return status, {"Content-Type": "application/json", **(headers or {})}, json.dumps(body).encode()


def raw_reply(status: int, body: bytes, content_type: str = "application/json", **headers: str) -> Reply:
    return status, {"Content-Type": content_type, **headers}, body


def completion_reply(text: str = "ok", prompt_tokens: int = 3, completion_tokens: int = 1) -> Reply:
    """A well-formed chat completion, as an OpenAI server sends it."""
    return json_reply(200, {
        "id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()), "model": "scripted",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    })


def error_reply(status: int, message: str, **headers: str) -> Reply:
    return json_reply(status, {"error": {"message": message, "type": "test_error"}}, headers)


class ScriptedServer:
    """Answers the n-th chat-completion POST with ``script[n]`` (the last entry repeats), and counts.

    ``hits`` counts chat-completion requests (the reachability probe's ``GET /models`` is answered but not
    counted); ``hit_times`` says when each arrived; ``open_connections`` is how many client connections are open
    now, so a test can see that a closed model leaves none behind.
    """

    def __init__(self, script: Sequence[Reply] | Callable[[int], Reply], owned_by: str | None = None) -> None:
        self.script = script
        self.owned_by = owned_by  # what GET /models says owns the model (a server's kind), if anything
        self.hits = 0
        self.hit_times: list[float] = []
        self.bodies: list[dict[str, Any]] = []
        self.open_connections = 0
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="scripted-server", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> ScriptedServer:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def reply(self, body: bytes) -> Reply:
        with self._lock:
            n = self.hits
            self.hits += 1
            self.hit_times.append(time.monotonic())
            try:
                self.bodies.append(json.loads(body))
            except ValueError:
                self.bodies.append({})
        if callable(self.script):
            return self.script(n)
        return self.script[min(n, len(self.script) - 1)]

    def connection(self, delta: int) -> None:
        with self._lock:
            self.open_connections += delta


def _handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as real servers do, so pooled connections are exercised

        def setup(self) -> None:
            super().setup()
            server.connection(+1)

        def finish(self) -> None:
            try:
                super().finish()
            finally:
                server.connection(-1)

        def do_GET(self) -> None:
            model = {"id": "scripted", "object": "model"}
            if server.owned_by is not None:
                model["owned_by"] = server.owned_by
            self._send(json_reply(200, {"object": "list", "data": [model]}))

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self._send(server.reply(body))

        def _send(self, reply: Reply) -> None:
            status, headers, body = reply
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


# ------------------------------------------------------------------------------------------- llama.cpp server
class LlamaServer:
    """llama-cpp-python's OpenAI-compatible server as a child process on 127.0.0.1, which a test may kill.

    Its output goes to ``log``; uvicorn's access lines there let a test count the completions it has served.

    One thread by default (``CORRAL_TEST_LLAMA_THREADS`` overrides): llama.cpp's threads meet at a spinning barrier
    after every op, so two threads on two busy cores (an xdist worker, a benchmark) slow a 12-token answer from
    0.3 s to 45 s, measured; one thread costs little on a model this small and never waits for a sibling.
    """

    def __init__(self, gguf: Path, log: Path, port: int | None = None, threads: int | None = None,
                 n_ctx: int = 512) -> None:
        self.gguf = gguf
        self.log = log
        self.port = port or free_port()
        self.threads = threads or int(os.environ.get("CORRAL_TEST_LLAMA_THREADS", "1"))
        self.n_ctx = n_ctx
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, timeout: float = 60) -> LlamaServer:
        command = [
            sys.executable, "-m", "llama_cpp.server", "--model", str(self.gguf), "--host", "127.0.0.1",
            "--port", str(self.port), "--n_ctx", str(self.n_ctx), "--n_threads", str(self.threads),
            "--n_threads_batch", str(self.threads), "--verbose", "False",
        ]
        from corral.models import backend_environment

        # llama-cpp-python's server loads no backend of a portable build by itself: name the variant Corral chose
        env = {**os.environ, **backend_environment(), "PYTHONUNBUFFERED": "1"}
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                            env=env)
        self._wait_ready(timeout)
        return self

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(f"llama server exited with {self.process.returncode}: {self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}/models", timeout=1) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"llama server on port {self.port} not ready after {timeout:g} s: {self.log_tail()}")

    def served(self) -> int:
        """How many chat completions this server has answered with 200, over all its lives."""
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return text.count('"POST /v1/chat/completions HTTP/1.1" 200')

    def kill(self) -> None:
        """Crash it (SIGKILL): no graceful shutdown, in-flight requests just lose their connections."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        """Terminate, then kill if it lingers."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)

    def log_tail(self, lines: int = 15) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])


# ------------------------------------------------------------------------------------------- hostile server
DEEP_JSON = b"[" * 5000 + b"]" * 5000
"""JSON nested 5,000 deep: json.loads raises RecursionError on it."""


def chat_body(content: Any = "ok", usage: Any = None, finish_reason: Any = "stop",
              raw_usage: str | None = None) -> bytes:
    """A chat completion with ``content`` and ``usage`` as given (any JSON, NaN and Infinity included); ``raw_usage``
    puts text into the body as it is (a 5,000-digit integer, which Python's json cannot even write)."""
    body = {"id": "chatcmpl-hostile", "object": "chat.completion", "created": 0, "model": "hostile",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": finish_reason}]}
    if usage is not None:
        body["usage"] = usage
    text = json.dumps(body, allow_nan=True)
    if raw_usage is not None:
        text = text[:-1] + f', "usage": {raw_usage}}}'
    return text.encode()


HOSTILE_BODIES: dict[str, bytes] = {
    "content-list": chat_body([{"type": "text", "text": "hi"}]),
    "content-object": chat_body({"text": "hi"}),
    "content-number": chat_body(42),
    "usage-string": chat_body("ok", {"prompt_tokens": "12", "completion_tokens": 1}),
    "usage-infinity": chat_body("ok", {"prompt_tokens": float("inf"), "completion_tokens": 1}),
    "usage-nan": chat_body("ok", {"prompt_tokens": 3, "completion_tokens": float("nan")}),
    "usage-digits": chat_body("ok", raw_usage='{"prompt_tokens": ' + "9" * 5000 + ', "completion_tokens": 1}'),
    "usage-list": chat_body("ok", [1, 2]),
    "deep": DEEP_JSON,
    "deep-content": chat_body("ok")[:-1] + b', "extra": ' + DEEP_JSON + b"}",
    "not-json": b"\x00\xff<html>\x1b[2J definitely not json",
    "top-level-list": b"[1, 2, 3]",
    "choices-object": json.dumps({"choices": {"0": {"message": {"content": "hi"}}}}).encode(),
    "error-message-list": json.dumps({"error": {"message": ["not", "words"]}}).encode(),
    "error-escapes": json.dumps({"error": {"message": "boom \x1b[2J\x1b]0;pwned\x07 done"}}).encode(),
    "escapes": chat_body("red \x1b[31malert\x1b[0m \x1b]0;pwned\x07 clear \x1b[2J \x9b1m done\ttab\nline [/bold]"),
}
"""What ``body:NAME`` sends: each breaks the chat-completions protocol in one way."""


class HostileServer:
    """A real HTTP server (stdlib, a thread, 127.0.0.1) that answers each chat-completion POST by the mode named in
    its request's ``model``, and ``GET .../models`` by the first segment of the URL's path (``/hang/v1`` hangs).

    Modes: ``body:NAME`` sends ``HOSTILE_BODIES[NAME]`` with status 200; ``error:NAME`` sends the same with status
    500; ``echo`` sends the user message itself as the body (so a test can send any bytes back through a real
    socket); ``hang`` never answers; ``drip`` promises 100 bytes and sends one every ``drip_every`` seconds;
    ``retry-after`` answers 429 with a huge ``Retry-After``; ``huge-declared`` promises a 1 GB body;
    ``huge-chunked`` streams chunks without end; ``gzip-bomb`` sends a small gzip body that decompresses to 20 MB.
    Handlers that wait stop at ``__exit__``.
    """

    def __init__(self, drip_every: float = 0.5) -> None:
        self.drip_every = drip_every
        self.stop = threading.Event()
        self.hits = 0
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _hostile_handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="hostile-server", daemon=True)

    def url(self, prefix: str = "") -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}{prefix}/v1"

    def __enter__(self) -> HostileServer:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)


@functools.cache
def _gzip_bomb() -> bytes:
    """20 KB of gzip that decompresses to 20 MB."""
    return gzip.compress(b" " * 20 * 2**20, compresslevel=9)


def _hostile_handler(server: HostileServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            if self.path.startswith("/hang/"):
                server.stop.wait(30)
                return
            self._send(200, json.dumps({"object": "list", "data": [{"id": "hostile", "object": "model"}]}).encode())

        def do_POST(self) -> None:
            request = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            with server._lock:
                server.hits += 1
            mode = str(request.get("model", ""))
            with contextlib.suppress(OSError):  # the client gave up (as it should): nothing more to send
                self._answer(mode, request)

        def _answer(self, mode: str, request: dict[str, Any]) -> None:
            if mode.startswith("body:"):
                self._send(200, HOSTILE_BODIES[mode.removeprefix("body:")])
            elif mode.startswith("error:"):
                self._send(500, HOSTILE_BODIES[mode.removeprefix("error:")])
            elif mode == "echo":
                self._send(200, request["messages"][0]["content"].encode("utf-8", "surrogatepass"))
            elif mode == "hang":
                server.stop.wait(30)
            elif mode == "drip":
                self._head(200, {"Content-Length": "100"})
                for byte in b'{"choices": [' + b" " * 87:
                    if server.stop.wait(server.drip_every):
                        return
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
            elif mode == "retry-after":
                self._send(429, b'{"error": {"message": "come back in 31 years"}}', {"Retry-After": "999999999"})
            elif mode == "huge-declared":
                self._head(200, {"Content-Length": str(10**9)})
                self.wfile.write(b'{"choices": [')
                server.stop.wait(30)
            elif mode == "huge-chunked":
                self._head(200, {"Transfer-Encoding": "chunked"})
                chunk = b" " * 65536
                while not server.stop.is_set():
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            elif mode == "gzip-bomb":
                self._send(200, _gzip_bomb(), {"Content-Encoding": "gzip"})
            else:
                self._send(400, b'{"error": {"message": "unknown hostile mode"}}')

        def _head(self, status: int, headers: Mapping[str, str]) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.flush()

        def _send(self, status: int, body: bytes, headers: Mapping[str, str] | None = None) -> None:
            self._head(status, {**(headers or {}), "Content-Length": str(len(body))})
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


# ------------------------------------------------------------------------------------------- the bundled model, served
def have_llama_server() -> bool:
    return all(importlib.util.find_spec(name) is not None for name in ("llama_cpp", "uvicorn", "fastapi"))


def smollm2_gguf() -> Path:
    from corral.models import ModelError, bundled_gguf

    try:
        return bundled_gguf()
    except ModelError as exc:
        pytest.skip(str(exc))


def served_smollm2(tmp_path_factory: pytest.TempPathFactory, n_ctx: int = 512) -> Iterator[LlamaServer]:
    """llama-cpp-python's server on the bundled model, for a fixture to yield from (skipped without the server
    extra), stopped when the fixture ends."""
    if not have_llama_server():
        pytest.skip("needs llama-cpp-python[server]")
    server = LlamaServer(smollm2_gguf(), tmp_path_factory.mktemp("llama") / "server.log", n_ctx=n_ctx).start()
    try:
        yield server
    finally:
        server.stop()
