"""Summaries of an evaluation's records: the statistics of every metric (``summary.json``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from mase.probes import LEVELS
from mase.stats import Metric, interquartile_mean, interval, iqm_interval

#: Metrics of model usage that a summary also totals over all episodes, failed ones included.
USAGE_KEYS = (
    "llm_calls",
    "prompt_tokens",
    "completion_tokens",
    "llm_tokens",
    "cost_usd",
    "latency_s",
    "llm_errors",
    "cached_calls",
)


def _tom_accuracy(records: list[dict]) -> dict[str, dict]:
    """Accuracy per level pooled over the answered probes of the records.

    Pooled, as the paper counts it, rather than a mean of per-episode accuracies, which would
    weigh an episode with one question like one with twenty. Questions put to seats whose
    policy cannot answer (a scripted or random teammate) are counted as asked, not as wrong;
    a reply that says neither yes nor no is answered and wrong. ``on_unread`` counts the
    answered questions whose truth may rest on a message the claim reader could not read.
    """
    pooled: dict[str, list[int]] = {}
    for record in records:
        for probe in record.get("probes") or []:
            counts = pooled.setdefault(str(probe.get("level")), [0, 0, 0, 0])
            answered = probe.get("reply") is not None
            counts[0] += answered and probe.get("correct") is True
            counts[1] += answered
            counts[2] += 1
            counts[3] += answered and bool(probe.get("unread_messages"))
    return {
        level: {
            "accuracy": correct / n if n else None,
            "correct": correct,
            "n": n,
            "asked": asked,
            "on_unread": unread,
        }
        for level, (correct, n, asked, unread) in sorted(
            pooled.items(), key=lambda kv: _level_order(kv[0])
        )
    }


def _level_order(level: str) -> tuple[int, str]:
    return (LEVELS.index(level) if level in LEVELS else len(LEVELS), level)


def _metric_stats(values: np.ndarray, metric: Metric | None) -> dict[str, Any]:
    """One metric's entry in a summary (:func:`summarize`)."""
    n = len(values)
    ci = interval(values, metric)
    entry: dict[str, Any] = {
        "mean": ci.mean,
        "std": float(values.std(ddof=1)) if n > 1 else 0.0,
        "n": n,
        "ci95": None if ci.low is None else [ci.low, ci.high],
        "ci95_method": ci.method,
        "ci95_note": ci.note,
        "iqm": interquartile_mean(values),
        "iqm_ci95": list(iqm_interval(values)) if n > 1 else None,
    }
    if metric is not None:
        entry.update(label=metric.label, kind=metric.kind, range=list(metric.range))
    return entry


def summarize(records: list[dict], metrics: Mapping[str, Metric] | None = None) -> dict:
    """Statistics of an evaluation's records, whatever their order.

    Args:
        records: the episode records.
        metrics: what the task's metrics are (:meth:`mase.task.TaskEnv.metric_specs`), which
            picks each one's interval (:func:`mase.stats.interval`); a metric not in it gets
            the bootstrap, which stays within the episodes' own values.

    Returns:
        ``episodes`` and ``failed`` counts; ``metrics``: for every numeric metric over the
        finished episodes, ``mean``, ``std`` (sample standard deviation), ``n``, ``ci95``
        (the 95% interval of the mean, ``[low, high]``, inside the metric's range),
        ``ci95_method`` (``"wilson"`` for a proportion, ``"bootstrap"`` for the rest),
        ``ci95_note`` (why the interval means little, or ``""``), ``iqm`` (interquartile
        mean) and ``iqm_ci95`` (its stratified bootstrap 95% interval); the intervals
        are ``None`` below 2 episodes; a declared metric adds its ``label``, ``kind`` and
        ``range``; ``counts``: tallies of text metrics;
        when probes were asked, ``tom``: per level, the accuracy pooled over all questions
        with its counts; when a model played, ``usage``: totals of :data:`USAGE_KEYS` over
        all episodes, failed ones included (they were paid for too); when episodes failed,
        ``failures``: each distinct reason (the error's first line) with its count.
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
    summary["metrics"] = {
        key: _metric_stats(np.asarray(values), (metrics or {}).get(key))
        for key, values in numeric.items()
    }
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
    failures: dict[str, int] = {}
    for record in records:
        if record.get("failed"):
            reason = (str(record.get("error") or "unknown error").splitlines() or ["?"])[0]
            failures[reason] = failures.get(reason, 0) + 1
    if failures:
        summary["failures"] = dict(sorted(failures.items(), key=lambda kv: -kv[1]))
    return summary
