"""AgentVerse (Chen et al. 2023): a group of experts recruited for a goal works on it in rounds.

The package declares the protocol as a task (:data:`TASK`): :class:`.env.AgentVerseEnv` (the
task's documentation page) plays recruitment, the vertical or horizontal decision, execution
and evaluation as phases of one env; :mod:`.text` words them, :mod:`.behaviours` measures the
group's conformity, ignored feedback and loops, :mod:`.language_model` is the offline group
mind and :mod:`.bots` the same mind as a scripted seat. The problem sources and their automatic
scores are :mod:`.problems` (concept coverage, logic grid puzzles, math, HumanEval) and
:mod:`.coding` (running a reply's code against a problem's tests in :mod:`mase.sandbox`).
"""

from mase.tasks import TaskPackage

TASK = TaskPackage(
    envs={
        "mase/AgentVerse-v0": "mase.envs.agentverse.env:AgentVerseEnv",
        # the Minecraft case: the loop over the crafting world, one expert per crafter
        "mase/AgentVerseCraft-v0": (
            "mase.envs.agentverse.env:AgentVerseEnv",
            {"task": "mase/Craft-v0", "experts": 3, "execute_rounds": 10},
        ),
    },
    presets={"agentverse-table1": "mase.envs.agentverse.paper:AGENTVERSE_TABLE1"},
)

__all__ = ["TASK"]
