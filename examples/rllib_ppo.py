"""RLlib's PPO on a MASE task's vector view, through RLlib's own PettingZoo wrapper.

Every seat maps to one shared policy (parameter sharing). The AEC env is built with
``obs_mode="vector"``; its Dict observation (the vector and the action mask) is flattened by
RLlib's ``FlattenObservations`` connector, so the mask is an input feature, as in the SB3
baseline (plain PPO does not mask: an illegal index is a wasted turn it learns to avoid).

Needs the ``rllib`` extra (``pip install 'mase-suite[rllib]'``), which pins gymnasium 1.2.2.

Run: python examples/rllib_ppo.py [--iterations 5] [--env mase/SearchRescue-v0] [--quick]

``--quick`` is a smoke run: one iteration of a few hundred turns (the examples' test uses it).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def config(env_id: str = "mase/SearchRescue-v0", seed: int = 0, small: bool = False) -> Any:
    """The PPO config: one shared policy for every seat of ``env_id``.

    Episodes are sampled in the driver process (no remote env runners: on a small machine
    they only add processes); ``small`` makes each iteration a few hundred turns (a smoke run).
    """
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.connectors.env_to_module import FlattenObservations
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.tune.registry import register_env

    import mase

    name = env_id.replace("/", "_")
    register_env(name, lambda _: PettingZooEnv(mase.make(env_id, obs_mode="vector")))
    cfg = (
        PPOConfig()
        .environment(name)
        .env_runners(
            num_env_runners=0,
            env_to_module_connector=lambda env, spaces=None, device=None: FlattenObservations(
                multi_agent=True
            ),
        )
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent, *a, **k: "shared")
        .debugging(seed=seed)
    )
    if small:
        cfg = cfg.training(train_batch_size_per_learner=300, minibatch_size=100, num_epochs=2)
    return cfg


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="mase/SearchRescue-v0", help="a MASE task id")
    parser.add_argument("--iterations", type=int, default=5, help="training iterations")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a smoke run: one iteration of a few hundred turns (overrides --iterations)",
    )
    args = parser.parse_args()
    try:
        import ray
        import ray.rllib  # noqa: F401
    except ImportError:
        sys.exit("this example needs RLlib: pip install 'mase-suite[rllib]'")

    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    algo = config(args.env, args.seed, small=args.quick).build_algo()
    try:
        for i in range(1, (1 if args.quick else args.iterations) + 1):
            result = algo.train()
            runners = result["env_runners"]
            print(
                f"iteration {i}: {int(runners['num_env_steps_sampled_lifetime']):,} turns, "
                f"episode return {runners.get('episode_return_mean', float('nan')):.1f}",
                flush=True,
            )
    finally:
        algo.stop()
        ray.shutdown()


if __name__ == "__main__":
    main()
