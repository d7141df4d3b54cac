"""MASE: multi-agent collaboration tasks for LLM teams and MARL baselines.

>>> import mase
>>> env_id = mase.list_envs("mase")[0]  # the built-in tasks and any installed ones
>>> env = mase.make(env_id)  # a PettingZoo AEC env
>>> env.reset(seed=0)
>>> env.agent_selection in env.possible_agents
True
"""

from mase import agents, baselines, tasks, wrappers
from mase.batch import make_vec
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
    "make_vec",
    "register",
    "run_episode",
    "tasks",
    "wrappers",
]
