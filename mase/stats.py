"""Statistics of episode scores: the Student t interval, the interquartile mean, bootstraps.

The estimators that Agarwal et al. (2021, "Deep RL at the edge of the statistical precipice")
recommend for comparing agents over few episodes, as their ``rliable`` library computes them,
written with numpy: the interquartile mean (IQM) with a stratified bootstrap percentile
interval, and the probability of improvement of one team over another (the Mann-Whitney U
statistic) with its own bootstrap interval; and the Student t interval of a mean.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

#: Resamples of every bootstrap interval, and their seed: the same records give the same report.
BOOTSTRAP_REPS = 10_000
BOOTSTRAP_SEED = 0


def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile of Student's t distribution with ``df`` degrees of freedom.

    For a whole number of degrees of freedom the distribution function is a finite sum of
    powers of a cosine (Abramowitz and Stegun 26.7.3 and 26.7.4), exact up to rounding; the
    quantile is found by bisection on it, to float precision. This keeps scipy, a large compiled
    dependency, out of the core install for the one quantile the reports need.

    >>> round(t_quantile(0.975, 1), 4), round(t_quantile(0.975, 29), 4)
    (12.7062, 2.0452)
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if df < 1 or int(df) != df:
        raise ValueError(f"df must be a whole number of at least 1, got {df}")
    if p <= 0.5:
        return -t_quantile(1.0 - p, df) if p < 0.5 else 0.0
    target = 2.0 * p - 1.0  # P(|T| <= t)
    lo, hi = 0.0, 1.0
    while _t_central(hi, int(df)) < target:
        lo, hi = hi, 2.0 * hi
    while lo < (mid := (lo + hi) / 2) < hi:
        lo, hi = (mid, hi) if _t_central(mid, int(df)) < target else (lo, mid)
    return hi


def _t_central(t: float, df: int) -> float:
    """P(-t <= T <= t) for Student's t with ``df`` degrees of freedom (A&S 26.7.3-4)."""
    theta = math.atan(t / math.sqrt(df))
    sin, cos2 = math.sin(theta), math.cos(theta) ** 2
    if df % 2:  # (2/pi) (theta + sin (cos + 2/3 cos^3 + 2*4/(3*5) cos^5 + ... cos^(df-2)))
        j = np.arange(1, (df - 1) // 2)
        terms = math.cos(theta) * np.cumprod(np.r_[1.0, cos2 * 2 * j / (2 * j + 1)])
        return 2.0 / math.pi * (theta + (sin * terms.sum() if df > 1 else 0.0))
    # sin (1 + 1/2 cos^2 + 1*3/(2*4) cos^4 + ... cos^(df-2))
    j = np.arange(df // 2 - 1)
    return sin * float(np.cumprod(np.r_[1.0, cos2 * (2 * j + 1) / (2 * j + 2)]).sum())


def t_interval(mean: float, std: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Student t confidence interval of a mean of ``n`` values with sample std ``std``."""
    if n < 2:
        raise ValueError(f"an interval needs at least 2 values, got {n}")
    half = t_quantile(0.5 + confidence / 2, n - 1) * std / math.sqrt(n)
    return mean - half, mean + half


def _runs_by_tasks(scores: Any) -> np.ndarray:
    """Scores as a float matrix (runs, tasks); one task when given a flat sequence."""
    a = np.asarray(scores, dtype=float)
    a = a[:, None] if a.ndim == 1 else a
    if a.ndim != 2 or not a.size:
        raise ValueError(f"scores must be a non-empty (runs,) or (runs, tasks) array: {a.shape}")
    return a


def _iqm(resampled: np.ndarray) -> np.ndarray:
    """IQM of each resample of a (resamples, runs, tasks) array, all runs and tasks pooled."""
    values = np.sort(resampled.reshape(len(resampled), -1), axis=1)
    cut = values.shape[1] // 4
    return values[:, cut : values.shape[1] - cut].mean(axis=1)


def interquartile_mean(scores: Any) -> float:
    """The interquartile mean (IQM): the mean of the middle half of the scores.

    As rliable's ``aggregate_iqm`` computes it (``scipy.stats.trim_mean(scores, 0.25)`` over
    runs and tasks pooled): a quarter of the values, rounded down, is cut from each end.

    Args:
        scores: a score per run (episode), or a (runs, tasks) matrix.
    """
    return float(_iqm(_runs_by_tasks(scores)[None])[0])


def _improvement(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """P(X > Y) per resample of (resamples, runs_x, tasks) and (resamples, runs_y, tasks).

    Per task, the Mann-Whitney U statistic of X over Y (pairs where X is higher, ties half)
    over ``runs_x * runs_y``, from each resample's counts of every distinct value; then the
    mean over tasks.
    """
    reps, nx, tasks = x.shape
    ny = y.shape[1]
    total = np.zeros(reps)
    for task in range(tasks):
        pooled = np.concatenate([x[:, :, task], y[:, :, task]], axis=1)
        values, codes = np.unique(pooled, return_inverse=True)
        codes = codes.reshape(reps, nx + ny) + np.arange(reps)[:, None] * len(values)
        size = reps * len(values)
        count_x = np.bincount(codes[:, :nx].ravel(), minlength=size).reshape(reps, -1)
        count_y = np.bincount(codes[:, nx:].ravel(), minlength=size).reshape(reps, -1)
        below_y = np.cumsum(count_y, axis=1) - count_y
        total += (count_x * (below_y + count_y / 2)).sum(axis=1) / (nx * ny)
    return total / tasks


def probability_of_improvement(scores_x: Any, scores_y: Any) -> float:
    """P(X > Y): how likely a run of X scores higher than a run of Y, ties counting half.

    Agarwal et al. (2021)'s average probability of improvement, as rliable computes it: per
    task the Mann-Whitney U statistic over ``runs_x * runs_y``, averaged over tasks.
    ``P(Y > X) = 1 - P(X > Y)``.

    Args:
        scores_x: X's score per run (episode), or a (runs, tasks) matrix.
        scores_y: Y's, with the same tasks (the runs may differ in number).
    """
    x, y = _runs_by_tasks(scores_x), _runs_by_tasks(scores_y)
    _same_tasks(x, y)
    return float(_improvement(x[None], y[None])[0])


def _same_tasks(x: np.ndarray, y: np.ndarray) -> None:
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"X has {x.shape[1]} tasks and Y {y.shape[1]}: compare the same tasks")


def _stratified_bootstrap(
    statistic: Callable[..., np.ndarray],
    samples: Sequence[np.ndarray],
    reps: int,
    confidence: float,
    seed: int,
) -> tuple[float, float]:
    """Percentile interval of ``statistic`` over resamples of (runs, tasks) ``samples``.

    Stratified: each sample's runs are drawn with replacement within each task, each sample on
    its own (rliable's ``StratifiedBootstrap`` and ``StratifiedIndependentBootstrap``).
    Resamples go in blocks of about a million values, to bound memory.
    """
    rng = np.random.default_rng(seed)
    block = max(1, 1_000_000 // sum(s.size for s in samples))
    estimates = []
    for start in range(0, reps, block):
        size = min(block, reps - start)
        resampled = [
            s[rng.integers(0, len(s), size=(size, *s.shape)), np.arange(s.shape[1])]
            for s in samples
        ]
        estimates.append(statistic(*resampled))
    tail = 100 * (1 - confidence) / 2
    lo, hi = np.percentile(np.concatenate(estimates), [tail, 100 - tail])
    return float(lo), float(hi)


def iqm_interval(
    scores: Any,
    reps: int = BOOTSTRAP_REPS,
    confidence: float = 0.95,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float]:
    """The stratified bootstrap (percentile) confidence interval of :func:`interquartile_mean`."""
    a = _runs_by_tasks(scores)
    if np.ptp(a) == 0:  # every resample is the same
        return float(a.flat[0]), float(a.flat[0])
    return _stratified_bootstrap(_iqm, [a], reps, confidence, seed)


def _mean(resampled: np.ndarray) -> np.ndarray:
    """Mean of each resample of a (resamples, runs, tasks) array, all runs and tasks pooled."""
    return resampled.reshape(len(resampled), -1).mean(axis=1)


def mean_interval(
    scores: Any,
    reps: int = BOOTSTRAP_REPS,
    confidence: float = 0.95,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float]:
    """The (stratified) bootstrap percentile confidence interval of the mean.

    For a rate over episodes (an accuracy), next to the mean ± standard error a paper reports.

    >>> lo, hi = mean_interval([1, 0, 1, 1, 0, 1, 1, 1, 0, 1])
    >>> 0.3 < lo < 0.7 < hi <= 1.0
    True
    """
    a = _runs_by_tasks(scores)
    if np.ptp(a) == 0:
        return float(a.flat[0]), float(a.flat[0])
    return _stratified_bootstrap(_mean, [a], reps, confidence, seed)


def improvement_interval(
    scores_x: Any,
    scores_y: Any,
    reps: int = BOOTSTRAP_REPS,
    confidence: float = 0.95,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float]:
    """The stratified bootstrap interval of :func:`probability_of_improvement`.

    X and Y are resampled independently (their runs are not paired).
    """
    x, y = _runs_by_tasks(scores_x), _runs_by_tasks(scores_y)
    _same_tasks(x, y)
    return _stratified_bootstrap(_improvement, [x, y], reps, confidence, seed)
