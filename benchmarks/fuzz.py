"""A long fuzz of every registered task: 100,000 hostile inputs or more, and what became of them.

Runs :func:`mase.fuzz.fuzz_task` on the built-in tasks and the examples' tasks, a share of the
inputs each, through every view the task has (message channels, BeliefState, ToMProbe,
Recorder, the single-agent view, the parallel view, a batch), with steps before ``reset``,
after the end and for done agents. Prints per task the inputs given, the episodes, the inputs
the env took as invalid actions (each with a reason), the inputs refused with a documented
clear error (``mase.actions.UsageError``), the crashes (any other exception, or a broken
check: the first ones are listed) and the time; then the inputs per view and per kind, and the
totals. Exits 1 when anything crashed (the test suite runs a short fuzz of every task).

Run: python benchmarks/fuzz.py [--steps 100000] [--seed 0]
"""

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import mase
from mase.fuzz import STACKS, FuzzReport, fuzz_task

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
TASK_EXAMPLES = ("register_task.py", "secret_vote.py", "agentverse_task.py")


def tasks() -> list[str]:
    """The task packages' ids and the examples' tasks."""
    for name in TASK_EXAMPLES:
        spec = importlib.util.spec_from_file_location(name[:-3], EXAMPLES / name)
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
    ids = [i for package in mase.tasks.packages() for i in package.envs]
    return ids + ["examples/ColourMatch-v0", "examples/SecretVote-v0", "examples/Tally-v0"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000, help="inputs in all")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    ids = tasks()
    share = -(-args.steps // len(ids))
    print(f"{share:,} hostile inputs per task over {len(ids)} tasks, seed {args.seed}")
    header = ("task", "inputs", "episodes", "invalid", "refused", "crashes", "s")
    print(f"{header[0]:26s}" + "".join(f" {h:>8s}" for h in header[1:]))
    total = FuzzReport()
    start = time.perf_counter()
    for env_id in ids:
        report = fuzz_task(env_id, steps=share, seed=args.seed, raise_on_crash=False)
        print(
            f"{env_id:26s} {report.steps:8,d} {report.episodes:8,d} {report.invalid:8,d} "
            f"{report.refused:8,d} {report.crashes:8,d} {report.seconds:8.1f}",
            flush=True,
        )
        for example in report.examples[:5]:
            print(f"  crash: {example[:300]}")
        for name in ("steps", "episodes", "invalid", "refused", "crashes"):
            setattr(total, name, getattr(total, name) + getattr(report, name))
        for what in ("stacks", "kinds"):
            counts = getattr(total, what)
            for key, n in getattr(report, what).items():
                counts[key] = counts.get(key, 0) + n
    seconds = time.perf_counter() - start
    print("by view: " + ", ".join(f"{s} {total.stacks.get(s, 0):,}" for s in STACKS))
    print("by kind: " + ", ".join(f"{k} {n:,}" for k, n in sorted(total.kinds.items())))
    print(
        f"{total.steps:,} inputs, {total.episodes:,} episodes, {len(ids)} tasks in "
        f"{seconds:.0f} s: {total.invalid:,} invalid actions, {total.refused:,} clear errors, "
        f"{total.crashes:,} crashes"
    )
    sys.exit(1 if total.crashes else 0)


if __name__ == "__main__":
    main()
