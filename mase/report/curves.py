"""Learning curves: the training logs MASE writes, read and drawn.

A panel per task and curve, never two tasks on one axis: a log's task is the ``env`` of the
``args.json`` its trainer writes beside it. Panels are named for people (:data:`CURVE_LABELS`)
and a share's axis spans [0, 1]. Drawing needs matplotlib (the ``plot`` extra).
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

#: Step columns of the training logs MASE writes (its own metrics.csv, SB3's progress.csv).
STEP_COLUMNS = ("global_step", "time/total_timesteps")
#: Prefixes of the columns drawn as learning curves.
CURVE_PREFIXES = ("charts/", "rollout/")
#: Names for people of the curve columns MASE's trainers (and SB3) write, with their units.
CURVE_LABELS = {
    "charts/episodic_return": "Return per episode (learner seats' mean)",
    "charts/episodic_score": "Score per episode (team score)",
    "charts/episodic_rounds": "Rounds per episode",
    "charts/success_rate": "Success rate (share of episodes)",
    "charts/win_rate": "Win rate (share of episodes with a positive return)",
    "charts/sps": "Training speed (agent turns per second)",
    "rollout/ep_rew_mean": "Return per episode (SB3's rollout mean)",
    "rollout/ep_len_mean": "Episode length (the learner's steps, SB3's rollout mean)",
}
#: Curve columns that are shares, drawn on [0, 1].
SHARES = ("charts/success_rate", "charts/win_rate")


def curve_label(column: str) -> str:
    """A curve column's name for people: :data:`CURVE_LABELS`, else the key in words.

    >>> curve_label("charts/episodic_rounds"), curve_label("charts/bombs_defused")
    ('Rounds per episode', 'Bombs defused')
    """
    if column in CURVE_LABELS:
        return CURVE_LABELS[column]
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
    """The step column's name and ``{column: [(step, value), ...]}`` for each curve column."""
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
            if column.startswith(CURVE_PREFIXES) and value not in ("", None):
                curves.setdefault(column, []).append((float(row[step]), float(value)))
    return step, curves


def log_task(log: Path) -> str:
    """The task a training log is of: ``env`` in the ``args.json`` beside it (``""``: unknown)."""
    try:
        return str(json.loads((log.parent / "args.json").read_text()).get("env") or "")
    except (OSError, ValueError, AttributeError):
        return ""


def curve_panels(logs: Sequence[Path]) -> list[dict[str, Any]]:
    """The panels to draw: ``{"task", "column", "title", "series"}``, one per task and column.

    ``series`` is ``[(run name, [(step, value), ...])]``, a run per log of that task.
    """
    panels: dict[tuple[str, str], list[tuple[str, list[tuple[float, float]]]]] = {}
    for log in logs:
        task = log_task(log)
        _, curves = read_curves(log)
        for column, points in curves.items():
            panels.setdefault((task, column), []).append((log.parent.name, points))
    return [
        {
            "task": task,
            "column": column,
            "title": f"{task}: {curve_label(column)}" if task else curve_label(column),
            "series": series,
        }  # fmt: skip
        for (task, column), series in sorted(panels.items())
    ]


def plot_learning_curves(logs: Sequence[Path], out: str | os.PathLike) -> Path:
    """Draw every curve column of every log, a panel per task and column, into a PNG.

    Raises:
        ValueError: no curve column in the logs.
        mase.report.plots.PlottingUnavailable: matplotlib is missing (the message names the
            ``plot`` extra).
    """
    from mase.report.plots import pyplot

    panels = curve_panels(logs)
    if not panels:
        raise ValueError("no learning-curve columns (charts/..., rollout/...) in the logs")
    plt = pyplot()
    fig, axes = plt.subplots(len(panels), 1, figsize=(7, 2.6 * len(panels)), squeeze=False)
    for ax, panel in zip(axes[:, 0], panels, strict=True):
        for label, points in panel["series"]:
            xs, ys = zip(*points, strict=True)
            # a line through one point draws nothing: mark it
            ax.plot(xs, ys, label=label, marker="o" if len(xs) == 1 else None)
        ax.set_title(panel["title"], fontsize=10)
        ax.set_ylabel(curve_label(panel["column"]).split(" (")[0], fontsize=8)
        if panel["column"] in SHARES:
            ax.set_ylim(0.0, 1.0)
        ax.set_xlabel("agent turns")
        ax.grid(alpha=0.3)
        if len(panel["series"]) > 1:
            ax.legend()
    fig.tight_layout()
    out = Path(out)
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out
