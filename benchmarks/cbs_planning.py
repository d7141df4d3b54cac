"""Planning time and plan quality of the full-information planner (mase.baselines.cbs).

Part 1, the paper layout: planning time (median, max) and search nodes over many seeds next
to the rounds of the plans (mean ± std), compared with the paper's CBS, 6.0 ± 0.0 rounds.
Goal: median planning < 0.5 s. Beside them, the true optimum of every instance by an
exhaustive breadth-first search over (positions, phases cut), independent of the planner,
under two rules: turns (the game as MASE plays it: a later agent acts on the state an earlier
one left, so two agents may cut successive phases of one bomb in one round) and simultaneous
(each round's three actions are chosen from the state at its start and resolve together, at
most one phase of a bomb per round). Neither gives a constant 6.0.

Part 2, procedural instances: how planning time and expanded nodes grow with rooms, bombs
and agents, and how often the exact search finishes within its node budget (``optimal``:
the plan is proven to have the fewest rounds; otherwise the best plan found and the proven
lower bound are reported).

Every instance is ``world.new_state`` on a layout drawn from ``numpy.random.default_rng(seed)``,
planned from the first turn of round 1.

Run: python benchmarks/cbs_planning.py [--paper-seeds 200] [--seeds 10] [--budget 100000]
"""

import argparse
import statistics
import time

import numpy as np

from mase.baselines.cbs import Planner
from mase.baselines.cbs.planner import NODE_BUDGET
from mase.envs.search_rescue import world

#: (rooms, bombs, agents, colours), grouped by what grows.
GROWTH = {
    "rooms": [(5, 5, 3, 3), (7, 5, 3, 3), (9, 5, 3, 3), (12, 5, 3, 3)],
    "bombs": [(9, 3, 3, 3), (9, 5, 3, 3), (9, 7, 3, 3), (9, 9, 3, 3)],
    "agents": [(9, 8, 2, 4), (9, 8, 3, 4), (9, 8, 4, 4), (9, 8, 5, 4), (9, 8, 6, 4)],
}


def plan_instances(make_layout, seeds: range, budget: int) -> list:
    plans = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        layout = make_layout(rng)
        plans.append(Planner(layout, node_budget=budget).plan(world.new_state(layout, rng)))
    return plans


def paper(seeds: int, budget: int) -> None:
    started = time.perf_counter()
    plans = plan_instances(lambda rng: world.paper_layout(), range(seeds), budget)
    seconds = [p.seconds for p in plans]
    expanded = [p.expanded for p in plans]
    rounds = [p.rounds for p in plans]
    std = statistics.stdev(rounds) if len(rounds) > 1 else 0.0
    print(f"paper layout, {seeds} seeds ({time.perf_counter() - started:.1f} s in all)")
    print(
        f"  planning time   median {1000 * statistics.median(seconds):.1f} ms, "
        f"max {1000 * max(seconds):.1f} ms (goal: median < 500 ms)"
    )
    print(f"  nodes expanded  median {statistics.median(expanded):.0f}, max {max(expanded)}")
    print(f"  rounds          {statistics.mean(rounds):.2f} ± {std:.2f}   (paper's CBS: 6.0 ± 0.0)")
    counts = {r: rounds.count(r) for r in sorted(set(rounds))}
    print(f"  rounds count    {counts}; proven optimal: {sum(p.optimal for p in plans)}/{seeds}")
    for rule, simultaneous in (("turns", False), ("simultaneous", True)):
        best = []
        for seed in range(seeds):
            rng = np.random.default_rng(seed)
            layout = world.paper_layout()
            best.append(optimum(layout, world.new_state(layout, rng), simultaneous))
        spread = statistics.stdev(best) if len(best) > 1 else 0.0
        counts = {r: best.count(r) for r in sorted(set(best))}
        agree = sum(a == b for a, b in zip(best, rounds, strict=True))
        print(
            f"  optimum, {rule:<12} {statistics.mean(best):.2f} ± {spread:.2f}  {counts}"
            + (f"  (the planner's rounds equal it on {agree}/{seeds})" if not simultaneous else "")
        )


def optimum(layout: world.Layout, state: world.State, simultaneous: bool) -> int:
    """The fewest rounds that defuse every bomb, by exhaustive search (full information)."""
    agents, bombs = layout.agents, state.bombs
    where = {b.room: i for i, b in enumerate(bombs)}

    def options(positions: tuple, cuts: tuple, k: int) -> list[tuple[tuple, int | None]]:
        """Agent k's useful actions: stay, move through a door, cut the bomb here's next phase."""
        room = positions[k]
        out = [(positions, None)]
        for nxt in layout.neighbours[room]:
            out.append((positions[:k] + (nxt,) + positions[k + 1 :], None))
        i = where.get(room)
        if i is not None and cuts[i] < len(bombs[i].sequence):
            if bombs[i].sequence[cuts[i]] in layout.cutters[agents[k]]:
                out.append((positions, i))
        return out

    def cut(cuts: tuple, i: int) -> tuple:
        return cuts[:i] + (cuts[i] + 1,) + cuts[i + 1 :]

    goal = tuple(len(b.sequence) for b in bombs)
    frontier = {(tuple(state.positions[a] for a in agents), tuple(b.cut for b in bombs))}
    seen = set(frontier)
    for rnd in range(1, 31):
        if simultaneous:
            after = set()
            for positions, cuts in frontier:
                joint = [((), cuts, frozenset())]
                for k in range(len(agents)):
                    grown = []
                    for moved, done, hit in joint:
                        for new, i in options(positions, cuts, k):
                            if i is not None and i in hit:
                                continue  # one phase of a bomb per round
                            place = moved + (new[k],)
                            grown.append((place, cut(done, i) if i is not None else done,
                                          hit | {i} if i is not None else hit))  # fmt: skip
                    joint = grown
                after.update((moved, done) for moved, done, _ in joint)
        else:
            after = frontier
            for k in range(len(agents)):
                after = {
                    (new, cut(cuts, i) if i is not None else cuts)
                    for positions, cuts in after
                    for new, i in options(positions, cuts, k)
                }
        if any(cuts == goal for _, cuts in after):
            return rnd
        frontier = after - seen
        seen |= frontier
    raise RuntimeError("no plan within 30 rounds")


def growth(seeds: int, budget: int) -> None:
    print(f"\nprocedural instances, {seeds} seeds each, node budget {budget}")
    header = (
        f"{'grows':<7}{'rooms':>6}{'bombs':>6}{'agents':>7}{'colours':>8}{'optimal':>9}"
        f"{'rounds':>8}{'bound':>7}{'median s':>10}{'max s':>8}{'median nodes':>14}"
        f"{'max nodes':>11}"
    )
    print(header)
    print("-" * len(header))
    for grows, instances in GROWTH.items():
        for sizes in instances:
            plans = plan_instances(
                lambda rng, sizes=sizes: world.procedural_layout(*sizes, rng), range(seeds), budget
            )
            seconds = [p.seconds for p in plans]
            expanded = [p.expanded for p in plans]
            optimal = sum(p.optimal for p in plans)
            print(
                f"{grows:<7}{sizes[0]:>6}{sizes[1]:>6}{sizes[2]:>7}{sizes[3]:>8}"
                f"{f'{optimal}/{seeds}':>9}{statistics.mean(p.rounds for p in plans):>8.2f}"
                f"{statistics.mean(p.lower_bound for p in plans):>7.2f}"
                f"{statistics.median(seconds):>10.3f}{max(seconds):>8.2f}"
                f"{statistics.median(expanded):>14.0f}{max(expanded):>11}",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paper-seeds", type=int, default=200, help="paper-layout instances")
    parser.add_argument("--seeds", type=int, default=10, help="instances per procedural size")
    parser.add_argument("--budget", type=int, default=NODE_BUDGET, help="exact-search nodes")
    args = parser.parse_args()
    paper(args.paper_seeds, args.budget)
    growth(args.seeds, args.budget)


if __name__ == "__main__":
    main()
