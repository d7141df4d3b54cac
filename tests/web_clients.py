"""Scripted people for the web table's tests: a websocket client per seat, and its player."""

from __future__ import annotations

import json
import threading
from urllib.parse import urlsplit

from pettingzoo.utils.wrappers import BaseWrapper
from websockets.sync.client import connect

#: Seconds a test waits for the server's next message before it calls the game stuck.
WAIT = 60


def socket_url(link: str) -> str:
    """The websocket of a seat's page link (``http://host/seat/TOKEN`` -> ``ws://host/ws/TOKEN``)."""
    parts = urlsplit(link)
    return f"ws://{parts.netloc}/ws/{parts.path.rsplit('/', 1)[1]}"


class SeatClient:
    """A page's connection, as the page's script uses it: every message kept, in order."""

    def __init__(self, link: str):
        self._connection = connect(socket_url(link), max_size=None)
        self.socket = self._connection.__enter__()  # closed by close(), or by the server
        self.received: list[str] = []  # every frame the server sent, as sent
        self.state: dict | None = None
        self.answered: int | None = None  # the seq of the state last moved on

    def next(self) -> dict:
        frame = self.socket.recv(timeout=WAIT)
        self.received.append(frame)
        message = json.loads(frame)
        if message["type"] == "state":
            self.state = message
        return message

    def send(self, payload) -> None:
        self.socket.send(payload if isinstance(payload, str | bytes) else json.dumps(payload))

    def move(self, text: str) -> None:
        self.answered = self.state["seq"]
        self.send({"type": "move", "text": text, "seq": self.state["seq"]})

    def my_turn(self) -> dict:
        """The state of the seat's next move (the one now, if not moved on yet)."""
        while True:
            state = self.state
            if (
                state
                and state["turn"]["you"]
                and not state["over"]
                and state["seq"] != self.answered
            ):
                return state
            self.next()

    def until(self, predicate) -> dict:
        """Read messages until one satisfies ``predicate``; return it."""
        while True:
            message = self.next()
            if predicate(message):
                return message

    def close(self) -> None:
        self._connection.__exit__(None, None, None)


def first_legal(state: dict) -> str:
    """A scripted person's choice: a legal move picked by the state's number, or a speech."""
    if state["turn"]["speech"]:
        return "I am on the good side."
    legal = state["legal"]
    return legal[state["seq"] % len(legal)]


def play_out(client: SeatClient, choose=first_legal) -> SeatClient:
    """Play the seat until its games are finished (a ``finished`` message)."""
    if client.state is None:
        client.next()
    message = {"type": "state", **client.state}
    while True:
        if message["type"] == "finished":
            return client
        if message["type"] == "state" and message["turn"]["you"] and not message["over"]:
            client.move(choose(message))
        message = client.next()


def play_all(clients: list[SeatClient], choose=first_legal) -> None:
    """Every client plays its seat in a thread of its own, until the games end."""
    errors: list[BaseException] = []

    def run(client: SeatClient) -> None:
        try:
            play_out(client, choose)
        except BaseException as exc:  # noqa: BLE001 - raised in the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(c,)) for c in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10 * WAIT)
    if errors:
        raise errors[0]


class DealOptions(BaseWrapper):
    """Resets with the given options (the twin deals of a task's ``hidden_twins``)."""

    def __init__(self, env, options):
        super().__init__(env)
        self.options = options

    def reset(self, seed=None, options=None):
        self.env.reset(seed=seed, options=self.options)


def same_until_seen(frames_a: list[str], frames_b: list[str]) -> int:
    """How many frames two twin games sent a seat alike, before what it saw differed.

    Raises ``AssertionError`` at a frame that differs while the events the seat was shown
    (its state's ``events``) are the same.
    """
    compared = 0
    for frame_a, frame_b in zip(frames_a, frames_b, strict=False):
        seen_a, seen_b = (json.loads(f).get("events") for f in (frame_a, frame_b))
        if seen_a != seen_b:
            break
        assert frame_a == frame_b, f"a seat was sent a difference it did not see: {frame_a[:300]}"
        compared += 1
    return compared
