"""One plug-in point per task: task packages declare themselves, ``mase/`` names no task.

A task package (a folder of ``envs/`` or a third-party distribution) declares its ids and
presets in a :class:`mase.tasks.TaskPackage`; its env class declares its scripted bot, offline
model, probes and named policies. Nothing in ``mase/`` may name a task but the built-in list,
and an installed distribution's ``mase.tasks`` entry point makes its tasks appear everywhere.
"""

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import mase
from mase.agents import make_policy, policy_names
from mase.presets import load_preset
from mase.tasks import TaskPackage

ROOT = Path(__file__).resolve().parents[1]


def task_words() -> re.Pattern:
    """A pattern for every built-in task's name, however it is spelled (Foo_Bar, foo-bar...)."""
    names = set()
    for package in mase.tasks.packages():
        names.add(package.name.split(":")[0].rsplit(".", 1)[-1])  # the folder: search_rescue
        for env_id in package.envs:
            names.add(env_id.split("/")[-1].split("-v")[0])  # the id: SearchRescue
    spellings = []
    for name in names:
        words = re.findall(r"[A-Z]?[a-z]+|[0-9]+", name.replace("_", " ").title())
        spellings.append(r"[ _.\-]?".join(w.lower() for w in words))
    return re.compile("|".join(spellings), re.I)


def test_the_core_names_no_task_but_the_built_in_list():
    pattern = task_words()
    found = []
    for path in sorted((ROOT / "mase").rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line) and not line.startswith("BUILTIN = "):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "mase/ names a task:\n" + "\n".join(found)
    assert pattern.search("mase.envs.search_rescue") and pattern.search("Search-and-rescue") is None


def test_a_task_package_declares_its_ids_presets_and_policies():
    (package,) = [p for p in mase.tasks.packages() if "mase/SearchRescue-v0" in p.envs]
    assert package.name == "mase.envs.search_rescue:TASK"
    assert "paper-table1" in package.presets
    assert load_preset("paper-table1").env_id == "mase/SearchRescue-v0"
    env = mase.make("mase/SearchRescue-v0")
    assert {"cbs", "mappo", "sb3-ppo"} <= set(policy_names(env))
    assert type(make_policy("cbs:500", env)).__name__ == "CBSPolicy"


def test_a_policy_another_task_declares_is_a_clear_error():
    import importlib.util

    spec = importlib.util.spec_from_file_location("rt", ROOT / "examples" / "register_task.py")
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
    env = mase.make("examples/ColourMatch-v0")
    with pytest.raises(ValueError, match="unknown policy 'cbs' for ColourMatchEnv"):
        make_policy("cbs", env)


def test_a_package_that_is_not_a_declaration_is_refused():
    with pytest.raises(TypeError, match="TaskPackage"):
        mase.tasks._declaration("mase.tasks:ENTRY_POINT_GROUP")
    assert TaskPackage(envs={}).presets == {}


THIRD_PARTY = {
    "their_tasks/__init__.py": """
        from mase.tasks import TaskPackage

        TASK = TaskPackage(
            envs={"theirlab/Echo-v0": ("their_tasks.env:EchoEnv", {"max_cycles": 3})},
            presets={"their-table": "their_tasks.env:TABLE"},
        )
    """,
    "their_tasks/env.py": """
        import numpy as np
        from gymnasium import spaces

        from mase.presets import Preset, Team
        from mase.task import ActionParse, TaskEnv


        class EchoEnv(TaskEnv):
            '''Two agents say a number each round.'''

            metadata = {"name": "echo", "render_modes": ["ansi", "human"]}

            def __init__(self, max_cycles=5, obs_mode="both", render_mode=None):
                super().__init__(obs_mode, render_mode, max_cycles)
                self.possible_agents = ["one", "two"]
                self.set_spaces(1, spaces.Discrete(3))

            def new_episode(self, options):
                pass

            def apply(self, agent, action):
                return [self.event("say", agent, {("said", agent): action})], float(action)

            def _vector(self, agent):
                return np.array([self.round / self.max_cycles], dtype=np.float32)

            def _text(self, agent):
                return f"Round {self.round}."

            def rules_text(self, agent):
                return "Say 0, 1 or 2."

            def legal_actions_text(self, agent):
                return ["0", "1", "2"]

            def parse_action(self, agent, text):
                return ActionParse(int(text)) if text.strip() in "012" else ActionParse(None, "?")


        TABLE = Preset(
            env_id="theirlab/Echo-v0",
            teams=(Team("random", "random"),),
            columns=(("rounds", "rounds", "{:.1f}"),),
        )
    """,
    "their_tasks-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: their-tasks\nVersion: 0.1",
    "their_tasks-0.1.dist-info/entry_points.txt": "[mase.tasks]\necho = their_tasks:TASK\n",
    "broken-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: broken\nVersion: 0.1\n",
    "broken-0.1.dist-info/entry_points.txt": "[mase.tasks]\nbroken = no_such_module:TASK\n",
}


def test_an_installed_package_s_tasks_appear_in_mase_list_and_eval(tmp_path):
    for name, text in THIRD_PARTY.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    listed = subprocess.run(
        [sys.executable, "-m", "mase.cli", "list"], capture_output=True, text=True, env=env
    )
    assert listed.returncode == 0, listed.stderr
    assert "theirlab/Echo-v0" in listed.stdout and "mase/SearchRescue-v0" in listed.stdout
    assert "their-table" in listed.stdout
    assert "'broken'" in listed.stderr and "no_such_module" in listed.stderr  # said, not fatal
    out = tmp_path / "run"
    evaluated = subprocess.run(
        [sys.executable, "-m", "mase.cli", "eval", "--preset", "their-table", "--episodes", "2"]
        + ["--quiet", "--out", str(out)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert evaluated.returncode == 0, evaluated.stderr
    assert "theirlab/Echo-v0: their-table" in evaluated.stdout
    assert (out / "random" / "episodes.jsonl").read_text().count("\n") == 2
    made = subprocess.run(
        [sys.executable, "-c", "import gymnasium, mase; print(gymnasium.make('theirlab/Echo-v0'))"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert made.returncode == 0 and "SingleAgentEnv" in made.stdout, made.stderr
