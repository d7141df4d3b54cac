"""Craft: a team gathers, crafts and hands items over to make a bookshelf (AgentVerse's case).

The package declares the task (:data:`TASK`); the recipe books are :mod:`.recipes`, the maps
:mod:`.maps`, the rules :mod:`.world` (pure), the words :mod:`.names`, :mod:`.text` and
:mod:`.parse`, the vector view :mod:`.vector`, the picture :mod:`.render`, and the env class
(:mod:`.env`) is the task's documentation page. :mod:`.scripted` is the scripted team;
:mod:`.search` is the exact search for the fewest rounds and :mod:`.planner` the ``planner``
policy that plays it (and :func:`.planner.optimal_makespan`).
"""

from typing import Any

from mase.tasks import TaskPackage

TASK = TaskPackage(envs={"mase/Craft-v0": "mase.envs.craft.env:CraftEnv"})


def __getattr__(name: str) -> Any:
    # the env class is imported on first use, so that `import mase` stays light
    if name == "CraftEnv":
        from mase.envs.craft.env import CraftEnv

        return CraftEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["TASK", "CraftEnv"]
