"""The parallel view (``mase.make_parallel``): simultaneous moves at once, the others waiting.

Scenarios from the rules: a debate round's answers are given at once and seen together after
it (the paper: every agent answers, then reads the others); Avalon's votes are cast in secret
and shown together, and a leader's proposal is the leader's alone; a seat that does not act
gives an action that counts for nothing. PettingZoo's own checkers run on every task's view in
``tests/test_task_contract.py`` (``check_task``).
"""

import functools

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.test import parallel_api_test, parallel_seed_test

import mase
from mase.actions import ActionDictError
from mase.envs.debate.text import OPINIONS_HEAD, SUMMARY_HEAD
from mase.parallel import NumericInfos

AVALON = {"n_players": 5, "discussion": 0}
DEAL = ("Merlin", "Assassin", "Loyal Servant", "Percival", "Morgana")


def wait_mask(n: int) -> np.ndarray:
    mask = np.zeros(n, dtype=np.int8)
    mask[0] = 1
    return mask


# -- debate ---------------------------------------------------------------------------------


def test_a_debate_round_is_one_step_and_its_answers_are_seen_together_after_it():
    env = mase.make_parallel("mase/Debate-v0", agents=3, rounds=2, obs_mode="both")
    obs, infos = env.reset(seed=0)
    debaters = ["alpha", "bravo", "charlie"]
    assert env.acting == tuple(debaters) and all(infos[a]["acting"] for a in debaters)
    for a in debaters:  # each answers from the question alone, with its answers legal
        assert OPINIONS_HEAD not in obs[a]["text"] and obs[a]["action_mask"].all()
    question = env.unwrapped.debate.question
    said = {
        a: question.say(env.unwrapped.choices[i]) for a, i in zip(debaters, (3, 5, 7), strict=True)
    }
    obs, rewards, *_ = env.step({"alpha": 3, "bravo": 5, "charlie": 7})
    assert env.unwrapped.turns == 3 and env.unwrapped.round == 2
    for a in debaters:  # round 2: every other debater's round-1 answer, verbatim
        others = obs[a]["text"].split(OPINIONS_HEAD)[1]
        assert all(said[b] in others for b in debaters if b != a)
        assert said[a] not in others
        readable = obs[a]["observation"][7:13:2]  # each debater's answer readable: all at once
        assert readable.tolist() == [1.0, 1.0, 1.0]
    _, _, terminations, _, _ = env.step({"alpha": 3, "bravo": 3, "charlie": 3})
    assert all(terminations.values()) and env.agents == []


def test_in_a_summarized_debate_the_answers_reach_the_summarizer_alone_then_the_summary_all():
    env = mase.make_parallel("mase/Debate-v0", agents=3, rounds=2, summarize=True, obs_mode="both")
    obs, infos = env.reset(seed=0)
    n = env.action_space("summarizer").n
    assert not infos["summarizer"]["acting"]
    assert np.array_equal(obs["summarizer"]["action_mask"], wait_mask(n))
    obs, *_ = env.step({"alpha": 3, "bravo": 5, "charlie": 7, "summarizer": "ignored"})
    assert env.acting == ("summarizer",) and env.unwrapped.turns == 3
    answer = env.unwrapped.debate.question.say(env.unwrapped.choices[5])
    assert answer in obs["summarizer"]["text"]
    assert answer not in obs["alpha"]["text"]  # bravo's answer: not for alpha before the summary
    assert np.array_equal(obs["alpha"]["action_mask"], wait_mask(n))
    obs, *_ = env.step(dict.fromkeys(env.agents, 0) | {"summarizer": "Two say -836."})
    assert SUMMARY_HEAD.format("Two say -836.") in obs["alpha"]["text"]
    assert env.acting == ("alpha", "bravo", "charlie")


# -- avalon ---------------------------------------------------------------------------------


def test_avalon_a_proposal_is_the_leaders_alone_and_the_others_wait():
    env = mase.make_parallel("mase/Avalon-v0", obs_mode="both", **AVALON)
    obs, infos = env.reset(seed=0, options={"leader": "alpha", "deal": DEAL})
    n = env.action_space("alpha").n
    assert env.acting == ("alpha",)
    for seat in ("bravo", "charlie", "delta", "echo"):
        assert not infos[seat]["acting"]
        assert np.array_equal(obs[seat]["action_mask"], wait_mask(n))
    # what the waiting seats give counts for nothing: not a move, not an invalid one
    env.step({"alpha": 0, "bravo": "approve", "charlie": 10**9, "delta": None, "echo": 3})
    base = env.unwrapped
    assert (base.turns, base.invalid_actions, base.phase.name) == (1, 0, "vote")


def test_avalon_votes_are_cast_at_once_and_revealed_together():
    env = mase.make_parallel("mase/Avalon-v0", obs_mode="both", **AVALON)
    env.reset(seed=0, options={"leader": "alpha", "deal": DEAL})
    obs, _, _, _, infos = env.step(dict.fromkeys(env.agents, 0))  # team 0: alpha and bravo
    seats = env.possible_agents
    assert env.acting == tuple(seats) and all(infos[a]["acting"] for a in seats)
    for seat in seats:  # every voter sees no vote of this proposal before voting
        assert "voted" not in obs[seat]["text"]
        assert obs[seat]["action_mask"][:2].tolist() == [1, 1]
    votes = {"alpha": 1, "bravo": 1, "charlie": 0, "delta": 1, "echo": 0}
    obs, *_ = env.step(votes)
    assert env.unwrapped.turns == 6 and env.unwrapped.phase.name == "quest"
    shown = (
        "Last vote: Alpha voted approve. Bravo voted approve. Charlie voted reject. "
        "Delta voted approve. Echo voted reject."
    )
    assert all(shown in obs[seat]["text"] for seat in seats)
    assert env.acting == ("alpha", "bravo")  # the team plays its cards; the others wait


def test_a_waiting_seat_still_owes_an_action_and_a_dict_with_unknown_keys_is_refused():
    env = mase.make_parallel("mase/Avalon-v0", obs_mode="both", **AVALON)
    env.reset(seed=0, options={"leader": "alpha"})
    with pytest.raises(ActionDictError, match=r"no action for \['echo'\]"):
        env.step({"alpha": 0, "bravo": 0, "charlie": 0, "delta": 0})
    with pytest.raises(ActionDictError, match="echo's action"):
        env.step(dict.fromkeys(env.agents, 0) | {"echo": {"action": 0, "message": "hi"}})
    assert env.unwrapped.turns == 0


# -- plain PettingZoo AEC envs ----------------------------------------------------------------


class Plain(AECEnv):
    """A PettingZoo AEC env of no MASE schedule: two agents say 0 or 1, three cycles."""

    metadata = {"name": "plain_v0", "is_parallelizable": False}

    def __init__(self):
        super().__init__()
        self.possible_agents = ["x", "y"]
        self._obs = spaces.Box(0.0, 1.0, (1,), np.float32)
        self._act = spaces.Discrete(2)

    def observation_space(self, agent):
        return self._obs

    def action_space(self, agent):
        return self._act

    def reset(self, seed=None, options=None):
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection, self.turns = "x", 0

    def observe(self, agent):
        return np.array([self.turns / 6], np.float32)

    def step(self, action):
        if self.terminations[self.agent_selection]:
            self._was_dead_step(action)
            return
        self.turns += 1
        self.rewards = dict.fromkeys(self.agents, float(action))
        self.terminations = dict.fromkeys(self.agents, self.turns >= 6)
        self.agent_selection = "y" if self.agent_selection == "x" else "x"
        self._accumulate_rewards()


class PlainCycles(Plain):
    metadata = {"name": "plain_cycles_v0", "is_parallelizable": True}


mase.register("tests/Plain-v0", Plain)
mase.register("tests/PlainCycles-v0", PlainCycles)


def test_an_env_with_no_schedule_nor_parallelizable_mark_is_refused_saying_why():
    with pytest.raises(ValueError, match="no MASE turn schedule.*is_parallelizable"):
        mase.make_parallel("tests/Plain-v0")


def test_a_parallelizable_plain_env_steps_a_cycle_at_a_time():
    env = mase.make_parallel("tests/PlainCycles-v0")
    _, infos = env.reset(seed=0)
    assert env.acting == ("x", "y") and infos["x"]["acting"]
    _, rewards, *_ = env.step({"x": 1, "y": 0})
    assert env.unwrapped.turns == 2 and rewards == {"x": 1.0, "y": 1.0}
    parallel_api_test(mase.make_parallel("tests/PlainCycles-v0"), num_cycles=10)
    parallel_seed_test(functools.partial(mase.make_parallel, "tests/PlainCycles-v0"))


# -- the ecosystem's parallel conventions -----------------------------------------------------


@pytest.mark.parametrize(
    "env_id, kwargs",
    [("mase/SearchRescue-v0", {}), ("mase/Debate-v0", {}), ("mase/Avalon-v0", AVALON)],
)
def test_supersuit_vectorizes_the_parallel_view(env_id, kwargs):
    """SuperSuit's documented conversion: every seat of every copy is a slot of one VecEnv."""
    ss = pytest.importorskip("supersuit")
    env = mase.make_parallel(env_id, obs_mode="vector", **kwargs)
    seats = len(env.possible_agents)
    venv = ss.concat_vec_envs_v1(
        ss.pettingzoo_env_to_vec_env_v1(env), 2, num_cpus=0, base_class="gymnasium"
    )
    obs, _ = venv.reset(seed=0)
    assert venv.num_envs == 2 * seats and obs["observation"].shape[0] == 2 * seats
    rng = np.random.default_rng(0)
    for _ in range(20):
        actions = [int(rng.choice(np.flatnonzero(m))) for m in obs["action_mask"]]
        obs, rewards, terminations, truncations, _ = venv.step(np.array(actions))
        assert rewards.shape == (2 * seats,) and obs["action_mask"].any(axis=1).all()
    venv.close()


def test_numeric_infos_keep_only_what_reset_gave_numbers_for():
    """What TorchRL's PettingZooWrapper takes: infos with the keys and kinds of reset's."""
    env = NumericInfos(mase.make_parallel("mase/Avalon-v0", obs_mode="vector", **AVALON))
    _, infos = env.reset(seed=0, options={"leader": "alpha"})
    assert {a: sorted(i) for a, i in infos.items()} == dict.fromkeys(
        env.possible_agents, ["acting"]
    )
    seen = set()
    while env.agents:
        # the leader names no team: an invalid action, whose reason is text in the task's infos
        _, _, _, _, infos = env.step(dict.fromkeys(env.agents, 10**6))
        seen |= {k for i in infos.values() for k in i}
        assert all(type(v) is bool for i in infos.values() for v in i.values())
    assert seen == {"acting"} and env.unwrapped.invalid_actions > 0
    assert env.unwrapped.metrics()["ended_by"]  # the metrics the infos dropped, from the task
    parallel_api_test(NumericInfos(mase.make_parallel("mase/Debate-v0")), num_cycles=20)
