"""Reporting: summaries of records, the results and paper tables, and learning curves.

:func:`summarize` turns an evaluation's episode records into statistics (``summary.json``);
the table functions print summaries, with a paper's numbers beside them for a preset; the
learning-curve functions read and draw training logs.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from mase.probes import LEVELS

if TYPE_CHECKING:
    from mase.presets import Preset

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


# -- summaries ----------------------------------------------------------------------------

#: Metrics of model usage that a summary also totals over all episodes, failed ones included.
USAGE_KEYS = (
    "llm_calls",
    "prompt_tokens",
    "completion_tokens",
    "llm_tokens",
    "cost_usd",
    "latency_s",
    "llm_errors",
)


def _tom_accuracy(records: list[dict]) -> dict[str, dict]:
    """Accuracy per level pooled over the answered probes of the records.

    Pooled, as the paper counts it, rather than a mean of per-episode accuracies, which would
    weigh an episode with one question like one with twenty. Questions put to seats whose
    policy cannot answer (a scripted or random teammate) are counted as asked, not as wrong;
    a reply that says neither yes nor no is answered and wrong.
    """
    pooled: dict[str, list[int]] = {}
    for record in records:
        for probe in record.get("probes") or []:
            counts = pooled.setdefault(str(probe.get("level")), [0, 0, 0])
            answered = probe.get("reply") is not None
            counts[0] += answered and probe.get("correct") is True
            counts[1] += answered
            counts[2] += 1
    return {
        level: {
            "accuracy": correct / n if n else None,
            "correct": correct,
            "n": n,
            "asked": asked,
        }
        for level, (correct, n, asked) in sorted(pooled.items(), key=lambda kv: _level_order(kv[0]))
    }


def _level_order(level: str) -> tuple[int, str]:
    return (LEVELS.index(level) if level in LEVELS else len(LEVELS), level)


def summarize(records: list[dict]) -> dict:
    """Statistics of an evaluation's records, whatever their order.

    Returns:
        ``episodes`` and ``failed`` counts; ``metrics``: mean, std, 95% CI half-width and n of
        every numeric metric over finished episodes; ``counts``: tallies of text metrics;
        when probes were asked, ``tom``: per level, the accuracy pooled over all questions
        with its counts; when a model played, ``usage``: totals of :data:`USAGE_KEYS` over
        all episodes, failed ones included (they were paid for too).
    """
    records = sorted(records, key=lambda r: r.get("episode", 0))  # float sums in a fixed order
    done = [r for r in records if not r.get("failed")]
    summary: dict[str, Any] = {"episodes": len(done), "failed": len(records) - len(done)}
    numeric: dict[str, list[float]] = {}
    counts: dict[str, dict[str, int]] = {}
    for record in done:
        for key, value in record["metrics"].items():
            if isinstance(value, bool | int | float):
                numeric.setdefault(key, []).append(float(value))
            elif isinstance(value, str):
                counts.setdefault(key, {}).setdefault(value, 0)
                counts[key][value] += 1
    metrics = {}
    for key, values in numeric.items():
        arr = np.asarray(values)
        std = float(arr.std(ddof=1)) if len(arr) > 1 else 0.0
        metrics[key] = {
            "mean": float(arr.mean()),
            "std": std,
            "ci95": 1.96 * std / math.sqrt(len(arr)),
            "n": len(arr),
        }
    summary["metrics"] = metrics
    summary["counts"] = counts
    tom = _tom_accuracy(done)
    if tom:
        summary["tom"] = tom
    usage: dict[str, float] = {}
    for record in records:
        source = record.get("usage", {}) if record.get("failed") else record["metrics"]
        for key in USAGE_KEYS:
            if isinstance(source.get(key), int | float):
                usage[key] = usage.get(key, 0) + source[key]
    if usage:
        summary["usage"] = usage
    return summary


# -- tables against a paper ------------------------------------------------------------------


def _paper_cell(value: Any, fmt: str) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, tuple):
        return f"{fmt.format(value[0])} ± {fmt.format(value[1])}"
    return fmt.format(value)


def comparison_table(
    preset: Preset, summaries: dict[str, dict], labels: dict[str, str] | None = None
) -> str:
    """Measured columns for each team beside the paper's numbers for the matching row.

    Args:
        preset: the preset.
        summaries: team label -> its evaluation summary (teams not run show ``-``).
        labels: team label -> the name to print (default: the label).
    """
    header = ["team"]
    for _, name, _ in preset.columns:
        header += [name, f"paper {name}"]
    header += ["episodes", "paper row"]
    rows = []
    for team in preset.teams:
        summary = summaries.get(team.label)
        paper = preset.paper.get(team.paper_row or "", {})
        row = [(labels or {}).get(team.label, team.label)]
        for key, _, fmt in preset.columns:
            metrics = summary["metrics"] if summary else {}
            measured = metrics.get(preset.prefer.get(key, key), metrics.get(key))
            row += [mean_std(measured, fmt), _paper_cell(paper.get(key), fmt) if paper else "-"]
        episodes = str(summary["episodes"]) if summary else "-"
        if summary and summary.get("failed"):
            episodes += f" ({summary['failed']} failed)"
        row += [episodes, team.paper_row or "-"]
        rows.append(row)
    return format_table(header, rows)


def tom_table(summaries: list[dict], paper: dict[str, dict[str, Any]] | None = None) -> str:
    """Theory-of-Mind accuracy per level of each summary that has probes.

    The accuracy is pooled over all questions of the level (``summary["tom"]``); with
    ``paper`` (team label -> the paper's row, keys ``tom_<level>``) the paper's figure is
    printed beside each.
    """
    header = ["team"]
    for level in LEVELS:
        name = level.replace("_", " ")
        header += [name, f"paper {name}"] if paper is not None else [name]
    rows = []
    for summary in summaries:
        tom = summary.get("tom")
        if not tom:
            continue
        label = summary.get("team", "?")
        row = [label]
        for level in LEVELS:
            cell = tom.get(level)
            row.append(_tom_cell(cell))
            if paper is not None:
                value = paper.get(label, {}).get(f"tom_{level}")
                row.append(_paper_cell(value, "{:.1%}") if value is not None else "-")
        rows.append(row)
    return format_table(header, rows)


def usage_line(summary: dict) -> str:
    """One line on what a team's model seats used over the whole evaluation."""
    usage = summary.get("usage", {})
    parts = [f"{usage.get('llm_calls', 0):,.0f} calls"]
    if "llm_tokens" in usage:
        parts.append(
            f"{usage['llm_tokens']:,.0f} tokens ({usage.get('prompt_tokens', 0):,.0f} prompt, "
            f"{usage.get('completion_tokens', 0):,.0f} completion)"
        )
    if "cost_usd" in usage:
        parts.append(f"${usage['cost_usd']:.4f}")
    if "latency_s" in usage:
        parts.append(f"{usage['latency_s']:.1f} s waiting for replies")
    if usage.get("llm_errors"):
        parts.append(f"{usage['llm_errors']:.0f} failed calls")
    return f"{summary.get('team', '?')} model usage: " + ", ".join(parts)


def belief_line(summary: dict) -> str | None:
    """One line on the beliefs a team's seats wrote (``None`` when none were scored)."""
    metrics = summary.get("metrics", {})
    accuracy, recall = metrics.get("belief_accuracy"), metrics.get("belief_recall")
    if accuracy is None:
        return None
    line = f"{summary.get('team', '?')} beliefs: {accuracy['mean']:.1%} of stated facts true"
    if recall is not None:
        line += f", {recall['mean']:.1%} of what the agent was shown or told kept"
    return line + f" (mean over {accuracy['n']} episodes)"


def _tom_cell(cell: dict | None) -> str:
    """``97.2% (n=708)``: accuracy over the answered questions; unanswered ones are noted."""
    if not cell or cell.get("accuracy") is None:
        return "-"
    text = f"{cell['accuracy']:.1%} (n={cell['n']}"
    if cell.get("asked", cell["n"]) > cell["n"]:
        text += f" of {cell['asked']} asked"
    return text + ")"


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
