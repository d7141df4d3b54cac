"""A quick plan by list scheduling: the planner's first upper bound and its fallback.

Phases are handed out one at a time: of every live bomb's next unassigned phase and every
holder of its colour, the pair that can cut soonest is taken (the holder walks from where
its previous cut left it, and cuts no earlier than its first turn after the bomb's previous
phase), where "soonest" may favour bombs with long chains of phases left. Each agent then
walks a shortest path to its next cut's room, waits there by the live bomb and cuts on time.
The result defuses every bomb with legal actions in time polynomial in phases and agents,
but need not be optimal; the best of a few chain weights is kept.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mase.baselines.cbs.search import Node, Search


#: How many steps earlier a phase counts for each phase left in its bomb, per variant tried.
CHAIN_WEIGHTS = (0, 1, 2, 4)


def best_schedule(search: Search, start: Node) -> list[int]:
    """The actions of the list schedule with the fewest rounds (then steps) over the weights."""
    plans = [list_schedule(search, start, weight) for weight in CHAIN_WEIGHTS]
    return min(plans, key=lambda actions: (search.rounds_after(len(actions)), len(actions)))


def list_schedule(search: Search, start: Node, chain_weight: int = 0) -> list[int]:
    """The actions, one per step from ``start``, of a list-scheduled plan.

    A phase is ranked by the step its holder could cut it, less ``chain_weight`` for every
    phase left in its bomb (the phase itself included).
    """
    p, n = search.p, search.n
    t0, rooms_now, progress = start
    last_step = [0] * n  # the step of each agent's latest assigned cut
    room = list(rooms_now)
    bomb_ready = [0] * len(search.rooms)  # the step of each bomb's latest assigned cut
    next_phase = list(progress)
    jobs: list[list[tuple[int, int]]] = [[] for _ in range(n)]  # (bomb, step) per agent

    def own_step(agent: int, after: int, count: int) -> int:
        """The step of the ``count``-th turn of ``agent`` after step ``after``."""
        first = (agent - t0) % n + 1
        skipped = 0 if after < first else (after - first) // n + 1
        return first + (skipped + count - 1) * n

    while True:
        best = None
        for b, cut in enumerate(next_phase):
            if cut == search.lengths[b]:
                continue
            for a in p.holders[search.sequences[b][cut]]:
                step = own_step(a, last_step[a], p.dist[room[a]][search.rooms[b]] + 1)
                if step <= bomb_ready[b]:
                    step = own_step(a, bomb_ready[b], 1)
                rank = (step - chain_weight * (search.lengths[b] - cut), b, a)
                if best is None or rank < best[0]:
                    best = (rank, step, b, a)
        if best is None:
            break
        _, step, b, a = best
        jobs[a].append((b, step))
        last_step[a] = bomb_ready[b] = step
        room[a] = search.rooms[b]
        next_phase[b] += 1

    actions = []
    node = start
    for step in range(1, max(last_step, default=0) + 1):
        a, rooms_now, progress = node
        if not jobs[a]:
            action = search.idle_action(node)
        else:
            b, cut_step = jobs[a][0]
            here, target = rooms_now[a], search.rooms[b]
            if step == cut_step:
                action = p.cut_action[search.sequences[b][progress[b]]]
                jobs[a].pop(0)
            elif here != target:
                hop = min(r for r in p.neighbours[here] if p.dist[r][target] < p.dist[here][target])
                action = p.go_action[hop]
            else:
                action = p.inspect_action  # waiting by the bomb, live until this very cut
        actions.append(action)
        node = search.apply(node, action)
    return actions
