"""A scripted group member: the offline group mind (:mod:`.language_model`) as a policy.

:class:`GroupBot` plays any seat of the protocol from its text view exactly as the offline
model would answer it, so scripted, offline-model and real seats can share a group.
"""

from __future__ import annotations

from typing import Any

from mase.agents.base import Policy
from mase.envs.agentverse.language_model import AgentVerseModel


class GroupBot(Policy):
    """The offline group mind as a policy; it replies in text.

    Args:
        p, r, f, e: as :class:`~.language_model.AgentVerseModel` (proposals right, wrong ones
            caught, right ones falsely criticized, evaluations right).
        seed: the seed of its draws.
    """

    def __init__(self, p: float = 0.6, r: float = 0.8, f: float = 0.1, e: float = 0.9,
                 seed: int = 0):  # fmt: skip
        self.mind = AgentVerseModel(p, r, f, e, seed)

    def act(self, observation: Any, info: dict) -> str:
        """The mind's reply to this seat's text view."""
        return self.mind.reply(self.env.unwrapped.observe_text(self.agent))

    def __repr__(self) -> str:
        m = self.mind
        return f"GroupBot(p={m.p}, r={m.r}, f={m.f}, e={m.e})"
