import json

import numpy as np
import pytest

import mase
from mase.agents import RandomPolicy
from mase.runner import parse_team, run_episode, summarize

ENV = "mase/SearchRescue-v0"


def test_parse_team_forms():
    seats = ["alpha", "bravo", "charlie"]
    assert parse_team("scripted", seats) == dict.fromkeys(seats, "scripted")
    assert parse_team("alpha=scripted,bravo=random,charlie=random", seats) == {
        "alpha": "scripted",
        "bravo": "random",
        "charlie": "random",
    }
    assert parse_team("random, alpha=scripted", seats)["alpha"] == "scripted"
    with pytest.raises(ValueError, match="charlie"):
        parse_team("alpha=scripted,bravo=random", seats)
    with pytest.raises(ValueError, match="delta"):
        parse_team("delta=random,random", seats)


def test_run_episode_record_is_complete_and_json_ready():
    env = mase.wrappers.MessageChannel(mase.make(ENV))
    team = {a: mase.agents.make_policy("scripted", env) for a in env.possible_agents}
    record = run_episode(env, team, seed=5)
    json.dumps(record)
    assert record["metrics"]["score"] == 90
    assert record["metrics"]["ended_by"] == "defused"
    assert len(record["turns"]) == 3 * record["metrics"]["rounds"]
    first = record["turns"][0]
    assert first["agent"] == "alpha" and first["round"] == 1
    assert first["observation"].startswith("You are Alpha.")
    assert record["messages"], "the scripted team talks"
    assert {m["sender"] for m in record["messages"]} == {"alpha", "bravo", "charlie"}
    assert record["returns"]["alpha"] == 90.0


def test_summary_statistics():
    records = [
        {"metrics": {"score": s, "ended_by": e}}
        for s, e in [(10, "defused"), (20, "defused"), (60, "round_limit")]
    ]
    records.append({"failed": True, "error": "boom"})
    summary = summarize(records)
    score = summary["metrics"]["score"]
    assert summary["episodes"] == 3 and summary["failed"] == 1
    assert score["mean"] == pytest.approx(30.0)
    assert score["std"] == pytest.approx(np.std([10, 20, 60], ddof=1))
    assert score["ci95"] == pytest.approx(1.96 * score["std"] / np.sqrt(3))
    assert summary["counts"]["ended_by"] == {"defused": 2, "round_limit": 1}


class Interrupt(RandomPolicy):
    """Random, but raises KeyboardInterrupt at a given episode's first turn."""

    def __init__(self, stop_at_seed):
        super().__init__()
        self.stop_at_seed = stop_at_seed

    def reset(self, agent, env, seed=None):
        super().reset(agent, env, seed)
        self.episode_seed = env.unwrapped.np_random_seed

    def act(self, observation, info):
        if self.episode_seed == self.stop_at_seed:
            raise KeyboardInterrupt
        return super().act(observation, info)


def test_resume_finishes_without_redoing_or_duplicating(tmp_path):
    full = tmp_path / "full"
    mase.evaluate(ENV, "random", episodes=6, seed=100, out=full)

    part = tmp_path / "part"
    team = {"alpha": Interrupt(stop_at_seed=103), "bravo": "random", "charlie": "random"}
    with pytest.raises(KeyboardInterrupt):
        mase.evaluate(ENV, team, episodes=6, seed=100, out=part, label="random")
    done = (part / "episodes.jsonl").read_text().splitlines()
    assert len(done) == 3
    # a torn line from a write cut short is dropped on resume
    with (part / "episodes.jsonl").open("a") as f:
        f.write('{"episode": 3, "seed": 1')
    # without --resume nothing is overwritten
    with pytest.raises(FileExistsError, match="resume"):
        mase.evaluate(ENV, "random", episodes=6, seed=100, out=part)

    calls = []

    class Counting(RandomPolicy):
        def reset(self, agent, env, seed=None):
            calls.append(env.unwrapped.np_random_seed)
            super().reset(agent, env, seed)

    team = {"alpha": Counting(), "bravo": "random", "charlie": "random"}
    mase.evaluate(ENV, team, episodes=6, seed=100, out=part, resume=True, label="random")
    assert calls == [103, 104, 105]
    resumed = [json.loads(line) for line in (part / "episodes.jsonl").read_text().splitlines()]
    assert [r["episode"] for r in resumed] == [0, 1, 2, 3, 4, 5]
    complete = [json.loads(line) for line in (full / "episodes.jsonl").read_text().splitlines()]
    assert resumed == complete


def test_resume_refuses_a_different_setup(tmp_path):
    mase.evaluate(ENV, "random", episodes=2, seed=0, out=tmp_path)
    with pytest.raises(ValueError, match="different set-up"):
        mase.evaluate(ENV, "scripted", episodes=2, seed=0, out=tmp_path, resume=True)


class Broken(RandomPolicy):
    def act(self, observation, info):
        raise ConnectionError("endpoint went away")


def test_a_failing_policy_is_recorded_and_retried_on_resume(tmp_path):
    team = {"alpha": Broken(), "bravo": "random", "charlie": "random"}
    summary = mase.evaluate(ENV, team, episodes=2, seed=0, out=tmp_path, label="random")
    assert summary["failed"] == 2 and summary["episodes"] == 0
    lines = [json.loads(x) for x in (tmp_path / "episodes.jsonl").read_text().splitlines()]
    assert all(r["failed"] and "endpoint went away" in r["error"] for r in lines)
    summary = mase.evaluate(ENV, "random", episodes=2, seed=0, out=tmp_path, resume=True)
    assert summary["failed"] == 0 and summary["episodes"] == 2
    lines = (tmp_path / "episodes.jsonl").read_text().splitlines()
    assert len(lines) == 2


def test_no_messages_is_the_silent_condition():
    summary = mase.evaluate(ENV, "scripted", episodes=2, seed=0, messages=False)
    assert summary["messages"] is False
    env = mase.make(ENV)
    team = {a: mase.agents.make_policy("scripted", env) for a in env.possible_agents}
    record = run_episode(env, team, seed=0)
    assert record["messages"] == []
