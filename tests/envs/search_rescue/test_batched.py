"""Search and rescue in arrays plays exactly as the AEC env (``mase.make_vec``).

The batch is stepped beside N AEC envs (:class:`mase.batch.AECBatch`) with the same seeds and
actions under every rule option and instance kind; every observation, mask, state, reward, end
and metric must agree, and the actions must reach every way an episode can end.
"""

import numpy as np
import pytest

import mase
from mase.batch import AECBatch, check_batch
from mase.envs.search_rescue.batched import BatchedSearchRescue

ID = "mase/SearchRescue-v0"


def teamwork(batch, obs, mask, rng):
    """Per world: cut the right colour when the seat holds it, else a random move or cut.

    Reads the batch's hidden arrays (a test's oracle), so episodes end in defusal as well as
    by the limits; a third of the worlds try random cutters, which explode bombs under
    ``wrong_cutter="explode"``.
    """
    n = np.arange(batch.num_envs)
    s = batch.seat
    room = batch.pos[:, s]
    bomb_id = batch.room_bomb[n, room]
    b = np.maximum(bomb_id - 1, 0)
    colour = batch.seq[n, b, np.minimum(batch.cut[n, b], batch.P - 1)]
    right = 1 + batch.R + np.maximum(colour, 0)
    can = (mask[:, 0] == 1) & batch.owns[s, np.maximum(colour, 0)]
    legal = (rng.random(mask.shape) * mask).argmax(axis=1)
    any_cutter = 1 + batch.R + rng.integers(batch.C, size=batch.num_envs)
    reckless = (n % 3 == 0) & (mask[:, 0] == 1) & (rng.random(batch.num_envs) < 0.5)
    return np.where(can & ~reckless, right, np.where(reckless, any_cutter, legal))


VARIANTS = {
    "paper": {},
    "explode and shaping": {"wrong_cutter": "explode", "shaping": True},
    "bomb credit, random graphs": {"credit": "bomb", "layout": "random"},
    "teammates unseen": {"see_teammates": False},
    "procedural 7 rooms, 4 agents": {"n_rooms": 7, "n_bombs": 6, "n_agents": 4, "n_colours": 4},
    "short, deadlock after 2": {"max_cycles": 8, "deadlock_rounds": 2},
    "no deadlock rule": {"deadlock_rounds": 0, "max_cycles": 12},
}


@pytest.mark.parametrize("kwargs", VARIANTS.values(), ids=VARIANTS.keys())
def test_the_batch_plays_as_the_aec_env_under_any_actions(kwargs):
    endings = check_batch(ID, num_envs=6, steps=1200, seed=3, **kwargs)
    assert sum(endings.values()) > 20
    assert "round_limit" in endings or "deadlock" in endings


@pytest.mark.parametrize("kwargs", VARIANTS.values(), ids=VARIANTS.keys())
def test_the_batch_plays_as_the_aec_env_when_the_team_cuts(kwargs):
    endings = check_batch(ID, num_envs=6, steps=900, seed=5, policy=teamwork, **kwargs)
    assert endings.get("defused", 0) > 0
    if kwargs.get("wrong_cutter") == "explode":
        assert endings.get("exploded", 0) > 0


def test_every_ending_is_reached_and_counted():
    endings = check_batch(ID, num_envs=8, steps=1500, seed=1, max_cycles=10, deadlock_rounds=2)
    endings2 = check_batch(ID, num_envs=8, steps=900, seed=2, policy=teamwork,
                           wrong_cutter="explode")  # fmt: skip
    assert {"deadlock", "round_limit"} <= set(endings)
    assert {"defused", "exploded"} <= set(endings2)


def test_a_world_that_ends_starts_its_next_episode_from_its_own_generator():
    # world n seeded s + n plays the AEC env seeded s + n, then its unseeded reset()s
    batch = mase.make_vec(ID, 3, max_cycles=2)
    batch.reset(seed=10)
    envs = [mase.make(ID, obs_mode="vector", max_cycles=2) for _ in range(3)]
    for n, env in enumerate(envs):
        env.reset(seed=10 + n)
    for _episode in range(3):
        for n, env in enumerate(envs):
            assert np.array_equal(batch.state()[n], env.state())
        for _turn in range(2 * 3):
            _, mask = batch.observe()
            actions = mask.argmax(axis=1)
            result = batch.step(actions)
            for n, env in enumerate(envs):
                env.step(int(actions[n]))
        assert result.truncated.all() and all(m["rounds"] == 2 for m in result.metrics.values())
        for env in envs:
            env.reset()


def test_the_native_batch_is_what_make_vec_gives():
    assert isinstance(mase.make_vec(ID, 2), BatchedSearchRescue)
    assert isinstance(mase.make_vec(ID, 2, backend="aec"), AECBatch)


def test_witnessing_has_no_array_form_and_says_so():
    with pytest.raises(ValueError, match="witness=True.*backend='aec'"):
        mase.make_vec(ID, 2, witness=True)
    mase.make_vec(ID, 2, witness=True, backend="aec").reset(seed=0)  # the AEC batch takes it


def test_bad_arguments_are_the_tasks_own_errors():
    with pytest.raises(ValueError, match="layout must be"):
        mase.make_vec(ID, 2, layout="maze")
    with pytest.raises(mase.UnknownArgumentError):
        mase.make_vec(ID, 2, rooms=4)
    with pytest.raises(ValueError, match="num_envs"):
        mase.make_vec(ID, 0)
    with pytest.raises(ValueError, match="backend"):
        mase.make_vec(ID, 2, backend="gpu")


@pytest.mark.parametrize("backend", ["native", "aec"])
def test_misuse_is_a_clear_error(backend):
    batch = mase.make_vec(ID, 4, backend=backend)
    with pytest.raises(RuntimeError, match="reset"):
        batch.observe()
    batch.reset(seed=0)
    with pytest.raises(ValueError, match="shape"):
        batch.step(np.zeros(3, dtype=int))
