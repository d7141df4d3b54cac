"""How well each task's own teams play: the scripted bots beside a random team, same seeds.

For every registered task with a scripted policy, ``mase.evaluate`` plays the scripted team
(with messages) and a random team (legal actions) over the same seeded episodes and prints
each numeric metric's mean ± std, how the episodes ended, and the goal where one is set.

Goals (search and rescue's scripted team, the paper layout): 90 points in every episode, in
fewer than 15 rounds on average (the paper's GPT-4 team took 28.3, with belief 12.3).

Run: python benchmarks/teams.py [--episodes 100]
"""

import argparse
import time

import mase

#: env id -> metric -> (test, goal in words), for the scripted team.
GOALS = {
    "mase/SearchRescue-v0": {
        "score": (lambda m: m["mean"] == 90 and m["std"] == 0, "90 in every episode"),
        "rounds": (lambda m: m["mean"] < 15, "mean < 15"),
    },
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=100, help="episodes per team")
    args = parser.parse_args()
    for env_id in mase.list_envs():
        creator, _ = mase.registry.env_creator(env_id)
        if not getattr(creator, "scripted_policy", None):
            continue
        print(f"\n{env_id}, {args.episodes} episodes per team (seeds 0...{args.episodes - 1})")
        for team in ("scripted", "random"):
            start = time.perf_counter()
            summary = mase.evaluate(env_id, team, episodes=args.episodes, seed=0)
            seconds = time.perf_counter() - start
            ended = ", ".join(f"{k} {v}" for k, v in summary["counts"].get("ended_by", {}).items())
            print(f"  {team} ({seconds:.1f} s; ended by: {ended})")
            for key, m in summary["metrics"].items():
                goal = GOALS.get(env_id, {}).get(key) if team == "scripted" else None
                verdict = f"  goal {goal[1]}: {'met' if goal[0](m) else 'NOT met'}" if goal else ""
                print(f"    {key:22s} {m['mean']:10.3f} ± {m['std']:.3f}{verdict}")


if __name__ == "__main__":
    main()
