"""Search and rescue (Li et al., 2023): find five colour-coded bombs and defuse them as a team.

The package declares the task (:data:`TASK`: its id and the paper's tables as a preset); the
env class declares its scripted bot, offline language model, probes and named policies
(:mod:`.policies`: the CBS planner and the shipped MAPPO and SB3 checkpoints).
"""

from typing import Any

from mase.tasks import TaskPackage

TASK = TaskPackage(
    envs={"mase/SearchRescue-v0": "mase.envs.search_rescue.env:SearchRescueEnv"},
    presets={"paper-table1": "mase.envs.search_rescue.paper:TABLE1"},
)


def env(**kwargs: Any) -> Any:
    """The AEC env (PettingZoo's module convention: ``env(**kwargs)``)."""
    from mase.envs.search_rescue.env import SearchRescueEnv

    return SearchRescueEnv(**kwargs)


def parallel_env(**kwargs: Any) -> Any:
    """The ParallelEnv (PettingZoo's module convention)."""
    from pettingzoo.utils.conversions import aec_to_parallel

    return aec_to_parallel(env(**kwargs))


def __getattr__(name: str) -> Any:
    # the env class is imported on first use, so that `import mase` stays light
    if name == "SearchRescueEnv":
        from mase.envs.search_rescue.env import SearchRescueEnv

        return SearchRescueEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["TASK", "SearchRescueEnv", "env", "parallel_env"]
