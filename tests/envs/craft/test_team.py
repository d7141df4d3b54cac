"""The scripted team and the exact planner.

The planner's optimum is checked against a brute-force breadth-first search over every
action of every turn, played by the game's own rules (``world.step``) on tiny worlds; it is a
lower bound on what the scripted team takes; and the ``planner`` policy reaches it.
"""

from __future__ import annotations

import numpy as np
import pytest

import mase
from mase.agents import make_policy
from mase.envs.craft import maps, planner, search, world
from mase.envs.craft.recipes import SMALL
from mase.envs.craft.scripted import ScriptedCrafter, team_plan
from mase.runner import run_episode

ENV_ID = "mase/Craft-v0"


def play(env, team, seed):
    """One episode; the final metrics."""
    env.reset(seed=seed)
    for seat in env.possible_agents:
        team[seat].reset(seat, env, seed=seed)
    info = {}
    for agent in env.agent_iter():
        obs, _, ended, cut, info = env.last()
        env.step(None if ended or cut else team[agent].act(obs, info))
    return info["metrics"]


def scripted(env):
    return {seat: ScriptedCrafter() for seat in env.possible_agents}


# -- the scripted team ---------------------------------------------------------------------------


def test_the_scripted_team_makes_the_bookshelf_in_50_seeded_episodes():
    env = mase.make(ENV_ID, obs_mode="vector", layout="random", start="random")
    rounds = []
    for seed in range(50):
        metrics = play(env, scripted(env), seed)
        assert metrics["success"] and metrics["invalid_actions"] == 0, seed
        rounds.append(metrics["makespan"])
    assert max(rounds) < 30


@pytest.mark.parametrize("recipes", ["default", "small"])
@pytest.mark.parametrize("n_agents", [1, 2, 4])
def test_the_scripted_team_makes_every_goal(recipes, n_agents):
    from mase.envs.craft.recipes import PRESETS

    for goal in PRESETS[recipes].recipes:
        env = mase.make(
            ENV_ID,
            obs_mode="vector",
            goal=goal,
            recipes=recipes,
            n_agents=n_agents,
            layout="random",
            max_cycles=80,
        )
        metrics = play(env, scripted(env), seed=n_agents)
        assert metrics["success"], goal


def test_the_scripted_team_splits_the_bookshelf_and_hands_it_to_one_assembler():
    env = mase.make(ENV_ID)
    env.reset(seed=0)
    plan = team_plan(env.unwrapped.world)
    assert plan.meeting == "workshop"  # the bookshelf's workbench
    made = {}
    for share in plan.shares.values():
        for item, count in share.items():
            made[item] = made.get(item, 0) + count
    assert made == {"plank": 6, "book": 3}
    assert all(plan.shares.values())  # everyone has a part
    metrics = play(env, scripted(env), seed=0)
    assert metrics["items_given"] > 0 and metrics["contributions"][plan.assembler]["crafts"] > 0


def test_scripted_seats_talk_in_fact_sentences_when_the_team_can():
    env = mase.wrappers.MessageChannel(mase.make(ENV_ID, recipes="small"))
    record = run_episode(env, {s: ScriptedCrafter() for s in env.possible_agents}, seed=1)
    assert record["metrics"]["success"]
    said = [e.note for e in env.unwrapped.event_log if e.kind == "message"]
    assert said and all(env.unwrapped.parse_facts(note) for note in said)


# -- the planner against brute force -------------------------------------------------------------


def tiny_layout(goal: str, n_agents: int) -> world.Layout:
    """Three places in a line: reeds at the river, the workbench at the workshop, leather and
    wood at the village between them."""
    places = ("river", "village", "workshop")
    paths = (("river", "village"), ("village", "workshop"))
    sources = {"wood": "village", "reed": "river", "leather": "village", "stone": "river"}
    return world.Layout(
        places,
        maps.neighbours_of(places, paths),
        sources,
        {"workbench": "workshop"},
        world.AGENT_NAMES[:n_agents],
        SMALL,
        goal,
    )


def brute_force(state: world.State, limit: int, first: int = 0) -> int | None:
    """The round at whose end the goal can first be held, ``agents[first]`` to act in round 1:
    every legal action of every turn, breadth first."""
    agents = state.layout.agents
    n = len(agents)
    layer = [state]
    seen = {(state.key(), first)}
    for turn in range(first, limit * n):
        agent = agents[turn % n]
        nxt = []
        for s in layer:
            for action in np.flatnonzero(world.legal_mask(s, agent)):
                after = s.copy()
                world.step(after, agent, int(action))
                if after.done:
                    return turn // n + 1
                key = (after.key(), (turn + 1) % n)
                if key not in seen:
                    seen.add(key)
                    nxt.append(after)
        layer = nxt
    return None


CASES = [
    ("paper", 2, ("river", "river")),
    ("paper", 2, ("workshop", "river")),
    ("book", 2, ("village", "village")),
    ("book", 2, ("workshop", "river")),
    ("book", 1, ("river",)),
    ("plank", 3, ("workshop", "river", "river")),
]


@pytest.mark.parametrize("goal, n_agents, start", CASES)
def test_the_planner_finds_the_brute_force_optimum(goal, n_agents, start):
    layout = tiny_layout(goal, n_agents)
    state = world.new_state(layout, np.random.default_rng(0), start)
    best = brute_force(state, limit=8)
    found = planner.plan(state, max_rounds=8)
    assert best is not None and found.makespan == best
    # the plan is legal by the rules and makes the goal in those rounds
    replay = state.copy()
    for agent, action in found.turns:
        assert world.invalid_reason(replay, agent, action) is None
        world.step(replay, agent, action)
    assert replay.done and len(found.turns) <= best * n_agents


@pytest.mark.parametrize("start", [("river", "village"), ("workshop", "river")])
def test_the_planner_from_the_middle_of_a_round(start):
    layout = tiny_layout("book", 2)
    state = world.new_state(layout, np.random.default_rng(0), start)
    state.inventories["bravo"]["leather"] = 1
    found = planner.plan(state, agent="bravo", max_rounds=8)  # alpha has acted in round 1
    assert found.turns[0][0] == "bravo"
    assert found.makespan == brute_force(state, limit=8, first=1)
    assert planner.optimal_makespan(state, agent="alpha") <= found.makespan


# -- the planner as the team's upper bound ------------------------------------------------------


@pytest.mark.parametrize("goal", ["bookshelf", "stone_pickaxe"])
def test_the_planner_is_a_lower_bound_on_the_scripted_teams_rounds(goal):
    for seed in range(6):
        env = mase.make(
            ENV_ID, obs_mode="vector", recipes="small", goal=goal, layout="random", start="random"
        )
        env.reset(seed=seed)
        best = planner.optimal_makespan(env.unwrapped.world)
        metrics = play(env, scripted(env), seed)
        assert best is not None and best <= metrics["makespan"]


def test_the_planner_policy_plays_an_optimal_plan_in_every_seat():
    env = mase.make(ENV_ID, obs_mode="vector", recipes="small", layout="random")
    for seed in range(3):
        env.reset(seed=seed)
        best = planner.optimal_makespan(env.unwrapped.world)
        team = {seat: make_policy("planner", env) for seat in env.possible_agents}
        metrics = play(env, team, seed)
        assert metrics["success"] and metrics["makespan"] == best


def test_the_planner_replans_around_a_teammate_it_does_not_control():
    env = mase.make(ENV_ID, obs_mode="vector", recipes="small")
    team = {seat: planner.PlannerPolicy() for seat in env.possible_agents}
    team["charlie"] = mase.agents.RandomPolicy()
    metrics = play(env, team, seed=0)
    assert metrics["success"]
    assert len(team["alpha"].plans) + len(team["bravo"].plans) >= 1


def test_the_planner_policy_refuses_other_tasks_and_bad_budgets():
    with pytest.raises(ValueError, match="node budget"):
        planner.policy("fast")
    assert planner.policy("5000").node_budget == 5000
    other = mase.make("mase/SearchRescue-v0")
    other.reset(seed=0)
    with pytest.raises(TypeError, match="plays Craft"):
        planner.PlannerPolicy().reset("alpha", other)


def test_a_search_that_runs_out_of_budget_says_so():
    env = mase.make(ENV_ID)
    env.reset(seed=0)
    assert planner.plan(env.unwrapped.world, node_budget=50) is None


def test_the_planner_policy_plays_the_scripted_moves_when_its_search_runs_out():
    env = mase.make(ENV_ID, obs_mode="vector")
    team = {seat: planner.PlannerPolicy(node_budget=50) for seat in env.possible_agents}
    metrics = play(env, team, seed=0)
    assert all(policy.gave_up for policy in team.values())
    assert metrics["success"] and metrics["makespan"] == play(env, scripted(env), 0)["makespan"]


def test_the_lower_bound_never_passes_the_optimum():
    for goal, n_agents, start in CASES:
        layout = tiny_layout(goal, n_agents)
        state = world.new_state(layout, np.random.default_rng(0), start)
        model = search._Model(layout)
        bound = model.fewest_rounds(model.joint(state), 0, 1)
        assert bound <= planner.optimal_makespan(state, max_rounds=8)


def test_a_two_place_bookshelf():
    """Every item and station of the small bookshelf, on a map brute force can cover."""
    places = ("village", "workshop")
    layout = world.Layout(
        places,
        maps.neighbours_of(places, (places,)),
        dict.fromkeys(SMALL.resources, "village"),
        {"workbench": "workshop"},
        ("alpha", "bravo"),
        SMALL,
        "bookshelf",
    )
    state = world.new_state(layout, np.random.default_rng(0), ("village", "workshop"))
    assert planner.optimal_makespan(state, max_rounds=9) == brute_force(state, limit=9)
