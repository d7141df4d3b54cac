"""A scripted group member: the offline group mind (:mod:`.language_model`) as a policy.

:class:`GroupBot` plays any seat of the protocol from its text view exactly as the offline
model would answer it, so scripted, offline-model and real seats can share a group.
"""

from __future__ import annotations

import weakref
from typing import Any

from mase.agents.base import Policy
from mase.envs.agentverse.language_model import AgentVerseModel

#: The wrapped task's scripted team of each protocol env: (episode, agent -> policy).
_TEAMS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def task_team(env: Any, seed: int = 0) -> dict[str, Any]:
    """The wrapped task's scripted team for this protocol episode, one policy per task agent.

    Made once an episode, before the task's first move, so every seat's scripted policy plans
    from the same start (the crafting world's scripted team computes one shared plan). A task
    without a scripted policy gets random legal moves.
    """
    from mase.agents import make_policy

    inner = env.inner
    known = _TEAMS.get(env)
    if known is not None and known[0] == env.problem.id and known[1] is inner:
        return known[2]
    kind = "scripted" if getattr(inner, "scripted_policy", None) else "random"
    team = {}
    for agent in inner.possible_agents:
        team[agent] = make_policy(kind, inner)
        team[agent].reset(agent, inner, seed=seed)
    _TEAMS[env] = (env.problem.id, inner, team)
    return team


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
        self.seed = seed

    def act(self, observation: Any, info: dict) -> Any:
        """The mind's reply to this seat's text view.

        In the execution stage of a wrapped task, the task's own scripted policy acts for the
        task's agent (:func:`task_team`).
        """
        env = self.env.unwrapped
        if env.inner is not None and env.phase.name == "execute":
            inner, agent = env.inner, env.inner.agent_selection
            move = task_team(env, self.seed)[agent].act(inner.observe(agent), inner.infos[agent])
            return move["action"] if isinstance(move, dict) else move  # no channel here
        return self.mind.reply(env.observe_text(self.agent))

    def __repr__(self) -> str:
        m = self.mind
        return f"GroupBot(p={m.p}, r={m.r}, f={m.f}, e={m.e})"
