"""Search and rescue's named policies: the CBS planner and the trained checkpoints it ships.

``SearchRescueEnv.policies`` names these factories, so ``--team cbs``, ``--team mappo`` and
``--team sb3-ppo`` work for this task; each factory takes the text after ``name:`` in a team
spec (``cbs:N`` a node budget, ``mappo:PATH`` and ``sb3-ppo:PATH`` a checkpoint of your own).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any


def checkpoint(name: str) -> str:
    """Path of a trained model shipped with the task (``checkpoints/NAME`` in this folder)."""
    path = resources.files(__package__).joinpath("checkpoints", name)
    if not path.is_file():
        raise FileNotFoundError(f"no shipped checkpoint {name!r}; train one with `mase train`")
    return str(path)


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

    return MAPPOPolicy.load(_given(arg) or checkpoint("mappo.pt"))


def sb3_ppo(arg: str | None) -> Any:
    """The shipped parameter-shared SB3 PPO model (``mase train sb3-ppo``), or ``arg``'s."""
    from mase.baselines.sb3 import SB3Policy

    return SB3Policy.load(_given(arg) or checkpoint("sb3_ppo.zip"))


def _given(path: str | None) -> str | None:
    """A checkpoint path given after ``name:``, which must be a file (none: the shipped one)."""
    if path and not Path(path).is_file():
        raise FileNotFoundError(f"no checkpoint file at {path}")
    return path
