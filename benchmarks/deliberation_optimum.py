"""Deliberation's optimum: scipy's milp (HiGHS) on every released game, against enumeration.

For each of the 192 released games the optimum is solved from scratch (a fresh game object,
so nothing is cached) and timed; the goal is a median under 50 ms. The reference in the same
run is exhaustive enumeration: for a menu, every subset of the dishes whose recipe alone fits
the stock (a dish that does not fit alone is in no feasible menu); for an allocation, every
assignment of each task to one of the three agents or to none (4^10 = 1,048,576 assignments,
checked in blocks with numpy). Both must give the authors' stored optimum.

Run: python benchmarks/deliberation_optimum.py [--sets menu,menu_level3,allocation,allocation_demo]
"""

import argparse
import itertools
import time

import numpy as np

from mase.envs.deliberation import games, scoring


def enumerate_menu(game) -> float:
    possible = scoring.possible_dishes(game)
    recipes, values, stock = game.recipes[list(possible)], game.values[list(possible)], game.stock
    best = 0.0
    masks = np.array(list(itertools.product((0, 1), repeat=len(possible))), dtype=np.int64)
    fits = (masks @ recipes <= stock).all(axis=1)
    if fits.any():
        best = float((masks[fits] @ values).max())
    return best


def enumerate_allocation(game) -> float:
    a, s = game.constraints
    n_agents, n_tasks = game.values.shape
    a64, s64 = a.astype(np.float64), s.astype(np.float64) + scoring.TOLERANCE
    values = game.values.ravel()
    best = 0.0
    owners = np.array(list(itertools.product(range(n_agents + 1), repeat=n_tasks)), dtype=np.int8)
    for block in np.array_split(owners, max(1, len(owners) // 65536)):
        x = np.zeros((len(block), n_agents * n_tasks))
        for t in range(n_tasks):
            chosen = block[:, t] > 0
            x[chosen, (block[chosen, t] - 1) * n_tasks + t] = 1.0
        fits = (x @ a64.T <= s64).all(axis=1)
        if fits.any():
            best = max(best, float((x[fits] @ values).max()))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default=",".join(games.RELEASED))
    args = parser.parse_args()
    print(f"{'set':<16} {'games':>5} {'milp median ms':>15} {'milp max ms':>12} "
          f"{'enum median ms':>15} {'= stored':>9} {'= enum':>7}")  # fmt: skip
    all_times = []
    for name in args.sets.split(","):
        fresh = [games.from_authors(games.released_raw(g.id), g.id) for g in games.released(name)]
        scoring.optimum(fresh[0])  # scipy's first import and HiGHS's first start, not timed
        fresh = [games.from_authors(games.released_raw(g.id), g.id) for g in games.released(name)]
        milp_ms, enum_ms, stored, agree = [], [], 0, 0
        for game in fresh:
            t = time.perf_counter()
            value = scoring.optimum(game).value
            milp_ms.append(1000 * (time.perf_counter() - t))
            t = time.perf_counter()
            reference = enumerate_menu(game) if game.kind == "menu" else enumerate_allocation(game)
            enum_ms.append(1000 * (time.perf_counter() - t))
            stored += abs(value - game.max_reward) < 1e-6
            agree += abs(value - reference) < 1e-6
        all_times += milp_ms
        n = len(fresh)
        print(f"{name:<16} {n:>5} {np.median(milp_ms):>15.1f} {max(milp_ms):>12.1f} "
              f"{np.median(enum_ms):>15.1f} {stored:>5}/{n:<3} {agree:>3}/{n}")  # fmt: skip
    print(f"all: median {np.median(all_times):.1f} ms over {len(all_times)} games (goal < 50 ms)")


if __name__ == "__main__":
    main()
