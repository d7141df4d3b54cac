"""The planner as a MASE policy: full information, one seat or the whole team."""

from __future__ import annotations

from typing import Any

from mase.agents.base import Policy
from mase.baselines.cbs.planner import NODE_BUDGET, Plan, Planner, progress_of
from mase.envs.search_rescue import world


class CBSPolicy(Policy):
    """Plays search and rescue by following a joint plan with the fewest rounds.

    The full-information upper bound of the paper's tables: it reads the true world
    (positions, every bomb's sequence and progress) from ``env.unwrapped`` instead of its
    observation, plans for the whole team with :class:`~mase.baselines.cbs.planner.Planner`
    and plays the plan's action for the agent whose turn it is. The same object may sit in
    several seats (it plays whoever is to act) or each seat may have its own. Separate
    copies may settle on different plans of equal length, but every action played starts a
    plan with the fewest rounds from the world as it is, so the team still finishes in the
    fewest rounds (when the plans are proven optimal; see ``Plan.optimal``).

    Before each turn it checks that the world is one its plan passes through (the plan is
    indexed by who acts, every room and every bomb's progress). When it is not — a teammate
    outside its control did something else, or a new episode began — it plans again from
    the world as it is. Once every bomb is spent the round still needs the remaining turns;
    those agents step through a door, which changes nothing.

    Args:
        node_budget: expansions of the exact search before the planner settles for the best
            plan it has, not proven optimal (see :mod:`mase.baselines.cbs.planner`).

    Attributes:
        plan: the plan being followed (``None`` before the first turn of an episode).
        plans: every plan made since the last ``reset`` (one, unless the world deviated).
    """

    def __init__(self, node_budget: int = NODE_BUDGET):
        self.node_budget = node_budget
        self.plan: Plan | None = None
        self.plans: list[Plan] = []
        self._planner: Planner | None = None
        self._next: dict[tuple, int] = {}

    def reset(self, agent: str, env: Any, seed: int | None = None) -> None:
        """Take seat ``agent`` of ``env``; the plan is made at the first turn.

        Raises:
            TypeError: ``env`` is not search and rescue.
        """
        world_state = getattr(env.unwrapped, "world", None)
        if not isinstance(world_state, world.State):
            raise TypeError(
                f"CBSPolicy plans for search and rescue; got {type(env.unwrapped).__name__}"
            )
        super().reset(agent, env, seed)
        self.plan = None
        self.plans = []
        self._next = {}

    def act(self, observation: Any, info: dict) -> int:
        """The plan's action for the agent to act now (planning again if the world deviated)."""
        base = self.env.unwrapped
        state = base.world
        agent = base.agent_selection
        if state.done:  # nothing left to cut, but the round still needs this agent's turn
            return idle_action(state, agent)
        key = self._key(state, agent)
        action = self._next.get(key)
        if action is None:
            self._replan(state, agent)
            action = self._next[key]
        return action

    def _key(self, state: world.State, agent: str) -> tuple:
        rooms = tuple(state.positions[a] for a in state.layout.agents)
        return (agent, rooms, progress_of(state))

    def _replan(self, state: world.State, agent: str) -> None:
        layout = state.layout
        if self._planner is None or self._planner.layout is not layout:
            # a planner's bounds are memoized per layout; the paper layout is kept by the env
            self._planner = Planner(layout, self.node_budget)
        self.plan = self._planner.plan(state, layout.agents.index(agent))
        self.plans.append(self.plan)
        self._next = {(s.agent, s.positions, s.progress): s.action for s in self.plan.steps}


def idle_action(state: world.State, agent: str) -> int:
    """A legal action that changes nothing that matters: inspect a live bomb, else move."""
    layout = state.layout
    room = state.positions[agent]
    bomb = state.bomb_in(room)
    if bomb is not None and bomb.live:
        return layout.action_index("inspect")
    return layout.action_index("go", min(layout.neighbours[room]))
