"""The tasks MASE knows: one declaration per task package, built in or installed.

A task package (a folder under ``envs/``, or a third-party package) declares everything about its
task in one :class:`TaskPackage`: its env ids (with default arguments) and its presets (paper
tables). Everything bound to an env lives on its env class: the scripted policy, the offline
language model, the built-in probes and the named policies with their checkpoints
(:class:`mase.task.TaskEnv`'s class attributes). ``mase/`` itself names no task.

MASE's own packages are listed in :data:`BUILTIN`; any installed distribution adds its own
through the ``mase.tasks`` entry-point group, so ``pip install their-package`` makes their tasks
appear in ``mase list``, ``mase eval`` and ``gymnasium.make``::

    # their pyproject.toml
    [project.entry-points."mase.tasks"]
    colour_match = "their_package.tasks:TASK"

    # their_package/tasks.py
    from mase.tasks import TaskPackage
    TASK = TaskPackage(envs={"theirlab/ColourMatch-v0": "their_package.env:ColourMatchEnv"})
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from importlib.metadata import entry_points
from typing import Any

#: The entry-point group third-party task packages declare themselves in.
ENTRY_POINT_GROUP = "mase.tasks"

#: MASE's own task packages: ``"module:attribute"`` of each :class:`TaskPackage`.
BUILTIN = ("mase.envs.search_rescue:TASK", "mase.envs.avalon:TASK", "mase.envs.debate:TASK", "mase.envs.deliberation:TASK", "mase.envs.agentverse:TASK", "mase.envs.craft:TASK")  # noqa: E501  # fmt: skip

EnvEntry = str | Callable[..., Any] | tuple[str | Callable[..., Any], Mapping[str, Any]]


@dataclass(frozen=True)
class TaskPackage:
    """What a task package declares.

    Attributes:
        envs: env id -> AEC entry point (``"module:Class"`` or a callable), or ``(entry point,
            default arguments)``; each id is registered with :func:`mase.register`.
        presets: preset name -> ``"module:attribute"`` of a :class:`mase.presets.Preset` (a
            paper table ``mase eval --preset NAME`` reproduces).
        name: where the declaration came from (set when it is loaded).
    """

    envs: Mapping[str, EnvEntry]
    presets: Mapping[str, str] = field(default_factory=dict)
    name: str = ""


_LOADED: list[TaskPackage] = []
_PROBLEMS: list[str] = []


def register_package(package: TaskPackage, name: str = "") -> None:
    """Register every env id of ``package`` and make its presets known."""
    from mase.registry import register

    for env_id, entry in package.envs.items():
        entry_point, defaults = entry if isinstance(entry, tuple) else (entry, {})
        register(env_id, entry_point, **dict(defaults))
    _LOADED.append(replace(package, name=name or package.name))


def _declaration(path: str) -> TaskPackage:
    module, _, attribute = path.partition(":")
    found = getattr(importlib.import_module(module), attribute)
    if not isinstance(found, TaskPackage):
        raise TypeError(f"{path} is a {type(found).__name__}, not a mase.tasks.TaskPackage")
    return found


def load() -> None:
    """Register the built-in task packages, then every installed one (once per process).

    A third-party package that fails to load is skipped with a warning (and listed by
    :func:`problems`), so that one broken plug-in does not break ``import mase``.
    """
    if _LOADED or _PROBLEMS:
        return
    for path in BUILTIN:
        register_package(_declaration(path), path)
    builtin = set(BUILTIN)
    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.value in builtin:
            continue
        try:
            package = point.load()
            if not isinstance(package, TaskPackage):
                raise TypeError(f"it is a {type(package).__name__}, not a mase.tasks.TaskPackage")
            register_package(package, f"{point.dist.name if point.dist else '?'}:{point.name}")
        except Exception as exc:  # noqa: BLE001 - reported, and the other tasks still load
            problem = f"task package {point.name!r} ({point.value}) did not load: {exc}"
            _PROBLEMS.append(problem)
            warnings.warn(problem, stacklevel=2)


def packages() -> list[TaskPackage]:
    """Every task package loaded, built-in ones first."""
    load()
    return list(_LOADED)


def problems() -> list[str]:
    """Why installed task packages failed to load (empty when all loaded)."""
    return list(_PROBLEMS)


def presets() -> dict[str, str]:
    """Every preset of every loaded package: name -> ``"module:attribute"``."""
    found: dict[str, str] = {}
    for package in packages():
        for name, path in package.presets.items():
            if name in found and found[name] != path:
                warnings.warn(f"preset {name!r} declared twice; kept {found[name]}", stacklevel=2)
                continue
            found[name] = path
    return found
