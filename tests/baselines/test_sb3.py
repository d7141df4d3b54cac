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


def test_the_batch_vec_env_is_the_vector_door_in_sb3s_terms():
    """Slot n is world n; an ended episode's slot is done with its last view as
    ``terminal_observation``, ``TimeLimit.truncated`` for a limit, and its metrics."""
    from mase.baselines.sb3.vec import BatchVecEnv
    from mase.vector_env import make

    N, kwargs = 4, {"max_cycles": 5}
    venv = BatchVecEnv.make(ENV, N, **kwargs)
    door = make(ENV, N, **kwargs)
    assert venv.seed(3) == [3, 4, 5, 6]
    got = venv.reset()
    want, _ = door.reset(seed=3)
    assert venv.get_attr("render_mode") == [None] * N and venv.env_is_wrapped(object) == [False] * N
    rng = np.random.default_rng(0)
    truncated = 0
    for _ in range(60):
        assert all(np.array_equal(got[k], want[k]) for k in want)
        masks = np.stack(venv.env_method("action_masks"))
        assert np.array_equal(masks, want["action_mask"].astype(bool))
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        venv.step_async(actions)
        got, rewards, dones, infos = venv.step_wait()
        want, r, term, trunc, found = door.step(actions)
        assert np.array_equal(rewards, r) and np.array_equal(dones, term | trunc)
        for n in np.flatnonzero(dones):
            final = found["final_obs"][n]
            assert all(np.array_equal(infos[n]["terminal_observation"][k], final[k]) for k in final)
            assert infos[n]["TimeLimit.truncated"] == bool(trunc[n] and not term[n])
            assert infos[n]["metrics"]["rounds"] == found["final_info"]["metrics"]["rounds"][n]
            truncated += infos[n]["TimeLimit.truncated"]
        assert all(not info for n, info in enumerate(infos) if not dones[n])
    assert truncated >= N


@pytest.mark.parametrize("agent", [None, "bravo"])
def test_ppo_and_maskable_ppo_train_on_the_native_batch(agent, tmp_path):
    """Self-play (every decision a step) and one seat beside random teammates."""
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3 import PPO
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.vec_env import VecMonitor

    from mase.baselines.sb3.vec import BatchVecEnv

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        venv = VecMonitor(BatchVecEnv.make(ENV, 8, agent=agent, backend="native"))
        assert type(venv.venv.door.batch).__name__ == "BatchedSearchRescue"
        settings = {"n_steps": 64, "batch_size": 256, "n_epochs": 1, "seed": 0, "device": "cpu"}
        for algorithm in (PPO, MaskablePPO):
            model = algorithm("MultiInputPolicy", venv, **settings)
            model.set_logger(configure(str(tmp_path), []))
            model.learn(2_048)
            assert model.num_timesteps >= 2_048 and len(model.ep_info_buffer) > 0
        obs = venv.reset()
        actions, _ = model.predict(obs, action_masks=get_action_masks(venv))
        assert obs["action_mask"][np.arange(8), actions].all()  # masked: legal moves only
    finally:
        torch.set_num_threads(threads)
