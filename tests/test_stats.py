"""Intervals that respect a metric's range (mase.stats), and the ranges the tasks declare."""

import json
import math

import numpy as np
import pytest
from scipy.stats import beta

import mase
from mase.stats import (
    FEW,
    Interval,
    Metric,
    clopper_pearson_interval,
    interval,
    methods_line,
    proportion,
    rate,
    wilson_interval,
)

Z95 = 1.959963984540054  # the standard normal's 0.975 quantile


def wilson_by_hand(k, n, z=Z95):
    """The Wilson score interval as Wilson (1927) writes it."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


@pytest.mark.parametrize(("k", "n"), [(0, 10), (10, 10), (1, 2), (36, 40), (7, 30), (3, 3)])
def test_wilson_interval_is_the_textbook_one_and_stays_in_zero_to_one(k, n):
    low, high = wilson_interval(k, n)
    assert (low, high) == pytest.approx(wilson_by_hand(k, n), abs=1e-12)
    assert 0.0 <= low <= k / n <= high <= 1.0


def test_wilson_interval_at_the_ends():
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(0, 10)[1] == pytest.approx(
        0.2775, abs=1e-4
    )
    assert wilson_interval(10, 10)[1] == 1.0 and wilson_interval(10, 10)[0] == pytest.approx(
        0.7225, abs=1e-4
    )


@pytest.mark.parametrize(("k", "n"), [(0, 10), (10, 10), (3, 10), (17, 40)])
def test_clopper_pearson_is_the_beta_quantiles(k, n):
    # Clopper and Pearson (1934): the exact interval from the beta distribution's quantiles
    low = 0.0 if k == 0 else beta.ppf(0.025, k, n - k + 1)
    high = 1.0 if k == n else beta.ppf(0.975, k + 1, n - k)
    assert clopper_pearson_interval(k, n) == pytest.approx((low, high), abs=1e-9)
    wilson = wilson_interval(k, n)
    assert clopper_pearson_interval(k, n)[1] - clopper_pearson_interval(k, n)[0] >= (
        wilson[1] - wilson[0]
    )  # exact is never the narrower


def test_a_proportion_gets_wilson_and_refuses_values_that_are_not_0_or_1():
    iv = interval([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0], proportion("won"))
    assert iv.method == "wilson" and iv.n == 12 and iv.note == ""
    assert (iv.low, iv.high) == pytest.approx(wilson_by_hand(11, 12))
    with pytest.raises(ValueError, match="not 0 or 1"):
        interval([1, 0.5], proportion("won"))


@pytest.mark.parametrize(
    "values", [[80, 90, 90], [90, 90, 80, 90, 70], [0, 0, 10], [85] * 9 + [90]]
)
def test_the_bootstrap_of_a_bounded_score_stays_in_its_range(values):
    score = Metric("Score (points)", "bounded", 0, 90)
    iv = interval(values, score)
    assert iv.method == "bootstrap"
    assert min(values) <= iv.low <= iv.mean <= iv.high <= max(values)
    assert 0 <= iv.low and iv.high <= 90
    assert interval(values, score) == iv  # seeded: the same values, the same interval


def test_a_t_interval_would_leave_the_range_where_the_bootstrap_does_not():
    from scipy.stats import t

    values = np.array([90.0, 90.0, 60.0])  # the matrix's "80 [37, 123]" of issue 31, in kind
    half = t.ppf(0.975, 2) * values.std(ddof=1) / np.sqrt(3)
    assert values.mean() + half > 90  # the t interval goes past the most points there are
    iv = interval(values, Metric("Score (points)", "bounded", 0, 90))
    assert 60 <= iv.low and iv.high <= 90


def test_the_bootstrap_agrees_with_scipy():
    from scipy.stats import bootstrap

    values = np.array([12.0, 30, 45, 45, 60, 75, 90, 10, 20, 55, 65, 80])
    iv = interval(values, Metric("Score (points)", "bounded", 0, 90))
    ref = bootstrap((values,), np.mean, method="percentile", n_resamples=10_000,
                    rng=np.random.default_rng(0)).confidence_interval  # fmt: skip
    assert (iv.low, iv.high) == pytest.approx((ref.low, ref.high), abs=1.0)


def test_few_episodes_are_said_to_be_few():
    small = interval([10, 20, 30])
    assert small.note == "n=3: too few episodes for the interval to mean much"
    assert interval(range(FEW)).note == ""
    one = interval([40])
    assert (one.low, one.high, one.method) == (None, None, "") and "one episode" in one.note
    alike = interval([7, 7, 7, 7, 7, 7, 7, 7, 7, 7])
    assert (alike.low, alike.high) == (7.0, 7.0) and "no width" in alike.note
    with pytest.raises(ValueError):
        interval([])


def test_methods_line_names_each_method_once_and_the_doubts():
    line = methods_line([
        Interval(0.5, 0.2, 0.8, 3, "wilson", "n=3: too few episodes for the interval to mean much"),
        Interval(40, 30, 50, 3, "bootstrap", "n=3: too few episodes for the interval to mean much"),
        Interval(40, 30, 50, 2, "bootstrap", "n=2: too few episodes for the interval to mean much"),
    ])  # fmt: skip
    assert line.startswith("95% intervals of the mean: Wilson score interval for proportions, ")
    assert "percentile bootstrap of the mean (scipy, 10,000 resamples, seed 0)" in line
    assert line.count("n=3") == 1 and line.index("n=2") < line.index("n=3")


def test_a_metric_declaration_is_checked():
    assert proportion("won").range == (0.0, 1.0) and rate("valid").kind == "bounded"
    with pytest.raises(ValueError, match="kind"):
        Metric("x", "ratio")
    with pytest.raises(ValueError, match="above"):
        Metric("x", "bounded", 5, 1)


def test_search_and_rescue_declares_its_score_up_to_its_points():
    specs = mase.make("mase/SearchRescue-v0").unwrapped.metric_specs()
    assert specs["score"] == Metric("Score (points)", "bounded", 0.0, 90.0)
    assert specs["rounds"].high == 30.0 and specs["valid_action_rate"].range == (0.0, 1.0)
    small = mase.make("mase/SearchRescue-v0", max_cycles=12).unwrapped.metric_specs()
    assert small["rounds"].high == 12.0


@pytest.mark.parametrize("env_id", mase.list_envs("mase"))
def test_every_declared_metric_holds_in_real_episodes(env_id, tmp_path):
    """What a task declares is what its episodes measure: in range, proportions 0 or 1."""
    specs = mase.make(env_id).unwrapped.metric_specs()
    for team in ("scripted", "random"):
        summary = mase.evaluate(env_id, team, episodes=3, out=tmp_path / team)
        lines = (tmp_path / team / "episodes.jsonl").read_text().splitlines()
        for record in map(json.loads, lines):
            for key, value in record["metrics"].items():
                spec = specs.get(key)
                if spec is None or not isinstance(value, int | float):
                    continue
                assert spec.low is None or value >= spec.low, (key, value, spec)
                assert spec.high is None or value <= spec.high, (key, value, spec)
                if spec.kind == "proportion":
                    assert value in (0, 1), (key, value)
        for key, entry in summary["metrics"].items():
            if key in specs and entry["ci95"] is not None:
                low, high = specs[key].range
                assert low is None or entry["ci95"][0] >= low
                assert high is None or entry["ci95"][1] <= high
    headline = [key for key, _, _ in mase.make(env_id).unwrapped.table_columns]
    assert all(key in specs for key in headline[:1]), "the headline metric is declared"
