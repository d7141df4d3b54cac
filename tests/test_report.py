import csv
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import mase
from mase.cli import main
from mase.presets import load_preset
from mase.report import (
    comparison_table,
    find_training_logs,
    improvement_interval,
    interquartile_mean,
    iqm_interval,
    load_summaries,
    plot_learning_curves,
    probability_of_improvement,
    read_curves,
    render_tables,
    results_table,
    summarize,
)
from mase.stats import Metric, proportion


def write_metrics(path):
    path.mkdir(parents=True)
    (path / "metrics.csv").write_text(
        "update,global_step,charts/episodic_score,losses/v_loss\n1,100,40.0,1.0\n2,200,60.5,0.5\n"
    )


def test_read_curves_keeps_chart_columns(tmp_path):
    write_metrics(tmp_path / "run")
    step, curves = read_curves(tmp_path / "run" / "metrics.csv")
    assert step == "global_step"
    assert curves == {"charts/episodic_score": [(100.0, 40.0), (200.0, 60.5)]}


def test_report_plots_learning_curves(tmp_path, capsys):
    write_metrics(tmp_path / "run")
    png = tmp_path / "curve.png"
    assert main(["report", str(tmp_path), "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert find_training_logs([tmp_path]) == [tmp_path / "run" / "metrics.csv"]


def test_report_without_anything_is_an_error(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 1
    assert "no summary.json" in capsys.readouterr().err


def test_report_table_from_summary(tmp_path, capsys):
    summary = {
        "team": "t",
        "env_id": "e",
        "episodes": 1,
        "failed": 0,
        "counts": {},
        "metrics": {"score": {"mean": 90.0, "std": 0.0, "ci95": 0.0, "n": 1}},
    }
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    assert main(["report", str(tmp_path)]) == 0
    assert "90.0 ± 0.0" in capsys.readouterr().out


# -- statistics: intervals by the metric's kind ------------------------------------------------


def test_a_summary_interval_follows_the_metric_kind():
    records = [{"episode": i, "metrics": {"won": float(i % 3 == 0), "score": 10.0 * i}}
               for i in range(12)]  # fmt: skip
    declared = {"won": proportion("won"), "score": Metric("Score (points)", "bounded", 0, 110)}
    metrics = summarize(records, declared)["metrics"]
    won, score = metrics["won"], metrics["score"]
    assert won["ci95_method"] == "wilson" and won["kind"] == "proportion"
    assert won["range"] == [0.0, 1.0] and 0.0 <= won["ci95"][0] < 4 / 12 < won["ci95"][1] <= 1.0
    assert score["ci95_method"] == "bootstrap" and score["label"] == "Score (points)"
    assert 0.0 <= score["ci95"][0] < score["mean"] < score["ci95"][1] <= 110.0
    assert score["ci95_note"] == ""  # 12 episodes are enough not to be warned
    undeclared = summarize(records)["metrics"]["won"]  # the bootstrap: within the episodes
    assert undeclared["ci95_method"] == "bootstrap" and "kind" not in undeclared
    assert 0.0 <= undeclared["ci95"][0] <= undeclared["ci95"][1] <= 1.0


def test_one_episode_has_no_interval():
    metric = summarize([{"episode": 0, "metrics": {"score": 40}}])["metrics"]["score"]
    assert metric["ci95"] is None and metric["iqm_ci95"] is None
    assert metric["mean"] == metric["iqm"] == 40.0 and metric["std"] == 0.0


# -- statistics: IQM, bootstrap, probability of improvement -------------------------------------

# Reference data and rliable 1.2.0's results on it (rliable.metrics.aggregate_iqm,
# probability_of_improvement; rliable.library.get_interval_estimates, 50,000 resamples for the
# IQM and 10,000 for P(X > Y), np.random.seed(0)); rliable's intervals move by about 0.1 and
# 0.005 between seeds.
A = np.round(50 + 15 * np.sin(np.arange(30) * 1.7), 1)
B = np.round(45 + 12 * np.cos(np.arange(24) * 2.3), 1)
RLIABLE = {
    "iqm": 49.6625,
    "iqm_ci": (44.1, 55.525),
    "iqm_ci_3_tasks": (44.1188, 55.5062),
    "poi": 0.6395833333333333,
    "poi_3_tasks": 0.6458333333333334,
    "poi_ci": (0.4861, 0.7792),
    "poi_ci_3_tasks": (0.4917, 0.7875),
}


def test_iqm_by_hand():
    # a quarter (rounded down) cut from each end, as scipy.stats.trim_mean(x, 0.25)
    assert interquartile_mean([1, 2, 3, 4, 5, 6, 7, 1000]) == pytest.approx(4.5)
    assert interquartile_mean([5, 1, 9, 3, 7]) == pytest.approx(5.0)  # middle three of five
    assert interquartile_mean([2, 4, 9]) == pytest.approx(5.0)  # under four: the mean
    # runs and tasks pooled: 1 2 [3 4 10 20] 30 40
    assert interquartile_mean([[1, 10], [2, 20], [3, 30], [4, 40]]) == pytest.approx(9.25)


def test_probability_of_improvement_by_hand():
    # pairs (x, y): 3>1, 3=3 (half), 3<5, 4>1, 4>3, 4<5 -> 3.5 of 6
    assert probability_of_improvement([3, 4], [1, 3, 5]) == pytest.approx(3.5 / 6)
    assert probability_of_improvement([1, 3, 5], [3, 4]) == pytest.approx(1 - 3.5 / 6)
    assert probability_of_improvement([2, 2], [2, 2, 2]) == 0.5
    assert probability_of_improvement([9, 8], [1, 2]) == 1.0
    # two tasks: the mean of the tasks' probabilities (1 and 0)
    assert probability_of_improvement([[5, 0], [6, 1]], [[1, 5], [2, 6]]) == 0.5
    with pytest.raises(ValueError, match="same tasks"):
        probability_of_improvement([[1, 2]], [[1, 2, 3]])


def test_estimators_match_rliable():
    assert interquartile_mean(A) == pytest.approx(RLIABLE["iqm"])
    assert interquartile_mean(A.reshape(10, 3)) == pytest.approx(RLIABLE["iqm"])
    assert probability_of_improvement(A, B) == pytest.approx(RLIABLE["poi"])
    assert probability_of_improvement(A.reshape(10, 3), B.reshape(8, 3)) == pytest.approx(
        RLIABLE["poi_3_tasks"]
    )
    # the bootstrap draws differ, the intervals agree within the resampling noise
    assert iqm_interval(A) == pytest.approx(RLIABLE["iqm_ci"], abs=0.3)
    assert iqm_interval(A.reshape(10, 3)) == pytest.approx(RLIABLE["iqm_ci_3_tasks"], abs=0.3)
    assert improvement_interval(A, B) == pytest.approx(RLIABLE["poi_ci"], abs=0.015)
    three_tasks = improvement_interval(A.reshape(10, 3), B.reshape(8, 3))
    assert three_tasks == pytest.approx(RLIABLE["poi_ci_3_tasks"], abs=0.015)


def test_bootstrap_is_stratified_and_seeded():
    # two tasks on different scales: resampling within each task keeps half the runs of each,
    # so every resample's IQM pools 2 of task 0 and 2 of task 1
    scores = [[0.0, 100.0], [1.0, 101.0]]
    low, high = iqm_interval(scores, reps=2000)
    assert 50.0 <= low <= high <= 51.0
    assert iqm_interval(A) == iqm_interval(A)  # a fixed seed: reproducible
    assert iqm_interval(A, seed=1) != iqm_interval(A, seed=2)
    assert iqm_interval([7, 7, 7]) == (7.0, 7.0)


def test_summary_has_iqm_and_its_interval():
    records = [{"episode": i, "metrics": {"score": float(s)}} for i, s in enumerate(A)]
    score = summarize(records)["metrics"]["score"]
    assert score["iqm"] == pytest.approx(RLIABLE["iqm"])
    assert score["iqm_ci95"] == pytest.approx(list(iqm_interval(A)))
    assert score["mean"] == pytest.approx(A.mean()) and score["n"] == 30


# -- mase report -----------------------------------------------------------------------------


def write_run(path, team, scores, env_id="mase/SearchRescue-v0"):
    """An evaluation folder as `mase eval --out` leaves it: episodes.jsonl and summary.json."""
    path.mkdir(parents=True)
    records = [
        {"episode": i, "metrics": {"score": float(s), "rounds": 30.0 - i % 2}}
        for i, s in enumerate(scores)
    ]
    (path / "episodes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    summary = {"team": team, "env_id": env_id, **summarize(records)}
    (path / "summary.json").write_text(json.dumps(summary))


def test_report_labels_columns_and_tells_runs_apart(tmp_path, capsys):
    write_run(tmp_path / "a" / "random", "random", [10, 20, 30])
    write_run(tmp_path / "b" / "random", "random", [40, 50, 60])
    assert main(["report", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[1]
    assert "score (mean ± sd)" in header and "run" in header.split()
    assert str(tmp_path / "a" / "random") in out and str(tmp_path / "b" / "random") in out
    assert "20.0 ± 10.0" in out and "50.0 ± 10.0" in out  # the means and stds as before
    # n = 3: a t interval, 20 ± 24.8, would go below any score; the bootstrap's stays in
    # [10, 30], the lowest and highest mean of three resampled episodes (each 1/27 > 2.5%)
    assert "[10.0, 30.0]" in out and "bootstrap" in out
    assert "n=3: too few episodes for the interval to mean much" in out
    assert "Probability of improvement on score" in out
    row = next(line for line in out.splitlines() if line.startswith("random ("))
    assert "0.00" in row  # every episode of a scored lower than every one of b


def test_results_and_comparison_tables_say_what_plus_minus_is():
    summary = {"team": "t", "episodes": 2, "metrics": {"score": {"mean": 5.0, "std": 1.0}}}
    assert "score (mean ± sd)" in results_table([summary]).splitlines()[0]
    header = comparison_table(load_preset("paper-table1"), {}).splitlines()[0]
    assert "score (mean ± sd)" in header and "paper score" in header


def test_report_probability_of_improvement_over_a_chosen_metric(tmp_path, capsys):
    write_run(tmp_path / "x", "x", [50, 60, 70, 80])
    write_run(tmp_path / "y", "y", [10, 20, 30, 40])
    write_run(tmp_path / "z", "z", [90, 90], env_id="mase/Other-v0")  # another task: no pair
    assert main(["report", str(tmp_path), "--format", "json"]) == 0
    tables = json.loads(capsys.readouterr().out)  # two tasks: a set of tables each
    assert "results mase/Other-v0" in tables and "improvement mase/Other-v0" not in tables
    assert tables["improvement mase/SearchRescue-v0"] == [
        {
            "X": "x",
            "Y": "y",
            "P(X > Y)": "1.00",
            "95% CI (bootstrap)": "[1.00, 1.00]",
            "episodes X": "4",
            "episodes Y": "4",
        }
    ]
    assert main(["report", str(tmp_path), "--metric", "rounds"]) == 0
    out = capsys.readouterr().out
    assert "Probability of improvement on rounds" in out
    assert main(["report", str(tmp_path), "--metric", "nope"]) == 2
    assert "no summary has metric 'nope'" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["markdown", "csv", "json"])
def test_report_formats(tmp_path, capsys, fmt):
    write_run(tmp_path / "a", "random", [10, 20, 30])
    write_run(tmp_path / "b", "scripted", [90, 90, 90])
    assert main(["report", str(tmp_path), "--format", fmt]) == 0
    out = capsys.readouterr().out
    if fmt == "json":
        results = json.loads(out)["results"]
        assert [r["team"] for r in results] == ["random", "scripted"]
        assert results[0]["score (mean ± sd)"] == "20.0 ± 10.0"
        assert results[0]["run"] == str(tmp_path / "a")
    elif fmt == "csv":
        rows = list(csv.reader(io.StringIO(out)))
        assert rows[0] == ["# mase/SearchRescue-v0"]
        assert rows[1][:3] == ["team", "run", "score (mean ± sd)"]
        assert rows[2][:3] == ["random", str(tmp_path / "a"), "20.0 ± 10.0"]
    else:
        lines = out.splitlines()
        start = lines.index("| team | run | score (mean ± sd) | rounds (mean ± sd) "
                            "| valid action (mean ± sd) | episodes | ended by |")  # fmt: skip
        assert lines[start + 1] == "|---|---|---|---|---|---|---|"
        assert lines[start + 2].startswith(f"| random | {tmp_path / 'a'} | 20.0 ± 10.0 |")
    assert render_tables([]) == ""
    with pytest.raises(ValueError, match="unknown format"):
        render_tables([], "html")


def test_learning_curve_with_one_point_is_drawn(tmp_path):
    pytest.importorskip("matplotlib")
    from matplotlib.image import imread

    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "metrics.csv").write_text("global_step,charts/episodic_score\n100,40.0\n")
    png = plot_learning_curves(find_training_logs([tmp_path]), tmp_path / "one.png")
    pixels = imread(png)[..., :3]
    line_colour = np.array([0x1F, 0x77, 0xB4]) / 255  # matplotlib's first colour, C0
    assert (np.abs(pixels - line_colour).max(axis=-1) < 0.1).sum() > 20


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"mase-suite {mase.__version__}"


# -- evaluation plots ---------------------------------------------------------------------------


def _columns(env_id):
    return mase.make(env_id).unwrapped.table_columns or (
        ("score", "score", "{:.1f}"), ("rounds", "rounds", "{:.1f}"),
        ("valid_action_rate", "valid action", "{:.1%}"),
    )  # fmt: skip


def _whiskers(ax):
    """The (low, high) of every error bar drawn on ``ax``."""
    out = []
    for container in ax.containers:
        bars = getattr(container, "errorbar", None) or container
        for collection in getattr(bars, "lines", ((), (), ()))[2]:
            out += [(seg[:, 1].min(), seg[:, 1].max()) for seg in collection.get_segments()]
    return out


def test_report_plot_panels_are_one_task_each_named_for_people_inside_the_range(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from mase.report.plots import evaluation_figure, evaluation_panels

    for team in ("scripted", "random"):
        mase.evaluate("mase/SearchRescue-v0", team, episodes=3, out=tmp_path / "sr" / team)
    mase.evaluate("mase/Avalon-v0", "scripted", episodes=2, out=tmp_path / "avalon")
    summaries = load_summaries([tmp_path])
    tasks = ("mase/SearchRescue-v0", "mase/Avalon-v0")
    columns = {env_id: _columns(env_id) for env_id in tasks}
    panels = evaluation_panels(summaries, columns)
    for panel in panels:  # one task a panel: its runs alone (two teams of SR, one of Avalon)
        assert len(panel["series"]) == {tasks[0]: 2, tasks[1]: 1}[panel["task"]]
    titles = [p["title"] for p in panels]
    assert "mase/SearchRescue-v0: Score (points)" in titles
    assert "mase/Avalon-v0: Good side's wins (share of games)" in titles  # Avalon's headline
    assert "mase/SearchRescue-v0: Rounds per episode" in titles
    for task in tasks:  # a metric both tasks measure: a panel each, never one axis
        assert f"{task}: Valid-action rate (share of turns)" in titles
    fig = evaluation_figure(summaries, columns)
    drawn = [ax for ax in fig.axes if ax.get_visible() and ax.get_title()]
    assert [ax.get_title() for ax in drawn] == titles
    for ax, panel in zip(drawn, panels, strict=True):
        title = ax.get_title()
        assert sum(task in title for task in tasks) == 1
        assert "_" not in title.split(": ", 1)[1]  # no raw metric key
        low, high = panel["range"]
        bottom, top = ax.get_ylim()
        if low is not None and high is not None:  # the axis spans the range, and a little
            assert bottom < low <= low + 0.9 * (high - low) < high < top
            assert top - high == pytest.approx(low - bottom) == pytest.approx(0.03 * (high - low))
        whiskers = _whiskers(ax)
        assert whiskers, title
        for w_low, w_high in whiskers:
            assert bottom - 1e-9 <= w_low <= w_high <= top + 1e-9, title
            assert (low is None or w_low >= low - 1e-9) and (high is None or w_high <= high + 1e-9)
    score = next(ax for ax in drawn if "Score" in ax.get_title())
    assert (
        score.get_ylim() == pytest.approx((-2.7, 92.7)) and score.get_ylabel() == "Score (points)"
    )
    assert "n=3: too few episodes" in fig._suptitle.get_text()
    plt.close(fig)


def test_a_summary_from_before_bounded_intervals_is_drawn_from_its_episodes(tmp_path):
    from mase.report.plots import evaluation_panels

    records = [{"episode": i, "metrics": {"score": s}} for i, s in enumerate([90, 90, 60])]
    old = {"team": "t", "env_id": "e", "path": "run",
           "metrics": {"score": {"mean": 80.0, "std": 17.3, "ci95": 43.0, "n": 3}}}  # fmt: skip
    ((panel,),) = [evaluation_panels([old], [("score", "score", "{:.1f}")], {"run": records})]
    ((team, mean, low, high, n),) = panel["series"]
    assert (team, mean, n) == ("t", 80.0, 3) and 60 <= low <= mean <= high <= 90  # not 37, 123
    assert panel["title"] == "e: Score"


def test_tom_accuracy_by_level_has_wilson_intervals(tmp_path):
    from mase.report.plots import evaluation_panels, wilson_interval

    summary = {"team": "t", "env_id": "e", "metrics": {},
               "tom": {"introspection": {"accuracy": 0.9, "correct": 36, "n": 40},
                       "second_order": {"accuracy": 0.5, "correct": 1, "n": 2}}}  # fmt: skip
    (panel,) = evaluation_panels([summary], [])
    assert panel["kind"] == "tom"
    rows = {level: (acc, low, high, n) for _, level, acc, low, high, n in panel["series"]}
    assert rows["introspection"][0] == 0.9 and rows["introspection"][3] == 40
    assert rows["second_order"][1:3] == pytest.approx(wilson_interval(1, 2))
    low, high = wilson_interval(36, 40)
    assert 0.76 < low < 0.77 and 0.96 < high < 0.97  # the Wilson interval of 36/40
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0


def test_a_debates_accuracy_is_drawn_by_round(tmp_path):
    from mase.report.plots import evaluation_panels

    mase.evaluate("mase/Debate-v0", "scripted", episodes=3, out=tmp_path / "d")
    (summary,) = load_summaries([tmp_path])
    panels = {p["kind"]: p for p in evaluation_panels([summary], [])}
    ((team, points),) = panels["rounds"]["series"]
    assert [p[0] for p in points] == [1, 2]
    assert points[0][1] == pytest.approx(summary["metrics"]["round1_correct"]["mean"])


def test_report_plot_draws_evaluations_and_curves_side_by_side(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    mase.evaluate("mase/SearchRescue-v0", "scripted", episodes=2, out=tmp_path / "eval")
    write_metrics(tmp_path / "train")
    png = tmp_path / "report.png"
    assert main(["report", str(tmp_path), "--plot", str(png)]) == 0
    printed = capsys.readouterr().out
    assert f"evaluation plot: {png}" in printed
    assert f"learning curves: {tmp_path / 'report-curves.png'}" in printed
    for path in (png, tmp_path / "report-curves.png"):
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# -- without matplotlib -------------------------------------------------------------------------

NO_PLOT_LINE = "plots need matplotlib: pip install 'mase-suite[plot]'"


@pytest.fixture
def no_matplotlib(monkeypatch):
    """matplotlib as if it were not installed: importing it raises ImportError."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)


def test_report_plot_without_matplotlib_is_one_line_naming_the_extra(
    tmp_path, capsys, no_matplotlib
):
    write_run(tmp_path / "eval", "random", [10, 20, 30])
    write_metrics(tmp_path / "train")
    png = tmp_path / "x.png"
    assert main(["report", str(tmp_path), "--plot", str(png)]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [f"mase report: error: --plot: {NO_PLOT_LINE}"]
    assert not png.exists() and not (tmp_path / "x-curves.png").exists()
    assert main(["report", str(tmp_path)]) == 0  # the tables need no matplotlib


def test_every_plot_function_without_matplotlib_names_the_extra(tmp_path, no_matplotlib):
    from mase.crossplay import CrossPlay, plot_crossplay
    from mase.report.plots import PlottingUnavailable, plot_evaluations

    write_run(tmp_path / "eval", "random", [10, 20, 30])
    write_metrics(tmp_path / "train")
    summaries = load_summaries([tmp_path])
    matrix = CrossPlay("mase/SearchRescue-v0", "score", ["random"], "a", "b", 1, 0)
    for draw in (
        lambda: plot_evaluations(summaries, [("score", "score", "{:.1f}")], tmp_path / "e.png"),
        lambda: plot_learning_curves(find_training_logs([tmp_path]), tmp_path / "c.png"),
        lambda: plot_crossplay(matrix, tmp_path / "m.png"),
    ):
        with pytest.raises(PlottingUnavailable, match=re.escape(NO_PLOT_LINE)):
            draw()
    assert issubclass(PlottingUnavailable, ImportError)
    assert not list(tmp_path.glob("*.png"))


def test_the_mase_command_without_matplotlib_exits_2_with_no_traceback(tmp_path):
    write_metrics(tmp_path / "train")
    hide = "import sys; sys.modules['matplotlib'] = None; from mase.cli import main; "
    argv = ["report", str(tmp_path), "--plot", str(tmp_path / "c.png")]
    done = subprocess.run(
        [sys.executable, "-c", hide + f"sys.exit(main({argv!r}))"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [f"mase report: error: --plot: {NO_PLOT_LINE}"]


def test_learning_curves_of_two_tasks_never_share_an_axis(tmp_path):
    from mase.report.curves import curve_panels

    for name, env_id in (("sr", "mase/SearchRescue-v0"), ("craft", "mase/Craft-v0")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "metrics.csv").write_text(
            "global_step,charts/episodic_rounds,charts/success_rate\n100,30,0.0\n200,20,0.5\n"
        )
        (tmp_path / name / "args.json").write_text(json.dumps({"env": env_id}))
    panels = curve_panels(find_training_logs([tmp_path]))
    assert sorted(p["title"] for p in panels) == [
        "mase/Craft-v0: Rounds per episode",
        "mase/Craft-v0: Success rate (share of episodes)",
        "mase/SearchRescue-v0: Rounds per episode",
        "mase/SearchRescue-v0: Success rate (share of episodes)",
    ]
    assert all(len(p["series"]) == 1 for p in panels)
    plt = pytest.importorskip("matplotlib.pyplot")
    png = plot_learning_curves(find_training_logs([tmp_path]), tmp_path / "c.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    plt.close("all")


# -- learning curves of training runs -----------------------------------------------------------

REPO = Path(__file__).resolve().parents[1]


def test_the_shipped_training_logs_are_drawn_on_honest_axes_named_for_people(tmp_path):
    """docs/training holds MAPPO's and SB3's search and rescue runs and MAPPO's Avalon sides."""
    pytest.importorskip("matplotlib")
    from mase.report.curves import curve_panels

    logs = find_training_logs([REPO / "docs" / "training"])
    panels = {p["title"]: p for p in curve_panels(logs)}
    rounds = panels["mase/SearchRescue-v0: Rounds per episode"]
    assert [name for name, _ in rounds["series"]] == ["mappo", "sb3_ppo"]  # one quantity, one axis
    assert rounds["range"] == (0.0, 30.0)  # the task's own range: up to max_cycles
    assert panels["mase/SearchRescue-v0: Score per episode (team score)"]["range"] == (0.0, 90.0)
    win = panels["mase/Avalon-v0: Win rate (share of episodes with a positive return)"]
    assert win["range"] == (0.0, 1.0)
    assert [name for name, _ in win["series"]] == [
        "evil (roles=avalonbench-5)", "good (roles=avalonbench-5)",
        "good-7 (fifth_proposal=forced, roles=avalonplay-7)",
    ]  # fmt: skip
    assert win["xlabel"] == "learner turns (each run's side's)"
    assert rounds["xlabel"] == "agent turns (every seat's)"
    assert not any("speed" in title.lower() for title in panels)  # the machine, not the learning
    png = tmp_path / "curves.png"
    assert main(["report", str(REPO / "docs" / "training"), "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_learning_curve_axes_span_the_range_and_reach_zero(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from mase.report import curves

    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "metrics.csv").write_text(
        "global_step,wall_s,charts/episodic_return,charts/success_rate,charts/sps\n"
        "1000,1,-0.5,0.2,900\n2500000,2,-0.25,0.4,950\n"
    )
    drawn = {}
    monkeypatch.setattr(plt, "close", lambda fig: drawn.setdefault("fig", fig))
    curves.plot_learning_curves(find_training_logs([tmp_path]), tmp_path / "c.png")
    axes = {ax.get_title(): ax for ax in drawn["fig"].axes}
    assert set(axes) == {"Return per episode (learner seats' mean)",
                         "Success rate (share of episodes)"}  # fmt: skip
    share = axes["Success rate (share of episodes)"]
    assert share.get_ylim() == pytest.approx((-0.03, 1.03))  # the whole range, not 0.2 to 0.4
    bottom, top = axes["Return per episode (learner seats' mean)"].get_ylim()
    assert bottom < -0.5 and top > 0.0  # a return that is all below zero still shows zero
    assert share.get_xlim()[0] == 0.0
    ticks = [t.get_text() for t in share.get_xticklabels() if t.get_text()]
    assert "0" in ticks and any(t.endswith("M") for t in ticks)  # turns for people, no 1e6
    assert "each point is the mean of the last 200 episodes" in drawn["fig"]._suptitle.get_text()
    plt.close(drawn["fig"])


def test_a_self_play_runs_sides_are_drawn_with_their_task_and_win_rates(tmp_path):
    """Self-play writes RUN/SIDE/metrics.csv and RUN/args.json; its win/MEMBER columns are win
    rates (a member never met: nan, not drawn)."""
    from mase.report.curves import curve_panels

    run = tmp_path / "selfplay"
    for side in ("good", "evil"):
        (run / side).mkdir(parents=True)
        (run / side / "metrics.csv").write_text(
            "update,global_step,win/random,win/scripted,losses/v_loss\n"
            "1,100,0.5,nan,1.0\n2,200,0.75,nan,0.5\n"
        )
    (run / "args.json").write_text(json.dumps({"env": "mase/Avalon-v0", "learn": "good,evil"}))
    (panel,) = curve_panels(find_training_logs([tmp_path]))
    assert panel["title"] == "mase/Avalon-v0: Win rate against random (share of episodes)"
    assert panel["range"] == (0.0, 1.0)
    assert [name for name, _ in panel["series"]] == ["selfplay evil", "selfplay good"]
    assert panel["xlabel"] == "learner turns (each run's side's)"
    assert panel["series"][0][1] == [(100.0, 0.5), (200.0, 0.75)]
