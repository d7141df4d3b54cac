"""Every script in examples/ runs to the end."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

import mase

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.py"))


def test_there_are_examples():
    assert len(EXAMPLES) >= 3


#: Examples that need an optional extra say so and exit when it is missing: what they print.
NEEDS = {"rllib_ppo.py": "this example needs RLlib"}


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(script, tmp_path):
    result = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env={**os.environ, "MASE_EXAMPLE_FAST": "1"},
    )
    if script.name in NEEDS and NEEDS[script.name] in result.stderr:
        pytest.skip(result.stderr.strip())  # its extra is not installed here
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip()


def test_the_task_examples_are_among_them():
    assert {"register_task.py", "secret_vote.py"} <= {p.name for p in EXAMPLES}


def run_example(name):
    """Run an example's module body (its task registers itself; __main__ does not run)."""
    spec = importlib.util.spec_from_file_location(name, EXAMPLES[0].parent / f"{name}.py")
    spec.loader.exec_module(importlib.util.module_from_spec(spec))


def test_secret_vote_rules():
    run_example("secret_vote")
    env = mase.make("examples/SecretVote-v0", max_cycles=3)
    env.reset(seed=0)
    assert env.values.tolist() == [2, 1, 0, -2]
    players = env.possible_agents

    def votes(*choices):
        for player, choice in zip(players, choices, strict=True):
            assert env.agent_selection == player and env.phase.name == "vote"
            env.step(choice)

    # round 1: the leader proposes option 3; two approvals of four are no majority
    assert (env.agent_selection, env.phase.name) == ("player_0", "propose")
    assert env.observe("player_0")["action_mask"].tolist() == [1, 1, 1, 1]
    env.step(3)
    assert env.observe("player_2")["action_mask"].tolist() == [1, 1, 0, 0]
    env.step(1)
    env.step("I approve")  # text, read by the task's parse_action
    assert "Last votes: none yet" in env.observe("player_2")["text"]  # the votes are secret
    env.step(0)
    env.step(0)
    assert env.rewards == dict.fromkeys(players, 0.0)
    revealed = "Last votes: player_0 approve, player_1 approve, player_2 reject, player_3 reject"
    assert revealed in env.observe("player_2")["text"]
    # round 2: leadership has passed on; option 0 (worth 2) is adopted
    assert (env.round, env.agent_selection) == (2, "player_1")
    env.step(0)
    votes(1, 1, 1, 0)
    assert env.rewards == dict.fromkeys(players, 2.0) and env.table == [1, 2, 3]
    # round 3: option 0 is no longer on the table; the vote on nothing adopts nothing
    assert env.agent_selection == "player_1"
    env.step(0)
    assert env.infos["player_1"]["invalid_action"] == "option 0 is not on the table"
    votes(1, 1, 1, 1)
    assert env.ended_by == "round_limit" and all(env.truncations.values())
    metrics = env.infos["player_0"]["metrics"]
    assert (metrics["score"], metrics["best"], metrics["rounds"]) == (2.0, 3.0, 3)


@pytest.mark.parametrize("name, most", [("register_task.py", 60), ("secret_vote.py", 99)])
def test_a_task_is_its_rules_only(name, most):
    """A task's class, from ``class`` to the line before ``mase.register``, stays this short."""
    lines = (EXAMPLES[0].parent / name).read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("class "))
    end = next(i for i, line in enumerate(lines) if line.startswith("mase.register("))
    assert end - start <= most, f"{name}'s task class has {end - start} lines"


def test_the_readme_step_loop_plays_the_episode_run_episode_plays():
    """README: "run_episode runs the same loop, with the same seeds": the same episode."""
    import contextlib
    import io
    import re

    readme = (EXAMPLES[0].parents[1] / "README.md").read_text()
    section = readme[readme.index("## The step loop") :]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    scope: dict = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, "README.md", "exec"), scope)  # noqa: S102 - our own README
    by_hand = scope["info"]["metrics"]
    env = mase.wrappers.MessageChannel(mase.make("mase/SearchRescue-v0"))
    team = {
        "alpha": mase.agents.make_policy("scripted", env),
        "bravo": mase.agents.RandomPolicy(),
        "charlie": mase.agents.RandomPolicy(),
    }
    assert mase.run_episode(env, team, seed=0)["metrics"] == by_hand


def test_a_new_goal_type_for_the_agentverse_protocol_takes_under_40_lines():
    """The issue's promise: one registered task plus one configuration, in under 40 lines."""
    lines = (EXAMPLES[0].parent / "agentverse_new_goal.py").read_text().splitlines()
    assert len(lines) < 40
    assert sum(line.startswith("mase.register(") for line in lines) == 1
