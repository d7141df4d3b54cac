"""The ``mase`` command: list tasks, evaluate teams, play a seat, and report results."""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path
from typing import Any

import mase
from mase.agents import HumanPolicy, make_policy, policy_names
from mase.registry import UnknownArgumentError, UnknownEnvError
from mase.report import load_summaries, results_table
from mase.runner import evaluate, parse_team, run_episode
from mase.wrappers import MessageChannel


def _env_arg(text: str) -> tuple[str, Any]:
    """``key=value`` with the value read as a Python literal when it is one."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected key=value, got {text!r}")
    try:
        return key, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return key, value


def _team_dir(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", label).strip("_") or "team"


def cmd_list(args: argparse.Namespace) -> int:
    """Print every registered task with the first line of its documentation."""
    for env_id in mase.list_envs():
        creator, _ = mase.registry.env_creator(env_id)
        doc = (creator.__doc__ or "").strip().splitlines()
        print(f"{env_id:28s} {doc[0] if doc else ''}")
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    """Evaluate one or more teams and print the results table."""
    env_kwargs = dict(args.env_arg or [])
    teams = args.team or ["scripted"]
    summaries = []
    for team in teams:
        out = None
        if args.out:
            out = Path(args.out) / _team_dir(team) if len(teams) > 1 else Path(args.out)
        summary = evaluate(
            args.env,
            team,
            episodes=args.episodes,
            seed=args.seed,
            out=out,
            resume=args.resume,
            env_kwargs=env_kwargs,
            messages=not args.no_messages,
            progress=not args.quiet,
        )
        summaries.append(summary)
    print(
        f"\n{args.env}  ({args.episodes} episodes per team, seeds {args.seed}..."
        f"{args.seed + args.episodes - 1})"
    )
    print(results_table(summaries))
    if args.out:
        print(f"\nrecords: {args.out}")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    """A person plays one seat in the terminal; the other seats are played by policies."""
    env = mase.make(args.env, **dict(args.env_arg or []))
    if not args.no_messages:
        env = MessageChannel(env)
    seats = list(env.possible_agents)
    seat = args.seat or seats[0]
    if seat not in seats:
        raise SystemExit(f"--seat must be one of {seats}, got {seat!r}")
    names = parse_team(args.team, seats)
    team = {s: make_policy(names[s], env) for s in seats if s != seat}
    team[seat] = HumanPolicy()
    record = run_episode(env, team, seed=args.seed)
    print("\nGame over:", ", ".join(f"{k} {v}" for k, v in record["metrics"].items()))
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    """Print the results table of evaluation directories."""
    summaries = load_summaries(args.paths)
    if not summaries:
        print(f"no summary.json under {', '.join(args.paths)}", file=sys.stderr)
        return 1
    envs = sorted({s.get("env_id", "?") for s in summaries})
    print(", ".join(envs))
    print(results_table(summaries))
    return 0


def _add_task_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("env", help="task id, e.g. mase/SearchRescue-v0 (see `mase list`)")
    p.add_argument("--no-messages", action="store_true", help="no message channel")
    p.add_argument(
        "--env-arg",
        action="append",
        type=_env_arg,
        metavar="KEY=VALUE",
        help="task argument, e.g. --env-arg wrong_cutter=explode (repeatable)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``mase`` command."""
    parser = argparse.ArgumentParser(
        prog="mase",
        description="MASE: multi-agent collaboration tasks for LLM teams and MARL baselines.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("list", help="list the registered tasks", description="List the tasks.")
    p.set_defaults(func=cmd_list)

    team_help = (
        f"policies: one name for every seat, or seat=name pairs, e.g. "
        f"'alpha=scripted,bravo=random,charlie=random'; names: {', '.join(policy_names())}"
    )
    p = sub.add_parser(
        "eval",
        help="evaluate teams over seeded episodes",
        description="Play seeded episodes with each team, write records, print a table.",
    )
    _add_task_arguments(p)
    p.add_argument("--team", action="append", help=team_help + " (repeat for several teams)")
    p.add_argument("--episodes", type=int, default=10, help="episodes per team (default 10)")
    p.add_argument("--seed", type=int, default=0, help="seed of the first episode (default 0)")
    p.add_argument("--out", help="output directory for config.json, episodes.jsonl, summary.json")
    p.add_argument("--resume", action="store_true", help="continue an interrupted evaluation")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser(
        "play",
        help="play one seat yourself in the terminal",
        description="Play one seat; type actions such as 'go to room 3' or 'apply red cutter', "
        "optionally followed by 'Message to Team: ...'.",
    )
    _add_task_arguments(p)
    p.add_argument("--seat", help="your seat (default: the first agent)")
    p.add_argument("--team", default="scripted", help="policies for the other seats; " + team_help)
    p.add_argument("--seed", type=int, default=None, help="episode seed (default: random)")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser(
        "report",
        help="print tables from evaluation directories",
        description="Find summary.json files under the given directories and tabulate them.",
    )
    p.add_argument("paths", nargs="+", help="evaluation output directories")
    p.set_defaults(func=cmd_report)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``mase`` command."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (
        ValueError,
        FileExistsError,
        FileNotFoundError,
        UnknownEnvError,
        UnknownArgumentError,
    ) as exc:
        print(f"mase {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
