"""A random policy that respects the action mask."""

from __future__ import annotations

from typing import Any

import numpy as np

from mase.agents.base import Policy


class RandomPolicy(Policy):
    """Picks uniformly among the legal actions of ``observation["action_mask"]``.

    With ``use_mask=False`` it picks uniformly among all actions instead (registered as
    ``"random-unmasked"``), the way an untrained agent that ignores the rules would.
    Seeded through ``reset(..., seed=...)`` (the runner derives one per seat from the episode
    seed), so the same seeds replay the same episode.
    """

    def __init__(self, seed: int | None = None, use_mask: bool = True):
        self.rng = np.random.default_rng(seed)
        self.use_mask = use_mask

    def reset(self, agent: str, env: Any, seed: int | None = None) -> None:
        """Remember the seat; reseed when the runner gives a seed."""
        super().reset(agent, env, seed)
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: Any, info: dict) -> int:
        """A uniformly random legal action (any action if the mask is missing or empty)."""
        mask = observation.get("action_mask") if isinstance(observation, dict) else None
        if not self.use_mask or mask is None or not mask.any():
            space = self.env.action_space(self.agent)
            return int(self.rng.integers(space.n))
        legal = np.flatnonzero(mask)
        return int(legal[self.rng.integers(len(legal))])
