"""An offline, OpenAI-compatible model server on loopback, with misbehaviour on request.

The "model" is a responder: any callable that takes the request's messages (a list of
``{"role": ..., "content": ...}`` dicts) and returns the reply text. The server speaks enough
of the OpenAI HTTP API for the official ``openai`` client: ``POST /v1/chat/completions``
(plain JSON, or server-sent ``chat.completion.chunk`` events with ``"stream": true``) and
``GET /v1/models``. It uses only the standard library, so demos and tests run the whole LLM
path with no key and no network.

:class:`Faults` makes the server misbehave the way hosted endpoints do (latency, 429 and 500
errors, hangs, broken JSON, empty and huge replies), from a seeded generator so that a test
sees the same sequence every run.

A broken or hostile client gets an OpenAI-shaped ``400`` naming what is wrong with its request
(NaN or out-of-range settings and lone surrogates included; ``411`` for a chunked body, ``413``
for one over :data:`~mase.llm.wire.MAX_BODY_BYTES`, 16 MB; ``431`` for a head over 64 KB).
Requests are read by one thread and answered by a bounded pool (:mod:`mase.llm.connections`),
so stalled or trickling clients cannot pin the server's threads: a whole request must arrive
within ``request_timeout`` seconds of its first byte, a connection silent for ``idle_timeout``
seconds is dropped, and at most ``max_connections`` are open. Under 200 sockets trickling a
byte every 2-3 s the server holds 2 threads (the old thread per connection held 202), cuts
each trickler off 10 s after its first byte, and answers other requests in a median 3.4 ms
(``benchmarks/server_abuse.py``). It starts and stops in about 3 ms. uvicorn was not taken
for this: its timeouts restart on every byte, so it would need the same deadline (see
:mod:`mase.llm.connections`), and it is not among MASE's dependencies.

Token counts in ``usage`` are whitespace-separated words, not a real tokenizer's tokens: they
are for bookkeeping code paths, not for cost estimates.
"""

from __future__ import annotations

import dataclasses
import json
import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from mase.llm.connections import Connections, RequestHandler
from mase.llm.wire import MAX_BODY_BYTES, BadRequest, Reply, chat_request, error_object, pad

#: The model: request messages in, reply text out.
Responder = Callable[[list[dict[str, Any]]], str]


@dataclass(frozen=True)
class Faults:
    """How the server misbehaves; every fault is off by default.

    Rates are probabilities per chat request, drawn in the order the fields are listed from
    one generator seeded with ``seed``; the first fault drawn wins. ``GET /v1/models`` never
    fails.

    Attributes:
        latency: seconds added before every chat reply.
        error_rate_429: chance of ``429 Too Many Requests`` (a rate limit).
        error_rate_500: chance of ``500 Internal Server Error``.
        timeout_rate: chance of hanging for ``timeout_seconds`` before answering, so that a
            client with a shorter timeout gives up.
        timeout_seconds: how long a hang lasts (cut short when the server stops).
        malformed_rate: chance of a ``200`` whose body is not valid JSON (or, when streaming,
            an event whose data is not).
        empty_rate: chance of an empty reply (content ``""``).
        long_rate: chance of the reply padded to ``long_chars`` characters.
        long_chars: length of a long reply.
        retry_after: seconds the 429 and 500 answers ask the client to wait (sent as
            ``retry-after-ms``, which the ``openai`` client honours), so retries are quick.
        seed: seed of the fault generator.
    """

    latency: float = 0.0
    error_rate_429: float = 0.0
    error_rate_500: float = 0.0
    timeout_rate: float = 0.0
    timeout_seconds: float = 60.0
    malformed_rate: float = 0.0
    empty_rate: float = 0.0
    long_rate: float = 0.0
    long_chars: int = 100_000
    retry_after: float = 0.01
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("error_rate_429", "error_rate_500", "timeout_rate", "malformed_rate",
                     "empty_rate", "long_rate"):  # fmt: skip
            rate = getattr(self, name)
            if not 0.0 <= rate <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1, got {rate}")
        for name in ("latency", "timeout_seconds", "retry_after"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative, got {getattr(self, name)}")


#: Fault kinds in the order they are drawn, with the rate field of each.
_FAULT_RATES = (
    ("429", "error_rate_429"),
    ("500", "error_rate_500"),
    ("timeout", "timeout_rate"),
    ("malformed", "malformed_rate"),
    ("empty", "empty_rate"),
    ("long", "long_rate"),
)


class OfflineServer:
    """An OpenAI-compatible chat server on loopback whose model is ``responder``.

    Args:
        responder: the model; takes the request's messages and returns the reply text.
        host: address to bind; loopback by default, so nothing outside the machine can call.
        port: port to bind; 0 picks a free one (read it back from :attr:`port`).
        faults: misbehaviour to inject (default: none).
        model: the model id listed by ``/v1/models``.
        idle_timeout: seconds a connection may go without sending (or taking) a byte before
            the server drops it; a request cut short this way is answered ``400``. ``None``
            waits forever.
        request_timeout: seconds from a request's first byte until all of it (head and body)
            must have arrived, however steadily it trickles; one late is dropped (its head
            not all here) or answered ``400`` (its body cut short). A reply, too, must be
            taken by the client within as many seconds of its first byte. ``None``: no
            deadline.
        max_connections: connections open at once; at the bound, the one waiting longest for
            its request is dropped for a newcomer (``503`` only when all are being answered).
        workers: requests answered at once, each by a thread started when first needed; more
            wait their turn (a hanging fault holds a worker for ``timeout_seconds``).

    Example:
        >>> import openai
        >>> with OfflineServer(lambda messages: "hello") as server:
        ...     client = openai.OpenAI(base_url=server.base_url, api_key="offline")
        ...     reply = client.chat.completions.create(
        ...         model="mase-offline", messages=[{"role": "user", "content": "hi"}]
        ...     )
        >>> reply.choices[0].message.content
        'hello'
    """

    def __init__(
        self,
        responder: Responder,
        host: str = "127.0.0.1",
        port: int = 0,
        faults: Faults | None = None,
        model: str = "mase-offline",
        idle_timeout: float | None = 10.0,
        request_timeout: float | None = 10.0,
        max_connections: int = 512,
        workers: int = 64,
    ):
        for name, value in (("idle_timeout", idle_timeout), ("request_timeout", request_timeout)):
            if value is not None and not value > 0:  # NaN too
                raise ValueError(f"{name} must be positive or None, got {value}")
        for name, value in (("max_connections", max_connections), ("workers", workers)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a whole number of 1 or more, got {value!r}")
        self.responder = responder
        self.idle_timeout = idle_timeout
        self.request_timeout = request_timeout
        self.faults = faults or Faults()
        self.model = model
        self._rng = random.Random(self.faults.seed)
        self._rng_lock = threading.Lock()
        # set on stop(), so that a request hanging in timeout mode ends with the server
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        handler = _handler_class(self)

        self._httpd = Connections(
            (host, port), handler.answer, idle_timeout, request_timeout, max_connections, workers
        )

    @property
    def host(self) -> str:
        """The bound address."""
        return self._httpd.server_address[0]

    @property
    def port(self) -> int:
        """The bound port."""
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        """The URL to give an OpenAI client, ending in ``/v1``."""
        return f"http://{self.host}:{self.port}/v1"

    def start(self) -> OfflineServer:
        """Serve in a background thread; returns the server."""
        if self._thread is not None:
            raise RuntimeError("the server is already running; call stop() first")
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            name="mase-offline-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve in the calling thread until :meth:`stop` or Ctrl-C."""
        try:
            self._httpd.serve_forever()
        finally:
            self._stopping.set()
            self._httpd.server_close()

    def stop(self) -> None:
        """Stop serving and release the port."""
        self._stopping.set()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join()
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> OfflineServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- used by the handler ----------------------------------------------------------------

    def draw_fault(self) -> str | None:
        """The fault for the next chat request (None: behave)."""
        with self._rng_lock:
            for kind, field_name in _FAULT_RATES:
                rate = getattr(self.faults, field_name)
                # draw even when the rate is 0 so each fault's sequence is independent of the
                # other rates' settings
                if self._rng.random() < rate:
                    return kind
        return None

    def hang(self, seconds: float) -> None:
        """Wait ``seconds``, or less if the server stops meanwhile."""
        self._stopping.wait(seconds)


def _handler_class(server: OfflineServer) -> type[_ChatHandler]:
    """A request handler bound to ``server``, whose ``Server`` header names its model."""

    class Handler(_ChatHandler):
        offline = server
        server_version = f"mase-offline ({_name_of(server.responder)}; {_faults_of(server)})"

    return Handler


def _name_of(responder: Responder) -> str:
    """Where the responder's code lives: ``module.qualname`` of it (or of its class).

    A function's first line is added, so that two lambdas of one module are two models.
    """
    owner = responder if hasattr(responder, "__qualname__") else type(responder)
    name = f"{getattr(owner, '__module__', '?')}.{getattr(owner, '__qualname__', '?')}"
    code = getattr(owner, "__code__", None)
    return f"{name}:{code.co_firstlineno}" if code is not None else name


def _faults_of(server: OfflineServer) -> str:
    """The faults in a few words: a faulty server is another endpoint to the response cache."""
    faults = dataclasses.asdict(server.faults)
    changed = {k: v for k, v in faults.items() if v != getattr(Faults, k)}
    return "no faults" if not changed else ", ".join(f"{k}={v}" for k, v in changed.items())


class _ChatHandler(RequestHandler):
    """Answers the OpenAI routes; everything else is a 404 in OpenAI's error shape."""

    offline: OfflineServer

    def version_string(self) -> str:
        """The ``Server`` header: the model, without the Python version (a cache fingerprint)."""
        return self.server_version

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Answer http.server's own refusals (garbled request line, ...) as OpenAI errors."""
        message = message or self.responses.get(code, ("refused",))[0]
        self._error(code, message, "invalid_request_error", close=True)

    # -- routes -----------------------------------------------------------------------------

    def do_GET(self) -> None:  # the name http.server dispatches to
        """``GET /v1/models``."""
        if self.path.rstrip("/") != "/v1/models":
            self._error(404, f"no route GET {self.path}", "not_found_error")
            return
        model = {"id": self.offline.model, "object": "model", "created": 0, "owned_by": "mase"}
        # the cache's fingerprint of this endpoint reads it (with the Server header)
        model["responder"] = _name_of(self.offline.responder)
        self._json(200, {"object": "list", "data": [model]})

    def do_POST(self) -> None:  # the name http.server dispatches to
        """``POST /v1/chat/completions``."""
        try:
            body = self._read_body()
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._error(404, f"no route POST {self.path}", "not_found_error")
                return
            request = chat_request(body)
        except BadRequest as exc:
            self._error(exc.status, str(exc), "invalid_request_error", exc.param, exc.close)
            return
        messages = request["messages"]
        faults = self.offline.faults
        if faults.latency:
            time.sleep(faults.latency)
        fault = self.offline.draw_fault()
        if fault == "429":
            self._error(429, "rate limit injected by the offline server", "rate_limit_error")
            return
        if fault == "500":
            self._error(500, "server error injected by the offline server", "server_error")
            return
        if fault == "timeout":
            self.offline.hang(faults.timeout_seconds)
        try:
            content = self.offline.responder(messages)
        except Exception as exc:  # the model's bug is the client's 500, not a dead server
            self._error(500, f"the responder failed: {exc!r}", "server_error")
            return
        if fault == "empty":
            content = ""
        elif fault == "long":
            content = pad(content, faults.long_chars)
        reply = Reply(request.get("model") or self.offline.model, content, messages)
        if request.get("stream"):
            include_usage = bool((request.get("stream_options") or {}).get("include_usage"))
            self._stream(reply.chunks(include_usage), malformed=fault == "malformed")
        elif fault == "malformed":
            self._send(200, json.dumps(reply.completion())[:-7].encode(), "application/json")
        else:
            self._json(200, reply.completion())

    # -- reading ----------------------------------------------------------------------------

    def _read_body(self) -> bytes:
        """The request body, all ``Content-Length`` bytes of it.

        Raises:
            BadRequest: no usable length, or the body ended or stalled (no byte for the idle
                timeout) before its end.
        """
        if "Transfer-Encoding" in self.headers:
            message = "chunked request bodies are not read; send a Content-Length"
            raise BadRequest(message, 411, close=True)
        text = self.headers.get("Content-Length", "0").strip()
        # int() would also take "-1", "+1" and "1_000"
        if not (text.isascii() and text.isdigit()):
            message = f"Content-Length must be a whole number of bytes, got {text!r}"
            raise BadRequest(message, close=True)
        length = int(text)
        if length > MAX_BODY_BYTES:
            message = f"the body ({length} bytes) is over the limit of 16 MB"
            raise BadRequest(message, 413, close=True)
        # the reading thread has buffered the whole request, or all of it that came in time
        body = self.rfile.read(length)
        if len(body) < length:
            message = (
                f"the body ended or stalled after {len(body)} of the {length} bytes its "
                "Content-Length announced"
            )
            raise BadRequest(message, close=True)
        return body

    # -- writing ----------------------------------------------------------------------------

    def _send(
        self, status: int, data: bytes, content_type: str, headers: dict | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _json(self, status: int, payload: dict, headers: dict | None = None) -> None:
        self._send(status, json.dumps(payload).encode(), "application/json", headers)

    def _error(
        self, status: int, message: str, kind: str, param: str | None = None, close: bool = False
    ) -> None:
        headers = {}
        if status in (429, 500):
            headers["retry-after-ms"] = str(int(self.offline.faults.retry_after * 1000))
        if close:  # http.server then closes the connection after this reply
            headers["Connection"] = "close"
        self._json(status, error_object(status, message, kind, param), headers)

    def _stream(self, chunks: Iterator[dict], malformed: bool) -> None:
        # no length is known up front, so the stream ends by closing the connection
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        for i, chunk in enumerate(chunks):
            data = json.dumps(chunk)
            if malformed and i == 1:
                data = data[:-7]
            self.wfile.write(f"data: {data}\n\n".encode())
            self.wfile.flush()
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
