"""The scripted crafting team: split the goal's recipe tree, make the parts, hand them over.

Every seat computes the same :class:`TeamPlan` at the start of an episode, by a fixed rule
from the same information (the map, the recipe book, the team's places and items):

1. The goal's recipe names its inputs (a bookshelf: 6 planks and 3 books). Each input is
   split into *parts* of one craft's output (planks come 4 to a craft: parts of 4 and 2; a
   book is a part of its own); a resource input is one part per unit.
2. One agent assembles: the one nearest the goal's station (the meeting place), first in
   turn order on ties. It crafts the goal from the parts.
3. Parts are dealt longest first, each to the agent whose estimated finishing time grows
   least (turn order on ties). An agent's time is the bill of materials of its parts
   (:func:`mase.envs.craft.recipes.shortfall`: gathers and crafts, a tool made once), a
   nearest-first route through the places they take, and a give per item it hands over.

Then each agent makes its own parts from its own inventory (the bill of materials again,
each turn: craft what it can here, else gather what it can here, else walk to the nearest
place where it can do the next step), takes them to the meeting place and gives them to the
assembler. The assembler makes its own parts, waits at the meeting place until it holds the
goal's inputs, and crafts the goal.

The seats read the world as a team that reports everything would know it (who is where and
holds what, from ``env.unwrapped.world``), the way the planner does; with a message channel
they also tell the team their place and inventory in the task's fact sentences.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mase.agents.base import Policy
from mase.envs.craft.recipes import Needs, shortfall
from mase.envs.craft.text import fact_sentence, inventory_sentence
from mase.envs.craft.world import MAX_GIVE, Layout, State, state_of


@dataclass(frozen=True)
class TeamPlan:
    """Who assembles, where, and the parts each agent makes.

    Attributes:
        assembler: the agent that crafts the goal.
        meeting: the place it crafts it at (the goal's station, if it needs one).
        shares: agent -> item -> how many it makes and hands to the assembler (the
            assembler's own share it keeps).
    """

    assembler: str
    meeting: str
    shares: dict[str, dict[str, int]]


def meeting_place(layout: Layout) -> str:
    """Where the goal is assembled.

    Its station's place; for a goal crafted anywhere, the first station's, else the first
    place.
    """
    recipe = layout.book.recipes[layout.goal]
    if recipe.station is not None:
        return layout.stations[recipe.station]
    if layout.book.stations:
        return layout.stations[layout.book.stations[0]]
    return layout.places[0]


def places_of(layout: Layout, needs: Needs) -> set[str]:
    """The places a bill of materials takes the maker to (sources and stations)."""
    places = {layout.sources[r] for r in needs.gathers}
    for item in needs.crafts:
        station = layout.book.recipes[item].station
        if station is not None:
            places.add(layout.stations[station])
    return places


def route_length(layout: Layout, start: str, stops: set[str], end: str) -> int:
    """Moves of a nearest-first walk from ``start`` through ``stops`` to ``end``."""
    dist = layout.distances()
    here, total, left = start, 0, set(stops)
    while left:
        nearest = min(left, key=lambda p: (dist[here][p], layout.places.index(p)))
        total += dist[here][nearest]
        here = nearest
        left.discard(nearest)
    return total + dist[here][end]


def estimate(state: State, agent: str, share: dict[str, int], meeting: str, gives: bool) -> int:
    """Turns ``agent`` needs to make ``share`` and bring it to ``meeting`` (an estimate)."""
    layout = state.layout
    needs = shortfall(layout.book, state.inventories[agent], share)
    walk = route_length(layout, state.positions[agent], places_of(layout, needs), meeting)
    handing = sum(1 for q in share.values() if q > 0) if gives else 0
    return needs.ops + walk + handing


def team_plan(state: State) -> TeamPlan:
    """The plan every seat computes from ``state`` (see the module docstring)."""
    layout = state.layout
    book, agents = layout.book, layout.agents
    recipe = book.recipes[layout.goal]
    meeting = meeting_place(layout)
    dist = layout.distances()
    assembler = min(agents, key=lambda a: (dist[state.positions[a]][meeting], agents.index(a)))
    pooled = state.pooled()
    parts: list[tuple[str, int]] = []
    for item, quantity in recipe.inputs:
        net = quantity - pooled[item]
        size = book.recipes[item].count if item in book.recipes else 1
        while net > 0:
            parts.append((item, min(size, net)))
            net -= size
    shares: dict[str, dict[str, int]] = {a: {} for a in agents}

    def finish(agent: str, share: dict[str, int]) -> int:
        own = agent == assembler
        return estimate(state, agent, share, meeting, gives=not own) + (1 if own else 0)

    def alone(part: tuple[str, int]) -> int:
        return shortfall(book, {}, {part[0]: part[1]}).ops

    order = {item: k for k, item in enumerate(book.items)}
    for item, quantity in sorted(parts, key=lambda p: (-alone(p), order[p[0]], -p[1])):
        best = None
        for k, agent in enumerate(agents):
            grown = dict(shares[agent])
            grown[item] = grown.get(item, 0) + quantity
            cost = (finish(agent, grown), k)
            if best is None or cost < best[0]:
                best = (cost, agent, grown)
        _, agent, grown = best
        shares[agent] = grown
    return TeamPlan(assembler, meeting, shares)


def _received(state: State, agent: str, giver: str | None = None) -> dict[str, int]:
    """Items given to ``agent`` (by ``giver``, or by anyone) so far, by item."""
    got: dict[str, int] = {}
    for _, source, to, item, quantity in state.transfers:
        if to == agent and (giver is None or source == giver):
            got[item] = got.get(item, 0) + quantity
    return got


def _toward(layout: Layout, here: str, target: str) -> int:
    return layout.action_index("move", layout.next_hop(here, target))


def produce(state: State, agent: str, needs: Needs) -> int:
    """The next step toward ``needs``: craft here, gather here, or walk to where one can."""
    layout = state.layout
    book = layout.book
    here = state.positions[agent]
    inventory = state.inventories[agent]
    where: list[tuple[str, int]] = []  # (place, action) of every step possible now
    for item in needs.crafts:
        recipe = book.recipes[item]
        if all(inventory[i] >= n for i, n in recipe.inputs):
            place = here if recipe.station is None else layout.stations[recipe.station]
            where.append((place, layout.action_index("craft", item)))
    for resource in needs.gathers:
        tool = book.tools.get(resource)
        if tool is None or inventory[tool] > 0:
            where.append((layout.sources[resource], layout.action_index("gather", resource)))
    for place, action in where:
        if place == here:
            return action
    if not where:
        return layout.action_index("wait")
    dist = layout.distances()[here]
    target = min((p for p, _ in where), key=lambda p: (dist[p], layout.places.index(p)))
    return _toward(layout, here, target)


def decide(state: State, agent: str, plan: TeamPlan) -> int:
    """The scripted action of ``agent`` now (an index of the action table)."""
    layout = state.layout
    book = layout.book
    wait = layout.action_index("wait")
    if state.done:
        return wait
    here = state.positions[agent]
    inventory = state.inventories[agent]
    share = plan.shares.get(agent, {})
    if agent == plan.assembler:
        received = _received(state, agent)
        own = {i: max(0, inventory[i] - received.get(i, 0)) for i in book.items}
        needs = shortfall(book, own, share)
        if needs:
            return produce(state, agent, needs)
        if here != plan.meeting:
            return _toward(layout, here, plan.meeting)
        recipe = book.recipes[layout.goal]
        if all(inventory[i] >= n for i, n in recipe.inputs):
            return layout.action_index("craft", layout.goal)
        return wait
    given = _received(state, plan.assembler, giver=agent)
    remaining = {i: q - given.get(i, 0) for i, q in share.items() if q > given.get(i, 0)}
    if not remaining:
        return wait
    needs = shortfall(book, inventory, remaining)
    if needs:
        return produce(state, agent, needs)
    if state.positions[plan.assembler] == here:
        item, quantity = next(iter(remaining.items()))
        return layout.action_index("give", item, plan.assembler, min(quantity, MAX_GIVE))
    if here != plan.meeting:
        return _toward(layout, here, plan.meeting)
    return wait


class ScriptedCrafter(Policy):
    """A seat of the scripted team (see the module docstring); any number of seats.

    Args:
        talk: tell the team one's place and inventory when they change (default: when the
            env has a message channel).

    Attributes:
        plan: the team plan of this episode (made at ``reset``).
    """

    def __init__(self, talk: bool | None = None):
        self.talk_option = talk
        self.plan: TeamPlan | None = None

    def reset(self, agent: str, env: Any, seed: int | None = None) -> None:
        """Take seat ``agent``; make the team plan from the world as it starts.

        Raises:
            TypeError: ``env`` is not the crafting task.
        """
        state = state_of(env, "ScriptedCrafter")
        super().reset(agent, env, seed)
        self.plan = team_plan(state)
        talk = getattr(env.unwrapped, "messages_enabled", False)
        self.talk = talk if self.talk_option is None else self.talk_option
        self._told = ""

    def act(self, observation: Any, info: dict) -> Any:
        """The scripted action (an index), with news for the team when it talks."""
        state = self.env.unwrapped.world
        action = decide(state, self.agent, self.plan)
        if not self.talk:
            return action
        book = state.layout.book
        news = fact_sentence(("place", self.agent), state.positions[self.agent]) + " "
        news += inventory_sentence(self.agent, state.inventories[self.agent], book.items)
        if news == self._told:
            return action
        self._told = news
        return {"action": action, "message": news}
