"""MASE: multi-agent collaboration tasks for LLM teams and MARL baselines.

>>> import mase
>>> env = mase.make("mase/SearchRescue-v0")
>>> env.reset(seed=0)
>>> env.possible_agents
['alpha', 'bravo', 'charlie']
"""

from mase import agents, baselines, wrappers
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

register("mase/SearchRescue-v0", "mase.envs.search_rescue.env:SearchRescueEnv")

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
    "wrappers",
]
