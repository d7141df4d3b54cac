"""``mase crossplay``: every pairing of policies, cell by cell, resumable, printed and plotted."""

import json
import re
import sys

import pytest

import mase
from mase.cli import main
from mase.crossplay import cell_team, crossplay, plot_crossplay


def test_a_cooperative_cell_seats_the_row_in_the_first_seat_and_the_column_elsewhere():
    env = mase.make("mase/SearchRescue-v0")
    assert cell_team(env, "cbs", "random")[0] == "random,alpha=cbs"


def test_a_cell_of_a_task_with_sides_gives_each_side_its_policy():
    env = mase.make("mase/Avalon-v0")
    team, rows, columns = cell_team(env, "deduction", "scripted")
    assert (team, rows, columns) == ("good=deduction,evil=scripted", "good", "evil")


def test_each_cell_is_the_evaluation_of_its_team_on_the_same_seeds(tmp_path):
    result = crossplay("mase/SearchRescue-v0", ["scripted", "random"], episodes=3, seed=5,
                       out=tmp_path)  # fmt: skip
    assert len(result.cells) == 4 and result.metric == "score"
    for cell in result.cells:
        alone = mase.evaluate("mase/SearchRescue-v0", cell.team, episodes=3, seed=5)
        assert cell.mean == pytest.approx(alone["metrics"]["score"]["mean"])
        assert cell.n == 3 and not cell.error
        config = json.loads((tmp_path / f"{cell.row}__{cell.column}" / "config.json").read_text())
        assert (config["team"], config["seed"]) == (f"{cell.row} with {cell.column}", 5)
    saved = json.loads((tmp_path / "crossplay.json").read_text())
    assert saved["policies"] == ["scripted", "random"] and len(saved["cells"]) == 4


def test_an_interrupted_matrix_resumes_without_playing_finished_episodes_again(tmp_path):
    crossplay("mase/SearchRescue-v0", ["scripted", "random"], episodes=2, out=tmp_path)
    cell = tmp_path / "random__scripted" / "episodes.jsonl"
    before = cell.read_text().splitlines()
    with pytest.raises(FileExistsError):  # never overwritten by accident
        crossplay("mase/SearchRescue-v0", ["scripted", "random"], episodes=3, out=tmp_path)
    result = crossplay("mase/SearchRescue-v0", ["scripted", "random"], episodes=3, out=tmp_path,
                       resume=True)  # fmt: skip
    after = cell.read_text().splitlines()
    assert after[:2] == before and len(after) == 3
    assert all(c.n == 3 for c in result.cells)


def test_a_pairing_that_cannot_be_seated_is_a_cell_with_its_reason(tmp_path):
    result = crossplay("mase/SearchRescue-v0", ["scripted", "no-such-policy"], episodes=1)
    assert result.cell("scripted", "scripted").mean == 90
    bad = result.cell("scripted", "no-such-policy")
    assert bad.mean is None and "unknown policy 'no-such-policy'" in bad.error
    table = result.table()
    assert "n/a" in table and "unknown policy" in table


def test_the_matrix_is_plotted_as_a_png(tmp_path):
    result = crossplay("mase/Avalon-v0", ["scripted", "random"], episodes=2)
    png = plot_crossplay(result, tmp_path / "m.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_cli_prints_the_matrix_and_writes_the_plot(tmp_path, capsys):
    code = main(["crossplay", "mase/Avalon-v0", "--policies", "scripted,deduction",
                 "--episodes", "2", "--out", str(tmp_path), "--plot", str(tmp_path / "m.png"),
                 "--quiet"])  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0
    assert "good \\ evil" in printed and "deduction" in printed and "good_won" in printed
    assert (tmp_path / "m.png").is_file() and (tmp_path / "crossplay.json").is_file()


def test_llm_seats_in_a_matrix_play_on_the_offline_model(tmp_path, capsys):
    code = main(["crossplay", "mase/SearchRescue-v0", "--policies", "scripted,llm",
                 "--episodes", "1", "--offline", "--quiet"])  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0 and "offline model" in printed
    assert "n/a" not in printed


def test_the_columns_may_be_other_policies_than_the_rows(tmp_path):
    """A side's own checkpoints: good policies in the rows, evil ones in the columns."""
    result = crossplay("mase/Avalon-v0", ["deduction", "scripted"], ["scripted", "random"],
                       episodes=2)  # fmt: skip
    assert [(c.row, c.column) for c in result.cells] == [
        ("deduction", "scripted"), ("deduction", "random"),
        ("scripted", "scripted"), ("scripted", "random"),
    ]  # fmt: skip
    assert result.cell("deduction", "random").team == "good=deduction,evil=random"
    header = result.table().splitlines()[0].split()
    assert header[-2:] == ["scripted", "random"]
    png = plot_crossplay(result, tmp_path / "m.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_cli_takes_columns(capsys):
    code = main(["crossplay", "mase/Avalon-v0", "--policies", "deduction",
                 "--columns", "scripted,random", "--episodes", "1", "--quiet"])  # fmt: skip
    assert code == 0
    assert "good \\ evil  scripted" in capsys.readouterr().out


def test_a_cells_interval_stays_within_the_points_there_are(capsys):
    """Issue 31: scripted with random on search and rescue once printed ``80 [37, 123]``."""
    code = main(["crossplay", "mase/SearchRescue-v0", "--policies", "scripted,random",
                 "--episodes", "3", "--quiet"])  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0 and "Score (points)" in printed
    cells = re.findall(r"(\d+(?:\.\d+)?) \[(-?\d+(?:\.\d+)?), (-?\d+(?:\.\d+)?)\]", printed)
    assert len(cells) == 4
    for mean, low, high in cells:
        assert 0 <= float(low) <= float(mean) <= float(high) <= 90
    assert "percentile bootstrap of the mean" in printed
    assert "n=3: too few episodes for the interval to mean much" in printed


def test_a_proportions_cells_get_wilson_intervals():
    result = crossplay("mase/Avalon-v0", ["scripted", "deduction"], episodes=3)
    assert result.metric == "good_won" and result.label == "Good side's wins (share of games)"
    assert result.range == (0.0, 1.0)
    for cell in result.cells:
        assert cell.method == "wilson" and 0.0 <= cell.ci95[0] <= cell.mean <= cell.ci95[1] <= 1.0
    assert "Wilson score interval for proportions" in result.table()


def test_crossplay_plot_without_matplotlib_plays_nothing_and_says_so(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code = main(["crossplay", "mase/SearchRescue-v0", "--policies", "scripted", "--episodes",
                 "1", "--out", str(tmp_path / "m"), "--plot", str(tmp_path / "m.png")])  # fmt: skip
    assert code == 2 and not (tmp_path / "m").exists()
    assert capsys.readouterr().err.splitlines() == [
        "mase crossplay: error: --plot: plots need matplotlib: pip install 'mase-suite[plot]'"
    ]
