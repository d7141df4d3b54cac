"""Actions as policies give them: parsed text, dict actions split among wrappers, invalid input.

A policy's action may be a value of the task's kind (an index, a team, a number, a menu), text
that the task parses (:class:`ActionParse`), or a dict such as ``{"action": "go to room 3",
"message": "...", "belief": "..."}``. Each wrapper takes the keys it understands
(:func:`take_keys`) and passes the rest on; when only ``"action"`` is left, the bare action goes
to the task, so wrappers compose in any order. A key no wrapper took reaches the task, which
refuses it with :func:`unclaimed_keys`, naming the wrapper that takes it.
"""

from __future__ import annotations

import operator
import reprlib
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple, TypeVar

import numpy as np
from gymnasium import spaces

W = TypeVar("W")


class ActionParse(NamedTuple):
    """What a task made of a text reply.

    Attributes:
        action: the action (of the task's kind), or ``None`` when the text names no legal one.
        reason: why ``action`` is ``None`` (empty when it is not), in words the agent can act on.
        message: the first message part of the reply, if any (``TaskEnv.read_action`` fills it;
            a task's ``parse_action`` sees only the action part).
    """

    action: Any
    reason: str = ""
    message: str | None = None


class InvalidAction(Exception):  # noqa: N818 - it is an outcome, not a failure of the program
    """Raised by a task's ``check_action`` or ``apply`` for input that is not a legal move.

    The task core turns it into an ``invalid`` event for the actor, with the reason in
    ``infos[agent]["invalid_action"]``; the turn is spent. Raise it before changing any state.

    Args:
        code: a short reason code, in the task's words (``"out_of_range"``, ``"team_size"``).
        detail: what was given or what is wrong (the event's note is ``code:detail``).
    """

    def __init__(self, code: str, detail: Any = ""):
        super().__init__(f"{code}:{detail}")
        self.code = code
        self.detail = detail


_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 60
_SHORT.maxlong = 40


def brief(value: Any) -> str:
    """A short description of any value for a reason an agent reads (never fails).

    >>> brief(10**5000)
    'an integer of 5001 digits'
    >>> len(brief("x" * 100_000))
    60
    """
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**18:
        return f"an integer of {_digits(abs(value))} digits"  # str() refuses 4,301+ digits
    try:
        return _SHORT.repr(value)
    except Exception:  # noqa: BLE001 - a value whose repr fails is still described
        return f"a {type(value).__name__}"


def _digits(n: int) -> int:
    """How many decimal digits ``n`` > 0 has, without ``str(n)``."""
    guess = int(n.bit_length() * 0.30102999566398120)  # log10(2)
    return guess + 1 if n >= 10**guess else guess


def read_value(space: spaces.Space, action: Any) -> Any:
    """``action`` as a value of ``space``, or :class:`InvalidAction` saying why it is not one.

    A ``Discrete`` space takes ints and numpy integers (not floats, whose ``int`` would quietly
    pick another action, nor ``None``) in its range: the reason codes are ``unparseable`` and
    ``out_of_range``. ``Box``, ``MultiBinary`` and ``MultiDiscrete`` spaces take numbers and
    lists made into an array of their dtype and shape (integer spaces whole numbers only);
    every space then takes what its ``contains`` accepts.
    """
    if isinstance(space, spaces.Discrete):
        try:
            index = operator.index(action)
        except TypeError:
            detail = f"{type(action).__name__} {brief(action)} is not an action index or text"
            raise InvalidAction("unparseable", detail) from None
        if not space.start <= index < space.start + space.n:
            if abs(index) >= 10**18:
                raise InvalidAction("unparseable", f"{brief(index)} is not an action index")
            raise InvalidAction("out_of_range", index)
        return index
    if isinstance(space, spaces.Box | spaces.MultiBinary | spaces.MultiDiscrete):
        action = _as_array(action, space)
    try:
        ok = space.contains(action)
    except (TypeError, ValueError, OverflowError):  # gymnasium 1.2 lets OverflowError out
        ok = False
    if not ok:
        raise InvalidAction("unparseable", f"{brief(action)} is not an action of {space}")
    return action


def _as_array(action: Any, space: spaces.Space) -> Any:
    """``action`` as an array of the space's dtype and shape, when it is one.

    A plain number for a one-element Box, a list, another dtype are taken; anything else comes
    back unchanged, for ``contains`` to refuse. Integer spaces take only whole numbers.
    """
    try:
        raw = np.asarray(action)
        if raw.dtype.kind not in "biuf" or raw.size != int(np.prod(space.shape)):
            return action
        array = raw.astype(space.dtype).reshape(space.shape)
    except (TypeError, ValueError):
        return action
    whole = np.array_equal(array, raw.reshape(space.shape))
    if np.issubdtype(space.dtype, np.integer) and not whole:
        return action  # 0.7 is not a choice of 0 or 1
    return array


#: The wrapper that takes each key of an action dict.
ACTION_KEYS = {
    "message": "mase.wrappers.MessageChannel",
    "to": "mase.wrappers.MessageChannel",
    "belief": "mase.wrappers.BeliefState",
}


def unclaimed_keys(action: dict) -> str:
    """The error for an action dict that reached the task with keys no wrapper took."""
    keys = sorted(k for k in action if k != "action")
    needs = sorted({ACTION_KEYS[k] for k in keys if k in ACTION_KEYS})
    unknown = [k for k in keys if k not in ACTION_KEYS]
    parts = [f"the action dict's keys {keys} were not taken by any wrapper"]
    if needs:
        parts.append(f"wrap the env with {' and '.join(needs)}")
    if unknown:
        parts.append(
            f"unknown keys {unknown} (known: 'action', {', '.join(map(repr, ACTION_KEYS))})"
        )
    return "; ".join(parts)


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


def wrappers(env: Any) -> Iterator[Any]:
    """Every wrapper around the task, outermost first (the task itself is not included)."""
    base = getattr(env, "unwrapped", env)
    while env is not base and hasattr(env, "env"):
        yield env
        env = env.env


def find_wrapper(env: Any, cls: type[W]) -> W | None:
    """The outermost wrapper of type ``cls`` around ``env``, or ``None``."""
    return next((w for w in wrappers(env) if isinstance(w, cls)), None)


def takes_key(env: Any, key: str) -> bool:
    """Whether a wrapper around ``env`` takes ``key`` of action dicts (its ``action_keys``)."""
    return any(key in getattr(type(w), "action_keys", ()) for w in wrappers(env))
