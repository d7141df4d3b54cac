"""The conformance suite every MASE task passes: PettingZoo's and Gymnasium's own checkers.

A researcher who registers a new task runs :func:`check_task` on it and gets exactly the
checks the built-in tasks get in MASE's own tests.
"""

from __future__ import annotations

import functools
import inspect
import types
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import (
    api_test,
    max_cycles_test,
    parallel_api_test,
    parallel_seed_test,
    render_test,
    seed_test,
)

from mase.fuzz import fuzz_task
from mase.parallel import refusal
from mase.registry import env_creator, make, make_parallel
from mase.spaces import OBS_MODES


def check_task(
    env_id: str,
    obs_modes: Sequence[str] = OBS_MODES,
    num_cycles: int = 100,
    fuzz_steps: int = 300,
    **kwargs: Any,
) -> None:
    """Run every checker on ``env_id`` in each observation mode; raise on the first failure.

    PettingZoo's ``api_test``, ``parallel_api_test``, ``seed_test``, ``parallel_seed_test``,
    ``max_cycles_test`` and ``render_test`` on the multi-agent env, Gymnasium's ``check_env``
    on the single-agent view built by ``gymnasium.make``, and a short fuzz of hostile inputs
    (:func:`mase.fuzz.fuzz_task`).

    Every MASE task has a parallel view (:mod:`mase.parallel`: a step is a set of moves made
    at once), so ``parallel_api_test`` and ``parallel_seed_test`` run on each; a plain AEC env
    without one (:func:`mase.parallel.refusal`) skips them. ``max_cycles_test`` counts a
    parallel step as a round, so it runs only where a step is a whole round (the task's
    metadata sets ``is_parallelizable``) and the task's constructor takes ``max_cycles``.

    Args:
        env_id: a registered MASE task id.
        obs_modes: the observation modes to check.
        num_cycles: cycles for the API and seed tests.
        fuzz_steps: hostile inputs given by :func:`mase.fuzz.fuzz_task` (in the first mode).
        **kwargs: task arguments used for every check.
    """
    creator, _ = env_creator(env_id)
    params = inspect.signature(creator).parameters.values()
    takes_max_cycles = any(
        p.name == "max_cycles" or p.kind is inspect.Parameter.VAR_KEYWORD for p in params
    )
    for mode in obs_modes:
        aec = functools.partial(make, env_id, obs_mode=mode, **kwargs)
        par = functools.partial(make_parallel, env_id, obs_mode=mode, **kwargs)
        env = aec()
        parallel = not refusal(env)
        rounds = parallel and bool(env.metadata.get("is_parallelizable", False))
        api_test(env, num_cycles=num_cycles)
        if parallel:
            parallel_api_test(par(), num_cycles=num_cycles)
        seed_test(aec, num_cycles=num_cycles)
        if parallel:
            parallel_seed_test(par, num_cycles=num_cycles)
        if rounds and takes_max_cycles:
            max_cycles_test(types.SimpleNamespace(env=aec, parallel_env=par))
        render_test(aec)
        single = gymnasium.make(env_id, obs_mode=mode, render_mode="ansi", **kwargs)
        check_env(single.unwrapped, skip_render_check=False)
        single.close()
        if fuzz_steps and mode == obs_modes[0]:
            fuzz_task(env_id, steps=fuzz_steps, obs_mode=mode, **kwargs)


# -- information parity between the views (mase.layout) -----------------------------------------


class ParityError(AssertionError):
    """The two views of an observation disagree, or a vector number is read by nothing."""


class _Teller:
    """A random legal move, with a message stating some of the world's facts (right or not)."""

    def __init__(self, seed: int):
        from mase.agents import RandomPolicy

        self.inner = RandomPolicy(seed)
        self.rng = np.random.default_rng(seed)

    def reset(self, agent: str, env: Any, seed: int | None = None) -> None:
        self.inner.reset(agent, env, seed)
        self.env = env

    def act(self, observation: Any, info: dict) -> Any:
        action = self.inner.act(observation, info)
        base = self.env.unwrapped
        try:
            facts = list(base.true_facts().items())
            said = base.facts_text(
                dict(facts[i] for i in self.rng.permutation(len(facts))[: self.rng.integers(4)])
            )
        except (NotImplementedError, RuntimeError):
            return action
        return {"action": action, "message": said} if said else action


def _difference(text: dict, vector: dict) -> list[str]:
    lines = [f"only the text states {k!r}: {text[k]!r}" for k in text if k not in vector]
    lines += [f"only the vector holds {k!r}: {vector[k]!r}" for k in vector if k not in text]
    lines += [
        f"{k!r}: the text states {text[k]!r}, the vector holds {vector[k]!r}"
        for k in text
        if k in vector and not _same(text[k], vector[k])
    ]
    return sorted(lines, key=repr)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        try:
            return bool(np.isclose(float(a), float(b), atol=1e-6))
        except (TypeError, ValueError):
            return False
    return a == b


def _flipped(vector: np.ndarray, i: int) -> np.ndarray:
    out = vector.copy()
    out[i] = 1.0 if vector[i] < 0.5 else 0.0
    return out


def _reads(base: Any, agent: str, vector: np.ndarray, i: int, decoded: dict) -> bool:
    try:
        return base.vector_knowledge(agent, _flipped(vector, i)) != decoded
    except (ValueError, KeyError, IndexError):  # not a vector the task writes: it was read
        return True


def _check_every_number_is_read(env_id: str, base: Any, samples: dict) -> None:
    for agent, seen in samples.items():
        layout = base.vector_layout(agent)
        dead = []
        for block in layout:
            s = layout.slices[block.name]
            for i in range(s.start, s.stop):
                if not any(_reads(base, agent, v, i, d) for v, d in seen):
                    dead.append(f"{block.name}[{i - s.start}]")
        if dead:
            raise ParityError(
                f"{env_id}: {agent}'s vector numbers {', '.join(dead[:8])}"
                f"{' ...' if len(dead) > 8 else ''} change nothing vector_knowledge reads"
            )


def check_parity(
    env_id: str, episodes: int = 6, seed: int = 0, max_turns: int = 400, **kwargs: Any
) -> int:
    """Check that each seat's vector observation carries exactly what its text states.

    Plays ``episodes`` seeded episodes behind a :class:`mase.wrappers.MessageChannel`: even
    ones with random legal moves whose messages state some of the world's facts in the task's
    own sentences, odd ones with the task's scripted team (random where it has none). After
    every step, for every live seat, the facts its text observation states
    (``text_knowledge``) must equal the facts its vector holds (``vector_knowledge``), and the
    vector must be as long as ``vector_layout`` says. At the end every number of every
    layout must matter: on some observation, changing it changes what is decoded (or makes it
    no vector the task writes). Returns the number of observations compared.

    Raises:
        ParityError: the first disagreement, with the episode, turn, seat and the facts.
    """
    from mase.agents import make_policy
    from mase.wrappers import MessageChannel

    compared, samples, base = 0, {}, None
    for episode in range(episodes):
        env = MessageChannel(make(env_id, obs_mode="both", **kwargs))
        base = env.unwrapped
        scripted = episode % 2 == 1 and base.scripted_policy is not None
        team = {
            a: make_policy("scripted", env) if scripted else _Teller(seed * 1000 + episode * 31 + i)
            for i, a in enumerate(env.possible_agents)
        }
        env.reset(seed=seed + episode)
        for i, (agent, policy) in enumerate(team.items()):
            policy.reset(agent, env, seed=seed + episode * 31 + i)
        for turn, agent in enumerate(env.agent_iter(max_turns)):
            compared += _compare_views(env_id, base, episode, turn, samples)
            obs, _, terminated, truncated, info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(team[agent].act(obs, info))
        env.close()
    if not compared:
        raise ParityError(f"{env_id}: no observation was compared")
    _check_every_number_is_read(env_id, base, samples)
    return compared


def _compare_views(env_id: str, base: Any, episode: int, turn: int, samples: dict) -> int:
    compared = 0
    for agent in list(base.agents):
        obs = base.observe(agent)
        vector, text = obs["observation"], obs["text"]
        layout = base.vector_layout(agent)
        if layout.size != vector.shape[-1]:
            raise ParityError(
                f"{env_id}: {agent}'s layout holds {layout.size} numbers, its vector "
                f"{vector.shape[-1]}"
            )
        stated = base.text_knowledge(agent, text)
        held = base.vector_knowledge(agent, vector)
        difference = _difference(stated, held)
        if difference:
            raise ParityError(
                f"{env_id}, episode {episode}, turn {turn}, {agent}: the views disagree:\n  "
                + "\n  ".join(difference[:10])
                + f"\n--- the text ---\n{text}"
            )
        seen = samples.setdefault(agent, [])
        if len(seen) < 12 or (turn + episode) % 7 == 0:
            seen.append((vector, held))
            if len(seen) > 40:
                seen.pop(1)
        compared += 1
    return compared
