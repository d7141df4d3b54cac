"""MAPPO training throughput and the trained team's quality, with references in the same run.

1. Throughput: a short MAPPO run on search and rescue; prints agent turns per second during
   rollouts (the envs stepped with the actor choosing actions) and over whole updates, next to
   the same envs stepped with random legal actions in the same round-by-round loop.
2. Quality: the shipped checkpoint over 100 evaluation episodes: share of episodes that score
   90 and mean rounds, next to the paper's MAPPO (90 points, 11.0 rounds after 45M steps) and
   the goal (>= 95% at 90 points, mean rounds <= 12).
3. With --train: a full training run with the default settings on this machine, its wall-clock
   and timesteps, then the same evaluation of what it produced.

Run: python benchmarks/mappo_training.py [--updates 5] [--train]
"""

import argparse
import csv
import tempfile
import time
from pathlib import Path

import numpy as np

import mase
from mase.baselines.mappo import Args, MAPPOPolicy, train
from mase.envs.search_rescue.policies import checkpoint


def random_rounds_per_second(args: Args, rounds: int) -> float:
    envs = [mase.make(args.env, obs_mode="vector", **args.env_kwargs) for _ in range(args.num_envs)]
    rng = np.random.default_rng(0)
    for i, env in enumerate(envs):
        env.reset(seed=i)
    start = time.perf_counter()
    for _ in range(rounds):
        for agent in envs[0].possible_agents:
            for env in envs:
                view = env.observe(agent)
                env.state()
                legal = np.flatnonzero(view["action_mask"])
                env.step(int(legal[rng.integers(len(legal))]))
        for env in envs:
            if env.terminations[agent] or env.truncations[agent]:
                env.reset()
    return rounds * len(envs) * len(envs[0].possible_agents) / (time.perf_counter() - start)


def evaluate(path: str, episodes: int = 100) -> dict:
    policy = MAPPOPolicy.load(path)
    summary = mase.evaluate(
        policy.checkpoint["env"],
        dict.fromkeys(policy.agents, policy),
        episodes=episodes,
        seed=10_000,
        env_kwargs=policy.checkpoint["env_kwargs"],
        messages=False,
        record_text=False,
        label="mappo",
    )
    return {"summary": summary, "checkpoint": policy.checkpoint}


def report_quality(name: str, path: str) -> None:
    result = evaluate(path)
    summary, ck = result["summary"], result["checkpoint"]
    scores = summary["metrics"]["score"]
    full = summary["counts"]["ended_by"].get("defused", 0) / summary["episodes"]
    rounds = summary["metrics"]["rounds"]
    print(f"\n{name}: {path}")
    print(f"  trained for {ck['global_step']:,} agent turns")
    print(
        f"  score {scores['mean']:.1f} ± {scores['std']:.1f}; episodes at 90 points: {full:.0%} "
        f"(goal >= 95%)"
    )
    print(
        f"  rounds {rounds['mean']:.2f} ± {rounds['std']:.2f} (goal <= 12; paper MAPPO 11.0 "
        "after 45M steps)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=5, help="updates in the throughput run")
    parser.add_argument("--train", action="store_true", help="also run a full default training")
    cli = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        args = Args(out=tmp)
        args.total_timesteps = cli.updates * args.num_envs * args.num_rounds * 3
        train(args)
        rows = list(csv.DictReader((Path(tmp) / "metrics.csv").open()))
    rollout = np.median([float(r["perf/rollout_sps"]) for r in rows])
    overall = float(rows[-1]["charts/sps"])
    reference = random_rounds_per_second(args, rounds=args.num_rounds * 2)
    print(f"MAPPO training throughput ({args.num_envs} envs, {cli.updates} updates)")
    print(f"  random legal actions, same loop    {reference:8,.0f} agent turns/s")
    print(
        f"  MAPPO rollouts (actor acting)      {rollout:8,.0f} agent turns/s "
        f"({rollout / reference:.2f}x)"
    )
    print(f"  MAPPO overall (rollouts + updates) {overall:8,.0f} agent turns/s")

    report_quality("shipped checkpoint", checkpoint("mappo.pt"))
    if cli.train:
        out = Path(tempfile.mkdtemp(prefix="mappo_"))
        start = time.time()
        path = train(Args(out=str(out)))
        print(f"\nfull training: {time.time() - start:.0f} s wall-clock (goal <= 1800 s)")
        report_quality("this machine's training", str(path))


if __name__ == "__main__":
    main()
