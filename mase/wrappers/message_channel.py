"""Let agents talk: each turn an agent may send a text message to its teammates."""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.wrappers import BaseWrapper

from mase.task import TaskEnv


class MessageChannel(BaseWrapper):
    """Adds a message channel to any MASE task.

    ``step`` accepts, besides a plain action, ``{"action": a, "message": "..."}`` or a text
    reply whose ``Message to Team:`` part the task's parser finds. The message goes to every
    other agent (broadcast) and appears in each recipient's next observation (the text view,
    under ``Messages:``) and in its ``info["messages"]`` as records (sender, recipients,
    text, round). Messages longer than ``max_length`` characters are cut with a marker. A
    task without this wrapper is the no-communication condition.

    Args:
        env: a MASE task (possibly already wrapped).
        max_length: longest message kept, in characters.
    """

    def __init__(self, env: Any, max_length: int = 1000):
        super().__init__(env)
        base = env.unwrapped
        if not isinstance(base, TaskEnv):
            raise TypeError(f"MessageChannel needs a MASE task, got {type(base).__name__}")
        if max_length < 1:
            raise ValueError(f"max_length must be positive, got {max_length}")
        base.messages_enabled = True
        base.max_message_length = max_length
        self.max_length = max_length

    def step(self, action: Any) -> None:
        """Deliver the action's message (if any), then take the action."""
        base = self.env.unwrapped
        agent = base.agent_selection
        if not (base.terminations.get(agent) or base.truncations.get(agent)):
            message = None
            if isinstance(action, dict):
                unknown = set(action) - {"action", "message"}
                if unknown:
                    raise TypeError(
                        f"action dicts take the keys 'action' and 'message', got {sorted(unknown)}"
                    )
                message = action.get("message")
                action = action.get("action")
            elif isinstance(action, str):
                message = base.parse_action(agent, action).message
            if message:
                recipients = tuple(a for a in base.agents if a != agent)
                base.post_message(agent, str(message), recipients)
        self.env.step(action)
