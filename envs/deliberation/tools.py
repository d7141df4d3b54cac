"""The solver tool of the paper's "with tools" condition, offered to ``llm-tools`` seats.

The authors' agents with tools hand the numbers they have pooled (the whole stock and every
guest's values as they believe them, or every agent's resources and values) to the integer-
program solver and plan with its answer. Here the same solver is a function the agent's prompt
offers (:mod:`mase.tools`): it takes the agent's numbers and the game's public information (the
recipes, the tasks' needs) and returns the best decision for those numbers, and what it earns
by them. It knows nothing hidden: wrong numbers in, a wrong plan out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from mase.envs.deliberation import text as words
from mase.envs.deliberation.games import ALLOCATION_SEATS, AllocationGame, MenuGame
from mase.tools import Tool


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not np.isfinite(value):
        raise ValueError(f"{what} must be a number, got {str(value)[:40]!r}")
    return float(value)


def menu_tool(env: Any) -> Tool:
    """``solve_menu(stock, values)``: the best menu for those numbers, on the public recipes."""

    def solve_menu(stock: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
        game: MenuGame = env.game
        if not isinstance(stock, Mapping) or not isinstance(values, Mapping):
            raise ValueError("stock and values are objects: {name: number, ...}")
        ingredients = {words.fold(i): j for j, i in enumerate(game.ingredients)}
        dishes = {words.fold(d): i for i, d in enumerate(game.dishes)}
        unknown = [k for k in stock if words.fold(k) not in ingredients]
        unknown += [k for k in values if words.fold(k) not in dishes]
        if unknown:
            raise ValueError(f"unknown names {unknown[:3]} (use the names the view lists)")
        cap = np.zeros(len(game.ingredients))
        for name, units in stock.items():
            cap[ingredients[words.fold(name)]] = _number(units, f"stock of {name}")
        v = np.zeros(len(game.dishes))
        for name, value in values.items():
            v[dishes[words.fold(name)]] = _number(value, f"value of {name}")
        from mase.envs.deliberation.scoring import _milp

        x = _milp(v, game.recipes.T.astype(np.float64), cap)
        chosen = [int(i) for i in np.flatnonzero(x) if v[i] > 0]
        return {
            "menu": [words.shown(game.dishes[i]) for i in chosen],
            "value": round(float(v[chosen].sum()), 2),
        }

    return Tool(
        "solve_menu",
        '{"stock": {"eggs": 3, ...}, "values": {"Naan": 4.5, ...}}',
        "the menu worth most for this whole stock and these dish values (each the two guests' "
        "mean), by the recipes listed; and its worth",
        solve_menu,
    )


def allocation_tool(env: Any) -> Tool:
    """``solve_allocation(capacities, public, values)``: the best allocation for those numbers."""

    def solve_allocation(
        capacities: Mapping[str, Any], public: Mapping[str, Any], values: Mapping[str, Any]
    ) -> dict[str, Any]:
        game: AllocationGame = env.game
        for given in (capacities, public, values):
            if not isinstance(given, Mapping):
                raise ValueError("capacities, public and values are objects")
        seats = list(ALLOCATION_SEATS)
        bad = [s for s in [*capacities, *values] if s not in seats]
        if bad:
            raise ValueError(f"unknown agents {bad[:3]}; the agents: {', '.join(seats)}")
        n, m = len(seats), len(game.tasks)
        refs = {words.task_ref(t): t for t in range(m)}
        rows, upper = [], []
        for a, seat in enumerate(seats):
            for r, cap in dict(capacities.get(seat, {})).items():
                row = np.zeros(n * m)
                for t in range(m):
                    row[a * m + t] = game.costs[a][t].get(r, 0.0)
                rows.append(row)
                upper.append(_number(cap, f"{seat}'s {r}"))
        for r, cap in public.items():
            row = np.zeros(n * m)
            for a in range(n):
                for t in range(m):
                    row[a * m + t] = game.costs[a][t].get(r, 0.0)
            rows.append(row)
            upper.append(_number(cap, f"public {r}"))
        for t in range(m):
            row = np.zeros(n * m)
            row[[a * m + t for a in range(n)]] = 1.0
            rows.append(row)
            upper.append(1.0)
        v = np.zeros(n * m)
        for a, seat in enumerate(seats):
            for ref, value in dict(values.get(seat, {})).items():
                if ref not in refs:
                    raise ValueError(f"unknown task {ref!r}; tasks are T1..T{m}")
                v[a * m + refs[ref]] = _number(value, f"{seat}'s value of {ref}")
        from mase.envs.deliberation.scoring import _milp

        x = _milp(v, np.array(rows), np.array(upper) + 1e-6)
        chosen = [int(i) for i in np.flatnonzero(x) if v[i] > 0]
        return {
            "allocation": {
                words.task_ref(i % m): seats[i // m] for i in sorted(chosen, key=lambda i: i % m)
            },
            "value": round(float(v[chosen].sum()), 2),
        }

    return Tool(
        "solve_allocation",
        '{"capacities": {"worker_0": {"Time": 6, ...}, ...}, "public": {"Budget": 300, ...}, '
        '"values": {"worker_0": {"T1": 19.6, ...}, ...}}',
        "the allocation worth most for these private capacities, public totals and task "
        "values, by the tasks' listed needs; and its worth",
        solve_allocation,
    )
