"""Run configuration files: everything ``mase eval`` takes, in TOML.

``mase eval --config FILE.toml`` reads one; an option given on the command line wins over the
file's. Every option of ``mase eval`` has a key, named as the option without its dashes
(``--base-url`` is ``base_url``, ``--belief-state`` is ``belief_state``; ``--team`` is
``team``, a list with one row each), except three: ``--env-arg`` is the ``[env_args]`` table,
``--module`` is ``modules`` (a list), and ``--config`` has none. A key takes the values its
option takes, checked as the option checks them (``episodes = 0`` is refused as
``--episodes 0`` is); a key this layout does not have is an error naming it, the nearest key
and all of them. A task may also give a dataclass of its own arguments that reads the
same file's ``[env_args]`` (a ``from_file`` classmethod). Every key is optional:

.. code-block:: toml

    env = "vendor/MyTask-v0"       # the task id (or preset = "NAME")
    modules = ["my_task.py"]       # imported first: files (beside this one) or module names
    team = ["scripted", "random"]  # one team spec a row (a string is one row)
    episodes = 5
    seed = 0
    concurrency = 1
    out = "runs/my-task"           # as --out: relative to the working directory
    probes = true                  # or probe_rate = 0.5
    record = true
    model = "gpt-4o-mini"          # model seats: model, base_url, timeout, max_tokens, ...
    base_url = "https://api.openai.com/v1"   # never a key: that comes only from OPENAI_API_KEY
    unconfined_sandbox = false     # true: model programs run without bubblewrap (mase.sandbox)

    [env_args]                     # the task's arguments, as --env-arg KEY=VALUE gives them
    max_cycles = 20

    [env_args.options]             # a table is a dict argument
    layout = "random"

    [row_model]                    # with a preset: each paper row's model (--row-model)
    ChatGPT = "gpt-3.5-turbo"

``modules`` names Python files (a path ending in ``.py``, relative to the configuration's own
folder) or importable modules, imported before the task id is looked up: that is how a file
registers a task of its own (``mase.register``) for the configuration to run.

TOML is read by the standard library (:mod:`tomllib`), so a configuration needs nothing more
installed.
"""

from __future__ import annotations

import ast
import difflib
import importlib
import importlib.util
import json
import sys
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

_TEXT, _FLAG, _WHOLE, _NUMBER = (str,), (bool,), (int,), (int, float)

#: The keys that are plain values, and the TOML types each may hold (``env_args``,
#: ``modules``, ``team`` and ``row_model`` are checked on their own).
KINDS: dict[str, tuple[type, ...]] = {
    "env": _TEXT,
    "no_messages": _FLAG,
    "preset": _TEXT,
    "episodes": _WHOLE,
    "seed": _WHOLE,
    "out": _TEXT,
    "resume": _FLAG,
    "quiet": _FLAG,
    "concurrency": _WHOLE,
    "backend": _TEXT,
    "address": _TEXT,
    "probes": _FLAG,
    "probe_rate": _NUMBER,
    "belief_state": _FLAG,
    "record": _FLAG,
    "unconfined_sandbox": _FLAG,
    "model": _TEXT,
    "base_url": _TEXT,
    "no_cache": _FLAG,
    "cache": _TEXT,
    "timeout": _NUMBER,
    "max_tokens": _WHOLE,
    "temperature": _NUMBER,
    "prices": _TEXT,
    "offline": _FLAG,
    "local": _TEXT,
    "latency": _NUMBER,
    "error_rate_429": _NUMBER,
    "error_rate_500": _NUMBER,
    "timeout_rate": _NUMBER,
    "malformed_rate": _NUMBER,
    "empty_rate": _NUMBER,
    "long_rate": _NUMBER,
    "fault_seed": _WHOLE,
}

#: Keys whose ``mase eval`` option has another name: key -> the option's argparse ``dest``.
OPTION_OF = {"env_args": "env_arg"}


def parse_env_arg(text: str) -> tuple[str, Any]:
    """One ``KEY=VALUE`` task argument, as ``--env-arg`` takes it on every command.

    The value is JSON when it parses as JSON (``5``, ``true``, ``null``, ``[1, 2]``,
    ``{"a": 1}``), else a Python literal (``True``, ``None``, ``(1, 2)``), else the text
    itself; ``True``/``FALSE`` in any case are booleans, as a shell user writes them.

    >>> parse_env_arg("max_cycles=20"), parse_env_arg("layout=random")
    (('max_cycles', 20), ('layout', 'random'))
    >>> parse_env_arg('task_kwargs={"target": 10}')
    ('task_kwargs', {'target': 10})

    Raises:
        ValueError: no ``=``, or nothing before it.
    """
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise ValueError(f"expected KEY=VALUE, got {text!r}")
    if value.lower() in ("true", "false"):
        return key, value.lower() == "true"
    try:
        return key, json.loads(value)
    except ValueError:
        pass
    try:
        return key, ast.literal_eval(value)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return key, value


def import_modules(modules: Iterable[str], folder: str | Path = ".") -> None:
    """Import each of ``modules``: a ``.py`` file (relative to ``folder``) or a module name.

    A file is imported once a process under its own path, so a file that registers a task
    (``mase.register``) registers it once.

    Raises:
        FileNotFoundError: a file that is not there.
        ValueError: a module that cannot be imported (the message names it and why).
    """
    for entry in modules:
        if entry.endswith(".py"):
            path = (Path(folder) / entry).resolve()
            if not path.is_file():
                raise FileNotFoundError(f"no module file {path} (from modules: {entry!r})")
            name = f"mase_config_module_{abs(hash(str(path)))}_{path.stem}"
            if name in sys.modules:
                continue
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                del sys.modules[name]
                raise
            continue
        try:
            importlib.import_module(entry)
        except ImportError as exc:
            raise ValueError(f"cannot import the module {entry!r}: {exc}") from None


@dataclass
class RunConfig:
    """A run configuration file, read (module docstring).

    Attributes:
        env: the task id, or ``None``.
        env_args: the task's arguments.
        modules: Python files or modules to import first (files relative to the file's folder).
        team: the team specs, one a row (empty: the command's default).
        row_model: with a preset, each paper row's model (row -> model), or ``None``.
        options: every other key given, by its ``mase eval`` option's ``dest`` (:data:`KINDS`).
        path: the file it was read from.
    """

    env: str | None = None
    env_args: dict[str, Any] = field(default_factory=dict)
    modules: list[str] = field(default_factory=list)
    team: list[str] = field(default_factory=list)
    row_model: dict[str, str] | None = None
    options: dict[str, Any] = field(default_factory=dict)
    path: str = ""

    def __getattr__(self, name: str) -> Any:
        """An option by its key (``config.episodes``); ``None`` when the file does not set it."""
        if name in KINDS:
            return self.__dict__.get("options", {}).get(name)
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    @classmethod
    def keys(cls) -> list[str]:
        """Every key a run configuration may hold."""
        own = [f.name for f in fields(cls) if f.name not in ("options", "path")]
        return sorted({*own, *KINDS})

    @classmethod
    def from_file(cls, path: str | Path) -> RunConfig:
        """Read a TOML file.

        Raises:
            FileNotFoundError: no such file.
            ValueError: not TOML, a key this layout does not have (the message names it, the
                nearest known key and all of them), or a value of the wrong kind (the message
                names the file and the key).
        """
        path = Path(path)
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"{path}: not a TOML file: {exc}") from None
        _check_keys(path, data)
        for key, kinds in KINDS.items():
            value = data.get(key)
            if value is None:
                continue
            if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
                kind = (
                    "true or false"
                    if kinds == _FLAG
                    else "a " + " or ".join(k.__name__ for k in kinds)
                )
                raise ValueError(f"{path}: {key} must be {kind}, got {value!r}")
        env_args = data.get("env_args", {})
        if not isinstance(env_args, dict):
            raise ValueError(f"{path}: env_args must be a dict (a table), got {env_args!r}")
        team, modules = _text_list(path, data, "team"), _text_list(path, data, "modules")
        return cls(
            env=data.get("env"),
            env_args=dict(env_args),
            modules=modules,
            team=team,
            row_model=_row_model(path, data.get("row_model")),
            options={k: data[k] for k in KINDS if k in data and k != "env"},
            path=str(path),
        )

    def command_line(self) -> dict[str, Any]:
        """What the file sets, by ``mase eval``'s argparse ``dest`` (``env_args`` as pairs)."""
        given: dict[str, Any] = dict(self.options)
        if self.env:
            given["env"] = self.env
        if self.env_args:
            given[OPTION_OF["env_args"]] = list(self.env_args.items())
        if self.modules:
            folder = Path(self.path).parent if self.path else Path(".")
            given["modules"] = [str(folder / m) if m.endswith(".py") else m for m in self.modules]
        if self.team:
            given["team"] = list(self.team)
        if self.row_model:
            given["row_model"] = ",".join(f"{k}={v}" for k, v in self.row_model.items())
        return given


def _check_keys(path: Path, data: dict[str, Any]) -> None:
    known = RunConfig.keys()
    unknown = sorted(set(data) - set(known))
    if not unknown:
        return
    hints = []
    for key in unknown:
        near = difflib.get_close_matches(key.replace("-", "_"), known, n=1)
        if near:
            hints.append(f"{key!r}: did you mean {near[0]!r}?")
    if "api_key" in unknown:
        hints.append("the key comes only from OPENAI_API_KEY, never from a file")
    hint = f" ({'; '.join(hints)})" if hints else ""
    raise ValueError(
        f"{path}: unknown key(s) {unknown}{hint}; a run configuration has {', '.join(known)}"
    )


def _text_list(path: Path, data: dict[str, Any], key: str) -> list[str]:
    value = data.get(key, [])
    value = [value] if isinstance(value, str) else value
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        what = {"team": "a team spec", "modules": "a module or .py file"}[key]
        raise ValueError(f"{path}: {key} must be {what} or a list of them, got {value!r}")
    return list(value)


def _row_model(path: Path, value: Any) -> dict[str, str] | None:
    """``[row_model]`` as a table ROW = MODEL, or the option's ``"ROW=MODEL,..."`` text."""
    if value is None:
        return None
    if isinstance(value, str):
        pairs = [p.partition("=") for p in value.split(",") if p.strip()]
        value = (
            {k.strip(): v.strip() for k, sep, v in pairs if sep}
            if all(sep for _, sep, _ in pairs)
            else None
        )
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ValueError(f'{path}: row_model must be a table of ROW = "MODEL" (or "ROW=MODEL,...")')
    return dict(value)


__all__ = ["KINDS", "OPTION_OF", "RunConfig", "import_modules", "parse_env_arg"]
