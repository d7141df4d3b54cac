"""The offline model server, through the real ``openai`` client on loopback."""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import weakref

import openai
import pytest

import mase
from mase.envs.search_rescue.language_model import SAFE_ACTION, respond
from mase.llm import Faults, OfflineServer
from mase.wrappers import MessageChannel

HELLO = [{"role": "user", "content": "say something"}]


def echo(messages):
    return "you said: " + messages[-1]["content"]


_CLIENTS = weakref.WeakKeyDictionary()


def client(server, retries=0, timeout=10.0):
    # one client per server: building one loads TLS certificates, ~0.1 s each time
    if server not in _CLIENTS:
        _CLIENTS[server] = openai.OpenAI(base_url=server.base_url, api_key="offline")
    return _CLIENTS[server].with_options(max_retries=retries, timeout=timeout)


def chat(server, messages=HELLO, **kwargs):
    return client(server, **kwargs).chat.completions.create(model="m", messages=messages)


def test_plain_completion_and_usage():
    with OfflineServer(echo) as server:
        assert server.base_url.startswith("http://127.0.0.1:")
        assert server.base_url.endswith("/v1")
        reply = chat(server, [{"role": "system", "content": "be brief"}, *HELLO])
    assert reply.choices[0].message.content == "you said: say something"
    assert reply.choices[0].finish_reason == "stop"
    assert reply.usage.prompt_tokens == 4  # whitespace words of every message
    assert reply.usage.completion_tokens == 4
    assert reply.usage.total_tokens == 8


def test_streaming_completion():
    with OfflineServer(echo) as server:
        stream = client(server).chat.completions.create(
            model="m", messages=HELLO, stream=True, stream_options={"include_usage": True}
        )
        chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "you said: say something"
    assert all(c.object == "chat.completion.chunk" for c in chunks)
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].usage.completion_tokens == 4


def test_models_route():
    with OfflineServer(echo, model="mase-offline") as server:
        models = client(server).models.list()
    assert [m.id for m in models.data] == ["mase-offline"]


def test_unknown_route_is_404():
    with OfflineServer(echo) as server:
        with pytest.raises(openai.NotFoundError):
            client(server).completions.create(model="m", prompt="hi")


def test_responder_failure_is_500():
    def broken(messages):
        raise RuntimeError("model bug")

    with OfflineServer(broken) as server:
        with pytest.raises(openai.InternalServerError, match="model bug"):
            chat(server)


@pytest.mark.parametrize(
    ("rate", "error"),
    [("error_rate_429", openai.RateLimitError), ("error_rate_500", openai.InternalServerError)],
)
def test_errors_raise_without_retries_and_pass_with_them(rate, error):
    with OfflineServer(echo, faults=Faults(**{rate: 1.0})) as server:
        with pytest.raises(error):
            chat(server)
    # seeded, so the draws below are the same every run: some calls fail, and a client that
    # retries gets through every time
    with OfflineServer(echo, faults=Faults(**{rate: 0.5}, seed=3)) as server:
        failures = 0
        for _ in range(6):
            try:
                chat(server)
            except error:
                failures += 1
        assert 0 < failures < 6  # both outcomes happen
        for _ in range(5):
            assert chat(server, retries=8).choices[0].message.content.startswith("you said")


def test_fault_draws_are_seeded():
    def outcomes(seed):
        with OfflineServer(echo, faults=Faults(error_rate_500=0.5, seed=seed)) as server:
            out = []
            for _ in range(12):
                try:
                    chat(server)
                    out.append("ok")
                except openai.InternalServerError:
                    out.append("500")
            return out

    assert outcomes(7) == outcomes(7)
    assert outcomes(7) != outcomes(8)


def test_timeout_raises_api_timeout_error():
    with OfflineServer(echo, faults=Faults(timeout_rate=1.0, timeout_seconds=30)) as server:
        with pytest.raises(openai.APITimeoutError):
            chat(server, timeout=0.3)
    # stop() ends the hanging request: leaving the block above did not wait 30 s


def test_malformed_body_raises():
    with OfflineServer(echo, faults=Faults(malformed_rate=1.0)) as server:
        with pytest.raises(ValueError):  # json.JSONDecodeError
            chat(server)
        stream = client(server).chat.completions.create(model="m", messages=HELLO, stream=True)
        with pytest.raises(ValueError):
            list(stream)


def test_empty_and_long_replies_arrive():
    with OfflineServer(echo, faults=Faults(empty_rate=1.0)) as server:
        reply = chat(server)
    assert reply.choices[0].message.content == ""
    assert reply.usage.completion_tokens == 0
    with OfflineServer(echo, faults=Faults(long_rate=1.0)) as server:
        reply = chat(server)
        stream = client(server).chat.completions.create(model="m", messages=HELLO, stream=True)
        streamed = "".join(c.choices[0].delta.content or "" for c in stream)
    content = reply.choices[0].message.content
    assert len(content) == 100_000
    assert content.startswith("you said: say something\n")
    assert streamed == content


def test_bad_request_body_is_400():
    with OfflineServer(echo) as server:
        request = urllib.request.Request(server.base_url + "/chat/completions", b"{not json")
        with pytest.raises(urllib.error.HTTPError) as caught:
            # no proxy: a proxy set in the environment must not see a loopback request
            urllib.request.build_opener(urllib.request.ProxyHandler({})).open(request, timeout=10)
        body = caught.value.read()  # while the server is up: under load the body may come late
    assert caught.value.code == 400
    assert json.loads(body)["error"]["type"] == "invalid_request_error"


def test_faults_are_validated():
    with pytest.raises(ValueError, match="error_rate_429"):
        Faults(error_rate_429=1.5)


# -- hostile and broken clients -------------------------------------------------------------

#: The idle timeout of the servers below: short, so a test of it stays fast.
IDLE = 0.3

CHAT = b"POST /v1/chat/completions HTTP/1.1\r\nHost: loopback\r\n"


def raw_exchange(server, data, *, end=False):
    """Send ``data`` on a fresh connection; the status, error body and headers of the reply.

    With ``end`` the client says it sends nothing more (half-close), as if its body ended.
    """
    with socket.create_connection((server.host, server.port), timeout=5) as sock:
        sock.sendall(data)
        if end:
            sock.shutdown(socket.SHUT_WR)
        response = http.client.HTTPResponse(sock)
        response.begin()
        return response.status, json.loads(response.read()), response.headers


def post(body, content_length=None):
    """A chat request with ``body``; its Content-Length is the body's unless given."""
    length = len(body) if content_length is None else content_length
    return CHAT + f"Content-Length: {length}\r\n\r\n".encode() + body


def chat_body(**fields):
    return json.dumps({"model": "m", "messages": HELLO, **fields}).encode()


def closed_by_server(sock):
    """Whether the server ended the connection (EOF or reset); raises at ``sock``'s timeout."""
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True


def test_stalled_connections_are_dropped_while_others_are_served():
    before = set(threading.enumerate())
    stalled = []
    with OfflineServer(echo, idle_timeout=IDLE) as server:
        client(server)  # built before the stalls: building one takes ~0.1 s
        try:
            for _ in range(100):  # slowloris: a request begun and never finished
                opened = time.monotonic()
                sock = socket.create_connection((server.host, server.port), timeout=5)
                sock.sendall(CHAT + b"Content-Le")
                stalled.append((sock, opened))
            assert chat(server, timeout=5.0).choices[0].message.content == "you said: say something"
            # the stalls hold no thread each: the reading thread and one worker serve them all
            assert len(set(threading.enumerate()) - before) <= 2
            for sock, opened in stalled:
                assert closed_by_server(sock)
                assert time.monotonic() - opened >= IDLE - 0.01  # not before the timeout
        finally:
            for sock, _ in stalled:
                sock.close()
    # the server's threads end with it
    left = set(threading.enumerate()) - before
    for thread in left:
        thread.join(timeout=5)
    assert not [t for t in left if t.is_alive()]


@pytest.mark.parametrize("end", [False, True], ids=["stalls", "ends"])
def test_body_shorter_than_its_content_length_is_400(end):
    with OfflineServer(echo, idle_timeout=IDLE) as server:
        status, error, headers = raw_exchange(server, post(b"{}", content_length=100), end=end)
    assert status == 400
    assert error["error"]["type"] == "invalid_request_error"
    assert "2 of the 100 bytes" in error["error"]["message"]
    assert headers["Connection"] == "close"


BAD_REQUESTS = {
    "too-many-headers": (CHAT + b"X-Pad: 1\r\n" * 101 + b"\r\n", 431, "Too many headers"),
    "content-length-abc": (CHAT + b"Content-Length: abc\r\n\r\n{}", 400, "Content-Length"),
    "content-length-negative": (CHAT + b"Content-Length: -1\r\n\r\n{}", 400, "Content-Length"),
    "too-large": (post(b"", content_length=17_000_000), 413, "16 MB"),
    "chunked": (CHAT + b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", 411, "chunked"),
    "nested": (post(b"[" * 100_000 + b"]" * 100_000), 400, "nests too deeply"),
    "not-json": (post(b"{not json"), 400, "not JSON"),
    "not-an-object": (post(b"[1, 2]"), 400, "JSON object, got a list"),
    "no-messages": (post(b'{"model": "m"}'), 400, "messages must be a non-empty list"),
    "empty-messages": (post(chat_body(messages=[])), 400, "got an empty list"),
    "messages-not-objects": (post(chat_body(messages=[1, 2, 3])), 400, "messages[0]"),
    "content-not-a-string": (
        post(chat_body(messages=[{"role": "user", "content": 5}])),
        400,
        "messages[0].content must be a string, got a number",
    ),
    "no-role": (post(chat_body(messages=[{"content": "hi"}])), 400, "messages[0].role"),
    "model-not-a-string": (post(chat_body(model=["m"])), 400, "model"),
    "stream-options-string": (
        post(chat_body(stream=True, stream_options="yes")),
        400,
        "stream_options must be an object, got a string",
    ),
    "stream-options-list": (post(chat_body(stream=True, stream_options=[1])), 400, "stream_opt"),
}


@pytest.mark.parametrize("name", list(BAD_REQUESTS))
def test_bad_requests_get_openai_errors_and_no_traceback(name, capfd):
    data, status, says = BAD_REQUESTS[name]
    with OfflineServer(echo, idle_timeout=IDLE) as server:
        got, error, _ = raw_exchange(server, data)
        # the server goes on serving
        assert chat(server).choices[0].message.content == "you said: say something"
    assert got == status
    assert error["error"]["type"] == "invalid_request_error"
    assert error["error"]["code"] == str(status)
    assert says in error["error"]["message"]
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.parametrize(
    "option, value",
    [
        ("idle_timeout", 0),
        ("request_timeout", -1),
        ("request_timeout", float("nan")),
        ("max_connections", 0),
        ("workers", 1.5),
    ],  # fmt: skip
)
def test_limits_are_validated(option, value):
    with pytest.raises(ValueError, match=option):
        OfflineServer(echo, **{option: value})


# -- the search-and-rescue scripted language model ----------------------------------------------


def play_episode(server, seed, witness=False):
    """Every seat asks the server, with the rules and its whole observation history."""
    llm = client(server)
    env = MessageChannel(mase.make("mase/SearchRescue-v0", witness=witness))
    env.reset(seed=seed)
    base = env.unwrapped
    history = {
        agent: [{"role": "system", "content": base.rules_text(agent)}] for agent in env.agents
    }
    for agent in env.agent_iter():
        _, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        history[agent].append({"role": "user", "content": base.observe_text(agent)})
        reply = llm.chat.completions.create(model="m", messages=history[agent])
        text = reply.choices[0].message.content
        history[agent].append({"role": "assistant", "content": text})
        env.step(text)
    return info["metrics"]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("witness", [False, True])
def test_scripted_language_model_team_defuses_everything(seed, witness):
    with OfflineServer(respond) as server:
        metrics = play_episode(server, seed, witness)
    assert metrics["score"] == 90
    if witness:
        assert metrics["valid_action_rate"] == 1.0
    else:
        # under the paper's rule a teammate's cut is not seen: a cut on the old sequence is
        # rejected (and the rejected agent inspects again), nothing else is invalid
        assert metrics["valid_action_rate"] >= 0.85


def test_reply_follows_the_paper_format():
    env = MessageChannel(mase.make("mase/SearchRescue-v0"))
    env.reset(seed=0)
    base = env.unwrapped
    agent = env.agent_selection
    text = respond(
        [
            {"role": "system", "content": base.rules_text(agent)},
            {"role": "user", "content": base.observe_text(agent)},
        ]
    )
    action, message = text.split("\n")
    assert action.startswith("Action selection: ")
    assert message.startswith(f"Message to Team: {agent.capitalize()} is in room ")
    parsed = base.read_action(agent, text)
    assert parsed.action is not None, parsed.reason


@pytest.mark.parametrize(
    "messages",
    [
        [{"role": "user", "content": "What is the capital of France?"}],
        [{"role": "system", "content": "You are Alpha, one of 3 agents (Alpha) and nothing else"}],
    ],
)
def test_unreadable_prompt_gets_a_safe_reply(messages):
    text = respond(messages)
    assert text.startswith(f"Action selection: {SAFE_ACTION}\nMessage to Team: ")


def test_rules_without_observation_get_a_safe_reply():
    env = mase.make("mase/SearchRescue-v0")
    env.reset(seed=0)
    text = respond([{"role": "system", "content": env.unwrapped.rules_text("alpha")}])
    assert text.startswith(f"Action selection: {SAFE_ACTION}\n")
    assert "not seen an observation" in text


# -- the command ----------------------------------------------------------------------------

ENV = "mase/SearchRescue-v0"


def test_mase_serve_needs_a_task():
    result = subprocess.run(
        [sys.executable, "-m", "mase.cli", "serve", "--port", "0"], capture_output=True, text=True
    )
    assert result.returncode == 2 and "--env" in result.stderr


def test_mase_serve_command():
    proc = subprocess.Popen(
        [sys.executable, "-m", "mase.cli", "serve", "--env", ENV, "--port", "0"]
        + ["--empty-rate", "1"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        base_url = proc.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        llm = openai.OpenAI(base_url=base_url, api_key="offline", max_retries=0, timeout=10)
        reply = llm.chat.completions.create(model="m", messages=HELLO)
        assert reply.choices[0].message.content == ""
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_mase_serve_on_a_busy_port_says_so():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "mase.cli", "serve", "--env", ENV, "--port", str(port)],
            capture_output=True,
            text=True,
        )
    assert result.returncode == 2
    assert result.stderr == (
        f"mase serve: error: port {port} on 127.0.0.1 is in use; choose another with --port, "
        "or 0 for a free one\n"
    )
