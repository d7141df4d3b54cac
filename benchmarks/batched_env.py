"""Turns per second of a batch of worlds (``mase.make_vec``) beside one AEC env, in one run.

Contenders, all on search and rescue's vector view with random legal actions (drawn from the
action mask):

- one AEC env, the loop of ``benchmarks/throughput.py`` (``agent_iter`` / ``last`` / ``step``,
  resetting when an episode ends): the reference;
- the AEC batch (``backend="aec"``, a loop over N AEC envs behind the batch's arrays);
- the native batch (``backend="native"``, the rules in numpy) at several N.

A batch's turns count every world: one ``step`` is N turns. Each figure is the median of timed
repeats interleaved across the contenders (a busy moment of a shared machine hits all alike);
each ratio is the median of the ratios within the same repeat. The anchors for the goal are
JaxMARL's vmapped envs and PufferLib's native vectorization, which run one policy's turns for
thousands of worlds per call.

Goal: native batch >= 20x the single AEC env.

Run: python benchmarks/batched_env.py [--seconds 1.0] [--repeats 7]
"""

import argparse
import statistics
import time

import numpy as np
from throughput import turns_per_second  # noqa: E402 (the same folder)

import mase


def batch_turns_per_second(batch, seconds: float, seed: int) -> float:
    """Turns/s of ``batch`` under random legal actions for about ``seconds``."""
    rng = np.random.default_rng(seed)
    batch.reset(seed=seed)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        _, mask = batch.observe()
        batch.step((rng.random(mask.shape) * mask).argmax(axis=1))  # a random legal action
        steps += 1
    return steps * batch.num_envs / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="time per timed repeat")
    parser.add_argument("--repeats", type=int, default=7, help="timed repeats per contender")
    parser.add_argument(
        "--sizes", default="64,256,1024,4096", help="numbers of worlds of the native batch"
    )
    args = parser.parse_args()
    env_id = "mase/SearchRescue-v0"
    sizes = [int(s) for s in args.sizes.split(",")]

    single = mase.make(env_id, obs_mode="vector")
    aec_turns = max(1000, int(20_000 * args.seconds))  # about a second of the single env

    def single_rate(seed: int) -> float:
        return turns_per_second(single, aec_turns, seed=seed)

    contenders = {"one AEC env (reference)": single_rate}
    aec_batch = mase.make_vec(env_id, 64, backend="aec")
    contenders["AEC batch, N=64"] = lambda seed: batch_turns_per_second(
        aec_batch, args.seconds, seed
    )
    for n in sizes:
        batch = mase.make_vec(env_id, n, backend="native")
        contenders[f"native batch, N={n}"] = lambda seed, batch=batch: batch_turns_per_second(
            batch, args.seconds, seed
        )
    for rate in contenders.values():  # warm up
        rate(args.repeats)
    runs: dict[str, list[float]] = {name: [] for name in contenders}
    for r in range(args.repeats):
        for name, rate in contenders.items():
            runs[name].append(rate(r))
    reference = runs["one AEC env (reference)"]
    print(f"{'contender':28s} {'turns/s':>12s} {'x one env':>10s}")
    for name, rates in runs.items():
        ratio = statistics.median(r / ref for r, ref in zip(rates, reference, strict=True))
        print(f"{name:28s} {statistics.median(rates):12,.0f} {ratio:10.1f}")
    best = max(
        (n for n in runs if n.startswith("native")),
        key=lambda n: statistics.median(runs[n]),
    )
    ratio = statistics.median(r / ref for r, ref in zip(runs[best], reference, strict=True))
    print(f"goal: native batch >= 20x one AEC env; best {best}: {ratio:.1f}x  "
          f"{'met' if ratio >= 20 else 'NOT met'}")  # fmt: skip


if __name__ == "__main__":
    main()
