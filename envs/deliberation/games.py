"""The games of deliberative collaboration: menu design and task allocation, as plain data.

A game is everything that is true about one instance: the hidden state, what each agent
observes, and what the decision is scored against. Games come from three places, all in the
authors' format (the fields of their game objects, as the released pickles were converted to
JSON; ``shared/data/deliberation/README.md`` describes every field):

* :func:`released`: the evaluation games released with the paper (Wang et al. 2026, MIT
  licence), packaged with this module (``data/games.json.xz``, the converted files byte for
  value; ``data/README.md`` gives their provenance): ``"menu"`` (60 games, levels 1 and 2),
  ``"menu_level3"`` (30), ``"allocation"`` (100) and ``"allocation_demo"`` (2);
* :func:`load`: a folder of ``game_NNNN.json`` files or one such file (a user's own copy);
* :mod:`.generate`: fresh instances from the generators' source data.

:func:`from_authors` reads one game's fields into a :class:`MenuGame` or an
:class:`AllocationGame`.
"""

from __future__ import annotations

import json
import lzma
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

DATA = Path(__file__).parent / "data"

#: The released sets: name -> folder of the converted data (``shared/data/deliberation``).
RELEASED = {
    "menu": "cooking/test_games/level_1_and_2",
    "menu_level3": "cooking/test_games/level_3",
    "allocation": "task_allocation/task_allocation_games/level_1_and_2",
    "allocation_demo": "task_allocation/task_allocation_demo_01/level_1_and_2",
}

#: The seats of menu design: agent 0 (the authors' "Internet Agent") sees guest 1's values,
#: agent 1 (the "Home Agent") guest 2's.
MENU_SEATS = ("internet_agent", "home_agent")
#: The seats of task allocation: two workers and the leader, the authors' agent_0..agent_2.
ALLOCATION_SEATS = ("worker_0", "worker_1", "leader")
#: The authors' names of the allocation seats, read as aliases in proposals.
AUTHORS_AGENTS = ("agent_0", "agent_1", "agent_2")


@dataclass(frozen=True, eq=False)
class MenuGame:
    """One menu design game.

    Attributes:
        id: where it came from (``"cooking/test_games/level_1_and_2/game_0000"``, or a
            generator's name for it).
        level: 1 (numeric and semantic levels share the games) or 3.
        dishes: the candidate dishes, the decision space (row order of ``recipes``).
        ingredients: the game's ingredients (column order of ``recipes``).
        recipes: int array [dishes, ingredients], units of each ingredient a dish needs.
        stock: int array [ingredients], the true stock (hidden).
        shares: each agent's part of the stock, in-stock ingredient -> units (they sum to it).
        guest_values: float array [2, dishes], each guest's value of each dish (agent k sees
            row k at the numeric level).
        guests: the two guests' full profiles (the authors' ``get_full_profile`` form).
        profiles: ``profiles[k]`` is what agent k sees of the two guests at the semantic level.
        reveal_probs: ``reveal_probs[k]``: per profile field, the chance agent k sees it.
        cookbook: dish -> its cookbook entry (ingredients, keywords, description, cuisine).
        max_reward: the authors' stored optimum (``None`` for a generated game).
        best: the authors' optimal menu, dish indices (``None`` for a generated game).
    """

    id: str
    level: int
    dishes: tuple[str, ...]
    ingredients: tuple[str, ...]
    recipes: np.ndarray
    stock: np.ndarray
    shares: tuple[dict[str, int], ...]
    guest_values: np.ndarray
    guests: tuple[dict[str, Any], ...]
    profiles: tuple[tuple[dict[str, Any], ...], ...]
    reveal_probs: tuple[dict[str, float], ...] = ()
    cookbook: Mapping[str, Any] = field(default_factory=dict)
    max_reward: float | None = None
    best: tuple[int, ...] | None = None

    kind = "menu"

    @property
    def values(self) -> np.ndarray:
        """The team's value of each dish: the two guests' mean (what a menu earns)."""
        return self.guest_values.mean(axis=0)

    @property
    def in_stock(self) -> tuple[str, ...]:
        """The ingredients in stock (each agent's share lists them all, zeros included)."""
        return tuple(self.shares[0])


@dataclass(frozen=True, eq=False)
class AllocationGame:
    """One task allocation game.

    Attributes:
        id: where it came from.
        tasks: the tasks (column order of ``values``).
        private: the private resource names; public: the public ones.
        capacity: ``capacity[k]``: agent k's private resource -> its capacity (hidden from
            the others).
        public_capacity: public resource -> the team's capacity (hidden: each agent sees a
            share).
        shares: ``shares[k]``: agent k's share of each public resource (they sum to it).
        costs: ``costs[k][t]``: resource -> what agent k spends on task t (private and public).
        values: float array [3, tasks], the reward of agent k doing task t (agent k sees row k),
            as the authors wrote them (their float32, read as the decimal it stands for).
        personas: ``personas[k]``: the agent's persona (name, role, description).
        constraints: ``(A, S)``: the authors' ``constraint_matrix`` and ``vec_resource_state``
            (float32): an allocation vector x (agent-major) is feasible iff A·x ≤ S + 1e-6.
        max_reward: the authors' stored optimum (``None`` for a generated game).
        best: the authors' optimal allocation, task -> agent index (``None``: generated).
        domain: the domain's name (empty for the demo).
    """

    id: str
    tasks: tuple[str, ...]
    private: tuple[str, ...]
    public: tuple[str, ...]
    capacity: tuple[dict[str, float], ...]
    public_capacity: dict[str, float]
    shares: tuple[dict[str, float], ...]
    costs: tuple[tuple[dict[str, float], ...], ...]
    values: np.ndarray
    personas: tuple[dict[str, Any], ...]
    constraints: tuple[np.ndarray, np.ndarray]
    max_reward: float | None = None
    best: dict[str, int] | None = None
    domain: str = ""

    kind = "allocation"

    @property
    def leader(self) -> int:
        """The leader's index (the last agent)."""
        return len(self.capacity) - 1


Game = MenuGame | AllocationGame


#: Persona attribute -> the authors' profile label (``Persona.get_full_profile``), in order.
PROFILE_LABELS = {
    "name": "Name", "gender": "Gender", "nationality": "Nationality", "age": "Age",
    "occupation": "Occupation", "recent_status": "Recent Status",
    "dietary_preferences": "Dietary Preferences", "food_allergies": "Food Allergies",
    "cultural_preferences": "Cultural Preferences",
    "health_and_fitness_goals": "Health and Fitness Goals",
    "personality_and_dining_style": "Personality and Dining Style",
    "ethical_and_religious_considerations": "Ethical and Religious Considerations",
}  # fmt: skip


def _profile(persona: Mapping[str, Any]) -> dict[str, Any]:
    """A persona object's fields as the authors' ``get_full_profile`` names them."""
    return {label: persona.get(key) for key, label in PROFILE_LABELS.items()}


def from_authors(d: Mapping[str, Any], game_id: str | None = None) -> Game:
    """One game from its fields in the authors' format (as converted to JSON).

    Raises:
        ValueError: the fields are neither a menu game's nor an allocation game's.
    """
    source = d.get("_source", {})
    game_id = game_id or source.get("game_id") or "game"
    if "dishes" in d:
        return _menu(d, game_id)
    if "tasks" in d:
        return _allocation(d, game_id)
    raise ValueError(
        f"{game_id}: not a deliberation game (a menu game has 'dishes', an allocation game "
        f"'tasks'); fields: {sorted(d)[:12]}"
    )


def _menu(d: Mapping[str, Any], game_id: str) -> MenuGame:
    dishes = tuple(d["dishes"])
    ingredients = tuple(d["ingredients"])
    recipes = np.asarray(d["recipes"], dtype=np.int64).reshape(len(dishes), len(ingredients))
    stock = np.array([int(d["game_ingredients_state"].get(i, 0)) for i in ingredients])
    shares = tuple({k: int(v) for k, v in d[f"agent_{k}_obs"].items()} for k in (0, 1))
    guest_values = np.array([d["agent_0_values"], d["agent_1_values"]], dtype=np.float64)
    guests = tuple(_profile(d[f"persona_{k}"]) for k in (0, 1))
    profiles = tuple(tuple(d[f"agent_{j}_value_obs_l2"]) for j in (0, 1))
    level = 3 if "level_3" in game_id else 1
    best = d.get("best_menu")
    return MenuGame(
        id=game_id, level=level, dishes=dishes, ingredients=ingredients, recipes=recipes,
        stock=stock, shares=shares, guest_values=guest_values, guests=guests,
        profiles=profiles, reveal_probs=tuple(d.get("persona_obs_probs", ())),
        cookbook=dict(d.get("cookbook", {})),
        max_reward=None if d.get("max_reward") is None else float(d["max_reward"]),
        best=None if best is None else tuple(int(i) for i in best),
    )  # fmt: skip


def _allocation(d: Mapping[str, Any], game_id: str) -> AllocationGame:
    tasks = tuple(d["tasks"])
    agents = tuple(d["agents"])
    private = tuple(d["private_resource_list"])
    state = d["game_resource_state"]
    public_capacity = {r: float(v) for r, v in state["public_resources"].items()}
    public = tuple(d["public_resource_list"]) or tuple(public_capacity)
    capacity = tuple({r: float(v) for r, v in state["agent_private_resources"][a].items()}
                     for a in agents)  # fmt: skip
    shares = tuple({r: float(v) for r, v in d[f"{a}_obs"]["public_resources"].items()}
                   for a in agents)  # fmt: skip
    costs = []
    for a in agents:
        row = []
        for t in tasks:
            need = d["task_requirements"][t]
            cost = {r: float(v) for r, v in need.get("public_resources", {}).items()}
            cost.update({r: float(v) for r, v in need.get(a, {}).items()})  # the agent's override
            row.append(cost)
        costs.append(tuple(row))
    personas = tuple(
        {k: v for k, v in d["agents_config"][a].items() if k in ("name", "role", "description")}
        for a in agents
    )
    a_matrix = np.asarray(d["constraint_matrix"], dtype=np.float32)
    s_vector = np.asarray(d["vec_resource_state"], dtype=np.float32)
    best = d.get("best_allocation_dict")
    return AllocationGame(
        id=game_id, tasks=tasks, private=private, public=public, capacity=capacity,
        public_capacity=public_capacity, shares=shares, costs=tuple(costs),
        # the values as written (the float32 of 19.6 is 19.600000381...; the sum is the same
        # to 1e-5, and the views say 19.6)
        values=np.asarray(d["value_matrix"], dtype=np.float64).reshape(len(agents), len(tasks)),
        personas=personas, constraints=(a_matrix, s_vector),
        max_reward=None if d.get("max_reward") is None else float(d["max_reward"]),
        best=None if best is None else {t: agents.index(a) for t, a in best.items()},
        domain=str(d.get("domain_name", "")),
    )  # fmt: skip


@cache
def _bundle() -> dict[str, Any]:
    """The packaged released games: game id -> the authors' fields."""
    with lzma.open(DATA / "games.json.xz", "rt", encoding="utf-8") as f:
        return json.load(f)


@cache
def source_data() -> dict[str, Any]:
    """The generators' source data, packaged: path (as in the authors' ``source``) -> content."""
    with lzma.open(DATA / "source.json.xz", "rt", encoding="utf-8") as f:
        return json.load(f)


def released(name: str) -> list[Game]:
    """A released set (:data:`RELEASED`), in file order.

    Raises:
        ValueError: an unknown set.
    """
    if name not in RELEASED:
        raise ValueError(f"unknown released set {name!r}; sets: {', '.join(RELEASED)}")
    prefix = RELEASED[name] + "/"
    bundle = _bundle()
    return [from_authors(bundle[k], k) for k in sorted(bundle) if k.startswith(prefix)]


def released_raw(game_id: str) -> dict[str, Any]:
    """One released game's fields as packaged (for tests that compare with the files)."""
    return _bundle()[game_id]


def load(path: str | Path) -> list[Game]:
    """The games at ``path``: a folder of ``game_*.json`` files (sorted), or one file.

    Raises:
        FileNotFoundError: no such path, or a folder without game files.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no games at {path}")
    files = sorted(path.glob("game_*.json")) if path.is_dir() else [path]
    if not files:
        raise FileNotFoundError(f"no game_*.json files in {path}")
    games = []
    for f in files:
        d = json.loads(f.read_text(encoding="utf-8"))
        games.append(from_authors(d, d.get("_source", {}).get("game_id") or f.stem))
    return games


def games_of(spec: str | Path | Sequence[Game]) -> list[Game]:
    """Games from a released set's name, a path, or a list of games."""
    if isinstance(spec, str) and spec in RELEASED:
        return released(spec)
    if isinstance(spec, str | Path):
        return load(spec)
    return list(spec)
