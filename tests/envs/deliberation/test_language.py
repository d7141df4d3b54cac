"""Deliberation through the LLM path: the real openai client against the offline model's server,
and the reply reader on what models write."""

import pytest

import mase
from mase.agents import LLMAgent
from mase.envs.deliberation.bots import Deliberator
from mase.envs.deliberation.language_model import DeliberationModel
from mase.llm import LLMConfig, OfflineServer, offline_server
from mase.runner import run_episode


@pytest.fixture(scope="module")
def server():
    with offline_server("mase/MenuDesign-v0") as running:
        yield running


def config(server):
    return LLMConfig(base_url=server.base_url, cache=False)


@pytest.mark.parametrize(
    "env_id", ["mase/MenuDesign-v0", "mase/MenuDesignSemantic-v0", "mase/TaskAllocation-v0"]
)
def test_llm_seats_deliberate_as_the_scripted_mind_does(server, env_id):
    env = mase.make(env_id)
    for seed in range(4):
        team = {a: LLMAgent(config(server)) for a in env.possible_agents}
        llm = run_episode(env, team, seed=seed)
        said = [t for _, _, t in env.unwrapped.dialogue]
        bots = run_episode(env, {a: Deliberator() for a in env.possible_agents}, seed=seed)
        assert [t for _, _, t in env.unwrapped.dialogue] == said
        assert llm["metrics"]["nr"] == pytest.approx(bots["metrics"]["nr"])
        assert llm["metrics"]["llm_valid_output_rate"] == 1.0


def test_a_mixed_team_llm_and_scripted_reaches_the_optimum(server):
    env = mase.make("mase/TaskAllocation-v0")
    team = {"worker_0": LLMAgent(config(server)), "worker_1": Deliberator(),
            "leader": LLMAgent(config(server))}  # fmt: skip
    for seed in range(3):
        m = run_episode(env, team, seed=seed)["metrics"]
        assert m["nr"] == pytest.approx(100) and m["valid"] == 1


def test_an_offline_model_that_shares_half_its_numbers_decides_worse():
    with OfflineServer(DeliberationModel(share=0.5)) as running:
        env = mase.make("mase/MenuDesign-v0")
        team = {a: LLMAgent(config(running)) for a in env.possible_agents}
        nr = [run_episode(env, team, seed=s)["metrics"]["nr"] for s in range(10)]
        assert min(nr) < 100
