"""The ``mase`` command: list tasks, evaluate teams, play a seat, and report results."""

from __future__ import annotations

import argparse
import ast
import contextlib
import dataclasses
import importlib
import inspect
import json
import re
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mase
from mase.agents import HumanPolicy, is_llm, make_policy, policy_names
from mase.presets import Preset, Team, load_preset, preset_names
from mase.registry import UnknownArgumentError, UnknownEnvError
from mase.report import (
    DEFAULT_COLUMNS,
    belief_line,
    comparison_table,
    find_training_logs,
    load_summaries,
    plot_learning_curves,
    results_table,
    tom_table,
    usage_line,
)
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
    """Print every registered task with the first line of its documentation, and the presets."""
    for env_id in mase.list_envs():
        creator, _ = mase.registry.env_creator(env_id)
        doc = (creator.__doc__ or "").strip().splitlines()
        print(f"{env_id:28s} {doc[0] if doc else ''}")
        own = sorted(getattr(creator, "policies", {}))
        if own:
            print(f"{'':28s} its own policies: {', '.join(own)}")
    names = preset_names()
    if names:
        print("\npresets (mase eval --preset NAME): " + ", ".join(names))
    for problem in mase.tasks.problems():
        print(f"warning: {problem}", file=sys.stderr)
    return 0


#: Fault options of ``mase serve`` and ``mase eval --offline``: flag -> help.
FAULT_FLAGS = {
    "error-rate-429": "chance of a 429 rate-limit error",
    "error-rate-500": "chance of a 500 server error",
    "timeout-rate": "chance of hanging for 60 s",
    "malformed-rate": "chance of a body that is not valid JSON",
    "empty-rate": "chance of an empty reply",
    "long-rate": "chance of a 100 KB reply",
}

#: Options of ``mase eval`` that configure model seats: attribute -> flag.
LLM_FLAGS = {
    "model": "--model",
    "base_url": "--base-url",
    "no_cache": "--no-cache",
    "cache": "--cache",
    "prices": "--prices",
    "offline": "--offline",
}

#: Columns added to the results table when a model played: (metric, header, format).
USAGE_COLUMNS = (
    ("llm_calls", "LLM calls", "{:.0f}"),
    ("llm_tokens", "tokens", "{:.0f}"),
    ("cost_usd", "cost $", "{:.4f}"),
)


def _table_columns(summaries: list[dict]) -> tuple[tuple[str, str, str], ...]:
    """The results table's columns: the defaults, then usage and belief accuracy if measured."""
    columns = DEFAULT_COLUMNS
    if any(s["metrics"].get("llm_calls") for s in summaries):
        columns += USAGE_COLUMNS
    if any("belief_accuracy" in s["metrics"] for s in summaries):
        columns += (("belief_accuracy", "belief accuracy", "{:.1%}"),)
    return columns


def _faults(args: argparse.Namespace) -> Any:
    from mase.llm import Faults

    return Faults(
        latency=args.latency,
        error_rate_429=args.error_rate_429,
        error_rate_500=args.error_rate_500,
        timeout_rate=args.timeout_rate,
        malformed_rate=args.malformed_rate,
        empty_rate=args.empty_rate,
        long_rate=args.long_rate,
        seed=args.fault_seed if hasattr(args, "fault_seed") else args.seed,
    )


def _fault_flags_given(args: argparse.Namespace) -> list[str]:
    names = ["latency", *(f.replace("-", "_") for f in FAULT_FLAGS)]
    return ["--" + n.replace("_", "-") for n in names if getattr(args, n)]


@contextlib.contextmanager
def model_endpoint(
    args: argparse.Namespace, env_id: str, llm_teams: list[str], offline_default: bool = False
) -> Iterator[tuple[Any, str | None]]:
    """The model configuration for the teams' LLM seats, checked against the options.

    Yields ``(config, where)``: an :class:`mase.llm.LLMConfig` (``None`` when no team has a
    model seat) and a few words on where the model runs. With ``--offline`` (or
    ``offline_default`` and neither ``--model`` nor ``--base-url``) an offline server for the
    task runs for the duration, with the fault options given; otherwise the endpoint comes
    from ``--base-url``/``--model`` and then the environment (``OPENAI_BASE_URL``, ...).

    Raises:
        ValueError: options that do not go together, named in the message.
    """
    given = [flag for name, flag in LLM_FLAGS.items() if getattr(args, name)]
    faults = _fault_flags_given(args)
    if not llm_teams:
        if given or faults:
            raise ValueError(
                f"{', '.join(given + faults)} configure model seats (llm, llm-belief), and no "
                "team here has one"
            )
        yield None, None
        return
    if args.offline and args.base_url:
        raise ValueError("--offline serves a model on loopback; it does not go with --base-url")
    offline = args.offline or (offline_default and not (args.model or args.base_url))
    if faults and not offline:
        raise ValueError(f"{', '.join(faults)} make the offline server misbehave; add --offline")

    from mase.llm import LLMConfig, LLMUnavailable, load_prices, offline_server

    overrides = {
        "model": args.model,
        "base_url": args.base_url,
        "cache": False if args.no_cache else args.cache,
        "prices": load_prices(args.prices) if args.prices else None,
    }
    if not offline:
        config = LLMConfig.from_env(**overrides)
        try:
            config.resolved_api_key()
        except LLMUnavailable as exc:
            raise ValueError(str(exc)) from None
        yield config, f"model {config.model} at {config.base_url or 'the OpenAI API'}"
        return
    with offline_server(env_id, faults=_faults(args)) as server:
        config = LLMConfig.from_env(
            **{**overrides, "base_url": server.base_url, "api_key": "offline"}
        )
        yield config, f"the task's offline model at {server.base_url} (not a hosted LLM)"


def _eval_options(args: argparse.Namespace) -> dict[str, Any]:
    """The :func:`mase.evaluate` arguments every team of a ``mase eval`` shares."""
    return {
        "episodes": args.episodes,
        "seed": args.seed,
        "resume": args.resume,
        "progress": not args.quiet,
        "concurrency": args.concurrency,
        "probes": _probes(args),
        "belief": args.belief_state,
        "record": args.record,
    }


def _probes(args: argparse.Namespace) -> bool | float:
    """``--probes`` and ``--probe-rate`` as :func:`mase.evaluate`'s ``probes``."""
    if args.probe_rate is None:
        return args.probes
    if not 0.0 < args.probe_rate <= 1.0:
        raise ValueError(f"--probe-rate must be in (0, 1], got {args.probe_rate}")
    return args.probe_rate


def _print_extras(summaries: list[dict], paper: dict[str, dict] | None = None) -> None:
    """The ToM table and the model usage, when there are any."""
    if any(s.get("tom") for s in summaries):
        print("\nTheory-of-Mind accuracy (pooled over all questions; n = questions answered)")
        print(tom_table(summaries, paper))
    for s in summaries:
        if s.get("usage"):
            print(usage_line(s))
        if belief_line(s):
            print(belief_line(s))


def cmd_eval(args: argparse.Namespace) -> int:
    """Evaluate one or more teams, or a preset's teams, and print the results table.

    One path for both: ``--team`` gives rows of their own (one table), ``--preset`` gives the
    preset's rows and its paper's numbers to print beside them.
    """
    preset = load_preset(args.preset) if args.preset else None
    if preset is not None:
        if args.env and args.env != preset.env_id:
            raise ValueError(f"preset {args.preset} runs {preset.env_id}, not {args.env}")
        if args.team:
            raise ValueError("--preset runs the preset's own teams; it does not take --team")
        env_id, rows = preset.env_id, list(preset.teams)
        env_kwargs = {**preset.env_kwargs, **dict(args.env_arg or [])}
    elif args.env:
        env_id, env_kwargs = args.env, dict(args.env_arg or [])
        rows = [Team(spec, spec, messages=True) for spec in args.team or ["scripted"]]
    else:
        raise ValueError("name a task (see `mase list`) or a --preset")
    seats = list(mase.make(env_id, **env_kwargs).possible_agents)
    llm_rows = {r.label for r in rows if any(map(is_llm, parse_team(r.spec, seats).values()))}
    offline_default = preset is not None
    summaries: dict[str, dict] = {}
    labels: dict[str, str] = {}
    with model_endpoint(args, env_id, sorted(llm_rows), offline_default) as (llm, where):
        model = "offline model" if where and "offline" in where else getattr(llm, "model", None)
        for row in rows:
            label = row.label
            if preset is not None and row.label in llm_rows:
                label = f"{row.label} ({model})"
            labels[row.label] = label
            options = _eval_options(args)
            options["probes"] = options["probes"] or row.probes
            options["belief"] = options["belief"] or row.belief
            summaries[row.label] = evaluate(
                env_id,
                row.spec,
                out=_row_out(args.out, label, len(rows), preset is not None),
                env_kwargs=env_kwargs,
                messages=row.messages and not args.no_messages,
                label=label,
                llm=llm if row.label in llm_rows else None,
                **options,
            )
    seeds = f"seeds {args.seed}...{args.seed + args.episodes - 1}"
    if preset is None:
        print(f"\n{env_id}  ({args.episodes} episodes per team, {seeds})")
        print(results_table(list(summaries.values()), _table_columns(list(summaries.values()))))
        _print_extras(list(summaries.values()))
    else:
        _print_preset(args, preset, summaries, labels, seeds)
    if where:
        print(f"model seats: {where}")
    if preset is not None and preset.source:
        print(f"paper: {preset.source}")
    if args.out and preset is None:
        print(f"\nrecords: {args.out}")
    return 0


def _row_out(out: str | None, label: str, rows: int, preset: bool) -> Path | None:
    """Where a row's records go: ``out`` itself for one team, else a folder per team."""
    if not out:
        return None
    return Path(out) / _team_dir(label) if rows > 1 or preset else Path(out)


def _print_preset(
    args: argparse.Namespace,
    preset: Preset,
    summaries: dict[str, dict],
    labels: dict[str, str],
    seeds: str,
) -> None:
    """The preset's table with the paper's numbers, its notes and the extras."""
    print(f"\n{preset.env_id}: {args.preset} ({args.episodes} episodes per team, {seeds})")
    print(comparison_table(preset, summaries, labels))
    for note in preset.notes:
        print(textwrap.fill(note, 100))
    paper = {
        labels[t.label]: preset.paper[t.paper_row]
        for t in preset.teams
        if t.paper_row in preset.paper
    }
    _print_extras([summaries[t.label] for t in preset.teams], paper)


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
    others = [s for s in seats if s != seat]
    llm_teams = [args.team] if any(is_llm(names[s]) for s in others) else []
    with model_endpoint(args, args.env, llm_teams) as (llm, where):
        if where:
            print(f"model seats: {where}")
        team = {s: make_policy(names[s], env, llm=llm) for s in others}
        team[seat] = HumanPolicy()
        record = run_episode(env, team, seed=args.seed)
    print("\nGame over:", ", ".join(f"{k} {v}" for k, v in record["metrics"].items()))
    return 0


def _field_docs(cls: type) -> dict[str, str]:
    """The docstring under each field of a dataclass (the CleanRL ``Args`` convention)."""
    body = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0].body
    docs = {}
    for node, after in zip(body, body[1:], strict=False):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[node.target.id] = after.value.value.strip()
    return docs


def add_dataclass_arguments(parser: argparse.ArgumentParser, cls: type) -> None:
    """One ``--option`` per field of ``cls``, typed by its default, helped by its docstring."""
    docs = _field_docs(cls)
    for f in dataclasses.fields(cls):
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
        flag = "--" + f.name.replace("_", "-")
        text = f"{docs.get(f.name, '')} (default: {json.dumps(default)})"
        if isinstance(default, bool):
            parser.add_argument(
                flag, action=argparse.BooleanOptionalAction, default=default, help=text
            )
        elif isinstance(default, dict | list):
            parser.add_argument(flag, type=json.loads, default=default, help=text, metavar="JSON")
        else:
            parser.add_argument(flag, type=type(default), default=default, help=text)


def cmd_train(args: argparse.Namespace) -> int:
    """Train a baseline; its options come from the fields of its ``Args`` dataclass."""
    module_name, summary = mase.baselines.TRAINERS[args.trainer]
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise SystemExit(
            f"mase train {args.trainer} needs the RL extra ({exc.name} is missing): "
            "pip install 'mase-suite[rl]'"
        ) from None
    parser = argparse.ArgumentParser(prog=f"mase train {args.trainer}", description=summary)
    add_dataclass_arguments(parser, module.Args)
    settings = module.Args(**vars(parser.parse_args(args.options)))
    path = module.train(settings)
    print(f"saved {path}")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    """Print the results table of evaluation directories; plot training curves if asked."""
    summaries = load_summaries(args.paths)
    logs = find_training_logs(args.paths)
    if not summaries and not logs:
        print(f"no summary.json or training log under {', '.join(args.paths)}", file=sys.stderr)
        return 1
    if summaries:
        envs = sorted({s.get("env_id", "?") for s in summaries})
        print(", ".join(envs))
        print(results_table(summaries, _table_columns(summaries)))
        _print_extras(summaries)
    if args.plot:
        if not logs:
            raise ValueError(f"no training log (metrics.csv, progress.csv) under {args.paths}")
        print(f"learning curves: {plot_learning_curves(logs, args.plot)}")
    elif logs:
        print("training logs: " + ", ".join(map(str, logs)) + " (add --plot FILE.png to draw)")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve a task's offline model until Ctrl-C."""
    # imported here: the other commands should not pay for the server and its responder
    from mase.llm import offline_server

    server = offline_server(args.env, faults=_faults(args), port=args.port, host=args.host)
    print(server.base_url, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


def _add_fault_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--latency", type=float, default=0.0, metavar="S", help="seconds added per reply"
    )
    for name, text in FAULT_FLAGS.items():
        p.add_argument(f"--{name}", type=float, default=0.0, metavar="P", help=text + " (0)")


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _add_model_arguments(p: argparse.ArgumentParser) -> None:
    """The options of model seats: endpoint, cache, prices, the offline model and its faults."""
    g = p.add_argument_group(
        "model seats",
        "for the llm and llm-belief policies; the key comes only from OPENAI_API_KEY",
    )
    g.add_argument("--model", help="model id (default: $MASE_MODEL, else mase-offline)")
    g.add_argument("--base-url", help="OpenAI-compatible endpoint (default: $OPENAI_BASE_URL)")
    cache = g.add_mutually_exclusive_group()
    cache.add_argument("--no-cache", action="store_true", help="call the model every time")
    cache.add_argument(
        "--cache",
        metavar="PATH",
        help="response cache file (default ~/.cache/mase/responses.sqlite)",
    )
    g.add_argument(
        "--prices",
        metavar="FILE.json",
        help='prices: {"model": [usd/1M prompt, usd/1M completion]}',
    )
    g.add_argument(
        "--offline",
        action="store_true",
        help="serve the task's offline model in-process for the model seats (presets do this "
        "unless --model or --base-url is given); the fault options make it misbehave",
    )
    f = p.add_argument_group("offline model faults (with --offline, as `mase serve`)")
    _add_fault_arguments(f)
    f.add_argument("--fault-seed", type=int, default=0, help="seed of the fault draws (default 0)")


def _add_task_arguments(p: argparse.ArgumentParser, optional: bool = False) -> None:
    p.add_argument(
        "env",
        nargs="?" if optional else None,
        help="a task id (`mase list` shows them)",
    )
    p.add_argument("--no-messages", action="store_true", help="no message channel")
    p.add_argument(
        "--env-arg",
        action="append",
        type=_env_arg,
        metavar="KEY=VALUE",
        help="task argument, e.g. --env-arg max_cycles=20 (repeatable)",
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
        "policies: one name for every seat, or seat=name pairs, e.g. "
        f"'random,SEAT=scripted'; names: {', '.join(policy_names())}, and the task's own "
        "(`mase list` shows them)"
    )
    p = sub.add_parser(
        "eval",
        help="evaluate teams over seeded episodes",
        description="Play seeded episodes with each team, write records, print a table.",
    )
    _add_task_arguments(p, optional=True)
    p.add_argument(
        "--preset",
        choices=preset_names(),
        help="run a preset's teams and print the paper's numbers beside the measured ones",
    )
    p.add_argument("--team", action="append", help=team_help + " (repeat for several teams)")
    p.add_argument("--episodes", type=int, default=10, help="episodes per team (default 10)")
    p.add_argument("--seed", type=int, default=0, help="seed of the first episode (default 0)")
    p.add_argument("--out", help="output directory for config.json, episodes.jsonl, summary.json")
    p.add_argument("--resume", action="store_true", help="continue an interrupted evaluation")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--concurrency",
        type=_positive_int,
        default=1,
        metavar="K",
        help="episodes played at once, each with its own env and team (default 1)",
    )
    p.add_argument("--probes", action="store_true", help="ask Theory-of-Mind questions")
    p.add_argument(
        "--probe-rate",
        type=float,
        metavar="P",
        help="ask this share of the Theory-of-Mind questions (implies --probes; default: all)",
    )
    p.add_argument("--belief-state", action="store_true", help="keep belief states (BeliefState)")
    p.add_argument(
        "--record", action="store_true", help="record all events, and model prompts and replies"
    )
    _add_model_arguments(p)
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser(
        "play",
        help="play one seat yourself in the terminal",
        description="Play one seat: you see the task's rules and your observations, and type "
        "your action in words (the legal ones are listed), optionally followed by "
        "'Message to Team: ...'.",
    )
    _add_task_arguments(p)
    _add_model_arguments(p)
    p.add_argument("--seat", help="your seat (default: the first agent)")
    p.add_argument("--team", default="scripted", help="policies for the other seats; " + team_help)
    p.add_argument("--seed", type=int, default=None, help="episode seed (default: random)")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser(
        "train",
        help="train a baseline (needs the rl extra: pip install 'mase-suite[rl]')",
        description="Train a baseline. `mase train TRAINER --help` lists its options.",
    )
    p.add_argument(
        "trainer",
        choices=sorted(mase.baselines.TRAINERS),
        help="; ".join(f"{k}: {v[1]}" for k, v in sorted(mase.baselines.TRAINERS.items())),
    )
    p.add_argument("options", nargs=argparse.REMAINDER, help="the trainer's options")
    p.set_defaults(func=cmd_train)

    p = sub.add_parser(
        "report",
        help="print tables from evaluation directories",
        description="Tabulate the summary.json files under the given directories; with --plot, "
        "draw the learning curves of the training logs there.",
    )
    p.add_argument("paths", nargs="+", help="evaluation or training output directories")
    p.add_argument("--plot", metavar="FILE.png", help="draw the training logs' learning curves")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser(
        "serve",
        help="serve an offline OpenAI-compatible model (no key, no network)",
        description="Serve a task's offline language model (a scripted policy that reads only "
        "the prompt) at an OpenAI-compatible endpoint on loopback; give the printed base URL "
        "to any OpenAI client. Fault options make it misbehave like a hosted endpoint, to test "
        "a harness. Ctrl-C stops it.",
    )
    p.add_argument(
        "--env", required=True, metavar="ID", help="the task whose model to serve (`mase list`)"
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port; 0 picks a free one (default 8000)")
    _add_fault_arguments(p)
    p.add_argument("--seed", type=int, default=0, help="seed of the fault draws (default 0)")
    p.set_defaults(func=cmd_serve)
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
    except KeyboardInterrupt:
        out = getattr(args, "out", None)
        where = f"; finished episodes are saved in {out}: add --resume to go on" if out else ""
        print(f"\nmase {args.command}: interrupted{where}", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
