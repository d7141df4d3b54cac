"""Tables from evaluation output directories (``summary.json`` files)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

#: Columns of the main results table: (metric key, header, format of mean and std).
DEFAULT_COLUMNS = (
    ("score", "score", "{:.1f}"),
    ("rounds", "rounds", "{:.1f}"),
    ("valid_action_rate", "valid action", "{:.1%}"),
)


def find_summaries(paths: Iterable[str | os.PathLike]) -> list[Path]:
    """Every ``summary.json`` in the given directories (searched recursively) or files."""
    found = []
    for p in map(Path, paths):
        if p.is_file():
            found.append(p)
        elif p.is_dir():
            found.extend(sorted(p.rglob("summary.json")))
        else:
            raise FileNotFoundError(f"{p} does not exist")
    return found


def load_summaries(paths: Iterable[str | os.PathLike]) -> list[dict]:
    """Read the summaries under ``paths``; each gets a ``"path"`` key."""
    return [{**json.loads(p.read_text()), "path": str(p.parent)} for p in find_summaries(paths)]


def mean_std(metric: dict | None, fmt: str) -> str:
    """``"43.0 ± 4.7"`` from a summary metric entry (``"-"`` when missing)."""
    if not metric:
        return "-"
    return f"{fmt.format(metric['mean'])} ± {fmt.format(metric['std'])}"


def results_table(
    summaries: Sequence[dict],
    columns: Sequence[tuple[str, str, str]] = DEFAULT_COLUMNS,
) -> str:
    """A plain-text table: one row per summary (team), mean ± std per metric, episode count."""
    header = ["team", *(h for _, h, _ in columns), "episodes", "ended by"]
    rows = []
    for s in summaries:
        ended = s.get("counts", {}).get("ended_by", {})
        rows.append(
            [
                s.get("team", "?"),
                *(mean_std(s["metrics"].get(k), fmt) for k, _, fmt in columns),
                str(s["episodes"]) + (f" ({s['failed']} failed)" if s.get("failed") else ""),
                ", ".join(f"{k} {v}" for k, v in sorted(ended.items())),
            ]
        )
    return format_table(header, rows)


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Align ``rows`` under ``header`` in columns separated by two spaces."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = "  ".join("-" * w for w in widths)
    out = ["  ".join(str(h).ljust(w) for h, w in zip(header, widths, strict=True)), line]
    out += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(out)


# -- learning curves --------------------------------------------------------------------------

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
    import csv

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
            ax.plot(xs, ys, label=label)
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
