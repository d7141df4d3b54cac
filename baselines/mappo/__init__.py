"""MAPPO: training (``mappo.py``, CleanRL style) and the trained actor as a policy."""

from mase.baselines.mappo.mappo import Args, train
from mase.baselines.mappo.policy import MAPPOPolicy

__all__ = ["Args", "MAPPOPolicy", "train"]
