"""Joint planning for search and rescue: the fewest rounds until every bomb is defused.

Method: A* over joint turn states ``(turn, rooms, progress)`` (whose turn it is in the round,
every agent's room, how many phases of each bomb are cut). One search step is one agent's
action in MASE's turn order: Standley's operator decomposition, which here is simply the
rules, since agents really do act one after another inside a round and a later agent may
cut the next phase right after an earlier one. The paper's CBS treated a round's actions as
simultaneous and so reported 6.0 rounds where 5 is often possible. The name ``cbs`` is kept
for the paper's baseline; a conflict-based search has nothing to add here, because agents
never block each other, they only wait for each other's cuts.

Why the plan is optimal:

* Cost. A node's priority is the round its last cut would fall in, were the heuristic
  exact: ``(turn + g + h - 1) // n_agents``, with ``turn`` the start's and ``g`` the steps
  since. It never exceeds the rounds of any plan through the node, because ``h`` never
  overestimates the steps left. This is A* with rounds as the cost (nodes whose ``g``
  improves are reopened), so a goal whose round is no later than the smallest priority
  left is optimal. Among equal rounds the node with the smallest ``h`` goes first, so the
  search dives toward a plan instead of sweeping every step count of the last round.
* Actions left out. Only moves through doors, correct cuts and inspecting a live bomb (a
  legal way to wait) are generated. Inspecting, wrong colours and invalid actions change
  nothing, so they are all waits, and only the first is legal everywhere it is needed: an
  agent can inspect only by a live bomb, which loses nothing, because between two of its
  cuts, an agent can always walk a shortest path to the next cut's room and wait there,
  where the bomb stays live until that cut. Cutting dominates waiting in the same room (one
  more phase done; any plan from the waiting state still works with one cut turned into a
  wait), so no wait is generated where a cut is possible; moves still are, because a
  teammate may be better placed to make the cut. An agent none of whose colours any live
  bomb still needs cannot change the outcome: it takes one fixed action, and its room is
  ignored in duplicate detection. The rules' options do not change plans: a plan never
  applies a wrong colour, and credit and shaping only change rewards.
* Heuristic: the largest of the lower bounds in :mod:`mase.baselines.cbs.bounds`, each the
  cost of a relaxed problem (admissible, so the priority above is a lower bound).

Bounded search. The joint state space has ``agents * rooms ** agents * prod(phases + 1)``
states: 54,000 on the paper layout, of which A* expands a median of 72 (median planning
time about 5 ms), but billions on large procedural instances. So the planner first makes a
quick plan by list scheduling (:mod:`mase.baselines.cbs.schedule`); the exact search then
only looks for plans that finish in fewer rounds. When it has spent ``node_budget``
expansions it stops, a weighted A* (``g + 1.5 h``) gets the same budget to find something
better than the schedule, and the best plan found is returned. Every plan defuses every
bomb with legal actions; a plan not proven optimal says so (``optimal=False``) and carries
the best proven lower bound, so the gap is known.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass

from mase.baselines.cbs.schedule import best_schedule
from mase.baselines.cbs.search import Search
from mase.envs.search_rescue import world

#: Expansions of the exact search (and again of the weighted one) before giving up on it.
NODE_BUDGET = 100_000
#: Weight on ``h`` of the search that tries to improve on the schedule after the budget.
FALLBACK_WEIGHT = 1.5


def progress_of(state: world.State) -> tuple[int, ...]:
    """Phases cut per bomb, a spent (defused or exploded) bomb counting as fully cut."""
    return tuple(b.cut if b.live else len(b.sequence) for b in state.bombs)


@dataclass(frozen=True)
class Step:
    """One turn of a plan: who acts, the action index, and the world just before it.

    Attributes:
        agent: the agent whose turn it is.
        action: index into :attr:`world.Layout.actions`.
        positions: every agent's room before the action, in turn order.
        progress: phases cut so far per bomb (see :func:`progress_of`).
    """

    agent: str
    action: int
    positions: tuple[int, ...]
    progress: tuple[int, ...]


@dataclass(frozen=True)
class Plan:
    """A joint plan from a state to the last cut.

    Attributes:
        steps: the turns in order, from the agent to act now to the last cut.
        rounds: the round in which the last bomb is defused (the episode's ``rounds``).
        optimal: whether no plan can finish in an earlier round (proven by the search).
        lower_bound: the earliest round any plan could finish in (``rounds`` when optimal).
        method: what made the plan: ``"search"`` (exact A*), ``"schedule"`` (list
            scheduling, proven optimal or not) or ``"weighted"`` (the weighted A*).
        expanded: search nodes expanded, both searches together.
        seconds: planning time.
    """

    steps: tuple[Step, ...]
    rounds: int
    optimal: bool
    lower_bound: int
    method: str
    expanded: int
    seconds: float


class Planner:
    """Plans for one layout: its tables are built once, so keep one per layout.

    Args:
        layout: the map, team and tools.
        node_budget: expansions of the exact search before the fallback takes over.
    """

    def __init__(self, layout: world.Layout, node_budget: int = NODE_BUDGET):
        self.layout = layout
        self.node_budget = node_budget
        self.n = len(layout.agents)
        self.room_index = {room: i for i, room in enumerate(layout.rooms)}
        self.neighbours = tuple(
            tuple(sorted(self.room_index[r] for r in layout.neighbours[room]))
            for room in layout.rooms
        )
        table = layout.distances()
        self.dist = tuple(tuple(table[a][b] for b in layout.rooms) for a in layout.rooms)
        self.colour_index = {c: i for i, c in enumerate(layout.colours)}
        self.holds = tuple(
            frozenset(self.colour_index[c] for c in layout.cutters[a]) for a in layout.agents
        )
        self.holders = tuple(
            tuple(a for a in range(self.n) if c in self.holds[a])
            for c in range(len(layout.colours))
        )
        self.workloads = self._workloads()
        self.inspect_action = layout.action_index("inspect")
        self.go_action = tuple(layout.action_index("go", room) for room in layout.rooms)
        self.cut_action = tuple(layout.action_index("cut", c) for c in layout.colours)
        self.room_of_action = {a: r for r, a in enumerate(self.go_action)}
        self.colour_of_action = {a: c for c, a in enumerate(self.cut_action)}
        self._nearest: dict[tuple[int, ...], tuple[int, ...]] = {}

    def _workloads(self) -> tuple[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]], ...]:
        """The agent groups whose workload is bounded: ``(agents, colours, per_room)``.

        Each colour with its holders, then each smallest group of agents that alone holds a
        set of two or more colours (the whole team, at least). ``per_room`` is how many of
        those cuts each member can make in one room: a bomb's colours are distinct.
        """
        longest = max(self.layout.phases)
        workloads = [(holders, (c,), (1,) * len(holders)) for c, holders in enumerate(self.holders)]
        seen: set[frozenset[int]] = set()
        for size in range(1, self.n + 1):
            for group in itertools.combinations(range(self.n), size):
                colours = frozenset(
                    c for c, holders in enumerate(self.holders) if set(holders) <= set(group)
                )
                if len(colours) > 1 and colours not in seen:
                    seen.add(colours)
                    per_room = tuple(min(longest, len(self.holds[a] & colours)) for a in group)
                    workloads.append((group, tuple(sorted(colours)), per_room))
        return tuple(workloads)

    def nearest(self, rooms: tuple[int, ...]) -> tuple[int, ...]:
        """For every room, the distance to the nearest of ``rooms`` (memoized)."""
        table = self._nearest.get(rooms)
        if table is None:
            table = self._nearest[rooms] = tuple(min(row[r] for r in rooms) for row in self.dist)
        return table

    def plan(self, state: world.State, turn: int = 0) -> Plan:
        """The plan with the fewest rounds from ``state``, agent ``turn`` to act next.

        Args:
            state: the world (not modified).
            turn: index in ``layout.agents`` of the agent whose turn it is.
        """
        started = time.perf_counter()
        search = Search(self, state, turn)
        start = (turn, tuple(self.room_index[state.positions[a]] for a in self.layout.agents))
        start += (progress_of(state),)
        lower = search.round_bound(start, 0)
        path, method, expanded = search.replay(start, best_schedule(search, start)), "schedule", 0
        upper = search.rounds(path)
        if upper > lower:
            found, expanded, lower = search.search(start, self.node_budget, upper)
            if found is not None:
                path, method = found, "search"
                lower = search.rounds(found)
            elif lower < upper:
                found, more, proven = search.search(start, self.node_budget, upper, FALLBACK_WEIGHT)
                expanded += more
                if found is not None:
                    path, method = found, "weighted"
                else:  # when it ran out of nodes rather than budget, the schedule is optimal
                    lower = max(lower, proven)
        rounds = search.rounds(path)
        steps = tuple(
            Step(self.layout.agents[t], action, tuple(self.layout.rooms[r] for r in pos), prog)
            for (t, pos, prog), action in path[:-1]
        )
        return Plan(
            steps,
            state.round + rounds,
            rounds == lower,
            state.round + lower,
            method,
            expanded,
            time.perf_counter() - started,
        )
