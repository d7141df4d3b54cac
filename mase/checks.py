"""The conformance suite every MASE task passes: PettingZoo's and Gymnasium's own checkers.

A researcher who registers a new task runs :func:`check_task` on it and gets exactly the
checks the built-in tasks get in MASE's own tests.
"""

from __future__ import annotations

import functools
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

from mase.registry import make, make_parallel
from mase.spaces import OBS_MODES


def check_task(
    env_id: str,
    obs_modes: Sequence[str] = OBS_MODES,
    num_cycles: int = 100,
    **kwargs: Any,
) -> None:
    """Run every checker on ``env_id`` in each observation mode; raise on the first failure.

    PettingZoo's ``api_test``, ``parallel_api_test``, ``seed_test``, ``parallel_seed_test``,
    ``max_cycles_test`` and ``render_test`` on the multi-agent env, and Gymnasium's
    ``check_env`` on the single-agent view built by ``gymnasium.make``.

    Args:
        env_id: a registered MASE task id.
        obs_modes: the observation modes to check.
        num_cycles: cycles for the API and seed tests.
        **kwargs: task arguments used for every check.
    """
    for mode in obs_modes:
        aec = functools.partial(make, env_id, obs_mode=mode, **kwargs)
        par = functools.partial(make_parallel, env_id, obs_mode=mode, **kwargs)
        api_test(aec(), num_cycles=num_cycles)
        parallel_api_test(par(), num_cycles=num_cycles)
        seed_test(aec, num_cycles=num_cycles)
        parallel_seed_test(par, num_cycles=num_cycles)
        max_cycles_test(types.SimpleNamespace(env=aec, parallel_env=par))
        render_test(aec)
        single = gymnasium.make(env_id, obs_mode=mode, render_mode="ansi", **kwargs)
        check_env(single.unwrapped, skip_render_check=False)
        single.close()
