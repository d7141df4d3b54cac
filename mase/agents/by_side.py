"""A seat whose policy depends on the side it is dealt: hidden-role tasks deal sides per game.

In a hidden-role task the seats' sides change every episode, so a team such as "the good side
plays one policy, the evil side another" cannot be written seat by seat.
:class:`BySide` holds one policy per side and, when the episode starts, plays the one of the
side the task dealt the seat (``env.unwrapped.side_of(agent)``). Choosing is the seating,
done by the harness; the chosen policy still sees only its seat's observations.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from mase.agents.base import PolicyProtocol


class BySide:
    """Plays the policy of the side the seat is dealt this episode.

    Args:
        policies: side name -> policy; a side without one raises at ``reset``.
    """

    def __init__(self, policies: Mapping[str, PolicyProtocol]):
        if not policies:
            raise ValueError("BySide needs a policy for at least one side")
        self.policies = dict(policies)
        self.current: PolicyProtocol | None = None
        self.side = ""

    def reset(self, agent: str, env: Any, seed: int | None = None) -> None:
        """Take the policy of ``agent``'s side this episode, and reset it."""
        self.side = env.unwrapped.side_of(agent)
        if self.side not in self.policies:
            raise ValueError(
                f"no policy for side {self.side!r} of seat {agent!r}; the team gives "
                f"{', '.join(self.policies)}"
            )
        self.current = self.policies[self.side]
        self.current.reset(agent, env, seed)

    def act(self, observation: Any, info: dict) -> Any:
        """The current policy's action."""
        return self.current.act(observation, info)

    def __getattr__(self, name: str) -> Any:
        # answer(), episode_record() and the like: the policy playing this episode's
        if name in ("answer", "aact", "aanswer", "episode_record", "current_belief"):
            current = self.__dict__.get("current")
            if current is not None and hasattr(current, name):
                return getattr(current, name)
        raise AttributeError(name)

    def spawn(self) -> BySide:
        """A copy for another worker (each side's ``spawn()``, else a deep copy)."""
        return BySide({
            side: p.spawn() if callable(getattr(p, "spawn", None)) else copy.deepcopy(p)
            for side, p in self.policies.items()
        })  # fmt: skip

    def __repr__(self) -> str:
        return "BySide(" + ", ".join(f"{s}={p!r}" for s, p in self.policies.items()) + ")"
