"""Parameter-shared PPO from Stable-Baselines3, unchanged, on a MASE task.

Every seat is one slot of an SB3 vectorized env (:class:`~mase.baselines.sb3.vec.SeatsVecEnv`
over a batch of ``num_envs`` worlds from ``mase.make_vec``, the task's parallel view: one step
is a round), so one PPO network learns from and plays all seats: parameter sharing with SB3 as
it is. The single-agent gymnasium view would train one seat beside fixed teammates, which is
not parameter sharing. The vector view is used (SB3 takes no Text spaces), with the action
mask as an input feature (plain PPO has no masking: illegal actions are wasted turns that it
learns to avoid). In the parallel view every agent picks its action from the observation at
the start of the round; played through the AEC env afterwards, it sees its own turn's view.

Run: ``mase train sb3-ppo --env mase/SearchRescue-v0 --total-timesteps 1000000``
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import mase
from mase.agents.base import Policy
from mase.baselines.args import check_settings, check_tensorboard
from mase.layout import read_prefix


@dataclass
class Args:
    """Settings of an SB3 PPO run (each one is a command-line option)."""

    env: str = "mase/SearchRescue-v0"
    """task id"""
    env_kwargs: dict = field(default_factory=lambda: {"shaping": True, "wrong_cutter": "reject"})
    """task arguments (JSON); by default the paper's +1 for a correct cut, with wrong cutters
    rejected (the released code's rule), so its -1 for an explosion never fires; the paper's
    MAPPO setting is {"shaping": true, "wrong_cutter": "explode"}"""
    seed: int = 1
    """seed of SB3, torch, numpy and the envs"""
    total_timesteps: int = 500_000
    """agent turns to train for"""
    num_envs: int = 8
    """task copies (each gives one slot per seat)"""
    n_steps: int = 128
    """rollout length per slot"""
    batch_size: int = 768
    """PPO minibatch size"""
    n_epochs: int = 5
    """epochs per rollout"""
    learning_rate: float = 3e-4
    """Adam learning rate"""
    gamma: float = 0.99
    """discount per round"""
    ent_coef: float = 0.01
    """entropy bonus"""
    threads: int = 1
    """torch threads"""
    out: str = "runs/sb3_ppo"
    """output directory: the model (sb3_ppo.zip), args.json, progress.csv (and TensorBoard
    events)"""
    tensorboard: bool = False
    """also write SB3's log as TensorBoard events into out (SB3's own tensorboard output: its
    rollout/, train/ and time/fps values, at step time/total_timesteps; needs the tensorboard
    extra)"""

    def __post_init__(self) -> None:
        check_settings(
            self,
            positive=("total_timesteps", "num_envs", "n_steps", "batch_size", "n_epochs",
                      "learning_rate", "threads"),
            fractions=("gamma",),
        )  # fmt: skip
        check_tensorboard(self)


def make_vec_env(args: Args):
    """The SB3 VecEnv: every seat of ``num_envs`` worlds is one slot.

    World ``n`` is seeded ``args.seed + n``; later episodes continue its own generator.
    """
    from stable_baselines3.common.vec_env import VecMonitor

    from mase.baselines.sb3.vec import SeatsVecEnv

    batch = mase.make_vec(args.env, args.num_envs, **args.env_kwargs)
    venv = SeatsVecEnv(batch)
    venv.seed(args.seed)
    return VecMonitor(venv)  # episode returns and lengths (rounds) in SB3's log


def train(args: Args) -> Path:
    """Train and save ``sb3_ppo.zip`` under ``args.out``; returns its path."""
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.utils import set_random_seed

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "args.json").write_text(json.dumps(asdict(args), indent=2))
    torch.set_num_threads(args.threads)
    set_random_seed(args.seed)
    venv = make_vec_env(args)
    model = PPO(
        "MultiInputPolicy",
        venv,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        learning_rate=args.learning_rate,
        gamma=args.gamma,
        ent_coef=args.ent_coef,
        verbose=0,
    )
    # a logger of our own, for progress.csv; set_logger overrides PPO's tensorboard_log, so its
    # TensorBoard output is asked for here, as the logger's "tensorboard" format
    formats = ["csv", "stdout"] + (["tensorboard"] if args.tensorboard else [])
    model.set_logger(configure(str(out), formats))
    start = time.time()
    model.learn(total_timesteps=args.total_timesteps)
    path = out / "sb3_ppo.zip"
    model.save(path)
    (out / "train.json").write_text(
        json.dumps({"timesteps": args.total_timesteps, "wall_s": time.time() - start}, indent=2)
    )
    venv.close()
    return path


class SB3Policy(Policy):
    """A saved SB3 model playing a seat through ``env.step``.

    It samples from the model's action distribution with its own generator, seeded per
    episode by the runner, so records replay exactly; ``deterministic=True`` takes the most
    likely action instead, which can repeat itself into the env's deadlock rule.
    """

    def __init__(self, model: Any, deterministic: bool = False):
        self.model = model
        self.deterministic = deterministic
        self.rng = np.random.default_rng(0)

    @classmethod
    def load(cls, path: str | os.PathLike, deterministic: bool = False) -> SB3Policy:
        """Load a model saved by ``mase train sb3-ppo``."""
        from stable_baselines3 import PPO

        try:
            model = PPO.load(path, device="cpu")
        except FileNotFoundError:
            raise
        except Exception as exc:  # a zip of something else, a damaged file
            raise ValueError(f"{path} is not an SB3 PPO model ({type(exc).__name__})") from None
        return cls(model, deterministic)

    def reset(self, agent: str, env: Any, seed: int | None = None) -> None:
        """Remember the seat; reseed the sampler when the runner gives a seed."""
        super().reset(agent, env, seed)
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: Any, info: dict) -> int:
        """The model's action for this turn's vector observation and mask.

        A vector longer than the model's is read by its prefix (:func:`mase.layout.read_prefix`).
        """
        import torch

        vector = observation.get("observation")
        if vector is None:
            vector = self.env.unwrapped.observe_vector(self.agent)
        width = self.model.observation_space["observation"].shape[-1]
        vector = read_prefix(self.env, self.agent, vector, width)
        obs = {"observation": vector, "action_mask": observation["action_mask"]}
        tensor, _ = self.model.policy.obs_to_tensor(obs)
        with torch.no_grad():
            probs = self.model.policy.get_distribution(tensor).distribution.probs[0].numpy()
        if self.deterministic:
            return int(probs.argmax())
        return int(self.rng.choice(len(probs), p=probs / probs.sum()))
