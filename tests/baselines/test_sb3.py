import numpy as np
import pytest

import mase
from mase.agents import make_policy

pytest.importorskip("stable_baselines3")

from mase.baselines.sb3 import Args, SB3Policy, train  # noqa: E402

ENV = "mase/SearchRescue-v0"


def test_training_smoke_run_saves_a_model_that_plays(tmp_path):
    args = Args(
        total_timesteps=2 * 2 * 3 * 32,
        num_envs=2,
        n_steps=32,
        batch_size=64,
        n_epochs=1,
        out=str(tmp_path),
    )
    path = train(args)
    assert path.exists() and (tmp_path / "progress.csv").exists()
    policy = SB3Policy.load(path)
    env = mase.make(ENV)
    record = mase.run_episode(env, dict.fromkeys(env.possible_agents, policy), seed=0)
    assert record["metrics"]["rounds"] >= 1


def test_shipped_model_plays_every_seat():
    env = mase.make(ENV, obs_mode="vector")
    policy = make_policy("sb3-ppo", env)
    record = mase.run_episode(env, dict.fromkeys(env.possible_agents, policy), seed=3)
    assert record["metrics"]["turns"] == 3 * record["metrics"]["rounds"]


def test_the_seats_vec_env_is_the_parallel_view_slot_for_slot():
    """Slot n * A + a is seat a of world n; a step is a round of PettingZoo's parallel view
    (every seat sees the round's end; its reward is the round's sum); an ended world is done in
    all its slots and already in its next episode, drawn from its own generator."""
    from mase.baselines.sb3.vec import SeatsVecEnv

    N, kwargs = 3, {"max_cycles": 6}
    venv = SeatsVecEnv(mase.make_vec(ENV, N, **kwargs))
    venv.seed(11)
    got = venv.reset()
    envs = [mase.make_parallel(ENV, obs_mode="vector", **kwargs) for _ in range(N)]
    agents = envs[0].possible_agents
    views = [env.reset(seed=11 + n)[0] for n, env in enumerate(envs)]
    rng = np.random.default_rng(0)
    ended = 0
    for _round in range(40):
        want = [views[n][a] for n in range(N) for a in agents]
        assert np.array_equal(got["observation"], np.stack([w["observation"] for w in want]))
        assert np.array_equal(got["action_mask"], np.stack([w["action_mask"] for w in want]))
        actions = (rng.random(got["action_mask"].shape) * got["action_mask"]).argmax(axis=1)
        venv.step_async(actions)
        got, rewards, dones, infos = venv.step_wait()
        for n, env in enumerate(envs):
            views[n], r, term, trunc, _ = env.step(
                {a: int(actions[n * len(agents) + i]) for i, a in enumerate(agents)}
            )
            assert [r[a] for a in agents] == list(rewards[n * len(agents) :][: len(agents)])
            done = all(term.values()) or all(trunc.values())
            assert all(dones[n * len(agents) :][: len(agents)] == done)
            if done:
                ended += 1
                assert "metrics" in infos[n * len(agents)]
                views[n] = env.reset()[0]
    assert ended >= N * 5
