"""Evaluation plots: what ``mase report --plot`` draws from ``summary.json`` files.

One figure, a panel each: every headline metric of the task as bars per team with the Student t
95% interval of the mean; Theory-of-Mind accuracy by level, per team, with the Wilson 95%
interval of each proportion; and, where a task reports ``roundK_correct`` (the share of
questions answered right after round K), that share by round, per team, with its t
interval. It needs matplotlib (the ``rl`` extra).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mase.probes import LEVELS

__all__ = ["evaluation_panels", "plot_evaluations", "wilson_interval"]

TOM_LEVELS = LEVELS  # Theory-of-Mind levels, in the paper's order
_ROUND = re.compile(r"^round(\d+)_correct$")


def wilson_interval(correct: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``correct / n`` (95% by default)."""
    if n <= 0:
        return (0.0, 1.0)
    p = correct / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    low = 0.0 if correct == 0 else max(0.0, centre - half)  # exact at the ends, no rounding
    high = 1.0 if correct == n else min(1.0, centre + half)
    return (low, high)


def _label(summary: dict, several_tasks: bool) -> str:
    team = str(summary.get("team") or Path(summary.get("path", "?")).name)
    return f"{summary.get('env_id', '?')}: {team}" if several_tasks else team


def evaluation_panels(
    summaries: Sequence[dict], columns: Sequence[tuple[str, str, str]]
) -> list[dict[str, Any]]:
    """The panels to draw, as data: ``{"kind", "title", "series"}`` each.

    ``kind`` ``"bars"``: ``series`` is ``[(team, mean, low, high)]`` (a missing interval is
    the mean); ``"tom"``: ``[(team, level, accuracy, low, high, n)]``; ``"rounds"``:
    ``[(team, [(round, mean, low, high)])]``.
    """
    several = len({s.get("env_id") for s in summaries}) > 1
    panels: list[dict[str, Any]] = []
    for key, header, _ in columns:
        series = []
        for s in summaries:
            m = s.get("metrics", {}).get(key)
            if not m or m.get("mean") is None:
                continue
            half = m.get("ci95") or 0.0
            series.append((_label(s, several), m["mean"], m["mean"] - half, m["mean"] + half))
        if series:
            panels.append({"kind": "bars", "title": f"{header} ({key})", "series": series})
    tom = []
    for s in summaries:
        for level in TOM_LEVELS:
            entry = (s.get("tom") or {}).get(level)
            if entry and entry.get("n"):
                low, high = wilson_interval(int(entry["correct"]), int(entry["n"]))
                tom.append((_label(s, several), level, entry["accuracy"], low, high, entry["n"]))
    if tom:
        panels.append({"kind": "tom", "title": "Theory-of-Mind accuracy by level", "series": tom})
    rounds = []
    for s in summaries:
        metrics = s.get("metrics", {})
        points = []
        for key, m in metrics.items():
            match = _ROUND.match(key)
            if match and m and m.get("mean") is not None:
                half = m.get("ci95") or 0.0
                points.append((int(match.group(1)), m["mean"], m["mean"] - half, m["mean"] + half))
        if points:
            rounds.append((_label(s, several), sorted(points)))
    if rounds:
        panels.append({"kind": "rounds", "title": "answered right after each round",
                       "series": rounds})  # fmt: skip
    return panels


def plot_evaluations(
    summaries: Sequence[dict], columns: Sequence[tuple[str, str, str]], out: str | os.PathLike
) -> Path:
    """Draw :func:`evaluation_panels` into a PNG at ``out``.

    Raises:
        ValueError: nothing to draw (no headline metric, probe or round in the summaries).
        ImportError: matplotlib is missing (the message says how to install it).
    """
    panels = evaluation_panels(summaries, columns)
    if not panels:
        raise ValueError("the summaries hold none of the metrics to draw")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("plots need matplotlib: pip install 'mase-suite[rl]'") from None
    teams = list(dict.fromkeys(s[0] for p in panels for s in p["series"]))
    colours = {t: plt.get_cmap("tab10")(i % 10) for i, t in enumerate(teams)}
    width = max(7.0, 0.9 * len(teams) + 3)
    fig, axes = plt.subplots(len(panels), 1, figsize=(width, 2.9 * len(panels)), squeeze=False)
    for ax, panel in zip(axes[:, 0], panels, strict=True):
        if panel["kind"] == "bars":
            names = [s[0] for s in panel["series"]]
            means = [s[1] for s in panel["series"]]
            errors = [
                [s[1] - s[2] for s in panel["series"]],
                [s[3] - s[1] for s in panel["series"]],
            ]
            ax.bar(range(len(names)), means, yerr=errors, capsize=4,
                   color=[colours[n] for n in names])  # fmt: skip
            ax.set_xticks(range(len(names)), names, rotation=20, ha="right")
        elif panel["kind"] == "tom":
            in_panel = list(dict.fromkeys(s[0] for s in panel["series"]))
            step = 0.8 / len(in_panel)
            for k, team in enumerate(in_panel):
                rows = [s for s in panel["series"] if s[0] == team]
                xs = [TOM_LEVELS.index(s[1]) + (k - (len(in_panel) - 1) / 2) * step for s in rows]
                ys = [s[2] for s in rows]
                errors = [[s[2] - s[3] for s in rows], [s[4] - s[2] for s in rows]]
                ax.bar(xs, ys, width=step, yerr=errors, capsize=3, label=team,
                       color=colours[team])  # fmt: skip
            ax.set_xticks(range(len(TOM_LEVELS)), [lv.replace("_", " ") for lv in TOM_LEVELS])
            ax.set_ylim(0, 1.05)
            ax.legend(fontsize=8)
        else:
            for team, points in panel["series"]:
                xs = [p[0] for p in points]
                ys = [p[1] for p in points]
                errors = [[p[1] - p[2] for p in points], [p[3] - p[1] for p in points]]
                ax.errorbar(xs, ys, yerr=errors, marker="o", capsize=3, label=team,
                            color=colours[team])  # fmt: skip
            ax.set_xlabel("round")
            ax.set_xticks(sorted({p[0] for _, pts in panel["series"] for p in pts}))
            ax.legend(fontsize=8)
        ax.set_title(panel["title"])
        ax.grid(alpha=0.3, axis="y")
    fig.suptitle("mean and 95% interval (t; Wilson for ToM proportions)", fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.25 / (2.9 * len(panels))))
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out
