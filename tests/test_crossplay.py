"""``mase crossplay``: every pairing of policies, cell by cell, resumable, printed and plotted."""

import json

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
