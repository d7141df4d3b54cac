"""A scripted debater: the offline mind (:mod:`.language_model`) as a policy, no server needed.

:class:`DebateBot` plays a seat from its rules and text observation exactly as the offline
model would answer them (right with chance ``p`` in round 1, persuaded by a majority with
chance ``q`` later; the summarizer counts the answers), so scripted, offline-model and real
seats can share a debate.

Example:
    >>> import mase
    >>> from mase.runner import run_episode
    >>> env = mase.make("mase/Debate-v0", n_questions=5)
    >>> team = {a: DebateBot(p=1.0) for a in env.possible_agents}
    >>> run_episode(env, team, seed=2)["metrics"]["correct"]
    1.0
"""

from __future__ import annotations

from typing import Any

from mase.envs.debate.language_model import DebateModel
from mase.llm.offline import Item, Prompt


class DebateBot:
    """The offline debate mind as a policy; it answers in text.

    Args:
        p: the chance it is right in round 1.
        q: the chance it adopts a strict majority it reads in a later round.
        seed: the seed of its coins (the same seed as the offline model's gives its answers).
    """

    def __init__(self, p: float = 0.67, q: float = 0.6, seed: int = 0):
        self.mind = DebateModel(p, q, seed)
        self.agent: str | None = None
        self.env: Any = None

    def reset(self, agent: str, env: Any, seed: int | None = None) -> None:
        """Take a seat (the coins are the mind's own, fixed by question, seat and round)."""
        self.agent, self.env = agent, env

    def act(self, observation: Any, info: dict) -> str:
        """The mind's reply to this seat's rules and current text observation."""
        base = self.env.unwrapped
        prompt = Prompt(
            base.rules_text(self.agent), self.agent, "action", "",
            (Item("observation", base.observe_text(self.agent)),),
        )  # fmt: skip
        return self.mind.act(prompt)

    def __repr__(self) -> str:
        return f"DebateBot(p={self.mind.p}, q={self.mind.q})"
