"""The offline server and the chat client under abuse: trickling sockets, huge and hostile
bodies, dead and misleading endpoints, long Retry-After waits, and the API key kept secret.

Everything talks to 127.0.0.1 only. Each verdict is read from outside the thing tested: the
sockets the server closed and when, the threads alive in this process, the requests a stub
endpoint saw and when, the bytes written to disk.
"""

from __future__ import annotations

import http.client
import json
import os
import select
import socket
import statistics
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import openai
import pytest

from mase import protocol
from mase.cli import main
from mase.llm import ChatClient, Faults, LLMConfig, OfflineServer, offline_server
from mase.runner import evaluate

ENV = "mase/SearchRescue-v0"
HELLO = [{"role": "user", "content": "say something"}]
CHAT = b"POST /v1/chat/completions HTTP/1.1\r\nHost: loopback\r\n"


def echo(messages):
    return "you said: " + messages[-1]["content"]


def chat(server, timeout=5.0):
    llm = openai.OpenAI(base_url=server.base_url, api_key="offline", max_retries=0, timeout=timeout)
    return llm.chat.completions.create(model="m", messages=HELLO).choices[0].message.content


def raw_exchange(server, data):
    """Send ``data`` on a fresh connection; the status and the JSON body of the reply."""
    with socket.create_connection((server.host, server.port), timeout=10) as sock:
        sock.sendall(data)
        response = http.client.HTTPResponse(sock)
        response.begin()
        return response.status, json.loads(response.read())


def post(body):
    return CHAT + f"Content-Length: {len(body)}\r\n\r\n".encode() + body


def until(condition, timeout=5.0):
    """Wait for ``condition()`` (the server's state a scenario starts from), polling."""
    give_up = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < give_up, "the server never got there"
        time.sleep(0.005)


def gone(sock):
    """Whether the server has closed ``sock`` (EOF or reset), without waiting."""
    if not select.select([sock], [], [], 0)[0]:
        return False
    try:
        return sock.recv(1) == b""
    except (ConnectionResetError, BlockingIOError):
        return True


# -- trickling clients ----------------------------------------------------------------------


def test_trickling_clients_pin_no_threads_and_meet_their_deadline():
    """200 sockets each send a byte every 0.2 s, with no idle timeout at all: only the
    per-request deadline can end them, and meanwhile other requests are answered."""
    deadline = 1.0
    before = threading.active_count()
    with OfflineServer(echo, idle_timeout=None, request_timeout=deadline) as server:
        assert chat(server) == "you said: say something"
        head = CHAT + b"X-Pad: " + b"a" * 1000
        socks = {}
        for _ in range(200):
            sock = socket.create_connection((server.host, server.port), timeout=5)
            socks[sock] = time.monotonic()
        closed, latencies, threads = {}, [], []
        sent = 0
        try:
            while len(closed) < len(socks) and time.monotonic() - min(socks.values()) < 5:
                for sock, opened in socks.items():
                    if sock in closed:
                        continue
                    if gone(sock):
                        closed[sock] = time.monotonic() - opened
                        continue
                    try:
                        sock.send(head[sent : sent + 1])
                    except OSError:
                        closed[sock] = time.monotonic() - opened
                sent += 1
                start = time.perf_counter()
                assert chat(server) == "you said: say something"
                latencies.append(time.perf_counter() - start)
                threads.append(threading.active_count() - before)
                time.sleep(0.2)
        finally:
            for sock in socks:
                sock.close()
    assert len(closed) == 200  # every trickler was cut off...
    assert min(closed.values()) >= deadline - 0.05  # ...not before its deadline
    assert max(closed.values()) < deadline + 1.5  # ...nor long after it
    assert max(threads) <= 3  # the reading thread and a worker or two, not one per socket
    assert len(latencies) >= 4 and statistics.median(latencies) < 0.5


def test_a_full_server_drops_the_longest_waiting_connection_for_a_newcomer():
    with OfflineServer(echo, max_connections=5) as server:
        stalled = []
        for i in range(5):
            sock = socket.create_connection((server.host, server.port), timeout=5)
            sock.sendall(CHAT + b"Content-Le")
            stalled.append(sock)
            # read by the server in this order, so that "longest waiting" is the first
            until(lambda i=i: sum(bool(c.buffer) for c in server._httpd._open.values()) == i + 1)
        try:
            assert chat(server) == "you said: say something"
            # the first stalled connection made room; the rest are still open
            stalled[0].settimeout(5)
            assert stalled[0].recv(1) == b""
            assert not any(gone(sock) for sock in stalled[2:])
        finally:
            for sock in stalled:
                sock.close()


def test_a_full_server_whose_connections_are_all_answered_refuses_with_503():
    release = threading.Event()

    def slow(messages):
        release.wait(10)
        return "done"

    with OfflineServer(slow, max_connections=2) as server:
        results = []
        busy = [threading.Thread(target=lambda: results.append(chat(server))) for _ in range(2)]
        for thread in busy:
            thread.start()
        try:
            # both requests have reached the model
            until(lambda: server._httpd._idle_workers == 0 and len(server._httpd._threads) == 2)
            status, error = raw_exchange(server, post(json.dumps({"messages": HELLO}).encode()))
        finally:
            release.set()
            for thread in busy:
                thread.join(10)
    assert status == 503 and error["error"]["code"] == "503"
    assert results == ["done", "done"]


def test_a_client_that_does_not_read_its_reply_holds_the_only_worker_no_longer_than_the_deadline():
    def model(messages):
        return "x" * 30_000_000 if messages[-1]["content"] == "long" else "short"

    with OfflineServer(model, workers=1, request_timeout=0.5) as server:
        body = json.dumps({"messages": [{"role": "user", "content": "long"}]}).encode()
        with socket.create_connection((server.host, server.port)) as greedy:
            greedy.sendall(post(body))  # and never reads the 30 MB reply
            until(lambda: server._httpd._threads and server._httpd._idle_workers == 0)
            start = time.monotonic()
            assert chat(server, timeout=5) == "short"
            waited = time.monotonic() - start
    assert waited < 2.0  # the worker was freed at the reply's deadline


def test_request_bytes_held_at_once_are_bounded(monkeypatch):
    from mase.llm import connections

    monkeypatch.setattr(connections, "MAX_BUFFERED_BYTES", 100_000)
    with OfflineServer(echo) as server:
        first = socket.create_connection((server.host, server.port), timeout=5)
        part = CHAT + b"Content-Length: 90000\r\n\r\n" + b" " * 60_000
        first.sendall(part)
        until(lambda: server._httpd._buffered == len(part))  # held by the server
        status, error = raw_exchange(server, part)
        first.sendall(b" " * 30_000)  # the first one is still read, and answered
        response = http.client.HTTPResponse(first)
        response.begin()
        first.close()
        assert chat(server) == "you said: say something"  # its bytes were let go
    assert status == 503 and "request bytes" in error["error"]["message"]
    assert response.status == 400  # 90,000 spaces are not JSON, but they were all read


def test_a_client_that_asks_before_its_body_is_told_to_go_on():
    body = json.dumps({"messages": HELLO}).encode()
    head = CHAT + f"Expect: 100-continue\r\nContent-Length: {len(body)}\r\n\r\n".encode()
    with OfflineServer(echo) as server:
        with socket.create_connection((server.host, server.port), timeout=5) as sock:
            sock.sendall(head)
            assert sock.recv(100).startswith(b"HTTP/1.1 100 Continue\r\n\r\n")
            sock.sendall(body)
            reply = b""
            while b"you said" not in reply:
                reply += sock.recv(65536)
    assert b" 200 OK" in reply


def test_a_request_head_over_64_kb_is_refused_unread():
    with OfflineServer(echo) as server:
        status, error = raw_exchange(server, CHAT + b"X-Pad: " + b"a" * 70_000)
        assert chat(server) == "you said: say something"
    assert status == 431 and "head" in error["error"]["message"]


# -- huge and hostile bodies ----------------------------------------------------------------


def test_a_huge_prompt_costs_a_few_json_parses_not_a_scan_per_header():
    """100,000 messages in the protocol's layout (3.4 MB): the task's model reads them in a
    time of the order of parsing the JSON, where a scan per header per message took 90x."""
    text = f"{protocol.NEW_OBSERVATION} it rains {protocol.ACTION_REQUEST}"
    messages = [{"role": "user", "content": text[: 34 - 2]} for _ in range(100_000)]
    body = json.dumps({"model": "m", "messages": messages}).encode()
    assert len(body) > 3_000_000
    start = time.perf_counter()
    json.loads(body)
    parse = time.perf_counter() - start
    with offline_server(ENV) as server:
        start = time.perf_counter()
        status, reply = raw_exchange(server, post(body))
        answered = time.perf_counter() - start
    assert status == 200 and reply["choices"][0]["message"]["content"]
    # a scan per header per message took 90x the parse; on a loaded 2-core machine an answer
    # took 31x (1.46 s against 0.047 s), so the bound leaves room for load and none for the scan
    assert answered < 40 * parse + 1.0, (answered, parse)


HOSTILE = {
    "nan-temperature": (b'"temperature": NaN', "NaN is not a JSON number"),
    "infinite-temperature": (b'"temperature": Infinity', "Infinity is not a JSON number"),
    "overflowing-temperature": (b'"temperature": 1e999', "too large for a float"),
    "temperature-out-of-range": (b'"temperature": 7', "temperature must be between 0.0 and 2.0"),
    "negative-top-p": (b'"top_p": -0.5', "top_p must be between"),
    "zero-max-tokens": (b'"max_tokens": 0', "max_tokens must be at least 1"),
    "fractional-max-tokens": (b'"max_tokens": 2.5', "max_tokens must be a whole number"),
    "max-tokens-as-text": (b'"max_tokens": "10"', "max_tokens must be a whole number"),
    "5000-digit-n": (b'"n": ' + b"9" * 5000, "not JSON"),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_non_finite_and_out_of_range_settings_are_400(name):
    field, says = HOSTILE[name]
    body = b'{"model": "m", "messages": [{"role": "user", "content": "hi"}], ' + field + b"}"
    with OfflineServer(echo) as server:
        status, error = raw_exchange(server, post(body))
        assert chat(server) == "you said: say something"  # and it goes on serving
    assert status == 400 and error["error"]["type"] == "invalid_request_error"
    assert says in error["error"]["message"]


@pytest.mark.parametrize("where", ["content", "role", "model", "a key"])
def test_lone_surrogates_are_400(where):
    request = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    if where == "content":
        request["messages"][0]["content"] = "hi \ud800 there"
    elif where == "role":
        request["messages"][0]["role"] = "us\udfffer"
    elif where == "model":
        request["model"] = "m\ud83d"
    else:
        request["x\udc00"] = 1
    body = json.dumps(request).encode()  # ensure_ascii spells them "\ud800"
    assert b"\\ud" in body or b"\\udc" in body
    with OfflineServer(echo) as server:
        status, error = raw_exchange(server, post(body))
    assert status == 400 and "lone surrogate" in error["error"]["message"]
    if where == "content":
        assert error["error"]["param"] == "messages[0].content"


def test_a_surrogate_pair_is_text_and_is_answered():
    body = json.dumps({"messages": [{"role": "user", "content": "\U0001f600"}]}).encode()
    with OfflineServer(echo) as server:
        status, reply = raw_exchange(server, post(body))
    assert status == 200 and reply["choices"][0]["message"]["content"] == "you said: \U0001f600"


# -- endpoints that are dead, unnamed or silent ---------------------------------------------


def closed_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def mase_eval(*args, env=None):
    command = [sys.executable, "-m", "mase.cli", "eval", ENV, "--team", "llm", "--episodes", "3"]
    return subprocess.run(
        [*command, "--no-cache", *args], capture_output=True, text=True, timeout=120, env=env
    )


def mase_eval_here(capsys, *args):
    """``mase eval`` in this process (imports paid already): status, stderr, seconds taken."""
    start = time.monotonic()
    status = main(["eval", ENV, "--team", "llm", "--episodes", "3", "--no-cache", *args])
    return status, capsys.readouterr().err, time.monotonic() - start


def test_a_dead_endpoint_is_one_line_and_exit_2_before_any_episode(tmp_path, capsys):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    status, err, took = mase_eval_here(capsys, "--base-url", url, "--out", str(tmp_path / "run"))
    # the old way: 26 failed calls with their retries, 35 s for two episodes
    assert status == 2 and took < 5
    assert err == f"mase eval: error: cannot reach the model endpoint {url}: [Errno 111] " + (
        "Connection refused\n"
    )
    assert not (tmp_path / "run" / "episodes.jsonl").exists()  # no episode ran


def test_a_silent_endpoint_is_given_up_within_the_timeout(capsys):
    with socket.create_server(("127.0.0.1", 0)) as silent:  # accepts, never answers
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/v1"
        status, err, took = mase_eval_here(capsys, "--base-url", url, "--timeout", "1")
    assert status == 2 and took < 5
    assert err == f"mase eval: error: the model endpoint {url} did not answer in 1 s\n"


@pytest.mark.parametrize("via", ["flag", "environment"])
def test_a_base_url_without_a_scheme_is_named_as_such(via, monkeypatch, capsys):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    args = ()
    if via == "flag":
        args = ("--base-url", "127.0.0.1:8000/v1")
    else:
        monkeypatch.setenv("OPENAI_BASE_URL", "127.0.0.1:8000/v1")
    status, err, _ = mase_eval_here(capsys, *args)
    assert status == 2
    assert err == (
        "mase eval: error: the base URL '127.0.0.1:8000/v1' has no scheme: write "
        "http://127.0.0.1:8000/v1\n"
    )


# -- Retry-After ------------------------------------------------------------------------------


class RateLimited(ThreadingHTTPServer):
    """A stub endpoint: the first ``limited`` chat requests get 429 with ``Retry-After``."""

    def __init__(self, retry_after, limited=1, header="retry-after"):
        self.retry_after, self.limited, self.header = retry_after, limited, header
        self.arrivals = []
        super().__init__(("127.0.0.1", 0), _StubHandler)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def base_url(self):
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.shutdown()
        self.server_close()


class _StubHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _reply(self, status, payload, headers=()):
        data = json.dumps(payload).encode()
        self.send_response(status)
        for name, value in (("Content-Type", "application/json"), *headers):
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self._reply(404, {"error": {"message": "no models here"}})

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        stub = self.server
        stub.arrivals.append(time.monotonic())
        if len(stub.arrivals) <= stub.limited:
            error = {"error": {"message": "slow down", "type": "rate_limit_error"}}
            self._reply(429, error, [(stub.header, str(stub.retry_after))])
            return
        message = {"role": "assistant", "content": "fine"}
        self._reply(
            200,
            {
                "id": "x",
                "object": "chat.completion",
                "created": 0,
                "model": "m",
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            },
        )


def test_retry_after_is_honoured_up_to_the_cap():
    with RateLimited(retry_after=1) as stub:
        client = ChatClient(LLMConfig(base_url=stub.base_url, cache=False, max_retry_wait=5))
        completion = client.complete(HELLO)
    assert completion.error is None and completion.text == "fine"
    assert len(stub.arrivals) == 2 and stub.arrivals[1] - stub.arrivals[0] >= 0.95


@pytest.mark.parametrize(
    "header, value",
    [
        ("retry-after", 3600),
        ("retry-after-ms", 3_600_000),
        ("retry-after", "Wed, 21 Oct 2099 07:28:00 GMT"),
    ],  # fmt: skip
)
def test_a_wait_over_the_cap_fails_the_call_at_once_saying_so(header, value):
    with RateLimited(retry_after=value, limited=99, header=header) as stub:
        client = ChatClient(LLMConfig(base_url=stub.base_url, cache=False, max_retry_wait=5))
        start = time.monotonic()
        completion = client.complete(HELLO)
        took = time.monotonic() - start
    assert took < 2 and len(stub.arrivals) == 1  # asked once, not waited for
    assert completion.error.startswith("RateLimitError: the server asked to wait")
    assert "max_retry_wait" in completion.error


# -- one cache, two servers on one URL --------------------------------------------------------


def test_two_servers_on_one_url_do_not_share_replies(tmp_path):
    cache = tmp_path / "cache.sqlite"
    with offline_server(ENV) as task_model:
        port = task_model.port
        config = LLMConfig(base_url=task_model.base_url, cache=cache)
        first = ChatClient(config).complete(HELLO)
    assert first.error is None and not first.cached
    with OfflineServer(echo, port=port) as double:  # a test double on the same URL
        assert double.base_url == config.base_url
        second = ChatClient(config).complete(HELLO)
    assert not second.cached and second.text == "you said: say something"
    with OfflineServer(echo, port=port, faults=Faults(long_rate=1.0)) as faulty:
        third = ChatClient(config).complete(HELLO)
        assert faulty.base_url == config.base_url
    assert not third.cached and len(third.text) == 100_000
    with offline_server(ENV, port=port):  # the first server again: its replies replay
        again = ChatClient(config).complete(HELLO)
    assert again.cached and again.text == first.text


# -- the API key stays secret -----------------------------------------------------------------

CANARY = "sk-canary-0123456789abcdef"


class EchoesTheKey(RateLimited):
    """A stub endpoint whose every error body repeats the Authorization header it got."""

    def __init__(self, status):
        self.status = status
        super().__init__(retry_after=0, limited=0)
        self.RequestHandlerClass = _KeyEchoHandler


class _KeyEchoHandler(_StubHandler):
    def do_GET(self):
        said = f"bad key {self.headers.get('Authorization')}"
        self._reply(self.server.status, {"error": {"message": said, "type": "auth"}})

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        self.server.arrivals.append(time.monotonic())
        self.do_GET()


def files_holding(root, secret):
    return [p for p in root.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


@pytest.mark.parametrize("status", [401, 500])
def test_the_key_is_in_no_record_cache_log_or_error(status, tmp_path, capfd, caplog):
    caplog.set_level("DEBUG")
    with EchoesTheKey(status) as stub:
        llm = LLMConfig(base_url=stub.base_url, api_key=CANARY, cache=tmp_path / "c.sqlite",
                        max_retries=1, max_errors=1)  # fmt: skip
        summary = evaluate(ENV, "llm", episodes=1, seed=0, llm=llm, out=tmp_path / "run")
        completion = ChatClient(llm).complete(HELLO)
    assert summary["failed"] == 1
    assert "bad key Bearer [API key]" in completion.error  # the server did echo it
    assert CANARY not in completion.error and CANARY not in json.dumps(summary)
    assert files_holding(tmp_path, CANARY) == []
    out, err = capfd.readouterr()
    assert CANARY not in out + err + caplog.text


def test_the_key_is_in_nothing_a_working_run_writes(tmp_path, capfd, caplog):
    caplog.set_level("DEBUG")
    with offline_server(ENV) as server:
        llm = LLMConfig(base_url=server.base_url, api_key=CANARY, cache=tmp_path / "c.sqlite")
        summary = evaluate(ENV, "llm", episodes=1, seed=0, llm=llm, out=tmp_path / "run",
                           record=True)  # fmt: skip
    assert summary["failed"] == 0
    assert files_holding(tmp_path, CANARY) == [] and CANARY not in repr(llm)
    out, err = capfd.readouterr()
    assert CANARY not in out + err + caplog.text


def test_mase_eval_says_a_refused_key_without_the_key(monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    with EchoesTheKey(401) as stub:
        status, err, _ = mase_eval_here(capsys, "--base-url", stub.base_url)
    assert status == 2 and "refused the API key (401)" in err
    assert CANARY not in err


def test_the_mase_command_exits_2_on_a_dead_endpoint():
    url = f"http://127.0.0.1:{closed_port()}/v1"
    result = mase_eval("--base-url", url)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith(f"mase eval: error: cannot reach the model endpoint {url}")


def test_the_local_models_slot_front_pins_no_thread_per_stalled_client(tmp_path):
    from mase.llm.local import LocalServer

    gguf = tmp_path / "tiny.Q4_0.gguf"
    gguf.write_bytes(b"GGUF")
    stub = (sys.executable, str(Path(__file__).with_name("stub_llama_server.py")))
    with LocalServer(gguf, command=stub, slots=2, threads=2) as server:
        before = threading.active_count()
        port = int(server.base_url.rsplit(":", 1)[1].split("/")[0])
        stalled = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(100)]
        try:
            for sock in stalled:
                sock.sendall(CHAT + b"Content-Le")
            client = ChatClient(LLMConfig(base_url=server.base_url, cache=False, timeout=30))
            reply = client.complete(HELLO)
            assert threading.active_count() - before <= 3  # not one per stalled socket
        finally:
            for sock in stalled:
                sock.close()
    assert reply.error is None and reply.text.startswith("tiny.Q4_0 on port")


def test_a_placeholder_key_cuts_no_words_out_of_errors():
    with OfflineServer(echo, faults=Faults(error_rate_500=1.0)) as server:
        client = ChatClient(LLMConfig(base_url=server.base_url, cache=False, max_retries=0))
        assert client.config.resolved_api_key() == "offline"
        error = client.complete(HELLO).error
    assert "injected by the offline server" in error


def test_a_password_in_the_base_url_is_never_printed(tmp_path):
    """A URL's user:password is a secret like a key: the dead endpoint's line leaves it out."""
    url = "http://someone:hunter2-canary@127.0.0.1:9/v1"
    done = subprocess.run(
        [sys.executable, "-m", "mase.cli", "eval", "mase/SearchRescue-v0", "--team", "llm",
         "--episodes", "1", "--base-url", url, "--model", "m", "--out", str(tmp_path / "run")],
        capture_output=True, text=True, timeout=60,
        env={**os.environ, "OPENAI_API_KEY": "sk-test-key-0123456789"},
    )  # fmt: skip

    assert done.returncode == 2
    assert "127.0.0.1:9" in done.stderr + done.stdout
    assert "hunter2-canary" not in done.stderr + done.stdout
