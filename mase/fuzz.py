"""Fuzzing a task: every kind of input a policy, a model or an attacker may give, step by step.

:func:`fuzz_task` plays a task through a direct-topology :class:`mase.wrappers.MessageChannel`
with inputs drawn from a seeded generator (:func:`hostile_input`): samples of the action space,
the task's own legal actions in words with noise around them, integers from -1 to ``10**5000``,
floats (``nan``, ``inf``), ``None``, unicode with lone surrogates and control characters, long
pathological replies, containers and arrays, and dicts with messages and recipients of every
kind. It checks after every step that:

- nothing is raised but the two documented mistakes of a programmer's dict (a ``"to"`` that
  names no reachable teammate, or is not a name: ``ValueError``); every other input is a move
  or an invalid action with a reason;
- the observation of the agent to act next is in its space (Gymnasium's ``contains``: the
  vector in its box, the text in the shared charset and length);
- each invalid action's reason is text the agent can read;
- the knowledge tracker takes every step in, reading each message's claims, without raising.

``check_task`` runs a short fuzz on every task; ``benchmarks/fuzz.py`` runs a long one.
"""

from __future__ import annotations

import copy
import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mase.registry import make

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


@dataclass
class FuzzReport:
    """What a fuzz run did.

    Attributes:
        steps: inputs given (each one a step of the env).
        episodes: episodes started.
        invalid: steps the env counted as invalid actions.
        refused: dict inputs refused as a programmer's mistake (``ValueError``).
        kinds: inputs given, per kind.
        seconds: wall-clock time of the run.
    """

    steps: int = 0
    episodes: int = 0
    invalid: int = 0
    refused: int = 0
    kinds: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


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


def hostile_input(rng: np.random.Generator, env: Any, agent: str, size: int = 2_000) -> Any:
    """One input for ``agent``'s turn, of a random kind (:data:`KINDS`).

    Args:
        rng: the generator.
        env: the (wrapped) env, to sample its space and read its legal actions.
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
    said = legal[int(rng.integers(len(legal)))] if legal else _text(rng, 20)
    noise = _text(rng, int(rng.integers(0, 40)))
    forms = (
        said,
        f"Action selection: {said}\nMessage to Team: {noise}",
        f"{noise} Action selection: {said.upper()}",
        f"Message to Team: {said}",
        f"Action selection: {said}\nMessage to {_text(rng, 5)}: {noise}",
    )
    return forms[int(rng.integers(len(forms)))]


def _integer(rng: np.random.Generator, env: Any, agent: str, size: int) -> int:
    n = getattr(env.action_space(agent), "n", 10)
    choices = (-1, 0, int(n), int(n) + 1, 2**31, 2**63, -(2**70), 10**5000)
    return choices[int(rng.integers(len(choices)))]


def _number(rng: np.random.Generator, env: Any, agent: str, size: int) -> Any:
    choices = (math.nan, math.inf, -math.inf, 0.5, 1e300, np.float32(1.0), np.int64(1), True)
    return choices[int(rng.integers(len(choices)))]


def _nothing(rng: np.random.Generator, env: Any, agent: str, size: int) -> None:
    return None


def _unicode(rng: np.random.Generator, env: Any, agent: str, size: int) -> str:
    return _text(rng, int(rng.integers(0, size)))


def _pathological(rng: np.random.Generator, env: Any, agent: str, size: int) -> str:
    return PATHOLOGICAL[int(rng.integers(len(PATHOLOGICAL)))][: size * 10]


def _container(rng: np.random.Generator, env: Any, agent: str, size: int) -> Any:
    choices = (
        [],
        [1, 2],
        (0,),
        {3},
        b"go to room 3",
        np.zeros((2, 2)),
        np.array([1], dtype=np.int8),
        np.array(["x"]),
        object(),
    )
    return choices[int(rng.integers(len(choices)))]


def _dict(rng: np.random.Generator, env: Any, agent: str, size: int) -> dict:
    inner = [k for k in KINDS if k != "dict"]
    action = _INPUTS[inner[int(rng.integers(len(inner)))]](rng, env, agent, size)
    mates = [a for a in env.possible_agents if a != agent]
    to_choices = (None, mates[:1], mates, mates[0] if mates else None, 5, ["nobody"], [agent])
    to = to_choices[int(rng.integers(len(to_choices)))]
    given = {"action": action, "message": _unicode(rng, env, agent, size)}
    if to is not None:
        given["to"] = to
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
    "dict": _dict,
}
#: The kinds of input :func:`hostile_input` draws from.
KINDS = tuple(_INPUTS)


def fuzz_task(
    env_id: str, steps: int = 1_000, seed: int = 0, size: int = 2_000, **kwargs: Any
) -> FuzzReport:
    """Give ``steps`` hostile inputs to the task and check what it does with each.

    Args:
        env_id: a registered task id.
        steps: inputs to give, over as many episodes as it takes.
        seed: seeds the inputs and the episodes.
        size: the longest random text.
        **kwargs: task arguments.

    Raises:
        AssertionError: an input raised what it should not, an observation left its space, or
            an invalid action came without a readable reason (the message names the input).
    """
    from mase.wrappers import MessageChannel  # the wrappers import the task core, not back

    env = MessageChannel(make(env_id, **kwargs), topology="direct")
    base = env.unwrapped
    rng = np.random.default_rng(seed)
    report = FuzzReport()
    start = time.perf_counter()
    env.reset(seed=seed)
    report.episodes = 1
    while report.steps < steps:
        if not env.agents:
            env.reset(seed=seed + report.episodes)
            report.episodes += 1
            continue
        agent = env.agent_selection
        _, _, terminated, truncated, _ = env.last(observe=False)
        if terminated or truncated:
            env.step(None)
            continue
        kind, given = hostile_input(rng, env, agent, size)
        report.kinds[kind] = report.kinds.get(kind, 0) + 1
        report.steps += 1
        invalid_before = base.invalid_actions
        try:
            env.step(given)
        except ValueError as exc:
            if not (
                kind == "dict" and "to" in given and ("'to'" in str(exc) or "message" in str(exc))
            ):
                raise AssertionError(
                    f"{env_id}: {kind} input {given!r:.200} raised {exc!r}"
                ) from exc
            report.refused += 1
            continue
        except Exception as exc:
            raise AssertionError(f"{env_id}: {kind} input {given!r:.200} raised {exc!r}") from exc
        try:  # the knowledge tracker reads every message's claims: hostile text included
            base.knowledge()
        except Exception as exc:
            raise AssertionError(
                f"{env_id}: after {kind} input {given!r:.200}, reading who knows what raised "
                f"{exc!r}"
            ) from exc
        if base.invalid_actions > invalid_before:
            report.invalid += 1
            reason = base.infos.get(agent, {}).get("invalid_action") if agent in base.infos else ""
            if agent in base.infos and not (isinstance(reason, str) and reason.strip()):
                raise AssertionError(f"{env_id}: {kind} input {given!r:.200} gave no reason")
        if env.agents:  # what the next agent to act is shown
            other = env.agent_selection
            if not env.observation_space(other).contains(env.observe(other)):
                raise AssertionError(
                    f"{env_id}: after {kind} input {given!r:.200}, {other}'s observation left "
                    "its space"
                )
    report.seconds = time.perf_counter() - start
    return report
