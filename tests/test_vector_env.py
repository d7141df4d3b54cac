"""The Gymnasium ``VectorEnv`` door on a batch, judged against Gymnasium's own vector env."""

import doctest

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv

import mase
import mase.vector_env
from mase.actions import UsageError
from mase.agents import Policy
from mase.vector_env import BatchVectorEnv

TASK = "mase/SearchRescue-v0"
KWARGS = {"max_cycles": 6}  # short episodes: many ends, truncations among them


class LastLegal(Policy):
    """A teammate that takes its last legal action: a cutter where a bomb is, so it scores
    at once now and then (the array policy's twin)."""

    def act(self, observation, info):
        mask = observation["action_mask"]
        return len(mask) - 1 - int(np.argmax(mask[::-1]))


def last_legal(obs, mask, seats):
    return mask.shape[1] - 1 - mask[:, ::-1].argmax(axis=1)


def moves(rng, mask):
    """Legal moves mostly, illegal ones sometimes: the same for both envs."""
    legal = (rng.random(mask.shape) * mask).argmax(axis=1)
    return np.where(rng.random(len(mask)) < 0.2, rng.integers(-1, mask.shape[1] + 1), legal)


@pytest.mark.parametrize("backend", ["native", "aec"])
def test_one_seat_door_is_gymnasiums_same_step_sync_vector_env_of_the_single_agent_view(backend):
    """A seat learning beside array teammates is, step for step, Gymnasium's SyncVectorEnv
    (same-step autoreset) over ``gymnasium.make(id, agent=...)`` with the same teammates:
    observations, rewards, ends, final observations and final infos."""
    N = 4
    door = mase.vector_env.make(TASK, N, agent="bravo", teammates=last_legal, backend=backend,
                                **KWARGS)  # fmt: skip
    assert door.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    reference = SyncVectorEnv(
        [
            lambda: gymnasium.make(
                TASK, agent="bravo", teammates=LastLegal(), messages=False, **KWARGS
            )  # fmt: skip
            for _ in range(N)
        ],
        autoreset_mode=AutoresetMode.SAME_STEP,
    )
    assert door.single_observation_space == reference.single_observation_space
    assert door.single_action_space == reference.single_action_space
    got, info = door.reset(seed=5)
    want, _ = reference.reset(seed=5)
    assert info == {} and door.observation_space.contains(got)
    rng = np.random.default_rng(0)
    ends = truncations = 0
    for _ in range(120):
        for key in ("observation", "action_mask"):
            assert np.array_equal(got[key], want[key]), key
        actions = moves(rng, got["action_mask"])
        got, r, term, trunc, infos = door.step(actions)
        want, r_ref, term_ref, trunc_ref, infos_ref = reference.step(actions)
        assert r.dtype == np.float32 and term.dtype == trunc.dtype == bool
        assert np.allclose(r, r_ref) and (term == term_ref).all() and (trunc == trunc_ref).all()
        ended = term | trunc
        assert (infos.get("_final_obs", np.zeros(N, bool)) == ended).all()
        for n in np.flatnonzero(ended):
            final, final_ref = infos["final_obs"][n], infos_ref["final_obs"][n]
            assert all(np.array_equal(final[k], final_ref[k]) for k in final_ref)
            metrics, metrics_ref = (
                {k: v[n] for k, v in found["final_info"]["metrics"].items() if k[0] != "_"}
                for found in (infos, infos_ref)
            )
            assert metrics == metrics_ref and metrics["rounds"] >= 1
        ends += ended.sum()
        truncations += trunc.sum()
    assert ends >= 2 * N and truncations >= N


def test_self_play_door_makes_every_decision_of_every_world_a_step():
    """With no agent, each step is the acting seat's decision in each world (seat after seat);
    its reward is the team's (the mean of the seats' rewards), an ended world shows its next
    episode and the final view is the next seat's, as the AEC env gives them."""
    N = 3
    door = mase.vector_env.make(TASK, N, **KWARGS)
    envs = [mase.make(TASK, obs_mode="vector", **KWARGS) for _ in range(N)]
    got, _ = door.reset(seed=2)
    for n, env in enumerate(envs):
        env.reset(seed=2 + n)
    rng = np.random.default_rng(1)
    ends = 0
    for _ in range(100):
        views = [env.observe(env.agent_selection) for env in envs]
        assert np.array_equal(got["observation"], np.stack([v["observation"] for v in views]))
        assert np.array_equal(got["action_mask"], np.stack([v["action_mask"] for v in views]))
        assert np.array_equal(door.action_masks(), got["action_mask"].astype(bool))
        actions = moves(rng, got["action_mask"])
        got, rewards, term, trunc, infos = door.step(actions)
        for n, env in enumerate(envs):
            seat = env.agent_selection
            env.step(int(actions[n]))
            team = [env.rewards[a] for a in env.possible_agents]
            assert rewards[n] == pytest.approx(np.mean(team))
            assert term[n] == all(env.terminations.values())
            assert trunc[n] == (all(env.truncations.values()) and not term[n])
            if term[n] or trunc[n]:
                ends += 1
                following = env.possible_agents[(env.possible_agents.index(seat) + 1) % 3]
                final = infos["final_obs"][n]
                assert np.array_equal(final["observation"], env.observe(following)["observation"])
                assert not final["action_mask"].any()  # no one acts in an ended episode
                metrics = env.infos[seat]["metrics"]
                assert infos["final_info"]["metrics"]["turns"][n] == metrics["turns"]
                env.reset()
    assert ends >= N


def test_the_door_says_what_it_cannot_do():
    avalon = mase.make_vec("mase/Avalon-v0", 2)
    with pytest.raises(UsageError, match="sides") as refused:
        BatchVectorEnv(avalon)
    # its advice is one that works here: a seat of a phased task learns through the AEC view
    assert "pass agent=SEAT" not in str(refused.value)
    assert "gymnasium.make(id, agent=SEAT)" in str(refused.value)
    with pytest.raises(UsageError, match="phases"):
        BatchVectorEnv(avalon, agent="alpha")
    batch = mase.make_vec(TASK, 2)
    with pytest.raises(UsageError, match="agent must be one of"):
        BatchVectorEnv(batch, agent="zulu")
    with pytest.raises(UsageError, match="teammates must be"):
        BatchVectorEnv(batch, agent="alpha", teammates="scripted")
    door = BatchVectorEnv(batch)
    with pytest.raises(UsageError, match="reset options"):
        door.reset(options={"game": 1})
    with pytest.raises(mase.actions.ResetNeeded):
        door.step(np.zeros(2, dtype=np.int64))


def test_the_docstring_examples_run():
    from mase.baselines.sb3 import vec

    for module in (mase.vector_env, vec):
        result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert result.attempted > 0 and result.failed == 0, module.__name__
