"""Policies: the protocol, random, scripted (per task), a person, LLMs, the baselines by name."""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from typing import Any

from gymnasium.envs.registration import load_env_creator

from mase.agents.base import Policy, PolicyProtocol
from mase.agents.human import HumanPolicy
from mase.agents.random import RandomPolicy


def shipped_checkpoint(name: str) -> str:
    """Path of a trained model shipped with MASE (``mase/baselines/checkpoints/NAME``)."""
    path = resources.files("mase.baselines").joinpath("checkpoints", name)
    if not path.is_file():
        raise FileNotFoundError(f"no shipped checkpoint {name!r}; train one with `mase train`")
    return str(path)


def _mappo(arg: str | None) -> PolicyProtocol:
    from mase.baselines.mappo import MAPPOPolicy

    return MAPPOPolicy.load(arg or shipped_checkpoint("mappo_search_rescue.pt"))


def _sb3(arg: str | None) -> PolicyProtocol:
    from mase.baselines.sb3 import SB3Policy

    return SB3Policy.load(arg or shipped_checkpoint("sb3_ppo_search_rescue.zip"))


def _cbs(arg: str | None) -> PolicyProtocol:
    from mase.baselines.cbs import CBSPolicy

    if arg is None:
        return CBSPolicy()
    if not arg.isdigit():
        raise ValueError(f"cbs:N takes a node budget (a whole number), got {arg!r}")
    return CBSPolicy(node_budget=int(arg))


def _llm(arg: str | None, llm: Any = None, belief: bool | str = False) -> PolicyProtocol:
    from mase.agents.llm import LLMAgent
    from mase.llm.config import LLMConfig

    config = llm if llm is not None else LLMConfig.from_env()
    if arg:
        config = config.replace(model=arg)
    return LLMAgent(config, belief=belief)


#: Policy names -> factories taking the text after ``name:`` (a checkpoint path, say); the
#: LLM factories (:data:`_TAKES_LLM`) also take ``llm=`` (an :class:`mase.llm.LLMConfig`).
POLICIES: dict[str, Callable[..., PolicyProtocol]] = {
    "random": lambda arg: RandomPolicy(),
    "random-unmasked": lambda arg: RandomPolicy(use_mask=False),
    "human": lambda arg: HumanPolicy(),
    "cbs": _cbs,
    "mappo": _mappo,
    "sb3-ppo": _sb3,
    "llm": lambda arg, llm=None: _llm(arg, llm),
    "llm-belief": lambda arg, llm=None: _llm(arg, llm, belief=True),
    "llm-oracle-belief": lambda arg, llm=None: _llm(arg, llm, belief="oracle"),
}

#: Policies configured by ``make_policy(..., llm=...)``.
_TAKES_LLM = frozenset(("llm", "llm-belief", "llm-oracle-belief"))


def policy_names() -> list[str]:
    """Names accepted by :func:`make_policy`."""
    return sorted([*POLICIES, "scripted"])


def make_policy(name: str, env: Any, llm: Any = None) -> PolicyProtocol:
    """Build a policy by name for ``env``.

    ``"scripted"`` is the task's own scripted bot (``env.unwrapped.scripted_policy``);
    ``"random"`` (legal actions only), ``"random-unmasked"`` (any action) and ``"human"``
    work for every task; ``"cbs"`` is the optimal planner (``"cbs:N"`` caps its exact search
    at N node expansions); ``"mappo"`` and ``"sb3-ppo"``
    load the checkpoints shipped for search and rescue, and ``"mappo:PATH"`` /
    ``"sb3-ppo:PATH"`` load your own. ``"llm"`` is an :class:`LLMAgent` and
    ``"llm-belief"`` one in belief mode, ``"llm-oracle-belief"`` one given the env's oracle
    belief each turn (an ablation); ``"llm:MODEL"`` and the like choose the model.

    Args:
        name: the policy name, optionally ``name:ARG``.
        env: the env the policy will play.
        llm: the :class:`mase.llm.LLMConfig` of LLM policies (default: read from the
            environment, :meth:`mase.llm.LLMConfig.from_env`); other policies ignore it.

    Raises:
        ValueError: unknown name (the message lists the known ones).
    """
    kind, _, arg = name.partition(":")
    if kind == "scripted":
        path = getattr(env.unwrapped, "scripted_policy", None)
        if path is None:
            raise ValueError(f"{type(env.unwrapped).__name__} has no scripted policy")
        return load_env_creator(path)()
    if kind not in POLICIES:
        raise ValueError(f"unknown policy {name!r}; choose from {', '.join(policy_names())}")
    if kind in _TAKES_LLM:
        return POLICIES[kind](arg or None, llm=llm)
    return POLICIES[kind](arg or None)


def __getattr__(name: str) -> Any:
    # LLMAgent pulls in the openai client; importing mase should not
    if name == "LLMAgent":
        from mase.agents.llm import LLMAgent

        return LLMAgent
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "HumanPolicy",
    "LLMAgent",
    "Policy",
    "PolicyProtocol",
    "RandomPolicy",
    "make_policy",
    "policy_names",
    "shipped_checkpoint",
]
