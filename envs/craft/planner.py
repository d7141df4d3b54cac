"""The planner of the crafting world: plays a plan with the fewest rounds for the team.

The full-information upper bound of the task, as CBS is for search and rescue: the
``planner`` policy (``CraftEnv.policies``, ``--team planner``) plans for the whole team with
the exact search of :mod:`.search`, and :func:`optimal_makespan` says the fewest rounds from
a state (from a new episode, the best ``makespan`` any team can reach). Exact and quick on
the ``small`` recipes; :mod:`.search` says where its limits are.
"""

from __future__ import annotations

from typing import Any

from mase.agents.base import Policy
from mase.envs.craft.scripted import decide, team_plan
from mase.envs.craft.search import NODE_BUDGET, Plan, optimal_makespan, plan
from mase.envs.craft.world import Layout, state_of

__all__ = ["NODE_BUDGET", "Plan", "PlannerPolicy", "optimal_makespan", "plan", "policy"]


#: Actions of plans made so far: (map, round limit, round, agent, world key) -> action. Each
#: lies on a plan with the fewest rounds, so it starts one from that world; seats share them.
_PLAYBOOK: dict[tuple, int] = {}
_PLAYBOOK_SIZE = 200_000


def _map_key(layout: Layout) -> tuple:
    return (
        layout.paths,
        tuple(sorted(layout.sources.items())),
        tuple(sorted(layout.stations.items())),
        layout.agents,
        layout.book.name,
        layout.goal,
    )


class PlannerPolicy(Policy):
    """Plays the crafting task by a plan with the fewest rounds (:func:`plan`).

    Like the CBS policy of search and rescue it reads the true world from ``env.unwrapped``,
    plans for the whole team, and plays the planned action of whoever is to act; one object
    may sit in every seat, or each seat its own (plans are shared through a playbook). When
    the world leaves every plan made (a teammate it does not control did something else) it
    plans again from the world as it is. When a search finds no plan (the node budget ran
    out, or the goal cannot be made in the rounds left), it plays the scripted team's move
    (:mod:`mase.envs.craft.scripted`) for the rest of the episode and says so in
    :attr:`gave_up`.

    Args:
        node_budget: states each search may expand.

    Attributes:
        plans: the plans this object made since the last ``reset``.
        gave_up: whether it plays the scripted team's moves this episode.
    """

    def __init__(self, node_budget: int = NODE_BUDGET):
        self.node_budget = node_budget
        self.plans: list[Plan] = []
        self.gave_up = False

    def reset(self, agent: str, env: Any, seed: int | None = None) -> None:
        """Take seat ``agent`` of ``env``.

        Raises:
            TypeError: ``env`` is not the crafting task.
        """
        state = state_of(env, "PlannerPolicy")
        super().reset(agent, env, seed)
        self.plans = []
        self.gave_up = False
        self._scripted = team_plan(state)  # what every scripted seat plans from this start

    def act(self, observation: Any, info: dict) -> int:
        """The planned action for the agent to act now (planning when the world is new)."""
        base = self.env.unwrapped
        state, agent = base.world, base.agent_selection
        layout = state.layout
        if state.done:
            return layout.action_index("wait")
        if self.gave_up:
            return decide(state, agent, self._scripted)
        items = layout.book.closure(layout.goal)
        key = (_map_key(layout), base.max_cycles, state.round, agent, state.key(items))
        action = _PLAYBOOK.get(key)
        if action is None:
            made = plan(state, agent, base.max_cycles, self.node_budget)
            if made is None:
                self.gave_up = True
                return decide(state, agent, self._scripted)
            self.plans.append(made)
            if len(_PLAYBOOK) > _PLAYBOOK_SIZE:
                _PLAYBOOK.clear()
            rnd = state.round
            for (who, taken), world_key in zip(made.turns, made.keys, strict=True):
                _PLAYBOOK[(key[0], key[1], rnd, who, world_key)] = taken
                if who == layout.agents[-1]:
                    rnd += 1
            action = made.turns[0][1]
        return action


def policy(arg: str | None) -> PlannerPolicy:
    """The ``planner`` policy; ``planner:N`` caps each search at N expanded states."""
    if arg is None:
        return PlannerPolicy()
    if not arg.isdigit():
        raise ValueError(f"planner:N takes a node budget (a whole number), got {arg!r}")
    return PlannerPolicy(node_budget=int(arg))
