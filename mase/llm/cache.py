r"""A response cache on SQLite: the same request is answered from disk, not by the model.

A request is keyed by the SHA-256 of its canonical JSON (the endpoint's scope, the model, the
full message list and the sampling parameters), so a change to any of them is a new request.
The scope is what :class:`~mase.llm.client.ChatClient` calls the endpoint: the config's
``cache_scope`` where one is given, else the URL and the fingerprint of the server answering
there (its ``Server`` header and the model's ``/models`` entry), so another server on the same
URL (another task's offline model, a test double, other faults) is another scope and never
answers from this one's replies. A server that says nothing about itself is scoped by its URL
alone: two such servers on one URL do share replies, which only ``cache_scope`` (or another
cache file) keeps apart. The
client stores only replies the model actually gave (never an error or an empty reply), with
their token counts and latency, so a rerun replays the same records with zero model calls.

Text goes in as valid UTF-8: a lone surrogate (a JSON reply may hold ``"\ud800"``) is
stored as U+FFFD (:func:`encodable`) instead of failing the write.

One connection per cache, guarded by a lock, serves every thread; the database is in WAL mode
so other processes may read and write the same file meanwhile.

Files written before the key covered the endpoint, or before the scope held the server's
fingerprint, still open (the table is unchanged) and take new entries, but their old entries
are never found again: each request misses once. That is on purpose: the old entries do not
say which server gave them, and may be empty replies, which were stored then.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, NamedTuple

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    reply TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    latency_s REAL NOT NULL,
    created REAL NOT NULL
)
"""


class CachedReply(NamedTuple):
    """A stored reply with the usage and latency of the call that produced it."""

    reply: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float


def encodable(text: str) -> str:
    r"""``text`` with each lone surrogate replaced by U+FFFD, so that it encodes as UTF-8.

    JSON can spell half of a surrogate pair (``"\ud800"``), which decodes to a Python string
    that no UTF-8 writer (SQLite, an HTTP body) accepts; a pair spelt as two code points is
    joined into its character. Text without surrogates comes back as it is.

    >>> encodable("ok \ud800 ok") == "ok \ufffd ok"
    True
    >>> encodable("\ud83d\ude00") == "\U0001f600"
    True
    """
    try:
        text.encode()
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def request_key(
    model: str,
    messages: list[dict[str, Any]],
    params: dict[str, Any],
    endpoint: str | None = None,
) -> str:
    """The cache key of a request: SHA-256 of its canonical JSON.

    ``endpoint`` (the endpoint's scope: its URL and fingerprint, see the module docstring) is
    part of the key: two servers that share a model id are two models. Text that is not valid
    UTF-8 (a lone surrogate) is keyed as it is, never refused.

    >>> a = request_key("m", [{"role": "user", "content": "hi"}], {"temperature": 0.0})
    >>> a == request_key("m", [{"content": "hi", "role": "user"}], {"temperature": 0.0})
    True
    >>> a == request_key("m", [{"role": "user", "content": "hi"}], {"temperature": 0.5})
    False
    >>> a == request_key("m", [{"role": "user", "content": "hi"}], {"temperature": 0.0}, "u")
    False
    """
    payload = {"endpoint": endpoint, "model": model, "messages": messages, "params": params}
    data = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()


class ResponseCache:
    """Replies by request key, in an SQLite file; safe to share between threads.

    Args:
        path: the database file (created with its folder), or ``":memory:"``.

    Example:
        >>> cache = ResponseCache(":memory:")
        >>> cache.put("k", "m", "hello", prompt_tokens=3, completion_tokens=1, latency_s=0.2)
        >>> cache.get("k")
        CachedReply(reply='hello', prompt_tokens=3, completion_tokens=1, latency_s=0.2)
        >>> len(cache), cache.get("other")
        (1, None)
        >>> cache.close()
    """

    def __init__(self, path: str | os.PathLike):
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        # check_same_thread=False: the lock, not the thread, guards the connection;
        # timeout: wait for another process's write rather than fail
        self._db = sqlite3.connect(
            self.path, check_same_thread=False, timeout=30.0, isolation_level=None
        )
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode loses at most the last writes on power loss, never the file;
            # a lost entry only costs one model call again
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(_SCHEMA)

    def get(self, key: str) -> CachedReply | None:
        """The stored reply for ``key``, or ``None``."""
        with self._lock:
            row = self._db.execute(
                "SELECT reply, prompt_tokens, completion_tokens, latency_s "
                "FROM responses WHERE key = ?",
                (key,),
            ).fetchone()
        return None if row is None else CachedReply(*row)

    def put(
        self,
        key: str,
        model: str,
        reply: str,
        prompt_tokens: int,
        completion_tokens: int,
        latency_s: float,
    ) -> None:
        """Store a reply; the first reply stored for a key stays (replays stay stable).

        Lone surrogates in ``reply`` are stored as U+FFFD (:func:`encodable`). Which replies
        are worth storing is the caller's call: this stores what it is given, empty or not.
        """
        row = (key, encodable(model), encodable(reply), prompt_tokens, completion_tokens)
        with self._lock:
            self._db.execute(
                "INSERT OR IGNORE INTO responses VALUES (?, ?, ?, ?, ?, ?, ?)",
                (*row, latency_s, time.time()),
            )

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        """Close the database; the cache cannot be used afterwards."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ResponseCache({self.path!r})"
