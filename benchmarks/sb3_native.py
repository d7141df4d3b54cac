"""Turns per second of SB3 PPO collecting rollouts on a native batch beside ``make_vec_env``.

Contenders, all on search and rescue's vector view with N worlds (8, then 64), SB3's ``PPO``
with the same settings (``MultiInputPolicy``, one torch thread), timed over its rollout
collection only (``collect_rollouts``: the policy's forward pass and the env steps; the PPO
update is not timed):

- ``make_vec_env``: SB3's ``make_vec_env("mase/SearchRescue-v0", n_envs=N)``, a DummyVecEnv of
  N single-agent gymnasium views (``gymnasium.make``: alpha learns, random teammates), the
  reference;
- ``make_vec_env, scripted``: the same with the view's default teammates (the scripted bots);
- ``native, one seat``: :class:`mase.baselines.sb3.vec.BatchVecEnv` on the native batch, alpha
  learning beside random array teammates (the same game as the reference);
- ``native, self-play``: the same batch, every decision a learner step.

A turn is a decision of any seat: a step of a one-seat contender is the learner's decision and
its two teammates' (3 turns a world), a self-play step is one turn a world. Each figure is the
median of repeats interleaved across contenders (a busy moment of a shared machine hits all
alike); each ratio is the median of the ratios within a repeat. Every contender collects the
same number of learner steps (``--steps``) in ``--rollouts`` rollouts, so ``n_steps`` is
``steps / (N * rollouts)``.

Run: python benchmarks/sb3_native.py [--num-envs 8 64] [--steps 3072] [--repeats 3]
"""

import argparse
import statistics
import time

import torch
from stable_baselines3 import PPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.logger import configure

import mase  # noqa: F401  (registers the tasks with gymnasium)
from mase.baselines.sb3.vec import BatchVecEnv

TASK = "mase/SearchRescue-v0"
SEATS = 3


class RolloutClock(BaseCallback):
    """The seconds SB3 spends collecting rollouts (policy forward passes and env steps)."""

    def __init__(self):
        super().__init__()
        self.seconds = 0.0
        self._start = 0.0

    def _on_rollout_start(self) -> None:
        self._start = time.perf_counter()

    def _on_rollout_end(self) -> None:
        self.seconds += time.perf_counter() - self._start

    def _on_step(self) -> bool:
        return True


CONTENDERS = {
    "make_vec_env": (lambda n: make_vec_env(TASK, n, env_kwargs={"teammates": "random"}), SEATS),
    "make_vec_env, scripted": (lambda n: make_vec_env(TASK, n), SEATS),
    "native, one seat": (lambda n: BatchVecEnv.make(TASK, n, agent="alpha"), SEATS),
    "native, self-play": (lambda n: BatchVecEnv.make(TASK, n), 1),
}


def turns_per_second(name: str, num_envs: int, n_steps: int, rollouts: int) -> float:
    """Turns/s of PPO's rollout collection on contender ``name``."""
    build, turns_per_step = CONTENDERS[name]
    venv = build(num_envs)
    model = PPO("MultiInputPolicy", venv, n_steps=n_steps, batch_size=n_steps * num_envs,
                n_epochs=1, seed=0, device="cpu")  # fmt: skip
    model.set_logger(configure(None, []))
    clock = RolloutClock()
    model.learn(n_steps * num_envs * rollouts, callback=clock)
    venv.close()
    return n_steps * num_envs * rollouts * turns_per_step / clock.seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--num-envs", type=int, nargs="+", default=[8, 64])
    parser.add_argument("--steps", type=int, default=3072)
    parser.add_argument("--rollouts", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(1)
    for num_envs in args.num_envs:
        n_steps = max(1, args.steps // (num_envs * args.rollouts))
        runs: dict[str, list[float]] = {name: [] for name in CONTENDERS}
        for _ in range(args.repeats):
            for name in CONTENDERS:
                runs[name].append(turns_per_second(name, num_envs, n_steps, args.rollouts))
        reference = runs["make_vec_env"]
        print(f"SB3 PPO rollouts on {TASK}, N = {num_envs} worlds, n_steps = {n_steps}, "
              f"{args.rollouts} rollouts, median of {args.repeats}")  # fmt: skip
        print(f"{'contender':<24} {'turns/s':>10} {'x make_vec_env':>15}")
        for name, figures in runs.items():
            ratio = statistics.median(f / r for f, r in zip(figures, reference, strict=True))
            print(f"{name:<24} {statistics.median(figures):>10,.0f} {ratio:>14.1f}x")
        print()


if __name__ == "__main__":
    main()
