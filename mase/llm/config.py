"""Where a model lives and how to call it: :class:`LLMConfig`.

Settings come from arguments, then the usual environment variables, then defaults
(:meth:`LLMConfig.from_env`):

=================  ========================================================================
variable           meaning
=================  ========================================================================
OPENAI_BASE_URL    the endpoint (any OpenAI-compatible server; ``mase serve`` for offline)
OPENAI_API_KEY     the key; not needed for a loopback server
MASE_MODEL         the model id (default ``mase-offline``)
MASE_CACHE         the response cache file; ``off`` turns the cache off
=================  ========================================================================
"""

from __future__ import annotations

import dataclasses
import ipaddress
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

#: The model of the offline server (``mase serve``).
DEFAULT_MODEL = "mase-offline"

#: The key sent to a loopback server, which checks none.
OFFLINE_API_KEY = "offline"

#: Where the ``openai`` client sends requests when neither the config nor
#: ``OPENAI_BASE_URL`` names an endpoint.
DEFAULT_BASE_URL = "https://api.openai.com/v1"

#: The longest reply of each kind of request, in tokens (:meth:`LLMConfig.tokens_for`), so a
#: model that rambles stops at a bound that fits what was asked: a move, up to the longest a
#: task lets be said (3,000-character turns are about 750 tokens) with room to
#: think first; a belief state; a probe's answer (a yes or no and a reason); a restatement of
#: a message's claims; a program. ``retry`` is an action asked again after an invalid one,
#: ``tool`` an action after a tool's result, ``debug`` a program after its error.
REPLY_TOKENS = {
    "action": 1024,
    "retry": 1024,
    "tool": 1024,
    "belief": 1024,
    "answer": 128,
    "claims": 256,
    "code": 1536,
    "debug": 1536,
}

#: Values of ``MASE_CACHE`` that turn the cache off.
_CACHE_OFF = frozenset(("off", "0", "false", "no", "none"))


class LLMUnavailable(RuntimeError):
    """The model cannot be reached or used: missing key, or too many failed calls in a row.

    An agent raises it instead of playing on blind; the runner records the episode as failed
    with this message as the reason.
    """


def default_cache_path() -> Path | None:
    """``$MASE_CACHE`` if set (``None`` when it says ``off``), else the file in ``~/.cache``."""
    env = os.environ.get("MASE_CACHE")
    if env:
        return None if env.lower() in _CACHE_OFF else Path(env).expanduser()
    return Path.home() / ".cache" / "mase" / "responses.sqlite"


def is_loopback(base_url: str | None) -> bool:
    """Whether ``base_url`` points at this machine (``localhost``, 127.0.0.0/8, ``::1``)."""
    if not base_url:
        return False
    host = urlparse(base_url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def public_url(url: str) -> str:
    """``url`` without the ``user:password@`` part a URL may carry (a secret like a key)."""
    parsed = urlparse(url)
    if parsed.username is None and parsed.password is None:
        return url
    host = parsed.netloc.rpartition("@")[2]
    return parsed._replace(netloc=host).geturl()


def check_base_url(base_url: str) -> None:
    """Refuse an endpoint that is not an ``http://`` or ``https://`` URL with a host.

    >>> check_base_url("127.0.0.1:8000/v1")
    Traceback (most recent call last):
    ...
    ValueError: the base URL '127.0.0.1:8000/v1' has no scheme: write http://127.0.0.1:8000/v1
    """
    parsed = urlparse(base_url)
    if parsed.scheme in ("http", "https") and parsed.hostname:
        return
    if "://" not in base_url:
        raise ValueError(
            f"the base URL {base_url!r} has no scheme: write http://{base_url.lstrip('/')}"
        )
    shown = public_url(base_url)
    raise ValueError(f"the base URL {shown!r} must be an http:// or https:// URL with a host")


@dataclass(frozen=True)
class LLMConfig:
    """How to reach a chat model and what to ask of it.

    Attributes:
        model: the model id sent with every request.
        base_url: the endpoint, ending in ``/v1``; ``None`` is OpenAI's own.
        api_key: the key; ``None`` means ``OPENAI_API_KEY``, or ``"offline"`` for a loopback
            ``base_url``. A missing key is reported at the first call, naming the variable.
        temperature: sampling temperature (0: the paper's setting, and cache-friendly).
        max_tokens: longest reply in tokens, for every kind of request; ``None``: each kind's
            own limit (``reply_tokens`` over :data:`REPLY_TOKENS`).
        reply_tokens: kind -> longest reply, over :data:`REPLY_TOKENS` (``max_tokens`` wins).
        timeout: seconds before the client gives up on one request (it is not retried: the
            server may still be working on it).
        max_retries: retries of a call the server did not work on (rate limits, 5xx, failed
            or dropped connections), after its ``Retry-After`` or with backoff.
        cache: the response cache file; ``None`` for the default (``$MASE_CACHE`` or
            ``~/.cache/mase/responses.sqlite``), ``False`` for no cache.
        prices: model -> (USD per 1M prompt tokens, USD per 1M completion tokens), over
            :data:`mase.llm.usage.DEFAULT_PRICES`.
        max_errors: failed calls in a row (after the client's retries) before an agent gives
            up on the episode with :class:`LLMUnavailable`.
        cache_scope: what the response cache calls the endpoint (default: its URL and the
            fingerprint of the server behind it, see :mod:`mase.llm.client`). A model served on
            a port picked afresh each run names itself instead (``--local`` gives its model
            file), so a rerun replays from the cache.
        max_retry_wait: the longest ``Retry-After`` honoured, in seconds; a server asking for
            a longer wait fails the call at once, saying so.

    Example:
        >>> LLMConfig(base_url="http://127.0.0.1:8000/v1").resolved_api_key()
        'offline'
    """

    model: str = DEFAULT_MODEL
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    temperature: float = 0.0
    max_tokens: int | None = None
    reply_tokens: dict[str, int] | None = None
    timeout: float = 60.0
    max_retries: int = 2
    cache: str | os.PathLike | bool | None = None
    prices: dict[str, tuple[float, float]] | None = None
    max_errors: int = 5
    cache_scope: str | None = None
    max_retry_wait: float = 60.0

    def __post_init__(self) -> None:
        if not self.model:
            raise ValueError("model must be a non-empty model id")
        if self.base_url is not None:
            check_base_url(self.base_url)
        if not self.max_retry_wait >= 0:  # NaN too
            raise ValueError(f"max_retry_wait must be 0 or more, got {self.max_retry_wait}")
        if self.timeout <= 0:
            raise ValueError(f"timeout must be positive, got {self.timeout}")
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be 0 or more, got {self.max_retries}")
        if self.max_errors < 1:
            raise ValueError(f"max_errors must be at least 1, got {self.max_errors}")
        if self.cache is True:
            raise ValueError("cache takes a path, None (the default file) or False (off)")
        limits = [self.max_tokens, *(self.reply_tokens or {}).values()]
        if any(v is not None and (isinstance(v, bool) or int(v) != v or v < 1) for v in limits):
            raise ValueError(f"token limits must be whole numbers of 1 or more, got {limits}")

    def tokens_for(self, kind: str) -> int:
        """The longest reply to a request of ``kind`` (an unknown kind: an action's).

        >>> LLMConfig().tokens_for("answer"), LLMConfig(max_tokens=80).tokens_for("answer")
        (128, 80)
        """
        if self.max_tokens is not None:
            return self.max_tokens
        table = {**REPLY_TOKENS, **(self.reply_tokens or {})}
        return table.get(kind, table["action"])

    @classmethod
    def from_env(cls, **overrides: Any) -> LLMConfig:
        """A config from the environment; keyword arguments win over the variables.

        Reads ``OPENAI_BASE_URL``, ``OPENAI_API_KEY``, ``MASE_MODEL`` and ``MASE_CACHE``
        (``off`` turns the cache off). An override of ``None`` counts as not given.

        Raises:
            TypeError: an override that is not a field.
        """
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(overrides) - names
        if unknown:
            raise TypeError(f"LLMConfig has no fields {sorted(unknown)}; fields: {sorted(names)}")
        given = {k: v for k, v in overrides.items() if v is not None}
        env = {
            "base_url": os.environ.get("OPENAI_BASE_URL") or None,
            "api_key": os.environ.get("OPENAI_API_KEY") or None,
            "model": os.environ.get("MASE_MODEL") or None,
            "cache": os.environ.get("MASE_CACHE") or None,
        }
        if env["cache"] is not None and env["cache"].lower() in _CACHE_OFF:
            env["cache"] = False
        values = {k: v for k, v in env.items() if v is not None}
        values.update(given)
        return cls(**values)

    def replace(self, **changes: Any) -> LLMConfig:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    def resolved_api_key(self) -> str:
        """The key to send: ``api_key``, else ``OPENAI_API_KEY``, else ``"offline"`` on loopback.

        Raises:
            LLMUnavailable: no key for a remote endpoint (the message names the variable).
        """
        key = self.api_key or os.environ.get("OPENAI_API_KEY")
        if key:
            return key
        if is_loopback(self.base_url):
            return OFFLINE_API_KEY
        where = self.base_url or "OpenAI's API"
        raise LLMUnavailable(
            f"no API key for {where}: set OPENAI_API_KEY (or pass api_key), or point "
            "OPENAI_BASE_URL at a loopback server such as `mase serve`"
        )

    def endpoint(self) -> str:
        """The endpoint requests go to: ``base_url``, else ``OPENAI_BASE_URL``, else OpenAI's.

        The ``openai`` client resolves a ``base_url`` of ``None`` the same way; trailing
        slashes are dropped, so ``.../v1`` and ``.../v1/`` are one endpoint.

        >>> LLMConfig(base_url="http://127.0.0.1:8000/v1/").endpoint()
        'http://127.0.0.1:8000/v1'
        """
        url = self.base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        return url.rstrip("/")

    def shown_endpoint(self) -> str:
        """:meth:`endpoint` as printed and logged: a password or user in the URL is cut out.

        >>> LLMConfig(base_url="http://me:hunter2@127.0.0.1:8000/v1").shown_endpoint()
        'http://127.0.0.1:8000/v1'
        """
        return public_url(self.endpoint())

    def cache_path(self) -> Path | None:
        """The cache file to use, or ``None`` when the cache is off."""
        if self.cache is False:
            return None
        if self.cache is None:
            return default_cache_path()
        return Path(self.cache).expanduser()
