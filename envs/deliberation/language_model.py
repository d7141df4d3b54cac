"""Deliberation's offline model: the deliberation mind (:mod:`.mind`) behind ``mase serve``.

It reads the rules and the latest observation from the prompt and replies as
:class:`.bots.Deliberator` would, so offline-model seats and scripted seats play alike; its two
numbers (``share``, ``slip``) make it an imperfect deliberator for offline studies.
"""

from __future__ import annotations

from typing import ClassVar

from mase.envs.deliberation.mind import Mind
from mase.envs.deliberation.text import LATEST
from mase.llm.offline import OfflineModel, Prompt

#: What marks a prompt whose rules offer the solver (:mod:`mase.tools`).
TOOLS_OFFERED = "Call: <name>("


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
        """The mind's reply to the latest observation (in belief mode: the belief's)."""
        seen = self._seen(prompt)
        if seen is None:
            return self.cannot_act
        tools = bool(prompt.rules) and TOOLS_OFFERED in prompt.rules
        result = prompt.outputs[-1] if tools and prompt.outputs else None
        return self.mind.reply(seen, tools=tools, tool_result=result)

    @staticmethod
    def _seen(prompt: Prompt) -> str | None:
        """The latest observation: the prompt's, or the one the latest belief carries."""
        if prompt.observations:
            return prompt.observations[-1]
        if prompt.beliefs and LATEST in prompt.beliefs[-1]:
            return prompt.beliefs[-1]  # its facts and the view it carries
        return None

    def rewrite_belief(self, prompt: Prompt) -> str:
        """Every private fact the latest observation states, and the proposal's value."""
        seen = self._seen(prompt)
        return self.cannot_read(prompt) if seen is None else self.mind.belief(seen)

    def answer(self, prompt: Prompt) -> str:
        """Yes or no to a probe of :mod:`.tom`, from who said what in the dialogue."""
        seen = self._seen(prompt)
        if seen is None or prompt.agent is None:
            return self.cannot_answer
        return self.mind.answer(prompt.question, seen, prompt.agent)


respond = DeliberationModel()
