"""Every trainer of ``mase train``, run short through the command line.

A run's outputs load and play; the same seed gives the same log, row for row, but for the
columns that measure wall-clock; ``--tensorboard`` writes event files that TensorBoard's own
reader reads back with the log's values, and is off unless asked for.
"""

import csv
import dataclasses
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import mase
from mase.agents import make_policy
from mase.cli import main

pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")

ENV = "mase/SearchRescue-v0"
AVALON = {"roles": "avalonbench-5", "discussion": 0}


@dataclasses.dataclass(frozen=True)
class Recipe:
    """A short run of a trainer (a few seconds on one core): its options, log and policies."""

    options: tuple[str, ...]
    logs: tuple[str, ...]  # the training logs it writes, under --out
    saved: tuple[str, ...]  # the policies it saves, under --out
    env: str = ENV
    env_kwargs: dict = dataclasses.field(default_factory=dict)
    sides: tuple[str, ...] = ()  # the sides the policies play, in order; (): every seat


RECIPES = {
    "mappo": Recipe(
        ("--total-timesteps", "192", "--num-envs", "2", "--num-rounds", "8", "--update-epochs",
         "1"), ("metrics.csv",), ("mappo.pt",)),
    "sb3-ppo": Recipe(
        ("--total-timesteps", "384", "--num-envs", "2", "--n-steps", "32", "--batch-size", "64",
         "--n-epochs", "1"), ("progress.csv",), ("sb3_ppo.zip",)),
    "selfplay": Recipe(
        ("--total-timesteps", "64", "--num-envs", "4", "--script-envs", "1", "--num-steps", "8",
         "--update-epochs", "1", "--num-minibatches", "1"), ("good/metrics.csv",
         "evil/metrics.csv"), ("good.pt", "evil.pt"), "mase/Avalon-v0", AVALON, ("good", "evil")),
}  # fmt: skip
#: MAPPO's turn-by-turn path (one side learns against the bots), on Avalon.
TURNS = Recipe(
    ("--learn", "good", "--env", "mase/Avalon-v0", "--env-arg", "roles=avalonbench-5",
     "--env-arg", "discussion=0", "--total-timesteps", "64", "--num-envs", "2", "--num-steps",
     "16", "--update-epochs", "1"), ("metrics.csv",), ("mappo.pt",), "mase/Avalon-v0", AVALON,
    ("good",))  # fmt: skip
#: Every trainer this installation has, and MAPPO's second loop.
RUNS = [pytest.param(t, RECIPES[t], id=t) for t in mase.baselines.TRAINERS if t in RECIPES] + [
    pytest.param("mappo", TURNS, id="mappo-turns")
]


def wall_clock(column: str) -> bool:
    """Whether a log column measures the machine's speed (it differs run to run)."""
    return column.endswith(("_s", "sps", "fps", "time_elapsed"))


#: SB3's counters that its logger keeps out of TensorBoard (``exclude="tensorboard"``).
SB3_COUNTERS = {"time/iterations", "time/time_elapsed", "train/n_updates"}


def train(trainer, recipe, out, *extra):
    assert main(["train", trainer, *recipe.options, "--out", str(out), *extra]) == 0
    return out


def rows(path):
    with path.open() as f:
        return list(csv.DictReader(f))


def load_policy(path):
    if path.suffix == ".pt":
        from mase.baselines.mappo import MAPPOPolicy

        return MAPPOPolicy.load(path)
    from mase.baselines.sb3 import SB3Policy

    return SB3Policy.load(path)


class Watched:
    """A policy (on every seat it is given) whose every action is checked against the seat's
    action space, and its mask where the policy masks its choices (MAPPO's actors do; plain
    PPO has no mask: it learns to avoid illegal moves)."""

    def __init__(self, policy, masked):
        self.policy, self.masked, self.actions = policy, masked, 0

    def reset(self, agent, env, seed=None):
        self.env = env
        self.policy.reset(agent, env, seed)

    def act(self, observation, info):
        action = self.policy.act(observation, info)
        assert self.env.action_space(self.env.unwrapped.agent_selection).contains(action)
        if self.masked:
            assert observation["action_mask"][action] == 1
        self.actions += 1
        return action


def play(recipe, path, side, seed=0):
    """One episode, the saved policy on the seats of ``side`` (every seat: ``""``), bots on
    the rest; the policy's own moves counted."""
    env = mase.make(recipe.env, obs_mode="vector", **recipe.env_kwargs)
    env.reset(seed=seed)  # the deal of this seed: run_episode deals it again
    player = Watched(load_policy(path), masked=path.suffix == ".pt")
    team = {a: player if not side or env.unwrapped.side_of(a) == side
            else make_policy("scripted", env) for a in env.possible_agents}  # fmt: skip
    return mase.run_episode(env, team, seed=seed, record_text=False)["metrics"], player.actions


def test_every_trainer_has_a_short_run_here_and_a_tensorboard_option():
    import importlib

    missing = set(mase.baselines.TRAINERS) - set(RECIPES)
    assert not missing, f"add a short run of {sorted(missing)} to RECIPES"
    for module_name, _ in mase.baselines.TRAINERS.values():
        fields = {f.name: f for f in dataclasses.fields(importlib.import_module(module_name).Args)}
        assert "tensorboard" in fields, f"{module_name}.Args has no tensorboard option"
        assert fields["tensorboard"].default is False, module_name  # off unless asked for


@pytest.mark.parametrize("trainer", [t for t in mase.baselines.TRAINERS if t in RECIPES])
def test_a_short_run_through_the_command_saves_policies_that_play_legal_episodes(trainer, tmp_path):
    recipe = RECIPES[trainer]
    done = subprocess.run(
        [sys.executable, "-m", "mase.cli", "train", trainer, *recipe.options, "--out",
         str(tmp_path)], capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"saved {tmp_path / recipe.saved[0]}" in done.stdout
    assert (tmp_path / "args.json").exists()
    assert not list(tmp_path.rglob("events.out.tfevents.*"))  # no TensorBoard unless asked
    for log in recipe.logs:
        assert len(rows(tmp_path / log)) >= 2, log
    for saved, side in zip(recipe.saved, recipe.sides or ("",) * len(recipe.saved), strict=True):
        metrics, moves = play(recipe, tmp_path / saved, side)
        assert moves > 0 and metrics["turns"] >= moves
        if not side:  # every seat: one move each a round
            assert metrics["turns"] == moves == 3 * metrics["rounds"]


@pytest.mark.parametrize(("trainer", "recipe"), RUNS)
def test_the_same_seed_gives_the_same_log_but_for_wall_clock(trainer, recipe, tmp_path):
    """Rerun in a process of its own, under another string-hash seed (as a researcher reruns
    it), the same seed gives the same log."""
    for run, seed in (("a", "3"), ("c", "4")):
        train(trainer, recipe, tmp_path / run, "--threads", "1", "--seed", seed)
    done = subprocess.run(
        [sys.executable, "-m", "mase.cli", "train", trainer, *recipe.options, "--threads", "1",
         "--seed", "3", "--out", str(tmp_path / "b")],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONHASHSEED": str(hash("b") % 1000 + 1)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    for log in recipe.logs:
        a, b, c = (rows(tmp_path / run / log) for run in "abc")
        assert len(a) == len(b) >= 2
        assert any(map(wall_clock, a[0]))  # the ones left out are there: the rest is compared
        kept = [k for k in a[0] if not wall_clock(k)]
        assert [[r[k] for k in kept] for r in a] == [[r[k] for k in kept] for r in b], log
        # and another seed gives another log: the seed is what fixes it
        assert [[r[k] for k in kept] for r in a] != [[r[k] for k in kept] for r in c], log


def tensorboard_scalars(folder: Path) -> dict[str, dict[int, float]]:
    """``{tag: {step: value}}`` of the event files in ``folder``, read by TensorBoard."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(folder), size_guidance={"scalars": 0})  # 0: keep every one
    events.Reload()
    return {tag: {e.step: e.value for e in events.Scalars(tag)} for tag in events.Tags()["scalars"]}


def csv_scalars(log: Path) -> dict[str, dict[int, float]]:
    """``{column: {step: value}}`` of a training log's ``group/name`` columns, at its step."""
    table = rows(log)
    step = "global_step" if "global_step" in table[0] else "time/total_timesteps"
    out: dict[str, dict[int, float]] = {}
    for row in table:
        for column, value in row.items():
            if "/" in column and column != step and value != "":
                out.setdefault(column, {})[int(row[step])] = float(value)
    return out


def same_number(board: float, logged: float) -> bool:
    """An event's 32-bit float is the log's number (NaN, a rate of no episodes, is NaN)."""
    if math.isnan(logged):
        return math.isnan(board)
    return board == np.float32(logged) or math.isclose(board, logged, rel_tol=1e-6)


@pytest.mark.parametrize(("trainer", "recipe"), RUNS)
def test_tensorboard_events_hold_the_logs_values(trainer, recipe, tmp_path, capsys):
    pytest.importorskip("tensorboard")
    train(trainer, recipe, tmp_path, "--tensorboard")
    assert f"tensorboard --logdir {tmp_path}" in capsys.readouterr().out
    for log in map(Path, recipe.logs):
        folder = tmp_path / log.parent
        assert len(list(folder.glob("events.out.tfevents.*"))) == 1, log  # beside its log
        board, table = tensorboard_scalars(folder), csv_scalars(tmp_path / log)
        assert set(board) == set(table) - SB3_COUNTERS, log
        for tag, points in board.items():
            assert points.keys() == table[tag].keys(), tag  # the same steps
            for step, value in points.items():
                assert same_number(value, table[tag][step]), (tag, step, value)
        assert any(t.startswith(("charts/", "rollout/")) for t in board)
        assert any(t.startswith(("losses/", "train/")) for t in board)
