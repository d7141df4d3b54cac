"""Avalon's named policies: the MAPPO checkpoints it ships, one a side.

``AvalonEnv.policies`` names these factories, so ``--team good=mappo-good`` and the like work
for this task; each takes the text after ``name:`` in a team spec (a checkpoint of your own).
``mappo-good`` and ``mappo-evil`` were trained on ``roles="avalonbench-5", discussion=0``,
``mappo-good-7`` on ``roles="avalonplay-7", discussion=0, fifth_proposal="forced"`` (all with
``quest_reward=0.2``) against the rule-based bots (``docs/training/mappo-avalon/results.md``
has the commands and the measured win rates). ``selfplay-good`` and ``selfplay-evil`` were
trained by population self-play (``mase train selfplay``, :mod:`mase.baselines.mappo.selfplay`)
on ``roles="avalonbench-5", discussion=0``: both sides together by :data:`SELFPLAY_COMMAND`,
then the evil side again by :data:`SELFPLAY_EVIL_COMMAND`, against a population of the first
run's good side, random play, the bots and the deduction player (``docs/training/selfplay-avalon``
holds both runs' logs and results).
"""

from __future__ import annotations

from typing import Any

from mase.envs import shipped

#: The command that trained ``checkpoints/selfplay_good.pt`` (seed 1; ``good.pt`` of its output
#: folder), both sides at once.
SELFPLAY_COMMAND = (
    "mase train selfplay --env mase/Avalon-v0 --env-arg roles=avalonbench-5 "
    "--env-arg discussion=0 --env-arg quest_reward=0.2 --total-timesteps 8000000 --seed 1"
)
#: The command that trained ``checkpoints/selfplay_evil.pt`` (``evil.pt`` of its output
#: folder): the evil side alone, against the first run's good side and random play in the
#: native batch and the bots (three times the weight) and the deduction player in AEC worlds.
SELFPLAY_EVIL_COMMAND = (
    "mase train selfplay --env mase/Avalon-v0 --env-arg roles=avalonbench-5 "
    "--env-arg discussion=0 --env-arg quest_reward=0.2 --learn evil "
    "--population frozen:1,random:1 --frozen-checkpoint selfplay-good "
    "--scripted scripted:3,deduction:1 --num-envs 32 --script-envs 32 --num-steps 32 "
    "--hidden 64 --num-minibatches 8 --learning-rate 1e-3 --total-timesteps 1500000 --seed 1"
)


def checkpoint(name: str) -> str:
    """Path of a trained model shipped with the task (``checkpoints/NAME`` in this folder)."""
    return shipped.checkpoint(__package__, name)


def mappo_good(arg: str | None) -> Any:
    """The MAPPO actor trained as the good side against evil bots, or the checkpoint at ``arg``."""
    return _mappo(arg, "mappo_good.pt")


def mappo_good_7(arg: str | None) -> Any:
    """The MAPPO actor trained as the good side of ``avalonplay-7`` against evil bots."""
    return _mappo(arg, "mappo_good_7.pt")


def mappo_evil(arg: str | None) -> Any:
    """The MAPPO actor trained as the evil side against good bots, or the checkpoint at ``arg``."""
    return _mappo(arg, "mappo_evil.pt")


def selfplay_good(arg: str | None) -> Any:
    """The good side trained by population self-play, or the checkpoint at ``arg``."""
    return _mappo(arg, "selfplay_good.pt")


def selfplay_evil(arg: str | None) -> Any:
    """The evil side trained by population self-play, or the checkpoint at ``arg``."""
    return _mappo(arg, "selfplay_evil.pt")


def _mappo(arg: str | None, name: str) -> Any:
    from mase.baselines.mappo import MAPPOPolicy

    return MAPPOPolicy.load(shipped.given_or_shipped(arg, __package__, name))
