"""Search and rescue's named policies: the CBS planner and the trained checkpoints it ships.

``SearchRescueEnv.policies`` names these factories, so ``--team cbs``, ``--team mappo`` and
``--team sb3-ppo`` work for this task; each factory takes the text after ``name:`` in a team
spec (``cbs:N`` a node budget, ``mappo:PATH`` and ``sb3-ppo:PATH`` a checkpoint of your own).
"""

from __future__ import annotations

from typing import Any

from mase.envs import shipped


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
