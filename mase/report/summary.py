"""Summaries of an evaluation's records: the statistics of every metric (``summary.json``)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from mase.probes import LEVELS

if TYPE_CHECKING:
    pass

from mase.stats import interquartile_mean, iqm_interval, mean_interval, t_quantile

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


def summarize(records: list[dict]) -> dict:
    """Statistics of an evaluation's records, whatever their order.

    Returns:
        ``episodes`` and ``failed`` counts; ``metrics``: for every numeric metric over the
        finished episodes, ``mean``, ``std`` (sample standard deviation), ``ci95`` (half-width
        of the Student t 95% interval of the mean), ``mean_ci95_bootstrap`` (the bootstrap
        percentile 95% interval of the mean, ``[low, high]``), ``n``, ``iqm`` (interquartile
        mean) and ``iqm_ci95`` (its stratified bootstrap 95% interval); the intervals
        are ``None`` below 2 episodes; ``counts``: tallies of text metrics;
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
    metrics = {}
    for key, values in numeric.items():
        arr = np.asarray(values)
        n = len(arr)
        std = float(arr.std(ddof=1)) if n > 1 else 0.0
        metrics[key] = {
            "mean": float(arr.mean()),
            "std": std,
            "ci95": t_quantile(0.975, n - 1) * std / math.sqrt(n) if n > 1 else None,
            "n": n,
            "iqm": interquartile_mean(arr),
            "iqm_ci95": list(iqm_interval(arr)) if n > 1 else None,
            "mean_ci95_bootstrap": list(mean_interval(arr)) if n > 1 else None,
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
    failures: dict[str, int] = {}
    for record in records:
        if record.get("failed"):
            reason = (str(record.get("error") or "unknown error").splitlines() or ["?"])[0]
            failures[reason] = failures.get(reason, 0) + 1
    if failures:
        summary["failures"] = dict(sorted(failures.items(), key=lambda kv: -kv[1]))
    return summary
