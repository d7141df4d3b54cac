"""Policies: the protocol, random, a person, LLMs, and each task's named policies by name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gymnasium.envs.registration import load_env_creator

from mase.agents.base import Policy, PolicyProtocol
from mase.agents.human import HumanPolicy
from mase.agents.random import RandomPolicy


def _llm(
    arg: str | None, llm: Any = None, belief: bool | str = False, tools: bool = False
) -> PolicyProtocol:
    from mase.agents.llm import LLMAgent
    from mase.llm.config import LLMConfig

    config = llm if llm is not None else LLMConfig.from_env()
    if arg:
        config = config.replace(model=arg)
    return LLMAgent(config, belief=belief, tools=tools)


def _codeact(arg: str | None, llm: Any = None) -> PolicyProtocol:
    from mase.agents.codeact import CodeActAgent
    from mase.llm.config import LLMConfig

    config = llm if llm is not None else LLMConfig.from_env()
    if arg:
        config = config.replace(model=arg)
    return CodeActAgent(config)


#: Policies of every task: name -> factory taking the text after ``name:`` (a model, say);
#: the LLM factories (:data:`TAKES_LLM`) also take ``llm=`` (an :class:`mase.llm.LLMConfig`).
#: ``"scripted"`` and a task's own names (its ``policies``) are found on the task.
POLICIES: dict[str, Callable[..., PolicyProtocol]] = {
    "random": lambda arg: RandomPolicy(),
    "random-unmasked": lambda arg: RandomPolicy(use_mask=False),
    "human": lambda arg: HumanPolicy(),
    "llm": lambda arg, llm=None: _llm(arg, llm),
    "llm-belief": lambda arg, llm=None: _llm(arg, llm, belief=True),
    "llm-oracle-belief": lambda arg, llm=None: _llm(arg, llm, belief="oracle"),
    "llm-tools": lambda arg, llm=None: _llm(arg, llm, tools=True),
    "codeact": lambda arg, llm=None: _codeact(arg, llm),
}

#: Policies whose name takes nothing after a ``:``.
_NO_ARGUMENT = frozenset(("scripted", "random", "random-unmasked", "human"))

#: Policies configured by ``make_policy(..., llm=...)``.
TAKES_LLM = frozenset(("llm", "llm-belief", "llm-oracle-belief", "llm-tools", "codeact"))


def is_llm(name: str) -> bool:
    """Whether the policy name (``name`` or ``name:ARG``) puts a language model in the seat."""
    return name.partition(":")[0] in TAKES_LLM


def policy_names(env: Any = None) -> list[str]:
    """Names accepted by :func:`make_policy`: every task's, and ``env``'s own when given."""
    names = [*POLICIES, "scripted"]
    if env is not None:
        names += list(getattr(env.unwrapped, "policies", {}))
    return sorted(set(names))


def make_policy(name: str, env: Any, llm: Any = None) -> PolicyProtocol:
    """Build a policy by name for ``env``.

    ``"scripted"`` is the task's own scripted bot (``env.unwrapped.scripted_policy``);
    ``"random"`` (legal actions only), ``"random-unmasked"`` (any action) and ``"human"``
    work for every task; ``"llm"`` is an :class:`LLMAgent`, ``"llm-belief"`` one in belief
    mode, ``"llm-oracle-belief"`` one given the env's oracle belief each turn (an ablation),
    ``"llm-tools"`` one that may call the task's tools (:mod:`mase.tools`) before it replies,
    ``"codeact"`` a :class:`~mase.agents.codeact.CodeActAgent` (it writes and runs programs);
    ``"llm:MODEL"`` and the like choose the model. Any other name is one of the task's own
    (its env class's ``policies``: planners, trained checkpoints), with ``name:ARG`` passing
    ``ARG`` to it (a planner's budget, a checkpoint's path; ``mase list`` shows them).

    Args:
        name: the policy name, optionally ``name:ARG``.
        env: the env the policy will play.
        llm: the :class:`mase.llm.LLMConfig` of LLM policies (default: read from the
            environment, :meth:`mase.llm.LLMConfig.from_env`); other policies ignore it.

    Raises:
        ValueError: unknown name (the message lists the names this task knows).
    """
    kind, _, arg = name.partition(":")
    base = env.unwrapped
    if arg and kind in _NO_ARGUMENT:
        raise ValueError(f"{kind} takes no ':' argument, got {name!r}")
    if kind == "scripted":
        path = getattr(base, "scripted_policy", None)
        if path is None:
            raise ValueError(f"{type(base).__name__} has no scripted policy")
        return (load_env_creator(path) if isinstance(path, str) else path)()
    if kind in POLICIES:
        if kind in TAKES_LLM:
            return POLICIES[kind](arg or None, llm=llm)
        return POLICIES[kind](arg or None)
    own = getattr(base, "policies", {})
    if kind in own:
        return load_env_creator(own[kind])(arg or None)
    raise ValueError(
        f"unknown policy {name!r} for {type(base).__name__}; choose from "
        f"{', '.join(policy_names(env))}"
    )


def __getattr__(name: str) -> Any:
    # LLMAgent pulls in the openai client; importing mase should not
    if name == "LLMAgent":
        from mase.agents.llm import LLMAgent

        return LLMAgent
    if name == "CodeActAgent":
        from mase.agents.codeact import CodeActAgent

        return CodeActAgent
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "POLICIES",
    "CodeActAgent",
    "HumanPolicy",
    "LLMAgent",
    "Policy",
    "PolicyProtocol",
    "RandomPolicy",
    "is_llm",
    "make_policy",
    "policy_names",
]
