"""The AgentVerse protocol's settings as a dataclass, read from a run configuration file.

:class:`AgentVerseConfig` has the fields of :class:`~.env.AgentVerseEnv` (a test keeps them the
same) and reads the ``[env_args]`` table of a :mod:`mase.config` TOML file, so one file serves
``mase eval --config FILE`` and Python alike::

    env = "mase/AgentVerse-v0"
    team = ["scripted"]
    episodes = 5

    [env_args]
    task = "mase/Craft-v0"        # the goal: a registered task's episode (or: problems = ...)
    experts = 3
    iterations = 3

    [env_args.task_kwargs]
    layout = "random"

>>> from mase.envs.agentverse.config import AgentVerseConfig
>>> config = AgentVerseConfig(task="mase/Craft-v0", experts=3)
>>> env = config.make()
>>> env.possible_agents
['recruiter', 'solver', 'reviewer_1', 'reviewer_2']
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from mase.config import RunConfig


@dataclass
class AgentVerseConfig:
    """The protocol's settings (each as :class:`~.env.AgentVerseEnv` documents it)."""

    problems: str = "samples"
    path: str | None = None
    n_problems: int | None = None
    merge: int = 1
    judge: dict[str, Any] | None = None
    structure: str = "vertical"
    experts: int = 4
    recruit: bool = True
    evaluator: str = "auto"
    iterations: int = 3
    review_rounds: int = 2
    cot: bool = False
    task: str | None = None
    task_kwargs: dict[str, Any] = field(default_factory=dict)
    execute_rounds: int = 10

    @classmethod
    def from_file(cls, path: str | Path) -> AgentVerseConfig:
        """The ``[env_args]`` of a run configuration file (:mod:`mase.config`).

        Raises:
            ValueError: an argument the protocol does not have (the message lists the ones it
                has).
        """
        run = RunConfig.from_file(path)
        known = [f.name for f in fields(cls)]
        unknown = sorted(set(run.env_args) - set(known))
        if unknown:
            raise ValueError(f"{path}: unknown protocol argument(s) {unknown}; known: {known}")
        return cls(**run.env_args)

    def env_kwargs(self) -> dict[str, Any]:
        """The settings as ``mase.make`` keyword arguments."""
        return asdict(self)

    def make(self, **kwargs: Any) -> Any:
        """The protocol's AEC env with these settings (``kwargs``: ``obs_mode`` and the like)."""
        import mase

        return mase.make("mase/AgentVerse-v0", **self.env_kwargs(), **kwargs)


__all__ = ["AgentVerseConfig"]
