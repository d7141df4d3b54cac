"""Baseline policies (planners and trained agents), installed as ``mase.baselines``.

``mase.baselines.CBSPolicy``, ``MAPPOPolicy`` and ``SB3Policy`` are loaded on first use, so
importing MASE does not import torch.
"""

import importlib

#: ``mase train NAME``: the module holding ``Args`` and ``train(args)``, and what it trains.
TRAINERS = {
    "mappo": ("mase.baselines.mappo.mappo", "recurrent MAPPO with a centralized critic"),
    "sb3-ppo": ("mase.baselines.sb3.ppo", "parameter-shared Stable-Baselines3 PPO"),
    "selfplay": (
        "mase.baselines.mappo.selfplay",
        "MAPPO by population self-play, both sides of a two-sided task at once",
    ),
}

_LAZY = {
    "CBSPolicy": "mase.baselines.cbs",
    "MAPPOPolicy": "mase.baselines.mappo",
    "SB3Policy": "mase.baselines.sb3",
}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'mase.baselines' has no attribute {name!r}")


__all__ = ["TRAINERS", *_LAZY]
