"""Run configuration files: a task, its arguments, the teams and the episodes, in TOML.

``mase eval --config FILE.toml`` reads one (the command line wins over the file); a task may
also give a dataclass of its own arguments that reads the same file's ``[env_args]``. The
layout, every key optional:

.. code-block:: toml

    env = "vendor/MyTask-v0"       # the task id
    team = ["scripted"]            # one team spec a row (a string is one row)
    episodes = 5
    seed = 0
    concurrency = 1
    unconfined_sandbox = false     # true: model programs run without bubblewrap (mase.sandbox)

    [env_args]                     # the task's arguments, as --env-arg KEY=VALUE gives them
    max_cycles = 20

    [env_args.options]             # a table is a dict argument
    layout = "random"

TOML is read by the standard library (:mod:`tomllib`), so a configuration needs nothing more
installed.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any


@dataclass
class RunConfig:
    """A run configuration file, read (module docstring).

    Attributes:
        env: the task id, or ``None``.
        env_args: the task's arguments.
        team: the team specs, one a row (empty: the command's default).
        episodes, seed, concurrency: as ``mase eval`` takes them (``None``: not given).
        unconfined_sandbox: as ``mase eval --unconfined-sandbox``: model-written programs run
            in the unconfined child (the audit hook alone) where bubblewrap cannot run, and the
            run's records and table say so (``None``: not given).
        path: the file it was read from.
    """

    env: str | None = None
    env_args: dict[str, Any] = field(default_factory=dict)
    team: list[str] = field(default_factory=list)
    episodes: int | None = None
    seed: int | None = None
    concurrency: int | None = None
    unconfined_sandbox: bool | None = None
    path: str = ""

    @classmethod
    def from_file(cls, path: str | Path) -> RunConfig:
        """Read a TOML file.

        Raises:
            FileNotFoundError: no such file.
            ValueError: not TOML, a key this layout does not have, or a value of the wrong kind
                (the message names the file and the key).
        """
        path = Path(path)
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"{path}: not a TOML file: {exc}") from None
        known = [f.name for f in fields(cls) if f.name != "path"]
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise ValueError(f"{path}: unknown key(s) {unknown}; a run configuration has {known}")
        team = data.get("team", [])
        team = [team] if isinstance(team, str) else team
        kinds = {"env": str, "env_args": dict, "episodes": int, "seed": int, "concurrency": int}
        for key, kind in kinds.items():
            if key in data and (not isinstance(data[key], kind) or isinstance(data[key], bool)):
                raise ValueError(f"{path}: {key} must be a {kind.__name__}, got {data[key]!r}")
        flag = data.get("unconfined_sandbox")
        if flag is not None and not isinstance(flag, bool):
            raise ValueError(f"{path}: unconfined_sandbox must be true or false, got {flag!r}")
        if not isinstance(team, list) or not all(isinstance(t, str) for t in team):
            raise ValueError(f"{path}: team must be a team spec or a list of them, got {team!r}")
        return cls(
            env=data.get("env"),
            env_args=dict(data.get("env_args", {})),
            team=list(team),
            episodes=data.get("episodes"),
            seed=data.get("seed"),
            concurrency=data.get("concurrency"),
            unconfined_sandbox=flag,
            path=str(path),
        )


__all__ = ["RunConfig"]
