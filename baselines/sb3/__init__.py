"""Stable-Baselines3 PPO with parameter sharing (a slot per seat of a batch) and its policy."""

from mase.baselines.sb3.ppo import Args, SB3Policy, train

__all__ = ["Args", "SB3Policy", "train"]
