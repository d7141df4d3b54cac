"""Generated deliberation games: seeded, in the authors' format, built by their rules (the data
README of the released games and their generator), and resembling the released sets."""

import itertools
import json
import math
from collections import Counter

import numpy as np
import pytest

from mase.envs.deliberation import games, generate, scoring
from mase.envs.deliberation.games import AllocationGame, MenuGame

SRC = games.source_data()
COOKBOOK = SRC["cooking/full_data/cookbook.json"]
REVEAL = list(SRC["cooking/full_data/persona_reveal_probs.json"].values())  # Internet, Home
GUESTS = {p["Name"]: p for p in SRC["cooking/full_data/personas.json"]}
LABELS = games.PROFILE_LABELS
BASIC = ("name", "gender", "nationality", "age")
AGENTS = ("agent_0", "agent_1", "agent_2")


def rating(guest: str, dish: str) -> float:
    return SRC[f"cooking/full_data/processed/persona_values/{guest}_values.json"][dish]["rating"]


def domain_file(domain: str, name: str):
    return SRC[f"task_allocation/database/{domain}/{name}"]


def lines(text: str) -> list[str]:
    return [x.strip() for x in text.splitlines() if x.strip()]


def multiple_of(x: float, step: float) -> bool:
    return abs(x / step - round(x / step)) < 1e-6


def in_stock(d: dict) -> dict[str, int]:
    return {i: v for i, v in d["game_ingredients_state"].items() if v > 0}


def possible_of(stock: dict[str, int]) -> list[str]:
    return [
        x
        for x in COOKBOOK
        if all(stock.get(i, 0) >= q for i, q in COOKBOOK[x]["ingredients"].items())
    ]


# -- the games under test: default knobs (as shipped) and plain draws (one candidate each) -----


@pytest.fixture(scope="module")
def menus() -> list[dict]:
    return [generate.menu_game(s) for s in range(16)]


@pytest.fixture(scope="module")
def plain_menus() -> list[dict]:
    return [generate.menu_game(s, candidates=1) for s in range(100, 140)]


@pytest.fixture(scope="module")
def allocations() -> list[dict]:
    return [generate.allocation_game(s) for s in range(9)]


@pytest.fixture(scope="module")
def plain_allocations() -> list[dict]:
    return [
        generate.allocation_game(s, domain=d, candidates=1)
        for d in generate.domains()
        for s in range(100, 110)
    ]


def released(name: str) -> list[dict]:
    return [games.released_raw(g.id) for g in games.released(name)]


# The rule checks run on the released games too: they state the authors' rules, which the
# released games follow, rather than what the generator happens to do.
@pytest.fixture(scope="module", params=["generated", "released"])
def all_menus(request, menus, plain_menus) -> list[dict]:
    return menus + plain_menus if request.param == "generated" else released("menu")


@pytest.fixture(scope="module", params=["generated", "released"])
def all_allocations(request, allocations, plain_allocations) -> list[dict]:
    return (
        allocations + plain_allocations if request.param == "generated" else released("allocation")
    )


# -- seeds and format ----------------------------------------------------------------------------


def test_same_seed_same_game_and_other_seeds_differ():
    a = generate.menu_game(5, candidates=2)
    assert a == generate.menu_game(5, candidates=2)
    assert json.dumps(a) == json.dumps(generate.menu_game(5, candidates=2))
    other = generate.menu_game(6, candidates=2)
    assert other != a and other["game_ingredients_state"] != a["game_ingredients_state"]
    b = generate.allocation_game(5, candidates=2)
    assert b == generate.allocation_game(5, candidates=2)
    assert generate.allocation_game(6, candidates=2)["value_matrix"] != b["value_matrix"]


def test_many_seeds_give_many_games(plain_menus, plain_allocations):
    assert len({json.dumps(d["game_ingredients_state"]) for d in plain_menus}) == len(plain_menus)
    assert len({json.dumps(d["value_matrix"]) for d in plain_allocations}) == len(plain_allocations)


def test_fields_are_the_released_games_fields(menus, allocations):
    menu_keys = set(games.released_raw("cooking/test_games/level_1_and_2/game_0000"))
    alloc_keys = set(
        games.released_raw("task_allocation/task_allocation_games/level_1_and_2/game_0000")
    )
    for d in menus:
        assert set(d) == menu_keys
    for d in allocations:
        assert set(d) == alloc_keys
    source = menus[3]["_source"]
    assert (source["generator"], source["seed"], source["game_id"]) == (
        "mase",
        3,
        "mase/menu/seed_3",
    )
    assert generate.menu_game(3, game_id="mine")["_source"]["game_id"] == "mine"


def check_plain_json(ds: list[dict]) -> None:
    for d in ds:
        assert json.loads(json.dumps(d)) == d


def check_numpy_arrays(ds: list[dict]) -> None:
    # as the converted files: each number is the shortest decimal of its value in that dtype
    for d in ds:
        for name, meta in d["_source"]["numpy_arrays"].items():
            array = np.asarray(d[name], dtype=meta["dtype"])
            assert list(array.shape) == meta["shape"]
            assert [float(str(v)) for v in array.ravel()] == np.ravel(d[name]).tolist()


def test_menus_are_plain_json_with_their_array_types(all_menus):
    check_plain_json(all_menus)
    check_numpy_arrays(all_menus)


def test_allocations_are_plain_json_with_their_array_types(all_allocations):
    check_plain_json(all_allocations)
    check_numpy_arrays(all_allocations)


def test_every_menu_loads(all_menus):
    for d in all_menus:
        g = games.from_authors(d)
        assert isinstance(g, MenuGame) and g.id == d["_source"]["game_id"] and g.level == 1
        assert g.max_reward == d["max_reward"] and list(g.best) == d["best_menu"]


def test_every_allocation_loads(all_allocations):
    for d in all_allocations:
        g = games.from_authors(d)
        assert isinstance(g, AllocationGame) and g.domain == d["domain_name"]
        assert g.tasks == tuple(d["tasks"]) and g.public == tuple(d["public_resource_list"])
        assert g.max_reward == d["max_reward"]


def test_batches_are_game_objects_from_consecutive_seeds():
    menus = generate.menu_games(2, seed=40, candidates=1)
    assert [g.id for g in menus] == ["mase/menu/seed_40", "mase/menu/seed_41"]
    assert menus[1].dishes == tuple(generate.menu_game(41, candidates=1)["dishes"])
    allocs = generate.allocation_games(2, seed=40, candidates=1, domain="camping_in_the_wild")
    assert all(isinstance(g, AllocationGame) and g.domain == "camping_in_the_wild" for g in allocs)


# -- menus: the stock and its split ------------------------------------------------------------


def test_stock_is_n_ingredients_of_whole_units(all_menus):
    for d in all_menus:
        stock = in_stock(d)
        assert len(stock) == 8 and all(1 <= v <= 4 for v in stock.values())
        assert list(d["game_ingredients_state"]) == d["ingredients"]
        assert d["vec_ingredients_state"] == [float(d["game_ingredients_state"][i])
                                              for i in d["ingredients"]]  # fmt: skip
    small = generate.menu_game(1, n_in_stock=5, units=(2, 3), candidates=1, min_possible=0)
    stock = [v for v in small["game_ingredients_state"].values() if v > 0]
    assert len(stock) == 5 and set(stock) <= {2, 3}


def test_shares_sum_to_the_stock_and_agent_0_holds_40_to_60_percent(all_menus):
    for d in all_menus:
        stock = in_stock(d)
        a0, a1 = d["agent_0_obs"], d["agent_1_obs"]
        assert list(a0) == list(a1) == list(stock)  # every in-stock ingredient, zeros too
        assert all(a0[i] + a1[i] == stock[i] and min(a0[i], a1[i]) >= 0 for i in stock)
        n, k = sum(stock.values()), sum(a0.values())
        assert 0.4 * n <= k <= 0.6 * n
        low = math.ceil(0.4 * n)
        if low <= n - low - 1:  # the authors' bounds (numpy's exclusive upper end)
            assert low <= k <= n - low - 1
        else:
            assert k == min(low, n - low)


@pytest.mark.parametrize(("n_in_stock", "half"), [(4, 2), (6, 3), (8, 4)])
def test_a_stock_too_small_for_the_authors_bounds_splits_in_half(n_in_stock, half):
    # n = 4, 6, 8 units leave the authors' range ⌈0.4n⌉ … n − ⌈0.4n⌉ − 1 empty
    d = generate.menu_game(
        0, n_in_stock=n_in_stock, units=(1, 1), candidates=1, min_possible=0, min_menu=0
    )
    assert sum(d["agent_0_obs"].values()) == sum(d["agent_1_obs"].values()) == half


def test_the_split_is_of_all_units_not_of_each_ingredient(plain_menus):
    # as in the released level_1_and_2 game_0000 (cream 3/0): one agent may hold it all
    lopsided = [
        i
        for d in plain_menus
        for i, v in d["game_ingredients_state"].items()
        if v >= 2 and 0 in (d["agent_0_obs"].get(i), d["agent_1_obs"].get(i))
    ]
    assert lopsided


# -- menus: dishes, ingredients, recipes ---------------------------------------------------------


def test_dishes_are_the_possible_ones_and_a_draw_from_the_cookbook(all_menus):
    for d in all_menus:
        stock = in_stock(d)
        possible = possible_of(stock)
        assert len(possible) >= 5 and set(possible) <= set(d["dishes"])
        assert d["possible_dishes"] == [d["dishes"].index(x) for x in d["dishes"] if x in possible]
        target = max(math.ceil(len(possible) / 0.4), 10)
        drawn = target - len(possible)  # some of them may be possible dishes already
        assert target - min(drawn, len(possible)) <= len(d["dishes"]) <= target
        used = {i for x in d["dishes"] for i in COOKBOOK[x]["ingredients"]}
        assert set(d["ingredients"]) == used | set(stock)
        assert d["ingredients"][-len(stock) :] == list(stock)
        assert d["cookbook"] == {x: COOKBOOK[x] for x in d["dishes"]}


def test_the_drawn_dishes_come_from_the_whole_cookbook(plain_menus):
    # as in the released games: a uniform draw from all dishes, possible ones collapsing
    shared = expected_shared = n_extra = collapsed = expected_collapsed = variance = 0.0
    for d in plain_menus:
        stock = in_stock(d)
        possible = possible_of(stock)
        others = [x for x in COOKBOOK if x not in possible]
        related = [x for x in others if set(COOKBOOK[x]["ingredients"]) & set(stock)]
        extra = [x for x in d["dishes"] if x not in possible]
        n_extra += len(extra)
        shared += sum(x in related for x in extra)
        expected_shared += len(extra) * len(related) / len(others)
        drawn = max(math.ceil(len(possible) / 0.4), 10) - len(possible)
        p = len(possible) / len(COOKBOOK)
        collapsed += len(possible) + drawn - len(d["dishes"])
        expected_collapsed += drawn * p
        variance += drawn * p * (1 - p)
    assert shared < n_extra  # some drawn dishes use no in-stock ingredient
    assert abs(shared - expected_shared) < 0.1 * expected_shared
    assert abs(collapsed - expected_collapsed) < 4 * math.sqrt(variance) + 1


def test_recipes_follow_the_cookbook(all_menus):
    for d in all_menus:
        recipes = np.array(d["recipes"])
        for r, dish in enumerate(d["dishes"]):
            want = COOKBOOK[dish]["ingredients"]
            got = {d["ingredients"][j]: int(q) for j, q in enumerate(recipes[r]) if q}
            assert got == want == d["nl_recipes"][dish]


# -- menus: values ---------------------------------------------------------------------------


def test_base_values_and_guest_values_follow_the_formulas(all_menus):
    for d in all_menus:
        n = np.array(d["recipes"]).sum(axis=1)
        for dish, units, base in zip(d["dishes"], n, d["base_value"], strict=True):
            assert base == pytest.approx(round(units + 0.2 * units**1.5, 2), abs=1e-5)
            for k in (0, 1):
                guest = d[f"persona_{k}"]["name"]
                value = d[f"agent_{k}_values"][d["dishes"].index(dish)]
                assert value == pytest.approx(round(rating(guest, dish) * base, 2), abs=1e-9)
                assert d[f"nl_agent_{k}_values"][dish] == value
                assert multiple_of(value, 0.01)


# -- menus: guests and their partial profiles ----------------------------------------------------


def test_guests_are_two_different_personas_with_their_values(all_menus):
    pairs = Counter()
    for d in all_menus:
        g0, g1 = d["persona_0"]["name"], d["persona_1"]["name"]
        assert g0 != g1 and d["personas"] == [d["persona_0"], d["persona_1"]]
        for k, name in enumerate((g0, g1)):
            persona = d[f"persona_{k}"]
            assert persona["_class"] == "persona.Persona"
            assert all(persona[a] == GUESTS[name][label] for a, label in LABELS.items())
            assert (
                persona["values"]
                == SRC[f"cooking/full_data/processed/persona_values/{name}_values.json"]
            )
        pairs[g0, g1] += 1
    assert len(pairs) > 20  # drawn over the 90 ordered pairs
    fixed = generate.menu_game(2, guests=("Raj", "Aya"), candidates=1)
    assert (fixed["persona_0"]["name"], fixed["persona_1"]["name"]) == ("Raj", "Aya")


def test_partial_profiles_keep_or_blank_each_field(all_menus):
    for d in all_menus:
        assert d["persona_obs_probs"] == REVEAL
        for k, j in itertools.product((0, 1), (0, 1)):
            full, part = d[f"persona_{k}"], d[f"partial_persona_{k}_{j}"]
            assert part["values"] is None and part["_class"] == "persona.Persona"
            for attr in LABELS:
                blank = None if attr in BASIC else ([] if attr == "food_allergies" else {})
                assert part[attr] in (full[attr], blank)
            profile = {label: part[attr] for attr, label in LABELS.items()}
            assert d[f"agent_{j}_value_obs_l2"][k] == profile


def test_fields_are_revealed_at_each_agents_rate(all_menus):
    shown, seen = Counter(), Counter()
    for d in all_menus:
        for k, j in itertools.product((0, 1), (0, 1)):
            full, part = d[f"persona_{k}"], d[f"partial_persona_{k}_{j}"]
            for attr, label in LABELS.items():
                if full[attr] in (None, {}, []):
                    continue  # an empty field looks the same shown or hidden
                seen[j, label] += 1
                shown[j, label] += part[attr] == full[attr]
    for (j, label), n in seen.items():
        p = REVEAL[j][label]
        if p == 1.0:
            assert shown[j, label] == n
        else:
            assert abs(shown[j, label] / n - p) < 4 * math.sqrt(p * (1 - p) / n) + 0.02


# -- menus: the optimum ------------------------------------------------------------------------


def brute_force_menu(d: dict) -> float:
    recipes = np.array(d["recipes"])
    stock = np.array(d["vec_ingredients_state"])
    values = (np.array(d["agent_0_values"]) + np.array(d["agent_1_values"])) / 2
    n = len(values)
    picks = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
    feasible = (picks @ recipes <= stock).all(axis=1)
    return float((picks @ values)[feasible].max())


@pytest.mark.parametrize("seed", range(8))
def test_small_menu_optimum_equals_brute_force(seed):
    d = generate.menu_game(seed, n_in_stock=4, candidates=1, min_possible=0, min_menu=0)
    assert len(d["dishes"]) <= 16
    assert d["max_reward"] == pytest.approx(brute_force_menu(d), abs=1e-9)
    game = games.from_authors(d)
    assert scoring.menu_reward(game, d["best_menu"]) == pytest.approx(d["max_reward"])


def test_stored_menu_optimum_is_feasible_and_worth_max_reward(all_menus):
    for d in all_menus:
        game = games.from_authors(d)
        assert scoring.menu_fits(game, d["best_menu"])
        assert scoring.menu_reward(game, d["best_menu"]) == pytest.approx(d["max_reward"])
        assert len(d["best_menu"]) >= 2


# -- allocations: draws and rounding ------------------------------------------------------------


def test_tasks_and_personas_follow_the_domain(all_allocations):
    for d in all_allocations:
        domain = d["domain_name"]
        pool = {p["persona_id"]: p for p in domain_file(domain, "agents.json")["agent_pool"]}
        assert len(d["tasks"]) == len(set(d["tasks"])) == 10
        assert set(d["tasks"]) <= set(lines(domain_file(domain, "tasks.txt")))
        assert d["resources"] == lines(domain_file(domain, "resources.txt"))
        assert d["agents"] == list(AGENTS)
        ids = d["persona_ids"]
        assert len(set(ids.values())) == 3
        assert "leader" in pool[ids["agent_2"]]["possible_roles"]
        assert all("worker" in pool[ids[a]]["possible_roles"] for a in AGENTS[:2])
        for a in AGENTS:
            config, persona = d["agents_config"][a], pool[ids[a]]
            assert config["role"] == ("Leader" if a == "agent_2" else "Worker")
            assert (config["name"], config["description"]) == (
                persona["name"],
                persona["description"],
            )
            assert config["efficiency"] == {
                t: round(e * 10) / 10 for t, e in persona["efficiency"].items()
            }
    assert {d["domain_name"] for d in all_allocations} == set(generate.domains())


def test_values_capacities_and_requirements_are_multiples_of_0_2(all_allocations):
    for d in all_allocations:
        for v in d["task_values"].values():
            assert v > 0 and multiple_of(v, 0.2)
        for caps in d["game_resource_state"]["agent_private_resources"].values():
            assert all(v >= 0 and multiple_of(v, 0.2) for v in caps.values())
        for v in d["game_resource_state"]["public_resources"].values():
            assert isinstance(v, int) and v >= 0
        for need in d["task_requirements"].values():
            assert all(multiple_of(v, 0.2) for part in need.values() for v in part.values())
        for config in d["agents_config"].values():
            assert all(multiple_of(v, 0.1) for v in config["efficiency"].values())


def test_requirements_are_the_databases_the_same_for_every_agent(all_allocations):
    for d in all_allocations:
        info = domain_file(d["domain_name"], "task_information.json")
        private = lines(domain_file(d["domain_name"], "private_resources.txt"))
        public = lines(domain_file(d["domain_name"], "public_resources.txt"))
        assert d["private_resource_list"] == [r for r in d["resources"] if r in private]
        assert d["public_resource_list"] == [r for r in d["resources"] if r in public]
        for t in d["tasks"]:
            own = info[t].get("private_resource_requirements", {})
            shared = info[t].get("public_resource_requirements", {})
            pub = {r: round(shared.get(r, 0) * 5) / 5 for r in public}
            assert d["task_requirements"][t]["public_resources"] == pub
            for a in AGENTS:
                assert d["task_requirements"][t][a] == {
                    **{r: round(own.get(r, 0) * 5) / 5 for r in private},
                    **pub,
                }


def test_task_values_and_capacities_come_from_their_distributions(plain_allocations):
    z_values, z_caps = [], []
    for d in plain_allocations:
        info = domain_file(d["domain_name"], "task_information.json")
        pool = {
            p["persona_id"]: p for p in domain_file(d["domain_name"], "agents.json")["agent_pool"]
        }
        for t, v in d["task_values"].items():
            mean, std = info[t]["base_value"]["mean"], info[t]["base_value"]["std"]
            z_values.append((v - mean) / std)
        for a in AGENTS:
            dist = pool[d["persona_ids"][a]]["private_resources"]
            for r, v in d["game_resource_state"]["agent_private_resources"][a].items():
                if dist[r]["mean"] > 3 * dist[r]["std"] > 0:  # the floor at 0 hardly bites
                    z_caps.append((v - dist[r]["mean"]) / dist[r]["std"])
    for z in (z_values, z_caps):
        assert abs(np.mean(z)) < 0.2 and 0.8 < np.std(z) < 1.2


def test_public_capacities_scale_the_expected_need(all_allocations):
    for d in all_allocations:
        info = domain_file(d["domain_name"], "task_information.json")
        for r, total in d["game_resource_state"]["public_resources"].items():
            need = sum(x.get("public_resource_requirements", {}).get(r, 0) for x in info.values())
            need *= len(d["tasks"]) / len(info)
            assert int(0.8 * 0.5 * need) - 1 <= total <= 0.8 * 1.5 * need + 0.2


# -- allocations: the split of public resources --------------------------------------------------


def test_shares_sum_to_the_public_totals_with_the_leaders_60_percent(all_allocations):
    for d in all_allocations:
        for r, total in d["game_resource_state"]["public_resources"].items():
            w0, w1, leader = (d[f"{a}_obs"]["public_resources"][r] for a in AGENTS)
            assert w0 + w1 + leader == total
            assert leader == int(0.6 * total)
            rest = total - leader
            if rest in (1, 3):  # whole units: both workers cannot hold 40 %
                assert (w0, w1) == (rest // 2, rest - rest // 2)
            else:
                assert min(w0, w1) >= 0.4 * rest - 1e-9
        for a in AGENTS:
            own = d["game_resource_state"]["agent_private_resources"][a]
            assert (
                d[f"{a}_obs"]["private_resources"]
                == own
                == d["agents_config"][a]["private_resources"]
            )


def test_leader_share_knob():
    d = generate.allocation_game(3, leader_share=1.0, candidates=1)
    for r, total in d["game_resource_state"]["public_resources"].items():
        assert d["agent_2_obs"]["public_resources"][r] == total


# -- allocations: matrices and the optimum -------------------------------------------------------


def test_matrices_follow_the_readme(all_allocations):
    for d in all_allocations:
        tasks, priv, pub = d["tasks"], d["private_resource_list"], d["public_resource_list"]
        m, k = len(tasks), len(priv)
        state = d["game_resource_state"]
        want_s = [state["agent_private_resources"][a][r] for a in AGENTS for r in priv]
        want_s += [state["public_resources"][r] for r in pub]
        assert d["vec_resource_state"] == pytest.approx(want_s, abs=1e-5)
        a_matrix = np.zeros((3 * k + len(pub), 3 * m))
        for ai, a in enumerate(AGENTS):
            for t, task in enumerate(tasks):
                need = d["task_requirements"][task][a]
                for ri, r in enumerate(priv):
                    a_matrix[ai * k + ri, ai * m + t] = need[r]
                for ri, r in enumerate(pub):
                    a_matrix[3 * k + ri, ai * m + t] = need[r]
        assert np.allclose(np.array(d["constraint_matrix"]), a_matrix, atol=1e-5)
        for ai, a in enumerate(AGENTS):
            eff = d["agents_config"][a]["efficiency"]
            for t, task in enumerate(tasks):
                want = round(d["task_values"][task] * eff.get(task, 0.0), 2)
                assert d["value_matrix"][ai][t] == pytest.approx(want, abs=1e-4)


def brute_force_allocation(d: dict) -> float:
    game = games.from_authors(d)
    a, s = game.constraints
    m = len(game.tasks)
    best = 0.0
    for choice in itertools.product(range(4), repeat=m):  # 3 = unassigned
        x = np.zeros(3 * m)
        for t, agent in enumerate(choice):
            if agent < 3:
                x[agent * m + t] = 1
        if (a.astype(np.float64) @ x <= s.astype(np.float64) + 1e-6).all():
            best = max(best, float(game.values.astype(np.float64).ravel() @ x))
    return best


@pytest.mark.parametrize("seed", range(6))
def test_small_allocation_optimum_equals_brute_force(seed):
    d = generate.allocation_game(seed, n_tasks=4, candidates=1, min_assigned=0)
    assert len(d["tasks"]) == 4
    assert d["max_reward"] == pytest.approx(brute_force_allocation(d), abs=1e-4)


def test_stored_allocation_optimum_is_consistent(all_allocations):
    for d in all_allocations:
        game = games.from_authors(d)
        x = np.array(d["best_allocation"]).reshape(3, -1)
        assert (x.sum(axis=0) <= 1).all()
        by_name = {d["tasks"][t]: AGENTS[int(np.flatnonzero(x[:, t])[0])]
                   for t in range(x.shape[1]) if x[:, t].any()}  # fmt: skip
        assert by_name == d["best_allocation_dict"]
        best = {game.tasks.index(t): AGENTS.index(a) for t, a in by_name.items()}
        assert scoring.allocation_fits(game, best)
        assert d["max_reward"] == round(scoring.allocation_reward(game, best), 4)
        assert len(best) >= 3


# -- resemblance to the released sets ----------------------------------------------------------


def test_menus_resemble_the_released_level_1_and_2_games(menus):
    theirs = games.released("menu")
    dishes = [len(g.dishes) for g in theirs]  # 11-29
    sizes = [len(g.best) for g in theirs]  # 2-5
    used = [g.recipes[list(g.best)].sum() / g.stock.sum() for g in theirs]  # mean 0.60
    ours = [games.from_authors(d) for d in menus]
    our_dishes = [len(g.dishes) for g in ours]
    our_sizes = [len(d["best_menu"]) for d in menus]
    our_used = [g.recipes[list(g.best)].sum() / g.stock.sum() for g in ours]
    inside = [min(dishes) <= x <= max(dishes) for x in our_dishes]
    assert np.mean(inside) >= 0.9
    assert np.mean([min(sizes) <= x <= max(sizes) for x in our_sizes]) >= 0.85
    assert abs(np.mean(our_sizes) - np.mean(sizes)) < 0.6
    assert abs(np.mean(our_dishes) - np.mean(dishes)) < 3
    assert abs(np.mean(our_used) - np.mean(used)) < 0.08


def test_allocations_resemble_the_released_games(allocations):
    assigned = [len(g.best) for g in games.released("allocation")]  # 6-9 of 10
    ours = [len(d["best_allocation_dict"]) for d in allocations]
    assert np.mean([min(assigned) - 1 <= x <= max(assigned) for x in ours]) == 1.0
    assert np.mean([min(assigned) <= x <= max(assigned) for x in ours]) >= 0.75
    assert abs(np.mean(ours) - np.mean(assigned)) < 0.8


def test_more_candidates_pick_fuller_menus(plain_menus, menus):
    def used(d: dict) -> float:
        return np.array(d["recipes"])[d["best_menu"]].sum() / sum(d["vec_ingredients_state"])

    assert np.mean([used(d) for d in menus]) > np.mean([used(d) for d in plain_menus]) + 0.1


# -- knobs and errors ----------------------------------------------------------------------------


def test_bad_knobs_are_refused(monkeypatch):
    with pytest.raises(ValueError, match="guests"):
        generate.menu_game(0, guests=("Raj", "Raj"))
    with pytest.raises(ValueError, match="guests"):
        generate.menu_game(0, guests=("Raj", "Nobody"))
    with pytest.raises(ValueError, match="units"):
        generate.menu_game(0, units=(0, 2))
    with pytest.raises(ValueError, match="domain"):
        generate.allocation_game(0, domain="moon_base")
    with pytest.raises(ValueError, match="n_tasks"):
        generate.allocation_game(0, domain="camping_in_the_wild", n_tasks=99)
    with pytest.raises(ValueError, match="candidates"):
        generate.menu_game(0, candidates=0)
    monkeypatch.setattr(generate, "MAX_TRIES", 3)
    with pytest.raises(RuntimeError, match="filters"):
        generate.menu_game(0, min_possible=80)
