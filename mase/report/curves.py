"""Learning curves: the training logs MASE writes, read and drawn."""

from __future__ import annotations

import csv
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    pass


#: Step columns of the training logs MASE writes (its own metrics.csv, SB3's progress.csv).
STEP_COLUMNS = ("global_step", "time/total_timesteps")
#: Prefixes of the columns drawn as learning curves.
CURVE_PREFIXES = ("charts/", "rollout/")


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


def plot_learning_curves(logs: Sequence[Path], out: str | os.PathLike) -> Path:
    """Draw every curve column of every log, one panel per column, into a PNG."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SystemExit("plots need matplotlib: pip install 'mase-suite[rl]'") from None
    panels: dict[str, list[tuple[str, list[tuple[float, float]]]]] = {}
    for log in logs:
        _, curves = read_curves(log)
        for column, points in curves.items():
            panels.setdefault(column, []).append((log.parent.name, points))
    if not panels:
        raise ValueError("no learning-curve columns (charts/..., rollout/...) in the logs")
    fig, axes = plt.subplots(len(panels), 1, figsize=(7, 2.6 * len(panels)), squeeze=False)
    for ax, (column, series) in zip(axes[:, 0], sorted(panels.items()), strict=True):
        for label, points in series:
            xs, ys = zip(*points, strict=True)
            # a line through one point draws nothing: mark it
            ax.plot(xs, ys, label=label, marker="o" if len(xs) == 1 else None)
        ax.set_title(column)
        ax.set_xlabel("agent turns")
        ax.grid(alpha=0.3)
        if len(series) > 1:
            ax.legend()
    fig.tight_layout()
    out = Path(out)
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out
