"""Debate through the LLM path: the real openai client against the offline model's server."""

import pytest

import mase
from mase.agents import LLMAgent, RandomPolicy
from mase.envs.debate.bots import DebateBot
from mase.envs.debate.language_model import DebateModel
from mase.llm import LLMConfig, OfflineServer, offline_server
from mase.runner import run_episode


@pytest.fixture(scope="module")
def server():
    with offline_server("mase/Debate-v0") as running:
        yield running


def config(server):
    return LLMConfig(base_url=server.base_url, cache=False)


def test_llm_seats_give_the_same_answers_as_the_scripted_mind(server):
    env = mase.make("mase/Debate-v0", n_questions=12)
    for seed in range(12):
        llm = run_episode(
            env, {a: LLMAgent(config(server)) for a in env.possible_agents}, seed=seed
        )
        read_llm = [dict(r) for r in env.unwrapped.debate.read]
        bots = run_episode(env, {a: DebateBot() for a in env.possible_agents}, seed=seed)
        assert [dict(r) for r in env.unwrapped.debate.read] == read_llm
        assert llm["metrics"]["correct"] == bots["metrics"]["correct"]
        assert llm["metrics"]["llm_valid_output_rate"] == 1.0


def test_a_mixed_team_debates_llm_scripted_and_random_seats(server):
    env = mase.make("mase/Debate-v0", source="chess", n_questions=5)
    team = {"alpha": LLMAgent(config(server)), "bravo": DebateBot(), "charlie": RandomPolicy()}
    for seed in range(5):
        record = run_episode(env, team, seed=seed)
        assert record["metrics"]["invalid_actions"] == 0
        assert env.unwrapped.debate.read[0]["charlie"] is not None  # an index, said as a square


def test_a_summarized_debate_runs_on_the_offline_model():
    with OfflineServer(DebateModel(p=0.5, q=1.0)) as running:
        env = mase.make("mase/Debate-v0", n_questions=20, summarize=True, agents=5)
        team = {a: LLMAgent(config(running)) for a in env.possible_agents}
        agreed = 0
        for seed in range(20):
            record = run_episode(env, team, seed=seed)
            summary = env.unwrapped.debate.summaries[0]
            assert summary.startswith("Summary: ") and "agent(s) answer" in summary
            first = [v for v in env.unwrapped.debate.votes(0) if v is not None]
            majority = max(first.count(v) for v in first) * 2 > 5
            # q = 1: an answer a strict majority gave in round 1 is every agent's in round 2
            assert record["metrics"]["consensus"] == float(majority)
            agreed += majority
        assert 0 < agreed < 20  # both cases were played
