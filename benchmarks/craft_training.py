"""MAPPO on the crafting world: throughput, the trained team's quality, and its time to quality.

Every figure is printed beside its reference, measured in the same run: the scripted team
(``--team scripted``: it splits the recipe tree and hands the parts to one assembler) on the
same seeds.

1. Throughput: ``mase.make_vec("mase/Craft-v0")`` (a loop over AEC envs: Craft has no native
   batch) stepped with random legal actions, and a short MAPPO run's rollout and overall agent
   turns per second.
2. Quality: the shipped checkpoint (``--team mappo``) and the scripted team over the same
   seeded episodes, on random maps (``layout="random"``, a new map each episode) and on the
   task's default, fixed map: the share of episodes that make the goal (with its 95% Wilson
   interval) and mean rounds. The goal, on random maps: at least 95% of episodes, mean
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
import shlex
import tempfile
import time
from pathlib import Path

import numpy as np

import mase
from mase.baselines.mappo import Args, MAPPOPolicy, train
from mase.cli.commands import train_settings
from mase.envs.craft.policies import SHIPPED, TRAINING_COMMAND, checkpoint

ENV_ID = "mase/Craft-v0"
#: Evaluation seeds start here (the training's envs are seeded from 1).
EVAL_SEED = 10_000
#: The quality goal: share of episodes that make the goal, and rounds against the scripted team.
GOAL_RATE, ROUNDS_MARGIN = 0.95, 1.2


def training_args(out: str) -> Args:
    """The settings of :data:`TRAINING_COMMAND` (the shipped checkpoint's training)."""
    return train_settings("mappo", [*shlex.split(TRAINING_COMMAND)[3:], "--out", out])


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


#: The maps the quality is measured on: the goal is on random maps, a new one each episode.
MAPS = {"random maps": {"layout": "random"}, "the fixed map": {}}


def evaluate(team, episodes: int, label: str, maps: str = "random maps") -> dict:
    """Goal rate (with its Wilson interval) and rounds over seeded episodes of ``maps``."""
    summary = mase.evaluate(
        ENV_ID, team, episodes=episodes, seed=EVAL_SEED, messages=False, record_text=False,
        label=label, env_kwargs=MAPS[maps],
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


def time_to_quality(
    run: Path, scripted: dict, episodes: int, wall: float | None, maps: str
) -> None:
    """Evaluate the run's kept checkpoints on ``maps`` in order until one meets the goal."""
    rows = {int(r["global_step"]): r for r in csv.DictReader((run / "metrics.csv").open())}
    steps = sorted(int(p.stem.split("-")[1]) for p in run.glob("mappo-*.pt"))
    limit = ROUNDS_MARGIN * scripted["rounds"]
    total = max(rows)
    if wall is not None:
        print(f"\ntime to quality on {maps}: trained {total:,} agent turns in {wall:.0f} s")
    else:
        print(f"\ntime to quality on {maps}: the run in {run} ({total:,} agent turns, "
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
        result = evaluate(dict.fromkeys(policy.agents, policy), episodes, "mappo", maps)
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
    parser.add_argument(
        "--maps", choices=list(MAPS), default="random maps", help="--from-run's maps"
    )
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

    scripted = {maps: evaluate("scripted", cli.episodes, "scripted", maps) for maps in MAPS}
    for maps in MAPS:
        goal = f">= {GOAL_RATE:.0%} made, rounds <= {ROUNDS_MARGIN:.1f} x the scripted team's"
        print(f"\nquality on {maps}, seeds {EVAL_SEED}... (goal: {goal})")
        print(line("scripted team", scripted[maps]))
        for name, (file, _) in SHIPPED.items():
            shipped = MAPPOPolicy.load(checkpoint(file))
            learned = evaluate(dict.fromkeys(shipped.agents, shipped), cli.episodes, name, maps)
            turns = shipped.checkpoint["global_step"]
            verdict = "  goal met" if meets_goal(learned, scripted[maps]) else "  goal NOT met"
            print(line(f"{name} ({turns / 1e6:.2f}M)", learned) + verdict)
    for name, (_, command) in SHIPPED.items():
        print(f"  {name} trained by: {command}")

    if cli.from_run:
        time_to_quality(Path(cli.from_run), scripted[cli.maps], cli.episodes, None, cli.maps)
    if cli.time_to_quality:
        out = Path(tempfile.mkdtemp(prefix="craft_ttq_"))
        start = time.time()
        train(training_args(str(out)))
        fixed = "the fixed map"
        time_to_quality(out, scripted[fixed], cli.episodes, time.time() - start, fixed)


if __name__ == "__main__":
    main()
