"""Language-model plumbing: configuration, the cached chat client, prices, the offline server.

>>> import mase
>>> from mase.llm import ChatClient, LLMConfig, offline_server
>>> task = mase.list_envs("mase", declaring="language_model")[0]  # a task with an offline model
>>> with offline_server(task) as server:
...     client = ChatClient(LLMConfig(base_url=server.base_url, cache=False))
...     reply = client.complete([{"role": "user", "content": "hello"}])
>>> reply.error is None and reply.text != ""  # a prompt it cannot read: still a safe reply
True
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from mase.llm.server import Faults, OfflineServer, Responder

if TYPE_CHECKING:
    from mase.llm.cache import CachedReply, ResponseCache, request_key
    from mase.llm.client import ChatClient, Completion
    from mase.llm.config import LLMConfig, LLMUnavailable
    from mase.llm.usage import DEFAULT_PRICES, cost_usd, load_prices, price_table

#: Names loaded on first use: the client pulls in ``openai`` (a second or so to import), and
#: ``import mase`` should not pay for it.
_LAZY = {
    "CachedReply": "mase.llm.cache",
    "ResponseCache": "mase.llm.cache",
    "request_key": "mase.llm.cache",
    "ChatClient": "mase.llm.client",
    "Completion": "mase.llm.client",
    "LLMConfig": "mase.llm.config",
    "LLMUnavailable": "mase.llm.config",
    "DEFAULT_PRICES": "mase.llm.usage",
    "cost_usd": "mase.llm.usage",
    "load_prices": "mase.llm.usage",
    "price_table": "mase.llm.usage",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'mase.llm' has no attribute {name!r}")


def offline_server(
    env_or_task: Any,
    faults: Faults | None = None,
    port: int = 0,
    host: str = "127.0.0.1",
    **options: Any,
) -> OfflineServer:
    """An offline server (not yet started) whose model is the task's scripted language model.

    Args:
        env_or_task: an env (possibly wrapped), or a registered task id.
        faults: misbehaviour to inject.
        port: port to bind; 0 picks a free one.
        host: address to bind (loopback by default).
        **options: more :class:`OfflineServer` arguments (``idle_timeout``, ``request_timeout``,
            ``max_connections``, ``workers``, ``model``).

    Raises:
        ValueError: the task has no offline language model (``language_model`` is unset).
    """
    from gymnasium.envs.registration import load_env_creator

    if isinstance(env_or_task, str):
        from mase.registry import make

        env = make(env_or_task)
        path = getattr(env.unwrapped, "language_model", None)
        env.close()
    else:
        path = getattr(env_or_task.unwrapped, "language_model", None)
    if path is None:
        raise ValueError(f"{env_or_task!r} has no offline language model (language_model)")
    return OfflineServer(load_env_creator(path), host=host, port=port, faults=faults, **options)


__all__ = [
    "DEFAULT_PRICES",
    "CachedReply",
    "ChatClient",
    "Completion",
    "Faults",
    "LLMConfig",
    "LLMUnavailable",
    "OfflineServer",
    "Responder",
    "ResponseCache",
    "cost_usd",
    "load_prices",
    "offline_server",
    "price_table",
    "request_key",
]
