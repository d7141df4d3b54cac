"""Hostile inputs: every kind of value a policy, a model or an attacker may hand a task.

:func:`hostile_input` draws one input of a random kind (:data:`KINDS`) from a seeded generator:
samples of the action space, the task's own legal actions in words with noise around them,
integers from -1 to ``10**5000``, floats (``nan``, ``inf``), ``None``, unicode with lone
surrogates and control characters, long pathological replies, containers and arrays, objects
whose every method raises (``__repr__``, ``__str__``, ``__format__``, ``__len__``, ``__eq__``,
``__hash__``, ``__index__``, ``__iter__``, ``__bool__``, ``__array__``), ``str`` and ``int``
subclasses that raise, a list that holds itself and a list nested a thousand deep, and action
dicts: messages and recipients of every kind (huge integers, bytes, ``nan``, raising objects,
nested containers), keys of mixed types and a key of 5,000 digits. :mod:`mase.fuzz` gives them
to every view of a task and judges what happens.

Which kinds may be refused with a clear error (:class:`mase.actions.UsageError`) is
:data:`MAY_REFUSE`: only dicts (a programmer's action dict); every other input must be a move
or an invalid action with a reason.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np

#: Replies that made a backtracking parser take minutes (each is cut to the length asked).
PATHOLOGICAL = (
    "go" + " " * 50_000 + "x",
    "go " * 20_000,
    "Message to " + "a, " * 20_000,
    "Message to Team: x " * 5_000,
    "Action selection: " * 5_000,
    "9" * 5_000,
    "inspect the bomb " * 5_000,
    '"' * 20_000,
    '\n- Alpha: "' * 5_000,
)


class _Refusal(Exception):
    """What a hostile object's methods raise: no error class a caller would catch."""


def _refuse(*_args: Any, **_kwargs: Any) -> Any:
    raise _Refusal("hostile")


class Hostile:
    """An object whose every method that a reader might call raises."""

    __repr__ = __str__ = __format__ = __len__ = __eq__ = __ne__ = __lt__ = _refuse
    __hash__ = __index__ = __int__ = __float__ = __iter__ = __bool__ = __array__ = _refuse
    __getitem__ = __contains__ = __getattr__ = _refuse


class HostileKey:
    """A dict key whose ``__eq__``, ``__repr__`` and ``__str__`` raise (its hash works)."""

    __repr__ = __str__ = __format__ = __eq__ = __ne__ = __lt__ = _refuse
    __hash__ = object.__hash__


class HostileStr(str):
    """Text whose own methods raise: a reader that calls them on the value crashes."""

    __repr__ = __str__ = __format__ = __len__ = __eq__ = __ne__ = __iter__ = _refuse
    __hash__ = str.__hash__
    strip = lower = upper = split = splitlines = find = startswith = replace = _refuse
    __getitem__ = __contains__ = encode = _refuse


class HostileInt(int):
    """An integer whose own methods raise (``int``'s C methods still read it)."""

    __repr__ = __str__ = __format__ = __index__ = __int__ = __eq__ = __lt__ = __abs__ = _refuse
    __hash__ = int.__hash__


def _recursive() -> list:
    loop: list = [1]
    loop.append(loop)
    return loop


def _deep(depth: int = 1_000) -> list:
    value: list = [0]
    for _ in range(depth):
        value = [value]
    return value


def _object_array() -> np.ndarray:
    array = np.empty(2, dtype=object)  # np.array() would ask the object for its length
    array[0], array[1] = Hostile(), 10**5000
    return array


def _text(rng: np.random.Generator, length: int) -> str:
    """Random unicode: letters, digits, punctuation, controls, emoji and lone surrogates."""
    pools = (
        (32, 127),
        (0, 32),
        (0x80, 0x800),
        (0xD800, 0xE000),  # lone surrogates: no UTF-8 encoding
        (0x1F300, 0x1F700),
    )
    out = []
    for _ in range(length):
        low, high = pools[int(rng.integers(len(pools)))]
        out.append(chr(int(rng.integers(low, high))))
    return "".join(out)


def _pick(rng: np.random.Generator, choices: Any) -> Any:
    return choices[int(rng.integers(len(choices)))]


def hostile_input(
    rng: np.random.Generator, env: Any, agent: str, size: int = 2_000
) -> tuple[str, Any]:
    """One input for ``agent``'s turn: ``(kind, value)``, the kind drawn from :data:`KINDS`.

    Args:
        rng: the generator.
        env: the (wrapped) AEC env, to sample its space and read its legal actions.
        agent: the agent to act.
        size: the longest random text (pathological replies are cut to ten times this).
    """
    kind = KINDS[int(rng.integers(len(KINDS)))]
    return kind, _INPUTS[kind](rng, env, agent, size)


def _sample(rng: np.random.Generator, env: Any, agent: str, size: int) -> Any:
    space = copy.deepcopy(env.action_space(agent))
    space.seed(int(rng.integers(2**31)))
    return space.sample()


def _words(rng: np.random.Generator, env: Any, agent: str, size: int) -> str:
    try:
        legal = env.unwrapped.legal_actions_text(agent)
    except NotImplementedError:
        legal = []
    said = _pick(rng, legal) if legal else _text(rng, 20)
    noise = _text(rng, int(rng.integers(0, 40)))
    forms = (
        said,
        f"Action selection: {said}\nMessage to Team: {noise}",
        f"{noise} Action selection: {said.upper()}",
        f"Message to Team: {said}",
        f"Action selection: {said}\nMessage to {_text(rng, 5)}: {noise}",
    )
    return _pick(rng, forms)


def _integer(rng: np.random.Generator, env: Any, agent: str, size: int) -> int:
    n = getattr(env.action_space(agent), "n", 10)
    return _pick(rng, (-1, 0, int(n), int(n) + 1, 2**31, 2**63, -(2**70), 10**5000))


def _number(rng: np.random.Generator, env: Any, agent: str, size: int) -> Any:
    return _pick(
        rng, (math.nan, math.inf, -math.inf, 0.5, 1e300, np.float32(1.0), np.int64(1), True, 1j)
    )


def _nothing(rng: np.random.Generator, env: Any, agent: str, size: int) -> None:
    return None


def _unicode(rng: np.random.Generator, env: Any, agent: str, size: int) -> str:
    return _text(rng, int(rng.integers(0, size)))


def _pathological(rng: np.random.Generator, env: Any, agent: str, size: int) -> str:
    return _pick(rng, PATHOLOGICAL)[: size * 10]


def _container(rng: np.random.Generator, env: Any, agent: str, size: int) -> Any:
    choices = (
        [],
        [1, 2],
        (0,),
        {3},
        {"action": {"action": 0}},
        b"go to room 3",
        bytearray(b"\xff\xfe"),
        np.zeros((2, 2)),
        np.array([1], dtype=np.int8),
        np.array(["x"]),
        _object_array(),
        object(),
        range(3),
    )
    return _pick(rng, choices)


def _hostile(rng: np.random.Generator, env: Any, agent: str, size: int) -> Any:
    choices = (Hostile, lambda: HostileStr("go to room 3"), lambda: HostileInt(1), _recursive)
    return _pick(rng, (*choices, _deep, lambda: [Hostile(), 1], lambda: (HostileInt(0),)))()


#: What an action dict's ``"message"`` may be: text, and everything that is not.
def _message(rng: np.random.Generator, env: Any, agent: str, size: int) -> Any:
    if rng.random() < 0.5:
        return _unicode(rng, env, agent, size)
    choices = (
        lambda: 10**5000,
        lambda: b"hello",
        lambda: math.nan,
        Hostile,
        lambda: HostileStr("a message"),
        lambda: ["nested", ["list", {"of": ("things",)}]],
        _recursive,
        lambda: None,
        lambda: "",
        lambda: 7,
    )
    return _pick(rng, choices)()


def _dict(rng: np.random.Generator, env: Any, agent: str, size: int) -> dict:
    inner = [k for k in KINDS if k != "dict"]
    action = _INPUTS[_pick(rng, inner)](rng, env, agent, size)
    mates = [a for a in env.possible_agents if a != agent]
    to = _pick(
        rng,
        (
            None,
            mates[:1],
            mates,
            mates[0] if mates else None,
            5,
            ["nobody"],
            [agent],
            [10**5000],
            HostileStr(mates[0] if mates else agent),
            [HostileStr(agent)],
            Hostile(),
            "x" * 20_000,
        ),
    )
    given: dict[Any, Any] = {"action": action, "message": _message(rng, env, agent, size)}
    if to is not None:
        given["to"] = to
    extra = int(rng.integers(8))
    if extra == 0:  # keys of mixed types
        given.update({1: 0, None: "x", (1, 2): 3, 2.5: "y", b"k": 1})
    elif extra == 1:
        given[10**5000] = 1  # a key too long for str()
    elif extra == 2:
        given[HostileKey()] = 1
    elif extra == 3:
        given = {"message": given["message"]}  # no action at all
    elif extra == 4:
        given = {}
    return given


_INPUTS = {
    "sample": _sample,
    "words": _words,
    "integer": _integer,
    "number": _number,
    "none": _nothing,
    "unicode": _unicode,
    "pathological": _pathological,
    "container": _container,
    "hostile": _hostile,
    "dict": _dict,
}
#: The kinds of input :func:`hostile_input` draws from.
KINDS = tuple(_INPUTS)
#: The kinds that a wrapper or the task may refuse with a clear error: a programmer's dicts.
MAY_REFUSE = frozenset({"dict"})
