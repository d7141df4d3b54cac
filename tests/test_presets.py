import pytest

from mase.cli import main
from mase.presets import PRESETS, comparison_table, load_preset


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_presets_load(name):
    preset = load_preset(name)
    assert preset.teams and preset.columns
    for team in preset.teams:
        assert team.paper_row is None or team.paper_row in preset.paper


def test_paper_table1_preset_prints_both_columns(tmp_path, capsys):
    pytest.importorskip("torch")
    assert (
        main(
            [
                "eval",
                "--preset",
                "paper-table1",
                "--episodes",
                "2",
                "--quiet",
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    for words in (
        "paper score",
        "paper rounds",
        "38.0 ± 14.7",
        "6.0 ± 0.0",
        "11.0 ± 0.0",
        "cbs",
        "mappo",
        "sb3-ppo",
        "scripted",
    ):
        assert words in out, words
    assert len(list(tmp_path.rglob("summary.json"))) == len(load_preset("paper-table1").teams)


def test_comparison_table_marks_missing_runs():
    preset = load_preset("paper-table1")
    table = comparison_table(preset, {})
    assert table.splitlines()[2].startswith("random")
    assert "n/a" in table  # the paper has no valid-action rate for non-LLM teams
