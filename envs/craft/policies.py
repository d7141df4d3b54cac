"""Craft's trained policy: the MAPPO checkpoint it ships.

``CraftEnv.policies`` names this factory beside the planner, so ``--team mappo`` works for
this task; ``mappo:PATH`` plays a checkpoint of your own (``mase train mappo --env
mase/Craft-v0``). The shipped one was trained by the command in
``benchmarks/craft_training.py`` (:data:`TRAINING_COMMAND`).
"""

from __future__ import annotations

from typing import Any

from mase.envs import shipped

#: The command that trained ``checkpoints/mappo.pt`` (seed 1, on the task's default rules with
#: the optional reward shaping).
TRAINING_COMMAND = (
    "mase train mappo --env mase/Craft-v0 --env-arg shaping=true --total-timesteps 1998848 "
    "--seed 1 --keep-checkpoints --checkpoint-every 10 --threads 1"
)


def checkpoint(name: str) -> str:
    """Path of a trained model shipped with the task (``checkpoints/NAME`` in this folder)."""
    return shipped.checkpoint(__package__, name)


def mappo(arg: str | None) -> Any:
    """The shipped MAPPO actor (``mase train mappo``), or the checkpoint at ``arg``."""
    from mase.baselines.mappo import MAPPOPolicy

    return MAPPOPolicy.load(shipped.given_or_shipped(arg, __package__, "mappo.pt"))
