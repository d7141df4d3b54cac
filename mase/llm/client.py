r"""One chat call, sync or async, through the official ``openai`` client, with a cache in front.

:class:`ChatClient` owns an ``openai.OpenAI`` client (and an ``openai.AsyncOpenAI`` per event
loop) configured with the timeout of its :class:`~mase.llm.config.LLMConfig`, and retries up to
its ``max_retries`` times what the server did not work on: rate limits and server errors
(status 408, 409, 429, 5xx; after ``Retry-After`` when the server says, else with exponential
backoff) and connections that failed or dropped. A request that timed out is not retried: the
server may still be generating its reply (a local server with one slot would then queue the
retry behind the abandoned request). A server that asks for a wait longer than the config's
``max_retry_wait`` is not waited for: the call fails at once, naming the wait asked. What still
fails comes back as a :class:`Completion` with ``error`` set, never as an exception, so an
agent can treat it as a bad reply; the API key never appears in it (nor in the cache), even
when the server echoes it back.

Errors and empty replies are not cached; the cache key includes the reply's token limit and the
endpoint's scope: the config's ``cache_scope`` if it gives one, else the URL with a fingerprint
of the server behind it (:meth:`ChatClient.fingerprint`: its ``Server`` header and the
``/models`` entry of the model asked for, read once per client). Two servers on one URL that
say they are different (another task's offline model, another responder, other faults) then
never answer from each other's replies; a server that tells nothing about itself (no
``/models``, or the model not listed) is scoped by its URL and header alone, and one that cannot
be reached is keyed apart from every fingerprinted scope (its calls fail anyway).
:meth:`ChatClient.check` is the one request a command makes before its first episode, so a
dead or refusing endpoint is reported in seconds, not after every episode's retries.

A call's token limit (``max_tokens``) is the config's for its kind of request
(:meth:`~mase.llm.config.LLMConfig.tokens_for`: an action, a belief, a probe's answer, a
program), so a model that rambles stops at a bound that fits the request.

Text that is not valid UTF-8 (a lone surrogate, which a JSON reply can spell as ``"\ud800"``)
never fails a call: replies and outgoing messages have it replaced by U+FFFD
(:func:`encodable_messages`), so what is cached, re-sent and recorded can always be written.

A client is safe to share between threads and between agents (:meth:`ChatClient.shared`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import email.utils
import hashlib
import json
import math
import random
import threading
import time
import weakref
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import openai
from openai.types.chat import ChatCompletion

from mase.llm.cache import ResponseCache, encodable, request_key
from mase.llm.config import LLMConfig, LLMUnavailable


@dataclass(frozen=True)
class Completion:
    """The outcome of one chat call.

    Attributes:
        text: the reply ("" when the call failed), lone surrogates replaced by U+FFFD.
        prompt_tokens: prompt tokens, from the response's ``usage`` (0 if it gave none).
        completion_tokens: completion tokens, likewise.
        latency_s: seconds the call took, the client's retries included; a cache hit reports
            the latency of the call that filled the cache, so records replay identically.
        cached: whether the reply came from the cache.
        error: ``"ErrorType: message"`` when the call failed after the client's retries.
    """

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    cached: bool = False
    error: str | None = None


#: What a failed call can raise once the client has given up: the API's own errors, a body
#: that is not JSON, and a response without the fields of a chat completion.
_CALL_ERRORS = (openai.APIError, json.JSONDecodeError)
#: The longest backoff before a retry when the server names no wait (seconds).
MAX_BACKOFF = 8.0
#: Seconds :meth:`ChatClient.check` and :meth:`ChatClient.fingerprint` wait for ``/models``.
CHECK_TIMEOUT = 5.0


class RetryTooLong(Exception):
    """The server asked for a wait before a retry that is longer than the config allows."""


def retryable(exc: Exception) -> bool:
    """Whether a failed call is worth another try: the server did not work on it.

    Rate limits and server errors (408, 409, 429, 5xx) and connections that failed or dropped
    are; a timeout is not (the server may still be generating the reply), nor a bad request
    or a body that is not JSON.
    """
    if isinstance(exc, openai.APITimeoutError):
        return False
    if isinstance(exc, openai.APIConnectionError):
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in (408, 409, 429) or exc.status_code >= 500
    return False


def asked_wait(exc: Exception) -> float | None:
    """The wait the server asked for before a retry, in seconds (``None``: it asked none).

    Read from ``retry-after-ms``, else ``retry-after`` in seconds or as an HTTP date; a value
    that is not a finite number of 0 or more counts as none.
    """
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None) or {}
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        text = headers.get(name)
        if text is None:
            continue
        try:
            wait = float(text) * scale
        except (TypeError, ValueError):
            wait = _http_date_wait(text) if name == "retry-after" else None
        if wait is not None and math.isfinite(wait) and wait >= 0:
            return wait
    return None


def _http_date_wait(text: str) -> float | None:
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - time.time())


def retry_wait(exc: Exception, attempt: int, most: float = 60.0) -> float:
    """Seconds to wait before retry ``attempt`` (0 first).

    The server's ``Retry-After`` (:func:`asked_wait`) if it gives one, else 0.5 s doubling per
    attempt up to :data:`MAX_BACKOFF`, less up to a quarter.

    Raises:
        RetryTooLong: the server asked for more than ``most`` seconds.
    """
    wait = asked_wait(exc)
    if wait is not None:
        if wait > most:
            raise RetryTooLong(
                f"the server asked to wait {wait:.0f} s before a retry (Retry-After), over the "
                f"limit of {most:.0f} s (max_retry_wait); gave up"
            )
        return wait
    return min(0.5 * 2**attempt, MAX_BACKOFF) * (1 - 0.25 * random.random())


class ChatClient:
    """Chat completions for one :class:`LLMConfig`, cached, counted, sync and async.

    Args:
        config: the endpoint, model, sampling parameters, retries and cache.

    Attributes:
        config: the configuration.
        cache: the response cache, or ``None`` when the config turns it off.
    """

    _shared: dict[str, ChatClient] = {}
    _shared_lock = threading.Lock()

    def __init__(self, config: LLMConfig):
        self.config = config
        path = config.cache_path()
        self.cache = ResponseCache(path) if path is not None else None
        self._scope: str | None = config.cache_scope  # else found at the first lookup
        self._params: dict[str, Any] = {
            "temperature": config.temperature,
            "max_tokens": config.max_tokens,
        }
        self._lock = threading.Lock()
        self._scope_lock = threading.Lock()
        self._requests = 0
        self._cache_hits = 0
        # built on first use: building one costs ~0.1 s (TLS certificates), and a missing key
        # is reported at the first call rather than when an agent is configured
        self._sync: openai.OpenAI | None = None
        # an AsyncOpenAI's connections belong to the event loop that opened them: one client
        # per loop, with the generator that closes it when the loop shuts down
        self._async: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, tuple] = (
            weakref.WeakKeyDictionary()
        )

    @classmethod
    def shared(cls, config: LLMConfig) -> ChatClient:
        """The process's client for ``config``: agents with equal configs share one."""
        key = json.dumps(dataclasses.asdict(config), sort_keys=True, default=str)
        with cls._shared_lock:
            client = cls._shared.get(key)
            if client is None:
                client = cls._shared[key] = cls(config)
            return client

    # -- counters -----------------------------------------------------------------------------

    @property
    def requests(self) -> int:
        """Requests sent to the model (cache misses; the client's own retries not counted)."""
        return self._requests

    @property
    def cache_hits(self) -> int:
        """Calls answered from the cache."""
        return self._cache_hits

    # -- calls --------------------------------------------------------------------------------

    def complete(self, messages: list[dict[str, Any]], kind: str = "action") -> Completion:
        """Ask the model for the reply to ``messages`` (a chat, oldest first).

        ``kind`` is the kind of request (``"action"``, ``"belief"``, ``"answer"``, ``"code"``
        and the others of :data:`mase.llm.config.REPLY_TOKENS`): it sets the reply's token
        limit. Lone surrogates in the messages are sent (and keyed) as U+FFFD.

        Raises:
            LLMUnavailable: no API key for a remote endpoint.
        """
        messages = encodable_messages(messages)
        body = self._body(messages, kind)
        key, hit = self._lookup(messages, body)
        if hit is not None:
            return hit
        client = self._sync_client()
        self._count_request()
        start = time.perf_counter()
        for attempt in range(self.config.max_retries + 1):
            try:
                response = client.post("/chat/completions", body=body, cast_to=ChatCompletion)
                return self._finish(key, response, time.perf_counter() - start)
            except _CALL_ERRORS as exc:
                if attempt == self.config.max_retries or not retryable(exc):
                    return self._failed(exc, time.perf_counter() - start)
                try:
                    wait = retry_wait(exc, attempt, self.config.max_retry_wait)
                except RetryTooLong as too_long:
                    return self._failed(too_long, time.perf_counter() - start, exc)
                time.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover

    async def acomplete(self, messages: list[dict[str, Any]], kind: str = "action") -> Completion:
        """:meth:`complete` for asyncio code: many calls can wait on the model at once."""
        if self.cache is not None and self._scope is None:
            # the fingerprint's one blocking request stays off the event loop
            await asyncio.to_thread(self.cache_scope)
        messages = encodable_messages(messages)
        body = self._body(messages, kind)
        key, hit = self._lookup(messages, body)
        if hit is not None:
            return hit
        client = await self._async_client()
        self._count_request()
        start = time.perf_counter()
        for attempt in range(self.config.max_retries + 1):
            try:
                response = await client.post("/chat/completions", body=body, cast_to=ChatCompletion)
                return self._finish(key, response, time.perf_counter() - start)
            except _CALL_ERRORS as exc:
                if attempt == self.config.max_retries or not retryable(exc):
                    return self._failed(exc, time.perf_counter() - start)
                try:
                    wait = retry_wait(exc, attempt, self.config.max_retry_wait)
                except RetryTooLong as too_long:
                    return self._failed(too_long, time.perf_counter() - start, exc)
                await asyncio.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover

    def check(self) -> str:
        """One ``GET /models`` to see that the endpoint answers; returns its fingerprint.

        Waits at most :data:`CHECK_TIMEOUT` seconds (or the config's timeout, if shorter) and
        retries nothing. Any answer but a refused key counts as up: a server without
        ``/models`` still serves chat.

        Raises:
            LLMUnavailable: no key for a remote endpoint; the endpoint cannot be reached,
                did not answer in time, or refused the key (401, 403). One line, naming the
                URL and never the key.
        """
        where = self.config.shown_endpoint()
        try:
            return self._read_fingerprint()
        except openai.APITimeoutError:
            wait = min(CHECK_TIMEOUT, self.config.timeout)
            message = f"the model endpoint {where} did not answer in {wait:g} s"
            raise LLMUnavailable(message) from None
        except openai.APIConnectionError as exc:
            cause = self._redact(str(exc.__cause__ or exc))
            raise LLMUnavailable(f"cannot reach the model endpoint {where}: {cause}") from None
        except openai.APIStatusError as exc:
            if exc.status_code not in (401, 403):
                return self._fingerprint_of(exc.response)
            raise LLMUnavailable(
                f"the model endpoint {where} refused the API key ({exc.status_code}): "
                "check OPENAI_API_KEY"
            ) from None

    def fingerprint(self) -> str:
        """What the server says it is: a hash of its ``Server`` header and the model's entry.

        The entry of ``/models`` whose id is the config's model, without ``created`` (llama.cpp
        and vLLM give the time of the request there); ``"unreachable"`` when ``/models`` gives
        no answer at all.
        """
        try:
            return self._read_fingerprint()
        except openai.APIStatusError as exc:
            return self._fingerprint_of(exc.response)
        except (openai.APIError, LLMUnavailable):
            return "unreachable"

    def cache_scope(self) -> str:
        """What the cache calls the endpoint: ``cache_scope``, else its URL and fingerprint."""
        if self._scope is None:
            with self._scope_lock:
                if self._scope is None:
                    self._scope = f"{self.config.endpoint()} {self.fingerprint()}"
        return self._scope

    def _read_fingerprint(self) -> str:
        wait = min(CHECK_TIMEOUT, self.config.timeout)
        client = self._sync_client().with_options(timeout=wait, max_retries=0)
        raw = client.models.with_raw_response.list()
        return self._fingerprint_of(raw.http_response, raw.parse())

    def _fingerprint_of(self, response: Any, page: Any = None) -> str:
        entry: dict[str, Any] = {}
        for model in getattr(page, "data", None) or []:
            if getattr(model, "id", None) == self.config.model:
                entry = model.model_dump(exclude={"created"})
                break
        headers = getattr(response, "headers", None) or {}
        seen = {"server": headers.get("server"), "model": entry}
        data = json.dumps(seen, sort_keys=True, default=str).encode("utf-8", "replace")
        return "fingerprint:" + hashlib.sha256(data).hexdigest()[:16]

    def _failed(self, exc: Exception, latency: float, cause: Exception | None = None) -> Completion:
        """A failed call's completion; the key is cut out of the message, wherever it came from."""
        name = type(cause or exc).__name__
        return Completion("", latency_s=latency, error=self._redact(f"{name}: {exc}"))

    def _redact(self, text: str) -> str:
        """``text`` with the API key cut out.

        A short placeholder key (``"offline"`` for a loopback server) is no secret, and
        cutting it would cut words out of messages: keys under 12 characters stay.
        """
        try:
            key = self.config.resolved_api_key()
        except LLMUnavailable:
            return text
        return text.replace(key, "[API key]") if len(key) >= 12 else text

    def close(self) -> None:
        """Close the HTTP connections and the cache."""
        if self._sync is not None:
            self._sync.close()
        if self.cache is not None:
            self.cache.close()

    # -- the parts ----------------------------------------------------------------------------

    def _lookup(
        self, messages: list[dict[str, Any]], body: dict[str, Any]
    ) -> tuple[str | None, Completion | None]:
        """The request's cache key and the cached completion, if any."""
        key = None
        if self.cache is not None:
            params = {**self._params, "max_tokens": body.get("max_tokens")}
            key = request_key(self.config.model, messages, params, self.cache_scope())
            stored = self.cache.get(key)
            if stored is not None:
                with self._lock:
                    self._cache_hits += 1
                return key, Completion(
                    stored.reply,
                    stored.prompt_tokens,
                    stored.completion_tokens,
                    stored.latency_s,
                    cached=True,
                )
        return key, None

    def _count_request(self) -> None:
        with self._lock:
            self._requests += 1

    def _body(self, messages: list[dict[str, Any]], kind: str = "action") -> dict[str, Any]:
        """The chat-completions request body.

        Sent with the client's ``post`` (its documented way to make any request, with the
        same retries, timeouts and errors) rather than ``chat.completions.create``, whose
        type-driven transform of the parameters cost half the client's CPU time per call
        (about 3 ms for a two-turn prompt) and capped concurrency on a small machine; MASE's
        messages are plain role/content dicts, which that transform leaves unchanged.
        """
        body: dict[str, Any] = {
            "model": self.config.model,
            "messages": messages,
            "temperature": self.config.temperature,
        }
        limit = self.config.tokens_for(kind)
        if limit is not None:
            body["max_tokens"] = limit
        return body

    def _finish(self, key: str | None, response: Any, latency: float) -> Completion:
        """A completion from the response; cached when the model said something.

        An empty (or blank) reply counts as a failure to the agents, and may be one passing
        fault of the endpoint: caching it would serve it for good, so it is not cached.
        """
        try:
            text = encodable(response.choices[0].message.content or "")
        except (AttributeError, IndexError, TypeError) as exc:
            return Completion("", latency_s=latency, error=f"MalformedResponse: {exc}")
        usage = getattr(response, "usage", None)
        prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
        if key is not None and text.strip():
            self.cache.put(key, self.config.model, text, prompt_tokens, completion_tokens, latency)
        return Completion(text, prompt_tokens, completion_tokens, latency)

    def _sync_client(self) -> openai.OpenAI:
        if self._sync is None:
            with self._lock:
                if self._sync is None:
                    self._sync = openai.OpenAI(**self._client_options())
        return self._sync

    async def _async_client(self) -> openai.AsyncOpenAI:
        loop = asyncio.get_running_loop()
        with self._lock:
            entry = self._async.get(loop)
            if entry is None:
                for old in [lp for lp in self._async if lp.is_closed()]:
                    del self._async[old]
                # the plain httpx client with the SDK's defaults: openai's own wrapper closes
                # itself on garbage collection by scheduling a task on whatever loop runs
                # then, which fails once the loop it belongs to is closed
                http = openai.DefaultAsyncHttpxClient(timeout=self.config.timeout)
                client = openai.AsyncOpenAI(**self._client_options(), http_client=http)
                entry = self._async[loop] = (client, _close_at_loop_end(client))
                fresh = True
            else:
                fresh = False
        if fresh:
            await entry[1].asend(None)
        return entry[0]

    def _client_options(self) -> dict[str, Any]:
        config = self.config
        return {
            "api_key": config.resolved_api_key(),
            "base_url": config.base_url,
            "timeout": config.timeout,
            "max_retries": 0,  # complete() retries what the server did not work on
        }

    def __repr__(self) -> str:
        return f"ChatClient(model={self.config.model!r}, base_url={self.config.shown_endpoint()!r})"


async def _close_at_loop_end(client: openai.AsyncOpenAI) -> AsyncIterator[None]:
    """Close ``client`` when its event loop shuts down.

    Started once and left suspended: ``asyncio.run`` closes every unfinished async generator
    of its loop (``loop.shutdown_asyncgens``) before closing the loop, which runs this
    ``finally`` while the loop can still close the client's connections.
    """
    try:
        yield
    finally:
        await client.close()


def encodable_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    r"""``messages`` with lone surrogates in their text replaced by U+FFFD.

    The same list when nothing needs replacing (the usual case, at the cost of one encode per
    message); otherwise a new list, the input left as it was.

    >>> chat = [{"role": "user", "content": "hi"}]
    >>> encodable_messages(chat) is chat
    True
    >>> fixed = encodable_messages([{"role": "user", "content": "hi \ud800"}])
    >>> fixed[0]["content"] == "hi \ufffd"
    True
    """
    fixed: list[dict[str, Any]] | None = None
    for i, message in enumerate(messages):
        content = message.get("content")
        if isinstance(content, str):
            text = encodable(content)
            if text is not content:
                fixed = fixed if fixed is not None else list(messages)
                fixed[i] = {**message, "content": text}
    return messages if fixed is None else fixed
