"""Statistics of episode measures: intervals that stay inside a metric's range, IQM, P(X > Y).

Every interval here comes from ``scipy.stats``, and each method is picked by what a metric is
(:class:`Metric`, which a task declares for its metrics: :meth:`mase.task.TaskEnv.metric_spec`):

- a **proportion** (each episode a success or not: a win, a solved problem) gets the Wilson score
  interval of ``successes / n`` (``scipy.stats.binomtest(...).proportion_ci``), inside [0, 1];
- any other measure (a score in points, a rate per episode, rounds) gets the percentile bootstrap
  of the mean (``scipy.stats.bootstrap``): every bound is a mean of resampled episodes, so it
  lies between the lowest and the highest episode, inside whatever range the metric has.

:func:`interval` returns the interval with its method and a note when the episodes are too few
for it to mean much (under :data:`FEW`), or all alike. Beside the mean, the estimators that
Agarwal et al. (2021, "Deep RL at the edge of the statistical precipice") recommend for few
episodes, as their ``rliable`` library computes them: the interquartile mean (IQM) with a
stratified bootstrap interval, and the probability of improvement of one team over another
(the Mann-Whitney U statistic) with its own. scipy is imported when an interval is computed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

#: Resamples of every bootstrap interval, and their seed: the same records give the same report.
BOOTSTRAP_REPS = 10_000
BOOTSTRAP_SEED = 0
#: Below this many episodes an interval is printed with a warning that it means little.
FEW = 10
#: The two kinds of :class:`Metric`.
KINDS = ("proportion", "bounded")
#: Each interval method in words, for the line under a table or a plot.
METHODS = {
    "wilson": "Wilson score interval for proportions",
    "bootstrap": f"percentile bootstrap of the mean (scipy, {BOOTSTRAP_REPS:,} resamples, "
    f"seed {BOOTSTRAP_SEED}) for scores and other measures",
}


@dataclass(frozen=True)
class Metric:
    """What an episode measure is: its name for people, its kind and its range.

    Attributes:
        label: the name on a plot's axis, with its unit (``"Score (points)"``).
        kind: ``"proportion"``, each episode a success (1) or not (0), whose mean is a share
            of episodes; or ``"bounded"``, a number in ``[low, high]``.
        low, high: the range; ``None`` where a side has no bound (a count without a limit).
            A proportion's range is [0, 1].
    """

    label: str
    kind: str = "bounded"
    low: float | None = 0.0
    high: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"a metric's kind is one of {KINDS}, not {self.kind!r}")
        if self.kind == "proportion" and (self.low, self.high) != (0.0, 1.0):
            object.__setattr__(self, "low", 0.0)
            object.__setattr__(self, "high", 1.0)
        if self.low is not None and self.high is not None and self.low > self.high:
            raise ValueError(f"{self.label}: low {self.low} is above high {self.high}")

    @property
    def range(self) -> tuple[float | None, float | None]:
        """``(low, high)``."""
        return (self.low, self.high)


def rate(label: str) -> Metric:
    """A measure in [0, 1] per episode that is not a yes or no (a valid-action rate)."""
    return Metric(label, "bounded", 0.0, 1.0)


def proportion(label: str) -> Metric:
    """A yes or no per episode (a win); its mean is the share of episodes that said yes."""
    return Metric(label, "proportion", 0.0, 1.0)


@dataclass(frozen=True)
class Interval:
    """A mean over episodes with its confidence interval, the method, and why to doubt it.

    Attributes:
        mean: the mean over the episodes.
        low, high: the interval (``None`` for a single episode).
        n: episodes.
        method: a key of :data:`METHODS`, or ``""`` when there is no interval.
        note: ``""``, or why the interval means little (too few episodes, all alike).
    """

    mean: float
    low: float | None
    high: float | None
    n: int
    method: str
    note: str = ""


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of the proportion ``successes / n`` (scipy's ``binomtest``).

    >>> wilson_interval(0, 10)[0], round(wilson_interval(0, 10)[1], 4)
    (0.0, 0.2775)
    """
    from scipy.stats import binomtest

    if n <= 0:
        return (0.0, 1.0)
    ci = binomtest(int(successes), int(n)).proportion_ci(confidence, method="wilson")
    return (float(ci.low), float(ci.high))


def clopper_pearson_interval(
    successes: int, n: int, confidence: float = 0.95
) -> tuple[float, float]:
    """The Clopper-Pearson (exact) interval of ``successes / n``: wider, never under-covering."""
    from scipy.stats import binomtest

    if n <= 0:
        return (0.0, 1.0)
    ci = binomtest(int(successes), int(n)).proportion_ci(confidence, method="exact")
    return (float(ci.low), float(ci.high))


def interval(
    values: Iterable[float],
    metric: Metric | None = None,
    confidence: float = 0.95,
    reps: int = BOOTSTRAP_REPS,
    seed: int = BOOTSTRAP_SEED,
) -> Interval:
    """The mean of ``values`` (one per episode) and its interval, by the metric's kind.

    Args:
        values: the measure in each episode.
        metric: what it is; ``None``: a bounded measure of unknown range (the bootstrap,
            whose bounds lie within the episodes' own lowest and highest values).
        confidence: the interval's level.
        reps: bootstrap resamples.
        seed: the bootstrap's seed.

    Raises:
        ValueError: no values, or a proportion's value that is neither 0 nor 1.

    >>> iv = interval([1, 0, 1, 1, 1, 1, 0, 1, 1, 1], proportion("won"))
    >>> iv.method, round(iv.low, 3), round(iv.high, 3), iv.note
    ('wilson', 0.49, 0.943, '')
    """
    a = np.asarray(list(values), dtype=float)
    n = len(a)
    if not n:
        raise ValueError("an interval needs at least one value")
    mean = float(a.mean())
    if n == 1:
        return Interval(mean, None, None, 1, "", "one episode: no interval")
    note = f"n={n}: too few episodes for the interval to mean much" if n < FEW else ""
    if metric is not None and metric.kind == "proportion":
        if not np.isin(a, (0.0, 1.0)).all():
            raise ValueError(f"{metric.label} is a proportion, but a value is not 0 or 1: {a}")
        low, high = wilson_interval(int(a.sum()), n, confidence)
        return Interval(mean, low, high, n, "wilson", note)
    if np.ptp(a) == 0:
        alike = "where every episode gave the same value, the bootstrap's interval has no width"
        return Interval(mean, mean, mean, n, "bootstrap", f"{note}; {alike}" if note else alike)
    low, high = _bootstrap(_mean, [a[:, None]], reps, confidence, seed)
    return Interval(mean, low, high, n, "bootstrap", note)


def methods_line(intervals: Iterable[Interval], confidence: float = 0.95) -> str:
    """The line that says how ``intervals`` were made, and what to doubt.

    >>> methods_line([Interval(0.5, 0.2, 0.8, 3, "wilson", "n=3: too few episodes")])
    '95% intervals of the mean: Wilson score interval for proportions; n=3: too few episodes'
    """
    intervals = list(intervals)
    used = [METHODS[m] for m in METHODS if any(iv.method == m for iv in intervals)]
    notes = dict.fromkeys(part for iv in intervals if iv.note for part in iv.note.split("; "))
    text = f"{confidence:.0%} intervals of the mean: " + (", ".join(used) or "none")
    return "; ".join([text, *sorted(notes, key=_note_order)])


def _note_order(note: str) -> tuple[int, str]:
    """Warnings about few episodes first, the fewest first; then the rest."""
    if note.startswith("n=") and ":" in note and note[2 : note.index(":")].isdigit():
        return (0, f"{int(note[2 : note.index(':')]):09d}")
    return (1, note)


def _runs_by_tasks(scores: Any) -> np.ndarray:
    """Scores as a float matrix (runs, tasks); one task when given a flat sequence."""
    a = np.asarray(scores, dtype=float)
    a = a[:, None] if a.ndim == 1 else a
    if a.ndim != 2 or not a.size:
        raise ValueError(f"scores must be a non-empty (runs,) or (runs, tasks) array: {a.shape}")
    return a


def _iqm(*tasks: np.ndarray) -> np.ndarray:
    """IQM over the last axis of each task's runs, all runs and tasks pooled."""
    from scipy.stats import trim_mean

    return trim_mean(np.concatenate(tasks, axis=-1), 0.25, axis=-1)


def _mean(*tasks: np.ndarray) -> np.ndarray:
    """Mean over the last axis of each task's runs, all runs and tasks pooled."""
    return np.concatenate(tasks, axis=-1).mean(axis=-1)


def interquartile_mean(scores: Any) -> float:
    """The interquartile mean (IQM): the mean of the middle half of the scores.

    As rliable's ``aggregate_iqm`` computes it (``scipy.stats.trim_mean(scores, 0.25)`` over
    runs and tasks pooled): a quarter of the values, rounded down, is cut from each end.

    Args:
        scores: a score per run (episode), or a (runs, tasks) matrix.
    """
    return float(_iqm(_runs_by_tasks(scores).ravel()))


def _improvement(tasks: int) -> Callable[..., np.ndarray]:
    """P(X > Y) from X's task columns then Y's (each ``(..., runs)``), averaged over tasks.

    Per task, the Mann-Whitney U statistic of X over Y (``scipy.stats.mannwhitneyu``: pairs
    where X is higher, ties half) over ``runs_x * runs_y``.
    """

    def statistic(*columns: np.ndarray) -> np.ndarray:
        from scipy.stats import mannwhitneyu

        total = 0.0
        for x, y in zip(columns[:tasks], columns[tasks:], strict=True):
            u = mannwhitneyu(x, y, axis=-1, method="asymptotic").statistic
            total = total + u / (x.shape[-1] * y.shape[-1])
        return total / tasks

    return statistic


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
    return float(_improvement(x.shape[1])(*x.T, *y.T))


def _same_tasks(x: np.ndarray, y: np.ndarray) -> None:
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"X has {x.shape[1]} tasks and Y {y.shape[1]}: compare the same tasks")


def _bootstrap(
    statistic: Callable[..., np.ndarray],
    samples: Sequence[np.ndarray],
    reps: int,
    confidence: float,
    seed: int,
) -> tuple[float, float]:
    """Percentile interval of ``statistic`` over resamples of (runs, tasks) ``samples``.

    Stratified: each sample's runs are drawn with replacement within each task, each sample on
    its own (rliable's ``StratifiedBootstrap`` and ``StratifiedIndependentBootstrap``): every
    task column is one of ``scipy.stats.bootstrap``'s independent samples. Resamples go in
    batches of about a million values, to bound memory.
    """
    from scipy.stats import bootstrap

    columns = [column for s in samples for column in s.T]
    size = sum(s.size for s in samples)
    result = bootstrap(
        columns,
        lambda *cs, axis=-1: statistic(*cs),
        n_resamples=reps,
        batch=max(1, 1_000_000 // size),
        vectorized=True,
        paired=False,
        confidence_level=confidence,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def _too_few(*samples: np.ndarray) -> None:
    if min(len(s) for s in samples) < 2:
        raise ValueError("a bootstrap interval needs at least 2 runs of each")


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
    _too_few(a)
    return _bootstrap(_iqm, [a], reps, confidence, seed)


def mean_interval(
    scores: Any,
    reps: int = BOOTSTRAP_REPS,
    confidence: float = 0.95,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float]:
    """The (stratified) bootstrap percentile confidence interval of the mean.

    >>> lo, hi = mean_interval([1, 0, 1, 1, 0, 1, 1, 1, 0, 1])
    >>> 0.3 < lo < 0.7 < hi <= 1.0
    True
    """
    a = _runs_by_tasks(scores)
    if np.ptp(a) == 0:
        return float(a.flat[0]), float(a.flat[0])
    _too_few(a)
    return _bootstrap(_mean, [a], reps, confidence, seed)


def improvement_interval(
    scores_x: Any,
    scores_y: Any,
    reps: int = BOOTSTRAP_REPS,
    confidence: float = 0.95,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float]:
    """The stratified bootstrap interval of :func:`probability_of_improvement`.

    X and Y are resampled independently (their runs are not paired).

    Raises:
        ValueError: fewer than 2 runs of X or of Y, or different tasks.
    """
    x, y = _runs_by_tasks(scores_x), _runs_by_tasks(scores_y)
    _same_tasks(x, y)
    _too_few(x, y)
    if np.ptp(np.concatenate([x, y])) == 0:  # every pair a tie, in every resample
        return 0.5, 0.5
    return _bootstrap(_improvement(x.shape[1]), [x, y], reps, confidence, seed)
