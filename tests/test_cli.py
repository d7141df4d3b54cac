import json
import subprocess
import sys

import pytest

from mase.cli import main


def run_cli(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "mase.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_help_everywhere():
    for args in ([], ["eval"], ["play"], ["report"], ["list"]):
        result = run_cli(*args, "--help")
        assert result.returncode == 0, result.stderr
        assert "usage: mase" in result.stdout


def test_list(capsys):
    assert main(["list"]) == 0
    assert "mase/SearchRescue-v0" in capsys.readouterr().out


def test_eval_two_teams_then_report(tmp_path, capsys):
    out = tmp_path / "runs"
    code = main(
        [
            "eval",
            "mase/SearchRescue-v0",
            "--team",
            "scripted",
            "--team",
            "alpha=scripted,bravo=random,charlie=random",
            "--episodes",
            "3",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert code == 0
    table = capsys.readouterr().out
    assert "scripted" in table and "90.0 ± 0.0" in table and "valid action" in table
    summaries = sorted(out.rglob("summary.json"))
    assert len(summaries) == 2
    assert json.loads(summaries[0].read_text())["episodes"] == 3
    assert main(["report", str(out)]) == 0
    report = capsys.readouterr().out
    assert "alpha=scripted,bravo=random,charlie=random" in report


def test_eval_env_args_and_resume(tmp_path, capsys):
    args = [
        "eval",
        "mase/SearchRescue-v0",
        "--team",
        "random",
        "--episodes",
        "2",
        "--out",
        str(tmp_path),
        "--env-arg",
        "wrong_cutter=explode",
        "--env-arg",
        "max_cycles=5",
        "--quiet",
    ]
    assert main(args) == 0
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["env_kwargs"] == {"wrong_cutter": "explode", "max_cycles": 5}
    assert main(args) == 2  # refuses to overwrite
    assert "--resume" in capsys.readouterr().err
    assert main([*args[:-1], "--episodes", "3", "--resume", "--quiet"]) == 0
    assert len((tmp_path / "episodes.jsonl").read_text().splitlines()) == 3


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["eval", "mase/Nope-v0"], "Registered tasks"),
        (["eval", "mase/SearchRescue-v0", "--team", "genius"], "choose from"),
        (["eval", "mase/SearchRescue-v0", "--env-arg", "colour=red"], "valid arguments"),
        (["report", "/nonexistent/dir"], "does not exist"),
    ],
)
def test_errors_are_one_clear_line(args, words):
    result = run_cli(*args)
    assert result.returncode == 2
    assert words in result.stderr
    assert "Traceback" not in result.stderr


def test_play_a_seat_from_the_terminal():
    # the person plays alpha; bad input is explained and asked again, then input ends
    moves = "dance\ngo to room 7\ninspect bomb\n"
    result = run_cli("play", "mase/SearchRescue-v0", "--seat", "alpha", "--seed", "4", stdin=moves)
    assert "You are Alpha, one of 3 agents" in result.stdout
    assert "Not a legal action" in result.stdout
    assert "room 7 does not exist" in result.stdout
    assert "input ended" in result.stderr
