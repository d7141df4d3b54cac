"""The full-information planner: optimal against brute force, and as a policy in the env.

Optimality is checked against an exhaustive breadth-first search written here from the rules
alone (``world.step`` on copies of the state), sharing nothing with the planner: the first
depth at which some sequence of turns defuses every bomb. It allows more than the planner
generates (an agent may idle anywhere, by an invalid action), so agreement also confirms
that leaving those turns out costs nothing.
"""

from __future__ import annotations

import numpy as np
import pytest

import mase
from mase.agents import RandomPolicy, make_policy
from mase.baselines.cbs import CBSPolicy, Planner
from mase.envs.search_rescue import world
from mase.envs.search_rescue.scripted import ScriptedRescuer

ENV = "mase/SearchRescue-v0"
RULES = world.Rules()


def fewest_rounds(state: world.State, turn: int) -> int:
    """The earliest round in which every bomb can be spent, by breadth-first search.

    One depth is one turn, so all worlds of a depth share whose turn it is. Invalid actions,
    inspecting and wrong colours all leave the world as it is, so a single no-op turn stands
    for them; every other action (per the world's own ``invalid_reason``) is stepped.
    """
    layout = state.layout
    n = len(layout.agents)
    if state.done:
        return state.round
    frontier = [state.copy()]
    seen = {(turn, state.key())}
    depth = 0
    while frontier:
        agent = layout.agents[(turn + depth) % n]
        depth += 1
        following = (turn + depth) % n
        next_frontier = []
        for node in frontier:
            stays = (following, node.key())
            if stays not in seen:  # any no-op turn
                seen.add(stays)
                next_frontier.append(node)
            for action in range(len(layout.actions)):
                if layout.actions[action][0] == "inspect":
                    continue
                if world.invalid_reason(node, agent, action) is not None:
                    continue
                child = node.copy()
                world.step(child, agent, action, RULES)
                if child.done:
                    return state.round + (turn + depth - 1) // n
                key = (following, child.key())
                if key not in seen:
                    seen.add(key)
                    next_frontier.append(child)
        frontier = next_frontier
    raise AssertionError("no sequence of turns defuses every bomb")


def scrambled(layout: world.Layout, rng: np.random.Generator, turns: int) -> tuple:
    """A fresh state after ``turns`` random legal turns (so mid-round, agents apart)."""
    state = world.new_state(layout, rng)
    n = len(layout.agents)
    for k in range(turns):
        agent = layout.agents[k % n]
        legal = np.flatnonzero(world.legal_mask(state, agent))
        world.step(state, agent, int(legal[rng.integers(len(legal))]), RULES)
        if k % n == n - 1:
            state.round += 1
    return state, turns % n


def assert_plan_plays(state: world.State, turn: int, plan) -> None:
    """The plan's steps are legal, in turn order, describe the world, and defuse it all."""
    layout = state.layout
    state = state.copy()
    for k, step in enumerate(plan.steps):
        agent = layout.agents[(turn + k) % len(layout.agents)]
        assert step.agent == agent
        assert step.positions == tuple(state.positions[a] for a in layout.agents)
        events, _ = world.step(state, agent, step.action, RULES)
        assert events[0].kind != "invalid", (step, events[0].note)
    assert state.done
    last_round = state.round + (turn + len(plan.steps) - 1) // len(layout.agents)
    assert plan.rounds == (last_round if plan.steps else state.round)


# -- (a) optimal against exhaustive search ----------------------------------------------------

SMALL = [
    (3, 2, 2, 2),
    (3, 3, 2, 3),
    (4, 2, 3, 2),
    (4, 3, 2, 3),
    (4, 3, 3, 3),
    (3, 3, 3, 2),
    (4, 3, 3, 2),
]


def sizes_id(sizes: tuple) -> str:
    return "rooms{}-bombs{}-agents{}-colours{}".format(*sizes)


@pytest.mark.parametrize("sizes", SMALL, ids=sizes_id)
def test_planner_matches_exhaustive_search_on_small_instances(sizes):
    rng = np.random.default_rng(sum(sizes))
    for _ in range(25):
        layout = world.procedural_layout(*sizes, rng)
        state, turn = scrambled(layout, rng, int(rng.integers(0, 4)))
        plan = Planner(layout).plan(state, turn)
        assert plan.optimal and plan.lower_bound == plan.rounds
        assert plan.rounds == fewest_rounds(state, turn), (sizes, state)
        assert_plan_plays(state, turn, plan)


def test_planner_matches_exhaustive_search_on_the_paper_layout():
    layout = world.paper_layout()
    planner = Planner(layout)
    rng = np.random.default_rng(7)
    found = set()
    for k in range(4):
        state, turn = scrambled(layout, rng, turns=3 * k + k % 2)  # one mid-round start
        plan = planner.plan(state, turn)
        assert plan.rounds == fewest_rounds(state, turn)
        assert_plan_plays(state, turn, plan)
        found.add(plan.rounds - state.round)
    assert len(found) > 1  # not all alike


def test_spent_bombs_and_an_explosion_count_as_done():
    layout = world.paper_layout()
    state = world.new_state(layout, np.random.default_rng(0))
    state.bombs[0].exploded = True
    for bomb in state.bombs[1:4]:
        bomb.cut = len(bomb.sequence)
    plan = Planner(layout).plan(state, 1)
    assert plan.rounds == fewest_rounds(state, 1)
    assert_plan_plays(state, 1, plan)
    for bomb in state.bombs[4:]:
        bomb.cut = len(bomb.sequence)
    empty = Planner(layout).plan(state, 2)
    assert empty.steps == () and empty.rounds == state.round and empty.optimal


# -- (b) a CBS team on the paper layout -------------------------------------------------------


def test_cbs_team_scores_90_in_the_predicted_rounds():
    # planning time and the rounds over many seeds are measured by benchmarks/cbs_planning.py
    env = mase.make(ENV, obs_mode="vector")
    policy = CBSPolicy()
    for seed in range(20):
        record = mase.run_episode(env, dict.fromkeys(env.possible_agents, policy), seed=seed)
        metrics = record["metrics"]
        assert len(policy.plans) == 1, seed  # it never had to replan
        assert metrics["score"] == 90 and metrics["ended_by"] == "defused"
        assert metrics["valid_action_rate"] == 1.0
        assert metrics["rounds"] == policy.plan.rounds and policy.plan.optimal


def test_one_object_per_seat_does_as_well_as_a_shared_one():
    env = mase.make(ENV, obs_mode="vector")
    shared = CBSPolicy()
    for seed in range(10):
        together = mase.run_episode(env, dict.fromkeys(env.possible_agents, shared), seed=seed)
        apart = mase.run_episode(env, {a: CBSPolicy() for a in env.possible_agents}, seed=seed)
        assert apart["metrics"]["score"] == 90
        assert apart["metrics"]["rounds"] == together["metrics"]["rounds"] == shared.plan.rounds
        assert apart["metrics"]["valid_action_rate"] == 1.0


def test_registered_as_cbs_and_plays_through_the_message_channel():
    summary = mase.evaluate(ENV, "cbs", episodes=5, seed=0, record_text=False)
    assert summary["metrics"]["score"]["mean"] == 90.0
    assert summary["metrics"]["rounds"]["mean"] <= 6.0
    env = mase.make(ENV)
    assert isinstance(make_policy("cbs", env), CBSPolicy)


def test_refuses_other_tasks():
    class Other:
        unwrapped = object()

    with pytest.raises(TypeError, match="search and rescue"):
        CBSPolicy().reset("alpha", Other())


# -- (c) one seat among teammates it does not control -----------------------------------------


class Stubborn(CBSPolicy):
    """Plays the plan, except that once it walks away when the plan says otherwise."""

    def reset(self, agent, env, seed=None):
        super().reset(agent, env, seed)
        self.strayed = False

    def act(self, observation, info):
        action = super().act(observation, info)
        layout = self.env.unwrapped.layout
        if not self.strayed and layout.actions[action][0] == "cut":
            self.strayed = True
            room = self.env.unwrapped.world.positions[self.env.unwrapped.agent_selection]
            return layout.action_index("go", min(layout.neighbours[room]))
        return action


def test_replans_when_a_teammate_leaves_the_plan():
    env = mase.make(ENV, obs_mode="vector")
    planner, stray = CBSPolicy(), Stubborn()
    team = {"alpha": planner, "bravo": stray, "charlie": planner}
    for seed in range(10):
        record = mase.run_episode(env, team, seed=seed)
        assert stray.strayed
        assert record["metrics"]["score"] == 90
        assert len(planner.plans) >= 2  # its first plan was broken, so it planned again
        assert record["metrics"]["rounds"] >= planner.plans[0].rounds


def test_with_random_teammates_it_stays_legal_and_scores():
    env = mase.make(ENV, obs_mode="vector")
    scores = []
    for seed in range(10):
        cbs = CBSPolicy()
        team = {"alpha": cbs, "bravo": RandomPolicy(), "charlie": RandomPolicy()}
        record = mase.run_episode(env, team, seed=seed)
        own = [t for t in record["turns"] if t["agent"] == "alpha"]
        assert all(not t["outcome"][0].startswith("invalid") for t in own)
        assert len(cbs.plans) > 1
        scores.append(record["metrics"]["score"])
    assert min(scores) >= 30 and np.mean(scores) > 60


def test_with_scripted_teammates_it_finishes():
    # the planner never talks, so its scripted teammates learn its cuts only by seeing them
    env = mase.wrappers.MessageChannel(mase.make(ENV, witness=True))
    for seed in range(5):
        team = {"alpha": CBSPolicy(), "bravo": ScriptedRescuer(), "charlie": ScriptedRescuer()}
        record = mase.run_episode(env, team, seed=seed, record_text=False)
        assert record["metrics"]["score"] == 90


# -- (d) large procedural instances ---------------------------------------------------------


def test_large_procedural_instance_is_cleared():
    env = mase.make(ENV, n_rooms=9, n_bombs=8, n_agents=4, n_colours=4, obs_mode="vector")
    policy = CBSPolicy(node_budget=20_000)
    for seed in range(3):
        record = mase.run_episode(env, dict.fromkeys(env.possible_agents, policy), seed=seed)
        metrics = record["metrics"]
        assert metrics["score"] == metrics["max_score"] == 130
        assert metrics["valid_action_rate"] == 1.0 and len(policy.plans) == 1
        assert metrics["rounds"] == policy.plan.rounds
        assert policy.plan.lower_bound <= policy.plan.rounds


def test_out_of_budget_the_fallback_plan_is_still_complete_and_honest():
    rng = np.random.default_rng(14)
    layout = world.procedural_layout(9, 8, 4, 4, rng)
    state = world.new_state(layout, rng)
    plan = Planner(layout, node_budget=500).plan(state)
    assert_plan_plays(state, 0, plan)
    assert not plan.optimal and plan.method in ("schedule", "weighted")
    assert plan.lower_bound < plan.rounds
    assert plan.lower_bound <= 10 <= plan.rounds  # 10 rounds is this instance's optimum
