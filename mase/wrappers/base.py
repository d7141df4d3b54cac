"""What MASE wrappers share: walking a wrapper chain, and splitting dict actions.

A policy may return an action dict such as ``{"action": "go to room 3", "message": "...",
"belief": "..."}``. Each wrapper takes the keys it understands (:func:`take_keys`) and passes
the rest on; when only ``"action"`` is left, the bare action goes to the task, so wrappers
compose in any order.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

W = TypeVar("W")


def wrappers(env: Any) -> Iterator[Any]:
    """Every wrapper around the task, outermost first (the task itself is not included)."""
    base = getattr(env, "unwrapped", env)
    while env is not base and hasattr(env, "env"):
        yield env
        env = env.env


def find_wrapper(env: Any, cls: type[W]) -> W | None:
    """The outermost wrapper of type ``cls`` around ``env``, or ``None``."""
    return next((w for w in wrappers(env) if isinstance(w, cls)), None)


def take_keys(action: Any, keys: Iterable[str]) -> tuple[dict[str, Any], Any]:
    """Split the ``keys`` out of a dict action.

    Returns:
        ``(taken, rest)``: the values of ``keys`` present in the action, and the action to
        pass on: the bare ``"action"`` value when nothing else is left, otherwise a dict of
        the remaining keys. A non-dict action is passed on unchanged with nothing taken.
    """
    if not isinstance(action, dict):
        return {}, action
    keys = set(keys)
    taken = {k: v for k, v in action.items() if k in keys}
    rest = {k: v for k, v in action.items() if k not in keys}
    if set(rest) <= {"action"}:
        return taken, rest.get("action")
    return taken, rest
