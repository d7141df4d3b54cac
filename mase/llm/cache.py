"""A response cache on SQLite: the same request is answered from disk, not by the model.

A request is keyed by the SHA-256 of its canonical JSON (model, the full message list, and the
sampling parameters), so any change to the prompt or the settings is a new request. Only
replies the model actually gave are stored (errors never are), with their token counts and
latency, so a rerun replays the same records with zero model calls.

One connection per cache, guarded by a lock, serves every thread; the database is in WAL mode
so other processes may read and write the same file meanwhile.
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


def request_key(model: str, messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
    """The cache key of a request: SHA-256 of its canonical JSON.

    >>> a = request_key("m", [{"role": "user", "content": "hi"}], {"temperature": 0.0})
    >>> a == request_key("m", [{"content": "hi", "role": "user"}], {"temperature": 0.0})
    True
    >>> a == request_key("m", [{"role": "user", "content": "hi"}], {"temperature": 0.5})
    False
    """
    payload = {"model": model, "messages": messages, "params": params}
    data = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(data.encode()).hexdigest()


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
        """Store a reply; the first reply stored for a key stays (replays stay stable)."""
        with self._lock:
            self._db.execute(
                "INSERT OR IGNORE INTO responses VALUES (?, ?, ?, ?, ?, ?, ?)",
                (key, model, reply, prompt_tokens, completion_tokens, latency_s, time.time()),
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
