"""What a decision is worth: the reward, its validity, the optimum, and the paper's metrics.

The optimum of a game is a 0/1 integer program solved with ``scipy.optimize.milp`` (HiGHS) and
cached per game object:

* menu design: max Σ vᵢxᵢ subject to Σᵢ recipes[i, j]·xᵢ ≤ stock[j], each dish at most once,
  where vᵢ is the two guests' mean value of dish i;
* task allocation: max Σ V[a, t]·x[a, t] subject to A·x ≤ S (private rows per agent, public
  rows shared) and Σₐ x[a, t] ≤ 1; tasks may stay unassigned.

**Validity, as MASE decides it.** A decision is valid when every name in it is one of the
game's, no dish (task) is listed twice, and it fits the resources; an invalid decision earns 0
and carries the reason. The authors' evaluator is looser in two ways (their data README lists
them): it drops unknown names silently, and it pays a dish listed twice twice. Their score is
kept beside ours as ``lenient_reward`` (in 41 of the 90 released menu games a menu with repeats
scores above the optimum that way).

**Metrics** (:func:`metrics`), as the authors' evaluation code defines them:

* ``nr`` = 100 · reward / optimum (an invalid decision scores 0);
* ``nar``: menus: the authors' NPR, 100 · loose reward / optimum, where the loose reward keeps
  the dishes whose recipe alone fits the stock and, if the rest still does not fit, the dishes
  in listed order that still fit; ``npr2`` scales it by the share of dishes kept. Allocations:
  ``nr`` when valid, else the greedy feasible subset (assignments by descending value, each
  kept when the subset stays feasible) scored and scaled by the share of assignments kept;
* ``valid``: 1 when the decision is valid and not empty (VR is its mean).
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from mase.envs.deliberation.games import AllocationGame, Game, MenuGame

#: The authors' tolerance on resource use (their check runs in float32).
TOLERANCE = 1e-6


class Score(NamedTuple):
    """A decision's worth.

    Attributes:
        reward: what it earns under MASE's rules (0 when invalid).
        valid: every name known, nothing listed twice, within the resources, and not empty.
        reason: why it is invalid ("" when valid).
        lenient_reward: what the authors' evaluator pays for it (unknown names dropped,
            repeats paid again).
        loose_reward: the loose score (see the module docstring): NAR's numerator.
        kept: how many entries the loose score kept, of ``size``.
        size: entries in the decision.
    """

    reward: float
    valid: bool
    reason: str
    lenient_reward: float
    loose_reward: float
    kept: int
    size: int


class Optimum(NamedTuple):
    """The best decision of a game and what it earns.

    Attributes:
        value: the optimum.
        decision: menus: dish indices (sorted); allocations: task index -> agent index.
    """

    value: float
    decision: Any


_OPTIMA: weakref.WeakKeyDictionary[Game, Optimum] = weakref.WeakKeyDictionary()


def optimum(game: Game) -> Optimum:
    """The game's optimum, solved once per game object (``scipy.optimize.milp``, HiGHS)."""
    cached = _OPTIMA.get(game)
    if cached is None:
        cached = _solve_menu(game) if isinstance(game, MenuGame) else _solve_allocation(game)
        _OPTIMA[game] = cached
    return cached


def _milp(values: np.ndarray, a: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """Argmax values·x over x in {0, 1}ⁿ with a·x ≤ upper."""
    try:
        from scipy.optimize import Bounds, LinearConstraint, milp
    except ImportError as err:  # pragma: no cover - the extra names it
        raise ImportError(
            "the deliberation tasks solve their optimum with scipy: "
            "pip install 'mase-suite[deliberation]' (or scipy>=1.11)"
        ) from err
    n = len(values)
    result = milp(
        -np.asarray(values, dtype=np.float64),
        constraints=LinearConstraint(a, -np.inf, upper),
        integrality=np.ones(n),
        bounds=Bounds(0, 1),
        # HiGHS's presolve, on some of these small programs, prints a debug line to stdout
        # (scipy 1.17); without it the solve is as fast here (benchmarks/deliberation_optimum.py)
        options={"presolve": False},
    )
    if result.x is None:  # pragma: no cover - x = 0 is always feasible
        raise RuntimeError(f"the solver found no solution: {result.message}")
    return np.round(result.x).astype(np.int64)


def _solve_menu(game: MenuGame) -> Optimum:
    x = _milp(game.values, game.recipes.T.astype(np.float64), game.stock.astype(np.float64))
    chosen = tuple(int(i) for i in np.flatnonzero(x))
    return Optimum(menu_reward(game, chosen), chosen)


def _solve_allocation(game: AllocationGame) -> Optimum:
    n_agents, n_tasks = game.values.shape
    a, s = game.constraints
    one_each = np.tile(np.eye(n_tasks), (1, n_agents))  # Σₐ x[a, t] ≤ 1
    x = _milp(
        game.values.astype(np.float64).ravel(),
        np.vstack([a.astype(np.float64), one_each]),
        np.concatenate([s.astype(np.float64) + TOLERANCE, np.ones(n_tasks)]),
    ).reshape(n_agents, n_tasks)
    chosen = {int(t): int(np.flatnonzero(x[:, t])[0]) for t in range(n_tasks) if x[:, t].any()}
    return Optimum(allocation_reward(game, chosen), chosen)


# -- menus ------------------------------------------------------------------------------------


def menu_fits(game: MenuGame, dishes: Sequence[int]) -> bool:
    """Whether the dishes (repeats counted) fit the stock."""
    if not dishes:
        return True
    return bool((game.recipes[list(dishes)].sum(axis=0) <= game.stock).all())


def menu_reward(game: MenuGame, dishes: Sequence[int]) -> float:
    """The menu's reward by the authors' rule.

    0 if it overuses an ingredient, else the sum of its dishes' values (a repeated dish counts
    each time).
    """
    if not menu_fits(game, dishes):
        return 0.0
    values = game.values
    return float(sum(float(values[i]) for i in dishes))


def possible_dishes(game: MenuGame) -> tuple[int, ...]:
    """The dishes whose recipe alone fits the stock."""
    return tuple(int(i) for i in np.flatnonzero((game.recipes <= game.stock).all(axis=1)))


def score_menu(game: MenuGame, names: Sequence[str]) -> Score:
    """The worth of a menu given as dish names (as said: case and spacing as in the game)."""
    index = {d: i for i, d in enumerate(game.dishes)}
    known = [index[n] for n in names if n in index]
    unknown = [n for n in names if n not in index]
    repeated = sorted({n for n in names if names.count(n) > 1})
    lenient = menu_reward(game, known)
    possible = set(possible_dishes(game))
    loose = [i for i in known if i in possible]
    if not menu_fits(game, loose):
        kept: list[int] = []
        for i in loose:
            if menu_fits(game, [*kept, i]):
                kept.append(i)
        loose = kept
    loose_reward = menu_reward(game, loose)
    reason = ""
    if unknown:
        reason = f"no dish is called {', '.join(repr(n) for n in unknown[:3])}"
    elif repeated:
        reason = f"{', '.join(repeated[:3])} listed more than once"
    elif not names:
        reason = "the menu is empty"
    elif not menu_fits(game, known):
        need = game.recipes[known].sum(axis=0)
        over = [
            f"{int(need[j])} {game.ingredients[j]} ({int(game.stock[j])} in stock)"
            for j in np.flatnonzero(need > game.stock)
        ]
        reason = f"the menu needs {', '.join(over[:3])}"
    reward = 0.0 if reason else menu_reward(game, known)
    return Score(reward, not reason, reason, lenient, loose_reward, len(loose), len(names))


# -- allocations ------------------------------------------------------------------------------


def allocation_vector(game: AllocationGame, assignment: Mapping[int, int]) -> np.ndarray:
    """Task index -> agent index as the authors' 0/1 vector (agent-major, float32)."""
    n_agents, n_tasks = game.values.shape
    x = np.zeros(n_agents * n_tasks, dtype=np.float32)
    for t, a in assignment.items():
        x[a * n_tasks + t] = 1.0
    return x


def allocation_fits(game: AllocationGame, assignment: Mapping[int, int]) -> bool:
    """Whether the assignment fits every resource (the authors' float32 check)."""
    a, s = game.constraints
    return bool((a @ allocation_vector(game, assignment) <= s + np.float32(TOLERANCE)).all())


def allocation_reward(game: AllocationGame, assignment: Mapping[int, int]) -> float:
    """The value of a feasible assignment (0 if it overuses a resource)."""
    if not allocation_fits(game, assignment):
        return 0.0
    return float(sum(float(game.values[a, t]) for t, a in assignment.items()))


def score_allocation(game: AllocationGame, pairs: Sequence[tuple[str, str]]) -> Score:
    """The worth of an allocation given as (task, agent) name pairs.

    Agent names are the seats (:data:`.games.ALLOCATION_SEATS`) or the authors' ``agent_k``.
    """
    from mase.envs.deliberation.games import ALLOCATION_SEATS, AUTHORS_AGENTS

    tasks = {t: i for i, t in enumerate(game.tasks)}
    agents = {**{a: i for i, a in enumerate(ALLOCATION_SEATS)},
              **{a: i for i, a in enumerate(AUTHORS_AGENTS)}}  # fmt: skip
    unknown = [t for t, _ in pairs if t not in tasks] + [a for _, a in pairs if a not in agents]
    named = [t for t, _ in pairs]
    repeated = sorted({t for t in named if named.count(t) > 1})
    # the authors' reading: unknown names dropped, a later pair for a task replaces the first
    lenient_map = {tasks[t]: agents[a] for t, a in pairs if t in tasks and a in agents}
    lenient = allocation_reward(game, lenient_map)
    reason = ""
    if unknown:
        reason = f"unknown task or agent {', '.join(repr(n) for n in unknown[:3])}"
    elif repeated:
        reason = f"{', '.join(repeated[:2])} assigned more than once"
    elif not pairs:
        reason = "the allocation assigns no task"
    elif not allocation_fits(game, lenient_map):
        reason = "the allocation overuses " + ", ".join(_overused(game, lenient_map)[:3])
    reward = 0.0 if reason else lenient
    if not reason:
        kept, loose = len(lenient_map), reward
    else:  # the authors' greedy repair, by descending value
        order = sorted(lenient_map.items(), key=lambda ta: -float(game.values[ta[1], ta[0]]))
        subset: dict[int, int] = {}
        for t, a in order:
            if allocation_fits(game, {**subset, t: a}):
                subset[t] = a
        kept, loose = len(subset), allocation_reward(game, subset)
    return Score(reward, not reason, reason, lenient, loose, kept, len(pairs))


def _overused(game: AllocationGame, assignment: Mapping[int, int]) -> list[str]:
    """The resources an assignment overuses, in words."""
    out = []
    for k, cap in enumerate(game.capacity):
        for r in game.private:
            used = sum(game.costs[a][t].get(r, 0.0) for t, a in assignment.items() if a == k)
            if used > cap.get(r, 0.0) + TOLERANCE:
                out.append(f"{r} of agent {k} ({used:g} of {cap.get(r, 0.0):g})")
    for r in game.public:
        used = sum(game.costs[a][t].get(r, 0.0) for t, a in assignment.items())
        if used > game.public_capacity.get(r, 0.0) + TOLERANCE:
            out.append(f"{r} ({used:g} of {game.public_capacity.get(r, 0.0):g})")
    return out or ["a resource"]


# -- metrics ----------------------------------------------------------------------------------


def metrics(game: Game, score: Score) -> dict[str, float]:
    """NR, NAR, validity and the authors' lenient NR of one decision (module docstring)."""
    best = optimum(game).value
    scale = 100.0 / best if best > 0 else 0.0
    out = {
        "nr": round(score.reward * scale, 9),
        "valid": float(score.valid),
        "lenient_nr": round(score.lenient_reward * scale, 9),
        "reward": score.reward,
        "optimum": best,
    }
    if isinstance(game, MenuGame):
        out["nar"] = round(score.loose_reward * scale, 9)
        out["npr2"] = out["nar"] * (score.kept / score.size if score.size else 0.0)
    elif score.valid:
        out["nar"] = out["nr"]
    else:
        out["nar"] = score.loose_reward * scale * (score.kept / score.size if score.size else 0.0)
    return out
