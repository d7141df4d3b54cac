"""Search and rescue's named policies: the CBS planner and the trained checkpoints it ships.

``SearchRescueEnv.policies`` names these factories, so ``--team cbs``, ``--team mappo`` and
``--team sb3-ppo`` work for this task; each factory takes the text after ``name:`` in a team
spec (``cbs:N`` a node budget, ``mappo:PATH`` and ``sb3-ppo:PATH`` a checkpoint of your own).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from mase.envs import shipped

#: The command that trained ``checkpoints/mappo.pt`` (its last actor; the ones it keeps every
#: 10 updates give the time to quality, ``benchmarks/mappo_training.py``).
TRAINING_COMMAND = (
    "mase train mappo --num-envs 64 --num-minibatches 2 --total-timesteps 4500000 --seed 1 "
    "--keep-checkpoints --checkpoint-every 10 --threads 1"
)
#: The command that trained ``checkpoints/sb3_ppo.zip`` (its last model).
SB3_TRAINING_COMMAND = "mase train sb3-ppo --total-timesteps 2000000 --seed 1 --threads 1"
#: Each shipped model, its named policy and its command.
SHIPPED = {
    "mappo.pt": ("mappo", TRAINING_COMMAND),
    "sb3_ppo.zip": ("sb3-ppo", SB3_TRAINING_COMMAND),
}


def checkpoint(name: str) -> str:
    """Path of a trained model shipped with the task (``checkpoints/NAME`` in this folder)."""
    return shipped.checkpoint(__package__, name)


def cbs(arg: str | None) -> Any:
    """The optimal planner; ``cbs:N`` caps its exact search at N node expansions."""
    from mase.baselines.cbs import CBSPolicy

    if arg is None:
        return CBSPolicy()
    if not arg.isdigit():
        raise ValueError(f"cbs:N takes a node budget (a whole number), got {arg!r}")
    return CBSPolicy(node_budget=int(arg))


def mappo(arg: str | None) -> Any:
    """The shipped MAPPO actor (``mase train mappo``), or the checkpoint at ``arg``."""
    from mase.baselines.mappo import MAPPOPolicy

    return MAPPOPolicy.load(shipped.given_or_shipped(arg, __package__, "mappo.pt"))


def sb3_ppo(arg: str | None) -> Any:
    """The shipped parameter-shared SB3 PPO model (``mase train sb3-ppo``), or ``arg``'s."""
    from mase.baselines.sb3 import SB3Policy

    return SB3Policy.load(shipped.given_or_shipped(arg, __package__, "sb3_ppo.zip"))


def record(name: str) -> dict:
    """A shipped model's record (``checkpoints/NAME.json``).

    Its command, its training turns and its figures per episode (:func:`figures`) under the
    task's default rules, as ``benchmarks/shipped_checkpoints.py --record`` wrote them.
    """
    return json.loads(Path(checkpoint(name)).with_suffix(".json").read_text())


def figures(policy: str, seed: int = 0, episodes: int = 100) -> list[dict]:
    """Per seeded episode of the task's default rules, every seat played by ``policy``.

    Each episode's seed, score, rounds and share of legal actions (no message channel: the
    trained models do not read messages).
    """
    import mase

    with tempfile.TemporaryDirectory() as out:
        mase.evaluate(
            "mase/SearchRescue-v0", policy, episodes=episodes, seed=seed, out=out,
            messages=False, record_text=False,
        )  # fmt: skip
        lines = (Path(out) / "episodes.jsonl").read_text().splitlines()
    played = [json.loads(line) for line in lines]
    return [
        {
            "seed": e["seed"],
            "score": e["metrics"]["score"],
            "rounds": e["metrics"]["rounds"],
            "valid_action_rate": round(e["metrics"]["valid_action_rate"], 6),
        }
        for e in played
    ]
