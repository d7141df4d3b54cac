"""LLM-team evaluations at concurrency K = 1, 8, 32 against the offline server, in one run.

The offline model server runs in a separate process (``mase serve --env ... --latency 0.2``), as a
hosted model would: its own CPU time is not charged to the framework, and each reply takes
200 ms of waiting, like a fast hosted model. An LLM team (every seat ``llm``, messages on, no
cache) plays 4 episodes at K = 1 and ``8K`` at each larger K; the figures are model calls per
second, the speedup over K = 1 and the goal of 0.8·K.

The framework's overhead per model call is measured at K = 1, where nothing overlaps: wall
time minus the time spent inside the ``openai`` call, over the calls. It is everything MASE
does around the model (env steps, prompts, parsing, records), without and with the response
cache (a run of misses: hashing the request, looking it up, storing the reply). The
references, in the same run: a bare ``openai`` client (``chat.completions.create``, as a user
would write it) sending the same prompts one after another (the cost of a call itself), and
the same bare client in K threads (what that client and this machine allow at that
concurrency, with no env at all). MASE's client posts the request body through the same
``openai`` client without ``create``'s parameter transform, which is why it can exceed it.

Goals: speedup >= 0.8·K; overhead < 2 ms per call.

Run: python benchmarks/llm_concurrency.py [--latency 0.2] [--concurrency 1 8 32]
"""

import argparse
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import openai

import mase
from mase.llm import ChatClient, LLMConfig

ENV = "mase/SearchRescue-v0"


def start_server(latency: float) -> tuple[subprocess.Popen, str]:
    """``mase serve`` in a child process on a free port; returns it and its base URL."""
    command = [sys.executable, "-m", "mase.cli", "serve", "--env", ENV, "--port", "0"]
    command += ["--latency", str(latency)]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    base_url = server.stdout.readline().strip()
    if not base_url.startswith("http://"):
        server.kill()
        raise RuntimeError(f"mase serve did not print its URL (got {base_url!r})")
    return server, base_url


def prompts_of_one_episode(config: LLMConfig) -> list[list[dict]]:
    """The message lists an LLM team sends in one episode (for the bare-client reference)."""
    env = mase.wrappers.MessageChannel(mase.make(ENV))
    team = {a: mase.agents.make_policy("llm", env, llm=config) for a in env.possible_agents}
    mase.run_episode(env, team, seed=12345)
    return [c["messages"] for p in team.values() for c in p.episode_record()["calls"]]


def bare_client(base_url: str, prompts: list[list[dict]], threads: int) -> tuple[float, float]:
    """Send ``prompts`` with a plain ``openai`` client from ``threads`` threads.

    Returns:
        (seconds per call as one thread waits for it, calls per second overall).
    """
    client = openai.OpenAI(base_url=base_url, api_key="offline", max_retries=0)
    client.models.list()  # connect before timing
    waits: list[float] = []
    lock = threading.Lock()

    def send(share: list[list[dict]]) -> None:
        for messages in share:
            start = time.perf_counter()
            client.chat.completions.create(model="mase-offline", messages=messages)
            with lock:
                waits.append(time.perf_counter() - start)

    shares = [prompts[i::threads] for i in range(threads)]
    workers = [threading.Thread(target=send, args=(s,)) for s in shares]
    start = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    wall = time.perf_counter() - start
    client.close()
    return sum(waits) / len(waits), len(waits) / wall


def evaluate_llm_team(config: LLMConfig, k: int, episodes: int, out: Path) -> dict:
    """One timed evaluation; returns calls, wall time and the time spent inside calls."""
    start = time.perf_counter()
    summary = mase.evaluate(
        ENV, "llm", episodes=episodes, seed=0, out=out, llm=config, concurrency=k
    )
    wall = time.perf_counter() - start
    if summary["failed"]:
        raise RuntimeError(f"{summary['failed']} episodes failed at K={k}; see {out}")
    usage = summary["usage"]
    return {"calls": usage["llm_calls"], "wall": wall, "waiting": usage["latency_s"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2, help="server latency, seconds")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument(
        "--episodes-per-worker",
        type=int,
        default=8,
        help="episodes = this x K for K > 1 (default 8; K = 1 plays 4)",
    )
    args = parser.parse_args()
    if args.concurrency[0] != 1:
        parser.error("the first concurrency must be 1 (the baseline of the speedups)")

    def episodes(k: int) -> int:
        # the last episodes of a run finish with fewer than K workers busy, a tail of about
        # one episode's length whatever the run's size; at 4 episodes per worker it cost K=32
        # about a sixth of its throughput, so larger K play more episodes per worker
        return 4 if k == 1 else args.episodes_per_worker * k

    server, base_url = start_server(args.latency)
    try:
        config = LLMConfig(base_url=base_url, cache=False)
        ChatClient.shared(config).complete([{"role": "user", "content": "warm up"}])
        prompts = prompts_of_one_episode(config)
        with tempfile.TemporaryDirectory() as tmp:
            runs = {
                k: evaluate_llm_team(config, k, episodes(k), Path(tmp) / f"k{k}")
                for k in args.concurrency
            }
            # the same K=1 run with the response cache on (every call a miss, then stored)
            cached = config.replace(cache=Path(tmp) / "responses.sqlite")
            ChatClient.shared(cached).complete([{"role": "user", "content": "warm up"}])
            with_cache = evaluate_llm_team(cached, 1, 4, Path(tmp) / "c1")
        bare_wait, _ = bare_client(base_url, prompts, threads=1)
        bare_rates = {
            k: bare_client(base_url, prompts * max(1, k // 4), threads=k)[1]
            for k in args.concurrency
        }
    finally:
        server.terminate()
        server.wait()

    base_rate = runs[1]["calls"] / runs[1]["wall"]
    print(
        f"LLM team (3 x llm, messages) on {ENV}; offline server in its own process, "
        f"{args.latency * 1000:.0f} ms per reply; no cache"
    )
    header = f"{'K':>3s} {'episodes':>8s} {'calls':>6s} {'wall s':>7s} {'calls/s':>8s}"
    print(f"{header} {'speedup':>8s} {'goal':>6s}         {'bare openai':>11s} {'MASE/bare':>9s}")
    for k, run in runs.items():
        rate = run["calls"] / run["wall"]
        speedup = rate / base_rate
        verdict = "met" if speedup >= 0.8 * k else "NOT met"
        print(
            f"{k:3d} {episodes(k):8d} {run['calls']:6d} {run['wall']:7.1f} "
            f"{rate:8.1f} {speedup:7.1f}x {0.8 * k:5.1f}x  {verdict:7s} {bare_rates[k]:11.1f} "
            f"{rate / bare_rates[k]:9.2f}"
        )
    print(
        "(bare openai: calls/s of a plain openai client sending the same prompts from K "
        "threads, no env: the ceiling of this machine and client at that K)"
    )
    one = runs[1]
    overhead = (one["wall"] - one["waiting"]) / one["calls"]
    per_call = one["wall"] / one["calls"]
    print(
        f"\nper model call at K=1: {per_call * 1000:.1f} ms in all, of which "
        f"{one['waiting'] / one['calls'] * 1000:.1f} ms inside the openai call"
    )
    print(
        f"framework overhead: {overhead * 1000:.2f} ms per call (goal < 2 ms: "
        f"{'met' if overhead < 0.002 else 'NOT met'})"
    )
    cache_overhead = (with_cache["wall"] - with_cache["waiting"]) / with_cache["calls"]
    print(
        f"framework overhead with the response cache on (all misses): "
        f"{cache_overhead * 1000:.2f} ms per call"
    )
    print(
        f"reference, bare openai client, same prompts, one thread: {bare_wait * 1000:.1f} ms "
        f"per call ({(bare_wait - args.latency) * 1000:.1f} ms beyond the server's latency)"
    )


if __name__ == "__main__":
    main()
