"""Craft's trained policies: the MAPPO teams it ships.

``CraftEnv.policies`` names these factories beside the planner, so ``--team mappo`` (trained
on the task's default, fixed map) and ``--team mappo-random`` (trained on random maps) work
for this task; ``mappo:PATH`` plays a checkpoint of your own (``mase train mappo --env
mase/Craft-v0``). Each was trained by its command (:data:`SHIPPED`); ``docs/training/craft``
holds the runs and ``benchmarks/craft_training.py`` measures them.
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


#: The command that trained ``checkpoints/mappo_random.pt`` (its last actor) on random maps
#: (``layout="random"``, a new map each episode).
RANDOM_TRAINING_COMMAND = (
    "mase train mappo --env mase/Craft-v0 --env-arg shaping=true --env-arg layout=random "
    "--num-envs 64 --num-minibatches 2 --hidden 128 --total-timesteps 8000000 --seed 1 "
    "--keep-checkpoints --checkpoint-every 10 --threads 1"
)
#: Each shipped team: its checkpoint and its command.
SHIPPED = {
    "mappo": ("mappo.pt", TRAINING_COMMAND),
    "mappo-random": ("mappo_random.pt", RANDOM_TRAINING_COMMAND),
}


def checkpoint(name: str) -> str:
    """Path of a trained model shipped with the task (``checkpoints/NAME`` in this folder)."""
    return shipped.checkpoint(__package__, name)


def mappo(arg: str | None) -> Any:
    """The shipped MAPPO actor (``mase train mappo``), or the checkpoint at ``arg``."""
    from mase.baselines.mappo import MAPPOPolicy

    return MAPPOPolicy.load(shipped.given_or_shipped(arg, __package__, "mappo.pt"))


def mappo_random(arg: str | None) -> Any:
    """The shipped MAPPO team trained on random maps, or the checkpoint at ``arg``."""
    from mase.baselines.mappo import MAPPOPolicy

    return MAPPOPolicy.load(shipped.given_or_shipped(arg, __package__, "mappo_random.pt"))
