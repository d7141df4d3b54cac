"""Deliberation's offline model: the deliberation mind (:mod:`.mind`) behind ``mase serve``.

It reads the rules and the latest observation from the prompt and replies as
:class:`.bots.Deliberator` would, so offline-model seats and scripted seats play alike; its two
numbers (``share``, ``slip``) make it an imperfect deliberator for offline studies.
"""

from __future__ import annotations

from typing import ClassVar

from mase.envs.deliberation.mind import Mind
from mase.llm.offline import OfflineModel, Prompt


class DeliberationModel(OfflineModel):
    """The mind as an offline model.

    Args:
        share: the chance it states each of its fact lines in a turn.
        slip: the chance a plan of its is greedy instead of optimal.
        seed: the seed of its draws.
    """

    rules_head: ClassVar[str] = r"You are (?P<agent>[a-z_0-9]+),"
    cannot_act: ClassVar[str] = "I cannot read the game from my prompt, so I only listen."

    def __init__(self, share: float = 1.0, slip: float = 0.0, seed: int = 0):
        self.mind = Mind(share, slip, seed)

    def act(self, prompt: Prompt) -> str:
        """The mind's reply to the latest observation."""
        if not prompt.observations:
            return self.cannot_act
        return self.mind.reply(prompt.observations[-1])


respond = DeliberationModel()
