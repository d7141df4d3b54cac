"""The Resistance: Avalon (AvalonPlay, Shi et al. 2023; AvalonBench, Light et al. 2023).

The package declares the task (:data:`TASK`: its id, and AvalonPlay's and AvalonBench's
settings as presets, :mod:`.paper`). The rules are data in
:mod:`.roles` (role sets, quest tables, who sees whom) and a pure core in :mod:`.world`; the
env class (:class:`.env.AvalonEnv`) is the task's documentation page.
"""

from typing import Any

from mase.tasks import TaskPackage

TASK = TaskPackage(
    envs={"mase/Avalon-v0": "mase.envs.avalon.env:AvalonEnv"},
    presets={
        "avalonplay-7": "mase.envs.avalon.paper:AVALONPLAY_7",
        "avalonbench-5": "mase.envs.avalon.paper:AVALONBENCH_5",
    },
)


def env(**kwargs: Any) -> Any:
    """The AEC env (PettingZoo's module convention: ``env(**kwargs)``)."""
    from mase.envs.avalon.env import AvalonEnv

    return AvalonEnv(**kwargs)


def __getattr__(name: str) -> Any:
    # the env class is imported on first use, so that `import mase` stays light
    if name == "AvalonEnv":
        from mase.envs.avalon.env import AvalonEnv

        return AvalonEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["TASK", "AvalonEnv", "env"]
