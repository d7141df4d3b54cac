"""The cached chat client, prices and config, through the real ``openai`` client on loopback."""

from __future__ import annotations

import asyncio
import doctest
import hashlib
import importlib
import json
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import pytest

import mase
from mase.llm import (
    DEFAULT_PRICES,
    ChatClient,
    Completion,
    Faults,
    LLMConfig,
    LLMUnavailable,
    OfflineServer,
    ResponseCache,
    cost_usd,
    load_prices,
    offline_server,
    price_table,
    request_key,
)
from mase.llm.config import REPLY_TOKENS, is_loopback


class Counting:
    """An echo model that counts the requests that reach it."""

    def __init__(self):
        self.calls = 0
        self._lock = threading.Lock()

    def __call__(self, messages):
        with self._lock:
            self.calls += 1
        return "echo: " + messages[-1]["content"]


def ask(text, system=None):
    messages = [{"role": "user", "content": text}]
    return [{"role": "system", "content": system}, *messages] if system else messages


@pytest.fixture(scope="module")
def server():
    model = Counting()
    with OfflineServer(model) as srv:
        srv.model_calls = model
        yield srv


def make_client(server, tmp_path, **config):
    config.setdefault("cache", tmp_path / "cache.sqlite")
    return ChatClient(LLMConfig(base_url=server.base_url, **config))


# -- the cache ----------------------------------------------------------------------------------


def test_cache_miss_then_hit_replays_tokens_and_latency(server, tmp_path):
    client = make_client(server, tmp_path)
    first = client.complete(ask("one two three", system="be brief"))
    assert first == Completion(
        "echo: one two three", 5, 4, first.latency_s, cached=False, error=None
    )
    assert first.latency_s > 0
    again = client.complete(ask("one two three", system="be brief"))
    assert again.cached and again.error is None
    assert (again.text, again.prompt_tokens, again.completion_tokens, again.latency_s) == (
        first.text,
        first.prompt_tokens,
        first.completion_tokens,
        first.latency_s,
    )
    assert (client.requests, client.cache_hits, len(client.cache)) == (1, 1, 1)


def test_key_covers_model_messages_and_params():
    messages = ask("hi", system="rules")
    base = request_key("m", messages, {"temperature": 0.0, "max_tokens": None})
    variants = [
        request_key("m2", messages, {"temperature": 0.0, "max_tokens": None}),
        request_key("m", ask("hi!", system="rules"), {"temperature": 0.0, "max_tokens": None}),
        request_key("m", ask("hi", system="rules."), {"temperature": 0.0, "max_tokens": None}),
        request_key("m", ask("hi"), {"temperature": 0.0, "max_tokens": None}),
        request_key("m", messages, {"temperature": 0.7, "max_tokens": None}),
        request_key("m", messages, {"temperature": 0.0, "max_tokens": 64}),
        request_key("m", messages, {"temperature": 0.0, "max_tokens": None}, "http://a/v1"),
        request_key("m", messages, {"temperature": 0.0, "max_tokens": None}, "http://b/v1"),
    ]
    assert len({base, *variants}) == 1 + len(variants)
    swapped = [{"content": m["content"], "role": m["role"]} for m in messages]
    assert request_key("m", swapped, {"max_tokens": None, "temperature": 0.0}) == base


def test_client_cache_separates_models_and_params(server, tmp_path):
    messages = ask("same prompt")
    clients = [
        make_client(server, tmp_path),
        make_client(server, tmp_path, model="other-model"),
        make_client(server, tmp_path, temperature=0.5),
        make_client(server, tmp_path, max_tokens=32),
    ]
    for client in clients:
        assert not client.complete(messages).cached
        assert client.complete(messages).cached
    assert len(clients[0].cache) == 4


def test_cached_rerun_sends_zero_requests(server, tmp_path):
    prompts = [ask(f"question {i}", system="rules") for i in range(6)]
    first = make_client(server, tmp_path)
    before = server.model_calls.calls
    replies = [first.complete(p) for p in prompts]
    assert server.model_calls.calls - before == 6
    first.close()

    rerun = make_client(server, tmp_path)  # a new process would open the file the same way
    before = server.model_calls.calls
    again = [rerun.complete(p) for p in prompts]
    assert server.model_calls.calls == before
    assert (rerun.requests, rerun.cache_hits) == (0, 6)
    strip = [(c.text, c.prompt_tokens, c.completion_tokens, c.latency_s) for c in replies]
    assert strip == [(c.text, c.prompt_tokens, c.completion_tokens, c.latency_s) for c in again]


def test_no_cache_sends_every_call(server):
    client = ChatClient(LLMConfig(base_url=server.base_url, cache=False))
    assert client.cache is None
    client.complete(ask("x"))
    assert not client.complete(ask("x")).cached
    assert (client.requests, client.cache_hits) == (2, 0)


def test_sixteen_threads_share_one_client(server, tmp_path):
    client = make_client(server, tmp_path)
    distinct = [ask(f"prompt {i}") for i in range(16)]
    jobs = [distinct[(7 * i) % len(distinct)] for i in range(16 * 4)]
    before = server.model_calls.calls
    with ThreadPoolExecutor(16) as pool:
        replies = list(pool.map(client.complete, jobs))
    assert [r.text for r in replies] == ["echo: " + j[-1]["content"] for j in jobs]
    assert all(r.error is None for r in replies)
    assert client.requests + client.cache_hits == len(jobs)
    assert client.requests == server.model_calls.calls - before
    assert len(client.cache) == len(distinct)
    # every distinct prompt is in the cache now: a second pass is all hits
    with ThreadPoolExecutor(16) as pool:
        assert all(r.cached for r in pool.map(client.complete, jobs))


def test_cache_keys_on_the_endpoint(tmp_path):
    # two servers behind one model id are two models: neither answers for the other
    messages = ask("same prompt, same model id")
    with OfflineServer(lambda m: "from a") as a, OfflineServer(lambda m: "from b") as b:
        first = make_client(a, tmp_path).complete(messages)
        second = make_client(b, tmp_path).complete(messages)
        again = make_client(b, tmp_path).complete(messages)
    assert (first.text, first.cached) == ("from a", False)
    assert (second.text, second.cached) == ("from b", False)
    assert (again.text, again.cached) == ("from b", True)
    assert LLMConfig(base_url="http://x/v1/").endpoint() == "http://x/v1"


def test_endpoint_follows_the_openai_clients_defaults(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert LLMConfig().endpoint() == "https://api.openai.com/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://models.example/v1")
    assert LLMConfig().endpoint() == "http://models.example/v1"
    assert LLMConfig(base_url="http://127.0.0.1:1/v1").endpoint() == "http://127.0.0.1:1/v1"


def test_empty_replies_are_never_cached(tmp_path):
    with OfflineServer(Counting(), faults=Faults(empty_rate=1.0)) as srv:
        client = make_client(srv, tmp_path)
        replies = [client.complete(ask("anything?")) for _ in range(2)]
    assert [(r.text, r.cached, r.error) for r in replies] == [("", False, None)] * 2
    assert len(client.cache) == 0 and client.requests == 2


@pytest.mark.parametrize("empty", ["", " \n\t "])
def test_a_healthy_endpoint_is_asked_again_after_an_empty_reply(tmp_path, empty):
    # the same endpoint, empty at first and healthy afterwards: the empty reply is not served
    # from the cache once the model answers again
    healthy = threading.Event()

    def flaky(messages):
        return "echo: " + messages[-1]["content"] if healthy.is_set() else empty

    with OfflineServer(flaky) as srv:
        assert make_client(srv, tmp_path).complete(ask("hello")).text == empty
        healthy.set()
        client = make_client(srv, tmp_path)
        reply = client.complete(ask("hello"))
        assert (reply.text, reply.cached) == ("echo: hello", False)
        assert client.complete(ask("hello")).cached
    assert len(client.cache) == 1


def test_old_cache_files_open_and_their_entries_miss(tmp_path):
    # a file written before the key covered the endpoint: same table, keys without it
    path = tmp_path / "old.sqlite"
    messages = ask("from an old run")
    params = {"temperature": 0.0, "max_tokens": None}
    payload = {"model": "mase-offline", "messages": messages, "params": params}
    old_key = hashlib.sha256(
        json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    ).hexdigest()
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE responses (key TEXT PRIMARY KEY, model TEXT NOT NULL, reply TEXT NOT NULL, "
        "prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL, "
        "latency_s REAL NOT NULL, created REAL NOT NULL)"
    )
    db.execute("INSERT INTO responses VALUES (?, 'mase-offline', '', 1, 0, 0.1, 0)", (old_key,))
    db.commit()
    db.close()
    with OfflineServer(Counting()) as srv:
        client = make_client(srv, tmp_path, cache=path)
        reply = client.complete(messages)
        assert (reply.text, reply.cached) == ("echo: from an old run", False)
        assert client.complete(messages).cached
    assert len(client.cache) == 2  # the old entry stays, unused


class Surrogates:
    """A model whose replies hold a lone surrogate, recording the messages it is sent."""

    def __init__(self):
        self.seen = []

    def __call__(self, messages):
        self.seen.append(messages)
        return "half a pair: \ud800 and " + messages[-1]["content"]


@pytest.mark.parametrize("cache", [True, False])
def test_lone_surrogates_never_fail_a_call(tmp_path, cache):
    model = Surrogates()
    with OfflineServer(model) as srv:
        client = make_client(srv, tmp_path, **({} if cache else {"cache": False}))
        first = client.complete(ask("hi \udc80"))
        # the reply goes back to the model, as a retry prompt would send it
        chat = [*ask("hi \udc80"), {"role": "assistant", "content": first.text}, *ask("again")]
        second = client.complete(chat)
        again = client.complete(ask("hi \udc80"))
        from_async = asyncio.run(client.acomplete(ask("async \ud800")))
    assert first.error is None and first.text == "half a pair: \ufffd and hi \ufffd"
    assert second.error is None and second.text == "half a pair: \ufffd and again"
    assert from_async.text == "half a pair: \ufffd and async \ufffd"
    assert model.seen[0] == ask("hi \ufffd")  # sent as U+FFFD
    assert model.seen[1][1]["content"] == first.text
    assert again.cached == cache and again.text == first.text
    if cache:
        assert len(client.cache) == 3
        with ResponseCache(tmp_path / "cache.sqlite") as store:
            store.put("k", "m", "\ud800", 1, 1, 0.1)
            assert store.get("k").reply == "\ufffd"
    assert request_key("m", ask("\ud800"), {}) != request_key("m", ask("\ud801"), {})


def test_cache_file_is_shared_between_connections(tmp_path):
    path = tmp_path / "sub" / "c.sqlite"
    with ResponseCache(path) as a, ResponseCache(path) as b:
        a.put("k", "m", "hello", 3, 1, 0.5)
        a.put("k", "m", "second write is ignored", 9, 9, 9.0)
        assert tuple(b.get("k")) == ("hello", 3, 1, 0.5)
        assert len(b) == 1 and b.get("nope") is None


# -- errors and retries -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("faults", "error", "config"),
    [
        (Faults(error_rate_500=1.0, retry_after=0.001), "InternalServerError: ", {}),
        (Faults(error_rate_429=1.0, retry_after=0.001), "RateLimitError: ", {}),
        (Faults(malformed_rate=1.0), "JSONDecodeError: ", {}),
        (
            Faults(timeout_rate=1.0, timeout_seconds=5.0),
            "APITimeoutError: ",
            {"timeout": 0.2, "max_retries": 0},
        ),
    ],
)
def test_errors_after_the_clients_retries_come_back_as_errors(tmp_path, faults, error, config):
    with OfflineServer(Counting(), faults=faults) as srv:
        client = make_client(srv, tmp_path, **config)
        completion = client.complete(ask("hello"))
    assert completion.error.startswith(error)
    assert completion.text == "" and not completion.cached
    assert (completion.prompt_tokens, completion.completion_tokens) == (0, 0)
    assert len(client.cache) == 0  # errors are never cached
    assert client.requests == 1


def test_server_errors_are_retried_by_the_client(tmp_path):
    # the same seeded fault sequence: with no retries some calls fail, with the client's own
    # retries (and the server's retry-after-ms) every call gets through
    faults = Faults(error_rate_500=0.5, seed=3, retry_after=0.001)
    with OfflineServer(Counting(), faults=faults) as srv:
        plain = make_client(srv, tmp_path, cache=False, max_retries=0)
        outcomes = [plain.complete(ask(f"q{i}")).error for i in range(8)]
    assert any(outcomes) and not all(outcomes)
    with OfflineServer(Counting(), faults=faults) as srv:
        patient = make_client(srv, tmp_path, cache=False, max_retries=8)
        replies = [patient.complete(ask(f"q{i}")) for i in range(8)]
    assert [r.error for r in replies] == [None] * 8
    assert patient.requests == 8  # the client's retries are its own


def test_rate_limits_are_retried_by_the_client(tmp_path):
    faults = Faults(error_rate_429=0.6, seed=1, retry_after=0.001)
    with OfflineServer(Counting(), faults=faults) as srv:
        model = srv.responder
        client = make_client(srv, tmp_path, max_retries=10)
        replies = [client.complete(ask(f"q{i}")) for i in range(6)]
    assert [r.text for r in replies] == [f"echo: q{i}" for i in range(6)]
    assert model.calls == 6
    assert len(client.cache) == 6


def test_unreachable_server_is_a_connection_error(tmp_path):
    with OfflineServer(Counting()) as srv:
        url = srv.base_url  # the port is free again once the server stops
    client = ChatClient(LLMConfig(base_url=url, cache=False, max_retries=0))
    assert client.complete(ask("anyone?")).error.startswith("APIConnectionError: ")


# -- usage and prices ---------------------------------------------------------------------------


def test_usage_comes_from_the_response(server, tmp_path):
    completion = make_client(server, tmp_path).complete(ask("a b c d", system="x y"))
    assert (completion.prompt_tokens, completion.completion_tokens) == (6, 5)


def test_prices_costs_and_overrides(tmp_path):
    assert DEFAULT_PRICES["gpt-4o"] == (2.50, 10.00)
    assert DEFAULT_PRICES["gpt-4"] == (30.00, 60.00)
    assert cost_usd("gpt-4o-mini", 2_000_000, 1_000_000) == pytest.approx(0.30 + 0.60)
    assert cost_usd("gpt-4o-2024-08-06", 1_000_000, 0) == pytest.approx(2.50)  # a snapshot
    assert cost_usd("mase-offline", 10**6, 10**6) == 0.0
    assert cost_usd("my-local-llama", 10, 10) is None  # unknown is not free
    table = price_table({"my-local-llama": (1, 2), "gpt-4o": (0, 0)})
    assert cost_usd("my-local-llama", 10**6, 10**6, table) == pytest.approx(3.0)
    assert cost_usd("gpt-4o", 10**6, 10**6, table) == 0.0
    assert DEFAULT_PRICES["gpt-4o"] == (2.50, 10.00)  # the defaults are untouched

    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"house-model": [0.5, 1.5]}))
    assert load_prices(path) == {"house-model": (0.5, 1.5)}
    path.write_text(json.dumps({"house-model": [0.5]}))
    with pytest.raises(ValueError, match="house-model"):
        load_prices(path)


# -- async ---------------------------------------------------------------------------------------


def test_async_calls_share_the_cache_and_counters(server, tmp_path):
    client = make_client(server, tmp_path)

    async def many():
        return await asyncio.gather(*(client.acomplete(ask(f"async {i}")) for i in range(4)))

    replies = asyncio.run(many())
    assert [r.text for r in replies] == [f"echo: async {i}" for i in range(4)]
    assert client.requests == 4
    # a second event loop gets its own connections (an AsyncOpenAI belongs to one loop)
    again = asyncio.run(many())
    assert all(r.cached for r in again) and client.cache_hits == 4
    assert client.complete(ask("async 3")).cached

    async def fresh():
        return await client.acomplete(ask("only async"))

    assert asyncio.run(fresh()).text == "echo: only async"


def test_async_errors_come_back_as_errors(tmp_path):
    with OfflineServer(Counting(), faults=Faults(error_rate_500=1.0, retry_after=0.001)) as srv:
        client = make_client(srv, tmp_path, max_retries=1)
        completion = asyncio.run(client.acomplete(ask("hi")))
    assert completion.error.startswith("InternalServerError")


# -- configuration -------------------------------------------------------------------------------


@pytest.fixture
def clean_env(monkeypatch):
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "MASE_MODEL", "MASE_CACHE"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_config_from_env_and_precedence(clean_env, tmp_path):
    default = LLMConfig.from_env()
    assert (default.model, default.base_url, default.api_key, default.temperature) == (
        "mase-offline",
        None,
        None,
        0.0,
    )
    assert default.cache_path().name == "responses.sqlite"
    clean_env.setenv("OPENAI_BASE_URL", "https://models.example.com/v1")
    clean_env.setenv("OPENAI_API_KEY", "sk-test")
    clean_env.setenv("MASE_MODEL", "gpt-4o")
    clean_env.setenv("MASE_CACHE", str(tmp_path / "env.sqlite"))
    config = LLMConfig.from_env()
    assert (config.base_url, config.api_key, config.model) == (
        "https://models.example.com/v1",
        "sk-test",
        "gpt-4o",
    )
    assert config.cache_path() == tmp_path / "env.sqlite"
    assert LLMConfig().cache_path() == tmp_path / "env.sqlite"  # None means $MASE_CACHE
    explicit = LLMConfig.from_env(model="gpt-4.1", cache=False, base_url=None, max_retries=5)
    assert (explicit.model, explicit.cache_path(), explicit.max_retries) == ("gpt-4.1", None, 5)
    assert explicit.base_url == "https://models.example.com/v1"  # None is "not given"
    assert "sk-test" not in repr(config)
    clean_env.setenv("MASE_CACHE", "off")
    assert LLMConfig.from_env().cache_path() is None and LLMConfig().cache_path() is None
    with pytest.raises(TypeError, match="temprature"):
        LLMConfig.from_env(temprature=0.5)
    with pytest.raises(ValueError, match="max_errors"):
        LLMConfig(max_errors=0)


def test_missing_key_is_reported_at_first_use(clean_env):
    assert is_loopback("http://127.0.0.1:8000/v1") and is_loopback("http://localhost/v1")
    assert is_loopback("http://[::1]:80/v1") and not is_loopback("https://api.openai.com/v1")
    assert LLMConfig(base_url="http://localhost:1/v1").resolved_api_key() == "offline"
    client = ChatClient(LLMConfig(base_url="https://models.example.com/v1", cache=False))
    with pytest.raises(LLMUnavailable, match="OPENAI_API_KEY"):
        client.complete(ask("hi"))
    assert client.requests == 0
    clean_env.setenv("OPENAI_API_KEY", "sk-from-env")
    assert LLMConfig(base_url="https://x.example/v1").resolved_api_key() == "sk-from-env"


def test_shared_clients_per_config(tmp_path):
    config = LLMConfig(base_url="http://127.0.0.1:9/v1", cache=tmp_path / "s.sqlite")
    assert ChatClient.shared(config) is ChatClient.shared(config.replace())
    assert ChatClient.shared(config) is not ChatClient.shared(config.replace(model="other"))


def test_offline_server_for_a_task():
    env = mase.make("mase/SearchRescue-v0")
    with offline_server(env) as srv:
        client = ChatClient(LLMConfig(base_url=srv.base_url, cache=False))
        reply = client.complete(ask("no rules here"))
    assert reply.text.startswith("Action selection: inspect bomb")
    by_id = offline_server("mase/SearchRescue-v0")
    by_id.stop()  # bound but never started
    assert by_id.responder is srv.responder
    with pytest.raises(ValueError, match="language_model"):
        offline_server(SimpleNamespace(unwrapped=SimpleNamespace(language_model=None)))


@pytest.mark.parametrize(
    "name", ["mase.llm", "mase.llm.config", "mase.llm.cache", "mase.llm.usage", "mase.agents.llm"]
)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


# -- overhead -----------------------------------------------------------------------------------


# -- slow servers: token limits per kind of request, no retry of a timed-out request -----------


class Slow(Counting):
    """A model that takes ``seconds`` to answer (a local model generating a long reply)."""

    def __init__(self, seconds):
        super().__init__()
        self.seconds = seconds

    def __call__(self, messages):
        time.sleep(self.seconds)
        return super().__call__(messages)


def test_a_request_that_timed_out_is_not_sent_again(tmp_path):
    """The server may still be working on it: a retry would queue behind it (one slot)."""
    model = Slow(0.8)
    with OfflineServer(model) as srv:
        client = make_client(srv, tmp_path, timeout=0.2, max_retries=3)
        completion = client.complete(ask("hello"))
        time.sleep(1.0)  # any retry would have reached the model by now
    assert completion.error.startswith("APITimeoutError")
    assert model.calls == 1


def test_a_refused_connection_is_retried_and_then_recorded(tmp_path):
    with OfflineServer(Counting()) as srv:
        url = srv.base_url
    client = ChatClient(LLMConfig(base_url=url, cache=False, max_retries=2))
    start = time.perf_counter()
    completion = client.complete(ask("hello"))
    assert completion.error.startswith("APIConnectionError")
    assert time.perf_counter() - start > 0.5  # two waits before giving up


def test_each_kind_of_request_has_its_own_token_limit(tmp_path):
    client = ChatClient(LLMConfig(cache=False, base_url="http://127.0.0.1:9/v1"))
    limits = {kind: client._body(ask("x"), kind)["max_tokens"] for kind in REPLY_TOKENS}
    assert limits == REPLY_TOKENS and limits["answer"] < limits["action"] < limits["code"]
    assert client._body(ask("x"), "something new")["max_tokens"] == REPLY_TOKENS["action"]
    tight = ChatClient(LLMConfig(cache=False, max_tokens=80, reply_tokens={"answer": 16}))
    assert tight._body(ask("x"), "answer")["max_tokens"] == 80  # max_tokens wins
    own = ChatClient(LLMConfig(cache=False, reply_tokens={"answer": 16}))
    assert own._body(ask("x"), "answer")["max_tokens"] == 16
    with pytest.raises(ValueError, match="token limits"):
        LLMConfig(max_tokens=0)


def test_the_token_limit_is_part_of_the_cache_key(server, tmp_path):
    client = make_client(server, tmp_path)
    first = client.complete(ask("hello"), "action")
    assert client.complete(ask("hello"), "action").cached
    assert not client.complete(ask("hello"), "answer").cached  # another limit, another reply
    assert first.text


def test_a_cache_scope_lets_a_model_on_a_new_port_replay_its_replies(tmp_path):
    cache = tmp_path / "cache.sqlite"
    with OfflineServer(Counting()) as first:
        scoped = LLMConfig(base_url=first.base_url, cache=cache, cache_scope="local:model.gguf")
        assert ChatClient(scoped).complete(ask("hello")).error is None
    with OfflineServer(Counting()) as second:  # another port
        moved = scoped.replace(base_url=second.base_url)
        assert ChatClient(moved).complete(ask("hello")).cached
        unscoped = moved.replace(cache_scope=None)
        assert not ChatClient(unscoped).complete(ask("hello")).cached  # the URL is the scope
