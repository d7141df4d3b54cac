"""Tables of summaries: results, a paper's numbers beside them, intervals, comparisons."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import textwrap
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from mase.probes import LEVELS
from mase.stats import (
    BOOTSTRAP_REPS,
    BOOTSTRAP_SEED,
    Interval,
    Metric,
    improvement_interval,
    interquartile_mean,
    interval,
    iqm_interval,
    methods_line,
    probability_of_improvement,
)

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


def load_records(summaries: Iterable[dict]) -> dict[str, list[dict]]:
    """Each summary's ``path`` -> the episode records of its ``episodes.jsonl`` (``[]`` if none)."""
    # imported here: mase.runner imports this module
    from mase.runner.store import read_records

    return {s["path"]: read_records(Path(s["path"]) / "episodes.jsonl") for s in summaries}


#: What "±" in a measured column is; every such column's header says so.
SPREAD = "mean ± sd"


SPREADS = {"sd": SPREAD, "se": "mean ± se"}


def mean_std(metric: dict | None, fmt: str, spread: str = "sd") -> str:
    """``"43.3 ± 4.7"``: mean ± standard deviation of a summary metric entry (``"-"`` if none).

    ``spread="se"``: ± the standard error of the mean instead (``std / sqrt(n)``).
    """
    if not metric:
        return "-"
    width = metric["std"]
    if spread == "se":
        width = width / math.sqrt(metric["n"]) if metric.get("n") else 0.0
    return f"{fmt.format(metric['mean'])} ± {fmt.format(width)}"


def results_rows(
    summaries: Sequence[dict],
    columns: Sequence[tuple[str, str, str]] = DEFAULT_COLUMNS,
    runs: bool = False,
) -> tuple[list[str], list[list[str]]]:
    """Header and rows of :func:`results_table`; with ``runs``, a column of each one's folder."""
    header = ["team", *(["run"] if runs else []), *(f"{h} ({SPREAD})" for _, h, _ in columns)]
    header += ["episodes", "ended by"]
    rows = []
    for s in summaries:
        ended = s.get("counts", {}).get("ended_by", {})
        rows.append(
            [
                s.get("team", "?"),
                *([s.get("path", "-")] if runs else []),
                *(mean_std(s["metrics"].get(k), fmt) for k, _, fmt in columns),
                str(s["episodes"]) + (f" ({s['failed']} failed)" if s.get("failed") else ""),
                ", ".join(f"{k} {v}" for k, v in sorted(ended.items())),
            ]
        )
    return header, rows


def results_table(
    summaries: Sequence[dict],
    columns: Sequence[tuple[str, str, str]] = DEFAULT_COLUMNS,
) -> str:
    """A plain-text table: one row per summary (team), mean ± sd per metric, episode count."""
    return format_table(*results_rows(summaries, columns))


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Align ``rows`` under ``header`` in columns separated by two spaces."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = "  ".join("-" * w for w in widths)
    out = ["  ".join(str(h).ljust(w) for h, w in zip(header, widths, strict=True)), line]
    out += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(out)


#: Output formats of :func:`render_tables` (``mase report --format``).
FORMATS = ("table", "markdown", "csv", "json")


class Table(NamedTuple):
    """A titled table of text cells, as :func:`render_tables` prints it."""

    key: str
    """Its name in JSON output."""
    title: str
    """The line above it (none when empty); in CSV a ``#`` comment line."""
    header: list[str]
    rows: list[list[str]]


def render_tables(tables: Sequence[Table], fmt: str = "table") -> str:
    """The tables in one of :data:`FORMATS`.

    ``table``: aligned plain text; ``markdown``: GitHub tables; ``csv``: one block a table,
    after a ``# title`` line, blocks apart by a blank line; ``json``: one object, each table's
    key -> its rows as objects (header -> cell).
    """
    if fmt == "json":
        data = {t.key: [dict(zip(t.header, row, strict=True)) for row in t.rows] for t in tables}
        return json.dumps(data, indent=2, ensure_ascii=False)
    render = {"table": format_table, "markdown": _markdown_table, "csv": _csv_table}.get(fmt)
    if render is None:
        raise ValueError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")
    blocks = []
    for t in tables:
        title = textwrap.fill(t.title, 100) if fmt == "table" else t.title
        title = (f"# {title}\n" if fmt == "csv" else f"{title}\n") if title else ""
        gap = "\n" if t.title and fmt == "markdown" else ""  # a paragraph, then the table
        blocks.append(title + gap + render(t.header, t.rows))
    return "\n\n".join(blocks)


def _markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"

    return "\n".join([line(header), "|" + "---|" * len(header), *map(line, rows)])


def _csv_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([header, *rows])
    return out.getvalue().rstrip("\n")


# -- tables against a paper ------------------------------------------------------------------


def _paper_cell(value: Any, fmt: str) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, str):  # a paper's words ("55-80", "> 95"), shown as they are
        return value
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
    # a paper column only where some paper row states the metric
    cited = {key for row in preset.paper.values() for key in row}
    for key, name, _ in preset.columns:
        header += [f"{name} ({SPREADS[preset.spread]})"] + (
            [f"paper {name}"] if key in cited else []
        )
    header += ["episodes", "paper row"]
    rows = []
    for team in preset.teams:
        summary = summaries.get(team.label)
        paper = preset.paper.get(team.paper_row or "", {})
        row = [(labels or {}).get(team.label, team.label)]
        for key, _, fmt in preset.columns:
            metrics = summary["metrics"] if summary else {}
            measured = metrics.get(preset.prefer.get(key, key), metrics.get(key))
            row.append(mean_std(measured, fmt, preset.spread))
            if key in cited:
                row.append(_paper_cell(paper.get(key), fmt) if paper else "-")
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
    return format_table(*tom_rows(summaries, paper))


def tom_rows(
    summaries: list[dict], paper: dict[str, dict[str, Any]] | None = None
) -> tuple[list[str], list[list[str]]]:
    """Header and rows of :func:`tom_table`."""
    header = ["team"]
    for level in LEVELS:
        name = level.replace("_", " ")
        header += [name, f"paper {name}"] if paper is not None else [name]
    header.append("on unread messages")
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
        row.append(f"{sum((cell or {}).get('on_unread', 0) for cell in tom.values()):,}")
        rows.append(row)
    return header, rows


def usage_line(summary: dict) -> str:
    """One line on what a team's model seats used over the whole evaluation."""
    usage = summary.get("usage", {})
    parts = [f"{usage.get('llm_calls', 0):,.0f} calls"]
    if usage.get("cached_calls"):  # replayed: neither the time nor the cost was spent again
        parts[0] += f" ({usage['cached_calls']:,.0f} from the response cache)"
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
    episodes = summary.get("episodes", 0) + (summary.get("failed", 0) or 0)
    if episodes and "llm_tokens" in usage:
        each = f"{usage['llm_tokens'] / episodes:,.0f} tokens"
        if usage.get("cost_usd") is not None:
            each += f", ${usage['cost_usd'] / episodes:.4f}"
        parts.append(f"per episode {each}")
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


# -- the report: intervals and comparisons of teams -----------------------------------------

TOM_TITLE = (
    "Theory-of-Mind accuracy (pooled over all questions; n = questions answered; on unread "
    "messages = answers whose truth may rest on a message the claim reader could not read)"
)


def metric_values(records: Iterable[dict], key: str) -> np.ndarray:
    """The numeric values of metric ``key`` over the finished episodes of ``records``."""
    values = [
        float(r["metrics"][key])
        for r in records
        if not r.get("failed") and isinstance(r.get("metrics", {}).get(key), bool | int | float)
    ]
    return np.asarray(values)


def metric_of(entry: dict) -> Metric | None:
    """The :class:`~mase.stats.Metric` a summary's metric entry declares (``None``: none)."""
    if not entry.get("kind"):
        return None
    low, high = entry.get("range") or (None, None)
    return Metric(entry.get("label") or "?", entry["kind"], low, high)


def entry_interval(entry: dict, values: Sequence[float] = ()) -> Interval | None:
    """A summary metric entry's interval of the mean, by its metric's kind.

    A summary written before intervals followed the metric's kind (a Student t half-width in
    ``ci95``) has it worked out again from its episodes' ``values``; with none, ``None``.
    """
    ci = entry.get("ci95")
    if isinstance(ci, list | tuple) and "ci95_method" in entry:
        return Interval(entry["mean"], ci[0], ci[1], entry["n"], entry["ci95_method"],
                        entry.get("ci95_note", ""))  # fmt: skip
    if entry.get("n") == 1 and "ci95_method" in entry:
        return Interval(entry["mean"], None, None, 1, "", entry.get("ci95_note", ""))
    if len(values):
        return interval(values, metric_of(entry))
    return None


def interval_rows(
    summaries: Sequence[dict],
    columns: Sequence[tuple[str, str, str]] = DEFAULT_COLUMNS,
    records: dict[str, list[dict]] | None = None,
) -> tuple[list[str], list[list[str]], list[Interval]]:
    """One row per team and metric: the mean with its interval, and the IQM with its own.

    The mean's interval is the one its metric's kind calls for (:func:`mase.stats.interval`);
    a summary that predates it, or an IQM missing from an older summary, is worked out from
    the episodes in ``records`` (summary path -> records).

    Returns:
        The header, the rows, and the intervals of the means (to say how they were made).
    """
    header = ["team", "run", "metric", "n", "mean", "95% CI", "method", "IQM",
              "IQM 95% CI (bootstrap)"]  # fmt: skip
    rows, intervals = [], []
    for s in summaries:
        for key, name, fmt in columns:
            m = s["metrics"].get(key)
            if not m:
                continue
            iqm, iqm_ci = m.get("iqm"), m.get("iqm_ci95")
            values = metric_values(records.get(s.get("path", ""), []), key) if records else []
            if iqm is None and len(values):
                iqm = interquartile_mean(values)
                iqm_ci = iqm_interval(values) if len(values) > 1 else None
            ci = entry_interval(m, values)
            if ci is not None:
                intervals.append(ci)
            bounds = None if ci is None or ci.low is None else (ci.low, ci.high)
            rows.append(
                [
                    s.get("team", "?"),
                    s.get("path", "-"),
                    name,
                    str(m["n"]),
                    fmt.format(m["mean"]),
                    _interval_cell(bounds, fmt),
                    (ci.method or "-") if ci is not None else "-",
                    fmt.format(iqm) if iqm is not None else "-",
                    _interval_cell(iqm_ci, fmt),
                ]
            )
    return header, rows, intervals


def _interval_cell(interval: Sequence[float] | None, fmt: str) -> str:
    if interval is None:
        return "-"
    return f"[{fmt.format(interval[0])}, {fmt.format(interval[1])}]"


def improvement_rows(
    summaries: Sequence[dict], records: dict[str, list[dict]], metric: str
) -> tuple[list[str], list[list[str]]]:
    """P(X > Y) on ``metric`` for every pair of teams on the same task, in report order.

    Args:
        summaries: the teams (their ``path`` keys ``records``).
        records: summary path -> its episode records; a team with no episode that has the
            metric is left out.
        metric: the metric compared.
    """
    names = _row_names(summaries)
    scores = [metric_values(records.get(s.get("path", ""), []), metric) for s in summaries]
    header = ["X", "Y", "P(X > Y)", "95% CI (bootstrap)", "episodes X", "episodes Y"]
    rows = []
    for i, (s, x) in enumerate(zip(summaries, scores, strict=True)):
        for j in range(i + 1, len(summaries)):
            y = scores[j]
            if not len(x) or not len(y) or s.get("env_id") != summaries[j].get("env_id"):
                continue
            poi = probability_of_improvement(x, y)
            ci = improvement_interval(x, y) if min(len(x), len(y)) > 1 else None
            rows.append(
                [names[i], names[j], f"{poi:.2f}", _interval_cell(ci, "{:.2f}")]
                + [str(len(x)), str(len(y))]
            )
    return header, rows


def _row_names(summaries: Sequence[dict]) -> list[str]:
    """Team labels, with the run's folder where two rows share a label."""
    labels = [s.get("team", "?") for s in summaries]
    return [
        f"{label} ({s.get('path', '?')})" if labels.count(label) > 1 else label
        for label, s in zip(labels, summaries, strict=True)
    ]


def report_tables(
    summaries: Sequence[dict],
    columns: Sequence[tuple[str, str, str]] = DEFAULT_COLUMNS,
    records: dict[str, list[dict]] | None = None,
    metric: str | None = None,
) -> list[Table]:
    """The tables of ``mase report``: results, intervals, probability of improvement, ToM.

    Args:
        summaries: the runs, each with its ``path``.
        columns: the metrics tabulated, as in :data:`DEFAULT_COLUMNS`.
        records: summary path -> its episode records (:func:`load_records`); without them
            there is no table of probabilities of improvement.
        metric: the metric of that table (default: the first of ``columns`` that a summary
            has, so ``score`` when there is one).

    Raises:
        ValueError: ``metric`` is in no summary.
    """
    envs = sorted({s.get("env_id", "?") for s in summaries})
    tables = [Table("results", ", ".join(envs), *results_rows(summaries, columns, runs=True))]
    header, rows, intervals = interval_rows(summaries, columns, records)
    title = (
        f"{methods_line(intervals)}. 95% intervals of the interquartile mean (IQM): stratified "
        f"bootstrap ({BOOTSTRAP_REPS:,} resamples, seed {BOOTSTRAP_SEED})"
    )
    tables.append(Table("intervals", title, header, rows))
    known = sorted({k for s in summaries for k in s["metrics"]})
    if metric is not None and metric not in known:
        raise ValueError(f"no summary has metric {metric!r}; they have {', '.join(known)}")
    metric = metric or next((k for k, _, _ in columns if k in known), None)
    if records is not None and metric is not None:
        header, rows = improvement_rows(summaries, records, metric)
        if rows:
            title = (
                f"Probability of improvement on {metric}: P(X > Y), the chance that {metric} in "
                f"an episode of X is higher than in one of Y (ties count half), for teams on the "
                f"same task; stratified bootstrap 95% CI ({BOOTSTRAP_REPS:,} resamples, "
                f"seed {BOOTSTRAP_SEED})"
            )
            tables.append(Table("improvement", title, header, rows))
    if any(s.get("tom") for s in summaries):
        tables.append(Table("tom", TOM_TITLE, *tom_rows(list(summaries))))
    return tables
