"""MASE: multi-agent collaboration tasks for LLM teams and MARL baselines.

>>> import mase
>>> env = mase.make("mase/SearchRescue-v0")
>>> env.reset(seed=0)
>>> env.possible_agents
['alpha', 'bravo', 'charlie']
"""

from mase import agents, baselines, tasks, wrappers
from mase.registry import (
    UnknownArgumentError,
    UnknownEnvError,
    list_envs,
    make,
    make_parallel,
    register,
)
from mase.runner import evaluate, run_episode

__version__ = "0.1.0"

tasks.load()  # the built-in task packages, then every installed one (the mase.tasks group)

__all__ = [
    "UnknownArgumentError",
    "UnknownEnvError",
    "agents",
    "baselines",
    "evaluate",
    "list_envs",
    "make",
    "make_parallel",
    "register",
    "run_episode",
    "tasks",
    "wrappers",
]
