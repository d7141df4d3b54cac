import io

import numpy as np

import mase
from mase.agents import HumanPolicy, RandomPolicy, make_policy
from mase.runner import run_episode
from mase.wrappers import MessageChannel

ENV = "mase/SearchRescue-v0"


def test_scripted_team_defuses_every_bomb_on_the_paper_layout():
    # how well it plays over many episodes is measured by benchmarks/teams.py
    summary = mase.evaluate(ENV, "scripted", episodes=10, seed=0)
    assert summary["counts"]["ended_by"] == {"defused": 10}


def test_scripted_team_on_random_graphs_and_without_seeing_teammates():
    for kwargs in ({"layout": "random"}, {"see_teammates": False}):
        summary = mase.evaluate(ENV, "scripted", episodes=20, seed=0, env_kwargs=kwargs)
        assert summary["metrics"]["score"]["mean"] == 90.0, kwargs


def test_scripted_team_needs_its_messages():
    talk = mase.evaluate(ENV, "scripted", episodes=20, seed=0)
    silent = mase.evaluate(ENV, "scripted", episodes=20, seed=0, messages=False)
    assert silent["metrics"]["rounds"]["mean"] > talk["metrics"]["rounds"]["mean"]


def test_random_policy_respects_the_mask():
    env = mase.make(ENV)
    env.reset(seed=0)
    policy = RandomPolicy()
    policy.reset("alpha", env, seed=1)
    for _ in range(200):
        obs = env.observe("alpha")
        assert obs["action_mask"][policy.act(obs, {})] == 1
    unmasked = make_policy("random-unmasked", env)
    unmasked.reset("alpha", env, seed=1)
    picks = {unmasked.act(env.observe("alpha"), {}) for _ in range(300)}
    assert picks == set(range(9))


def test_human_policy_re_asks_until_legal():
    env = MessageChannel(mase.make(ENV))
    replies = iter(["sing a song", "apply purple cutter", "inspect the bomb. Message to Team: hi"])
    out = io.StringIO()
    human = HumanPolicy(read=lambda: next(replies), out=out)
    env.reset(seed=2)
    human.reset("alpha", env)
    action = human.act(env.observe("alpha"), {})
    assert action == "inspect the bomb. Message to Team: hi"  # the channel takes the message
    env.step(action)
    said = [e.note for e in env.unwrapped.event_log if e.kind == "message"]
    assert said == ["hi"]
    assert out.getvalue().count("Not a legal action") == 2
    assert "no purple cutter" in out.getvalue()


def test_scripted_teammate_works_in_vector_mode():
    env = MessageChannel(mase.make(ENV, obs_mode="vector"))
    team = {a: make_policy("scripted", env) for a in env.possible_agents}
    record = run_episode(env, team, seed=3)
    assert record["metrics"]["score"] == 90
    assert np.isfinite(record["returns"]["alpha"])
