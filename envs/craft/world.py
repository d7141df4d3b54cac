"""The rules of the crafting world as a pure core: a map, a state, and ``step``.

Nothing here does I/O or writes text. ``step`` mutates the :class:`State` it is given and
returns the :class:`~mase.events.Event` records of what happened; to look ahead (a planner, a
test's brute force) copy the state first with :meth:`State.copy`. The maps themselves are
:mod:`.maps`.

Actions are indices into :attr:`Layout.actions`: ``("wait",)``, then ``("move", place)`` for
every place, ``("gather", resource)`` for every resource, ``("craft", item)`` for every recipe
and ``("give", item, recipient, quantity)`` for every item, agent and quantity from 1 to
:data:`MAX_GIVE`. The table depends on the recipe book and the team, never on the map, so a
random map keeps the action space.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from mase.envs.craft.recipes import Book, shortfall
from mase.events import Event

# -- the world as data -------------------------------------------------------------------------

AGENT_NAMES = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel")
#: The most items one give hands over.
MAX_GIVE = 9
#: What each agent's tally counts (``State.tally``, the episode's contributions).
TALLY_KEYS = ("moves", "gathers", "crafts", "items_made", "gives", "items_given", "waits")

Action = tuple
StartRule = Literal["village", "random"]

#: Why an action can fail; the text module words each reason for the agent.
INVALID_REASONS = (
    "already_there",
    "not_adjacent",
    "not_here",
    "needs_tool",
    "no_station",
    "missing_inputs",
    "self_give",
    "not_together",
    "not_enough",
)


@dataclass(frozen=True)
class Layout:
    """What stays fixed during an episode: the map, the team, the recipes and the goal.

    Attributes:
        places: place names, in action order.
        neighbours: for each place, the places one path away.
        sources: resource -> the place it is gathered at.
        stations: station -> the place it stands at.
        agents: agent names, in turn order.
        book: the recipe book.
        goal: the item the team must make.
    """

    places: tuple[str, ...]
    neighbours: dict[str, frozenset[str]]
    sources: dict[str, str]
    stations: dict[str, str]
    agents: tuple[str, ...]
    book: Book
    goal: str
    actions: tuple[Action, ...] = field(init=False)
    paths: tuple[tuple[str, str], ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "actions", action_table(self.places, self.book, self.agents))
        order = {p: i for i, p in enumerate(self.places)}
        paths = sorted(
            {tuple(sorted((a, b), key=order.get)) for a in self.places for b in self.neighbours[a]},
            key=lambda e: (order[e[0]], order[e[1]]),
        )
        object.__setattr__(self, "paths", tuple(paths))

    def action_index(self, *action: object) -> int:
        """The index of an action, e.g. ``layout.action_index("give", "plank", "bravo", 2)``."""
        index = self.__dict__.get("_index")
        if index is None:
            index = {a: i for i, a in enumerate(self.actions)}
            object.__setattr__(self, "_index", index)  # frozen: a cache, not a field
        return index[tuple(action)]

    def distances(self) -> dict[str, dict[str, int]]:
        """Fewest moves between every pair of places (breadth-first search; cached)."""
        table = self.__dict__.get("_distances")
        if table is not None:
            return table
        table = {}
        for start in self.places:
            dist, frontier = {start: 0}, [start]
            while frontier:
                nxt = []
                for place in frontier:
                    for other in self.places:  # in place order: ties break the same way
                        if other in self.neighbours[place] and other not in dist:
                            dist[other] = dist[place] + 1
                            nxt.append(other)
                frontier = nxt
            table[start] = dist
        object.__setattr__(self, "_distances", table)
        return table

    def next_hop(self, start: str, goal: str) -> str:
        """The first place on a shortest path from ``start`` to ``goal`` (first in place order)."""
        dist = self.distances()
        for place in self.places:
            if place in self.neighbours[start] and dist[place][goal] == dist[start][goal] - 1:
                return place
        raise ValueError(f"no path from {start} to {goal}")

    def resources_at(self, place: str) -> tuple[str, ...]:
        """The resources gathered at ``place``, in item order."""
        return tuple(r for r in self.book.resources if self.sources[r] == place)

    def stations_at(self, place: str) -> tuple[str, ...]:
        """The stations at ``place``, in book order."""
        return tuple(s for s in self.book.stations if self.stations[s] == place)


def action_table(places: tuple[str, ...], book: Book, agents: tuple[str, ...]) -> tuple:
    """Every (action, argument) pair, in the order of the ``Discrete`` action space."""
    actions: list[Action] = [("wait",)]
    actions += [("move", p) for p in places]
    actions += [("gather", r) for r in book.resources]
    actions += [("craft", i) for i in book.recipes]
    actions += [
        ("give", item, to, n)
        for item in book.items
        for to in agents
        for n in range(1, MAX_GIVE + 1)
    ]
    return tuple(actions)


@dataclass
class State:
    """Everything that changes during an episode.

    Attributes:
        layout: the fixed part of the world.
        positions: the place each agent is at.
        inventories: agent -> item -> count (every item of the book, zeros included).
        round: the current round, starting at 1.
        tally: agent -> what it did: ``moves``, ``gathers``, ``crafts``, ``items_made``,
            ``gives`` (actions), ``items_given`` and ``waits`` (:data:`TALLY_KEYS`).
        transfers: every give so far: ``(round, giver, recipient, item, quantity)``.
        made_in: the round the goal was first held (``None`` before).
    """

    layout: Layout
    positions: dict[str, str]
    inventories: dict[str, dict[str, int]]
    round: int = 1
    tally: dict[str, dict[str, int]] = field(default_factory=dict)
    transfers: list[tuple[int, str, str, str, int]] = field(default_factory=list)
    made_in: int | None = None

    def copy(self) -> State:
        """An independent copy (the layout is shared: it never changes)."""
        return State(
            self.layout,
            dict(self.positions),
            {a: dict(inv) for a, inv in self.inventories.items()},
            self.round,
            {a: dict(t) for a, t in self.tally.items()},
            list(self.transfers),
            self.made_in,
        )

    def agents_at(self, place: str) -> tuple[str, ...]:
        """The agents at ``place``, in turn order."""
        return tuple([a for a in self.layout.agents if self.positions[a] == place])

    def pooled(self) -> dict[str, int]:
        """The team's items as one pile."""
        pile = dict.fromkeys(self.layout.book.items, 0)
        for inventory in self.inventories.values():
            for item, count in inventory.items():
                pile[item] += count
        return pile

    @property
    def done(self) -> bool:
        """Whether someone holds the goal item."""
        goal = self.layout.goal
        return any(inv[goal] > 0 for inv in self.inventories.values())

    def key(self, items: tuple[str, ...] | None = None) -> tuple:
        """A hashable summary: positions and the counts of ``items`` (default all)."""
        items = self.layout.book.items if items is None else items
        return (
            tuple([self.positions[a] for a in self.layout.agents]),
            tuple([tuple([self.inventories[a][i] for i in items]) for a in self.layout.agents]),
        )


# -- building episodes ----------------------------------------------------------------------


def state_of(env: Any, player: str) -> State:
    """The crafting world's state behind ``env``, for a policy named ``player``.

    Raises:
        TypeError: ``env`` is not the crafting task.
    """
    state = getattr(env.unwrapped, "world", None)
    if not isinstance(state, State):
        raise TypeError(f"{player} plays Craft; got {type(env.unwrapped).__name__}")
    return state


def new_state(
    layout: Layout, rng: np.random.Generator, start: StartRule | tuple[str, ...] = "village"
) -> State:
    """Empty inventories; everyone at the village, each at a random place, or as given."""
    if start == "village":
        positions = dict.fromkeys(layout.agents, "village")
    elif start == "random":
        positions = {a: layout.places[int(rng.integers(len(layout.places)))] for a in layout.agents}
    else:
        positions = dict(zip(layout.agents, start, strict=True))
    inventories = {a: dict.fromkeys(layout.book.items, 0) for a in layout.agents}
    tally = {a: dict.fromkeys(TALLY_KEYS, 0) for a in layout.agents}
    return State(layout, positions, inventories, tally=tally)


# -- rules ------------------------------------------------------------------------------------


def invalid_reason(state: State, agent: str, action: int) -> str | None:
    """Why ``agent`` cannot take ``action`` now (a code of :data:`INVALID_REASONS`).

    Returns ``None`` when the action is legal. ``action`` must be an index of the table.
    """
    layout = state.layout
    kind, *args = layout.actions[action]
    here = state.positions[agent]
    inventory = state.inventories[agent]
    if kind == "move":
        if args[0] == here:
            return "already_there"
        return None if args[0] in layout.neighbours[here] else "not_adjacent"
    if kind == "gather":
        resource = args[0]
        if layout.sources[resource] != here:
            return "not_here"
        tool = layout.book.tools.get(resource)
        return "needs_tool" if tool is not None and inventory[tool] < 1 else None
    if kind == "craft":
        recipe = layout.book.recipes[args[0]]
        if recipe.station is not None and layout.stations[recipe.station] != here:
            return "no_station"
        for item, quantity in recipe.inputs:
            if inventory[item] < quantity:
                return "missing_inputs"
        return None
    if kind == "give":
        item, to, quantity = args
        if to == agent:
            return "self_give"
        if state.positions[to] != here:
            return "not_together"
        return "not_enough" if inventory[item] < quantity else None
    return None  # wait


def legal_mask(state: State, agent: str) -> np.ndarray:
    """0/1 int8 mask over the action table: what ``agent`` may do now."""
    layout = state.layout
    mask = np.zeros(len(layout.actions), dtype=np.int8)
    mask[0] = 1
    here = state.positions[agent]
    inventory = state.inventories[agent]
    base = _first_give(layout)
    for i in range(1, base):
        if invalid_reason(state, agent, i) is None:
            mask[i] = 1
    n_agents = len(layout.agents)
    mates = [j for j, other in enumerate(layout.agents) if other != agent]
    mates = [j for j in mates if state.positions[layout.agents[j]] == here]
    if mates:
        for k, item in enumerate(layout.book.items):
            most = min(inventory[item], MAX_GIVE)
            for j in mates:
                start = base + (k * n_agents + j) * MAX_GIVE
                mask[start : start + most] = 1
    return mask


def _first_give(layout: Layout) -> int:
    return 1 + len(layout.places) + len(layout.book.resources) + len(layout.book.recipes)


def step(state: State, agent: str, action: int) -> list[Event]:
    """Resolve one agent's legal action, mutating ``state``; returns its events.

    Raises:
        ValueError: the action is illegal (callers check :func:`invalid_reason` first).
    """
    reason = invalid_reason(state, agent, action)
    if reason is not None:
        raise ValueError(f"{agent} cannot take {state.layout.actions[action]}: {reason}")
    layout, rnd = state.layout, state.round
    kind, *args = layout.actions[action]
    here = state.positions[agent]
    inventory = state.inventories[agent]
    present = frozenset(state.agents_at(here))
    tally = state.tally[agent]
    if kind == "wait":
        tally["waits"] += 1
        return [Event("wait", agent, {}, frozenset((agent,)), rnd)]
    if kind == "move":
        target = args[0]
        state.positions[agent] = target
        tally["moves"] += 1
        seen = present | frozenset(state.agents_at(target))
        facts = {("place", agent): target}
        return [Event("move", agent, facts, seen, rnd, note=here)]
    if kind == "gather":
        resource = args[0]
        inventory[resource] += 1
        tally["gathers"] += 1
        facts = {("has", agent, resource): inventory[resource]}
        return [Event("gather", agent, facts, present, rnd, note=resource)]
    if kind == "craft":
        recipe = layout.book.recipes[args[0]]
        for item, quantity in recipe.inputs:
            inventory[item] -= quantity
        inventory[recipe.output] += recipe.count
        tally["crafts"] += 1
        tally["items_made"] += recipe.count
        changed = [item for item, _ in recipe.inputs] + [recipe.output]
        facts = {("has", agent, item): inventory[item] for item in changed}
        _mark_goal(state)
        return [Event("craft", agent, facts, present, rnd, note=recipe.output)]
    item, to, quantity = args
    inventory[item] -= quantity
    state.inventories[to][item] += quantity
    tally["gives"] += 1
    tally["items_given"] += quantity
    state.transfers.append((rnd, agent, to, item, quantity))
    facts = {("has", agent, item): inventory[item], ("has", to, item): state.inventories[to][item]}
    _mark_goal(state)
    return [Event("give", agent, facts, present, rnd, note=f"{quantity} {item} {to}")]


def _mark_goal(state: State) -> None:
    if state.made_in is None and state.done:
        state.made_in = state.round


def work_left(state: State) -> int:
    """Gathers and crafts the team still needs for the goal, from its pooled items."""
    return shortfall(state.layout.book, state.pooled(), {state.layout.goal: 1}).ops


# -- what an agent sees ----------------------------------------------------------------------


def view_facts(state: State, agent: str, see_teammates: bool) -> dict:
    """The facts ``agent`` sees at the start of its turn, without acting.

    The round and the goal, its own place and whole inventory (zeros included), the
    resources and stations at its place, and the places of teammates: every teammate's with
    ``see_teammates``, else those at its own place. Teammates' inventories are not seen; an
    agent learns them from what happens at its place (gathers, crafts, gives) or from
    messages.
    """
    layout = state.layout
    here = state.positions[agent]
    facts: dict = {("round",): state.round, ("goal",): layout.goal, ("place", agent): here}
    for other in layout.agents:
        if other != agent and (see_teammates or state.positions[other] == here):
            facts[("place", other)] = state.positions[other]
    inventory = state.inventories[agent]
    for item in layout.book.items:
        facts[("has", agent, item)] = inventory[item]
    for resource in layout.resources_at(here):
        facts[("source", resource)] = here
    for station in layout.stations_at(here):
        facts[("station", station)] = here
    return facts


#: Facts every agent sees at once: the round, the goal, the map's public part.
PUBLIC_KINDS = frozenset(("round", "goal", "source", "station"))


def shared_view(
    facts: dict, agent: str, agents: tuple[str, ...], see_teammates: bool
) -> list[tuple[frozenset[str], dict]]:
    """Split ``agent``'s turn view (:func:`view_facts`) by who sees each part with it.

    The round, the goal and the map go to all agents; with ``see_teammates`` so does every
    agent's place; without it, the places of those present are seen by everyone present.
    The inventory stays the agent's own. Read from the view alone, so the split is pure.
    """
    here = facts.get(("place", agent))
    present = frozenset(a for a in agents if facts.get(("place", a)) == here) | {agent}
    public, local, own = {}, {}, {}
    for key, value in facts.items():
        kind = key[0]
        if kind in PUBLIC_KINDS or (kind == "place" and see_teammates):
            public[key] = value
        elif kind == "place":
            local[key] = value
        else:
            own[key] = value
    parts = [(frozenset(agents), public), (present, local), (frozenset((agent,)), own)]
    return [(audience, part) for audience, part in parts if part]
