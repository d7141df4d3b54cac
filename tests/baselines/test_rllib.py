"""RLlib's PPO trains on a MASE task's vector view (``examples/rllib_ppo.py``): a smoke run."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

import ray  # noqa: E402
import torch  # noqa: E402

import mase  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rllib_ppo.py"


def load_example():
    spec = importlib.util.spec_from_file_location("rllib_ppo", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ppo_trains_a_shared_policy_for_every_seat_and_it_acts():
    example = load_example()
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        algo = example.config(small=True).build_algo()
        try:
            for _ in range(2):
                result = algo.train()
            runners = result["env_runners"]
            assert runners["num_env_steps_sampled_lifetime"] == 600  # 2 iterations of 300 turns
            assert runners["num_episodes_lifetime"] >= 1  # episodes ended, returns were counted
            assert np.isfinite(runners["episode_return_mean"])
            # the shared policy reads a seat's flattened view (the vector, then the mask)
            module = algo.get_module("shared")
            env = mase.make("mase/SearchRescue-v0", obs_mode="vector")
            env.reset(seed=0)
            view = env.observe(env.agent_selection)
            flat = np.concatenate([view["action_mask"], view["observation"]]).astype(np.float32)
            out = module.forward_inference({"obs": torch.as_tensor(flat[None])})
            assert out["action_dist_inputs"].shape == (1, env.action_space("alpha").n)
        finally:
            algo.stop()
    finally:
        ray.shutdown()
