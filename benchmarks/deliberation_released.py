"""Deliberation on every released game: each team's NR, NAR and VR per setting.

The paper's sets, whole: menu design numeric (60 games), semantic (the same 60), level 3 (30,
under the numeric protocol) and task allocation (100). Teams: the centralized oracle, scripted
deliberators (perfect, then sharing each fact line with chance one half, then always planning
greedily), model seats played by the offline deliberation mind through the ``openai`` client
(plain, belief mode, offered the solver tool, and the full-observation ablation), and the
random proposer. Also printed:
the authors' lenient NR (repeats paid, unknown names dropped), the rounds, and seconds.

Run: python benchmarks/deliberation_released.py [--games N]  (N: at most this many per set)
"""

import argparse
import time

import numpy as np

import mase
from mase.agents import LLMAgent
from mase.envs.deliberation.bots import Deliberator, oracle, random_proposer
from mase.llm import LLMConfig, offline_server
from mase.runner import run_episode

SETTINGS = {
    "numeric": ("mase/MenuDesign-v0", {}),
    "semantic": ("mase/MenuDesignSemantic-v0", {}),
    "level 3": ("mase/MenuDesignLevel3-v0", {}),
    "allocation": ("mase/TaskAllocation-v0", {}),
}


def teams(server):
    config = LLMConfig(base_url=server.base_url, cache=False)
    return {
        "oracle": (lambda: oracle(), {}),
        "scripted": (lambda: Deliberator(), {}),
        "scripted, share 0.5": (lambda: Deliberator(share=0.5), {}),
        "scripted, greedy": (lambda: Deliberator(slip=1.0), {}),
        "model seats": (lambda: LLMAgent(config), {}),
        "model seats, belief": (lambda: LLMAgent(config, belief=True), {}),
        "model seats, solver": (lambda: LLMAgent(config, tools=True), {}),
        "model seats, full obs.": (lambda: LLMAgent(config), {"full_observation": True}),
        "random proposer": (lambda: random_proposer(), {}),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=None, help="at most this many per set")
    args = parser.parse_args()
    header = (f"{'setting':<11} {'team':<23} {'games':>5} {'NR':>6} {'NAR':>6} {'VR':>6} "
              f"{'auth.NR':>7} {'rounds':>6} {'s':>6}")  # fmt: skip
    print(header)
    with offline_server("mase/MenuDesign-v0") as server:
        for setting, (env_id, base_kwargs) in SETTINGS.items():
            for name, (make, kwargs) in teams(server).items():
                env = mase.make(env_id, **base_kwargs, **kwargs)
                n = len(env.unwrapped.games) if args.games is None else args.games
                n = min(n, len(env.unwrapped.games))
                started = time.perf_counter()
                ms = [
                    run_episode(env, {a: make() for a in env.possible_agents}, seed=s)["metrics"]
                    for s in range(n)
                ]
                took = time.perf_counter() - started

                def mean(key, ms=ms):
                    return float(np.mean([m[key] for m in ms]))

                print(f"{setting:<11} {name:<23} {n:>5} {mean('nr'):>6.1f} {mean('nar'):>6.1f} "
                      f"{mean('valid'):>6.1%} {mean('lenient_nr'):>7.1f} {mean('rounds'):>6.2f} "
                      f"{took:>6.1f}")  # fmt: skip


if __name__ == "__main__":
    main()
