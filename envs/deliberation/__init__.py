"""Deliberative collaboration (Wang et al. 2026): joint decisions under partial information.

Menu design (numeric, semantic and level 3) and task allocation with a leader. The package
declares the tasks (:data:`TASK`); the games are :mod:`.games` (the released ones and a loader)
and :mod:`.generate` (fresh ones), the scoring :mod:`.scoring` (the optimum, NR, NAR, VR), the
words :mod:`.text` (views, fact sentences, the reply reader, beliefs), the env classes
(:mod:`.env`) are the tasks' documentation pages; :mod:`.mind` is the deliberator that
:mod:`.bots` (scripted, oracle, random proposer) and :mod:`.language_model` (the offline model)
share, :mod:`.semantic` reads guests' descriptions, :mod:`.tools` is the solver the "with
tools" condition offers, :mod:`.tom` the Theory-of-Mind probes and :mod:`.paper` the preset.
"""

from typing import Any

from mase.tasks import TaskPackage

TASK = TaskPackage(
    envs={
        "mase/MenuDesign-v0": "mase.envs.deliberation.env:MenuDesignEnv",
        "mase/MenuDesignSemantic-v0": (
            "mase.envs.deliberation.env:MenuDesignEnv",
            {"level": "semantic"},
        ),
        "mase/MenuDesignLevel3-v0": (
            "mase.envs.deliberation.env:MenuDesignEnv",
            {"games": "menu_level3"},
        ),
        "mase/TaskAllocation-v0": "mase.envs.deliberation.env:TaskAllocationEnv",
    },
    presets={"deliberation": "mase.envs.deliberation.paper:DELIBERATION"},
)


def __getattr__(name: str) -> Any:
    # the env classes are imported on first use, so that `import mase` stays light
    if name in ("MenuDesignEnv", "TaskAllocationEnv"):
        from mase.envs.deliberation import env

        return getattr(env, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["TASK", "MenuDesignEnv", "TaskAllocationEnv"]
