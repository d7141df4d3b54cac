"""Multi-agent debate (Du et al. 2023): agents answer, read each other, revise, vote.

The package declares the task (:data:`TASK`); the question sources and their readers are
:mod:`.questions`, :mod:`.readers` and :mod:`.chess_tasks`, the rules :mod:`.world`, the env
class (:class:`.env.DebateEnv`) is the task's documentation page, and :mod:`.language_model`
its offline mind.
"""

from typing import Any

from mase.tasks import TaskPackage

TASK = TaskPackage(
    envs={"mase/Debate-v0": "mase.envs.debate.env:DebateEnv"},
    presets={"debate-table1": "mase.envs.debate.paper:DEBATE_TABLE1"},
)


def env(**kwargs: Any) -> Any:
    """The AEC env (PettingZoo's module convention: ``env(**kwargs)``)."""
    from mase.envs.debate.env import DebateEnv

    return DebateEnv(**kwargs)


def __getattr__(name: str) -> Any:
    # the env class is imported on first use, so that `import mase` stays light
    if name == "DebateEnv":
        from mase.envs.debate.env import DebateEnv

        return DebateEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["TASK", "DebateEnv", "env"]
