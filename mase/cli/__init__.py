"""The ``mase`` command: list tasks, evaluate teams, play a seat, train, report, serve.

``build_parser`` is the whole command line; each command is a function of
:mod:`mase.cli.commands`, and the model-seat options live in :mod:`mase.cli.models`.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import mase
from mase.agents import policy_names
from mase.cli.commands import (
    ENV_ARG_HELP,
    cmd_crossplay,
    cmd_eval,
    cmd_league,
    cmd_list,
    cmd_play,
    cmd_replay,
    cmd_report,
    cmd_serve,
    cmd_train,
    env_arg,
)
from mase.cli.models import FAULT_FLAGS, model_endpoint
from mase.config import OPTION_OF, RunConfig, import_modules
from mase.presets import preset_names
from mase.registry import UnknownArgumentError, UnknownEnvError
from mase.sandbox import SandboxUnavailable


def _add_fault_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--latency", type=float, default=0.0, metavar="S", help="seconds added per reply"
    )
    for name, text in FAULT_FLAGS.items():
        p.add_argument(f"--{name}", type=float, default=0.0, metavar="P", help=text + " (0)")


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    return value


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
        "--timeout",
        type=_positive_float,
        metavar="S",
        help="seconds before one model call is given up (not retried: the server may still be "
        "working on it; default 60, with --local 600)",
    )
    g.add_argument(
        "--max-tokens",
        type=_positive_int,
        metavar="N",
        help="longest reply in tokens, for every kind of request (default: per kind, "
        "mase.llm.config.REPLY_TOKENS: 1024 for an action, 128 for a probe's answer, ...)",
    )
    g.add_argument(
        "--temperature",
        type=float,
        metavar="T",
        help="sampling temperature (default 0)",
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
    g.add_argument(
        "--local",
        metavar="NAME|FILE.gguf",
        help="serve a real model on this machine for the model seats (llama.cpp, the local "
        "extra): a known name (smollm2) or a GGUF file; --concurrency K runs K server slots",
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
        "--env-arg", action="append", type=env_arg, metavar="KEY=VALUE", help=ENV_ARG_HELP
    )
    p.add_argument(
        "--module",
        action="append",
        dest="modules",
        metavar="MODULE|FILE.py",
        help="import this Python file or module first, e.g. one that registers a task of its "
        "own with mase.register (repeatable)",
    )


def _team_help() -> str:
    """The help of a ``--team`` option: the policy names there are."""
    return (
        "policies: one name for every seat, or seat=name pairs, e.g. "
        f"'random,SEAT=scripted'; names: {', '.join(policy_names())}, and the task's own "
        "(`mase list` shows them)"
    )


def _add_list_parser(sub: argparse._SubParsersAction) -> None:
    """The ``list`` command: the registered tasks."""
    p = sub.add_parser("list", help="list the registered tasks", description="List the tasks.")
    p.set_defaults(func=cmd_list)


def _add_backend_arguments(p: argparse.ArgumentParser) -> None:
    """``mase eval``'s options of where and how many episodes are played at once."""
    p.add_argument(
        "--concurrency",
        type=_positive_int,
        default=None,
        metavar="K",
        help="episodes played at once, each with its own env and team (default 1; with "
        "--backend ray: the cluster's CPUs)",
    )
    p.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="where episodes are played: local (this process, the default) or ray (one task "
        "per episode on a Ray cluster; needs the ray extra: pip install 'mase-suite[ray]')",
    )
    p.add_argument(
        "--address",
        metavar="ADDRESS",
        help="with --backend ray: the cluster to join, 'auto' for the one `ray start --head` "
        "runs on this machine, HOST:PORT, or 'local' for a new one for this run (default: "
        "$RAY_ADDRESS, else the one `ray start` runs here, else a new one)",
    )


def _add_eval_parser(sub: argparse._SubParsersAction) -> None:
    """The ``eval`` command: seeded episodes of each team, records and a table."""
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
    p.add_argument(
        "--row-model",
        metavar="ROW=MODEL,...",
        help="with --preset: the model of each paper row's LLM team, e.g. "
        "'ChatGPT=gpt-3.5-turbo,GPT-4=gpt-4o' (rows that need a model run only when given one)",
    )
    p.add_argument("--team", action="append", help=_team_help() + " (repeat for several teams)")
    p.add_argument(
        "--config",
        metavar="FILE.toml",
        help="a run configuration: every option here has a key, named as the option with "
        "underscores (base_url, probe_rate), the task's arguments in an [env_args] table, "
        "Python files to import first in modules (mase.config); the command line wins",
    )
    p.add_argument(
        "--episodes", type=_positive_int, default=None, help="episodes per team (default 10)"
    )
    p.add_argument("--seed", type=int, default=None, help="seed of the first episode (default 0)")
    p.add_argument("--out", help="output directory for config.json, episodes.jsonl, summary.json")
    p.add_argument("--resume", action="store_true", help="continue an interrupted evaluation")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_backend_arguments(p)
    p.add_argument("--probes", action="store_true", help="ask Theory-of-Mind questions")
    p.add_argument(
        "--probe-rate",
        type=float,
        metavar="P",
        help="ask this share of the Theory-of-Mind questions (implies --probes; default: all)",
    )
    p.add_argument("--belief-state", action="store_true", help="keep belief states (BeliefState)")
    p.add_argument(
        "--record",
        action="store_true",
        help="record all events, the frames `mase replay` draws, and model prompts and replies",
    )
    p.add_argument(
        "--unconfined-sandbox",
        action="store_true",
        default=None,
        help="where bubblewrap cannot run: let model-written programs (CodeAct seats, coding "
        "tasks) run under Python's audit hook alone, with no operating-system boundary; the "
        "records and the table say the run was unconfined (mase.sandbox)",
    )
    _add_model_arguments(p)
    p.set_defaults(func=cmd_eval)


def _add_play_parser(sub: argparse._SubParsersAction) -> None:
    """The ``play`` command: one seat played in the terminal."""
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
    p.add_argument(
        "--team", default="scripted", help="policies for the other seats; " + _team_help()
    )
    p.add_argument(
        "--seed", type=int, default=None, help="episode seed (default: random; with --web, 0)"
    )
    _add_web_arguments(p)
    p.set_defaults(func=cmd_play)


def _add_web_arguments(p: argparse.ArgumentParser) -> None:
    """``mase play --web``: the seats in browsers, the server, the records."""
    web = p.add_argument_group(
        "web play (--web)",
        "Serve the game on a local web server: --team names every seat, 'human' for each "
        "person (or --seat); one link is printed per person's seat. The games are recorded "
        "like `mase eval --record` runs.",
    )
    web.add_argument("--web", action="store_true", help="play in browsers, not the terminal")
    web.add_argument("--host", default="127.0.0.1", help="address to serve on (default loopback)")
    web.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    web.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a --host other than loopback (anyone with a link plays that seat)",
    )
    web.add_argument("--episodes", type=int, default=1, help="games played in turn (default 1)")
    web.add_argument("--out", help="directory of the games' records (and the seats' links)")
    web.add_argument("--resume", action="store_true", help="keep the finished games in --out")
    web.add_argument(
        "--move-time-limit",
        type=float,
        default=None,
        metavar="SECONDS",
        help="seconds a person's move may take; then --fallback moves (default: no limit)",
    )
    web.add_argument(
        "--fallback", default="random", help="the policy that moves for a person out of time"
    )
    web.add_argument(
        "--close-after",
        type=float,
        default=None,
        metavar="SECONDS",
        help="stop the server this long after the last game ends (default: at Ctrl-C)",
    )


def _add_train_parser(sub: argparse._SubParsersAction) -> None:
    """The ``train`` command: a baseline's trainer and its options."""
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


def _add_report_parser(sub: argparse._SubParsersAction) -> None:
    """The ``report`` command: tables and plots of evaluation directories."""
    p = sub.add_parser(
        "report",
        help="print tables from evaluation directories",
        description="Tabulate the summary.json files under the given directories; with --plot, "
        "draw them (each headline metric per team with 95% intervals, Theory-of-Mind "
        "accuracy by level, accuracy by round where a task reports it) and the learning curves "
        "of the training logs there (FILE-curves.png beside the evaluation plot).",
    )
    p.add_argument("paths", nargs="+", help="evaluation or training output directories")
    p.add_argument(
        "--plot", metavar="FILE.png", help="draw the evaluations and the learning curves"
    )
    p.add_argument(
        "--format",
        choices=("table", "markdown", "csv", "json"),
        default="table",
        help="table (aligned text, the default), markdown (GitHub tables), csv (a block a "
        "table), json (each table's rows as objects); the exact numbers are in summary.json",
    )
    p.add_argument(
        "--metric",
        help="metric of the probability of improvement between teams (default: score, "
        "else the first table metric present)",
    )
    p.set_defaults(func=cmd_report)


def _add_crossplay_parser(sub: argparse._SubParsersAction) -> None:
    """The ``crossplay`` command: every pairing of policies on a task."""
    p = sub.add_parser(
        "crossplay",
        help="play every pairing of policies: the ad hoc teamwork matrix",
        description="Play every pairing of the policies on a task and print (and plot) the "
        "matrix of a metric with 95% intervals. Rows: the policy of the first seat (or, in a "
        "task with sides, of the first side); columns: the policy of the other seats (the "
        "other side). Every cell plays the same seeds; each is an evaluation directory under "
        "--out, so --resume continues an interrupted matrix.",
    )
    _add_task_arguments(p)
    p.add_argument(
        "--policies",
        required=True,
        metavar="A,B,...",
        help="the policies to pair, e.g. scripted,random (any team-spec policy name, a task's own "
        "included: `mase list` shows them)",
    )
    p.add_argument(
        "--columns",
        metavar="A,B,...",
        help="the columns' policies when they differ from the rows' (default: --policies), "
        "e.g. a side's own checkpoints",
    )
    p.add_argument(
        "--episodes", type=_positive_int, default=10, help="episodes per cell (default 10)"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the first episode (default 0)")
    p.add_argument("--out", help="output directory (a directory per cell, crossplay.json)")
    p.add_argument("--resume", action="store_true", help="continue an interrupted matrix")
    p.add_argument("--metric", help="the metric (default: the task's headline column)")
    p.add_argument("--plot", metavar="FILE.png", help="draw the matrix as a heatmap")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument(
        "--concurrency", type=_positive_int, default=None, metavar="K", help="episodes at once"
    )
    _add_model_arguments(p)
    p.set_defaults(func=cmd_crossplay)


def _add_replay_parser(sub: argparse._SubParsersAction) -> None:
    """The ``replay`` command: an HTML page of a recorded episode."""
    p = sub.add_parser(
        "replay",
        help="write an HTML page to step through a recorded episode",
        description="Write one self-contained HTML page (no server, no network) that shows a "
        "recorded episode step by step: the task's drawing of the world, each move, events, "
        "messages, beliefs and Theory-of-Mind probes with their true answers. The evaluation "
        "must have been run with `mase eval --record`. By default the page holds only what "
        "every seat saw in common (public events, public moves, revealed results): no seat's "
        "secret is in the file. --analyst writes everything; --seat NAME one seat's view.",
    )
    p.add_argument("run_dir", metavar="RUN_DIR", help="the evaluation's output directory")
    p.add_argument(
        "--episode", type=int, default=None, metavar="K", help="episode number (default: the first)"
    )
    p.add_argument(
        "--out", metavar="FILE.html", help="where to write it (default: RUN_DIR/replay-K.html)"
    )
    p.add_argument(
        "--prompts",
        action="store_true",
        help="keep the model seats' prompts and replies in the page, under each move (larger; "
        "all seats' with --analyst, the seat's own with --seat)",
    )
    whose = p.add_mutually_exclusive_group()
    whose.add_argument(
        "--analyst",
        action="store_true",
        help="the analyst's page: everything, every seat's secrets (hidden roles, private "
        "observations, true answers) included",
    )
    whose.add_argument(
        "--seat", metavar="NAME", default=None, help="only what seat NAME saw, and its own moves"
    )
    p.set_defaults(func=cmd_replay)


def _add_serve_parser(sub: argparse._SubParsersAction) -> None:
    """The ``serve`` command: an offline or local model at an OpenAI-compatible endpoint."""
    p = sub.add_parser(
        "serve",
        help="serve an offline OpenAI-compatible model (no key, no network)",
        description="Serve a model at an OpenAI-compatible endpoint on loopback and print its "
        "base URL for any OpenAI client: a task's offline model (--env: a scripted policy "
        "that reads only the prompt; fault options make it misbehave like a hosted endpoint, "
        "to test a harness), or a real language model on this machine (--gguf FILE or --model "
        "NAME: llama.cpp's server, the `local` extra). Ctrl-C stops it.",
    )
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--env", metavar="ID", help="the task whose offline model to serve")
    which.add_argument("--gguf", metavar="FILE", help="a GGUF model file to serve with llama.cpp")
    which.add_argument(
        "--model", metavar="NAME", help="a known model to serve with llama.cpp (smollm2)"
    )
    p.add_argument(
        "--slots",
        type=_positive_int,
        default=1,
        metavar="K",
        help="with --gguf/--model: requests answered at once (K server processes; default 1)",
    )
    p.add_argument(
        "--n-ctx",
        type=_positive_int,
        default=8192,
        metavar="N",
        help="with --gguf/--model: context window in tokens (default 8192)",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port; 0 picks a free one (default 8000)")
    p.add_argument(
        "--idle-timeout",
        type=_positive_float,
        default=10.0,
        metavar="S",
        help="seconds a connection may send nothing before it is closed (default 10)",
    )
    p.add_argument(
        "--request-timeout",
        type=_positive_float,
        default=10.0,
        metavar="S",
        help="seconds from a request's first byte until all of it must have arrived, however "
        "steadily it trickles (default 10)",
    )
    p.add_argument(
        "--max-connections",
        type=_positive_int,
        default=512,
        metavar="N",
        help="connections open at once; at the bound the one waiting longest for its request "
        "makes room (default 512)",
    )
    _add_fault_arguments(p)
    p.add_argument("--seed", type=int, default=0, help="seed of the fault draws (default 0)")
    p.set_defaults(func=cmd_serve)


def _add_league_parser(sub: argparse._SubParsersAction) -> None:
    """The ``league`` command: a seeded schedule of games, every policy rated on one scale."""
    p = sub.add_parser(
        "league",
        help="play a seeded league among policies and rate them all on one scale (OpenSkill)",
        description="Play a seeded schedule of games among the policies and rate each with "
        "OpenSkill's Plackett-Luce model, with 95% bootstrap intervals over the games. In a "
        "task with sides each game puts one policy on each side, every ordered pair in turn; "
        "in a cooperative task each game is one seed played by two teams of different "
        "policies, seats dealt among them (duplicate play). Each game is an evaluation "
        "directory under --out, so --resume continues an interrupted league game by game.",
    )
    _add_task_arguments(p)
    p.add_argument(
        "--policies",
        required=True,
        metavar="A,B,...",
        help="the policies to rate (two or more team-spec policy names: `mase list` shows them)",
    )
    p.add_argument("--games", type=_positive_int, default=100, help="games (default 100)")
    p.add_argument("--seed", type=int, default=0, help="schedule seed, first game's (default 0)")
    p.add_argument("--out", help="output directory (a directory per game, league.json)")
    p.add_argument("--resume", action="store_true", help="continue an interrupted league")
    p.add_argument(
        "--played",
        action="append",
        metavar="DIR",
        help="a run recorded elsewhere (mase play --web --out DIR, mase eval) whose games join "
        "the league, its people ('human') rated beside the policies (repeatable)",
    )
    p.add_argument("--plot", metavar="FILE.png", help="draw the leaderboard")
    p.add_argument("--quiet", action="store_true", help="no line per game")
    _add_model_arguments(p)
    p.set_defaults(func=cmd_league)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``mase`` command."""
    parser = argparse.ArgumentParser(
        prog="mase",
        description="MASE: multi-agent collaboration tasks for LLM teams and MARL baselines.",
    )
    parser.add_argument("--version", action="version", version=f"mase-suite {mase.__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in (
        _add_list_parser,
        _add_eval_parser,
        _add_play_parser,
        _add_train_parser,
        _add_report_parser,
        _add_crossplay_parser,
        _add_league_parser,
        _add_replay_parser,
        _add_serve_parser,
    ):
        add(sub)
    return parser


#: Stands for "not given" when the command line is read again to see what it gave.
_UNSET = object()


def _subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    """The parser of the command ``name``."""
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return commands.choices[name]


def _given_on_command_line(argv: list[str] | None) -> set[str]:
    """The ``dest`` of every ``mase eval`` option the command line itself gave."""
    parser = build_parser()
    for action in _subparser(parser, "eval")._actions:
        if not isinstance(action, argparse._AppendAction):  # appended to: a list or None
            action.default = _UNSET
    given = vars(parser.parse_args(argv))
    return {dest for dest, value in given.items() if value is not _UNSET and value is not None}


def _file_value(config: RunConfig, action: argparse.Action, value: Any) -> Any:
    """A file's value for an option, checked as the option checks its own (range, choices)."""
    key = next((k for k, d in OPTION_OF.items() if d == action.dest), action.dest)
    if action.type is not None and not isinstance(action, argparse._AppendAction):
        try:
            value = action.type(str(value))
        except (argparse.ArgumentTypeError, ValueError) as exc:
            raise ValueError(f"{config.path}: {key}: {exc}") from None
    if action.choices is not None and value not in action.choices:
        raise ValueError(
            f"{config.path}: {key} must be one of {list(action.choices)}, got {value!r}"
        )
    return value


def _configure(args: argparse.Namespace, argv: list[str] | None = None) -> None:
    """Fill what ``mase eval`` was not given on the command line from ``--config``.

    Every option has its key (:mod:`mase.config`); the command line wins, option by option,
    and ``--env-arg`` pairs win over the file's ``[env_args]`` key by key.
    """
    config = RunConfig.from_file(args.config) if args.config else RunConfig()
    if config.env and args.env and config.env != args.env:
        raise ValueError(f"{config.path} configures {config.env}, not {args.env}")
    given, actions = set(), {}
    if args.config:
        given = _given_on_command_line(argv)
        actions = {a.dest: a for a in _subparser(build_parser(), "eval")._actions}
    for dest, value in config.command_line().items():
        if dest == "env_arg":  # the file's, then the command line's over them
            args.env_arg = [*value, *(args.env_arg or [])]
        elif dest == "modules":  # the file's first: the command line's may build on them
            args.modules = [*value, *(args.modules or [])]
        elif dest not in given:
            setattr(args, dest, _file_value(config, actions[dest], value))
    args.episodes = args.episodes or 10
    args.seed = args.seed if args.seed is not None else 0
    args.unconfined_sandbox = bool(args.unconfined_sandbox)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``mase`` command."""
    args = build_parser().parse_args(argv)
    try:
        if args.command == "eval":
            _configure(args, argv)
        import_modules(getattr(args, "modules", None) or [])  # before any task id is looked up
        return args.func(args)
    except (
        ValueError,
        SandboxUnavailable,
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


__all__ = ["build_parser", "main", "model_endpoint"]
