"""Avalon in arrays plays exactly as the AEC env (``mase.make_vec``).

The batch is stepped beside N AEC envs (:class:`mase.batch.AECBatch`) with the same seeds and
actions under every rule option and role set; every observation, mask, state, reward, end and
metric must agree, and the actions must reach every way a game can end.
"""

import numpy as np
import pytest

import mase
from mase.batch import AECBatch, check_batch
from mase.envs.avalon.batched import BatchedAvalon
from mase.envs.avalon.vector import PHASES

ID = "mase/Avalon-v0"
PROPOSE, VOTE, QUEST = (PHASES.index(p) for p in ("propose", "vote", "quest"))


def sides(batch, obs, mask, rng):
    """Per game: each side plays its part, read from the batch's hidden arrays (an oracle).

    Good leaders put up a team without evil and good players approve only such teams; evil
    leaders put up a team with evil, evil players approve only those and fail every quest.
    The Assassin and the Lady's holder pick at random, and a third of the games play random
    legal moves throughout, so that every ending comes up.
    """
    n = np.arange(batch.num_envs)
    seat, stage = batch.acting, batch.stage
    evil = batch.evil[n, seat]
    quest = np.minimum(batch.quest, 4)
    teams = batch.teams[quest]  # [N, teams, seats]
    exists = np.arange(teams.shape[1])[None, :] < batch.n_teams[quest][:, None]
    dirty = (teams & batch.evil[:, None, :]).any(axis=2)
    team = np.where(evil, (dirty & exists).argmax(axis=1), (~dirty & exists).argmax(axis=1))
    vote = (evil != batch.team_clean).astype(int)
    legal = (rng.random(mask.shape) * mask).argmax(axis=1)
    part = np.select([stage == PROPOSE, stage == VOTE, stage == QUEST], [team, vote, evil], legal)
    return np.where(n % 3 == 0, legal, part)


NO_ASSASSIN = ("Merlin", "Loyal Servant", "Loyal Servant", "Minion of Mordred", "Minion of Mordred")
HIDDEN_EVIL = ("Merlin", "Percival", "Loyal Servant", "Loyal Servant", "Loyal Servant", "Mordred",
               "Oberon", "Assassin")  # fmt: skip
VARIANTS = {
    "official-5 (default)": {},
    "avalonbench-5 preset": {"roles": "avalonbench-5", "fifth_proposal": "forced"},
    "avalonplay-7 preset": {"roles": "avalonplay-7", "fifth_proposal": "forced"},
    "6 players, no discussion": {"n_players": 6, "discussion": 0},
    "7 players, the Lady": {"n_players": 7, "lady_of_the_lake": True},
    "10 players, the Lady, 2 passes, forced": dict(
        n_players=10, lady_of_the_lake=True, discussion=2, fifth_proposal="forced"
    ),
    "no Assassin": {"roles": NO_ASSASSIN},
    "Percival without Morgana, Mordred, Oberon": {"roles": HIDDEN_EVIL},
    "quest reward, 4 rounds": {"quest_reward": 0.25, "max_cycles": 4},
}


@pytest.mark.parametrize("kwargs", VARIANTS.values(), ids=VARIANTS.keys())
def test_the_batch_plays_as_the_aec_env_under_any_actions(kwargs):
    endings = check_batch(ID, num_envs=6, steps=400, seed=3, **kwargs)
    assert sum(endings.values()) > 10


@pytest.mark.parametrize("kwargs", VARIANTS.values(), ids=VARIANTS.keys())
def test_the_batch_plays_as_the_aec_env_when_the_sides_play(kwargs):
    stages = set()

    def playing(batch, obs, mask, rng):
        stages.update(batch.stage.tolist())
        return sides(batch, obs, mask, rng)

    endings = check_batch(ID, num_envs=6, steps=300, seed=5, policy=playing, **kwargs)
    assert endings.get("assassin_missed", 0) + endings.get("three_successes", 0) > 0  # good won
    assert (PHASES.index("lady") in stages) == kwargs.get("lady_of_the_lake", False)


def test_every_ending_is_reached_and_counted():
    endings = check_batch(ID, num_envs=8, steps=400, seed=1, max_cycles=4)
    endings2 = check_batch(ID, num_envs=8, steps=300, seed=2, policy=sides, roles=NO_ASSASSIN)
    endings3 = check_batch(ID, num_envs=8, steps=300, seed=2, policy=sides)
    reached = set(endings) | set(endings2) | set(endings3)
    assert reached == {
        "three_fails", "five_rejections", "assassin_hit", "assassin_missed", "three_successes",
        "round_limit",
    }  # fmt: skip


def test_a_game_that_ends_deals_its_next_from_its_own_generator():
    # game n seeded s + n plays the AEC env seeded s + n, then its unseeded reset()s: always
    # action 0 (team 0, reject) ends every game at once, by five proposals of 1 + 5 decisions
    batch = mase.make_vec(ID, 3)
    batch.reset(seed=10)
    envs = [mase.make(ID, obs_mode="vector") for _ in range(3)]
    for n, env in enumerate(envs):
        env.reset(seed=10 + n)
    for _episode in range(4):
        for n, env in enumerate(envs):
            assert np.array_equal(batch.state()[n], env.state())
            assert batch.possible_agents[batch.acting[n]] == env.agent_selection
        evil = batch.evil.copy()
        for _decision in range(5 * (1 + 5)):
            result = batch.step(np.zeros(3, dtype=int))
        assert result.terminated.all()
        assert all(m["ended_by"] == "five_rejections" for m in result.metrics.values())
        assert np.array_equal(result.rewards, np.where(evil, 1.0, -1.0))
        for env in envs:
            env.reset()


def test_the_native_batch_is_what_make_vec_gives():
    assert isinstance(mase.make_vec(ID, 2), BatchedAvalon)
    assert isinstance(mase.make_vec(ID, 2, backend="aec"), AECBatch)


def test_bad_arguments_are_the_tasks_own_errors():
    with pytest.raises(ValueError, match="unknown role set"):
        mase.make_vec(ID, 2, roles="avalon-99")
    with pytest.raises(ValueError, match="Lady of the Lake is for 7 or more"):
        mase.make_vec(ID, 2, lady_of_the_lake=True)
    with pytest.raises(ValueError, match="fifth_proposal"):
        mase.make_vec(ID, 2, fifth_proposal="never")
    with pytest.raises(mase.UnknownArgumentError):
        mase.make_vec(ID, 2, players=5)
    with pytest.raises(ValueError, match="num_envs"):
        mase.make_vec(ID, 0)


@pytest.mark.parametrize("backend", ["native", "aec"])
def test_misuse_is_a_clear_error(backend):
    batch = mase.make_vec(ID, 4, backend=backend)
    with pytest.raises(RuntimeError, match="reset"):
        batch.observe()
    with pytest.raises(RuntimeError, match="reset"):
        batch.step(np.zeros(4, dtype=int))
    batch.reset(seed=0)
    with pytest.raises(ValueError, match="shape"):
        batch.step(np.zeros(3, dtype=int))
