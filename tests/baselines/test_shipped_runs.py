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
    pytest.param("mase.envs.craft.policies", "TRAINING_COMMAND", "craft", ("metrics.csv",),
                 {"mappo.pt": "mappo.pt"}, id="craft-mappo"),
    pytest.param("mase.envs.avalon.policies", "SELFPLAY_COMMAND", "selfplay-avalon",
                 ("good/metrics.csv", "evil/metrics.csv"),
                 {"good.pt": "selfplay_good.pt", "evil.pt": "selfplay_evil.pt"},
                 id="avalon-selfplay"),
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
        assert ours.keys() == theirs.keys(), log
        kept = [k for k in ours if not wall_clock(k)]
        differ = {k: (ours[k], theirs[k]) for k in kept if not same(ours[k], theirs[k])}
        assert not differ, (log, differ)
    from mase.baselines.mappo import MAPPOPolicy

    for checkpoint in saved.values():
        data = MAPPOPolicy.load(policies.checkpoint(checkpoint)).checkpoint
        assert settings(data["args"]) == settings(shipped_args), checkpoint
        assert data["args"]["total_timesteps"] == total
