"""Admissible lower bounds on the steps until the last cut, for the planner's A*.

``h`` is the largest of the bounds below. Each is the exact or relaxed cost of a problem with
fewer constraints than the real one, so none overestimates, and neither does their maximum.

1. One bomb alone. Its phases must be cut in order, each by a holder of the phase's colour
   standing in the bomb's room. If every holder walked straight there and cut at its first
   turn after the previous phase, the last phase would fall at the step this bound computes
   (exact for that one bomb with nothing else to do).
2. A workload: a group of agents that alone holds some colours must make every cut of those
   colours (each colour on its own, and each smallest group that alone holds two or more,
   the whole team included). An agent that makes ``x`` of those cuts in ``m`` rooms spends
   ``x`` turns cutting and at least ``distance + m - 1`` turns moving, where ``distance`` is
   how far it is from the nearest room where it can make one; with ``per_room`` the most
   cuts it can make in one room (a bomb's colours are distinct), ``m >= x / per_room``.
   Every room with such a cut must be visited by someone, so the group's ``x + m`` add up
   to at least the number of cuts plus the number of rooms. The bound is the fewest steps
   that give the group enough turns for both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mase.baselines.cbs.planner import Planner


class LowerBound:
    """The heuristic of one planning problem (its bombs' rooms and colour sequences)."""

    def __init__(self, planner: Planner, rooms: tuple[int, ...], sequences: tuple):
        self.p = planner
        self.rooms = rooms
        self.sequences = sequences
        self.lengths = tuple(len(s) for s in sequences)
        self._outlook: dict[tuple[int, ...], tuple[list, list]] = {}

    def heuristic(self, node: tuple) -> int:
        """A lower bound on the steps until the last cut (0 when every bomb is spent)."""
        t, pos, prog = node
        n = self.p.n
        live, workloads = self.outlook(prog)
        bound = 0
        for room, remaining in live:
            steps = self.bomb_bound(room, remaining, pos, t)
            if steps > bound:
                bound = steps
        for cuts, rooms, members in workloads:
            team = [((a - t) % n, near[pos[a]], j) for a, j, near in members]
            bound = enough_turns(bound, cuts, rooms, team, n)
        return bound

    def outlook(self, progress: tuple[int, ...]) -> tuple[list, list]:
        """What the bounds need from ``progress`` alone (memoized: far fewer than nodes).

        Returns the live bombs as ``(room, remaining colours)``, and each workload with cuts
        left as ``(cuts, rooms, members)``, a member being ``(agent, per_room, near)`` with
        ``near[room]`` the distance from ``room`` to the nearest room where that member can
        make one of the workload's cuts.
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
            targets = [room for c in colours for room in rooms_of[c]]
            if not targets:
                continue
            members = []
            for a, j in zip(agents, per_room, strict=True):
                reach = {room for c in colours if c in p.holds[a] for room in rooms_of[c]}
                if reach:
                    members.append((a, j, p.nearest(tuple(sorted(reach)))))
            workloads.append((len(targets), len(set(targets)), members))
        found = self._outlook[progress] = (live, workloads)
        return found

    def bomb_bound(self, room: int, remaining: tuple[int, ...], pos: tuple, t: int) -> int:
        """The earliest step (1 = the next one) at which this bomb alone could be defused."""
        p = self.p
        n = p.n
        done = 0
        for colour in remaining:
            best = None
            for a in p.holders[colour]:
                off = (a - t) % n
                at = off + 1 + p.dist[pos[a]][room] * n  # its first turn in the room
                if at <= done:  # it is there in time: its first turn after the previous cut
                    at = off + 1 + ((done - off - 1) // n + 1) * n
                if best is None or at < best:
                    best = at
            done = best
        return done


def enough_turns(k: int, cuts: int, rooms: int, team: list[tuple[int, int, int]], n: int) -> int:
    """The fewest steps ``>= k`` in which ``team`` can make ``cuts`` cuts in ``rooms`` rooms.

    ``team`` holds, per agent, its turn offset (its first turn is step ``offset + 1``), its
    distance to the nearest room where it can cut, and ``per_room``. With ``q = turns -
    distance + 1`` an agent's cuts ``x`` and rooms ``m`` satisfy ``x + m <= q`` (when it
    cuts at all, ``q >= 2``), so ``x <= per_room * q // (per_room + 1)``.
    """
    while True:
        can_cut = 0
        can_visit_and_cut = 0
        for off, d, j in team:
            if k > off:
                q = (k - off - 1) // n + 2 - d
                if q > 1:
                    can_cut += j * q // (j + 1)
                    can_visit_and_cut += q
        if can_cut >= cuts and can_visit_and_cut >= cuts + rooms:
            return k
        k += 1
