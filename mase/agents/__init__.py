"""Policies: the protocol, random, scripted (per task), and a person at the terminal."""

from __future__ import annotations

import functools
from typing import Any

from gymnasium.envs.registration import load_env_creator

from mase.agents.base import Policy, PolicyProtocol
from mase.agents.human import HumanPolicy
from mase.agents.random import RandomPolicy

#: Policy names the CLI and the single-agent view understand, besides "scripted".
POLICIES = {
    "random": RandomPolicy,
    "random-unmasked": functools.partial(RandomPolicy, use_mask=False),
    "human": HumanPolicy,
}


def policy_names() -> list[str]:
    """Names accepted by :func:`make_policy`."""
    return sorted([*POLICIES, "scripted"])


def make_policy(name: str, env: Any) -> PolicyProtocol:
    """Build a policy by name for ``env``.

    ``"scripted"`` is the task's own scripted bot (``env.unwrapped.scripted_policy``);
    ``"random"`` (legal actions only), ``"random-unmasked"`` (any action) and ``"human"``
    work for every task.

    Raises:
        ValueError: unknown name (the message lists the known ones).
    """
    if name == "scripted":
        path = getattr(env.unwrapped, "scripted_policy", None)
        if path is None:
            raise ValueError(f"{type(env.unwrapped).__name__} has no scripted policy")
        return load_env_creator(path)()
    if name not in POLICIES:
        raise ValueError(f"unknown policy {name!r}; choose from {', '.join(policy_names())}")
    return POLICIES[name]()


__all__ = [
    "HumanPolicy",
    "Policy",
    "PolicyProtocol",
    "RandomPolicy",
    "make_policy",
    "policy_names",
]
