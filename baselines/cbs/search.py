"""The joint search space of one planning problem, and best-first search over it.

A node is ``(turn, rooms, progress)``: the index of the agent to act, each agent's room index
and each bomb's phases cut, all plain tuples so nodes hash fast. ``g`` counts steps (turns)
from the start; the round a step falls in follows from the start turn.
"""

from __future__ import annotations

import heapq
import itertools
from typing import TYPE_CHECKING

from mase.baselines.cbs.bounds import LowerBound
from mase.envs.search_rescue import world

if TYPE_CHECKING:
    from mase.baselines.cbs.planner import Planner

Node = tuple[int, tuple[int, ...], tuple[int, ...]]
Path = list[tuple[Node, int | None]]


class Search:
    """The bombs of one state on a planner's layout, with the agent ``turn`` to act first."""

    def __init__(self, planner: Planner, state: world.State, turn: int):
        self.p = planner
        self.n = planner.n
        self.turn = turn
        self.rooms = tuple(planner.room_index[b.room] for b in state.bombs)
        self.sequences = tuple(
            tuple(planner.colour_index[c] for c in b.sequence) for b in state.bombs
        )
        self.lengths = tuple(len(s) for s in self.sequences)
        self.bomb_at = [-1] * len(planner.layout.rooms)
        for b, room in enumerate(self.rooms):
            self.bomb_at[room] = b
        self.bounds = LowerBound(planner, self.rooms, self.sequences)
        self._useful: dict[tuple[int, ...], tuple[bool, ...]] = {}

    # -- rounds -----------------------------------------------------------------------------

    def rounds_after(self, steps: int) -> int:
        """The round (0 = the current one) in which the ``steps``-th step from now falls."""
        return max(0, self.turn + steps - 1) // self.n

    def rounds(self, path: Path) -> int:
        """The round (0 = the current one) of the last step of ``path``."""
        return self.rounds_after(len(path) - 1)

    def round_bound(self, node: Node, g: int) -> int:
        """A lower bound on the round of the last cut of any plan through ``node`` at ``g``."""
        return self.rounds_after(g + self.bounds.heuristic(node))

    # -- moves ------------------------------------------------------------------------------

    def useful(self, progress: tuple[int, ...]) -> tuple[bool, ...]:
        """Whether each agent holds a colour that some live bomb still needs."""
        useful = self._useful.get(progress)
        if useful is None:
            needed: set[int] = set()
            for sequence, cut in zip(self.sequences, progress, strict=True):
                needed.update(sequence[cut:])
            useful = self._useful[progress] = tuple(bool(h & needed) for h in self.p.holds)
        return useful

    def key(self, node: Node) -> Node:
        """``node`` for duplicate detection: rooms of agents that no longer matter blanked."""
        t, pos, prog = node
        useful = self.useful(prog)
        if all(useful):
            return node
        return (t, tuple(r if u else -1 for r, u in zip(pos, useful, strict=True)), prog)

    def live_here(self, node: Node) -> int:
        """The live bomb in the room of the agent to act, or -1."""
        t, pos, prog = node
        b = self.bomb_at[pos[t]]
        return b if b >= 0 and prog[b] < self.lengths[b] else -1

    def idle_action(self, node: Node) -> int:
        """The fixed action of an agent with nothing to do: wait by a live bomb, else move."""
        if self.live_here(node) >= 0:
            return self.p.inspect_action
        t, pos, _ = node
        return self.p.go_action[self.p.neighbours[pos[t]][0]]

    def apply(self, node: Node, action: int) -> Node:
        """The node after the agent to act takes ``action`` (a move, a correct cut, a wait)."""
        t, pos, prog = node
        nxt = (t + 1) % self.n
        room = self.p.room_of_action.get(action)
        if room is not None:
            return (nxt, pos[:t] + (room,) + pos[t + 1 :], prog)
        if action in self.p.colour_of_action:
            b = self.bomb_at[pos[t]]
            return (nxt, pos, prog[:b] + (prog[b] + 1,) + prog[b + 1 :])
        return (nxt, pos, prog)

    def successors(self, node: Node) -> list[tuple[int, Node]]:
        """``(action, next node)`` for the agent to act, as the module docstring prunes them."""
        t, pos, prog = node
        p = self.p
        if not self.useful(prog)[t]:
            action = self.idle_action(node)
            return [(action, self.apply(node, action))]
        nxt = (t + 1) % self.n
        options = []
        b = self.live_here(node)
        if b >= 0:
            colour = self.sequences[b][prog[b]]
            if colour in p.holds[t]:
                cut = prog[:b] + (prog[b] + 1,) + prog[b + 1 :]
                options.append((p.cut_action[colour], (nxt, pos, cut)))
            else:
                options.append((p.inspect_action, (nxt, pos, prog)))
        for other in p.neighbours[pos[t]]:
            options.append((p.go_action[other], (nxt, pos[:t] + (other,) + pos[t + 1 :], prog)))
        return options

    def replay(self, start: Node, actions: list[int]) -> Path:
        """``[(node, action), ..., (goal, None)]`` along ``actions`` from ``start``.

        Duplicate detection blanks the rooms of agents that no longer matter, so the nodes
        kept along parent links may disagree about those rooms; replaying from the start
        recomputes them, and those agents' fixed actions.
        """
        path: Path = []
        node = start
        for action in actions:
            if not self.useful(node[2])[node[0]]:
                action = self.idle_action(node)
            path.append((node, action))
            node = self.apply(node, action)
        path.append((node, None))
        return path

    # -- search -----------------------------------------------------------------------------

    def search(
        self, start: Node, budget: int, cutoff: int, weight: float = 1.0
    ) -> tuple[Path | None, int, int]:
        """Best-first search for a plan whose last cut falls before round ``cutoff``.

        With ``weight`` 1 this is A* with rounds as the cost (see the planner's docstring);
        otherwise the priority is ``g + weight * h``, which finds plans sooner with no
        guarantee. Nodes that cannot beat ``cutoff`` are pruned.

        Returns:
            ``(path, expanded, bound)``. ``path`` is ``None`` when there is no plan before
            ``cutoff`` or the budget of expansions ran out. ``bound`` is a proven lower
            bound on the round (0 = the current one) of the last cut: ``cutoff`` when the
            search ran out of nodes, else the highest priority expanded (exact search) or
            the start's (weighted).
        """
        n, t0 = self.n, self.turn
        exact = weight == 1.0
        h0 = self.bounds.heuristic(start)
        counter = itertools.count()
        start_key = self.key(start)
        g_of = {start_key: 0}
        parent: dict[Node, tuple[Node | None, int | None]] = {start_key: (None, None)}
        first = self.rounds_after(h0) if exact else weight * h0
        heap = [(first, h0, 0, next(counter), start)]
        expanded = 0
        bound = self.rounds_after(h0)
        while heap:
            f, _, neg_g, _, node = heapq.heappop(heap)
            g = -neg_g
            key = self.key(node)
            if g > g_of[key]:
                continue  # a stale entry: this node was reached more cheaply since
            if exact and f > bound:
                bound = f
            if expanded >= budget:
                return None, expanded, bound
            expanded += 1
            for action, child in self.successors(node):
                child_key = self.key(child)
                if g + 1 >= g_of.get(child_key, g + 2):
                    continue
                g_of[child_key] = g + 1
                h = self.bounds.heuristic(child)
                rounds = (t0 + g + h) // n  # the round bound of the child, at g + 1
                if rounds >= cutoff:
                    continue
                parent[child_key] = (key, action)
                if h == 0 and (not exact or rounds <= f):
                    return self.replay(start, self._actions(parent, child_key)), expanded, bound
                score = rounds if exact else g + 1 + weight * h
                heapq.heappush(heap, (score, h, -(g + 1), next(counter), child))
        return None, expanded, cutoff

    @staticmethod
    def _actions(parent: dict, key: Node) -> list[int]:
        """The actions along the parent links from the start to ``key``."""
        actions = []
        while True:
            prev, action = parent[key]
            if prev is None:
                return actions[::-1]
            actions.append(action)
            key = prev
