"""A real model on this machine: calls per second, MASE's overhead per call, and slots.

SmolLM2-135M-Instruct (or any GGUF file) behind llama.cpp's server (:class:`mase.llm.local.
LocalServer`, the ``local`` extra). In one run:

* **overhead per call**: an LLM seat's turns on search and rescue (``LLMAgent.act``: the
  prompt built from the env, the call through the ``openai`` client, the reply parsed and
  checked), against the same requests posted raw to the same server (``http.client``, no
  ``openai``, no MASE): the reference is the model's own time. The two are interleaved call by
  call, at temperature 0 with the same token limit, so each pair asks the same thing; the
  overhead is the median of the differences, as a share of the median raw call (goal < 2%).
* **calls per second** with one slot, and with K slots (K server processes, each with its
  share of the CPU threads) and K seats calling at once: the speedup of K slots over one.

Run: python benchmarks/local_model.py [--model smollm2] [--calls 12] [--slots 2]
"""

import argparse
import http.client
import json
import statistics
import threading
import time
from urllib.parse import urlparse

import mase
from mase.agents import LLMAgent
from mase.llm import LLMConfig
from mase.llm.local import LocalServer, about, find_gguf

ENV = "mase/SearchRescue-v0"
TOKENS = 48


def raw_call(base_url: str, body: dict) -> float:
    """Seconds for one request posted with the standard library (the model's own time)."""
    url = urlparse(base_url)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=600)
    start = time.perf_counter()
    connection.request("POST", "/v1/chat/completions", json.dumps(body),
                       {"Content-Type": "application/json"})  # fmt: skip
    response = connection.getresponse()
    response.read()
    took = time.perf_counter() - start
    connection.close()
    if response.status != 200:
        raise RuntimeError(f"the server answered {response.status}")
    return took


def overhead(server: LocalServer, calls: int) -> dict:
    """MASE's time per call beyond the model's (module docstring)."""
    config = LLMConfig(base_url=server.base_url, model=server.alias, max_tokens=TOKENS,
                       cache=False, timeout=600)  # fmt: skip
    env = mase.make(ENV)
    env.reset(seed=0)
    agent = LLMAgent(config, retries=0)
    agent.reset("alpha", env, seed=0)
    observation = env.observe("alpha")
    mase_times, raw_times = [], []
    for k in range(calls + 1):
        start = time.perf_counter()
        agent.act(observation, {})
        mase_took = time.perf_counter() - start
        messages = agent.episode_record()["calls"][-1]["messages"]
        body = {"model": server.alias, "messages": messages, "temperature": 0.0,
                "max_tokens": TOKENS}  # fmt: skip
        raw_took = raw_call(server.base_url, body)
        if k:  # the first pair warms the server's prompt cache
            mase_times.append(mase_took)
            raw_times.append(raw_took)
    diffs = [m - r for m, r in zip(mase_times, raw_times, strict=True)]
    raw = statistics.median(raw_times)
    return {
        "raw_s": raw,
        "mase_s": statistics.median(mase_times),
        "overhead_ms": 1000 * statistics.median(diffs),
        "overhead_share": statistics.median(diffs) / raw,
    }


def throughput(server: LocalServer, seats: int, calls: int) -> float:
    """Calls per second with ``seats`` seats calling at once, ``calls`` each."""
    config = LLMConfig(base_url=server.base_url, model=server.alias, max_tokens=TOKENS,
                       cache=False, timeout=600)  # fmt: skip

    def seat(k: int) -> None:
        env = mase.make(ENV)
        env.reset(seed=k)
        agent = LLMAgent(config, retries=0)
        agent.reset("alpha", env, seed=k)
        for _ in range(calls):
            agent.act(env.observe("alpha"), {})

    start = time.perf_counter()
    threads = [threading.Thread(target=seat, args=(k,)) for k in range(seats)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return seats * calls / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--model", default="smollm2", help="a known model or a GGUF file")
    parser.add_argument("--calls", type=int, default=12, help="calls measured per figure")
    parser.add_argument("--slots", type=int, default=2, help="slots of the concurrent server")
    args = parser.parse_args()
    gguf = find_gguf(args.model)
    print(f"{about(args.model)}; search and rescue turns, {TOKENS}-token replies")
    with LocalServer(gguf) as server:
        o = overhead(server, args.calls)
        one = throughput(server, 1, args.calls)
    print(
        f"overhead per call: {o['overhead_ms']:.1f} ms, {100 * o['overhead_share']:.2f}% of the "
        f"model's {o['raw_s']:.2f} s (median of {args.calls} interleaved pairs; goal < 2%)"
    )
    with LocalServer(gguf, slots=args.slots) as server:
        many = throughput(server, args.slots, args.calls)
    print(f"1 slot, 1 seat: {one:.2f} calls/s")
    print(
        f"{args.slots} slots, {args.slots} seats: {many:.2f} calls/s, {many / one:.2f}x "
        f"(each slot {max(1, (server.threads) // args.slots)} of {server.threads} threads)"
    )


if __name__ == "__main__":
    main()
