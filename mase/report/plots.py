"""Evaluation plots: what ``mase report --plot`` draws from ``summary.json`` files.

One figure, one task per panel, never two: every headline metric of each task as bars per team
with the 95% interval its kind calls for (:func:`mase.stats.interval`: Wilson for proportions,
the percentile bootstrap for other measures), on an axis that spans the metric's range and is
named for people (the task's :class:`~mase.stats.Metric` labels); Theory-of-Mind accuracy by
level, per team, with the Wilson interval of each proportion; and, where a task reports
``roundK_correct`` (the share of questions answered right after round K), that share by round.
The figure's title says how the intervals were made and warns when the episodes are few. It
needs matplotlib (the ``plot`` extra); without it every plot ends in :class:`PlottingUnavailable`,
whose message names the extra.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mase.probes import LEVELS
from mase.report.tables import entry_interval, metric_values
from mase.stats import Interval, methods_line, wilson_interval

__all__ = [
    "PLOT_EXTRA",
    "PlottingUnavailable",
    "evaluation_figure",
    "evaluation_panels",
    "plot_evaluations",
    "pyplot",
    "wilson_interval",
]

TOM_LEVELS = LEVELS  # Theory-of-Mind levels, in the paper's order
_ROUND = re.compile(r"^round(\d+)_correct$")
#: How to get the plots.
PLOT_EXTRA = "pip install 'mase-suite[plot]'"


class PlottingUnavailable(ImportError):
    """matplotlib is not installed: plots need the ``plot`` extra (:data:`PLOT_EXTRA`)."""


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend (files, no display).

    Raises:
        PlottingUnavailable: matplotlib is missing; the message names the extra to install.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise PlottingUnavailable(f"plots need matplotlib: {PLOT_EXTRA}") from None
    return plt


def save_figure(fig: Any, out: str | os.PathLike) -> Path:
    """Write a figure as a PNG at ``out`` (making its folder), close it, and return the path."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=100)
    pyplot().close(fig)
    return out


def _team(summary: dict) -> str:
    return str(summary.get("team") or Path(summary.get("path", "?")).name)


def _columns_of(
    columns: Sequence[tuple[str, str, str]] | Mapping[str, Sequence[tuple[str, str, str]]],
    env_id: str,
) -> Sequence[tuple[str, str, str]]:
    return columns.get(env_id, ()) if isinstance(columns, Mapping) else columns


def _bar(summary: dict, entry: dict, values: Any) -> tuple[tuple, Interval]:
    """``(team, mean, low, high, n)`` of a metric entry, and its interval (none: the mean)."""
    ci = entry_interval(entry, values)
    if ci is None or ci.low is None:
        ci = Interval(entry["mean"], entry["mean"], entry["mean"], entry.get("n", 0), "")
    return (_team(summary), ci.mean, ci.low, ci.high, ci.n), ci


def evaluation_panels(
    summaries: Sequence[dict],
    columns: Sequence[tuple[str, str, str]] | Mapping[str, Sequence[tuple[str, str, str]]],
    records: Mapping[str, list[dict]] | None = None,
) -> list[dict[str, Any]]:
    """The panels to draw, as data, one task each.

    Args:
        summaries: the runs.
        columns: the metrics to draw, ``(key, header, format)`` as in a task's
            ``table_columns``: one list for every task, or env id -> its list.
        records: summary path -> its episode records, for summaries written before their
            intervals followed the metric's kind.

    Returns:
        ``{"kind", "task", "title", "ylabel", "range", "series", "intervals"}`` each. ``kind``
        ``"bars"``: ``series`` is ``[(team, mean, low, high, n)]``; ``"tom"``:
        ``[(team, level, accuracy, low, high, n)]``; ``"rounds"``:
        ``[(team, [(round, mean, low, high)])]``. ``range`` is the metric's ``(low, high)``
        (``None`` where unbounded); ``intervals`` the :class:`~mase.stats.Interval` drawn.
    """
    tasks = list(dict.fromkeys(s.get("env_id", "?") for s in summaries))
    panels: list[dict[str, Any]] = []
    for task in tasks:
        runs = [s for s in summaries if s.get("env_id", "?") == task]
        panels += _metric_panels(task, runs, _columns_of(columns, task), records or {})
        panels += _tom_panels(task, runs) + _round_panels(task, runs, records or {})
    return panels


def _metric_panels(
    task: str, runs: Sequence[dict], columns: Sequence[tuple[str, str, str]], records: Mapping
) -> list[dict[str, Any]]:
    panels = []
    for key, header, _ in columns:
        series, intervals, entries = [], [], []
        for s in runs:
            entry = s.get("metrics", {}).get(key)
            if not entry or entry.get("mean") is None:
                continue
            bar, ci = _bar(s, entry, metric_values(records.get(s.get("path", ""), []), key))
            series.append(bar)
            intervals.append(ci)
            entries.append(entry)
        if not series:
            continue
        label = next((e["label"] for e in entries if e.get("label")), None)
        label = label or header[:1].upper() + header[1:]
        bounds = next((tuple(e["range"]) for e in entries if e.get("range")), (None, None))
        panels.append({"kind": "bars", "task": task, "title": f"{task}: {label}",
                       "ylabel": label, "range": bounds, "series": series,
                       "intervals": intervals})  # fmt: skip
    return panels


def _tom_panels(task: str, runs: Sequence[dict]) -> list[dict[str, Any]]:
    series, intervals = [], []
    for s in runs:
        for level in TOM_LEVELS:
            entry = (s.get("tom") or {}).get(level)
            if entry and entry.get("n"):
                low, high = wilson_interval(int(entry["correct"]), int(entry["n"]))
                series.append((_team(s), level, entry["accuracy"], low, high, entry["n"]))
                intervals.append(Interval(entry["accuracy"], low, high, entry["n"], "wilson"))
    if not series:
        return []
    label = "Theory-of-Mind accuracy (share of answers)"
    return [{"kind": "tom", "task": task, "title": f"{task}: {label} by level",
             "ylabel": label, "range": (0.0, 1.0), "series": series,
             "intervals": intervals}]  # fmt: skip


def _round_panels(task: str, runs: Sequence[dict], records: Mapping) -> list[dict[str, Any]]:
    series, intervals = [], []
    for s in runs:
        points = []
        for key, entry in s.get("metrics", {}).items():
            match = _ROUND.match(key)
            if match and entry and entry.get("mean") is not None:
                values = metric_values(records.get(s.get("path", ""), []), key)
                (_, mean, low, high, _), ci = _bar(s, entry, values)
                points.append((int(match.group(1)), mean, low, high))
                intervals.append(ci)
        if points:
            series.append((_team(s), sorted(points)))
    if not series:
        return []
    label = "Accuracy (share of questions)"
    return [{"kind": "rounds", "task": task, "title": f"{task}: {label} after each round",
             "ylabel": label, "range": (0.0, 1.0), "series": series,
             "intervals": intervals}]  # fmt: skip


def _ylim(panel: dict[str, Any]) -> tuple[float, float]:
    """The metric's range, and room (3%) for a bar at its end; an open end follows the bars."""
    low, high = panel["range"]
    if panel["kind"] == "rounds":
        tops = [p[3] for _, points in panel["series"] for p in points]
        bottoms = [p[2] for _, points in panel["series"] for p in points]
    else:
        tops = [s[-2] for s in panel["series"]]
        bottoms = [s[-3] for s in panel["series"]]
    top = high if high is not None else max(max(tops) * 1.12, 1.0)
    bottom = low if low is not None else min(0.0, min(bottoms) * 1.12)
    top = top if top > bottom else bottom + 1.0
    room = 0.03 * (top - bottom)
    return (bottom - room if low is not None else bottom, top + room if high is not None else top)


def evaluation_figure(
    summaries: Sequence[dict],
    columns: Sequence[tuple[str, str, str]] | Mapping[str, Sequence[tuple[str, str, str]]],
    records: Mapping[str, list[dict]] | None = None,
) -> Any:
    """The matplotlib Figure of :func:`evaluation_panels` (close it with ``plt.close``).

    Raises:
        ValueError: nothing to draw (no headline metric, probe or round in the summaries).
        PlottingUnavailable: matplotlib is missing (the message says how to install it).
    """
    panels = evaluation_panels(summaries, columns, records)
    if not panels:
        raise ValueError("the summaries hold none of the metrics to draw")
    plt = pyplot()
    teams = list(dict.fromkeys(_team(s) for s in summaries))
    colours = {t: plt.get_cmap("tab10")(i % 10) for i, t in enumerate(teams)}
    cols = 1 if len(panels) < 4 else 2
    rows = -(-len(panels) // cols)
    bars = max(len(p["series"]) for p in panels if p["kind"] == "bars") if panels else 1
    width = max(6.0, 1.0 * bars + 2) * cols
    fig, axes = plt.subplots(rows, cols, figsize=(width, 3.1 * rows), squeeze=False)
    for ax, panel in zip(axes.flat, panels, strict=False):
        {"bars": _draw_bars, "tom": _draw_tom, "rounds": _draw_rounds}[panel["kind"]](
            ax, panel, colours
        )
        ax.set_title(panel["title"], fontsize=10)
        ax.set_ylabel(_wrap(panel["ylabel"]), fontsize=8)
        ax.set_ylim(*_ylim(panel))
        ax.grid(alpha=0.3, axis="y")
    for ax in list(axes.flat)[len(panels) :]:
        ax.set_visible(False)
    intervals = [iv for p in panels for iv in p["intervals"]]
    fig.suptitle(_wrap(f"Bars: means; whiskers: {methods_line(intervals)}", 150), fontsize=8)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.45 / (3.1 * rows)))
    return fig


def _wrap(text: str, width: int = 40) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width))


def _draw_bars(ax: Any, panel: dict[str, Any], colours: dict) -> None:
    names = [s[0] for s in panel["series"]]
    means = [s[1] for s in panel["series"]]
    errors = [[s[1] - s[2] for s in panel["series"]], [s[3] - s[1] for s in panel["series"]]]
    ax.bar(range(len(names)), means, yerr=errors, capsize=4,
           color=[colours[n] for n in names])  # fmt: skip
    ticks = [f"{s[0]}\n(n={s[4]})" for s in panel["series"]]
    ax.set_xticks(range(len(names)), ticks, rotation=15, ha="right", fontsize=8)
    ax.set_xlim(-0.6, max(len(names), 3) - 0.4)  # one team's bar no wider than one of three


def _draw_tom(ax: Any, panel: dict[str, Any], colours: dict) -> None:
    in_panel = list(dict.fromkeys(s[0] for s in panel["series"]))
    step = 0.8 / len(in_panel)
    for k, team in enumerate(in_panel):
        rows = [s for s in panel["series"] if s[0] == team]
        xs = [TOM_LEVELS.index(s[1]) + (k - (len(in_panel) - 1) / 2) * step for s in rows]
        errors = [[s[2] - s[3] for s in rows], [s[4] - s[2] for s in rows]]
        ax.bar(xs, [s[2] for s in rows], width=step, yerr=errors, capsize=3, label=team,
               color=colours[team])  # fmt: skip
    ax.set_xticks(range(len(TOM_LEVELS)), [lv.replace("_", " ") for lv in TOM_LEVELS])
    # below the levels' names, never over the bars
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.12),
              ncol=min(3, len(in_panel)), frameon=False)  # fmt: skip


def _draw_rounds(ax: Any, panel: dict[str, Any], colours: dict) -> None:
    for team, points in panel["series"]:
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        errors = [[p[1] - p[2] for p in points], [p[3] - p[1] for p in points]]
        ax.errorbar(xs, ys, yerr=errors, marker="o", capsize=3, label=team,
                    color=colours[team])  # fmt: skip
    ax.set_xlabel("round")
    ax.set_xticks(sorted({p[0] for _, pts in panel["series"] for p in pts}))
    ax.legend(fontsize=8)


def plot_evaluations(
    summaries: Sequence[dict],
    columns: Sequence[tuple[str, str, str]] | Mapping[str, Sequence[tuple[str, str, str]]],
    out: str | os.PathLike,
    records: Mapping[str, list[dict]] | None = None,
) -> Path:
    """Draw :func:`evaluation_figure` into a PNG at ``out``.

    Raises:
        ValueError: nothing to draw (no headline metric, probe or round in the summaries).
        PlottingUnavailable: matplotlib is missing (the message says how to install it).
    """
    return save_figure(evaluation_figure(summaries, columns, records), out)
