"""Run configuration files (``mase.config``) and ``mase eval --config``."""

import inspect
import json
from pathlib import Path

import pytest

from mase.cli import main
from mase.config import RunConfig
from mase.envs.agentverse.config import AgentVerseConfig
from mase.envs.agentverse.env import AgentVerseEnv

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def write(tmp_path, text):
    path = tmp_path / "run.toml"
    path.write_text(text)
    return path


def test_a_file_gives_the_task_its_arguments_teams_and_episodes(tmp_path):
    config = RunConfig.from_file(write(tmp_path, """
env = "mase/Craft-v0"
team = "random"
episodes = 3
seed = 7
[env_args]
layout = "random"
[env_args.extra]
nested = 1
"""))  # fmt: skip
    assert (config.env, config.team, config.episodes, config.seed) == (
        "mase/Craft-v0",
        ["random"],
        3,
        7,
    )
    assert config.env_args == {"layout": "random", "extra": {"nested": 1}}


@pytest.mark.parametrize(
    "text, says",
    [
        ("episodes = 'three'", "episodes must be a int"),
        ("episodes = true", "episodes must be a int"),
        ("teams = ['random']", "unknown key(s) ['teams']"),
        ("team = [1, 2]", "team must be a team spec"),
        ("env_args = 3", "env_args must be a dict"),
        ("env = [", "not a TOML file"),
    ],
)
def test_a_bad_file_is_a_clear_error_naming_the_file(tmp_path, text, says):
    path = write(tmp_path, text)
    with pytest.raises(ValueError, match=r"run\.toml") as error:
        RunConfig.from_file(path)
    assert says in str(error.value)


def test_the_protocol_dataclass_has_the_fields_of_the_protocols_arguments():
    taken = set(inspect.signature(AgentVerseEnv).parameters) - {"obs_mode", "render_mode",
                                                                 "max_cycles"}  # fmt: skip
    assert {f for f in AgentVerseConfig.__dataclass_fields__} == taken
    defaults = {k: p.default for k, p in inspect.signature(AgentVerseEnv).parameters.items()}
    for name, value in AgentVerseConfig().env_kwargs().items():
        assert value == defaults[name] or (name == "task_kwargs" and not value), name


def test_the_protocol_dataclass_reads_the_example_configuration():
    config = AgentVerseConfig.from_file(EXAMPLES / "agentverse_craft.toml")
    assert config.task == "mase/Craft-v0" and config.task_kwargs == {"layout": "random"}
    env = config.make()
    assert env.unwrapped.inner.layout_kind == "random"


def test_the_protocol_dataclass_refuses_an_argument_it_does_not_have(tmp_path):
    with pytest.raises(ValueError, match="unknown protocol argument"):
        AgentVerseConfig.from_file(write(tmp_path, "[env_args]\nexpert = 3\n"))


def test_mase_eval_runs_a_configuration_and_the_command_line_wins(tmp_path, capsys):
    out = tmp_path / "out"
    path = EXAMPLES / "agentverse_craft.toml"
    assert main(["eval", "--config", str(path), "--episodes", "2", "--quiet",
                 "--out", str(out)]) == 0  # fmt: skip
    printed = capsys.readouterr().out
    assert "goal reached" in printed and "destructive acts" in printed  # the protocol's columns
    summary = json.loads(next(out.rglob("summary.json")).read_text())
    assert summary["env_kwargs"]["task"] == "mase/Craft-v0" and summary["metrics"]["solved"]
    assert summary["metrics"]["solved"]["n"] == 2  # --episodes over the file's 5


def test_mase_eval_refuses_a_configuration_of_another_task(tmp_path, capsys):
    path = write(tmp_path, 'env = "mase/Craft-v0"\n')
    assert main(["eval", "mase/Debate-v0", "--config", str(path)]) == 2
    assert "configures mase/Craft-v0, not mase/Debate-v0" in capsys.readouterr().err


def _eval_parser():
    import argparse

    from mase.cli import build_parser

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return commands.choices["eval"]


#: The options whose key is not their dest.
OPTION_OF_KEY = {"env_arg": "env_args"}


def _toml_value(action):
    """A value of the right kind for an option, as a TOML line's right-hand side."""
    if action.dest == "env":
        return '"mase/SearchRescue-v0"'
    if action.nargs == 0:  # a flag
        return "true"
    if action.choices:
        return json.dumps(sorted(action.choices)[0])
    kind = getattr(action.type, "__name__", "")
    if "int" in kind:
        return "2"
    if "float" in kind:
        return "0.5"
    return '"text"'


def test_every_option_of_mase_eval_has_a_key_in_a_run_configuration(tmp_path):
    """A new option of `mase eval` without a key in mase.config fails here."""
    actions = [a for a in _eval_parser()._actions if a.dest not in ("help", "config")]
    keys = {OPTION_OF_KEY.get(a.dest, a.dest): a for a in actions}
    assert set(keys) <= set(RunConfig.keys()), sorted(set(keys) - set(RunConfig.keys()))
    lines = [f"{key} = {_toml_value(a)}" for key, a in keys.items()
             if key not in ("env_args", "row_model")]  # fmt: skip
    lines += ["[env_args]", "max_cycles = 5", "[row_model]", 'ChatGPT = "gpt-4o"']
    config = RunConfig.from_file(write(tmp_path, "\n".join(lines)))
    assert set(config.command_line()) == {a.dest for a in actions}


def test_the_command_line_wins_option_by_option(tmp_path):
    out = tmp_path / "out"
    path = write(tmp_path, f"""
env = "mase/SearchRescue-v0"
team = "random"
episodes = 2
seed = 5
record = true
out = "{out}"
quiet = true
backend = "nope"
[env_args]
max_cycles = 5
wrong_cutter = "explode"
""")  # fmt: skip
    # the file's backend is refused as the option refuses it...
    assert main(["eval", "--config", str(path)]) == 2
    # ...and the command line's wins even where it gives the option's default
    assert main(["eval", "--config", str(path), "--backend", "local", "--seed", "0",
                 "--env-arg", "max_cycles=7"]) == 0  # fmt: skip
    config = json.loads((out / "config.json").read_text())
    assert (config["seed"], config["episodes"], config["record"]) == (0, 2, True)
    assert config["env_kwargs"] == {"max_cycles": 7, "wrong_cutter": "explode"}
    assert config["team"] == "random"


def test_a_file_value_is_checked_as_its_option_checks_it(tmp_path, capsys):
    path = write(tmp_path, 'env = "mase/SearchRescue-v0"\nepisodes = 0\n')
    assert main(["eval", "--config", str(path)]) == 2
    assert "episodes: must be at least 1" in capsys.readouterr().err


@pytest.mark.parametrize(
    "text, says",
    [
        ('bse_url = "http://127.0.0.1:1/v1"', "'bse_url': did you mean 'base_url'?"),
        ('base-url = "http://127.0.0.1:1/v1"', "'base-url': did you mean 'base_url'?"),
        ('api_key = "sk-x"', "the key comes only from OPENAI_API_KEY"),
        ("probe_rate = 'all'", "probe_rate must be a int or float"),
        ("modules = 3", "modules must be a module or .py file"),
        ("row_model = 3", "row_model must be a table"),
    ],
)
def test_an_unknown_or_wrong_key_names_itself_and_the_known_ones(tmp_path, text, says):
    with pytest.raises(ValueError) as error:
        RunConfig.from_file(write(tmp_path, text))
    assert says in str(error.value) and "run.toml" in str(error.value)
    if "unknown key" in str(error.value):
        assert "base_url, belief_state" in str(error.value)  # the known keys, all of them


@pytest.fixture
def registry_kept():
    """Tasks the example files register are gone again after the test."""
    import sys

    import gymnasium

    before, modules = set(gymnasium.registry), set(sys.modules)
    yield
    for env_id in set(gymnasium.registry) - before:
        del gymnasium.registry[env_id]
    for name in set(sys.modules) - modules:
        if name.startswith("mase_config_module_"):
            del sys.modules[name]


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.toml")), ids=lambda p: p.name)
def test_every_example_configuration_runs_under_mase_eval(path, tmp_path, registry_kept, capsys):
    out = tmp_path / "out"
    code = main(["eval", "--config", str(path), "--episodes", "1", "--quiet", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["episodes"] == 1 and summary["failed"] == 0


def test_modules_are_found_beside_the_file_whatever_the_working_directory(tmp_path):
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "mase.cli", "eval", "--config",
         str(EXAMPLES / "agentverse_tally.toml"), "--episodes", "1", "--quiet"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "mase/AgentVerse-v0" in done.stdout


def test_a_module_that_is_not_there_is_one_clear_line(tmp_path, capsys):
    path = write(tmp_path, 'env = "examples/Nope-v0"\nmodules = ["nope.py"]\n')
    assert main(["eval", "--config", str(path)]) == 2
    assert f"no module file {tmp_path / 'nope.py'}" in capsys.readouterr().err
    assert main(["eval", "examples/Nope-v0", "--module", "no_such_module_here"]) == 2
    assert "cannot import the module 'no_such_module_here'" in capsys.readouterr().err


def test_module_on_the_command_line_registers_a_task_to_run(tmp_path, registry_kept, capsys):
    out = tmp_path / "out"
    argv = ["eval", "examples/Tally-v0", "--module", str(EXAMPLES / "agentverse_task.py")]
    assert main([*argv, "--episodes", "1", "--quiet", "--out", str(out)]) == 0
    assert json.loads((out / "summary.json").read_text())["metrics"]["score"]["mean"] == 1.0
