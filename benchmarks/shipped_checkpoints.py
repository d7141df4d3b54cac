"""Search and rescue's shipped models over 100 seeded episodes, beside their records and the goal.

1. Each shipped model (``checkpoints/mappo.pt``, ``checkpoints/sb3_ppo.zip``) plays every seat
   of episodes 0-99 under the task's default rules (the paper's observation rule): the share
   of episodes at 90 points and the mean rounds, beside the figures its record
   (``checkpoints/NAME.json``) holds and, for MAPPO, the goal (at least 95% at 90 points, mean
   rounds at most 12; the paper's MAPPO took 11.0). Episodes that differ from the record are
   counted.
2. With --record: write each shipped model's record from what step 1 measured, with its
   command (``policies.SHIPPED``) and training turns.

Run: python benchmarks/shipped_checkpoints.py [--record]
"""

import argparse
import json
import os
import statistics
from pathlib import Path

from mase.envs.search_rescue.policies import SHIPPED, checkpoint, figures, record

#: The goal for MAPPO: share of episodes at 90 points, and mean rounds.
GOAL_FULL, GOAL_ROUNDS = 0.95, 12.0


def summary(played: list[dict]) -> dict:
    """Share at 90 points, mean and sd of rounds, mean share of legal actions."""
    rounds = [e["rounds"] for e in played]
    return {
        "at_90": sum(e["score"] == 90 for e in played) / len(played),
        "rounds_mean": statistics.fmean(rounds),
        "rounds_sd": statistics.stdev(rounds),
        "valid_action_rate": statistics.fmean(e["valid_action_rate"] for e in played),
    }


def line(name: str, s: dict) -> str:
    return (
        f"  {name:<34} at 90 points {s['at_90']:5.0%}  rounds {s['rounds_mean']:5.2f} ± "
        f"{s['rounds_sd']:.2f}  legal actions {s['valid_action_rate']:.1%}"
    )


def as_json(data: dict) -> str:
    """The record as JSON, an episode a line."""
    head = json.dumps({k: v for k, v in data.items() if k != "episodes"}, indent=1)[:-2]
    lines = ",\n  ".join(json.dumps(e) for e in data["episodes"])
    return f'{head},\n "episodes": [\n  {lines}\n ]\n}}\n'


def trained_turns(name: str) -> int:
    if name.endswith(".pt"):
        from mase.baselines.mappo import MAPPOPolicy

        return int(MAPPOPolicy.load(checkpoint(name)).checkpoint["global_step"])
    from stable_baselines3 import PPO

    return int(PPO.load(checkpoint(name), device="cpu").num_timesteps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true", help="write the shipped models' records")
    cli = parser.parse_args()
    print(f"load average at the start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("\nshipped models, every seat, episodes 0-99, the task's default rules:")
    for name, (policy, command) in SHIPPED.items():
        played = figures(policy)
        s = summary(played)
        print(line(f"{policy} (measured now)", s))
        path = Path(checkpoint(name)).with_suffix(".json")
        if path.is_file():
            kept = record(name)
            differ = sum(a != b for a, b in zip(played, kept["episodes"], strict=True))
            print(line(f"{policy} (its record)", kept["summary"]) + f"  {differ} episodes differ")
        if policy == "mappo":
            met = s["at_90"] >= GOAL_FULL and s["rounds_mean"] <= GOAL_ROUNDS
            verdict = "met" if met else "NOT met"
            print(f"  goal: >= {GOAL_FULL:.0%} at 90 points, <= {GOAL_ROUNDS:g} rounds: "
                  f"{verdict} (the paper's MAPPO: 90 in 11.0 rounds)")  # fmt: skip
        if cli.record:
            data = {
                "command": command, "trained_turns": trained_turns(name),
                "rules": "the task's defaults", "summary": s, "episodes": played,
            }  # fmt: skip
            path.write_text(as_json(data))
            print(f"  wrote {path}")


if __name__ == "__main__":
    main()
