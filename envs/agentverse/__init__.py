"""AgentVerse (Chen et al. 2023): a group of experts recruited for a goal works on it in rounds.

The package declares the protocol as tasks (:data:`TASK`): :class:`.env.AgentVerseEnv` (the
task's documentation page) plays recruitment, the vertical or horizontal decision, execution
and evaluation as phases of one env, over problems with an automatic score or over an episode
of any registered task (``mase/AgentVerseCraft-v0``: the crafting world); :mod:`.text` words
them, :mod:`.behaviours` measures the group's conformity, ignored feedback, loops,
volunteering and destructive acts, :mod:`.language_model` is the offline group mind and
:mod:`.bots` the same mind as a scripted seat. The problem sources and their automatic scores
are :mod:`.problems` (concept coverage, logic grid puzzles, math, HumanEval, FED dialogues),
:mod:`.coding` (running a reply's code against a problem's tests in :mod:`mase.sandbox`) and
:mod:`.judge` (a judge model's rating, for FED); :mod:`.config` is the protocol's settings as a
dataclass that reads a run configuration file.
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
