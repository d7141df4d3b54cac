"""Fresh game instances from the generators' source data, seeded, in the authors' format.

:func:`menu_game` and :func:`allocation_game` build one game from a seed and return its fields
as the released games hold them (the converted JSON format that
``shared/data/deliberation/README.md`` describes field by field), so a generated game and a
released one read the same way through :func:`.games.from_authors`. :func:`menu_games` and
:func:`allocation_games` return ready game objects for seeds ``seed, seed + 1, ...``.

What follows the authors (Wang et al. 2026, ``delib_collab/data_generation``) is their rule for
each field, as their code and data README state it; the inputs are their packaged source files
(:func:`.games.source_data`). MASE departs from them in three ways (each function's
docstring lists its own details):

* **One random stream.** Every draw comes from ``numpy.random.default_rng(seed)``, so a seed
  and the same knobs give an identical dict; the authors mixed Python's ``random`` and numpy's
  global state (menus) or per-step derived seeds (allocations).
* **Best of a few, not best of thousands.** The authors drew thousands of candidates, dropped
  those failing hard filters (too few possible or optimal dishes; too few assigned tasks) and
  kept the best 60 (menus, of 10,000) or about 33 per domain (allocations) by a priority score
  that favours optima using most of the stock or resources. Here each game applies the same
  filters and priority to its own ``candidates`` passing candidates (default
  :data:`CANDIDATES` = 16) and keeps the best. Measured over 60 games (seeds 1000–1059), the
  default comes close to the released sets: menus average 18.4 candidate dishes (released
  17.9), optima of 3–5 dishes in 59 of 60 (released 2–5), 61 % of the stock's units used
  (released 60 %), a mean optimum of 19.8 (released 17.7); allocations assign 5–9 of 10
  tasks, 7 most often (released 6–9, 7 most often), with a mean resource use of 0.66
  (released 0.70). ``candidates=1`` gives the filtered candidates as drawn: smaller optima
  (mostly 2–3 dishes, 38 % of the units used; mostly 5–7 tasks, resource use 0.56).
* **Orders.** The authors' dish and extra-ingredient orders came from Python sets (they change
  from run to run); here dishes keep the cookbook's order and ingredients the order of
  ``ingredients.txt``.

The optimum (``best_menu``, ``max_reward``; ``best_allocation``, ``max_reward``) is
:func:`.scoring.optimum` of the built game (``scipy.optimize.milp``), not the authors' PuLP/CBC
solver; on ties the chosen decision may differ, the value does not.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any, cast

import numpy as np

from mase.envs.deliberation.games import (
    PROFILE_LABELS,
    AllocationGame,
    MenuGame,
    from_authors,
    source_data,
)
from mase.envs.deliberation.scoring import optimum

COOKING = "cooking/full_data/"
DATABASE = "task_allocation/database/"

#: The authors' ``min_split_range``: the least share of the stock (menus) or of the workers'
#: part of a public resource (allocations) one agent holds.
MIN_SPLIT = 0.4
#: The authors' ``COMPLEXITY_BONUS_COEF``: base value n + 0.2·n^1.5.
COMPLEXITY_BONUS = 0.2
#: The authors' ``p_possible_dish`` (release settings): possible dishes are about this share of
#: the candidate dishes.
P_POSSIBLE_DISH = 0.4
#: The authors' ``min_dishes``: the least number of candidate dishes to aim for.
MIN_DISHES = 10
#: The authors' ``public_resource_margin`` default: public capacity ≈ 0.8 × the expected need.
PUBLIC_MARGIN = 0.8
#: Draws allowed per wanted candidate before a generator gives up on its filters.
MAX_TRIES = 1000
#: Passing candidates drawn per game by default; the one of highest priority is kept.
CANDIDATES = 16
#: The authors' menu priority weights (release): ingredients in stock, possible dishes,
#: optimal dishes, optimum (the share of units used counts 1).
PRIORITY_MENU = (0.1, 0.05, -0.01, 0.01)
#: The authors' allocation priority weights (release): share of tasks assigned, resource use,
#: optimum.
PRIORITY_ALLOCATION = (0.1, 1.0, 0.0)

#: Persona attribute -> the authors' profile label (``Persona.get_full_profile``), in order.
PROFILE = PROFILE_LABELS
#: The four basic fields: a hidden one reads ``None`` (the other categories read ``{}``/``[]``).
BASIC = ("name", "gender", "nationality", "age")
#: The seats in the authors' order.
AGENTS = ("agent_0", "agent_1", "agent_2")


# -- shared helpers ---------------------------------------------------------------------------


def _lines(text: str) -> list[str]:
    """The non-empty, stripped lines of a text file."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def _f32(x: Any) -> float:
    """A float32 value as the converted files write it: the shortest decimal of that float32."""
    return float(str(np.float32(x)))


def _round_02(x: float) -> float:
    """The authors' ``_round_to_0_5``: to the nearest multiple of 0.2 (x·5 rounded, then /5)."""
    return float(round(x * 5.0) / 5.0)


def _round_01(x: float) -> float:
    """The authors' ``_round_to_0_1``: to the nearest multiple of 0.1."""
    return float(round(x * 10.0) / 10.0)


def _best_of(
    rng: np.random.Generator,
    draw: Callable[[np.random.Generator], tuple[float, Any] | None],
    candidates: int,
    what: str,
) -> Any:
    """The candidate of highest priority among the first ``candidates`` that pass the filters.

    ``draw`` returns ``(priority, candidate)``, or ``None`` for a candidate the filters reject;
    the first of equal priorities wins.

    Raises:
        ValueError: ``candidates`` below 1.
        RuntimeError: no candidate passed in ``MAX_TRIES × candidates`` draws.
    """
    if candidates < 1:
        raise ValueError(f"candidates must be at least 1, not {candidates}")
    best: tuple[float, Any] | None = None
    kept = 0
    for _ in range(MAX_TRIES * candidates):
        got = draw(rng)
        if got is None:
            continue
        if best is None or got[0] > best[0]:
            best = got
        kept += 1
        if kept == candidates:
            break
    if best is None:
        raise RuntimeError(
            f"no {what} passed the filters in {MAX_TRIES * candidates} draws; loosen them "
            "(e.g. min_possible=0, min_menu=0, min_assigned=0)"
        )
    return best[1]


# -- menu design ------------------------------------------------------------------------------


@cache
def _cooking() -> dict[str, Any]:
    """The cooking source data, read once: ingredients, dishes, cookbook, guests, weights."""
    src = source_data()
    ingredients = _lines(src[COOKING + "ingredients.txt"])
    dishes = _lines(src[COOKING + "dishes.txt"])
    cookbook = src[COOKING + "cookbook.json"]
    guests = {}
    for profile in src[COOKING + "personas.json"]:
        name = profile["Name"]
        guests[name] = {
            "profile": profile,
            "values": src[f"{COOKING}processed/persona_values/{name}_values.json"],
        }
    usage = np.array(
        [sum(1 for d in dishes if i in cookbook[d]["ingredients"]) for i in ingredients],
        dtype=np.float64,
    )
    weights = np.sqrt(usage)  # the authors' ingredient weight: √(dishes that use it)
    probs = list(src[COOKING + "persona_reveal_probs.json"].values())  # [Internet, Home]
    return {
        "ingredients": ingredients, "dishes": dishes, "cookbook": cookbook, "guests": guests,
        "weights": weights / weights.sum(), "reveal_probs": probs,
    }  # fmt: skip


def _persona(
    profile: Mapping[str, Any], values: Any, seen: Sequence[bool] | None
) -> dict[str, Any]:
    """A ``persona.Persona`` object's fields (``seen``: which categories survive, in order).

    As the authors' class: a hidden basic field is ``None``; a hidden or empty category is
    ``{}`` (``[]`` for food allergies).
    """
    out: dict[str, Any] = {"_class": "persona.Persona"}
    for k, (attr, label) in enumerate(PROFILE.items()):
        value = profile.get(label) if seen is None or seen[k] else None
        if attr not in BASIC and not value:
            value = [] if attr == "food_allergies" else {}
        out[attr] = copy.deepcopy(value)
    out["values"] = copy.deepcopy(values)
    return out


def _full_profile(persona: Mapping[str, Any]) -> dict[str, Any]:
    """A persona's ``get_full_profile()``: its fields under the authors' labels."""
    return {label: copy.deepcopy(persona[attr]) for attr, label in PROFILE.items()}


def _split_units(rng: np.random.Generator, stock: Mapping[str, int]) -> tuple[dict, dict]:
    """The authors' ``level1_ingredient_partition`` (see :func:`menu_game`)."""
    n = sum(stock.values())
    low = math.ceil(n * MIN_SPLIT)
    high = n - low - 1  # numpy's randint(low, n - low) excludes n - low
    k = int(rng.integers(low, high + 1)) if high >= low else min(low, n - low)
    mine = set(rng.choice(n, size=k, replace=False).tolist())
    obs_0 = dict.fromkeys(stock, 0)
    obs_1 = dict.fromkeys(stock, 0)
    unit = 0
    for ingredient, count in stock.items():
        for _ in range(count):
            (obs_0 if unit in mine else obs_1)[ingredient] += 1
            unit += 1
    return obs_0, obs_1


def menu_game(
    seed: int,
    *,
    n_in_stock: int = 8,
    units: tuple[int, int] = (1, 4),
    guests: tuple[str, str] | None = None,
    min_possible: int = 5,
    min_menu: int = 2,
    candidates: int = CANDIDATES,
    game_id: str | None = None,
) -> dict[str, Any]:
    """One menu design game, in the authors' format (a released ``level_1_and_2`` game's keys).

    Following the authors (``generate_games.py: gen_games_true`` with the release settings,
    ``game.py``, ``persona.py``):

    * **Stock.** ``n_in_stock`` ingredients drawn without replacement with weight √(number of
      cookbook dishes that use the ingredient); each gets a whole number of units drawn
      uniformly from ``units`` (inclusive; the release: 8 ingredients, 1–4 units).
    * **Split** (``level1_ingredient_partition``). With n units in all, agent 0 gets k units,
      k uniform on ⌈0.4n⌉ … n − ⌈0.4n⌉ − 1 (numpy's exclusive upper bound makes the range
      lean towards agent 1: 9–12 of 22 units), the k units picked uniformly among all n;
      agent 1 gets the rest. So agent 0 holds 40–60 % of all units, not of each ingredient:
      one agent may hold an ingredient entirely (released ``level_1_and_2/game_0000``: cream
      3/0), unlike the wording "each agent holds at least 40% of each ingredient". When the
      range is empty (n ≤ 4, 6 or 8) agent 0 gets min(⌈0.4n⌉, n − ⌈0.4n⌉) units (MASE's
      choice; the authors' code fails there).
    * **Guests.** An ordered pair of distinct guests, uniform (or ``guests``); guest 1 is
      ``persona_0``, whose numbers agent 0 sees.
    * **Dishes** (``extract_subset_by_ingredients_ext1_1`` as the release was made). Every
      dish whose recipe alone fits the stock ("possible"), plus max(⌈possible / 0.4⌉, 10) −
      possible dishes drawn uniformly without replacement from the whole cookbook; a drawn
      dish that is already possible is not added twice, so a game may have fewer dishes than
      the target. ``ingredients``: the dishes' other ingredients, then the in-stock ones. The
      function at the released commit draws only among dishes that use an in-stock ingredient
      and do not fit, but the released games do not follow it: all 60 list a dish that uses
      no in-stock ingredient (``game_0000``: Pad Thai), 344 of their 611 other dishes (56 %)
      share one (a draw from the whole cookbook expects 55 %), and 51 of 60 have fewer dishes
      than the target, as the function's commented-out line (a draw from all dishes) gives.
    * **Values.** base value = round(n + 0.2·n^1.5, 2) in float32, n = units of the recipe; a
      guest's value = round(rating × base value, 2) in float64 (the source ratings run from 0
      to 1.9, not 0 to 1).
    * **Profiles** (``Persona.partial_observation``). For each guest and each agent, every
      profile category is kept with that agent's reveal probability (``persona_obs_probs``:
      agent 0 the "Internet Agent", agent 1 the "Home Agent"); a hidden basic field is
      ``null``, a hidden category ``{}`` (``[]`` for allergies).
    * **Filters** (``select_games_with_initial_state_v1``): a candidate with fewer than
      ``min_possible`` possible dishes (release: 5) or an optimal menu of fewer than
      ``min_menu`` dishes (the release holds a 2-dish optimum) is dropped.
    * **Priority** (same function, release weights): share of the stock's units the optimum
      uses + 0.1 × share of the game's ingredients in stock + 0.05 × possible dishes − 0.01 ×
      optimal dishes + 0.01 × optimum.

    MASE's: the authors kept the 60 best of 10,000 candidates by that priority (the top
    0.6 %); here each game is the best of its own ``candidates`` passing candidates (default
    :data:`CANDIDATES`; 1 gives the filtered candidate distribution), drawn from one
    ``numpy.random.default_rng(seed)`` stream; dishes in cookbook order and ingredients in
    ``ingredients.txt`` order; the optimum from :func:`.scoring.optimum`; ``_source`` =
    ``{"generator": "mase", "seed", "game_id", "options", "numpy_arrays"}``.

    Args:
        seed: the seed; the same seed and knobs give an identical dict.
        n_in_stock: ingredients in stock (release 8; level 3 used 10).
        units: least and most units of an in-stock ingredient (inclusive).
        guests: the two guests' names (``personas.json``), or ``None`` to draw them.
        min_possible: the fewest dishes whose recipe alone must fit the stock (0: no filter).
        min_menu: the fewest dishes the optimal menu must have (0: no filter).
        candidates: passing candidates drawn per game; the one of highest priority is kept.
        game_id: the game's id (default ``"mase/menu/seed_<seed>"``).

    Returns:
        The game's fields, JSON-ready (numbers, lists, dicts).

    Raises:
        ValueError: an unknown or repeated guest, or knobs out of range.
        RuntimeError: no candidate passed the filters.
    """
    db = _cooking()
    low, high = units
    if not 1 <= n_in_stock <= len(db["ingredients"]):
        raise ValueError(f"n_in_stock must be 1..{len(db['ingredients'])}, not {n_in_stock}")
    if not 1 <= low <= high:
        raise ValueError(f"units must be (least, most) with 1 <= least <= most, not {units}")
    if guests is not None and (
        len(guests) != 2 or guests[0] == guests[1] or any(g not in db["guests"] for g in guests)
    ):
        raise ValueError(f"guests must be two different names of {sorted(db['guests'])}")
    game_id = game_id or f"mase/menu/seed_{seed}"
    options = {
        "n_in_stock": n_in_stock, "units": [low, high], "guests": guests and list(guests),
        "min_possible": min_possible, "min_menu": min_menu, "candidates": candidates,
    }  # fmt: skip

    def draw(rng: np.random.Generator) -> tuple[float, dict[str, Any]] | None:
        return _menu_candidate(rng, db, n_in_stock, (low, high), guests, min_possible, min_menu)

    core = _best_of(np.random.default_rng(seed), draw, candidates, "menu game")
    source = {"generator": "mase", "seed": seed, "game_id": game_id, "options": options}
    return _menu_fields(db, core, source)


def _menu_candidate(
    rng: np.random.Generator,
    db: Mapping[str, Any],
    n_in_stock: int,
    units: tuple[int, int],
    guests: tuple[str, str] | None,
    min_possible: int,
    min_menu: int,
) -> tuple[float, dict[str, Any]] | None:
    """One menu candidate's draws and numbers with its priority, or ``None`` when filtered."""
    all_ingredients, cookbook = db["ingredients"], db["cookbook"]
    picked = rng.choice(len(all_ingredients), size=n_in_stock, replace=False, p=db["weights"])
    stock = {all_ingredients[i]: int(rng.integers(units[0], units[1] + 1)) for i in sorted(picked)}
    shares = _split_units(rng, stock)
    names = list(db["guests"])
    pair = guests or tuple(names[i] for i in rng.choice(len(names), size=2, replace=False))

    def fits(dish: str) -> bool:
        return all(stock.get(i, 0) >= q for i, q in cookbook[dish]["ingredients"].items())

    possible = [d for d in db["dishes"] if fits(d)]
    if len(possible) < min_possible:
        return None
    need = max(math.ceil(len(possible) / P_POSSIBLE_DISH), MIN_DISHES) - len(possible)
    drawn = rng.choice(len(db["dishes"]), size=min(need, len(db["dishes"])), replace=False)
    chosen = set(possible) | {db["dishes"][i] for i in drawn}
    dishes = [d for d in db["dishes"] if d in chosen]
    used = {i for d in dishes for i in cookbook[d]["ingredients"]}
    ingredients = [i for i in all_ingredients if i in used and i not in stock] + list(stock)
    probs = db["reveal_probs"]
    seen = {
        (k, j): (rng.random(len(PROFILE)) < [probs[j][x] for x in PROFILE.values()]).tolist()
        for k in (0, 1)  # the authors' order: guest 0 by agent 0, by agent 1, then guest 1
        for j in (0, 1)
    }

    recipes = np.zeros((len(dishes), len(ingredients)), dtype=np.int32)
    for r, dish in enumerate(dishes):
        for ingredient, quantity in cookbook[dish]["ingredients"].items():
            recipes[r, ingredients.index(ingredient)] = quantity
    stock_vector = np.array([stock.get(i, 0) for i in ingredients], dtype=np.int64)
    n = recipes.sum(axis=1).astype(np.float32)
    base = np.round(n + np.float32(COMPLEXITY_BONUS) * n**1.5, 2).astype(np.float32)
    ratings = np.array([[db["guests"][g]["values"][d]["rating"] for d in dishes] for g in pair])
    values = np.round(ratings * base.astype(np.float64), 2)  # rating × float32 base, in float64
    game = MenuGame(
        id="candidate", level=1, dishes=tuple(dishes), ingredients=tuple(ingredients),
        recipes=recipes.astype(np.int64), stock=stock_vector, shares=shares,
        guest_values=values, guests=(), profiles=(),
    )  # fmt: skip
    best = optimum(game)
    if len(best.decision) < min_menu:
        return None
    used_units = recipes[list(best.decision)].sum() / stock_vector.sum()
    priority = (
        used_units
        + PRIORITY_MENU[0] * len(stock) / len(ingredients)
        + PRIORITY_MENU[1] * len(possible)
        + PRIORITY_MENU[2] * len(best.decision)
        + PRIORITY_MENU[3] * best.value
    )
    core = {
        "stock": stock, "shares": shares, "pair": pair, "possible": possible,
        "dishes": dishes, "ingredients": ingredients, "recipes": recipes, "base": base,
        "values": values, "seen": seen, "best": best,
    }  # fmt: skip
    return float(priority), core


def _menu_fields(
    db: Mapping[str, Any], core: Mapping[str, Any], source: Mapping[str, Any]
) -> dict[str, Any]:
    """A menu candidate's fields in the authors' format, in their order."""
    dishes, ingredients, recipes = core["dishes"], core["ingredients"], core["recipes"]
    values, stock, best = core["values"], core["stock"], core["best"]
    people = [db["guests"][g] for g in core["pair"]]
    partial = {kj: _persona(people[kj[0]]["profile"], None, s) for kj, s in core["seen"].items()}
    persona = [_persona(p["profile"], p["values"], None) for p in people]
    state = {i: stock.get(i, 0) for i in ingredients}
    return {
        "_source": {
            **copy.deepcopy(dict(source)),
            "numpy_arrays": {
                "recipes": {"dtype": "int32", "shape": list(recipes.shape)},
                "vec_ingredients_state": {"dtype": "float64", "shape": [len(ingredients)]},
                "base_value": {"dtype": "float32", "shape": [len(dishes)]},
                "agent_0_values": {"dtype": "float64", "shape": [len(dishes)]},
                "agent_1_values": {"dtype": "float64", "shape": [len(dishes)]},
            },
        },
        "ingredients": list(ingredients),
        "dishes": list(dishes),
        "cookbook": {d: copy.deepcopy(db["cookbook"][d]) for d in dishes},
        "recipes": recipes.tolist(),
        "personas": copy.deepcopy(persona),
        "persona_0": persona[0],
        "persona_1": persona[1],
        "persona_obs_probs": copy.deepcopy(db["reveal_probs"]),
        "game_ingredients_state": state,
        "vec_ingredients_state": [float(state[i]) for i in ingredients],
        "agent_0_obs": dict(core["shares"][0]),
        "agent_1_obs": dict(core["shares"][1]),
        "base_value": [_f32(b) for b in core["base"]],
        "agent_0_values": [float(v) for v in values[0]],
        "agent_1_values": [float(v) for v in values[1]],
        **{f"partial_persona_{k}_{j}": partial[k, j] for k in (0, 1) for j in (0, 1)},
        "agent_0_value_obs_l2": [_full_profile(partial[0, 0]), _full_profile(partial[1, 0])],
        "agent_1_value_obs_l2": [_full_profile(partial[0, 1]), _full_profile(partial[1, 1])],
        "nl_recipes": {
            dish: {ingredients[j]: int(q) for j, q in enumerate(row) if q > 0}
            for dish, row in zip(dishes, recipes, strict=True)
        },
        "nl_agent_0_values": {dish: float(v) for dish, v in zip(dishes, values[0], strict=True)},
        "nl_agent_1_values": {dish: float(v) for dish, v in zip(dishes, values[1], strict=True)},
        "best_menu": [int(i) for i in best.decision],
        "max_reward": float(best.value),
        "possible_dishes": [dishes.index(d) for d in core["possible"]],
    }


# -- task allocation --------------------------------------------------------------------------


@cache
def domains() -> tuple[str, ...]:
    """The task allocation domains of the source data, sorted."""
    return tuple(sorted({k.split("/")[2] for k in source_data() if k.startswith(DATABASE)}))


@cache
def _domain(name: str) -> dict[str, Any]:
    """One domain's database files, read."""
    src = source_data()
    base = f"{DATABASE}{name}/"
    return {
        "resources": _lines(src[base + "resources.txt"]),
        "private": _lines(src[base + "private_resources.txt"]),
        "public": _lines(src[base + "public_resources.txt"]),
        "tasks": _lines(src[base + "tasks.txt"]),
        "info": src[base + "task_information.json"],
        "pool": src[base + "agents.json"]["agent_pool"],
    }


def _split_public(
    rng: np.random.Generator, total: int, leader_share: float
) -> tuple[int, int, int]:
    """The authors' ``level1_resource_partition`` of one public resource: (w0, w1, leader)."""
    if total == 0:
        return 0, 0, 0
    leader = int(total * leader_share)
    rest = total - leader
    if rest <= 0:
        return 0, 0, leader
    least = max(1, math.ceil(rest * MIN_SPLIT))
    w0 = int(rng.integers(least, rest - least + 1)) if rest > 2 * least else rest // 2
    return w0, rest - w0, leader


def allocation_game(
    seed: int,
    *,
    domain: str | None = None,
    n_tasks: int = 10,
    leader_share: float = 0.6,
    public_margin: float = PUBLIC_MARGIN,
    min_assigned: int = 3,
    candidates: int = CANDIDATES,
    game_id: str | None = None,
) -> dict[str, Any]:
    """One task allocation game, in the authors' format (a released generated game's keys).

    Following the authors (``generate_games.py: gen_task_allocation_games``, ``database.py``,
    ``game.py``, ``io.py``, ``planner.py``), with "round to 0.2" their ``_round_to_0_5``, which
    rounds x·5 and divides by 5:

    * **Tasks.** ``n_tasks`` distinct tasks of the domain, uniform, in drawn order.
    * **Personas.** The leader (``agent_2``) uniform among the ``agent_pool`` personas that may
      lead; the two workers (``agent_0``, ``agent_1``) two distinct personas that may work,
      other than the leader, uniform.
    * **Task values** ~ N(mean, std) of ``task_information.json``, floored at 1e-6, rounded
      to 0.2.
    * **Private capacities** ~ N(mean, std) of the persona's distribution, floored at 0,
      rounded to 0.2.
    * **Public capacities.** The domain's mean need per task over all its tasks × ``n_tasks``
      × ``public_margin`` (0.8) × U(0.5, 1.5), rounded to 0.2 and truncated to an integer.
    * **Requirements.** The task's private and public needs rounded to 0.2, every resource
      listed (zeros too), the same for every agent; each agent's dict repeats the public
      costs (the persona multipliers are stored, not used).
    * **Efficiency** rounded to 0.1; value_matrix[a, t] = round(task value × efficiency, 2)
      in float32.
    * **Shares** (``level1_resource_partition``). The leader sees int(``leader_share`` × total)
      of each public resource; the rest r goes to the workers: with m = max(1, ⌈0.4r⌉),
      worker 0 gets m … r − m uniformly when r > 2m, else r // 2; worker 1 the remainder. So
      each worker holds at least 40 % of r whenever whole units allow both to (r = 1 splits
      0/1, r = 3 splits 1/2).
    * **Matrices.** ``vec_resource_state`` = [S₀^priv, S₁^priv, S₂^priv, S^pub];
      ``constraint_matrix`` has a private block per agent and shared public rows; column
      a·M + t is "agent a does task t".
    * **Filter** (``select_task_allocation_games``): a candidate whose optimum assigns fewer
      than ``min_assigned`` tasks (release: 3) or is worth 0 is dropped.
    * **Priority** (same function, release weights): 0.1 × share of tasks the optimum assigns
      + 1 × its resource use (the mean over resources of positive capacity of used/capacity,
      capped at 1) + 0 × optimum.

    MASE's: the authors kept about the best 33 per domain by that priority; here each game is
    the best of its own ``candidates`` passing candidates (default :data:`CANDIDATES`; 1 gives
    the filtered candidate distribution), drawn from one ``numpy.random.default_rng(seed)``
    stream (the domain first, when not given); the optimum from :func:`.scoring.optimum`,
    ``max_reward`` rounded to 4 decimals as the authors'; ``_source`` = ``{"generator":
    "mase", "seed", "game_id", "options", "numpy_arrays"}``.

    Args:
        seed: the seed; the same seed and knobs give an identical dict.
        domain: one of :func:`domains`, or ``None`` to draw it.
        n_tasks: tasks in the game (release 10; a domain has 14).
        leader_share: the leader's share of each public resource (release 0.6).
        public_margin: public capacity relative to the expected need (release 0.8).
        min_assigned: the fewest tasks the optimum must assign (0: no filter).
        candidates: passing candidates drawn per game; the one of highest priority is kept.
        game_id: the game's id (default ``"mase/allocation/seed_<seed>"``).

    Returns:
        The game's fields, JSON-ready.

    Raises:
        ValueError: an unknown domain or knobs out of range.
        RuntimeError: no candidate passed the filter.
    """
    if domain is not None and domain not in domains():
        raise ValueError(f"unknown domain {domain!r}; domains: {', '.join(domains())}")
    if not 0.0 <= leader_share <= 1.0:
        raise ValueError(f"leader_share must be in [0, 1], not {leader_share}")
    if public_margin <= 0:
        raise ValueError(f"public_margin must be positive, not {public_margin}")
    rng = np.random.default_rng(seed)
    name = domain or domains()[int(rng.integers(len(domains())))]
    db = _domain(name)
    if not 1 <= n_tasks <= len(db["tasks"]):
        raise ValueError(f"n_tasks must be 1..{len(db['tasks'])} in {name}, not {n_tasks}")
    game_id = game_id or f"mase/allocation/seed_{seed}"
    options = {
        "domain": domain, "n_tasks": n_tasks, "leader_share": leader_share,
        "public_margin": public_margin, "min_assigned": min_assigned, "candidates": candidates,
    }  # fmt: skip

    def draw(rng: np.random.Generator) -> tuple[float, dict[str, Any]] | None:
        return _allocation_candidate(rng, name, db, n_tasks, leader_share, public_margin,
                                     min_assigned)  # fmt: skip

    d = _best_of(rng, draw, candidates, "allocation game")
    source = {"generator": "mase", "seed": seed, "game_id": game_id, "options": options}
    d["_source"] = {**source, **d["_source"]}
    return d


def _allocation_candidate(
    rng: np.random.Generator,
    name: str,
    db: Mapping[str, Any],
    n_tasks: int,
    leader_share: float,
    public_margin: float,
    min_assigned: int,
) -> tuple[float, dict[str, Any]] | None:
    """One allocation candidate's fields with its priority, or ``None`` when filtered out."""
    info, private, public = db["info"], db["private"], db["public"]
    tasks = [db["tasks"][i] for i in rng.choice(len(db["tasks"]), size=n_tasks, replace=False)]
    leaders = [p for p in db["pool"] if "leader" in p.get("possible_roles", [])]
    leader = leaders[int(rng.integers(len(leaders)))]
    workers = [p for p in db["pool"] if "worker" in p.get("possible_roles", [])
               and p["persona_id"] != leader["persona_id"]]  # fmt: skip
    picked = [workers[i] for i in rng.choice(len(workers), size=2, replace=False)]
    people = dict(zip(AGENTS, [*picked, leader], strict=True))

    task_values = {}
    for t in tasks:
        mean, std = info[t]["base_value"].get("mean", 1.0), info[t]["base_value"].get("std", 0.0)
        task_values[t] = _round_02(max(1e-6, float(rng.normal(mean, std))))
    capacity = {}
    for a in ("agent_2", "agent_0", "agent_1"):  # the authors' order: leader, workers
        dist = people[a]["private_resources"]
        capacity[a] = {}
        for r in private:
            drawn = float(rng.normal(dist[r].get("mean", 0.0), dist[r].get("std", 0.0)))
            capacity[a][r] = _round_02(max(0.0, drawn))
    public_total = {}
    for r in public:
        need = sum(float((info[t].get("public_resource_requirements") or {}).get(r, 0))
                   for t in info) * n_tasks / len(info)  # fmt: skip
        public_total[r] = max(0, int(_round_02(need * public_margin * rng.uniform(0.5, 1.5))))

    requirements = {}
    for t in tasks:
        own = info[t].get("private_resource_requirements") or {}
        shared = info[t].get("public_resource_requirements") or {}
        pub = {r: _round_02(float(shared.get(r, 0))) for r in public}
        per_agent = {r: _round_02(float(own.get(r, 0))) for r in private} | pub
        requirements[t] = {"public_resources": dict(pub)} | {a: dict(per_agent) for a in AGENTS}
    config = {
        a: {
            "name": people[a].get("name", a),
            "role": "Leader" if a == "agent_2" else "Worker",
            "description": people[a].get("description", ""),
            "private_resources": dict(capacity[a]),
            "efficiency": {t: _round_01(float(e)) for t, e in people[a]["efficiency"].items()},
            "public_resource_cost_multipliers": copy.deepcopy(
                people[a].get("public_resource_cost_multipliers", {})
            ),
        }
        for a in AGENTS
    }
    private_list = [r for r in db["resources"] if r in private]
    public_list = [r for r in db["resources"] if r in public]
    obs = {a: {"private_resources": dict(capacity[a]), "public_resources": {}} for a in AGENTS}
    for r in public:
        for a, share in zip(AGENTS, _split_public(rng, public_total[r], leader_share), strict=True):
            obs[a]["public_resources"][r] = share

    k_priv, m = len(private_list), n_tasks
    state = np.zeros(3 * k_priv + len(public_list), dtype=np.float32)
    matrix = np.zeros((len(state), 3 * m), dtype=np.float32)
    values = np.zeros((3, m), dtype=np.float32)
    for a, agent in enumerate(AGENTS):
        for k, r in enumerate(private_list):
            state[a * k_priv + k] = capacity[agent][r]
        for t, task in enumerate(tasks):
            need = requirements[task][agent]
            for k, r in enumerate(private_list):
                matrix[a * k_priv + k, a * m + t] = need.get(r, 0)
            for k, r in enumerate(public_list):
                matrix[3 * k_priv + k, a * m + t] = need.get(
                    r, requirements[task]["public_resources"].get(r, 0)
                )
            # float32 task value × efficiency in float64, stored in float32, as the authors'
            values[a, t] = float(np.float32(task_values[task])) * config[agent]["efficiency"].get(
                task, 0.0
            )
    for k, r in enumerate(public_list):
        state[3 * k_priv + k] = public_total[r]
    values = np.round(values, 2).astype(np.float32)

    d: dict[str, Any] = {
        "_source": {},
        "tasks": tasks,
        "resources": list(db["resources"]),
        "agents": list(AGENTS),
        "persona_ids": {a: people[a]["persona_id"] for a in AGENTS},
        "task_requirements": requirements,
        "agents_config": config,
        "task_values": task_values,
        "private_resource_list": private_list,
        "public_resource_list": public_list,
        "game_resource_state": {
            "agent_private_resources": {a: dict(capacity[a]) for a in AGENTS},
            "public_resources": dict(public_total),
        },
        "vec_resource_state": [_f32(s) for s in state],
        **{f"{a}_obs": obs[a] for a in AGENTS},
        "value_matrix": [[_f32(v) for v in row] for row in values],
        "constraint_matrix": [[_f32(v) for v in row] for row in matrix],
    }
    best = optimum(from_authors(d, "candidate"))
    if len(best.decision) < min_assigned or best.value <= 0:
        return None
    x = np.zeros(3 * m, dtype=np.float32)
    for t, a in best.decision.items():
        x[a * m + t] = 1.0
    positive = state > 1e-6
    use = float(np.mean(np.clip((matrix @ x)[positive] / state[positive], 0.0, 1.0)))
    priority = (
        PRIORITY_ALLOCATION[0] * len(best.decision) / m
        + PRIORITY_ALLOCATION[1] * use
        + PRIORITY_ALLOCATION[2] * best.value
    )
    d["best_allocation"] = [_f32(v) for v in x]
    d["max_reward"] = round(float(best.value), 4)
    d["best_allocation_dict"] = {
        tasks[t]: AGENTS[best.decision[t]] for t in range(m) if t in best.decision
    }
    d["domain_name"] = name
    d["_source"] = {
        "numpy_arrays": {
            "vec_resource_state": {"dtype": "float32", "shape": [len(state)]},
            "value_matrix": {"dtype": "float32", "shape": [3, m]},
            "constraint_matrix": {"dtype": "float32", "shape": list(matrix.shape)},
            "best_allocation": {"dtype": "float32", "shape": [3 * m]},
        },
    }
    return float(priority), d


# -- many games -------------------------------------------------------------------------------


def menu_games(n: int, seed: int = 0, **knobs: Any) -> list[MenuGame]:
    """``n`` menu games, from seeds ``seed`` … ``seed + n − 1``.

    Args:
        n: how many games.
        seed: the first seed.
        **knobs: :func:`menu_game`'s keyword arguments (``game_id`` is ignored: each game gets
            its seed's default id).
    """
    knobs.pop("game_id", None)
    return [cast(MenuGame, from_authors(menu_game(s, **knobs))) for s in range(seed, seed + n)]


def allocation_games(n: int, seed: int = 0, **knobs: Any) -> list[AllocationGame]:
    """``n`` allocation games, from seeds ``seed`` … ``seed + n − 1``.

    Args:
        n: how many games.
        seed: the first seed.
        **knobs: :func:`allocation_game`'s keyword arguments (``game_id`` is ignored: each
            game gets its seed's default id).
    """
    knobs.pop("game_id", None)
    return [
        cast(AllocationGame, from_authors(allocation_game(s, **knobs)))
        for s in range(seed, seed + n)
    ]
