"""Trained models a task ships in its ``checkpoints/`` folder, and checkpoints given by path.

A task's named policies (``policies.py``) load one or the other: ``mappo`` for the shipped
actor, ``mappo:PATH`` for a checkpoint of your own.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def checkpoint(package: str, name: str) -> str:
    """Path of the model ``checkpoints/NAME`` shipped inside the task package ``package``."""
    path = resources.files(package).joinpath("checkpoints", name)
    if not path.is_file():
        raise FileNotFoundError(f"no shipped checkpoint {name!r}; train one with `mase train`")
    return str(path)


def given_or_shipped(path: str | None, package: str, name: str) -> str:
    """The checkpoint given after ``name:`` (which must be a file), else the shipped ``name``."""
    if path:
        if not Path(path).is_file():
            raise FileNotFoundError(f"no checkpoint file at {path}")
        return path
    return checkpoint(package, name)
