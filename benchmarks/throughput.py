"""Turns per second of search and rescue next to PettingZoo's classic rps_v2, in one run.

Every env is built once, warmed up, and runs the same loop: ``agent_iter`` / ``last`` / a
random legal action (from the action mask when there is one, else the action space) /
``step``, resetting when an episode ends. Each turns/s figure is the median of many short
timed repeats, interleaved across the envs, so that a busy moment of a shared machine (whose
speed drifts from second to second) hits every env alike; each ratio is the median of the
ratios of the same repeat.

Goals: vector mode >= 1.0x rps_v2, text mode >= 0.3x.

Run: python benchmarks/throughput.py [--turns 10000] [--repeats 21]
"""

import argparse
import os
import statistics
import time

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import numpy as np  # noqa: E402
from pettingzoo.classic import rps_v2  # noqa: E402

import mase  # noqa: E402


def turns_per_second(env, turns: int, seed: int = 0) -> float:
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    done = 0
    start = time.perf_counter()
    while done < turns:
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                action = None
            elif isinstance(obs, dict) and "action_mask" in obs:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            else:
                action = env.action_space(agent).sample()
            env.step(action)
            done += 1
            if done >= turns:
                break
        env.reset()
    return done / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=10_000, help="turns per timed repeat")
    parser.add_argument("--repeats", type=int, default=21, help="timed repeats per env")
    args = parser.parse_args()

    contenders = {
        "pettingzoo classic/rps_v2": lambda: rps_v2.env(),
        "SearchRescue vector": lambda: mase.make("mase/SearchRescue-v0", obs_mode="vector"),
        "SearchRescue text": lambda: mase.make("mase/SearchRescue-v0", obs_mode="text"),
        "SearchRescue both": lambda: mase.make("mase/SearchRescue-v0", obs_mode="both"),
    }
    # each env is built once and warmed up, so that the repeats measure the steady state;
    # repeats are interleaved so that a busy moment of the machine hits every env alike
    envs = {name: build() for name, build in contenders.items()}
    for env in envs.values():
        turns_per_second(env, args.turns, seed=args.repeats)  # a seed no repeat uses
    runs: dict[str, list[float]] = {name: [] for name in contenders}
    for r in range(args.repeats):
        for name, env in envs.items():
            runs[name].append(turns_per_second(env, args.turns, seed=r))
    reference = runs["pettingzoo classic/rps_v2"]
    goals = {"SearchRescue vector": 1.0, "SearchRescue text": 0.3}
    print(f"{'env':28s} {'turns/s':>10s} {'x rps_v2':>9s}  goal")
    for name, rates in runs.items():
        # the ratio of each repeat's two rates, measured seconds apart, then their median
        ratio = statistics.median(r / ref for r, ref in zip(rates, reference, strict=True))
        goal = goals.get(name)
        verdict = ""
        if goal is not None:
            verdict = f">= {goal:.1f}x  {'met' if ratio >= goal else 'NOT met'}"
        print(f"{name:28s} {statistics.median(rates):10,.0f} {ratio:9.2f}  {verdict}")


if __name__ == "__main__":
    main()
