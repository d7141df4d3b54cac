"""Task registry: ``make``, ``make_parallel``, ``register`` and ``list_envs``.

MASE tasks live in gymnasium's own registry, so ``gymnasium.make(id)`` works for them. The
registered entry point is the single-agent view (:class:`mase.wrappers.SingleAgentEnv`),
because ``gymnasium.make`` accepts only ``gymnasium.Env`` objects; the multi-agent
constructor rides along in the spec's kwargs as ``aec_entry_point`` and :func:`make` builds
the PettingZoo env from it. One registration therefore serves both views. A registered
``obs_mode`` default is the multi-agent view's; it rides along as ``aec_obs_mode``, so that the
single-agent view keeps its own default (``"vector"``, which every RL library takes).
"""

from __future__ import annotations

import difflib
import inspect
import types
import typing
from collections.abc import Callable
from typing import Any

import gymnasium
from gymnasium.envs.registration import load_env_creator
from pettingzoo import AECEnv, ParallelEnv

from mase.parallel import ParallelView, refusal

SINGLE_AGENT_ENTRY_POINT = "mase.wrappers.single_agent:SingleAgentEnv"
_AEC_KEY = "aec_entry_point"
_AEC_OBS_MODE = "aec_obs_mode"  # a registered obs_mode: the AEC view's default, not gymnasium's


class UnknownEnvError(gymnasium.error.UnregisteredEnv, KeyError):
    """Raised for an id that names no registered MASE task."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class UnknownArgumentError(TypeError):
    """Raised for a keyword argument the task does not take (the message lists valid ones)."""


def register(id: str, entry_point: str | Callable[..., AECEnv], **defaults: Any) -> None:
    """Register a task so that ``mase.make(id)`` and ``gymnasium.make(id)`` both build it.

    Args:
        id: the task id, ``"namespace/Name-vN"`` (MASE's own use ``mase/``).
        entry_point: the AEC env class or factory, or its ``"module:attribute"`` path.
        **defaults: keyword arguments passed to the entry point unless overridden in ``make``.

    Example:
        >>> import mase
        >>> task = mase.list_envs("mase", declaring="tom_probes")[0]  # a task with probes
        >>> creator, _ = mase.registry.env_creator(task)
        >>> mase.register("demo/VectorOnly-v0", creator, obs_mode="vector")
        >>> "demo/VectorOnly-v0" in mase.list_envs()
        True
        >>> sorted(mase.make("demo/VectorOnly-v0").observation_space(creator().possible_agents[0]))
        ['action_mask', 'observation']
    """
    for key, instead in ((_AEC_KEY, "the constructor as entry_point"), (_AEC_OBS_MODE, "obs_mode")):
        if key in defaults:
            raise TypeError(f"{key!r} is reserved; pass {instead}")
    kwargs = {_AEC_KEY: entry_point, **defaults}
    if "obs_mode" in kwargs:
        kwargs[_AEC_OBS_MODE] = kwargs.pop("obs_mode")
    gymnasium.register(id=id, entry_point=SINGLE_AGENT_ENTRY_POINT, kwargs=kwargs)


def list_envs(namespace: str | None = None, declaring: str | None = None) -> list[str]:
    """Ids of every registered MASE task, sorted.

    Args:
        namespace: only ``namespace/...`` ids.
        declaring: only tasks whose env class sets this attribute (``"language_model"``: an
            offline model; ``"scripted_policy"``, ``"tom_probes"``, ``"policies"``).

    >>> import mase
    >>> all(i.startswith("mase/") for i in mase.list_envs("mase"))  # MASE's own tasks
    True
    >>> set(mase.list_envs("mase", declaring="language_model")) <= set(mase.list_envs("mase"))
    True
    """
    found = (i for i, spec in gymnasium.registry.items() if _AEC_KEY in spec.kwargs)
    ids = sorted(i for i in found if namespace is None or i.startswith(namespace + "/"))
    if declaring is not None:
        ids = [i for i in ids if getattr(env_creator(i)[0], declaring, None)]
    return ids


def env_creator(id: str) -> tuple[Callable[..., AECEnv], dict[str, Any]]:
    """The AEC constructor registered under ``id`` and its default kwargs."""
    spec = gymnasium.registry.get(id)
    if spec is None or _AEC_KEY not in spec.kwargs:
        known = list_envs()
        close = difflib.get_close_matches(id, known, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise UnknownEnvError(
            f"unknown MASE task id {id!r}.{hint} Registered tasks: {', '.join(known)}"
        )
    defaults = dict(spec.kwargs)
    if _AEC_OBS_MODE in defaults:
        defaults["obs_mode"] = defaults.pop(_AEC_OBS_MODE)
    return resolve_entry_point(defaults.pop(_AEC_KEY)), defaults


def resolve_entry_point(entry_point: str | Callable[..., AECEnv]) -> Callable[..., AECEnv]:
    """Load a ``"module:attribute"`` entry point, or return a callable unchanged."""
    return load_env_creator(entry_point) if isinstance(entry_point, str) else entry_point


def build(creator: Callable[..., AECEnv], kwargs: dict[str, Any], id: str = "") -> AECEnv:
    """Call ``creator(**kwargs)`` after checking every kwarg is one it accepts, of its type.

    The type is the constructor's annotation, where it is one of ``bool``, ``int``, ``float``,
    ``str``, a ``Literal`` or a union of those (``int | None``); other annotations are not
    judged. ``--env-arg max_cycles=abc`` is then one clear line, not a crash deep in a task.

    Raises:
        UnknownArgumentError: a kwarg the creator does not take.
        TaskArgumentError: a kwarg of the wrong type or value.
    """
    name = id or getattr(creator, "__name__", str(creator))
    params = inspect.signature(creator).parameters
    if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        unknown = sorted(set(kwargs) - set(params))
        if unknown:
            valid = ", ".join(sorted(n for n in params if n != "self"))
            raise UnknownArgumentError(
                f"{name} got unknown argument(s) {', '.join(unknown)}; valid arguments: {valid}"
            )
    hints = _hints(creator)
    for key, value in kwargs.items():
        hint = hints.get(key)
        if hint is not None and _fits(value, hint) is False:
            raise TaskArgumentError(f"{name}: {key} must be {_described(hint)}, got {value!r}")
    return creator(**kwargs)


class TaskArgumentError(ValueError):
    """Raised for a task argument of the wrong type or value (the message says which)."""


def _hints(creator: Callable[..., Any]) -> dict[str, Any]:
    """The resolved annotations of the creator's parameters (empty when they cannot be read)."""
    target = creator.__init__ if inspect.isclass(creator) else creator
    try:
        return typing.get_type_hints(target)
    except Exception:  # noqa: BLE001 - unresolvable annotations: nothing is judged
        return {}


def _fits(value: Any, hint: Any) -> bool | None:
    """Whether ``value`` fits ``hint`` (``None``: the hint is not one this judges)."""
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return value in typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        verdicts = [_fits(value, h) for h in typing.get_args(hint)]
        return None if None in verdicts and not any(verdicts) else any(verdicts)
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is str:
        return isinstance(value, str)
    return None


def _described(hint: Any) -> str:
    if typing.get_origin(hint) is typing.Literal:
        return "one of " + ", ".join(repr(v) for v in typing.get_args(hint))
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return " or ".join(_described(h) for h in typing.get_args(hint))
    names = {bool: "True or False", int: "a whole number", float: "a number", str: "text"}
    return names.get(hint, "None" if hint is type(None) else getattr(hint, "__name__", str(hint)))


def make(id: str, **kwargs: Any) -> AECEnv:
    """Build the multi-agent (PettingZoo AEC) env registered under ``id``.

    Raises:
        UnknownEnvError: ``id`` is not registered (the message lists the registered ids).
        UnknownArgumentError: a kwarg the task does not take (the message lists valid ones).
    """
    creator, defaults = env_creator(id)
    return build(creator, {**defaults, **kwargs}, id)


def make_parallel(id: str, **kwargs: Any) -> ParallelEnv:
    """Build the task as a PettingZoo ``ParallelEnv``: a step is a set of moves made at once.

    A secret phase (a vote, answers unseen until all are in) is one step, a round of an
    ``is_parallelizable`` task is one step, any other turn is a step of its own; seats that do
    not act in a step give an action that is ignored, and their ``action_mask`` allows only the
    first action, a wait (:mod:`mase.parallel` has the whole convention). The view checks each
    step's actions (:class:`mase.parallel.ParallelView`): one for every live agent, none for
    anyone else.

    The observation is the task's vector view and its action mask unless ``obs_mode`` is given
    (``"vector"``, as the Gymnasium view's): the spaces MARL libraries store (SuperSuit's
    vector conversions, TorchRL's ``PettingZooWrapper``). The text is one keyword away:
    ``obs_mode="both"`` or ``"text"``; :func:`make`'s AEC env keeps the task's own default.

    Raises:
        ValueError: the env has no parallel view (a plain AEC env with no MASE turn schedule
            whose metadata does not set ``is_parallelizable``); the message says why. Use
            :func:`make`.
    """
    creator, _ = env_creator(id)
    if "obs_mode" not in kwargs and "obs_mode" in inspect.signature(creator).parameters:
        kwargs["obs_mode"] = "vector"
    env = make(id, **kwargs)
    reason = refusal(env)
    if reason:
        env.close()
        raise ValueError(f"{id} has no parallel view: {reason}; use mase.make for the AEC env")
    return ParallelView(env)
