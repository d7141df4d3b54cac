import pytest

from mase.cli import main
from mase.presets import load_preset, preset_names
from mase.report import comparison_table, tom_table, usage_line


@pytest.mark.parametrize("name", preset_names())
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
                "--no-cache",
                "--concurrency",
                "2",
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
        "llm (offline model)",
        "llm + belief (offline model)",
        "GPT-4 + belief",
        "28.3 ± 2.6",  # the paper's GPT-4 rounds
        "43.3 ± 4.7",  # the paper's ChatGPT score ("averaging only 43.3 points")
        "paper first order",
        "97.2%",  # the paper's GPT-4 + belief introspection
        "model usage",
        "not a hosted LLM",
    ):
        assert words in out, words
    tom = out[out.index("Theory-of-Mind") :]
    assert "llm + belief (offline model)" in tom and "random" not in tom
    # every row ran but the ChatGPT row, which runs only when --row-model gives it a model
    ran = [t for t in load_preset("paper-table1").teams if not t.needs_model]
    assert len(list(tmp_path.rglob("summary.json"))) == len(ran) == 7
    assert "not run: llm, ChatGPT row (give it a model: --row-model 'ChatGPT=MODEL')" in out


def test_row_model_gives_a_paper_row_its_model(tmp_path, capsys):
    from mase.presets import parse_row_models

    preset = load_preset("paper-table1")
    assert parse_row_models("ChatGPT=gpt-3.5-turbo, GPT-4 = gpt-4o", preset) == {
        "llm, ChatGPT row": "gpt-3.5-turbo",
        "llm": "gpt-4o",
    }
    with pytest.raises(ValueError, match="no row 'GPT-5'; rows: "):
        parse_row_models("GPT-5=x", preset)
    with pytest.raises(ValueError, match="ROW=MODEL pairs"):
        parse_row_models("ChatGPT", preset)
    assert main(["eval", "mase/SearchRescue-v0", "--row-model", "GPT-4=x"]) == 2
    assert "add --preset" in capsys.readouterr().err


def test_comparison_table_marks_missing_runs():
    preset = load_preset("paper-table1")
    table = comparison_table(preset, {})
    assert table.splitlines()[2].startswith("random")
    assert "n/a" in table  # the paper has no valid-action rate for non-LLM teams


def test_tom_table_pools_per_level_beside_the_paper():
    summaries = [
        {"team": "a", "tom": {"introspection": {"accuracy": 0.5, "correct": 1, "n": 2}}},
        {"team": "b", "metrics": {}},  # asked nothing: no row
    ]
    table = tom_table(summaries, {"a": {"tom_introspection": 0.8}})
    lines = table.splitlines()
    assert lines[0].split("  ")[:2] == ["team", "introspection"]
    assert len(lines) == 3 and lines[2].startswith("a ")
    assert "50.0% (n=2)" in table and "80.0%" in table
    assert "paper" not in tom_table(summaries)


def test_usage_line_totals():
    summary = {
        "team": "llm",
        "usage": {"llm_calls": 1200, "llm_tokens": 5000, "prompt_tokens": 4000,
                  "completion_tokens": 1000, "cost_usd": 0.0125, "latency_s": 3.25},
    }  # fmt: skip
    line = usage_line(summary)
    assert line.startswith("llm model usage: 1,200 calls, 5,000 tokens (4,000 prompt")
    assert "$0.0125" in line and "3.2 s" in line
