"""Text actions: ``env.step(text)``, read by the task's parser, with validity counted."""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.wrappers import BaseWrapper

from mase.actions import check_playing, plain_text
from mase.task import TaskEnv


class TextActions(BaseWrapper):
    """Play any MASE task in words: ``env.step("go to room 3")``.

    Each text is read by the task's ``read_action`` (the same parser LLM agents are scored
    with). A text that names no legal action is still passed to the task, which treats it as
    an invalid action and tells the agent why in its next observation; the reason is also in
    ``info["last_parse"]`` of the acting agent. Outputs and valid outputs are counted (the
    paper's valid-action rate: the share of outputs that parse to a legal action).
    Dict actions are read from their ``"action"`` key; action indices pass through uncounted.

    Args:
        env: a MASE task, possibly already wrapped (put it outside a
            :class:`~mase.wrappers.MessageChannel` so a reply's message part is delivered).
    """

    def __init__(self, env: Any):
        super().__init__(env)
        if not isinstance(env.unwrapped, TaskEnv):
            raise TypeError(f"TextActions needs a MASE task, got {type(env.unwrapped).__name__}")
        self.outputs = 0
        self.valid_outputs = 0

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Reset the task and the counts."""
        self.outputs = 0
        self.valid_outputs = 0
        self.env.reset(seed=seed, options=options)

    @property
    def valid_action_rate(self) -> float | None:
        """Share of text outputs this episode that parsed to a legal action."""
        return self.valid_outputs / self.outputs if self.outputs else None

    def step(self, action: Any) -> None:
        """Parse and count a text action, then take it."""
        base = self.env.unwrapped
        agent = base.agent_selection
        check_playing(base)
        # a str subclass is read as plain text: its own methods never run, here or in infos
        text = plain_text(action.get("action") if type(action) is dict else action)
        live = not (base.terminations.get(agent) or base.truncations.get(agent))
        if live and text is not None:
            parsed = base.read_action(agent, text)
            self.outputs += 1
            self.valid_outputs += parsed.action is not None
            last = {"text": text, "action": parsed.action, "reason": parsed.reason}
        else:
            last = None
        self.env.step(action)
        if last is not None and agent in base.infos:
            base.infos[agent]["last_parse"] = last

    def episode_record(self) -> dict[str, Any]:
        """The episode's counts and valid-action rate over text outputs."""
        metrics: dict[str, Any] = {
            "text_outputs": self.outputs,
            "text_valid_outputs": self.valid_outputs,
        }
        if self.outputs:
            metrics["text_valid_rate"] = self.valid_outputs / self.outputs
        return {"metrics": metrics}
