"""Baseline policies (planners and trained agents), installed as ``mase.baselines``.

``mase.baselines.CBSPolicy``, ``MAPPOPolicy`` and ``SB3Policy`` are loaded on first use, so
importing MASE does not import torch.
"""

import importlib

_LAZY = {
    "CBSPolicy": "mase.baselines.cbs",
    "MAPPOPolicy": "mase.baselines.mappo",
    "SB3Policy": "mase.baselines.sb3",
}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'mase.baselines' has no attribute {name!r}")


__all__ = list(_LAZY)
