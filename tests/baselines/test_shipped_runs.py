"""Each shipped checkpoint's documented command reproduces its run from scratch.

The command a task documents for its checkpoint (``TRAINING_COMMAND`` and the like) is run
here for one update: its first log row must be the first row of the run the checkpoint came
from (kept under ``docs/training``, drawn there by ``mase report``), but for the columns that
measure wall-clock; the settings it parses to are the run's ``args.json`` and the checkpoint's
own. The full run is the command as written (minutes to an hour on 2 cores).
"""

import csv
import importlib
import json
import math
import shlex
from pathlib import Path

import pytest

pytest.importorskip("torch")

from mase.cli import main  # noqa: E402

DOCS = Path(__file__).parents[2] / "docs" / "training"

#: (module, its command's name, the run under docs/training, its logs, the checkpoints).
SHIPPED = [
    pytest.param("mase.envs.search_rescue.policies", "TRAINING_COMMAND", "mappo",
                 ("metrics.csv",), {"mappo.pt": "mappo.pt"}, id="search-rescue-mappo"),
    pytest.param("mase.envs.search_rescue.policies", "SB3_TRAINING_COMMAND", "sb3_ppo",
                 ("progress.csv",), {"sb3_ppo.zip": "sb3_ppo.zip"}, id="search-rescue-sb3"),
    pytest.param("mase.envs.craft.policies", "TRAINING_COMMAND", "craft", ("metrics.csv",),
                 {"mappo.pt": "mappo.pt"}, id="craft-mappo"),
    pytest.param("mase.envs.craft.policies", "RANDOM_TRAINING_COMMAND", "craft/random",
                 ("metrics.csv",), {"mappo_random.pt": "mappo_random.pt"},
                 id="craft-mappo-random"),
    pytest.param("mase.envs.avalon.policies", "SELFPLAY_COMMAND", "selfplay-avalon",
                 ("good/metrics.csv", "evil/metrics.csv"), {"good.pt": "selfplay_good.pt"},
                 id="avalon-selfplay"),
    pytest.param("mase.envs.avalon.policies", "SELFPLAY_EVIL_COMMAND", "selfplay-avalon/evil-2",
                 ("evil/metrics.csv",), {"evil.pt": "selfplay_evil.pt"},
                 id="avalon-selfplay-evil"),
]  # fmt: skip


def wall_clock(column: str) -> bool:
    return column.endswith(("_s", "sps", "fps", "time_elapsed"))


def rows(path):
    with path.open() as f:
        return list(csv.DictReader(f))


def same(a: str, b: str) -> bool:
    """Two logged numbers alike (to the log's rounding; a CPU's float order may move the last
    digit of a loss)."""
    if a == b:
        return True
    x, y = float(a), float(b)
    return math.isclose(x, y, rel_tol=1e-3, abs_tol=1e-4) or (math.isnan(x) and math.isnan(y))


def one_update(command: str, out: Path) -> list[str]:
    """The command's arguments for ``mase.cli.main``, one update long, writing into ``out``."""
    words = shlex.split(command)
    assert words[:2] == ["mase", "train"], command
    argv = words[1:]
    assert "--out" not in argv, "the documented command writes to the trainer's default folder"
    at = argv.index("--total-timesteps")
    argv[at + 1] = "1"  # at least one update
    return [*argv, "--out", str(out)]


def settings(args: dict) -> dict:
    """A run's settings but where it wrote and how long it ran."""
    return {k: v for k, v in args.items() if k not in {"out", "total_timesteps"}}


@pytest.mark.parametrize(("module", "name", "run", "logs", "saved"), SHIPPED)
def test_the_documented_command_reproduces_the_shipped_runs_first_update(
    module, name, run, logs, saved, tmp_path
):
    policies = importlib.import_module(module)
    command = getattr(policies, name)
    assert main(one_update(command, tmp_path)) == 0
    shipped_args = json.loads((DOCS / run / "args.json").read_text())
    assert settings(json.loads((tmp_path / "args.json").read_text())) == settings(shipped_args)
    total = int(shlex.split(command)[shlex.split(command).index("--total-timesteps") + 1])
    assert shipped_args["total_timesteps"] == total
    for log in logs:
        ours, theirs = rows(tmp_path / log)[0], rows(DOCS / run / log)[0]
        # SB3's CSV writer adds the columns of later rows (its train/ values) to the header
        # as they appear, so the whole run's header holds more than one update's
        assert ours.keys() <= theirs.keys(), log
        assert all(theirs[k] == "" for k in theirs.keys() - ours.keys()), log
        kept = [k for k in ours if not wall_clock(k)]
        assert len(kept) >= 3, log
        differ = {k: (ours[k], theirs[k]) for k in kept if not same(ours[k], theirs[k])}
        assert not differ, (log, differ)
    for checkpoint in saved.values():
        if checkpoint.endswith(".zip"):  # an SB3 model: trained for the command's turns
            from stable_baselines3 import PPO

            assert PPO.load(policies.checkpoint(checkpoint), device="cpu").num_timesteps >= total
            continue
        from mase.baselines.mappo import MAPPOPolicy

        data = MAPPOPolicy.load(policies.checkpoint(checkpoint)).checkpoint
        assert settings(data["args"]) == settings(shipped_args), checkpoint
        assert data["args"]["total_timesteps"] == total


@pytest.mark.parametrize("name", ["mappo.pt", "sb3_ppo.zip"])
def test_search_and_rescues_shipped_models_play_their_recorded_episodes(name):
    """The first seeded episodes of a shipped model's record, played again: the same scores,
    rounds and legal actions (the 100 of the record: benchmarks/shipped_checkpoints.py)."""
    from mase.envs.search_rescue import policies

    kept = policies.record(name)
    policy, command = policies.SHIPPED[name]
    assert kept["command"] == command
    assert len(kept["episodes"]) == 100 and kept["episodes"][0]["seed"] == 0
    assert policies.figures(policy, seed=0, episodes=4) == kept["episodes"][:4]
    if name == "mappo.pt":  # the goal the record shows: >= 95% at 90 points, <= 12 rounds
        assert kept["summary"]["at_90"] >= 0.95 and kept["summary"]["rounds_mean"] <= 12
