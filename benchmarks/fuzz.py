"""A long fuzz of every registered task: 100,000 hostile inputs or more, and what became of them.

Runs :func:`mase.fuzz.fuzz_task` on the built-in tasks and the examples' tasks, a share of the
inputs each, and prints per task the inputs given by kind, the episodes, the inputs the env
took as invalid actions (each with a reason), the dicts refused as a programmer's mistake, and
the time. Any input that raised what it should not, or an observation that left its space,
stops the run with the input named (the test suite runs 1,000 inputs a task).

Run: python benchmarks/fuzz.py [--steps 100000] [--seed 0]
"""

import argparse
import importlib.util
from pathlib import Path

import mase
from mase.fuzz import KINDS, fuzz_task

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000, help="inputs in all")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for name in ("register_task.py", "secret_vote.py"):
        spec = importlib.util.spec_from_file_location(name[:-3], EXAMPLES / name)
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
    tasks = [i for package in mase.tasks.packages() for i in package.envs]
    tasks += ["examples/ColourMatch-v0", "examples/SecretVote-v0"]
    share = -(-args.steps // len(tasks))
    print(f"{share:,} hostile inputs per task, seed {args.seed}")
    print(f"{'task':26s} {'inputs':>8s} {'episodes':>8s} {'invalid':>8s} {'refused':>8s} {'s':>7s}")
    total = 0
    for env_id in tasks:
        report = fuzz_task(env_id, steps=share, seed=args.seed)
        total += report.steps
        print(
            f"{env_id:26s} {report.steps:8,d} {report.episodes:8,d} {report.invalid:8,d} "
            f"{report.refused:8,d} {report.seconds:7.1f}"
        )
        print("  by kind: " + ", ".join(f"{k} {report.kinds.get(k, 0):,}" for k in KINDS))
    print(f"{total:,} inputs: none raised, every observation stayed in its space")


if __name__ == "__main__":
    main()
