"""Joint planning for search and rescue: the fewest rounds until every bomb is defused.

The search is A* over joint turn states ``(turn, positions, progress)``: whose turn it is in
the round, every agent's room and how many phases of each bomb are cut. One search step is
one agent's action, in MASE's turn order (Standley's operator decomposition, which here is
not a trick but the rules: agents really do act one after another inside a round). Only the
actions that matter under full information are generated: a move through a door, the
correct cut of the bomb here, and inspecting a live bomb here as the one legal way to wait.

Why the result is optimal:

* Cost. Every step costs one turn, and the round of the last cut is
  ``round + (turn + steps - 1) // n_agents``, non-decreasing in ``steps``; so the fewest
  steps to the last cut also gives the fewest rounds.
* Actions left out. Inspecting and wrong cuts change nothing, so they are waits. Waiting is
  legal only next to a live bomb, but that loses nothing: in any plan, each agent's turns
  between two of its cuts can be replaced by a shortest walk to the next cut's room and
  waits there, where the bomb stays live until that cut. So the legal moves, cuts and waits
  reach the optimum of a game in which an agent could idle anywhere. By the same argument,
  cutting dominates waiting (one more phase cut, the rest of any plan still works with one
  cut turned into a wait), so waiting is not generated where a cut is possible; and an agent
  whose colours no live bomb needs any more cannot change the outcome, so it takes one fixed
  action and its room is left out of duplicate detection.
* Heuristic. ``h`` is the largest of three lower bounds on the steps left, each the exact or
  relaxed cost of a problem with fewer constraints, so ``h`` is admissible: (1) for each
  bomb alone, the earliest step its last phase can be cut if every holder of each colour
  walked straight to it and cut at its first turn after the previous phase; (2) for each
  colour, the earliest step by which its holders can have cut all its phases, each holder
  walking to the nearest such bomb first and needing at least one move between two of them
  (a bomb's colours are distinct); (3) for each group of agents that alone holds some
  colours, the earliest step by which the group has had enough turns, after walking to its
  nearest useful bomb, to cut all phases of those colours. Nodes whose ``g`` improves are
  reopened, so optimality does not rest on consistency.

Bounded search. The joint state space grows as ``rooms ** agents * prod(phases + 1)``: about
54,000 states on the paper layout, which A* never comes near, but billions on large
procedural instances. After ``node_budget`` expansions the exact search stops and a greedy
best-first search (``h`` plus a tenth of ``g`` to break ties) finishes the plan. That
plan is still correct play (it defuses every bomb), but it is marked ``optimal=False`` and
carries the best proven lower bound, so a caller knows the size of the gap.
"""

from __future__ import annotations

import heapq
import itertools
import time
from dataclasses import dataclass

from mase.envs.search_rescue import world

#: Expansions of the exact search before the greedy search takes over.
NODE_BUDGET = 200_000
#: Weights on ``h`` of the searches that make a plan when the exact one runs out of budget:
#: each gets the same budget but the last, which runs to the end.
FALLBACK_WEIGHTS = (1.5, 3.0, 10.0)


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
        progress: phases cut so far per bomb (a spent bomb counts as fully cut).
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
        optimal: whether the exact search proved that no plan finishes in fewer rounds.
        lower_bound: the fewest rounds any plan could take (``rounds`` when optimal).
        expanded: search nodes expanded.
        seconds: planning time.
    """

    steps: tuple[Step, ...]
    rounds: int
    optimal: bool
    lower_bound: int
    expanded: int
    seconds: float


class Planner:
    """Plans for one layout; bounds are memoized across calls, so keep one per layout.

    Args:
        layout: the map, team and tools.
        node_budget: expansions of the exact search before falling back to the greedy one.
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
        colour_index = {c: i for i, c in enumerate(layout.colours)}
        self.colour_index = colour_index
        self.holds = tuple(
            frozenset(colour_index[c] for c in layout.cutters[a]) for a in layout.agents
        )
        self.holders = tuple(
            tuple(a for a in range(self.n) if c in self.holds[a]) for c in range(len(colour_index))
        )
        self.workloads = self._workloads()
        self.go_action = tuple(layout.action_index("go", room) for room in layout.rooms)
        self.cut_action = tuple(layout.action_index("cut", c) for c in layout.colours)
        self.inspect_action = layout.action_index("inspect")
        self._bomb_bounds: dict[tuple, int] = {}
        self._nearest: dict[tuple[int, ...], tuple[int, ...]] = {}

    def _workloads(self) -> tuple[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]], ...]:
        """The agent groups whose workload is bounded: ``(agents, colours, per_room)``.

        Each colour with its holders, then each smallest group of agents that alone holds a
        set of two or more colours (every agent together, for one). ``per_room`` is how many
        of those cuts each agent can make in one room: the colours of a bomb are distinct.
        """
        longest = max(self.layout.phases)
        workloads = [
            ((holders), (c,), (1,) * len(holders)) for c, holders in enumerate(self.holders)
        ]
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
            table = tuple(min(row[r] for r in rooms) for row in self.dist)
            self._nearest[rooms] = table
        return table

    # -- the search -------------------------------------------------------------------------

    def plan(self, state: world.State, turn: int = 0) -> Plan:
        """The plan with the fewest rounds from ``state`` with agent ``turn`` to act next.

        Args:
            state: the world (not modified).
            turn: index in ``layout.agents`` of the agent whose turn it is.
        """
        started = time.perf_counter()
        rooms = tuple(self.room_index[b.room] for b in state.bombs)
        sequences = tuple(tuple(self.colour_index[c] for c in b.sequence) for b in state.bombs)
        progress = progress_of(state)
        positions = tuple(self.room_index[state.positions[a]] for a in self.layout.agents)
        problem = _Problem(self, rooms, sequences)
        start = (turn, positions, progress)

        path, expanded, bound = problem.search(start, self.node_budget)
        optimal = path is not None
        for weight in FALLBACK_WEIGHTS:
            if path is not None:
                break
            last = weight == FALLBACK_WEIGHTS[-1]
            path, more, _ = problem.search(start, None if last else self.node_budget, weight)
            expanded += more
        turns = len(path) - 1
        rounds = state.round + max(0, turn + turns - 1) // self.n
        lower = state.round + bound
        optimal = optimal or rounds == lower
        steps = tuple(
            Step(
                self.layout.agents[t],
                action,
                tuple(self.layout.rooms[r] for r in pos),
                prog,
            )
            for (t, pos, prog), action in path[:-1]
        )
        return Plan(
            steps,
            rounds,
            optimal,
            rounds if optimal else lower,
            expanded,
            time.perf_counter() - started,
        )


class _Problem:
    """One search: the bombs of one state on the planner's layout."""

    def __init__(self, planner: Planner, rooms: tuple[int, ...], sequences: tuple):
        self.p = planner
        self.rooms = rooms
        self.sequences = sequences
        self.lengths = tuple(len(s) for s in sequences)
        self.bomb_at = [-1] * len(planner.layout.rooms)
        for b, room in enumerate(rooms):
            self.bomb_at[room] = b
        self._useful: dict[tuple[int, ...], tuple[bool, ...]] = {}
        self._outlook: dict[tuple[int, ...], tuple[list, list]] = {}

    def useful(self, progress: tuple[int, ...]) -> tuple[bool, ...]:
        """Whether each agent holds a colour some live bomb still needs."""
        useful = self._useful.get(progress)
        if useful is None:
            needed = set()
            for seq, cut in zip(self.sequences, progress, strict=True):
                needed.update(seq[cut:])
            useful = self._useful[progress] = tuple(bool(h & needed) for h in self.p.holds)
        return useful

    def successors(self, node: tuple) -> list[tuple[int, tuple]]:
        """``(action, next_node)`` for the agent whose turn it is."""
        t, pos, prog = node
        p = self.p
        nxt_t = (t + 1) % p.n
        room = pos[t]
        b = self.bomb_at[room]
        live = b >= 0 and prog[b] < self.lengths[b]
        if not self.useful(prog)[t]:  # nothing it does matters any more: one fixed action
            if live:
                return [(p.inspect_action, (nxt_t, pos, prog))]
            other = p.neighbours[room][0]
            return [(p.go_action[other], (nxt_t, pos[:t] + (other,) + pos[t + 1 :], prog))]
        moves = []
        if live:
            colour = self.sequences[b][prog[b]]
            if colour in p.holds[t]:
                cut = prog[:b] + (prog[b] + 1,) + prog[b + 1 :]
                moves.append((p.cut_action[colour], (nxt_t, pos, cut)))
            else:
                moves.append((p.inspect_action, (nxt_t, pos, prog)))
        for other in p.neighbours[room]:
            moved = pos[:t] + (other,) + pos[t + 1 :]
            moves.append((p.go_action[other], (nxt_t, moved, prog)))
        return moves

    def search(self, start: tuple, budget: int | None, weight: float = 1.0) -> tuple:
        """Best-first search from ``start``: A* on rounds, or weighted A* on steps.

        With ``weight`` 1 a node's priority is the round its last cut would fall in if ``h``
        were exact, a lower bound on the rounds of any plan through it; among equal rounds
        the node nearest the goal (smallest ``h``) goes first, so the search dives instead of
        sweeping every step count of the last round. Otherwise the priority is
        ``g + weight * h``: a quick plan with no guarantee.

        Returns ``(path, expanded, bound)``: ``path`` is a list of ``(node, action)`` ending
        with ``(goal, None)``, or ``None`` when the budget ran out; ``bound`` is the best
        proven lower bound on the round of the last cut, counted from the current round.
        """
        n = self.p.n
        t0 = start[0]
        h0 = self.heuristic(start)
        if h0 == 0:
            return [(start, None)], 0, 0
        exact = weight == 1.0
        counter = itertools.count()
        key0 = self.key(start)
        g_of = {key0: 0}
        parent: dict[tuple, tuple] = {key0: (None, None, start)}
        first = (t0 + h0 - 1) // n if exact else weight * h0
        heap = [(first, h0, 0, next(counter), start)]
        expanded = 0
        bound = (t0 + h0 - 1) // n
        while heap:
            f, _, neg_g, _, node = heapq.heappop(heap)
            g = -neg_g
            key = self.key(node)
            if g > g_of.get(key, g):
                continue  # a stale entry: this node was reached more cheaply since
            if exact and f > bound:
                bound = f
            if budget is not None and expanded >= budget:
                return None, expanded, bound
            expanded += 1
            for action, child in self.successors(node):
                child_key = self.key(child)
                if g + 1 >= g_of.get(child_key, g + 2):
                    continue
                h = self.heuristic(child)
                parent[child_key] = (key, action, child)
                if h == 0 and (not exact or (t0 + g) // n <= f):
                    return self.replay(start, self.path(parent, child_key)), expanded, bound
                g_of[child_key] = g + 1
                score = (t0 + g + h) // n if exact else g + 1 + weight * h
                heapq.heappush(heap, (score, h, -(g + 1), next(counter), child))
        raise RuntimeError("no plan defuses every bomb; is every colour held by someone?")

    def key(self, node: tuple) -> tuple:
        """The node for duplicate detection: rooms of agents that no longer matter dropped."""
        t, pos, prog = node
        useful = self.useful(prog)
        if all(useful):
            return node
        return (t, tuple(r if u else -1 for r, u in zip(pos, useful, strict=True)), prog)

    @staticmethod
    def path(parent: dict, key: tuple) -> list[int]:
        """The actions on the parent links from the start to ``key``."""
        actions = []
        while True:
            prev, action, _ = parent[key]
            if prev is None:
                return actions[::-1]
            actions.append(action)
            key = prev

    def replay(self, start: tuple, actions: list[int]) -> list[tuple[tuple, int | None]]:
        """``[(node, action), ..., (goal, None)]`` along ``actions`` from ``start``.

        Duplicate detection ignores the rooms of agents that no longer matter, so the nodes
        stored along the parent links may disagree about them; replaying recomputes them, and
        those agents' fixed actions, from the start.
        """
        path = []
        node = start
        for action in actions:
            options = self.successors(node)
            if len(options) == 1:  # an agent that no longer matters: its fixed action
                action = options[0][0]
            path.append((node, action))
            node = next(child for a, child in options if a == action)
        path.append((node, None))
        return path

    # -- lower bounds -----------------------------------------------------------------------

    def heuristic(self, node: tuple) -> int:
        """A lower bound on the steps until the last cut (0 at the goal)."""
        t, pos, prog = node
        p = self.p
        n = p.n
        live, workloads = self.outlook(prog)
        bound = 0
        for room, remaining in live:
            key = (room, remaining, pos, t)
            e = p._bomb_bounds.get(key)
            if e is None:
                e = p._bomb_bounds[key] = self.bomb_bound(room, remaining, pos, t)
            if e > bound:
                bound = e
        for cuts, rooms, members in workloads:
            team = [((a - t) % n, near[pos[a]], j) for a, j, near in members]
            bound = _enough_turns(bound, cuts, rooms, team, n)
        return bound

    def outlook(self, progress: tuple[int, ...]) -> tuple[list, list]:
        """What the bounds need from ``progress`` alone (memoized: far fewer than nodes).

        Returns the live bombs as ``(room, remaining colours)``, and for each workload with
        cuts left ``(cuts, rooms, members)``, each member as ``(agent, per_room, near)``
        where ``near[room]`` is the distance from ``room`` to the nearest bomb at which the
        member can make one of the workload's cuts.
        """
        found = self._outlook.get(progress)
        if found is not None:
            return found
        p = self.p
        live = []
        rooms_of: list[list[int]] = [[] for _ in p.holders]
        for b, cut in enumerate(progress):
            if cut < self.lengths[b]:
                remaining = self.sequences[b][cut:]
                live.append((self.rooms[b], remaining))
                for colour in remaining:
                    rooms_of[colour].append(self.rooms[b])
        workloads = []
        for agents, colours, per_room in p.workloads:
            targets = [r for c in colours for r in rooms_of[c]]
            if not targets:
                continue
            members = []
            for a, j in zip(agents, per_room, strict=True):
                reach = tuple(sorted({r for c in colours if c in p.holds[a] for r in rooms_of[c]}))
                if reach:
                    members.append((a, j, p.nearest(reach)))
            workloads.append((len(targets), len(set(targets)), members))
        found = self._outlook[progress] = (live, workloads)
        return found

    def bomb_bound(self, room: int, remaining: tuple[int, ...], pos: tuple, t: int) -> int:
        """Earliest step (counting from 1 now) at which this bomb alone could be defused."""
        p = self.p
        n = p.n
        done = 0
        for colour in remaining:
            best = None
            for a in p.holders[colour]:
                off = (a - t) % n
                at = off + 1 + p.dist[pos[a]][room] * n  # its first turn in the room
                if at <= done:  # it is there in time: its first turn after the last cut
                    at = off + 1 + ((done - off - 1) // n + 1) * n
                if best is None or at < best:
                    best = at
            done = best
        return done


def _enough_turns(k: int, cuts: int, rooms: int, team: list[tuple[int, int, int]], n: int) -> int:
    """The least ``k' >= k`` steps in which ``team`` can make ``cuts`` cuts in ``rooms`` rooms.

    ``team`` holds, for each agent, its turn offset (its first turn is step ``offset + 1``),
    its distance to the nearest room where it can cut, and how many of the cuts it can make
    in one room. An agent that makes ``x`` cuts in ``m`` rooms takes ``x`` turns to cut and
    at least ``distance + m - 1`` moves, so with ``q = turns - distance + 1`` it needs
    ``x + m <= q``, and ``m >= x / per_room`` gives ``x <= per_room * q // (per_room + 1)``.
    Every room must be visited by someone, so the team also needs ``cuts + rooms`` of ``q``.
    """
    while True:
        can_cut = 0
        room_and_cut = 0
        for off, d, j in team:
            if k > off:
                q = (k - off - 1) // n + 2 - d
                if q > 1:
                    can_cut += j * q // (j + 1)
                    room_and_cut += q
        if can_cut >= cuts and room_and_cut >= cuts + rooms:
            return k
        k += 1
