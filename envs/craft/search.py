"""The exact search of the crafting world: the fewest rounds the whole team needs.

The search behind :mod:`.planner`. For a number of rounds ``R``, tried upward from a lower
bound, it searches the joint game turn by turn (every legal action of whoever is to act, in
turn order) depth first for a way to hold the goal by the end of round ``R``; the first ``R``
with one is the optimum, every smaller one having been searched to the end. Three things keep
the search small, and none can cut off every best plan:

- *Needless steps*. A gather whose unit is never used, a craft none of whose output is used,
  or a tool nobody gathers with can be replaced by a wait without delaying the goal, so some
  best plan has none. In such a plan the team never holds more of an item than
  :func:`.recipes.production_caps` allows; the search lets no agent hold more than that plus
  one craft's output less one (the margin keeps the next rule sound). Items outside the
  goal's recipe tree are left out: holding them changes nothing.
- *Dominance*. Having more of any item never hurts (every action legal with fewer items is
  legal with more). So a joint state is dropped when one with the same places and the same
  agent to act was reached no later with at least as much of every item for every agent.
  (A plan from the dropped state, played from the other one, stays within the caps by
  skipping the steps whose output the agent already holds.)
- *Bounds*. A state is dropped when even a relaxed team could not finish in ``R`` rounds:
  the turns left must hold the goal's gathers and crafts (:func:`.recipes.shortfall` of the
  team's pooled items) and a move into every place that work needs; and the goal's recipe
  tree takes, step after step, a round each, with items carried at most one place a round
  (only their holder's move carries them) but handed over for free.

Tests check the optimum against a brute-force search that plays the game's own ``step``.

Limits: the search grows with the team, the map and above all the counts in the recipes.
On the ``small`` recipes every goal is solved exactly in about a second or less for one to
four agents on any map (the lower bound is often the optimum). On the ``default`` recipes
the goals up to a book or a wooden pickaxe take a second or two, now and then half a minute;
the bookshelf (14 gathers and 9 crafts) and the stone and iron goals are beyond it:
:data:`NODE_BUDGET` caps the states a search expands, a search that runs out returns
``None``, and the policy then plays the scripted team's moves.
"""

from __future__ import annotations

from dataclasses import dataclass

from mase.envs.craft.recipes import production_caps, top_down
from mase.envs.craft.world import MAX_GIVE, Layout, State, step

#: States a search may expand before it gives up (tens of seconds of Python).
NODE_BUDGET = 100_000

Joint = tuple[tuple[int, ...], tuple[int, ...]]  # places, then counts (agent-major)


@dataclass(frozen=True)
class Plan:
    """A joint plan from a turn of the game to the goal.

    Attributes:
        makespan: the round at whose end the goal is held (the episode's ``makespan``).
        turns: ``(agent, action index)`` for every turn from the one planned for, up to the
            turn that makes the goal.
        keys: the world's :meth:`~.world.State.key` over the goal's items before each turn.
        expanded: states the search expanded.
    """

    makespan: int
    turns: tuple[tuple[str, int], ...]
    keys: tuple[tuple, ...]
    expanded: int


class _Model:
    """The game in index form for one layout: the goal's items, places, moves, bounds."""

    def __init__(self, layout: Layout):
        book = layout.book
        self.layout = layout
        self.items = items = book.closure(layout.goal)
        index = {item: i for i, item in enumerate(items)}
        self.n_items = len(items)
        self.n_agents = len(layout.agents)
        places = layout.places
        at = {p: i for i, p in enumerate(places)}
        self.dist = [[layout.distances()[a][b] for b in places] for a in places]
        self.goal = index[layout.goal]
        self.moves = [
            [(at[q], layout.action_index("move", q)) for q in places if q in layout.neighbours[p]]
            for p in places
        ]
        self.gathers: list[list[tuple[int, int, int]]] = [[] for _ in places]
        self.crafts = []
        # bottom up (inputs and tools first): (item, source or -1, tool or -1, station or -1,
        # inputs as (item, quantity), output count)
        self.steps = []
        for item in reversed(top_down(book)):
            if item not in index:
                continue
            if item in book.recipes:
                recipe = book.recipes[item]
                station = -1 if recipe.station is None else at[layout.stations[recipe.station]]
                inputs = tuple((index[i], n) for i, n in recipe.inputs)
                craft = layout.action_index("craft", item)
                self.crafts.append((station, inputs, index[item], recipe.count, craft))
                self.steps.append((index[item], -1, -1, station, inputs, recipe.count))
            else:
                source = at[layout.sources[item]]
                tool = book.tools.get(item)
                tool = -1 if tool is None else index[tool]
                gather = layout.action_index("gather", item)
                self.gathers[source].append((index[item], tool, gather))
                self.steps.append((index[item], source, tool, -1, (), 1))
        self.wait = layout.action_index("wait")
        give = layout.action_index("give", book.items[0], layout.agents[0], 1)
        self.give_first = [
            give + book.items.index(item) * self.n_agents * MAX_GIVE for item in items
        ]
        # a seat may hold up to a craft's output more than the team ever needs (see plan)
        caps = production_caps(book, layout.goal, self.n_agents)
        self.cap = [
            caps[item] + (book.recipes[item].count - 1 if item in book.recipes else 0)
            for item in items
        ]
        self._bounds: dict[tuple, tuple[int, int]] = {}

    def joint(self, state: State) -> Joint:
        layout = self.layout
        places = tuple(layout.places.index(state.positions[a]) for a in layout.agents)
        counts = tuple(state.inventories[a][i] for a in layout.agents for i in self.items)
        return places, counts

    def successors(self, joint: Joint, actor: int):
        """``(action index, next joint state)`` for every legal action of ``actor``.

        Only those a plan without needless steps may take: none beyond a seat's cap.
        """
        places, counts = joint
        here = places[actor]
        n_items, cap = self.n_items, self.cap
        base = actor * n_items
        yield self.wait, joint
        for target, action in self.moves[here]:
            moved = list(places)
            moved[actor] = target
            yield action, (tuple(moved), counts)
        for item, tool, action in self.gathers[here]:
            if counts[base + item] < cap[item] and (tool < 0 or counts[base + tool] > 0):
                more = list(counts)
                more[base + item] += 1
                yield action, (places, tuple(more))
        for station, inputs, output, made, action in self.crafts:
            if station >= 0 and station != here or counts[base + output] + made > cap[output]:
                continue
            if all(counts[base + i] >= n for i, n in inputs):
                after = list(counts)
                for i, n in inputs:
                    after[base + i] -= n
                after[base + output] += made
                yield action, (places, tuple(after))
        for other in range(self.n_agents):
            if other == actor or places[other] != here:
                continue
            for i in range(n_items):
                room = min(counts[base + i], MAX_GIVE, cap[i] - counts[other * n_items + i])
                first = self.give_first[i] + other * MAX_GIVE - 1
                for n in range(1, room + 1):
                    after = list(counts)
                    after[base + i] -= n
                    after[other * n_items + i] += n
                    yield first + n, (places, tuple(after))

    def done(self, joint: Joint) -> bool:
        counts = joint[1]
        return any(counts[a * self.n_items + self.goal] for a in range(self.n_agents))

    def bounds(self, joint: Joint) -> tuple[int, int]:
        """Lower bounds for ``joint``: (turns of work left, rounds until the goal can exist).

        The turns: the goal's gathers and crafts from the team's pooled items, plus a move
        into every place that work needs and no agent is at. The rounds: the goal's recipe
        tree in a relaxed game where items pass between agents for free but still travel one
        place a round (only their holder's move carries them), and each step comes a round
        after the steps whose output it uses (a give, or its maker's next turn, lies between).
        """
        places, counts = joint
        n_items = self.n_items
        pooled = tuple([sum(counts[i::n_items]) for i in range(n_items)])
        held = tuple(
            [
                tuple([places[a] for a in range(self.n_agents) if counts[a * n_items + i]])
                for i in range(n_items)
            ]
        )
        key = (places, pooled, held)
        found = self._bounds.get(key)
        if found is None:
            found = self._bounds[key] = self._relaxed(places, pooled, held)
        return found

    def _relaxed(
        self, places: tuple[int, ...], pooled: tuple[int, ...], held: tuple[tuple[int, ...], ...]
    ) -> tuple[int, int]:
        dist = self.dist
        spots = range(len(dist))
        far = [10**6] * len(dist)
        reach = _nearest(dist, places, far)
        # the bill of materials from the pooled items, top down (recipes.shortfall, by index)
        gross = [0] * self.n_items
        gross[self.goal] = 1
        runs = [0] * self.n_items  # gathers or crafts of each item
        for item, _, tool, _, inputs, count in reversed(self.steps):
            net = gross[item] - pooled[item]
            if net <= 0:
                continue
            runs[item] = times = -(-net // count)
            for i, n in inputs:
                gross[i] += times * n
            if tool >= 0 and gross[tool] < 1:
                gross[tool] = 1
        work = sum(runs)
        work_at = set()
        avail: list[list[int]] = [[]] * self.n_items  # item -> round it can be at each place
        goal_round = 0
        for item, source, tool, station, inputs, _ in self.steps:
            stock = _nearest(dist, held[item], far)
            if not runs[item]:
                avail[item] = stock
                continue
            if source >= 0:
                work_at.add(source)
                start = reach[source] if tool < 0 else max(reach[source], avail[tool][source])
                made = [start + 1 + dist[source][q] for q in spots]
            else:
                if station >= 0:
                    work_at.add(station)
                    sites = (station,)
                else:
                    sites = spots
                ready = {q: max([reach[q]] + [avail[i][q] for i, _ in inputs]) + 1 for q in sites}
                made = [min([ready[q] + dist[q][p] for q in sites]) for p in spots]
                if item == self.goal:
                    goal_round = min(ready.values())
            avail[item] = [a if a < b else b for a, b in zip(stock, made)]  # noqa: B905
        moves = sum(1 for q in work_at if q not in places)
        return work + moves, goal_round

    def fewest_rounds(self, joint: Joint, actor: int, round_now: int) -> int:
        """A lower bound on the round at whose end the goal can be held.

        ``actor`` acts next, in round ``round_now``.
        """
        turns, rounds = self.bounds(joint)
        n = self.n_agents
        by_turns = round_now + max(0, -(-(turns - (n - actor)) // n))
        return max(by_turns, round_now - 1 + rounds)


def _nearest(dist: list[list[int]], sources: tuple[int, ...], far: list[int]) -> list[int]:
    """For each place, the distance from the nearest of ``sources`` (``far`` when none)."""
    if not sources:
        return far
    nearest = dist[sources[0]]
    for source in sources[1:]:
        nearest = [a if a < b else b for a, b in zip(nearest, dist[source])]  # noqa: B905
    return nearest


def plan(
    state: State,
    agent: str | None = None,
    max_rounds: int = 50,
    node_budget: int = NODE_BUDGET,
) -> Plan | None:
    """A plan with the fewest rounds from ``state``, ``agent`` (default the first) to act.

    Args:
        state: the world now (not changed).
        agent: who acts next; the round ends after the last agent in turn order.
        max_rounds: the round limit of the episode (no plan ends after it).
        node_budget: states the search may expand in all.

    Returns:
        The plan, or ``None`` when no plan ends by ``max_rounds`` or the budget ran out.
    """
    model = _Model(state.layout)
    layout = state.layout
    first = 0 if agent is None else layout.agents.index(agent)
    start = model.joint(state)
    if model.done(start):
        return Plan(state.round, (), (), 0)
    n = model.n_agents
    expanded = 0
    bound = model.fewest_rounds(start, first, state.round)
    while bound <= max_rounds:
        found, used = _search(model, start, first, state.round, bound, node_budget - expanded)
        expanded += used
        if found is not None:
            turns = tuple((layout.agents[(first + k) % n], a) for k, a in enumerate(found))
            return Plan(bound, turns, _keys(state, turns, model.items), expanded)
        if expanded >= node_budget:
            return None
        bound += 1
    return None


def _search(
    model: _Model, start: Joint, first: int, round_now: int, last_round: int, budget: int
) -> tuple[list[int] | None, int]:
    """Depth-first search for the goal by the end of ``last_round``: the actions, or None.

    Successors are tried most promising first (lowest bound). A state is dropped when its
    bound passes ``last_round``, or when one with the same places and the same agent to act
    was reached no later with at least as much of every item for every agent: any plan from
    it works from that one, as soon or sooner. (Not across seats: a wait leads from one to the
    other.)
    """
    n = model.n_agents
    # dominance on counts packed into one integer, a field per count with a guard bit on top:
    # old >= new in every field exactly when no field of (old | guards) - new borrows
    width = max([*model.cap, MAX_GIVE]).bit_length() + 1
    shifts = [k * width for k in range(n * model.n_items)]
    guards = sum(1 << (s + width - 1) for s in shifts)
    seen: dict[tuple, list[tuple[int, int]]] = {}
    path: list[int] = []
    expanded = 0

    def dominated(joint: Joint, depth: int) -> bool:
        code = sum([c << s for c, s in zip(joint[1], shifts)])  # noqa: B905
        entries = seen.setdefault((joint[0], (first + depth) % n), [])
        for old_depth, old in entries:
            if old_depth <= depth and ((old | guards) - code) & guards == guards:
                return True
        entries[:] = [
            (d, old)
            for d, old in entries
            if not (d >= depth and ((code | guards) - old) & guards == guards)
        ]
        entries.append((depth, code))
        return False

    def visit(joint: Joint, depth: int) -> bool:
        nonlocal expanded
        expanded += 1
        if expanded > budget:
            return False
        actor = (first + depth) % n
        following = (first + depth + 1) % n
        next_round = round_now + (first + depth + 1) // n
        options = []
        for action, after in model.successors(joint, actor):
            if model.done(after):
                path.append(action)
                return True
            bound = model.fewest_rounds(after, following, next_round)
            if bound <= last_round:
                options.append((bound, len(options), action, after))
        options.sort()
        for _, _, action, after in options:
            if dominated(after, depth + 1):
                continue
            path.append(action)
            if visit(after, depth + 1):
                return True
            path.pop()
            if expanded > budget:
                return False
        return False

    dominated(start, 0)
    return (path if visit(start, 0) else None), expanded


def _keys(state: State, turns: tuple[tuple[str, int], ...], items: tuple[str, ...]) -> tuple:
    """The world's key before each turn of a plan (played on a copy, by the game's rules)."""
    world = state.copy()
    keys = []
    for agent, action in turns:
        keys.append(world.key(items))
        step(world, agent, action)
    return tuple(keys)


def optimal_makespan(
    state: State, agent: str | None = None, max_rounds: int = 50, node_budget: int = NODE_BUDGET
) -> int | None:
    """The earliest round at whose end the team can hold the goal, from ``state``.

    ``None`` when not by ``max_rounds``, or when the node budget ran out; see :func:`plan`.
    From a new episode it is the best ``makespan`` any team can reach.
    """
    found = plan(state, agent, max_rounds, node_budget)
    return None if found is None else found.makespan
