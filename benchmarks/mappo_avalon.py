"""MAPPO on Avalon: each side's trained checkpoint against the rule-based bots of the other side.

For each side, over the same seeded games (roles dealt by the seed): the side's win rate when
the side is played by the trained MAPPO actor (sampling from it), by the rule-based bots (the
all-bot game), and by random legal play; the other side is always the bots. Also the trained
seats' valid-action rate. The shipped checkpoints are ``envs/avalon/checkpoints/mappo_good.pt``
and ``mappo_evil.pt`` (``docs/training/mappo-avalon/results.md`` has how they were trained).

Run: python benchmarks/mappo_avalon.py [--games 500] [--good PATH] [--evil PATH]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import torch

import mase
from mase.agents import RandomPolicy
from mase.baselines.mappo import MAPPOPolicy
from mase.envs.avalon.bots import AvalonBot
from mase.envs.avalon.policies import checkpoint
from mase.runner import run_episode

SEED = 100_000  # evaluation games: seeds SEED, SEED + 1, ...


def side_results(
    env: Any, side: str, players: Callable[[list[str]], dict[str, Any]], games: int
) -> tuple[float, float]:
    """The side's win rate and its seats' valid-action rate, the other side played by bots.

    ``players(seats)`` gives the side's policy for each of its seats in a game.
    """
    wins, turns, invalid = 0, 0, 0
    base = env.unwrapped
    for seed in range(SEED, SEED + games):
        env.reset(seed=seed)  # the deal of this seed (run_episode deals the same again)
        ours = [a for a in env.possible_agents if base.side_of(a) == side]
        team = {a: AvalonBot() for a in env.possible_agents} | players(ours)
        record = run_episode(env, team, seed=seed, record_text=False)
        wins += record["metrics"]["winner"] == side
        for turn in record["turns"]:
            if turn["agent"] in ours:
                turns += 1
                invalid += any(o.startswith("invalid") for o in turn["outcome"])
    return wins / games, 1.0 - invalid / max(turns, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500, help="games per condition")
    parser.add_argument("--good", default=None, help="good side's checkpoint (default: shipped)")
    parser.add_argument("--evil", default=None, help="evil side's checkpoint (default: shipped)")
    cli = parser.parse_args()
    torch.set_num_threads(1)  # steps of one observation: more threads only wait on each other
    paths = {
        "good": cli.good or checkpoint("mappo_good.pt"),
        "evil": cli.evil or checkpoint("mappo_evil.pt"),
    }
    for side, path in paths.items():
        policy = MAPPOPolicy.load(path)
        ck = policy.checkpoint
        env = mase.make(ck["env"], **ck["env_kwargs"])
        print(f"\n{side} side: {path} ({ck['global_step']:,} learner turns; {ck['env_kwargs']})")
        rows = {  # one MAPPO actor serves every seat of its side, keeping each seat's state
            "MAPPO": lambda seats, policy=policy: dict.fromkeys(seats, policy),
            "bots": lambda seats: {a: AvalonBot() for a in seats},
            "random": lambda seats: {a: RandomPolicy() for a in seats},
        }
        for name, players in rows.items():
            start = time.time()
            won, valid = side_results(env, side, players, cli.games)
            print(
                f"  {name:<7} {side} wins {won:6.1%} of {cli.games} games vs bot "
                f"{'evil' if side == 'good' else 'good'}; valid actions {valid:.1%} "
                f"({time.time() - start:.0f} s)"
            )


if __name__ == "__main__":
    main()
