"""A random policy that respects the action mask, for any action space."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
from gymnasium import spaces

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
        self._space: spaces.Space | None = None
        self._space_of: spaces.Space | None = None

    def reset(self, agent: str, env: Any, seed: int | None = None) -> None:
        """Remember the seat; reseed when the runner gives a seed."""
        super().reset(agent, env, seed)
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self._space = self._space_of = None

    def act(self, observation: Any, info: dict) -> Any:
        """A uniformly random legal action (any action if the mask is missing or empty).

        In a speech phase, where what one says is the move, a legal index when the task marks
        some (answers from a finite set, which the task says for it), else a short utterance with a
        random number in it (the unmasked policy still gives a number, which is no utterance).

        An action space that is not ``Discrete`` (a team, a number, an utterance) is sampled
        from a copy of the space seeded from this policy's generator.
        """
        space = self.env.action_space(self.agent)
        if not isinstance(space, spaces.Discrete):
            if self._space is None or self._space_of is not space:
                self._space_of, self._space = space, copy.deepcopy(space)
                self._space.seed(int(self.rng.integers(2**31)))
            return self._space.sample()
        mask = observation.get("action_mask") if isinstance(observation, dict) else None
        phase = getattr(self.env.unwrapped, "phase", None)
        speech = getattr(phase, "speech", False)
        if self.use_mask and speech and (mask is None or not mask.any()):  # words are the move
            return f"I say {int(self.rng.integers(space.n))}."
        if not self.use_mask or mask is None or not mask.any():
            return int(space.start + self.rng.integers(space.n))
        legal = np.flatnonzero(mask)
        return int(space.start + legal[self.rng.integers(len(legal))])
