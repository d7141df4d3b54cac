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
