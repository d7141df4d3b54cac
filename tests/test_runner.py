import json

import numpy as np
import pytest
from golden.golden import normalize
from pettingzoo.utils.wrappers import BaseWrapper

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
    # the percentile bootstrap of the mean: inside the lowest and highest episode
    assert (
        score["ci95_method"] == "bootstrap" and 10 <= score["ci95"][0] < 30 < score["ci95"][1] <= 60
    )
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


# -- concurrency, extras of policies and wrappers ---------------------------------------------


def _lines(path):
    return [json.loads(line) for line in (path / "episodes.jsonl").read_text().splitlines()]


class Spawning(RandomPolicy):
    """Random with a spawn() that counts its copies."""

    spawned = 0

    def spawn(self):
        Spawning.spawned += 1
        return Spawning()


def test_records_are_the_same_whatever_the_concurrency(tmp_path):
    one = mase.evaluate(ENV, "random", episodes=8, seed=7, out=tmp_path / "k1")
    team = {"alpha": Spawning(), "bravo": RandomPolicy(use_mask=False), "charlie": "scripted"}
    mixed = [
        mase.evaluate(ENV, team, episodes=8, seed=7, out=tmp_path / f"mixed{k}", concurrency=k)
        for k in (1, 4)
    ]
    four = mase.evaluate(ENV, "random", episodes=8, seed=7, out=tmp_path / "k4", concurrency=4)
    assert _lines(tmp_path / "k1") == _lines(tmp_path / "k4")
    assert [r["episode"] for r in _lines(tmp_path / "k4")] == list(range(8))
    assert one["metrics"] == four["metrics"]
    assert _lines(tmp_path / "mixed1") == _lines(tmp_path / "mixed4")
    assert mixed[0]["metrics"] == mixed[1]["metrics"]
    assert Spawning.spawned == 3  # one policy per worker, the given one in the first


def test_interrupted_concurrent_run_resumes_without_loss_or_duplicates(tmp_path):
    mase.evaluate(ENV, "random", episodes=10, seed=100, out=tmp_path / "full")
    part = tmp_path / "part"
    team = {"alpha": Interrupt(stop_at_seed=104), "bravo": "random", "charlie": "random"}
    with pytest.raises(KeyboardInterrupt):
        mase.evaluate(ENV, team, episodes=10, seed=100, out=part, label="random", concurrency=3)
    written = _lines(part)
    episodes = [r["episode"] for r in written]
    assert 4 not in episodes and len(set(episodes)) == len(episodes) < 10
    assert not any(r.get("failed") for r in written)
    summary = mase.evaluate(
        ENV, "random", episodes=10, seed=100, out=part, resume=True, concurrency=3
    )
    assert summary["episodes"] == 10 and summary["failed"] == 0
    assert _lines(part) == _lines(tmp_path / "full")


def test_concurrent_failures_are_recorded_with_the_reason(tmp_path):
    team = {"alpha": Broken(), "bravo": "random", "charlie": "random"}
    summary = mase.evaluate(
        ENV, team, episodes=5, seed=0, out=tmp_path, concurrency=2, stop_after_failures=0
    )
    assert summary["failed"] == 5 and summary["episodes"] == 0
    lines = _lines(tmp_path)
    assert [r["episode"] for r in lines] == [0, 1, 2, 3, 4]
    assert all("ConnectionError: endpoint went away" in r["error"] for r in lines)


class Uncopyable(RandomPolicy):
    def __deepcopy__(self, memo):
        raise TypeError("holds a socket")


def test_a_policy_object_without_spawn_or_copy_is_a_clear_error():
    team = {"alpha": Uncopyable(), "bravo": "random", "charlie": "random"}
    with pytest.raises(ValueError, match="spawn"):
        mase.evaluate(ENV, team, episodes=2, concurrency=2)
    assert mase.evaluate(ENV, team, episodes=2)["episodes"] == 2  # one worker needs no copy
    with pytest.raises(ValueError, match="at least 1"):
        mase.evaluate(ENV, "random", episodes=2, concurrency=0)


class QuizProbe(BaseWrapper):
    """A stand-in for ToMProbe: asks each agent to move whether it is its turn."""

    def reset(self, seed=None, options=None):
        super().reset(seed=seed, options=options)
        self.probes = {}
        self._ask()

    def step(self, action):
        super().step(action)
        self._ask()

    def _ask(self):
        base = self.env.unwrapped
        if not base.agents:
            return
        agent = base.agent_selection
        qid = f"q{len(self.probes)}"
        self.probes[qid] = {"id": qid, "level": "introspection", "asked": agent, "reply": None}
        base.infos[agent]["tom_questions"] = [{"id": qid, "question": f"Is it {agent}'s turn?"}]

    def answer_questions(self, agent, replies):
        for qid, reply in replies.items():
            assert self.probes[qid]["asked"] == agent
            self.probes[qid]["reply"] = reply
            self.probes[qid]["correct"] = reply.startswith("Yes")

    def episode_record(self):
        probes = list(self.probes.values())
        right = sum(p.get("correct") is True for p in probes)
        return {"metrics": {"tom_introspection": right / len(probes)}, "probes": probes}


class Prompts(BaseWrapper):
    """A stand-in for the Recorder: asks for the policies' prompts."""

    record_prompts = True

    def episode_record(self):
        return {"events": ["all of them"]}


class Talker(RandomPolicy):
    """Random, answers probes, and reports model-like usage."""

    def __init__(self, reply):
        super().__init__()
        self.reply = reply

    def reset(self, agent, env, seed=None):
        super().reset(agent, env, seed)
        self.turns = 0

    def act(self, observation, info):
        self.turns += 1
        return super().act(observation, info)

    def answer(self, question):
        return self.reply

    def episode_record(self):
        metrics = {
            "llm_calls": self.turns,
            "llm_outputs": self.turns,
            "llm_valid_outputs": self.turns - 1,
            "prompt_tokens": 10 * self.turns,
            "completion_tokens": 2 * self.turns,
            "cost_usd": 0.5,
            "score": -1,  # never replaces the env's metric of that name
        }
        return {"metrics": metrics, "calls": [{"turn": t} for t in range(self.turns)]}


def test_probe_questions_are_answered_and_records_merged():
    env = QuizProbe(mase.wrappers.MessageChannel(mase.make(ENV)))
    team = {"alpha": Talker("Yes, it is."), "bravo": Talker("No."), "charlie": RandomPolicy()}
    record = run_episode(env, team, seed=3)
    json.dumps(record)
    probes = record["probes"]
    assert probes and all(p["reply"] is not None for p in probes if p["asked"] != "charlie")
    assert all(p["reply"] is None for p in probes if p["asked"] == "charlie")
    assert {p["correct"] for p in probes if p["asked"] == "alpha"} == {True}
    alpha = sum(p["asked"] == "alpha" for p in probes)
    assert record["metrics"]["tom_introspection"] == pytest.approx(alpha / len(probes))
    assert set(record["seats"]) == {"alpha", "bravo"}
    turns = {a: sum(t["agent"] == a for t in record["turns"]) for a in ("alpha", "bravo")}
    assert record["seats"]["alpha"]["metrics"]["llm_calls"] == turns["alpha"]
    assert "calls" not in record["seats"]["alpha"]
    metrics = record["metrics"]
    assert metrics["llm_calls"] == turns["alpha"] + turns["bravo"]
    assert metrics["llm_tokens"] == 12 * metrics["llm_calls"]
    assert metrics["llm_valid_output_rate"] == pytest.approx(1 - 2 / metrics["llm_calls"])
    assert metrics["cost_usd"] == 1.0 and metrics["score"] >= 0

    record = run_episode(Prompts(env), team, seed=3)
    assert record["events"] == ["all of them"]
    assert len(record["seats"]["bravo"]["calls"]) == turns["bravo"]


def test_summary_pools_tom_accuracy_and_totals_usage():
    replies = ("Yes.", "No.", "Maybe.", None)  # right, right, unreadable (wrong), not answered
    probes = [
        {"level": "first_order", "correct": c, "reply": r, "unread_messages": u}
        for c, r, u in zip((True, True, False, None), replies, ([], [{}], [], [{}]), strict=True)
    ]
    records = [
        {"episode": 1, "metrics": {"llm_calls": 4, "cost_usd": 0.25}, "probes": probes},
        {"episode": 0, "metrics": {"llm_calls": 2, "cost_usd": 0.25}, "probes": probes[:1]},
        {"episode": 2, "failed": True, "error": "x", "usage": {"llm_calls": 1}},
    ]
    summary = summarize(records)
    # answered: 3 in episode 1 and 1 in episode 0; the unanswered one is asked, not wrong; one
    # answered question (and one unanswered) rests on an unreadable message
    assert summary["tom"] == {
        "first_order": {"accuracy": 0.75, "correct": 3, "n": 4, "asked": 5, "on_unread": 1}
    }
    assert summary["usage"] == {"llm_calls": 7, "cost_usd": 0.5}
    assert summary["metrics"]["llm_calls"]["mean"] == 3.0
    assert "usage" not in summarize([{"episode": 0, "metrics": {"score": 1}}])


def test_llm_team_records_do_not_depend_on_concurrency(tmp_path):
    from mase.llm import LLMConfig, offline_server

    team = "alpha=llm,bravo=llm-belief,charlie=scripted"
    with offline_server(ENV) as server:
        config = LLMConfig(base_url=server.base_url, cache=False)
        for k in (1, 3):
            mase.evaluate(
                ENV, team, episodes=3, seed=11, out=tmp_path / f"k{k}", llm=config,
                concurrency=k, probes=True,
            )  # fmt: skip
    one, three = (normalize(_lines(tmp_path / k)) for k in ("k1", "k3"))
    assert one == three
    assert all(r["seats"]["bravo"]["metrics"]["belief_calls"] > 0 for r in one)
    assert all(r["probes"] and r["metrics"]["llm_calls"] > 0 for r in one)


class Tally(BaseWrapper):
    """A protocol over any task: counts the steps it saw and reports them in the records."""

    def __init__(self, env, label="tally"):
        super().__init__(env)
        self.label, self.steps = label, 0

    def reset(self, seed=None, options=None):
        self.steps = 0
        self.env.reset(seed=seed, options=options)

    def step(self, action):
        self.steps += 1
        self.env.step(action)

    def episode_record(self):
        return {"metrics": {f"{self.label}_steps": self.steps}}


def test_wrappers_are_an_open_list_of_specs(tmp_path):
    specs = [Tally, (Tally, {"label": "outer"}), "mase.wrappers.text_actions:TextActions"]
    summary = mase.evaluate(ENV, "random", episodes=2, wrappers=specs, out=tmp_path / "run")
    metrics = summary["metrics"]
    assert metrics["tally_steps"]["mean"] == metrics["outer_steps"]["mean"] > 0
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    tally = f"{Tally.__module__}:Tally"
    assert config["wrappers"] == [
        tally,
        [tally, {"label": "outer"}],
        "mase.wrappers.text_actions:TextActions",
    ]
    # the same list resumes; another is another set-up
    mase.evaluate(ENV, "random", episodes=3, wrappers=specs, out=tmp_path / "run", resume=True)
    with pytest.raises(ValueError, match="different set-up"):
        mase.evaluate(
            ENV, "random", episodes=4, wrappers=[Tally], out=tmp_path / "run", resume=True
        )
    with pytest.raises(ValueError, match="cannot load the wrapper"):
        mase.evaluate(ENV, "random", episodes=1, wrappers=["mase.wrappers:NoSuchWrapper"])


def test_records_keep_a_bounded_share_of_a_runaway_reply():
    class Runaway(RandomPolicy):
        def act(self, observation, info):
            return "Action selection: inspect bomb " + "x" * 200_000

    env = mase.make(ENV)
    record = run_episode(env, dict.fromkeys(env.possible_agents, Runaway()), seed=0)
    action = record["turns"][0]["action"]
    assert action["truncated"] == len("Action selection: inspect bomb ") + 200_000
    assert len(action["text"]) == 8_000
    assert len(json.dumps(record)) < 8_000 * len(record["turns"]) * 2


def test_resume_reads_past_a_blank_or_damaged_line_and_replays_only_that_episode(tmp_path):
    mase.evaluate(ENV, "random", episodes=4, seed=0, out=tmp_path)
    path = tmp_path / "episodes.jsonl"
    lines = path.read_text().splitlines()
    lines[1] = "{not json"  # episode 1 damaged
    path.write_text("\n".join([lines[0], "", *lines[1:]]) + "\n")  # and a blank line
    played = []

    class Counting(RandomPolicy):
        def reset(self, agent, env, seed=None):
            played.append(env.unwrapped.np_random_seed)
            super().reset(agent, env, seed)

    team = {"alpha": Counting(), "bravo": "random", "charlie": "random"}
    mase.evaluate(ENV, team, episodes=4, seed=0, out=tmp_path, resume=True, label="random")
    assert played == [1]  # episodes 0, 2 and 3 were read back, not played again
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["episode"] for r in records] == [0, 1, 2, 3]


def test_a_torn_config_is_a_clear_error_that_keeps_the_episodes(tmp_path):
    mase.evaluate(ENV, "random", episodes=2, seed=0, out=tmp_path)
    (tmp_path / "config.json").write_text('{"env_id": "mase/Sea')
    before = (tmp_path / "episodes.jsonl").read_text()
    with pytest.raises(ValueError, match="config.json is unreadable.*delete config.json"):
        mase.evaluate(ENV, "random", episodes=2, seed=0, out=tmp_path, resume=True)
    assert (tmp_path / "episodes.jsonl").read_text() == before
    (tmp_path / "config.json").unlink()
    summary = mase.evaluate(ENV, "random", episodes=2, seed=0, out=tmp_path, resume=True)
    assert summary["episodes"] == 2


def test_resume_with_fewer_episodes_than_finished_is_refused(tmp_path):
    mase.evaluate(ENV, "random", episodes=5, seed=0, out=tmp_path)
    config = (tmp_path / "config.json").read_text()
    with pytest.raises(ValueError, match="holds 5 finished episodes, more than the 2"):
        mase.evaluate(ENV, "random", episodes=2, seed=0, out=tmp_path, resume=True)
    assert (tmp_path / "config.json").read_text() == config  # not rewritten to 2


def test_config_and_summary_are_written_whole(tmp_path, monkeypatch):
    """An interruption while writing leaves the old file or the new, never half of one."""
    import os

    mase.evaluate(ENV, "random", episodes=1, seed=0, out=tmp_path)
    replaced = []
    real_replace = os.replace
    monkeypatch.setattr(os, "replace", lambda a, b: (replaced.append(str(b)), real_replace(a, b)))
    mase.evaluate(ENV, "random", episodes=2, seed=0, out=tmp_path, resume=True)
    names = {p.rsplit("/", 1)[-1] for p in replaced}
    assert {"config.json", "summary.json", "episodes.jsonl"} <= names


def test_two_writers_replacing_one_record_file_at_once_both_succeed(tmp_path):
    """Two processes resuming one finished run rewrite its files together: each write is
    whole, none fails on the other's temporary file."""
    import threading

    from mase.runner.store import read_records, write_records

    path = tmp_path / "episodes.jsonl"
    records = [{"episode": i, "text": "x" * 200} for i in range(50)]
    errors = []

    def write():
        try:
            for _ in range(100):
                write_records(path, records)
        except OSError as exc:  # the shared temporary file moved away by the other writer
            errors.append(exc)

    threads = [threading.Thread(target=write) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert read_records(path) == records
    assert [p.name for p in tmp_path.iterdir()] == ["episodes.jsonl"]  # no temporary left
