"""A person at the terminal plays a seat."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import IO, Any

from mase.agents.base import Policy


class HumanPolicy(Policy):
    """Shows the text observation and reads a reply; bad replies are explained and re-asked.

    A reply is anything the task reads (its ``read_action``: the action in words, optionally
    followed by ``Message to Team: ...`` when the env has a message channel); in a speech phase
    the reply is what the seat says. An empty line is a reply like any other; end of input ends
    the game for this seat with a clear error.
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
        """Print the rules for this seat and how to answer."""
        super().reset(agent, env, seed)
        if self.show_rules:
            base = env.unwrapped
            print(base.rules_text(agent), file=self.out)
            talk = " Add 'Message to Team: ...' to talk." if base.messages_enabled else ""
            print(f"\n(Type one reply per line.{talk})", file=self.out)

    def act(self, observation: Any, info: dict) -> Any:
        """Print the observation and read replies until one names a legal action."""
        base = self.env.unwrapped
        text = observation.get("text") if isinstance(observation, dict) else None
        print("\n" + (text or base.observe_text(self.agent)), file=self.out)
        while True:
            try:
                reply = self.read()
            except EOFError:
                raise SystemExit("input ended; the game was stopped") from None
            if base.phase.speech:
                return reply
            parsed = base.read_action(self.agent, reply)
            if parsed.action is not None:
                if parsed.message and not base.messages_enabled:
                    print("(No message channel here: your message was not sent.)", file=self.out)
                return reply
            print(f"Not a legal action: {parsed.reason}", file=self.out)
