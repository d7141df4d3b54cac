"""A person at the terminal plays a seat."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import IO, Any

from mase.agents.base import Policy


class HumanPolicy(Policy):
    """Shows the text observation and reads a reply; bad replies are explained and re-asked.

    A reply is anything the task's ``parse_action`` reads (for search and rescue: "go to room
    3", "inspect", "apply red cutter"), optionally followed by "Message to Team: ...". An
    empty line or end of input ends the game for this seat with a clear error.
    """

    def __init__(
        self,
        read: Callable[[], str] | None = None,
        out: IO[str] | None = None,
        show_rules: bool = True,
    ):
        self.read = read or (lambda: input("> "))
        self.out = out or sys.stdout
        self.show_rules = show_rules

    def reset(self, agent: str, env: Any, seed: int | None = None) -> None:
        """Print the rules for this seat."""
        super().reset(agent, env, seed)
        if self.show_rules:
            print(env.unwrapped.rules_text(agent), file=self.out)
            print(
                "\n(Type one action per line, e.g. 'go to room 3' or 'apply red cutter'; add "
                "'Message to Team: ...' on the same line to talk.)",
                file=self.out,
            )

    def act(self, observation: Any, info: dict) -> Any:
        """Print the observation and read a reply until it names a legal action."""
        base = self.env.unwrapped
        text = observation.get("text") if isinstance(observation, dict) else None
        print("\n" + (text or base.observe_text(self.agent)), file=self.out)
        while True:
            try:
                reply = self.read()
            except EOFError:
                raise SystemExit("input ended; the game was stopped") from None
            parsed = base.parse_action(self.agent, reply)
            if parsed.action is not None:
                if parsed.message and getattr(base, "messages_enabled", False):
                    return {"action": parsed.action, "message": parsed.message}
                return parsed.action
            print(f"Not a legal action: {parsed.reason}", file=self.out)
