"""Scenario tests of the crafting rules (the env docstring, Minecraft's recipes).

Each test sets up an exact world (places and inventories written into ``env.world`` right
after ``reset``), plays actions by name, and checks the outcome the rules call for.
"""

from __future__ import annotations

import numpy as np
import pytest

import mase
from mase.envs.craft import maps, world
from mase.envs.craft.recipes import DEFAULT, PRESETS, SMALL, production_caps, shortfall

ENV_ID = "mase/Craft-v0"
FIXED_NEIGHBOURS = {
    "village": {"forest", "river", "meadow", "workshop"},
    "forest": {"village", "mine", "workshop"},
    "river": {"village", "meadow"},
    "meadow": {"village", "river"},
    "mine": {"forest", "workshop"},
    "workshop": {"village", "forest", "mine"},
}


def make_env(**options):
    env = mase.make(ENV_ID, obs_mode="vector", **options)
    env.reset(seed=0)
    return env


def place(env, positions: dict[str, str], **inventories: dict[str, int]):
    """Put agents at places and give them items (others keep theirs, empty after reset)."""
    w = env.unwrapped.world
    w.positions.update(positions)
    for agent, items in inventories.items():
        w.inventories[agent].update(items)
    return w


def act(env, *action) -> None:
    """The acting agent takes ``action`` by name, e.g. ``act(env, "gather", "wood")``."""
    env.step(env.unwrapped.layout.action_index(*action))


def reason(env, agent: str) -> str | None:
    return env.unwrapped.infos[agent].get("invalid_action")


# -- the map and moving -------------------------------------------------------------------------


def test_the_fixed_map_is_the_documented_one():
    layout = make_env().unwrapped.layout
    assert {p: set(n) for p, n in layout.neighbours.items()} == FIXED_NEIGHBOURS
    assert layout.sources == {
        "wood": "forest",
        "reed": "river",
        "leather": "meadow",
        "stone": "mine",
        "iron_ore": "mine",
    }
    assert layout.stations == {"workbench": "workshop", "furnace": "workshop"}


def test_moving_follows_a_path_one_place_a_turn():
    env = make_env()
    act(env, "move", "forest")  # alpha: village -> forest, a path
    act(env, "move", "mine")  # bravo: village -> mine, no path
    act(env, "move", "village")  # charlie: already there
    w = env.unwrapped.world
    assert w.positions == {"alpha": "forest", "bravo": "village", "charlie": "village"}
    assert "not next to the village" in reason(env, "bravo")
    assert "go through the forest" in reason(env, "bravo")  # the way out
    assert reason(env, "charlie") == "you are already at the village."
    assert env.unwrapped.invalid_actions == 2
    act(env, "move", "mine")  # alpha: forest -> mine, a path
    assert w.positions["alpha"] == "mine"


def test_a_random_map_is_connected_keeps_the_action_space_and_follows_the_seed():
    env = mase.make(ENV_ID, layout="random")
    spaces = env.action_space("alpha")
    drawn = []
    for seed in range(20):
        env.reset(seed=seed)
        layout = env.unwrapped.layout
        assert layout.distances()["village"].keys() == set(maps.PLACES)  # all reachable
        assert "village" not in layout.sources.values()
        assert len(layout.paths) == len(maps.FIXED_PATHS)
        assert env.action_space("alpha") is spaces
        drawn.append((layout.paths, tuple(layout.sources.items())))
    assert len(set(drawn)) > 10
    again = mase.make(ENV_ID, layout="random")
    again.reset(seed=3)
    assert (again.unwrapped.layout.paths, tuple(again.unwrapped.layout.sources.items())) == drawn[3]


def test_starting_places_village_random_or_given():
    assert set(make_env().unwrapped.world.positions.values()) == {"village"}
    given = make_env(start=("mine", "river", "mine")).unwrapped.world.positions
    assert given == {"alpha": "mine", "bravo": "river", "charlie": "mine"}
    starts = set()
    for seed in range(10):
        env = mase.make(ENV_ID, start="random")
        env.reset(seed=seed)
        starts.add(tuple(env.unwrapped.world.positions.values()))
    assert len(starts) > 5


@pytest.mark.parametrize(
    "options, words",
    [
        ({"goal": "wood"}, "goal must be an item"),
        ({"goal": "bucket", "recipes": "small"}, "goal must be an item"),
        ({"recipes": "huge"}, "recipes must be one of"),
        ({"n_agents": 0}, "n_agents must be 1 to 8"),
        ({"n_agents": 9}, "n_agents must be 1 to 8"),
        ({"layout": "maze"}, "layout must be"),
        ({"start": "nowhere"}, "start must be"),
        ({"start": ("village", "mine")}, "one place per agent"),
        ({"start": ("village", "moon", "mine")}, "one place per agent"),
    ],
)
def test_bad_options_are_clear_errors(options, words):
    with pytest.raises(ValueError, match=words):
        mase.make(ENV_ID, **options)


# -- gathering ------------------------------------------------------------------------------------


def test_gathering_gives_one_unit_only_where_the_resource_is():
    env = make_env()
    place(env, {"alpha": "forest", "bravo": "river", "charlie": "village"})
    act(env, "gather", "wood")
    act(env, "gather", "reed")
    act(env, "gather", "wood")  # charlie: no wood at the village
    w = env.unwrapped.world
    assert w.inventories["alpha"]["wood"] == 1 and w.inventories["bravo"]["reed"] == 1
    assert w.inventories["charlie"]["wood"] == 0
    assert (
        reason(env, "charlie") == "wood cannot be gathered at the village. Wood is at the forest."
    )
    act(env, "gather", "wood")
    assert w.inventories["alpha"]["wood"] == 2  # it never runs out


def test_stone_needs_a_wooden_pickaxe_and_iron_ore_a_stone_pickaxe():
    env = make_env()
    place(env, dict.fromkeys(("alpha", "bravo", "charlie"), "mine"), bravo={"wooden_pickaxe": 1})
    act(env, "gather", "stone")  # alpha: no pickaxe
    act(env, "gather", "stone")  # bravo: has one
    act(env, "gather", "iron_ore")  # charlie: no stone pickaxe
    w = env.unwrapped.world
    assert w.inventories["alpha"]["stone"] == 0 and w.inventories["bravo"]["stone"] == 1
    assert "needs a wooden pickaxe" in reason(env, "alpha")
    assert "needs a stone pickaxe" in reason(env, "charlie")
    act(env, "wait")
    act(env, "gather", "iron_ore")  # bravo: a wooden pickaxe is not enough
    assert w.inventories["bravo"]["iron_ore"] == 0
    w.inventories["charlie"]["stone_pickaxe"] = 1
    act(env, "gather", "iron_ore")
    act(env, "wait")
    act(env, "wait")
    act(env, "gather", "iron_ore")
    assert w.inventories["charlie"]["iron_ore"] == 2
    assert w.inventories["charlie"]["stone_pickaxe"] == 1  # tools are kept


# -- crafting -------------------------------------------------------------------------------------


def test_minecraft_counts_of_the_default_recipes():
    expected = {
        "plank": ({"wood": 1}, 4, None),
        "stick": ({"plank": 2}, 4, None),
        "paper": ({"reed": 3}, 3, "workbench"),
        "book": ({"paper": 3, "leather": 1}, 1, None),
        "bookshelf": ({"plank": 6, "book": 3}, 1, "workbench"),
        "wooden_pickaxe": ({"plank": 3, "stick": 2}, 1, "workbench"),
        "stone_pickaxe": ({"stone": 3, "stick": 2}, 1, "workbench"),
        "iron_ingot": ({"iron_ore": 1}, 1, "furnace"),
        "iron_pickaxe": ({"iron_ingot": 3, "stick": 2}, 1, "workbench"),
        "bucket": ({"iron_ingot": 3}, 1, "workbench"),
    }
    got = {x: (dict(r.inputs), r.count, r.station) for x, r in DEFAULT.recipes.items()}
    assert got == expected
    assert DEFAULT.tools == {"stone": "wooden_pickaxe", "iron_ore": "stone_pickaxe"}


def test_crafting_takes_the_inputs_from_ones_own_inventory():
    env = make_env()
    place(env, {}, alpha={"wood": 1}, bravo={"wood": 1, "plank": 0})
    act(env, "craft", "plank")  # alpha, at the village: no station needed
    act(env, "craft", "stick")  # bravo has no planks
    w = env.unwrapped.world
    assert w.inventories["alpha"]["wood"] == 0 and w.inventories["alpha"]["plank"] == 4
    assert w.inventories["bravo"]["stick"] == 0 and w.inventories["bravo"]["wood"] == 1
    assert reason(env, "bravo") == "crafting sticks takes 2 planks; you are short of 2 planks."


def test_a_recipe_with_a_station_is_crafted_only_where_the_station_stands():
    env = make_env()
    place(env, {"alpha": "river", "bravo": "workshop"}, alpha={"reed": 3}, bravo={"reed": 4})
    act(env, "craft", "paper")
    act(env, "craft", "paper")
    w = env.unwrapped.world
    assert w.inventories["alpha"]["paper"] == 0 and w.inventories["alpha"]["reed"] == 3
    assert "needs a workbench" in reason(env, "alpha")
    assert "The workbench is at the workshop." in reason(env, "alpha")
    assert w.inventories["bravo"] == {**w.inventories["bravo"], "paper": 3, "reed": 1}


def test_the_whole_bookshelf_chain_by_one_agent():
    env = make_env(n_agents=1, max_cycles=60)
    w = env.unwrapped.world
    plan = [("move", "forest"), ("gather", "wood"), ("gather", "wood")]
    plan += [("craft", "plank"), ("craft", "plank"), ("move", "village"), ("move", "river")]
    plan += [("gather", "reed")] * 9 + [("move", "meadow")] + [("gather", "leather")] * 3
    plan += [("move", "village"), ("move", "workshop")] + [("craft", "paper")] * 3
    plan += [("craft", "book")] * 3
    for action in plan:
        act(env, *action)
    assert env.agents and env.unwrapped.invalid_actions == 0
    assert w.inventories["alpha"]["plank"] == 8 and w.inventories["alpha"]["book"] == 3
    act(env, "craft", "bookshelf")
    assert not env.agents or all(env.unwrapped.terminations.values())
    metrics = env.unwrapped.infos["alpha"]["metrics"]
    assert metrics["success"] and metrics["makespan"] == len(plan) + 1 == metrics["rounds"]
    assert metrics["gathers"] == 14 and metrics["crafts"] == 9
    assert metrics["items_crafted"] == 8 + 9 + 3 + 1


# -- giving ---------------------------------------------------------------------------------------


def test_giving_needs_the_same_place_and_the_items():
    env = make_env()
    place(env, {"charlie": "forest"}, alpha={"plank": 4}, bravo={"plank": 1})
    act(env, "give", "plank", "bravo", 2)  # alpha -> bravo, both at the village
    act(env, "give", "plank", "charlie", 1)  # bravo -> charlie, who is at the forest
    act(env, "give", "plank", "charlie", 1)  # charlie to itself
    w = env.unwrapped.world
    assert [w.inventories[a]["plank"] for a in ("alpha", "bravo", "charlie")] == [2, 3, 0]
    assert "Charlie is not at your place (the village)" in reason(env, "bravo")
    assert reason(env, "charlie").startswith("you cannot give to yourself")
    act(env, "give", "plank", "bravo", 3)  # alpha holds 2
    assert reason(env, "alpha") == "you have 2 planks, not 3 planks."
    assert w.transfers == [(1, "alpha", "bravo", "plank", 2)]


def test_at_most_nine_items_go_in_one_give():
    env = make_env()
    place(env, {}, alpha={"reed": 12})
    actions = env.unwrapped.layout.actions
    assert max(a[3] for a in actions if a[0] == "give") == world.MAX_GIVE == 9
    act(env, "give", "reed", "bravo", 9)
    assert env.unwrapped.world.inventories["bravo"]["reed"] == 9


# -- what each agent sees -------------------------------------------------------------------------


def test_only_agents_at_the_place_see_what_happens_there():
    env = make_env()
    place(env, {"alpha": "forest", "bravo": "forest", "charlie": "river"}, alpha={"wood": 1})
    act(env, "craft", "plank")
    event = env.unwrapped.event_log[-1]
    assert event.kind == "craft" and event.audience == {"alpha", "bravo"}
    assert event.facts == {("has", "alpha", "wood"): 0, ("has", "alpha", "plank"): 4}
    act(env, "move", "village")  # bravo leaves the forest for the village
    event = env.unwrapped.event_log[-1]
    assert event.audience == {"alpha", "bravo"}  # seen where it left (and where it arrived)
    act(env, "wait")
    assert env.unwrapped.event_log[-1].audience == {"charlie"}


def test_the_mask_is_exactly_the_legal_actions():
    env = mase.make(ENV_ID, layout="random", start="random")
    rng = np.random.default_rng(0)
    for seed in range(5):
        env.reset(seed=seed)
        w = env.unwrapped.world
        for agent in w.layout.agents:
            for item in w.layout.book.items:
                if item != w.layout.goal:
                    w.inventories[agent][item] = int(rng.integers(0, 4))
        for _ in range(30):
            agent = env.agent_selection
            if env.unwrapped.terminations[agent] or env.unwrapped.truncations[agent]:
                break
            mask = env.observe(agent)["action_mask"]
            legal = [world.invalid_reason(w, agent, i) is None for i in range(len(mask))]
            assert mask.tolist() == [int(x) for x in legal]
            env.step(int(rng.choice(np.flatnonzero(mask))))


# -- the goal, rewards, the end -------------------------------------------------------------------


def test_the_goal_ends_the_episode_at_the_end_of_its_round_and_pays_everyone():
    env = make_env()
    place(env, {"alpha": "workshop"}, alpha={"plank": 6, "book": 3})
    act(env, "craft", "bookshelf")
    base = env.unwrapped
    assert base.agents and base.world.made_in == 1  # the round is played out
    act(env, "wait")
    act(env, "move", "river")
    assert all(base.terminations.values()) and not any(base.truncations.values())
    assert base.rewards == {"alpha": 1.0, "bravo": 1.0, "charlie": 1.0}
    metrics = base.infos["bravo"]["metrics"]
    assert metrics["ended_by"] == "crafted" and metrics["success"] and metrics["score"] == 1.0
    assert metrics["makespan"] == metrics["rounds"] == 1
    assert metrics["contributions"]["alpha"]["crafts"] == 1
    assert metrics["contributions"]["charlie"]["moves"] == 1


def test_the_round_limit_truncates_without_reward():
    env = make_env(max_cycles=2)
    for _ in range(6):
        act(env, "wait")
    base = env.unwrapped
    assert all(base.truncations.values())
    metrics = base.infos["alpha"]["metrics"]
    assert metrics["ended_by"] == "round_limit" and not metrics["success"]
    assert metrics["makespan"] is None and metrics["waits"] == 6
    assert base.rewards == {"alpha": 0.0, "bravo": 0.0, "charlie": 0.0}


def test_shaping_pays_for_work_done_and_charges_for_work_undone():
    env = make_env(recipes="small", shaping=True)
    base = env.unwrapped
    place(env, {"alpha": "workshop"}, alpha={"wood": 1, "plank": 0})
    unit = 0.5 / 7  # the small bookshelf takes 7 gathers and crafts from nothing
    act(env, "craft", "plank")
    assert base.rewards == dict.fromkeys(base.agents, pytest.approx(unit))
    act(env, "move", "forest")
    assert base.rewards["alpha"] == 0.0
    act(env, "wait")
    act(env, "craft", "wooden_pickaxe")  # uses up the planks the shelf needs: a plank craft
    assert base.rewards["alpha"] == pytest.approx(-2 * unit)  # and a wood gather undone


def test_shaping_adds_half_a_point_over_a_successful_episode():
    from mase.envs.craft.scripted import ScriptedCrafter

    env = mase.make(ENV_ID, recipes="small", shaping=True)
    env.reset(seed=0)
    team = {a: ScriptedCrafter() for a in env.possible_agents}
    for seat, policy in team.items():
        policy.reset(seat, env)
    total = 0.0
    for agent in env.agent_iter():
        obs, reward, ended, cut, info = env.last()
        if ended or cut:
            env.step(None)
            continue
        env.step(team[agent].act(obs, info))
        total += env.unwrapped.rewards["alpha"]
    assert env.unwrapped.world.made_in is not None
    assert total == pytest.approx(1.5)


# -- the recipe books ---------------------------------------------------------------------------


def test_the_bill_of_materials_of_the_papers_bookshelf():
    needs = shortfall(DEFAULT, {}, {"bookshelf": 1})
    assert needs.gathers == {"wood": 2, "reed": 9, "leather": 3}
    assert needs.crafts == {"plank": 2, "paper": 3, "book": 3, "bookshelf": 1}
    assert needs.ops == 23
    # held items count, and a tool is made once
    assert shortfall(DEFAULT, {"book": 2, "plank": 5}, {"bookshelf": 1}).gathers == {
        "wood": 1,
        "reed": 3,
        "leather": 1,
    }
    iron = shortfall(DEFAULT, {}, {"iron_pickaxe": 1})
    assert iron.crafts["wooden_pickaxe"] == 1 and iron.crafts["stone_pickaxe"] == 1
    assert iron.crafts["stick"] == 2  # 6 sticks: 2 for each pickaxe
    assert iron.gathers == {"wood": 2, "stone": 3, "iron_ore": 3}  # 8 planks cover 7


@pytest.mark.parametrize("book", PRESETS.values(), ids=PRESETS)
def test_every_goal_of_every_preset_is_reachable_and_bounded(book):
    for goal in book.recipes:
        assert goal in book.closure(goal)
        caps = production_caps(book, goal, 3)
        needs = shortfall(book, {}, {goal: 1})
        for item, times in needs.gathers.items():
            assert times <= caps[item]
        for item, times in needs.crafts.items():
            assert times * book.recipes[item].count <= caps[item]


def test_the_small_recipes_are_the_same_world_in_small_counts():
    assert set(SMALL.recipes) <= set(DEFAULT.recipes)
    assert shortfall(SMALL, {}, {"bookshelf": 1}).ops == 7
