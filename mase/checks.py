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
