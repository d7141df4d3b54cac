"""Learning curves: the training logs MASE writes, read and drawn.

A panel per task and curve, never two tasks on one axis: a log's task is the ``env`` of the
``args.json`` its trainer writes beside it (or, for a side's log in ``RUN/SIDE/``, in the run's
folder). Panels are named for people (:data:`CURVE_LABELS`); their axes are honest: a share
spans [0, 1], a task metric (score, rounds) the range the task declares for it
(``metric_specs``), and any other axis reaches zero. The horizontal axis is what the log's step
counts: every seat's turns, or the learning side's. Columns that measure the machine's speed
rather than the learning (:data:`SPEED_COLUMNS`) are not drawn. Drawing needs matplotlib (the
``plot`` extra).
"""

from __future__ import annotations

import csv
import json
import math
import os
import textwrap
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

#: Step columns of the training logs MASE writes (its own metrics.csv, SB3's progress.csv).
STEP_COLUMNS = ("global_step", "time/total_timesteps")
#: Prefixes of the columns drawn as learning curves (``win/MEMBER``: self-play's win rates).
CURVE_PREFIXES = ("charts/", "rollout/", "win/")
#: Columns of those groups that measure the machine, not the learning: never drawn.
SPEED_COLUMNS = ("charts/sps",)
#: Names for people of the curve columns MASE's trainers (and SB3) write, with their units.
CURVE_LABELS = {
    "charts/episodic_return": "Return per episode (learner seats' mean)",
    "charts/episodic_score": "Score per episode (team score)",
    "charts/episodic_rounds": "Rounds per episode",
    "charts/success_rate": "Success rate (share of episodes)",
    "charts/win_rate": "Win rate (share of episodes with a positive return)",
    "charts/sps": "Training speed (agent turns per second)",
    "rollout/ep_rew_mean": "Return per episode (a seat's, SB3's rollout mean)",
    # SB3 steps a batch of worlds a round at a time (mase.baselines.sb3.vec): a step is a round
    "rollout/ep_len_mean": "Rounds per episode (SB3's episode length)",
}
#: Curve columns that are shares, drawn on [0, 1] (and every ``win/`` column).
SHARES = ("charts/success_rate", "charts/win_rate")
#: The task metric (of its ``metric_specs``) whose range a curve column's axis spans.
TASK_METRICS = {
    "charts/episodic_score": "score",
    "charts/episodic_rounds": "rounds",
    "rollout/ep_len_mean": "rounds",
}
#: Columns that measure what another column does, drawn on its panel (SB3's episode length is
#: its rounds per episode: a step of its env is a round).
SAME_AS = {"rollout/ep_len_mean": "charts/episodic_rounds"}
#: What each point of a log is, by the log's file name (the window its trainer averages over).
WINDOWS = {
    "metrics.csv": "MASE's trainers: each point is the mean of the last 200 episodes",
    "progress.csv": "SB3: each point is the mean of the last 100 episodes",
}


def curve_label(column: str) -> str:
    """A curve column's name for people: :data:`CURVE_LABELS`, else the key in words.

    >>> curve_label("charts/episodic_rounds"), curve_label("charts/bombs_defused")
    ('Rounds per episode', 'Bombs defused')
    >>> curve_label("win/deduction")
    'Win rate against deduction (share of episodes)'
    """
    if column in CURVE_LABELS:
        return CURVE_LABELS[column]
    if column.startswith("win/"):
        return f"Win rate against {column[4:]} (share of episodes)"
    words = column.split("/", 1)[-1].replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def find_training_logs(paths: Iterable[str | os.PathLike]) -> list[Path]:
    """Training logs (``metrics.csv`` or ``progress.csv``) under the given directories."""
    found = []
    for p in map(Path, paths):
        if p.is_dir():
            found += sorted(p.rglob("metrics.csv")) + sorted(p.rglob("progress.csv"))
    return found


def read_curves(path: Path) -> tuple[str, dict[str, list[tuple[float, float]]]]:
    """The step column's name and ``{column: [(step, value), ...]}`` for each curve column.

    Speed columns (:data:`SPEED_COLUMNS`) are left out, and so is a column with no number
    (a win rate against a member never met is ``nan`` all along).
    """
    with path.open() as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return "", {}
    step = next((c for c in STEP_COLUMNS if c in rows[0]), None)
    if step is None:
        raise ValueError(f"{path} has none of the step columns {STEP_COLUMNS}")
    curves: dict[str, list[tuple[float, float]]] = {}
    for row in rows:
        for column, value in row.items():
            if (
                column.startswith(CURVE_PREFIXES)
                and column not in SPEED_COLUMNS
                and value not in ("", None)
            ):
                curves.setdefault(column, []).append((float(row[step]), float(value)))
    return step, {c: p for c, p in curves.items() if not all(math.isnan(v) for _, v in p)}


def run_args(log: Path) -> tuple[dict[str, Any], str]:
    """The ``args.json`` of a log's run, and the side whose log it is (``""``: the run's).

    A trainer writes ``args.json`` beside its log; self-play writes one log a side, in
    ``RUN/SIDE/metrics.csv``, and ``args.json`` in ``RUN``.
    """
    for folder, side in ((log.parent, ""), (log.parent.parent, log.parent.name)):
        try:
            args = json.loads((folder / "args.json").read_text())
        except (OSError, ValueError):
            continue
        if isinstance(args, dict):
            return args, side
    return {}, ""


def log_task(log: Path) -> str:
    """The task a training log is of: ``env`` in its run's ``args.json`` (``""``: unknown)."""
    return str(run_args(log)[0].get("env") or "")


def run_name(log: Path) -> str:
    """A log's name in a legend: its folder, and its run's folder for a side's log."""
    _, side = run_args(log)
    return f"{log.parent.parent.name} {side}" if side else log.parent.name


def run_names(logs: Sequence[Path]) -> dict[Path, str]:
    """Each log's :func:`run_name`, and the task arguments in which its task's runs differ.

    One task id may be played under other rules: ``big (players=7)``.
    """
    kwargs = {log: run_args(log)[0].get("env_kwargs") or {} for log in logs}
    names = {}
    for log in logs:
        twins = [kwargs[other] for other in logs if log_task(other) == log_task(log)]
        keys = sorted({k for kw in twins for k in kw if any(kw.get(k) != t.get(k) for t in twins)})
        given = ", ".join(f"{k}={kwargs[log][k]}" for k in keys if k in kwargs[log])
        names[log] = f"{run_name(log)} ({given})" if given else run_name(log)
    return names


def step_label(log: Path) -> str:
    """What a log's step counts: every seat's turns, or the learning side's."""
    args, side = run_args(log)
    side = side or str(args.get("learn") or "")
    return f"learner turns (the {side} side's)" if side else "agent turns (every seat's)"


def task_ranges(task: str, env_kwargs: dict[str, Any]) -> dict[str, tuple[float, float | None]]:
    """``{metric: (low, high)}`` of the task's ``metric_specs`` under the run's arguments.

    Empty when the task cannot be built here (not installed, arguments it no longer takes).
    """
    if not task:
        return {}
    import mase

    for kwargs in (env_kwargs, {}):
        try:
            env = mase.make(task, **kwargs)
        except Exception:  # a task or an argument this installation does not know
            continue
        specs = getattr(env.unwrapped, "metric_specs", dict)()
        env.close()
        return {k: (m.low, m.high) for k, m in specs.items() if m.low is not None}
    return {}


def curve_range(column: str, ranges: dict[str, tuple[float, float | None]]) -> tuple:
    """The range a column's axis spans: ``(low, high)``, ``None`` where the data decide."""
    if column in SHARES or column.startswith("win/"):
        return (0.0, 1.0)
    if TASK_METRICS.get(column) in ranges:
        return ranges[TASK_METRICS[column]]
    return (None, None)


def curve_panels(logs: Sequence[Path]) -> list[dict[str, Any]]:
    """The panels to draw, one per task and column (a :data:`SAME_AS` column on its twin's).

    Each is ``{"task", "column", "title", "ylabel", "xlabel", "range", "series"}``: ``series``
    is ``[(run name, [(step, value), ...])]``, a run per log of that task; ``range`` the
    axis's ``(low, high)`` of :func:`curve_range`.
    """
    panels: dict[tuple[str, str], list[tuple[str, list[tuple[float, float]]]]] = {}
    steps: dict[tuple[str, str], set[str]] = {}
    ranges: dict[str, dict] = {}
    names = run_names(logs)
    for log in logs:
        task = log_task(log)
        if task not in ranges:
            ranges[task] = task_ranges(task, run_args(log)[0].get("env_kwargs") or {})
        _, curves = read_curves(log)
        for column, points in curves.items():
            key = (task, SAME_AS.get(column, column))
            panels.setdefault(key, []).append((names[log], points))
            steps.setdefault(key, set()).add(step_label(log))
    out = []
    for (task, column), series in sorted(panels.items()):
        label = curve_label(column)
        counted = steps[(task, column)]
        out.append({
            "task": task,
            "column": column,
            "title": f"{task}: {label}" if task else label,
            "ylabel": label.split(" (")[0],
            "xlabel": counted.pop() if len(counted) == 1 else "learner turns (each run's side's)",
            "range": curve_range(column, ranges[task]),
            "series": series,
        })  # fmt: skip
    return out


def axis_limits(panel: dict[str, Any]) -> tuple[float, float]:
    """A panel's vertical limits: its range, else the data and zero; 3% room at each end."""
    values = [v for _, points in panel["series"] for _, v in points if not math.isnan(v)] or [0.0]
    low, high = panel["range"]
    bottom = min(0.0, *values) if low is None else min(low, *values)
    top = max(0.0, *values) if high is None else max(high, *values)
    top = top if top > bottom else bottom + 1.0
    room = 0.03 * (top - bottom)
    return bottom - room, top + room


def turns(value: float, _position: Any = None) -> str:
    """A tick of agent turns for people: ``500k``, ``1.5M``.

    >>> turns(0), turns(2500), turns(1_500_000)
    ('0', '2.5k', '1.5M')
    """
    for size, unit in ((1e6, "M"), (1e3, "k")):
        if abs(value) >= size:
            return f"{value / size:g}{unit}"
    return f"{value:g}"


def plot_learning_curves(logs: Sequence[Path], out: str | os.PathLike) -> Path:
    """Draw every curve column of every log, a panel per task and column, into a PNG.

    Raises:
        ValueError: no curve column in the logs.
        mase.report.plots.PlottingUnavailable: matplotlib is missing (the message names the
            ``plot`` extra).
    """
    from mase.report.plots import pyplot, save_figure

    panels = curve_panels(logs)
    if not panels:
        raise ValueError("no learning-curve columns (charts/..., rollout/...) in the logs")
    plt = pyplot()
    from matplotlib.ticker import FuncFormatter

    fig, axes = plt.subplots(
        len(panels), 1, figsize=(7, 0.4 + 2.8 * len(panels)), squeeze=False, layout="constrained"
    )
    for ax, panel in zip(axes[:, 0], panels, strict=True):
        for label, points in panel["series"]:
            xs, ys = zip(*points, strict=True)
            # a line through one point draws nothing: mark it
            ax.plot(xs, ys, label=label, marker="o" if len(xs) == 1 else None)
        ax.set_title(panel["title"], fontsize=10)
        ax.set_ylabel(panel["ylabel"], fontsize=8)
        ax.set_ylim(*axis_limits(panel))
        ax.set_xlim(left=0.0)
        ax.set_xlabel(panel["xlabel"], fontsize=8)
        ax.xaxis.set_major_formatter(FuncFormatter(turns))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, title="run", title_fontsize=8)
    windows = sorted({WINDOWS[log.name] for log in logs if log.name in WINDOWS})
    if windows:
        fig.suptitle(textwrap.fill("Learning curves. " + "; ".join(windows) + ".", 90), fontsize=9)
    return save_figure(fig, out)
