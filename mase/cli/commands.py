"""The ``mase`` commands: list, eval, play, train, report, serve (the parser is in ``__init__``)."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import importlib
import inspect
import json
import re
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import mase
from mase import sandbox
from mase.agents import HumanPolicy, is_llm, make_policy
from mase.cli.models import FAULT_FLAGS, check_endpoint, model_endpoint, read_faults
from mase.config import parse_env_arg
from mase.presets import Condition, Preset, Team, load_preset, parse_row_models, preset_names
from mase.report import (
    DEFAULT_COLUMNS,
    TOM_TITLE,
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
from mase.runner.teams import entry_names, uses_llm
from mase.wrappers import MessageChannel


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


#: Columns added to the results table when a model played: (metric, header, format).
USAGE_COLUMNS = (
    ("llm_calls", "LLM calls", "{:.0f}"),
    ("llm_tokens", "tokens", "{:.0f}"),
    ("cost_usd", "cost $", "{:.4f}"),
)


#: Said under the table of a run whose model-written programs ran without bubblewrap.
UNCONFINED_LINE = (
    "sandbox: UNCONFINED (--unconfined-sandbox): model-written programs ran under the audit "
    "hook alone, with no operating-system boundary"
)


def _table_columns(summaries: list[dict]) -> tuple[tuple[str, str, str], ...]:
    """The results table's columns: the task's, then usage and belief accuracy if measured.

    The task's are its ``table_columns`` (the defaults when it declares none).
    """
    kwargs = summaries[0].get("env_kwargs") or {} if summaries else {}
    columns = _task_columns({s.get("env_id") for s in summaries} - {None}, kwargs)
    columns = columns or DEFAULT_COLUMNS
    if any(s["metrics"].get("llm_calls") for s in summaries):
        columns += USAGE_COLUMNS
    if any("belief_accuracy" in s["metrics"] for s in summaries):
        columns += (("belief_accuracy", "belief accuracy", "{:.1%}"),)
    return columns


def _task_columns(
    env_ids: set[str], kwargs: dict[str, Any] | None = None
) -> tuple[tuple[str, str, str], ...]:
    """The headline columns the summaries' task declares (one task; none: the defaults).

    The task is built with the first summary's arguments (a protocol's columns depend on
    whether it wraps a task), or with none when those fail.
    """
    if len(env_ids) != 1:
        return ()
    env_id = next(iter(env_ids))
    for tried in (dict(kwargs or {}), {}):
        try:
            env = mase.make(env_id, **tried)
            break
        except Exception:  # arguments it no longer takes, or a task not installed here
            continue
    else:
        return ()
    columns = getattr(env.unwrapped, "table_columns", ())
    env.close()
    return tuple(columns)


def _eval_options(args: argparse.Namespace) -> dict[str, Any]:
    """The :func:`mase.evaluate` arguments every team of a ``mase eval`` shares."""
    return {
        "episodes": args.episodes,
        "seed": args.seed,
        "resume": args.resume,
        "progress": not args.quiet,
        "concurrency": args.concurrency,
        "backend": args.backend,
        "address": args.address,
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
        print("\n" + textwrap.fill(TOM_TITLE, 100))
        print(tom_table(summaries, paper))
    for s in summaries:
        if s.get("usage"):
            print(usage_line(s))
        if belief_line(s):
            print(belief_line(s))


@dataclasses.dataclass
class _EvalPlan:
    """What a ``mase eval`` plays: the task, the rows (teams), the conditions, and models."""

    preset: Preset | None
    env_id: str
    env_kwargs: dict[str, Any]
    rows: list[Team]
    conditions: tuple[Condition, ...]
    row_models: dict[str, str]
    skipped: list[Team]
    given: dict[str, Any]
    named: set[str]

    def kwargs_of(self, row: Team, condition: Condition) -> dict[str, Any]:
        """A row's task arguments under a condition.

        The preset's, the condition's, the row's, then ``--env-arg`` (``NAME.KEY=VALUE`` for
        condition NAME only).
        """
        given, named = self.given, self.named
        mine = {k.split(".", 1)[1]: v for k, v in given.items()
                if named and k.startswith(f"{condition.name}.")}  # fmt: skip
        every = {k: v for k, v in given.items() if not (named and "." in k)}
        return {**self.env_kwargs, **condition.env_kwargs, **row.env_kwargs, **every, **mine}


def _check_eval_backend(args: argparse.Namespace) -> None:
    """``--backend`` and ``--address`` agree, and Ray is there when it is asked for."""
    if args.address and args.backend != "ray":
        raise ValueError("--address names a Ray cluster; add --backend ray")
    if args.backend == "ray":  # said before any team is built or server started
        from mase.runner.distributed import require_ray

        try:
            require_ray()
        except ImportError as exc:
            raise ValueError(str(exc)) from None


def _eval_plan(args: argparse.Namespace) -> _EvalPlan:
    """The rows and conditions ``--preset`` or ``--env`` and ``--team`` give."""
    preset = load_preset(args.preset) if args.preset else None
    given = dict(args.env_arg or [])
    conditions: tuple[Condition, ...] = (Condition(""),)
    if preset is not None:
        if args.env and args.env != preset.env_id:
            raise ValueError(f"preset {args.preset} runs {preset.env_id}, not {args.env}")
        if args.team:
            raise ValueError("--preset runs the preset's own teams; it does not take --team")
        row_models = parse_row_models(args.row_model or "", preset)
        skipped = [t for t in preset.teams if t.needs_model and t.label not in row_models]
        env_id, rows = preset.env_id, [t for t in preset.teams if t not in skipped]
        env_kwargs = dict(preset.env_kwargs)
        conditions = preset.conditions or conditions
    elif args.row_model:
        raise ValueError("--row-model gives a preset's paper rows their models; add --preset")
    elif args.env:
        row_models, skipped = {}, []
        env_id, env_kwargs = args.env, {}
        rows = [Team(spec, spec, messages=True) for spec in args.team or ["scripted"]]
    else:
        raise ValueError("name a task (see `mase list`) or a --preset")
    named = {c.name for c in conditions if c.name}
    unknown = {k.split(".", 1)[0] for k in given if "." in k} - named
    if unknown and named:
        raise ValueError(
            f"--env-arg names conditions {sorted(unknown)}; this preset's: {sorted(named)}"
        )
    return _EvalPlan(
        preset, env_id, env_kwargs, rows, conditions, row_models, skipped, given, named
    )


def _probe_rows(plan: _EvalPlan) -> tuple[dict[str, Any], set[str], dict[str, str]]:
    """Check every row on a probe env of each condition before any episode is played.

    Returns:
        The probe envs (one per distinct settings), the labels of the rows with model seats,
        and the conditions this machine cannot run, with why.
    """
    probes: dict[str, Any] = {}  # one probe env per distinct settings
    llm_rows: set[str] = set()
    missing: dict[str, str] = {}  # conditions this machine cannot run, and why
    for condition in plan.conditions:
        for row in plan.rows:
            kwargs = plan.kwargs_of(row, condition)
            key = repr((condition.env_id, sorted(kwargs.items())))
            if key not in probes:
                try:
                    probes[key] = mase.make(condition.env_id or plan.env_id, **kwargs)
                except FileNotFoundError as exc:  # a program or file the condition needs
                    if not condition.name:
                        raise ValueError(str(exc)) from None
                    missing[condition.name] = str(exc)
                    break
            probe_env = probes[key]
            seats = list(probe_env.possible_agents)
            if uses_llm(row.spec, seats, probe_env.unwrapped.sides):
                llm_rows.add(row.label)
            _check_teams([row], probe_env)  # before the first episode, not after three teams
    return probes, llm_rows, missing


def _evaluate_rows(
    args: argparse.Namespace,
    plan: _EvalPlan,
    llm_rows: set[str],
    missing: dict[str, str],
) -> tuple[dict[str, dict], dict[str, str], str | None]:
    """Evaluate every row under every condition this machine can run.

    Returns:
        Each row's summary (its conditions merged), each row's label in the table, and where
        the model seats' model runs (``None`` when no row has one).
    """
    preset, rows, row_models = plan.preset, plan.rows, plan.row_models
    summaries: dict[str, dict] = {}
    labels: dict[str, str] = {}
    unconfined = sandbox.unconfined_runs(bool(getattr(args, "unconfined_sandbox", False)))
    endpoint = model_endpoint(args, plan.env_id, sorted(llm_rows), preset is not None)
    with unconfined, endpoint as (llm, where):
        check_endpoint(llm)  # a dead endpoint is said now, not after every episode's retries
        model = "offline model" if where and "offline" in where else getattr(llm, "model", None)
        for condition in (c for c in plan.conditions if c.name not in missing):
            for row in rows:
                label, row_llm = row.label, llm
                if row.label in row_models and llm is not None:
                    row_llm = dataclasses.replace(llm, model=row_models[row.label])
                if preset is not None and row.label in llm_rows:
                    label = f"{row.label} ({row_models.get(row.label, model)})"
                labels[row.label] = label
                options = _eval_options(args)
                options["probes"] = options["probes"] or row.probes
                options["belief"] = options["belief"] or row.belief
                out = _row_out(args.out, label, len(rows), preset is not None)
                if out is not None and condition.name:
                    out = out.parent / condition.name / out.name
                summary = evaluate(
                    condition.env_id or plan.env_id,
                    row.spec,
                    out=out,
                    env_kwargs=plan.kwargs_of(row, condition),
                    messages=row.messages and not args.no_messages,
                    label=label,
                    llm=row_llm if row.label in llm_rows else None,
                    about={"served": where} if where and row.label in llm_rows else None,
                    **options,
                )
                if condition.name:
                    summary = _merge_condition(summaries.get(row.label), summary, condition.name)
                summaries[row.label] = summary
    return summaries, labels, where


def _print_eval(
    args: argparse.Namespace,
    plan: _EvalPlan,
    probe_env: Any,
    summaries: dict[str, dict],
    labels: dict[str, str],
    where: str | None,
    missing: dict[str, str],
) -> int:
    """Print a ``mase eval``'s tables and notes; 1 when an episode failed, else 0."""
    preset = plan.preset
    seeds = f"seeds {args.seed}...{args.seed + args.episodes - 1}"
    rules = probe_env.unwrapped.rules_in_play()
    if preset is None:
        print(f"\n{plan.env_id}  ({args.episodes} episodes per team, {seeds})")
        if rules:
            print(textwrap.fill(rules, 100))
        print(results_table(list(summaries.values()), _table_columns(list(summaries.values()))))
        _print_extras(list(summaries.values()))
    else:
        _print_preset(args, preset, summaries, labels, seeds, rules)
    if where:
        print(f"model seats: {where}")
    if getattr(args, "unconfined_sandbox", False):
        print(UNCONFINED_LINE)
    for row in plan.skipped:
        print(f"not run: {row.label} (give it a model: --row-model '{row.paper_row}=MODEL')")
    for name, reason in missing.items():
        print(f"not run: {name} ({reason})")
    if preset is not None and preset.source:
        print(f"paper: {preset.source}")
    if args.out and preset is None:
        print(f"\nrecords: {args.out}")
    failed = _print_failures(list(summaries.values()))
    return 1 if failed else 0


def cmd_eval(args: argparse.Namespace) -> int:
    """Evaluate one or more teams, or a preset's teams, and print the results table.

    One path for both: ``--team`` gives rows of their own (one table), ``--preset`` gives the
    preset's rows and its paper's numbers to print beside them.
    """
    _check_eval_backend(args)
    plan = _eval_plan(args)
    probes, llm_rows, missing = _probe_rows(plan)
    summaries, labels, where = _evaluate_rows(args, plan, llm_rows, missing)
    probe_env = next(iter(probes.values()))
    for env in probes.values():
        if env is not probe_env:
            env.close()
    return _print_eval(args, plan, probe_env, summaries, labels, where, missing)


def _merge_condition(merged: dict | None, summary: dict, name: str) -> dict:
    """One row's summaries over a preset's conditions: each metric as ``KEY@NAME``."""
    merged = merged or {"team": summary.get("team"), "episodes": 0, "metrics": {},
                        "failed": 0, "failures": {}}  # fmt: skip
    merged["metrics"].update({f"{k}@{name}": v for k, v in summary.get("metrics", {}).items()})
    merged["episodes"] += summary.get("episodes", 0)
    merged.setdefault("episodes_by", {})[name] = summary.get("episodes", 0)
    merged["failed"] += summary.get("failed", 0) or 0
    for reason, count in summary.get("failures", {}).items():
        merged["failures"][reason] = merged["failures"].get(reason, 0) + count
    if summary.get("tom") and not merged.get("tom"):  # the first condition's probes
        merged["tom"] = summary["tom"]
    for key, value in summary.get("usage", {}).items():  # what every condition used
        usage = merged.setdefault("usage", {})
        usage[key] = usage.get(key, 0) + value if isinstance(value, int | float) else value
    return merged


def _check_teams(rows: list[Team], env: Any) -> None:
    """Build every policy of every row once and seat it, before any episode is played.

    A missing extra, an unknown name or a checkpoint trained for other seats is said at once,
    not after the teams before it have played. Model seats are checked by the endpoint's
    set-up instead (they need no install).
    """
    seats = list(env.possible_agents)
    env.reset(seed=0)
    sides = env.unwrapped.sides
    for row in rows:
        entries = parse_team(row.spec, seats, sides).items()
        for seat, name in ((s, n) for s, entry in entries for n in entry_names(entry)):
            if is_llm(name):
                continue
            try:
                policy = make_policy(name, env)
                reset = getattr(policy, "reset", None)
                if callable(reset) and not isinstance(policy, HumanPolicy):
                    reset(seat, env)
            except ImportError as exc:
                raise ValueError(
                    f"team {row.label!r}: policy {name!r} needs {exc.name or exc}, which is not "
                    "installed: pip install 'mase-suite[rl]'"
                ) from None
            except (TypeError, ValueError, FileNotFoundError) as exc:
                raise ValueError(f"team {row.label!r}, seat {seat}: {exc}") from None


def _print_failures(summaries: list[dict]) -> int:
    """Each team's failed episodes, one line per distinct reason; the number that failed."""
    failed = 0
    for summary in summaries:
        for reason, count in summary.get("failures", {}).items():
            team = summary.get("team", "?")
            print(f"{team}: {count} episode(s) failed: {reason}", file=sys.stderr)
            failed += count
    return failed


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
    rules: str = "",
) -> None:
    """The preset's table with the paper's numbers, its notes and the extras."""
    print(f"\n{preset.env_id}: {args.preset} ({args.episodes} episodes per team, {seeds})")
    if rules:
        print(textwrap.fill(rules, 100))
    if preset.by_condition:
        for condition in preset.conditions:
            mine = tuple(c for c in preset.columns if c[0].endswith(f"@{condition.name}"))
            if mine:
                print(f"\n{condition.name}: {condition.env_id or preset.env_id}")
                shown = {label: {**s, "episodes": s.get("episodes_by", {}).get(condition.name, 0)}
                         for label, s in summaries.items()}  # fmt: skip
                table = comparison_table(dataclasses.replace(preset, columns=mine), shown, labels)
                print(table)
        print()
    else:
        print(comparison_table(preset, summaries, labels))
    for note in preset.notes:
        print(textwrap.fill(note, 100))
    ran = [t for t in preset.teams if t.label in summaries]
    paper = {labels[t.label]: preset.paper[t.paper_row] for t in ran if t.paper_row in preset.paper}
    _print_extras([summaries[t.label] for t in ran], paper)


def cmd_play(args: argparse.Namespace) -> int:
    """A person plays one seat in the terminal (or, with ``--web``, people in browsers)."""
    if getattr(args, "web", False):
        from mase.cli.web import cmd_play_web

        return cmd_play_web(args)
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


def env_arg(text: str) -> tuple[str, Any]:
    """``KEY=VALUE``, the value read as :func:`mase.config.parse_env_arg` reads it."""
    try:
        return parse_env_arg(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


#: The help of ``--env-arg``, the one way every command takes task arguments.
ENV_ARG_HELP = (
    "task argument, e.g. --env-arg max_cycles=20 (repeatable); the value is JSON when it "
    'parses as JSON (20, true, [1, 2], {"a": 1}), else a Python literal, else text'
)


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
        if f.name == "env_kwargs":  # the task's arguments: as every command takes them
            _add_env_arguments(parser, docs.get(f.name, ""), default)
            continue
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


def _add_env_arguments(parser: argparse.ArgumentParser, doc: str, default: dict) -> None:
    """A trainer's task arguments: ``--env-arg KEY=VALUE``, and ``--env-kwargs JSON`` (old)."""
    parser.add_argument(
        "--env-arg",
        action="append",
        type=env_arg,
        metavar="KEY=VALUE",
        help=f"{ENV_ARG_HELP}. They go over the trainer's own when --env is its default task "
        f"({json.dumps(default)}: {doc}), over none for another task",
    )
    parser.add_argument(
        "--env-kwargs",
        type=json.loads,
        default=None,
        metavar="JSON",
        help="deprecated, use --env-arg: the task's arguments as one JSON object, in place of "
        "the trainer's own (--env-arg pairs go over it)",
    )


def _train_env_kwargs(cls: type, options: dict[str, Any]) -> dict[str, Any]:
    """The task arguments a ``mase train`` command line gives (see :func:`_add_env_arguments`).

    The trainer's own (its ``Args.env_kwargs``) are for its default task; another ``--env``
    starts from none. ``--env-kwargs JSON`` replaces them; ``--env-arg`` pairs go on top.
    """
    defaults = cls()
    kwargs = dict(defaults.env_kwargs) if options.get("env") == defaults.env else {}
    given = options.pop("env_kwargs", None)
    if given is not None:
        if not isinstance(given, dict):
            raise ValueError(f"--env-kwargs takes a JSON object, got {json.dumps(given)}")
        print("mase train: --env-kwargs is deprecated; use --env-arg KEY=VALUE", file=sys.stderr)
        kwargs = dict(given)
    return {**kwargs, **dict(options.pop("env_arg", None) or [])}


def _trainer(name: str) -> Any:
    module_name, _ = mase.baselines.TRAINERS[name]
    try:
        return importlib.import_module(module_name)
    except ImportError as exc:
        raise SystemExit(
            f"mase train {name} needs the RL extra ({exc.name} is missing): "
            "pip install 'mase-suite[rl]'"
        ) from None


def train_settings(trainer: str, options: list[str]) -> Any:
    """The settings (the trainer's ``Args``) that ``mase train TRAINER OPTIONS...`` runs with.

    So a documented command (``TRAINING_COMMAND`` of a task's ``policies``) can be read back
    as it would run, e.g. ``train_settings("mappo", shlex.split(command)[3:])``.
    """
    module = _trainer(trainer)
    summary = mase.baselines.TRAINERS[trainer][1]
    parser = argparse.ArgumentParser(prog=f"mase train {trainer}", description=summary)
    add_dataclass_arguments(parser, module.Args)
    chosen = vars(parser.parse_args(options))
    if any(f.name == "env_kwargs" for f in dataclasses.fields(module.Args)):
        chosen["env_kwargs"] = _train_env_kwargs(module.Args, chosen)
    return module.Args(**chosen)


def cmd_train(args: argparse.Namespace) -> int:
    """Train a baseline; its options come from the fields of its ``Args`` dataclass."""
    module = _trainer(args.trainer)
    settings = train_settings(args.trainer, args.options)
    out = Path(getattr(settings, "out", "") or ".")
    if getattr(settings, "out", None) and out.is_dir() and any(out.iterdir()):
        raise ValueError(
            f"{out} already holds files (a run?); choose another --out, or remove it first"
        )
    path = module.train(settings)
    print(f"saved {path}")
    if getattr(settings, "tensorboard", False):
        print(f"TensorBoard events under {out}: tensorboard --logdir {out}")
    return 0


def cmd_crossplay(args: argparse.Namespace) -> int:
    """Play every pairing of the policies (:mod:`mase.crossplay`), print and plot the matrix."""
    from mase.crossplay import cell_team, crossplay, plot_crossplay

    policies = [p.strip() for p in args.policies.split(",") if p.strip()]
    columns = [p.strip() for p in (args.columns or "").split(",") if p.strip()] or policies
    if _png_plot_unusable(args):  # before anything is played
        return 2
    env_kwargs = dict(args.env_arg or [])
    probe = mase.make(args.env, **env_kwargs)
    probe.reset(seed=0)
    seats, sides = list(probe.possible_agents), probe.unwrapped.sides
    teams = [cell_team(probe, r, c)[0] for r in policies for c in columns]
    llm_teams = sorted({t for t in teams if uses_llm(t, seats, sides)})
    probe.close()
    with model_endpoint(args, args.env, llm_teams) as (llm, where):
        result = crossplay(
            args.env,
            policies,
            columns,
            episodes=args.episodes,
            seed=args.seed,
            out=args.out,
            resume=args.resume,
            metric=args.metric,
            env_kwargs=env_kwargs,
            progress=not args.quiet,
            llm=llm,
            concurrency=args.concurrency,
            messages=not args.no_messages,
        )
    seeds = f"seeds {args.seed}...{args.seed + args.episodes - 1}"
    print(f"\n{args.env}: cross-play on {result.label} (metric {result.metric};")
    print(f"{args.episodes} episodes a cell, {seeds};", end=" ")
    print(f"rows: {result.row_role}, columns: {result.column_role}; mean [95% interval])")
    print(result.table())
    if where:
        print(f"model seats: {where}")
    if args.plot:
        print(f"plot: {plot_crossplay(result, args.plot)}")
    if args.out:
        print(f"records: {args.out} (a directory a cell; crossplay.json)")
    return 1 if all(c.mean is None for c in result.cells) else 0


def cmd_replay(args: argparse.Namespace) -> int:
    """Write the HTML page of one recorded episode (:mod:`mase.replay`) and print its path."""
    from mase.replay import write_replay

    view = "analyst" if args.analyst else (args.seat or "common")
    path = write_replay(args.run_dir, args.episode, args.out, prompts=args.prompts, view=view)
    print(f"replay: {path} ({view} view; open it in a browser, no server needed)")
    return 0


def cmd_league(args: argparse.Namespace) -> int:
    """Play a league (:mod:`mase.league`), print and plot the leaderboard."""
    from mase.league import league, plot_leaderboard, schedule

    policies = [p.strip() for p in args.policies.split(",") if p.strip()]
    if _png_plot_unusable(args):  # before anything is played
        return 2
    env_kwargs = dict(args.env_arg or [])
    probe = mase.make(args.env, **env_kwargs)
    seats, sides = tuple(probe.possible_agents), tuple(probe.unwrapped.sides)
    probe.close()
    plan = schedule(policies, args.games, args.seed, seats, sides)
    specs = {",".join(f"{k}={v}" for k, v in t.items()) for g in plan for t in g.teams}
    llm_teams = sorted(t for t in specs if uses_llm(t, list(seats), sides))
    with model_endpoint(args, args.env, llm_teams) as (llm, where):
        board = league(args.env, policies, games=args.games, seed=args.seed, out=args.out,
                       resume=args.resume, env_kwargs=env_kwargs, progress=not args.quiet,
                       played=args.played or (), llm=llm,
                       messages=not args.no_messages)  # fmt: skip
    print(f"\n{args.env}: league of {len(policies)} policies, {args.games} games, seed {args.seed}")
    print(board.table())
    if where:
        print(f"model seats: {where}")
    if args.plot:
        print(f"plot: {plot_leaderboard(board, args.plot)}")
    if args.out:
        print(f"records: {args.out} (a directory a game; league.json)")
    return 0 if board.played else 1


def _png_plot_unusable(args: argparse.Namespace) -> bool:
    """Whether ``--plot`` cannot be drawn (as :func:`_plotting_missing`).

    Raises:
        ValueError: ``--plot`` names no ``.png`` file.
    """
    if args.plot and not args.plot.endswith(".png"):
        raise ValueError(f"--plot writes a PNG file: give FILE.png, not {args.plot!r}")
    return _plotting_missing(args)


def _plotting_missing(args: argparse.Namespace) -> bool:
    """Whether ``--plot`` was asked for where matplotlib is missing (then it says so, once)."""
    from mase.report.plots import PlottingUnavailable, pyplot

    if not getattr(args, "plot", None):
        return False
    try:
        pyplot()
    except PlottingUnavailable as exc:
        print(f"mase {args.command}: error: --plot: {exc}", file=sys.stderr)
        return True
    return False


def _by_task(summaries: list[dict]) -> dict[str, list[dict]]:
    """The summaries of each task, tasks in the order they come."""
    groups: dict[str, list[dict]] = {}
    for s in summaries:
        groups.setdefault(s.get("env_id", "?"), []).append(s)
    return groups


def _report_tables(summaries: list[dict], records: dict, metric: str | None) -> list[Any]:
    """The report's tables, a set per task with that task's columns (keys name the task)."""
    from mase.report import Table, report_tables

    known = sorted({k for s in summaries for k in s["metrics"]})
    if metric is not None and metric not in known:
        raise ValueError(f"no summary has metric {metric!r}; they have {', '.join(known)}")
    groups = _by_task(summaries)
    tables = []
    for env_id, runs in groups.items():
        held = {k for s in runs for k in s["metrics"]}
        chosen = metric if metric in held else None
        for t in report_tables(runs, _table_columns(runs), records, chosen):
            key = f"{t.key} {env_id}" if len(groups) > 1 else t.key
            tables.append(Table(key, *t[1:]))
    return tables


def cmd_report(args: argparse.Namespace) -> int:
    """Print the tables of evaluation directories in a format; plot them and curves if asked.

    The tables, a set per task: results (mean ± sd), confidence intervals (each metric's own
    method, and the IQM's), probability of improvement between teams, ToM accuracy. Notes that
    are not tables go to stderr for ``csv`` and ``json``, so that stdout stays one document.
    First come a few lines a run on what it was (:func:`mase.provenance.provenance_lines`:
    version, commit, models, endpoint, wrappers and probes). ``--plot`` where matplotlib is
    missing is a one-line error naming the ``plot`` extra.
    """
    from mase.provenance import provenance_lines, unrecorded_line
    from mase.report import load_records, render_tables

    if _plotting_missing(args):
        return 2
    text = args.format in ("table", "markdown")
    notes = sys.stdout if text else sys.stderr
    summaries = load_summaries(args.paths)
    logs = find_training_logs(args.paths)
    if not summaries and not logs:
        print(f"no summary.json or training log under {', '.join(args.paths)}", file=sys.stderr)
        return 1
    records = load_records(summaries) if summaries else {}
    for line in provenance_lines(summaries):  # what each run was, before its numbers
        print(line, file=notes)
    if summaries:
        print(render_tables(_report_tables(summaries, records, args.metric), args.format))
        unconfined = [s.get("team", "?") for s in summaries if s.get("sandbox") == "unconfined"]
        if unconfined:
            print(f"{UNCONFINED_LINE}: {', '.join(unconfined)}", file=notes)
        for s in summaries:
            for line in (usage_line(s) if s.get("usage") else None, belief_line(s)):
                if line:
                    print(line, file=notes)
        if unrecorded_line(summaries):
            print(unrecorded_line(summaries), file=notes)
    if args.plot:
        from mase.report.plots import plot_evaluations

        if summaries:
            columns = {
                env_id: [c for c in _table_columns(runs) if c not in USAGE_COLUMNS]
                for env_id, runs in _by_task(summaries).items()
            }
            drawn = plot_evaluations(summaries, columns, args.plot, records)
            print(f"evaluation plot: {drawn}", file=notes)
        if logs:  # beside the evaluation plot when there is one
            path = Path(args.plot)
            curves = path.with_name(f"{path.stem}-curves{path.suffix}") if summaries else path
            print(f"learning curves: {plot_learning_curves(logs, curves)}", file=notes)
    elif logs:
        logs_line = "training logs: " + ", ".join(map(str, logs))
        print(logs_line + " (add --plot FILE.png to draw)", file=notes)
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve a task's offline model, or a real model with llama.cpp, until Ctrl-C."""
    import errno

    if args.gguf or args.model:
        return _serve_local(args)

    # imported here: the other commands should not pay for the server and its responder
    from mase.llm import offline_server

    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be between 0 and 65535, got {args.port}")
    try:
        server = offline_server(
            args.env,
            faults=read_faults(args),
            port=args.port,
            host=args.host,
            idle_timeout=args.idle_timeout,
            request_timeout=args.request_timeout,
            max_connections=args.max_connections,
        )
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise ValueError(
                f"port {args.port} on {args.host} is in use; choose another with --port, "
                "or 0 for a free one"
            ) from None
        raise ValueError(f"cannot serve on {args.host} port {args.port}: {exc}") from None
    print(server.base_url, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


def _serve_local(args: argparse.Namespace) -> int:
    """``mase serve --gguf FILE`` / ``--model NAME``: llama.cpp's server until Ctrl-C."""
    from mase.llm.local import LocalServer, about, find_gguf

    given = args.gguf or args.model
    faults = [f for f in ("latency", *(n.replace("-", "_") for n in FAULT_FLAGS))
              if getattr(args, f)]  # fmt: skip
    if faults:
        raise ValueError("the fault options make the offline model misbehave; use them with --env")
    gguf = find_gguf(given)
    server = LocalServer(gguf, host=args.host, port=args.port, n_ctx=args.n_ctx, slots=args.slots)
    try:
        server.start()
    except (ModuleNotFoundError, RuntimeError) as exc:
        raise ValueError(str(exc)) from None
    print(server.base_url, flush=True)
    print(
        f"model {server.alias}: {about(given)}, {args.slots} slot(s); use it with "
        f"--base-url {server.base_url} --model {server.alias} --timeout 600 (a slow model: "
        "a request may wait for a free slot)",
        file=sys.stderr,
        flush=True,
    )
    try:
        while server.alive():
            time.sleep(0.5)
        print(f"the model server ended: {server.log_tail()}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        server.stop()
