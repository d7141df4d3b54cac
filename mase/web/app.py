"""The web table's server: a Starlette app with a page and a websocket per person's seat.

``GET /seat/{token}`` is the seat's page (:mod:`mase.web.page`); the page opens
``/ws/{token}`` and gets the seat's state (:class:`~mase.web.state.SeatViews`) after every
move, and the replies to what it sent. A token is the seat's only key: it is unguessable
(:func:`secrets.token_urlsafe`, 24 bytes), compared in constant time, never logged and never
sent to another seat.

Everything a page sends is a JSON text frame ``{"type": "move", "text": ..., "seq": ...}``
(``seq``: the state it answers). Anything else gets a refusal the page shows, and the
connection stays: a binary frame, text that is not JSON, an unknown type, a move out of turn,
one over :data:`~mase.web.game.MAX_REPLY_CHARS`. A frame over :data:`MAX_FRAME_BYTES` is
refused by uvicorn itself (close code 1009, which the page shows). A wrong token gets the
close code :data:`CLOSE_UNKNOWN`; a second tab on a seat that has one open,
:data:`CLOSE_TAKEN`: each with its reason, which the page shows.
"""

from __future__ import annotations

import asyncio
import hmac
import json
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from mase.web.game import WebGame
from mase.web.page import seat_page

__all__ = ["CLOSE_TAKEN", "CLOSE_UNKNOWN", "MAX_FRAME_BYTES", "web_app"]

#: The largest websocket frame read (bytes); uvicorn closes the connection on a bigger one.
MAX_FRAME_BYTES = 64 * 1024
#: Close code: the token is no seat's.
CLOSE_UNKNOWN = 4404
#: Close code: the seat is open in another tab.
CLOSE_TAKEN = 4409
#: Messages waiting for a slow page before its connection is dropped (it can rejoin).
_BACKLOG = 256


class _Tables:
    """The games of the server and the open connection of each person's seat."""

    def __init__(self, games: list[WebGame], loop: asyncio.AbstractEventLoop | None = None):
        self.games = games
        self.loop = loop
        self.open: dict[tuple[int, str], asyncio.Queue] = {}
        for number, game in enumerate(games):
            game.listen(lambda seat, message, n=number: self._deliver(n, seat, message))

    def find(self, token: str) -> tuple[int, str] | None:
        """The game and seat of ``token``, or ``None`` (compared in constant time)."""
        found = None
        for number, game in enumerate(self.games):
            for seat, place in game.seats.items():
                if hmac.compare_digest(place.token.encode(), token.encode()):
                    found = (number, seat)
        return found

    def _deliver(self, number: int, seat: str, message: dict) -> None:
        """From a game's thread: queue ``message`` for the seat's page, if one is open."""
        outbox = self.open.get((number, seat))
        if outbox is not None and self.loop is not None:
            self.loop.call_soon_threadsafe(_put, outbox, message)


def _put(outbox: asyncio.Queue, message: dict) -> None:
    if outbox.qsize() < _BACKLOG:
        outbox.put_nowait(message)
    else:  # the page is not reading: drop it (it rejoins and gets the state again)
        outbox.put_nowait(None)


def _token_ok(token: str) -> bool:
    return 0 < len(token) <= 200 and token.isascii()


def web_app(games: list[WebGame], title: str = "MASE", hosts: list[str] | None = None) -> Starlette:
    """The ASGI app serving ``games`` (each already built; :meth:`WebGame.start` starts one).

    Args:
        games: the tables.
        title: the pages' title.
        hosts: the ``Host`` headers answered (others get ``400``: a page elsewhere that
            rebinds its name to this machine's loopback reaches nothing); ``None``: any.
    """
    tables = _Tables(games)

    async def page(request: Any) -> Response:
        token = request.path_params["token"]
        where = tables.find(token) if _token_ok(token) else None
        if where is None:
            return HTMLResponse(_refusal_page("This link is no seat of this server."), 404)
        game = games[where[0]]
        html = seat_page(game.env_id, where[1], game.env_kwargs, title)
        return HTMLResponse(
            html, headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
        )

    async def socket(websocket: WebSocket) -> None:
        if tables.loop is None:
            tables.loop = asyncio.get_running_loop()
        token = websocket.path_params["token"]
        where = tables.find(token) if _token_ok(token) else None
        await websocket.accept()
        if where is None:
            await websocket.close(CLOSE_UNKNOWN, "this link is no seat of this server")
            return
        if where in tables.open:
            await websocket.close(CLOSE_TAKEN, "this seat is open in another tab; close it first")
            return
        outbox: asyncio.Queue = asyncio.Queue()
        tables.open[where] = outbox
        game, seat = games[where[0]], where[1]
        try:
            await websocket.send_json(game.state(seat))
            if game.finished.is_set():  # a tab that joins after the end is told so
                await websocket.send_json({"type": "finished", "error": game.error})
            sender = asyncio.create_task(_send_all(websocket, outbox))
            try:
                await _read_all(websocket, game, seat, outbox)
            finally:
                sender.cancel()
        except WebSocketDisconnect:
            pass
        finally:
            tables.open.pop(where, None)

    routes = [Route("/seat/{token}", page), WebSocketRoute("/ws/{token}", socket)]
    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=hosts)] if hosts else []
    return Starlette(routes=routes, middleware=middleware)


async def _send_all(websocket: WebSocket, outbox: asyncio.Queue) -> None:
    while True:
        message = await outbox.get()
        if message is None:
            await websocket.close(1008, "the page fell behind; reload it")
            return
        await websocket.send_text(json.dumps(message, separators=(",", ":")))


async def _read_all(websocket: WebSocket, game: WebGame, seat: str, outbox: asyncio.Queue) -> None:
    """Read the page's frames until it goes; refuse each bad one with its reason."""
    while True:
        frame = await websocket.receive()
        if frame["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(frame.get("code", 1000))
        reason = _take(frame, game, seat)
        if reason is not None:
            outbox.put_nowait({"type": "refused", "text": reason})


def _take(frame: dict, game: WebGame, seat: str) -> str | None:
    """Pass a frame's move to the game: ``None`` if taken, else why it was refused."""
    text = frame.get("text")
    if text is None:
        return "send text frames holding JSON, not binary ones"
    try:
        message = json.loads(text)
    except ValueError:
        return "that frame is not JSON"
    if not isinstance(message, dict) or message.get("type") != "move":
        return 'a frame is {"type": "move", "text": ..., "seq": ...}'
    return game.submit(seat, message.get("text"), message.get("seq"))


def _refusal_page(reason: str) -> str:
    return (
        "<!doctype html><meta charset='utf-8'><title>MASE: no seat</title>"
        f"<p id='refused' role='alert'>{reason}</p>"
    )
