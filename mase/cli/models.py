"""Where the model seats of a command get their model: an endpoint, or the offline server.

The options of ``mase eval`` and ``mase play`` that configure model seats (``--model``,
``--base-url``, the cache, prices, ``--offline``) and the fault options of the offline server
(shared with ``mase serve``), checked against each other.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from typing import Any

#: Fault options of ``mase serve`` and ``mase eval --offline``: flag -> help.
FAULT_FLAGS = {
    "error-rate-429": "chance of a 429 rate-limit error",
    "error-rate-500": "chance of a 500 server error",
    "timeout-rate": "chance of hanging for 60 s",
    "malformed-rate": "chance of a body that is not valid JSON",
    "empty-rate": "chance of an empty reply",
    "long-rate": "chance of a 100 KB reply",
}

#: The timeout of a call to a local model (``--local``) unless ``--timeout`` says: seconds. A
#: long prompt on a small CPU takes a while, and a request may wait for the server's one slot.
LOCAL_TIMEOUT = 600.0

#: Options of ``mase eval`` that configure model seats: attribute -> flag.
LLM_FLAGS = {
    "model": "--model",
    "base_url": "--base-url",
    "no_cache": "--no-cache",
    "cache": "--cache",
    "prices": "--prices",
    "offline": "--offline",
    "local": "--local",
    "timeout": "--timeout",
    "max_tokens": "--max-tokens",
    "temperature": "--temperature",
}


def read_faults(args: argparse.Namespace) -> Any:
    """The :class:`mase.llm.Faults` the fault options ask for."""
    from mase.llm import Faults

    return Faults(
        latency=args.latency,
        error_rate_429=args.error_rate_429,
        error_rate_500=args.error_rate_500,
        timeout_rate=args.timeout_rate,
        malformed_rate=args.malformed_rate,
        empty_rate=args.empty_rate,
        long_rate=args.long_rate,
        seed=args.fault_seed if hasattr(args, "fault_seed") else args.seed,
    )


def _fault_flags_given(args: argparse.Namespace) -> list[str]:
    names = ["latency", *(f.replace("-", "_") for f in FAULT_FLAGS)]
    return ["--" + n.replace("_", "-") for n in names if getattr(args, n)]


@contextlib.contextmanager
def model_endpoint(
    args: argparse.Namespace, env_id: str, llm_teams: list[str], offline_default: bool = False
) -> Iterator[tuple[Any, str | None]]:
    """The model configuration for the teams' LLM seats, checked against the options.

    Yields ``(config, where)``: an :class:`mase.llm.LLMConfig` (``None`` when no team has a
    model seat) and a few words on where the model runs. With ``--offline`` (or
    ``offline_default`` and neither ``--model`` nor ``--base-url``) an offline server for the
    task runs for the duration, with the fault options given; otherwise the endpoint comes
    from ``--base-url``/``--model`` and then the environment (``OPENAI_BASE_URL``, ...).

    Raises:
        ValueError: options that do not go together, named in the message.
    """
    given = [flag for name, flag in LLM_FLAGS.items() if getattr(args, name)]
    faults = _fault_flags_given(args)
    if not llm_teams:
        if given or faults:
            raise ValueError(
                f"{', '.join(given + faults)} configure model seats (llm, llm-belief), and no "
                "team here has one"
            )
        yield None, None
        return
    if args.offline and args.base_url:
        raise ValueError("--offline serves a model on loopback; it does not go with --base-url")
    local = getattr(args, "local", None)
    if local and (args.offline or args.base_url or args.model):
        raise ValueError("--local serves a real model on loopback; it does not go with "
                         "--offline, --base-url or --model")  # fmt: skip
    if local:
        if faults:
            raise ValueError(
                f"{', '.join(faults)} make the offline server misbehave; add --offline"
            )
        with _local_endpoint(args, local, overrides_of(args)) as found:
            yield found
        return
    offline = args.offline or (offline_default and not (args.model or args.base_url))
    if faults and not offline:
        raise ValueError(f"{', '.join(faults)} make the offline server misbehave; add --offline")

    from mase.llm import LLMConfig, LLMUnavailable, offline_server

    overrides = overrides_of(args)
    if not offline:
        config = LLMConfig.from_env(**overrides)
        try:
            config.resolved_api_key()
        except LLMUnavailable as exc:
            raise ValueError(str(exc)) from None
        yield config, f"model {config.model} at {config.shown_endpoint()}"
        return
    with offline_server(env_id, faults=read_faults(args)) as server:
        config = LLMConfig.from_env(
            **{**overrides, "base_url": server.base_url, "api_key": "offline"}
        )
        yield config, f"the task's offline model at {server.base_url} (not a hosted LLM)"


def check_endpoint(config: Any) -> None:
    """One request to the model endpoint before any episode (``None``: no model seats).

    Raises:
        ValueError: the endpoint cannot be reached, does not answer within a few seconds, or
            refuses the key; one line naming the URL (never the key).
    """
    if config is None:
        return
    from mase.llm import ChatClient, LLMUnavailable

    client = ChatClient(config.replace(cache=False))
    try:
        client.check()
    except LLMUnavailable as exc:
        raise ValueError(str(exc)) from None
    finally:
        client.close()


def overrides_of(args: argparse.Namespace) -> dict[str, Any]:
    """The :class:`mase.llm.LLMConfig` fields the model options set (``None``: not given)."""
    from mase.llm import load_prices

    return {
        "model": args.model,
        "base_url": args.base_url,
        "cache": False if args.no_cache else args.cache,
        "prices": load_prices(args.prices) if args.prices else None,
        "timeout": args.timeout,
        "max_tokens": args.max_tokens,
        "temperature": args.temperature,
    }


@contextlib.contextmanager
def _local_endpoint(
    args: argparse.Namespace, name: str, overrides: dict[str, Any]
) -> Iterator[tuple[Any, str]]:
    """``--local NAME_OR_GGUF``: llama.cpp's server for the run, one slot per worker."""
    from mase.llm import LLMConfig
    from mase.llm.local import LocalServer, about, find_gguf

    server = LocalServer(find_gguf(name), slots=getattr(args, "concurrency", 1) or 1)
    try:
        server.start()
    except (ModuleNotFoundError, RuntimeError) as exc:
        raise ValueError(str(exc)) from None
    try:
        # a slow model whose one slot a request may wait for: a timeout that fits it
        timeout = overrides["timeout"] or LOCAL_TIMEOUT
        # the port is new each run: the cache knows the model by its file
        scope = f"llama.cpp:{server.gguf.name}:{server.gguf.stat().st_size}"
        config = LLMConfig.from_env(**{**overrides, "timeout": timeout, "base_url": server.base_url,
                                       "model": server.alias, "api_key": "local",
                                       "cache_scope": scope})  # fmt: skip
        yield config, f"{about(name)} through llama.cpp at {server.base_url} (a real model)"
    finally:
        server.stop()
