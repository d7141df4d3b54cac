"""The policy protocol every MASE seat is played through."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class PolicyProtocol(Protocol):
    """What the runner needs from a policy.

    ``reset`` is called once per episode after ``env.reset``; ``act`` once per turn with the
    observation and info of ``env.last()``. ``act`` returns an action index, text that the
    env parses, or ``{"action": ..., "message": ...}`` when the env has a message channel.
    A policy may also define ``answer(question) -> str`` for Theory-of-Mind probes.
    """

    def reset(self, agent: str, env: Any, seed: int | None = None) -> None:
        """Prepare to play seat ``agent`` of ``env`` for a new episode."""

    def act(self, observation: Any, info: dict) -> Any:
        """Choose this turn's action."""


class Policy:
    """Convenience base class: stores the seat and env; subclasses implement ``act``."""

    agent: str
    env: Any

    def reset(self, agent: str, env: Any, seed: int | None = None) -> None:
        """Remember the seat and the env for this episode."""
        self.agent = agent
        self.env = env

    def act(self, observation: Any, info: dict) -> Any:
        """Choose this turn's action."""
        raise NotImplementedError
