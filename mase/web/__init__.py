"""People at the table: any seat of any task played from a browser (``mase play --web``).

A :class:`~mase.web.game.WebGame` is a table: a task, a team whose ``human`` seats are people,
a series of seeded episodes recorded like ``mase eval --record`` (so ``mase replay``, ``mase
report``, cross-play and ``mase league`` read them). A :class:`WebServer` serves one or more
tables with the ASGI app of :mod:`mase.web.app` under uvicorn, on loopback unless
``allow_remote`` is given: each person's seat has its own link, carrying an unguessable token.
Each page gets only its seat's state (:mod:`mase.web.state`), the task's scene drawn by its
own replay drawing, and answers to what it sent.

::

    from mase.web import WebGame, WebServer

    game = WebGame(task_id, {"alpha": "human", "bravo": "scripted", "charlie": "llm"}, llm=config)
    with WebServer([game]) as server:
        print(server.links())        # {"alpha": "http://127.0.0.1:PORT/seat/TOKEN"}
        game.finished.wait()
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

from mase.web.game import MAX_REPLY_CHARS, PersonSeat, WebGame
from mase.web.state import SeatViews

__all__ = ["MAX_REPLY_CHARS", "PersonSeat", "SeatViews", "WebGame", "WebServer", "is_loopback"]

#: Hosts that only this machine reaches.
LOOPBACK = ("127.0.0.1", "::1", "localhost")


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reached from this machine only."""
    return host in LOOPBACK or host.startswith("127.")


class WebServer:
    """uvicorn serving the tables ``games`` in a thread; a context manager.

    Args:
        games: the tables (each a :class:`WebGame`, started by :meth:`start`).
        host: the address to bind; anything but loopback needs ``allow_remote``.
        port: the port (0: a free one, chosen when the server starts).
        allow_remote: bind a non-loopback ``host`` (every seat's link then reaches the
            network; anyone holding a link plays that seat).

    Raises:
        ValueError: a non-loopback host without ``allow_remote``.
    """

    def __init__(
        self,
        games: list[WebGame],
        host: str = "127.0.0.1",
        port: int = 0,
        allow_remote: bool = False,
    ):
        if not is_loopback(host) and not allow_remote:
            raise ValueError(
                f"binding {host!r} lets other machines play these seats; pass allow_remote "
                "(mase play --web --allow-remote) to do it anyway"
            )
        self.games, self.host, self.port = games, host, port
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None

    def start(self) -> WebServer:
        """Bind, serve in a thread, start every game; return once the server answers."""
        import uvicorn

        from mase.web.app import MAX_FRAME_BYTES, web_app

        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        self._socket = socket.socket(family, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind((self.host, self.port))
        self.port = self._socket.getsockname()[1]
        # on loopback, only this machine's names for itself (a rebound name is refused)
        hosts = None if not is_loopback(self.host) else [*LOOPBACK, "[::1]"]
        config = uvicorn.Config(
            web_app(self.games, hosts=hosts),
            log_level="warning",
            access_log=False,  # a seat's link is its key: never written to a log
            lifespan="off",
            ws="websockets-sansio",
            ws_max_size=MAX_FRAME_BYTES,
            timeout_keep_alive=5,
            limit_concurrency=512,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the web server did not start")
            time.sleep(0.01)
        for game in self.games:
            game.start()
        return self

    def links(self, game: int = 0) -> dict[str, str]:
        """Each person's seat of table ``game``: its link."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return {
            seat: f"http://{host}:{self.port}/seat/{place.token}"
            for seat, place in self.games[game].seats.items()
        }

    def stop(self) -> None:
        """Stop every game (an unfinished episode is not recorded), then the server."""
        for game in self.games:
            game.stop()
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)
        if self._socket is not None:
            self._socket.close()

    def __enter__(self) -> WebServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
