"""MAPPO on the crafting world: throughput, the trained team's quality, and its time to quality.

Every figure is printed beside its reference, measured in the same run: the scripted team
(``--team scripted``: it splits the recipe tree and hands the parts to one assembler) on the
same seeds.

1. Throughput: ``mase.make_vec("mase/Craft-v0")`` (a loop over AEC envs: Craft has no native
   batch) stepped with random legal actions, and a short MAPPO run's rollout and overall agent
   turns per second.
2. Quality: the shipped checkpoint (``--team mappo``) and the scripted team over the same
   seeded episodes of the task's default rules: the share of episodes that make the goal
   (with its 95% Wilson interval) and mean rounds. The goal: at least 95% of episodes, mean
   rounds within 20% of the scripted team's.
3. With --time-to-quality: the shipped checkpoint's training
   (:data:`mase.envs.craft.policies.TRAINING_COMMAND`), then its kept checkpoints evaluated
   in order (from the first whose training statistics come near the goal) until one meets
   it: the training wall-clock and agent turns it took. With --from-run DIR the same search
   over a run already made with that command (its ``metrics.csv`` gives the wall-clock).

Run: python benchmarks/craft_training.py [--updates 5] [--episodes 200] [--time-to-quality]
[--from-run DIR]
"""

import argparse
import csv
import os
import tempfile
import time
from pathlib import Path

import numpy as np

import mase
from mase.baselines.mappo import Args, MAPPOPolicy, train
from mase.envs.craft.policies import TRAINING_COMMAND, checkpoint

ENV_ID = "mase/Craft-v0"
#: Evaluation seeds start here (the training's envs are seeded from 1).
EVAL_SEED = 10_000
#: The quality goal: share of episodes that make the goal, and rounds against the scripted team.
GOAL_RATE, ROUNDS_MARGIN = 0.95, 1.2


def training_args(out: str) -> Args:
    """The settings of :data:`TRAINING_COMMAND` (the shipped checkpoint's training)."""
    return Args(
        env=ENV_ID, env_kwargs={"shaping": True}, total_timesteps=1_998_848, seed=1,
        keep_checkpoints=True, checkpoint_every=10, threads=1, out=out,
    )  # fmt: skip


def random_turns_per_second(num_envs: int = 32, steps: int = 200) -> float:
    """``mase.make_vec`` stepped with random legal actions (with the state, as a trainer asks)."""
    batch = mase.make_vec(ENV_ID, num_envs)
    batch.reset(seed=0)
    rng = np.random.default_rng(0)
    start = time.perf_counter()
    for _ in range(steps):
        _, mask = batch.observe()
        batch.state()
        noise = rng.random(mask.shape) * mask
        batch.step(noise.argmax(axis=1))
    return steps * num_envs / (time.perf_counter() - start)


def evaluate(team, episodes: int, label: str) -> dict:
    """Goal rate (with its Wilson interval) and rounds over seeded episodes of the default rules."""
    summary = mase.evaluate(
        ENV_ID, team, episodes=episodes, seed=EVAL_SEED, messages=False, record_text=False,
        label=label,
    )  # fmt: skip
    success, rounds = summary["metrics"]["success"], summary["metrics"]["rounds"]
    return {
        "rate": success["mean"],
        "ci": success["ci95"],
        "rounds": rounds["mean"],
        "rounds_sd": rounds["std"],
        "episodes": summary["episodes"],
    }


def line(name: str, result: dict) -> str:
    """One table row of an evaluation."""
    low, high = result["ci"]
    return (
        f"  {name:<22} goal made {result['rate']:6.1%} [{low:.1%}, {high:.1%}]  "
        f"rounds {result['rounds']:5.2f} ± {result['rounds_sd']:.2f}  ({result['episodes']} ep.)"
    )


def meets_goal(result: dict, scripted: dict) -> bool:
    """At least 95% of episodes make the goal, mean rounds within 20% of the scripted team's."""
    return result["rate"] >= GOAL_RATE and result["rounds"] <= ROUNDS_MARGIN * scripted["rounds"]


def time_to_quality(run: Path, scripted: dict, episodes: int, wall: float | None) -> None:
    """Evaluate the run's kept checkpoints in order until one meets the goal."""
    rows = {int(r["global_step"]): r for r in csv.DictReader((run / "metrics.csv").open())}
    steps = sorted(int(p.stem.split("-")[1]) for p in run.glob("mappo-*.pt"))
    limit = ROUNDS_MARGIN * scripted["rounds"]
    total = max(rows)
    if wall is not None:
        print(f"\ntime to quality: trained {total:,} agent turns in {wall:.0f} s")
    else:
        print(f"\ntime to quality: the run in {run} ({total:,} agent turns, "
              f"{float(rows[total]['wall_s']):.0f} s)")  # fmt: skip
    for step in steps:
        row = rows[step]
        near = (
            float(row["charts/success_rate"]) >= 0.9
            and float(row["charts/episodic_rounds"]) <= 1.1 * limit
        )
        if not near:  # the training statistics are still far from the goal: not worth a test
            continue
        policy = MAPPOPolicy.load(run / f"mappo-{step}.pt")
        result = evaluate(dict.fromkeys(policy.agents, policy), episodes, "mappo")
        ok = meets_goal(result, scripted)
        print(line(f"{step:,} turns, {float(row['wall_s']):.0f} s", result)
              + ("  <- goal met" if ok else ""))  # fmt: skip
        if ok:
            print(f"goal (>= {GOAL_RATE:.0%} made, <= {limit:.1f} rounds) met after "
                  f"{float(row['wall_s']):.0f} s and {step:,} agent turns")  # fmt: skip
            return
    print(f"goal (>= {GOAL_RATE:.0%} made, <= {limit:.1f} rounds): not reached in this run")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=5, help="updates in the throughput run")
    parser.add_argument("--episodes", type=int, default=200, help="evaluation episodes")
    parser.add_argument(
        "--time-to-quality", action="store_true", help="train, then find the first good checkpoint"
    )
    parser.add_argument("--from-run", help="the checkpoint search over a run made already")
    cli = parser.parse_args()
    print(f"load average at the start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")

    with tempfile.TemporaryDirectory() as tmp:
        args = training_args(tmp)
        args.total_timesteps = cli.updates * args.num_envs * args.num_rounds * 3
        args.keep_checkpoints = False
        train(args)
        rows = list(csv.DictReader((Path(tmp) / "metrics.csv").open()))
    rollout = np.median([float(r["perf/rollout_sps"]) for r in rows])
    print(f"\nthroughput ({args.num_envs} worlds of mase.make_vec, AEC loop: no native batch)")
    print(f"  random legal actions               {random_turns_per_second():8,.0f} agent turns/s")
    print(f"  MAPPO rollouts (actor acting)      {rollout:8,.0f} agent turns/s")
    print(
        f"  MAPPO overall (rollouts + updates) {float(rows[-1]['charts/sps']):8,.0f} agent turns/s"
    )

    scripted = evaluate("scripted", cli.episodes, "scripted")
    shipped = MAPPOPolicy.load(checkpoint("mappo.pt"))
    learned = evaluate(dict.fromkeys(shipped.agents, shipped), cli.episodes, "mappo")
    turns = shipped.checkpoint["global_step"]
    print(f"\nquality on the default rules, seeds {EVAL_SEED}... (goal: >= {GOAL_RATE:.0%} made, "
          f"rounds <= {ROUNDS_MARGIN:.1f} x the scripted team's)")  # fmt: skip
    print(line("scripted team", scripted))
    print(line(f"shipped mappo ({turns / 1e6:.2f}M)", learned)
          + ("  goal met" if meets_goal(learned, scripted) else "  goal NOT met"))  # fmt: skip
    print(f"  trained by: {TRAINING_COMMAND}")

    if cli.from_run:
        time_to_quality(Path(cli.from_run), scripted, cli.episodes, None)
    if cli.time_to_quality:
        out = Path(tempfile.mkdtemp(prefix="craft_ttq_"))
        start = time.time()
        train(training_args(str(out)))
        time_to_quality(out, scripted, cli.episodes, time.time() - start)


if __name__ == "__main__":
    main()
