import dataclasses
import json
import shutil
import signal
import subprocess
import sys
import time

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


def test_no_help_text_prints_an_escaped_percent(capsys):
    """argparse formats ``%`` in option help only: a description's ``%%`` prints as it is."""
    import argparse

    from mase.cli import build_parser

    parser = build_parser()
    commands = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    pages = [parser.format_help()]
    for action in commands:
        for sub in action.choices.values():
            pages.append(sub.format_help())
            nested = [a for a in sub._actions if isinstance(a, argparse._SubParsersAction)]
            pages += [p.format_help() for a in nested for p in a.choices.values()]
    assert len(pages) > 8  # mase, its commands and train's trainers
    assert not [p.splitlines()[0] for p in pages if "%%" in p]


def test_eval_help_lists_the_model_options(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["eval", "--help"])
    assert exit_info.value.code == 0
    printed = capsys.readouterr().out
    for flag in ("--concurrency", "--offline", "--no-cache", "--probes", "--error-rate-429"):
        assert flag in printed, flag


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


def test_play_beside_llm_teammates_on_the_offline_model():
    moves = "inspect bomb\ngo to room 0\n"
    args = ["play", "mase/SearchRescue-v0", "--team", "llm", "--offline", "--no-cache"]
    result = run_cli(*args, "--seed", "0", stdin=moves)
    assert "model seats: the task's offline model" in result.stdout
    # the model teammates acted and talked between the person's turns
    assert '- Bravo: "Bravo is in room' in result.stdout
    assert "input ended" in result.stderr


def test_probe_rate_asks_fewer_questions(tmp_path):
    counts = {}
    for rate in ("1", "0.25"):
        out = tmp_path / rate
        args = ["eval", "mase/SearchRescue-v0", "--team", "llm", "--offline", "--no-cache"]
        args += ["--episodes", "1", "--probe-rate", rate, "--out", str(out), "--quiet"]
        assert main(args) == 0
        summary = json.loads((out / "summary.json").read_text())
        counts[rate] = summary["tom"]["introspection"]["asked"]
    assert 0 < counts["0.25"] < counts["1"] / 2
    assert main(["eval", "mase/SearchRescue-v0", "--team", "random", "--probe-rate", "2"]) == 2


# -- model seats ------------------------------------------------------------------------------

ENV = "mase/SearchRescue-v0"


def test_eval_a_mixed_llm_team_offline_concurrently(tmp_path, capsys):
    out = tmp_path / "run"
    args = ["eval", ENV, "--team", "alpha=llm,bravo=scripted,charlie=random", "--offline"]
    args += ["--episodes", "3", "--concurrency", "2", "--probes", "--quiet"]
    args += ["--cache", str(tmp_path / "cache.sqlite"), "--out", str(out)]
    assert main(args) == 0
    printed = capsys.readouterr().out
    for words in ("LLM calls", "tokens", "cost $", "model usage", "introspection", "offline"):
        assert words in printed, words
    records = [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]
    assert [r["episode"] for r in records] == [0, 1, 2]
    assert all(r["metrics"]["llm_calls"] >= r["metrics"]["rounds"] for r in records)
    assert all(set(r["seats"]) == {"alpha"} and "calls" not in r["seats"]["alpha"] for r in records)
    assert all(r["probes"] for r in records)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["probes"] is True and summary["usage"]["llm_calls"] > 0
    assert set(summary["tom"]) <= {"introspection", "first_order", "second_order"}


def test_record_keeps_the_prompts(tmp_path, capsys):
    out = tmp_path / "run"
    args = ["eval", ENV, "--team", "alpha=llm,bravo=scripted,charlie=scripted", "--offline"]
    args += ["--episodes", "1", "--record", "--no-cache", "--quiet", "--out", str(out)]
    assert main(args) == 0
    (record,) = [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]
    calls = record["seats"]["alpha"]["calls"]
    assert calls and calls[0]["messages"] and calls[0]["reply"]
    assert record["events"]


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--team", "llm", "--latency", "0.1"], "add --offline"),
        (["--team", "llm", "--offline", "--base-url", "http://127.0.0.1:1/v1"], "--base-url"),
        (["--team", "scripted", "--model", "gpt-4o"], "no team here has one"),
        (["--team", "scripted", "--offline"], "no team here has one"),
        (["--team", "llm", "--offline", "--prices", "/nonexistent/prices.json"], "prices.json"),
        (["--team", "llm", "--model", "gpt-4o"], "OPENAI_API_KEY"),
    ],
)
def test_bad_model_options_are_one_clear_line(extra, words, monkeypatch, capsys):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "MASE_MODEL"):
        monkeypatch.delenv(name, raising=False)
    assert main(["eval", ENV, "--episodes", "1", "--quiet", "--no-messages", *extra]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "extra",
    [["--concurrency", "0"], ["--no-cache", "--cache", "x.sqlite"], ["--concurrency", "two"]],
)
def test_bad_flags_are_usage_errors(extra, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["eval", ENV, "--team", "llm", *extra])
    assert exit_info.value.code == 2
    assert "usage: mase eval" in capsys.readouterr().err


def test_presets_use_the_offline_model_unless_told_otherwise(monkeypatch):
    from mase.cli import build_parser, model_endpoint

    monkeypatch.setenv("OPENAI_BASE_URL", "http://203.0.113.7/v1")  # must not be called
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-sent")
    args = build_parser().parse_args(["eval", "--preset", "paper-table1", "--no-cache"])
    with model_endpoint(args, ENV, ["llm"], offline_default=True) as (config, where):
        assert config.base_url.startswith("http://127.0.0.1:") and "offline" in where
        assert config.resolved_api_key() == "offline" and config.cache is False
    args = build_parser().parse_args(["eval", "--preset", "paper-table1", "--model", "gpt-4o"])
    with model_endpoint(args, ENV, ["llm"], offline_default=True) as (config, where):
        assert config.base_url == "http://203.0.113.7/v1" and config.model == "gpt-4o"
    with pytest.raises(ValueError, match="--model"), model_endpoint(args, ENV, []):
        pass


def test_ctrl_c_keeps_finished_episodes_and_resume_finishes_the_rest(tmp_path):
    out = tmp_path / "run"
    args = ["eval", ENV, "--team", "llm", "--offline", "--latency", "0.02", "--no-cache"]
    args += ["--episodes", "8", "--concurrency", "2", "--out", str(out), "--quiet"]
    process = subprocess.Popen(
        [sys.executable, "-m", "mase.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a background child of a non-interactive shell ignores SIGINT; a person's Ctrl-C does not
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    records = out / "episodes.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (records.exists() and records.read_text()):
        time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert "interrupted" in err and "--resume" in err
    saved = [json.loads(line) for line in records.read_text().splitlines()]
    assert 0 < len(saved) < 8 and not any(r.get("failed") for r in saved)
    assert main([*args, "--resume"]) == 0
    episodes = [json.loads(line)["episode"] for line in records.read_text().splitlines()]
    assert sorted(episodes) == list(range(8))
    # the episodes saved before the interruption were kept as they were, not played again
    kept = {r["episode"]: r for r in map(json.loads, records.read_text().splitlines())}
    assert all(kept[r["episode"]] == r for r in saved)


# -- what a new user hit (issue: hardening) ----------------------------------------------------

ENV_ID = "mase/SearchRescue-v0"
FAILING = ["--team", "llm", "--offline", "--error-rate-500", "1", "--no-cache", "--quiet"]


def test_failed_episodes_are_said_with_their_reason_and_the_exit_is_not_zero(tmp_path, capsys):
    code = main(["eval", ENV_ID, *FAILING, "--episodes", "2", "--out", str(tmp_path / "r")])
    printed = capsys.readouterr()
    assert code == 1
    assert "llm: 2 episode(s) failed: LLMUnavailable: 5 model calls in a row failed" in printed.err


def test_an_evaluation_whose_first_episodes_fail_alike_stops(tmp_path, capsys):
    out = tmp_path / "r"
    code = main(["eval", ENV_ID, *FAILING, "--episodes", "20", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "the first 3 episodes all failed, so the evaluation stopped" in err
    assert "add resume" in err
    lines = (out / "episodes.jsonl").read_text().splitlines()
    assert len(lines) == 3 and all(json.loads(line)["failed"] for line in lines)


def test_a_team_that_cannot_play_is_said_before_any_episode(tmp_path, capsys, monkeypatch):
    code = main(["eval", ENV_ID, "--team", "random", "--team", "mappo", "--env-arg",
                 "n_agents=4", "--episodes", "2", "--out", str(tmp_path / "r")])  # fmt: skip
    assert code == 2
    assert (
        "team 'mappo', seat delta: this checkpoint was trained for seats" in capsys.readouterr().err
    )
    assert not (tmp_path / "r").exists()  # the random team did not play first

    import mase.envs.search_rescue.policies as policies

    def torch_missing(arg):
        raise ModuleNotFoundError("No module named 'torch'", name="torch")

    monkeypatch.setattr(policies, "mappo", torch_missing)
    assert (
        main(["eval", "--preset", "paper-table1", "--episodes", "1", "--out", str(tmp_path / "p")])
        == 2
    )
    err = capsys.readouterr().err
    assert "policy 'mappo' needs torch" in err and "mase-suite[rl]" in err
    assert not (tmp_path / "p").exists()


@pytest.mark.parametrize(
    "args, said",
    [
        (["--team", "random", "--episodes", "0"], "must be at least 1"),
        (["--team", "random", "--episodes", "-1"], "must be at least 1"),
        (["--team", "alpha=scripted,alpha=random"], "gives seat alpha two policies"),
        (["--team", "random:foo"], "random takes no ':' argument"),
        (["--team", "random", "--env-arg", "max_cycles=abc"], "max_cycles must be a whole number"),
        (["--team", "sb3-ppo:/missing.zip"], "no checkpoint file at /missing.zip"),
        (["--team", "mappo:README.md"], "README.md is not a MAPPO checkpoint"),
        (["--team", "random", "--timeout", "0"], "must be positive"),
    ],
)
def test_bad_eval_arguments_are_one_clear_line(args, said):
    result = run_cli("eval", ENV_ID, *args, "--episodes" if "--episodes" not in args else "--quiet",
                     *(["1"] if "--episodes" not in args else []))  # fmt: skip
    assert result.returncode == 2, result.stdout
    assert said in result.stderr and "Traceback" not in result.stderr


def test_team_and_preset_together_are_refused(capsys):
    assert main(["eval", "--preset", "paper-table1", "--team", "random"]) == 2
    assert "does not take --team" in capsys.readouterr().err


def test_train_refuses_an_output_that_holds_a_run_and_says_how_it_rounds(tmp_path):
    (tmp_path / "old.txt").write_text("a run")
    result = run_cli("train", "mappo", "--out", str(tmp_path), "--total-timesteps", "100")
    assert result.returncode == 2 and "already holds files" in result.stderr
    result = run_cli("train", "mappo", "--out", str(tmp_path / "new"), "--total-timesteps", "-5")
    assert result.returncode == 2 and "--total-timesteps must be above 0, got -5" in result.stderr
    result = run_cli(
        "train", "mappo", "--out", str(tmp_path / "new"), "--total-timesteps", "100",
        "--num-envs", "2", "--num-rounds", "4", "--update-epochs", "1",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "training 96 agent turns: --total-timesteps 100 rounded to whole batches of 24" in (
        result.stdout
    )


def test_timeout_gives_up_a_call_that_hangs(tmp_path, capsys):
    """An endpoint that never answers costs --timeout a try, not the client's minute."""
    start = time.perf_counter()
    code = main(["eval", ENV_ID, "--team", "alpha=llm,bravo=random,charlie=random", "--offline",
                 "--timeout-rate", "1", "--timeout", "0.2", "--no-cache", "--quiet",
                 "--episodes", "1", "--out", str(tmp_path / "r")])  # fmt: skip
    assert code == 1 and "APITimeoutError" in capsys.readouterr().err
    assert time.perf_counter() - start < 30  # 5 calls x 3 tries x 0.2 s, not 5 x 3 x 60 s


def test_a_preset_with_conditions_runs_each_row_under_each_and_reports_them_apart(tmp_path, capsys):
    """debate-table1: the methods are settings of the rows, the data sets conditions."""
    mini = tmp_path / "gsm.jsonl"
    mini.write_text(
        '{"question": "What is 1,000 + 1?", "answer": "1,000 + 1 = 1,001\\n#### 1,001"}\n'
    )
    runs = str(tmp_path / "runs")
    code = main(["eval", "--preset", "debate-table1", "--episodes", "2", "--out", runs,
                 "--env-arg", f"gsm8k.path={str(mini)!r}"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    header = next(line for line in out.splitlines() if line.startswith("team"))
    for column in ("arithmetic (mean ± se)", "GSM8K", "MMLU", "chess validity", "paper GSM8K"):
        assert column in header
    debate = next(line for line in out.splitlines() if line.startswith("debate (offline"))
    sets = 5 if shutil.which("stockfish") or shutil.which("/usr/games/stockfish") else 4
    assert "81.8% ± 2.3%" in debate and debate.split()[-2] == str(2 * sets)  # 2 a data set
    for condition, asked in (("gsm8k", "What is 1,000 + 1?"), ("arithmetic", "What is the result")):
        runs = list((tmp_path / "runs" / condition).glob("*/episodes.jsonl"))
        assert len(runs) == 5  # one folder a row under each condition
        for run in runs:
            records = [json.loads(line) for line in run.read_text().splitlines()]
            assert len(records) == 2 and all(asked in r["turns"][0]["observation"] for r in records)
    assert main(["eval", "--preset", "debate-table1", "--env-arg", "poems.path=x"]) == 2
    assert "names conditions ['poems']" in capsys.readouterr().err


def test_a_condition_this_machine_cannot_run_is_said_and_the_rest_run(monkeypatch, capsys):
    from mase.envs.debate import chess_tasks

    monkeypatch.setattr(chess_tasks.shutil, "which", lambda name: None)  # no Stockfish here
    assert main(["eval", "--preset", "debate-table1", "--episodes", "1"]) == 0
    out = capsys.readouterr().out
    assert "not run: chess_moves (chess move quality needs the Stockfish engine" in out
    debate = next(line for line in out.splitlines() if line.startswith("debate (offline"))
    assert debate.split()[-2] == "4"  # four data sets ran, one episode each


@dataclasses.dataclass
class Args:
    """A stand-in trainer's settings, to see what ``mase train`` gives a trainer."""

    env: str = "mase/SearchRescue-v0"
    """task id"""
    env_kwargs: dict = dataclasses.field(default_factory=lambda: {"shaping": True})
    """task arguments"""
    out: str = ""
    """where to write"""


TRAINED = []


def train(settings):
    TRAINED.append(settings)
    return "nowhere"


@pytest.mark.parametrize(
    ("options", "env_kwargs", "deprecated"),
    [
        ([], {"shaping": True}, False),
        (["--env-arg", "wrong_cutter=explode", "--env-arg", "max_cycles=9"],
         {"shaping": True, "wrong_cutter": "explode", "max_cycles": 9}, False),
        (["--env-arg", "shaping=false"], {"shaping": False}, False),
        (["--env", "mase/Craft-v0", "--env-arg", "layout=random"], {"layout": "random"}, False),
        (["--env-kwargs", '{"wrong_cutter": "reject"}', "--env-arg", 'task_kwargs={"a": [1]}'],
         {"wrong_cutter": "reject", "task_kwargs": {"a": [1]}}, True),
    ],
)  # fmt: skip
def test_train_takes_task_arguments_as_eval_does(monkeypatch, capsys, options, env_kwargs,
                                                 deprecated):  # fmt: skip
    import mase

    monkeypatch.setitem(mase.baselines.TRAINERS, "stand-in", (__name__, "a stand-in"))
    TRAINED.clear()
    assert main(["train", "stand-in", *options]) == 0
    assert TRAINED[0].env_kwargs == env_kwargs
    assert ("--env-kwargs is deprecated" in capsys.readouterr().err) is deprecated


def test_a_real_trainer_gets_env_args_over_its_own(tmp_path):
    torch = pytest.importorskip("torch")
    out = tmp_path / "run"
    assert main(["train", "mappo", "--out", str(out), "--total-timesteps", "48", "--num-envs",
                 "2", "--num-rounds", "4", "--update-epochs", "1",
                 "--env-arg", "wrong_cutter=explode"]) == 0  # fmt: skip
    checkpoint = torch.load(out / "mappo.pt", weights_only=False)
    assert checkpoint["env_kwargs"] == {"shaping": True, "wrong_cutter": "explode"}


def test_eval_env_arg_values_are_json_else_text(tmp_path):
    out = tmp_path / "run"
    args = ["--env-arg", "max_cycles=6", "--env-arg", "wrong_cutter=explode"]
    argv = ["eval", ENV_SR, "--team", "random", "--episodes", "1", "--quiet", "--out", str(out)]
    assert main([*argv, *args, "--env-arg", "shaping=True"]) == 0
    config = json.loads((out / "config.json").read_text())
    assert config["env_kwargs"] == {"max_cycles": 6, "wrong_cutter": "explode", "shaping": True}


ENV_SR = "mase/SearchRescue-v0"


@pytest.mark.parametrize("trainer", ["mappo", "sb3-ppo"])
def test_train_tensorboard_without_the_package_is_one_line_naming_the_extra(trainer, tmp_path):
    """Asked for and missing, TensorBoard is refused before the run starts (no files)."""
    pytest.importorskip("torch")
    hide = "import sys; sys.modules['tensorboard'] = None; from mase.cli import main; "
    argv = ["train", trainer, "--tensorboard", "--out", str(tmp_path / "run")]
    done = subprocess.run(
        [sys.executable, "-c", hide + f"sys.exit(main({argv!r}))"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        "mase train: error: --tensorboard needs the tensorboard package: "
        "pip install 'mase-suite[tensorboard]'"
    ]
    assert not (tmp_path / "run").exists()
