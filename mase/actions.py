"""Actions as policies give them: parsed text, dict actions split among wrappers, invalid input.

A policy's action may be a value of the task's kind (an index, a team, a number, a menu), text
that the task parses (:class:`ActionParse`), or a dict such as ``{"action": "go to room 3",
"message": "...", "belief": "..."}``. Each wrapper takes the keys it understands
(:func:`take_keys`) and passes the rest on; when only ``"action"`` is left, the bare action goes
to the task, so wrappers compose in any order. A key no wrapper took reaches the task, which
refuses it with :func:`unclaimed_keys`, naming the wrapper that takes it.
"""

from __future__ import annotations

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


class UsageError(Exception):
    """A programmer's misuse of the API, as opposed to a policy's bad move.

    Every error MASE documents for what a caller hands a task or a wrapper is one of these,
    with a message that names what to do instead: :class:`ResetNeeded` (a step before
    ``reset()`` or after the episode's end), :class:`AgentDone` (an action for an agent that
    is done, whose step is ``None``) and :class:`ActionDictError` (an action dict, a parallel
    step's mapping or a batch's actions that cannot be taken). Anything else a hostile input
    raises is a defect (:mod:`mase.fuzz` counts it as a crash). Each also derives from the
    built-in error it was raised as before, so ``except RuntimeError`` and the like still work.
    """


class ResetNeeded(UsageError, RuntimeError):  # noqa: N818 - it says what to do
    """A step (or a look) before ``reset()``, or a step after the episode ended."""


class AgentDone(UsageError, ValueError):  # noqa: N818 - it says what happened
    """An action other than ``None`` for an agent that is done (PettingZoo's dead step)."""


class ActionDictError(UsageError, TypeError, ValueError):
    """An action that cannot be taken as given: a programmer's mistake, refused before the turn.

    An action dict with keys no wrapper took, a ``"to"`` that names no reachable teammate or
    is not a name, a ``"message"`` that is not text; a parallel step's mapping that does not
    give every live agent exactly one action; a batch's actions that are not indices.
    """


def check_playing(env: Any) -> None:
    """Raise :class:`ResetNeeded` unless the task ``env`` (unwrapped) has an episode going on.

    Wrappers call it first thing in ``step``, so a step after the end is the same clear error
    under any stack of wrappers.
    """
    if not getattr(env, "_started", False):
        raise ResetNeeded("call reset() before step()")
    if not env.agents:
        raise ResetNeeded("the episode is over; call reset() to start a new one")


class _ShortRepr(reprlib.Repr):
    """reprlib's short repr; an object whose ``repr`` fails is named by its type.

    reprlib's own fallback shows a memory address, which differs between twin runs.
    """

    def repr_instance(self, x: Any, level: int) -> str:
        try:
            return super().repr_instance(x, level) if _repr_works(x) else f"a {_type_name(x)}"
        except Exception:  # noqa: BLE001
            return f"a {_type_name(x)}"


def _repr_works(x: Any) -> bool:
    try:
        return type(repr(x)) is str
    except Exception:  # noqa: BLE001 - a hostile __repr__ raises anything
        return False


_SHORT = _ShortRepr()
_SHORT.maxstring = _SHORT.maxother = 60
_SHORT.maxlong = 40


def brief(value: Any) -> str:
    """A short description of any value, for an error or a reason (never raises).

    Safe on any hostile object: an integer too long for ``str()``, a value whose ``__repr__``,
    ``__str__``, ``__format__``, ``__len__``, ``__eq__`` or ``__hash__`` raises, a container
    that holds itself. Every message that names a caller's input describes it with this.

    >>> brief(10**5000)
    'an integer of 5001 digits'
    >>> len(brief("x" * 100_000))
    60
    >>> class Hostile:
    ...     def __repr__(self):
    ...         raise RuntimeError("no")
    >>> brief(Hostile())
    'a Hostile'
    """
    try:
        if isinstance(value, int) and not isinstance(value, bool):
            n = int.__abs__(value)  # the C method: a subclass's own __abs__ is not called
            if n >= 10**18:
                return f"an integer of {_digits(n)} digits"  # str() refuses 4,301+ digits
        text = _SHORT.repr(value)
        if type(text) is str:
            return text
    except Exception:  # noqa: BLE001, S110 - a value whose repr fails is still described
        pass
    return f"a {_type_name(value)}"


def _type_name(value: Any) -> str:
    """The name of ``value``'s type, whatever its class pretends."""
    name = type.__dict__["__name__"].__get__(type(value))
    return name if type(name) is str else "value"


def _digits(n: int) -> int:
    """How many decimal digits ``n`` > 0 has, without ``str(n)``."""
    guess = int(n.bit_length() * 0.30102999566398120)  # log10(2)
    return guess + 1 if n >= 10**guess else guess


def plain_text(value: Any) -> str | None:
    """``value`` as an exact ``str`` when it is text, else ``None``.

    A ``str`` subclass is copied, so none of its own methods run later.
    """
    if type(value) is str:
        return value
    if isinstance(value, str):
        return str.__str__(value)
    return None


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
            index = _index(action)
        except Exception:  # noqa: BLE001 - whatever a hostile __index__ raises
            detail = f"{_type_name(action)} {brief(action)} is not an action index or text"
            raise InvalidAction("unparseable", detail) from None
        if not space.start <= index < space.start + space.n:
            if abs(index) >= 10**18:
                raise InvalidAction("unparseable", f"{brief(index)} is not an action index")
            raise InvalidAction("out_of_range", index)
        return index
    if isinstance(space, spaces.Box | spaces.MultiBinary | spaces.MultiDiscrete):
        action = _as_array(action, space)
    try:
        ok = bool(space.contains(action))
    except Exception:  # noqa: BLE001 - gymnasium lets OverflowError out; hostile objects anything
        ok = False
    if not ok:
        raise InvalidAction("unparseable", f"{brief(action)} is not an action of {space}")
    return action


def _index(action: Any) -> int:
    """An exact ``int`` of an integer input; ``TypeError`` for anything else.

    Only ``int`` (bools excluded by no one: ``True`` is index 1, as in Python), numpy
    integers and 0-d numpy integer arrays (as some RL loops pass) are indices; an ``int``
    subclass is read by ``int``'s own method.
    """
    if type(action) is int:
        return action
    if isinstance(action, int):
        return int.__int__(action)
    if isinstance(action, np.integer):
        return int(action)
    if type(action) is np.ndarray and action.ndim == 0 and action.dtype.kind in "iu":
        return int(action.item())
    raise TypeError("not an integer")


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
    except Exception:  # noqa: BLE001 - a hostile __array__ or __len__ raises anything
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
    """The error for an action dict that reached the task with keys no wrapper took.

    Keys of any type are named (sorted by their description, so keys of mixed types sort too).
    """
    keys = sorted((k for k in dict.keys(action) if not _is(k, "action")), key=_key_order)
    if not keys:
        return "the action dict is empty; give the action as {'action': ...}"
    names = [brief(k) for k in keys[:20]]
    if len(keys) > 20:
        names.append(f"and {len(keys) - 20} more")
    needs = sorted({ACTION_KEYS[k] for k in keys if type(k) is str and k in ACTION_KEYS})
    unknown = [brief(k) for k in keys if not (type(k) is str and k in ACTION_KEYS)][:20]
    parts = [f"the action dict's keys [{', '.join(names)}] were not taken by any wrapper"]
    if needs:
        parts.append(f"wrap the env with {' and '.join(needs)}")
    if unknown:
        parts.append(
            f"unknown keys [{', '.join(unknown)}] (known: 'action', "
            f"{', '.join(map(repr, ACTION_KEYS))})"
        )
    return "; ".join(parts)


def _is(key: Any, name: str) -> bool:
    """Whether ``key`` is the exact string ``name`` (a hostile key's ``__eq__`` never runs)."""
    return type(key) is str and key == name


def _key_order(key: Any) -> tuple[str, str]:
    """A sort key for dict keys of any type: the type's name, then the key's description."""
    return _type_name(key), brief(key)


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
    items = dict.items(action)  # a dict subclass's own items() is not called
    # only an exact str key is compared: a hostile key's __eq__ never runs
    taken = {k: v for k, v in items if type(k) is str and k in keys}
    rest = {k: v for k, v in items if not (type(k) is str and k in keys)}
    if all(_is(k, "action") for k in rest):
        return taken, next(iter(rest.values()), None)
    return taken, rest


def bare_action(action: dict) -> Any:
    """The action of a dict that holds only ``"action"``; :class:`ActionDictError` otherwise.

    What the task does with a dict that reached it: every wrapper has taken its keys.
    """
    items = list(dict.items(action))
    if len(items) == 1 and _is(items[0][0], "action"):
        return items[0][1]
    raise ActionDictError(unclaimed_keys(action))


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
