"""What a run was: the suite's version and commit, the libraries, the models, the wrappers.

:func:`run_provenance` is what :func:`mase.evaluate` writes under ``"provenance"`` in a run's
``config.json`` and ``summary.json``; :func:`provenance_lines` is what ``mase report`` prints
of it at its head. Nothing here holds a key: an endpoint is recorded in its public form
(:func:`mase.llm.config.public_url`, no ``user:password@``), and a model config's key is never
read.

The commit is recorded only when MASE runs from a git checkout (``git`` on the package's own
folder, with a timeout; no ``git``, no commit), with ``dirty`` when tracked files differ from
it. Library versions come from the installed distributions' metadata, so reading torch's
version does not import torch.
"""

from __future__ import annotations

import functools
import inspect
import json
import platform
import subprocess
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

#: Distributions always recorded (``None`` when one is not installed), and those recorded only
#: when installed (the RL extra's).
LIBRARIES = ("numpy", "gymnasium", "pettingzoo")
OPTIONAL_LIBRARIES = ("torch", "stable-baselines3", "sb3-contrib")

#: Seconds one ``git`` call may take before the commit is left out.
GIT_TIMEOUT = 5.0


def _version(distribution: str) -> str | None:
    try:
        return version(distribution)
    except PackageNotFoundError:
        return None


@functools.cache
def versions() -> dict[str, str | None]:
    """The versions of MASE, Python and the libraries a run depends on.

    >>> sorted(versions())[:3]
    ['gymnasium', 'mase', 'numpy']
    """
    import mase

    found: dict[str, str | None] = {
        "mase": _version("mase-suite") or mase.__version__,
        "python": platform.python_version(),
    }
    found.update({name: _version(name) for name in LIBRARIES})
    found.update({name: v for name in OPTIONAL_LIBRARIES if (v := _version(name))})
    return found


def _git(folder: Path, *args: str) -> str | None:
    """The output of ``git -C folder ARGS``, or ``None`` (no git, not a checkout, too slow)."""
    try:
        done = subprocess.run(
            ["git", "-C", str(folder), *args],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def git_commit(folder: str | None = None) -> dict[str, Any] | None:
    """The commit MASE's source is checked out at, or ``None`` when it is not a checkout.

    Args:
        folder: the package folder to ask about (default: the installed ``mase`` package's).
            It counts as a checkout only when git tracks its ``__init__.py``, so a package
            installed into a virtual environment inside some other repository names no commit.

    Returns:
        ``{"commit": SHA, "dirty": bool}``: ``dirty`` when tracked files differ from the commit.
        Asked afresh each call (three ``git`` calls), so a long session sees a new commit.
    """
    import mase

    where = Path(folder) if folder else Path(mase.__file__).resolve().parent
    if _git(where, "ls-files", "--error-unmatch", "__init__.py") is None:
        return None
    commit = _git(where, "rev-parse", "HEAD")
    if not commit:
        return None
    changes = _git(where, "status", "--porcelain", "--untracked-files=no")
    return {"commit": commit, "dirty": bool(changes)}


def _json_ready(value: Any) -> Any:
    """``value`` as JSON types; what JSON has no type for is its ``repr``."""
    return json.loads(json.dumps(value, default=repr))


def _target_name(target: Any) -> str:
    if isinstance(target, str):
        return target
    return f"{getattr(target, '__module__', '?')}:{getattr(target, '__qualname__', target)}"


def describe_wrapper(spec: Any, load: Callable[[Any], Any]) -> dict[str, Any]:
    """A wrapper spec as ``{"wrapper": "module:Name", "settings": {...}}``.

    The settings are every keyword the wrapper takes, with the value the spec gives or else
    the wrapper's default (a ``MessageChannel``'s ``topology``, a ``ToMProbe``'s ``rate``).

    Args:
        spec: a wrapper spec (:data:`mase.runner.evaluate.WrapperSpec`).
        load: turns the spec's target into the callable (strings are ``"module:attribute"``).
    """
    target, kwargs = spec if isinstance(spec, tuple) else (spec, {})
    settings: dict[str, Any] = {}
    try:
        parameters = list(inspect.signature(load(target)).parameters.values())[1:]  # not env
    except (TypeError, ValueError):  # a callable without a signature: only what was given
        parameters = []
    for p in parameters:
        if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is not p.empty:
            settings[p.name] = p.default
    settings.update(dict(kwargs))
    return {"wrapper": _target_name(target), "settings": _json_ready(settings)}


def _seat_model(policy: Any) -> dict[str, Any] | None:
    """The model and public endpoint of a seat's policy, if a language model plays it."""
    config = getattr(policy, "config", None)
    shown = getattr(config, "shown_endpoint", None)
    model = getattr(config, "model", None)
    if config is None or not callable(shown) or not isinstance(model, str):
        return None
    try:
        return {"model": model, "endpoint": str(shown())}
    except Exception:  # noqa: BLE001 - a policy's own config: what it cannot say is left out
        return {"model": model}


def describe_models(team: Mapping[str, Any]) -> dict[str, Any]:
    """The model of each seat a language model plays, from a built team.

    A seat whose policy depends on its dealt side (:class:`mase.agents.by_side.BySide`) gets
    one entry a side. Seats that no model plays are left out.
    """
    seats: dict[str, Any] = {}
    for seat, policy in team.items():
        by_side = getattr(policy, "policies", None)
        if isinstance(by_side, Mapping) and hasattr(policy, "side"):
            sides = {side: m for side, p in by_side.items() if (m := _seat_model(p))}
            if sides:
                seats[seat] = sides
        elif found := _seat_model(policy):
            seats[seat] = found
    return seats


def run_provenance(
    wrappers: Sequence[Any],
    load: Callable[[Any], Any],
    team: Mapping[str, Any] | None = None,
    about: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """What a run was, for ``config.json``: versions, commit, wrappers, model seats.

    Args:
        wrappers: every wrapper spec the env is built with, innermost first.
        load: how a spec's target is loaded (see :func:`describe_wrapper`).
        team: a built team (seat -> policy), for the model of each model seat.
        about: more the caller knows (``mase eval`` gives where its model seats' model runs).
    """
    record: dict[str, Any] = {"versions": dict(versions())}
    commit = git_commit()
    if commit:
        record["git"] = commit
    record["wrappers"] = [describe_wrapper(spec, load) for spec in wrappers]
    models = describe_models(team or {})
    if models:
        record["model_seats"] = models
    record.update(_json_ready(dict(about or {})))
    return record


def _models_line(seats: Mapping[str, Any]) -> str:
    """``gpt-4o at https://... (alpha, bravo)``: the seats of each model and endpoint."""
    by_model: dict[tuple[str, str], list[str]] = {}
    for seat, entry in seats.items():
        sides = entry.items() if "model" not in entry else [("", entry)]
        for side, found in sides:
            key = (found.get("model", "?"), found.get("endpoint", "?"))
            by_model.setdefault(key, []).append(f"{seat} if {side}" if side else seat)
    return "; ".join(f"{m} at {e} ({', '.join(s)})" for (m, e), s in by_model.items())


def _wrapper_text(entry: Any) -> str:
    if not isinstance(entry, Mapping):
        return str(entry)
    name = str(entry.get("wrapper", "?")).rpartition(":")[2]
    settings = entry.get("settings") or {}
    shown = ", ".join(f"{k}={json.dumps(v)}" for k, v in settings.items() if v is not None)
    return f"{name}({shown})" if shown else name


def suite_line(provenance: Mapping[str, Any]) -> str:
    """``mase 0.1.0 (git 4b7d8dc, dirty), python 3.12.3, numpy 2.4.6, ...``."""
    found = dict(provenance.get("versions") or {})
    head = f"mase {found.pop('mase', '?')}"
    git = provenance.get("git")
    if git:
        head += f" (git {git['commit'][:12]}{', dirty' if git.get('dirty') else ''})"
    return ", ".join([head, *(f"{k} {v}" for k, v in found.items() if v)])


def provenance_lines(summaries: Iterable[Mapping[str, Any]]) -> list[str]:
    """A few lines a run on what each run was (``mase report``'s head).

    The suite's line (version, commit, libraries) is said once when every run shares it. Runs
    made before provenance was recorded are left out (:func:`unrecorded_line` names them).
    """
    summaries = [s for s in summaries if s.get("provenance")]
    suites = {suite_line(s["provenance"]) for s in summaries}
    lines = [f"suite: {next(iter(suites))}"] if len(suites) == 1 else []
    for s in summaries:
        provenance = s["provenance"]
        lines.append(f"run {s.get('path', '?')} ({s.get('team', '?')}):")
        if len(suites) > 1:
            lines.append(f"  suite: {suite_line(provenance)}")
        if provenance.get("model_seats"):
            lines.append(f"  models: {_models_line(provenance['model_seats'])}")
        if provenance.get("served"):
            lines.append(f"  model seats: {provenance['served']}")
        shown = [_wrapper_text(w) for w in provenance.get("wrappers", [])]
        lines.append(f"  wrappers: {', '.join(shown) if shown else 'none'}")
        for resumed in s.get("resumed") or []:
            lines.append(f"  resumed with: {suite_line(resumed)}")
    return lines


def unrecorded_line(summaries: Iterable[Mapping[str, Any]]) -> str | None:
    """One line naming the runs whose summary holds no provenance, or ``None``."""
    missing = [str(s.get("path", "?")) for s in summaries if not s.get("provenance")]
    if not missing:
        return None
    return f"provenance not recorded (runs made before MASE recorded it): {', '.join(missing)}"


__all__ = [
    "describe_models",
    "describe_wrapper",
    "git_commit",
    "provenance_lines",
    "run_provenance",
    "suite_line",
    "unrecorded_line",
    "versions",
]
