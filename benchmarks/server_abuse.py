"""The offline model server and the client under abuse, measured.

* **Trickling sockets**: 200 connections each send one byte of a request head every 2-3 s
  (a slowloris), while one client sends ordinary chat requests one after another. Printed: the
  threads the server holds beyond those before it started (peak), the ordinary requests'
  median and worst latency, and when the server cut the tricklers off (seconds after their
  first byte; the request deadline is 10 s).
* **A huge prompt**: 100,000 short messages (``"hi"`` each, 3.1 MB of JSON; then each in the
  protocol's layout, an observation and an action request, 6.1 MB) to the search-and-rescue
  offline model; printed: the seconds to the reply, next to one ``json.loads`` of the body.
* **A dead endpoint**: ``mase eval ... --team llm --base-url http://127.0.0.1:PORT/v1`` with
  nothing on the port; printed: its exit status and seconds to exit (the process start
  included), and the one line it says.

With ``--uvicorn`` (uvicorn and Starlette installed by hand; not MASE's dependencies): the same
trickle, a byte every 0.2 s for 8 s, against uvicorn's h11 server with ``timeout_keep_alive=1``,
with and without ``limit_concurrency=100``: the tricklers it closed, and the ordinary requests
it answered 200.

Run: python benchmarks/server_abuse.py [--sockets 200] [--seconds 20] [--uvicorn]
"""

import argparse
import http.client
import json
import random
import select
import socket
import statistics
import subprocess
import sys
import threading
import time

import openai

from mase import protocol
from mase.llm import OfflineServer, offline_server

ENV = "mase/SearchRescue-v0"
HELLO = [{"role": "user", "content": "hi"}]


def _closed(sock: socket.socket) -> bool:
    if not select.select([sock], [], [], 0)[0]:
        return False
    try:
        return sock.recv(1) == b""
    except OSError:
        return True


def trickle(sockets: int, seconds: float) -> None:
    """Slowloris against the server while an ordinary client is served."""
    before = threading.active_count()
    with OfflineServer(lambda messages: "ok") as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="offline", max_retries=0)
        client.chat.completions.create(model="m", messages=HELLO)
        head = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 10_000
        now = time.monotonic()
        # socket, next byte due, bytes sent, first byte sent at, cut off after
        conns = [[socket.create_connection((server.host, server.port)), now, 0, None, None]
                 for _ in range(sockets)]  # fmt: skip
        latencies, peak, start = [], 0, time.monotonic()
        while time.monotonic() - start < seconds:
            now = time.monotonic()
            for conn in conns:
                sock, due, sent, first, cut = conn
                if cut is not None:
                    continue
                if first is not None and _closed(sock):
                    conn[4] = now - first
                elif now >= due:
                    sock.send(head[sent : sent + 1])
                    conn[1], conn[2] = now + random.uniform(2, 3), sent + 1
                    conn[3] = first if first is not None else now
            t = time.perf_counter()
            client.chat.completions.create(model="m", messages=HELLO)
            latencies.append(time.perf_counter() - t)
            peak = max(peak, threading.active_count() - before)
            time.sleep(0.02)
        cuts = [c[4] for c in conns if c[4] is not None]
        for conn in conns:
            conn[0].close()
    print(f"trickle: {sockets} sockets for {seconds:.0f} s; server threads (peak) {peak}")
    print(f"  ordinary requests: {len(latencies)}, median {statistics.median(latencies) * 1e3:.1f}"
          f" ms, worst {max(latencies) * 1e3:.1f} ms")  # fmt: skip
    if cuts:
        print(f"  tricklers cut off: {len(cuts)}, {min(cuts):.1f}-{max(cuts):.1f} s after their "
              "first byte")  # fmt: skip
    else:
        print("  tricklers cut off: none")


def huge_prompt() -> None:
    """100,000 messages to a task's offline model: ``"hi"`` each, and in the protocol's layout."""
    laid_out = f"{protocol.NEW_OBSERVATION} it rains {protocol.ACTION_REQUEST}"[:32]
    with offline_server(ENV) as server:
        for name, text in (("short messages", "hi"), ("in the protocol's layout", laid_out)):
            request = {"model": "m", "messages": [{"role": "user", "content": text}] * 100_000}
            body = json.dumps(request, separators=(",", ":")).encode()
            t = time.perf_counter()
            json.loads(body)
            parse = time.perf_counter() - t
            connection = http.client.HTTPConnection(server.host, server.port, timeout=600)
            t = time.perf_counter()
            connection.request("POST", "/v1/chat/completions", body)
            status = connection.getresponse().status
            took = time.perf_counter() - t
            connection.close()
            print(f"huge prompt, {name}: {len(body) / 1e6:.1f} MB answered ({status}) in "
                  f"{took:.2f} s (one json.loads of it: {parse:.2f} s)")  # fmt: skip


def dead_endpoint() -> None:
    """``mase eval`` against a port nobody listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = [sys.executable, "-m", "mase.cli", "eval", ENV, "--team", "llm", "--episodes", "3",
               "--no-cache", "--base-url", f"http://127.0.0.1:{port}/v1"]  # fmt: skip
    t = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    took = time.perf_counter() - t
    print(f"dead endpoint: exit {result.returncode} after {took:.1f} s: {result.stderr.strip()}")


def uvicorn_trickle(limit: int | None, sockets: int = 200, seconds: float = 8.0) -> None:
    """The trickle against uvicorn's h11 server and a Starlette route (for comparison)."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def chat(request):  # noqa: ANN001, ANN202 (a Starlette endpoint)
        await request.body()
        return JSONResponse({"ok": True})

    app = Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])])
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="critical", http="h11",
                            timeout_keep_alive=1, limit_concurrency=limit)  # fmt: skip
    server = uvicorn.Server(config)
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    head = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 10_000
    conns = [socket.create_connection(("127.0.0.1", port)) for _ in range(sockets)]
    closed, answered, asked, sent, start = set(), 0, 0, 0, time.monotonic()
    while time.monotonic() - start < seconds:
        for sock in conns:
            if sock not in closed and (_closed(sock) or not sock.send(head[sent : sent + 1])):
                closed.add(sock)
        sent += 1
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        connection.request("POST", "/v1/chat/completions", b"{}")
        answered += connection.getresponse().status == 200
        asked += 1
        connection.close()
        time.sleep(0.2)
    server.should_exit = True
    for sock in conns:
        sock.close()
    print(f"uvicorn (limit_concurrency={limit}): {len(closed)} of {sockets} tricklers closed in "
          f"{seconds:.0f} s; {answered} of {asked} ordinary requests answered 200")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sockets", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--uvicorn", action="store_true", help="compare with uvicorn (installed)")
    args = parser.parse_args()
    if args.uvicorn:
        uvicorn_trickle(None)
        uvicorn_trickle(100)
    trickle(args.sockets, args.seconds)
    huge_prompt()
    dead_endpoint()


if __name__ == "__main__":
    main()
