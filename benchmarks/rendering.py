"""Milliseconds of one ``render_mode="rgb_array"`` frame, per task: its scene drawn as pixels.

Each task plays one scripted episode (random seats where a task has no scripted policy; seed
0); the frame timed is the episode's last, the fullest page. One untimed frame first warms the
glyph cache; then the median of ``--repeats`` frames, wall clock and CPU time of this process
(on a shared machine the CPU time is the steadier figure).

Goal: every task's frame in well under 100 ms, so a video recorder or ``render_test`` barely
notices it.

Run: python benchmarks/rendering.py [--repeats 15] [--tasks SearchRescue-v0,Avalon-v0]
"""

import argparse
import statistics
import time

import mase
from mase.agents import make_policy


def last_frame_env(env_id: str):
    """``env_id`` at the end of a seeded scripted episode, rendering ``rgb_array``."""
    env = mase.make(env_id, render_mode="rgb_array")
    env.reset(seed=0)
    kind = "scripted" if env.unwrapped.scripted_policy else "random"
    team = {seat: make_policy(kind, env) for seat in env.possible_agents}
    for seat, policy in team.items():
        policy.reset(seat, env, seed=0)
    for agent in env.agent_iter(1000):
        obs, _, terminated, truncated, info = env.last()
        env.step(None if terminated or truncated else team[agent].act(obs, info))
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--tasks", default="", help="comma-separated ids without 'mase/'")
    args = parser.parse_args()
    ids = [f"mase/{t}" for t in args.tasks.split(",") if t] or mase.list_envs("mase")
    print(f"{'task':28s} {'frame':>11s} {'wall ms':>8s} {'cpu ms':>7s}")
    for env_id in ids:
        env = last_frame_env(env_id)
        frame = env.render()
        wall, cpu = [], []
        for _ in range(args.repeats):
            t, c = time.perf_counter(), time.process_time()
            env.render()
            wall.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
        size = f"{frame.shape[1]}x{frame.shape[0]}"
        print(f"{env_id:28s} {size:>11s} {1000 * statistics.median(wall):8.1f} "
              f"{1000 * statistics.median(cpu):7.1f}")  # fmt: skip


if __name__ == "__main__":
    main()
