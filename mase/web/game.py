"""A game of a web table: its episodes played by :func:`mase.evaluate`, people in some seats.

:class:`WebGame` plays its episodes in a thread of its own with :func:`mase.evaluate`, so a
game is recorded like any ``mase eval`` run (``config.json``, ``episodes.jsonl`` with every
event and frame, ``summary.json``) and resumes as one does: finished episodes stay, an
unfinished one is played again from its seed. A person's seat is a :class:`PersonSeat`
policy: it waits for the person's reply, reads it with the task's own reader and, when the
reply is not a legal move, sends the task's reason back and waits again. After every step the
game sends each person's page its state (:class:`~mase.web.state.SeatViews`), through the listeners
the server registers (:meth:`WebGame.listen`); the game never touches a socket.

Model seats think in the game's thread, so the server's event loop stays free while an LLM
seat waits on its endpoint.
"""

from __future__ import annotations

import queue
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pettingzoo.utils.wrappers import BaseWrapper

from mase.agents.base import Policy
from mase.runner.episode import EpisodeStopped
from mase.web.state import SeatViews
from mase.wrappers.recorder import scene_data

__all__ = ["PersonSeat", "WebGame"]

#: The longest reply a person may send (characters): a move's words, a speech, a message.
MAX_REPLY_CHARS = 4000

#: What a listener gets: ``(seat, message)``; a message is a JSON-ready dict with ``"type"``.
Listener = Callable[[str, dict], None]


class _Stop:
    """Put in a seat's replies when the server stops: the seat's wait ends the episode."""


@dataclass
class _Seat:
    """A person's seat: its token, what its page shows now, the replies it sent."""

    name: str
    token: str
    state: dict = field(default_factory=dict)
    replies: queue.Queue = field(default_factory=queue.Queue)
    #: a reply was taken and not yet refused or played (a second click waits for the state)
    busy: bool = False


class PersonSeat(Policy):
    """The policy of a person's seat: each move is what the person sent from the page.

    Args:
        game: the game the seat belongs to.
        seat: the seat's name.
        time_limit: seconds a move may take (``None``: no limit); when they run out the
            ``fallback`` policy makes the move and the page is told so.
        fallback: the policy that moves for a person out of time.
    """

    def __init__(
        self, game: WebGame, seat: str, time_limit: float | None = None, fallback: Any = None
    ):
        self.game = game
        self.seat_name = seat
        self.time_limit = time_limit
        self.fallback = fallback

    def reset(self, agent: str, env: Any, seed: int | None = None) -> None:
        """Start a game: the fallback too, with the same seed."""
        super().reset(agent, env, seed)
        if self.fallback is not None:
            self.fallback.reset(agent, env, seed)

    def act(self, observation: Any, info: dict) -> Any:
        """Wait for the person's reply; refuse with the task's reason until one is legal."""
        seat = self.game.seats[self.seat_name]
        base = self.env.unwrapped
        deadline = None if self.time_limit is None else time.monotonic() + self.time_limit
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                reply = seat.replies.get(timeout=left)
            except queue.Empty:
                self.game.tell(seat.name, "notice", "Time ran out: a move was made for you.")
                return self.fallback.act(observation, info)
            if isinstance(reply, _Stop):
                raise EpisodeStopped
            if base.phase.speech:
                return reply
            parsed = base.read_action(self.seat_name, reply)
            if parsed.action is not None:
                if parsed.message and not base.messages_enabled:
                    self.game.tell(seat.name, "notice", "No messages in this game: not sent.")
                return reply
            self.game.refuse_reply(seat.name, f"Not a legal move: {parsed.reason}")


def _waiting(seat: str) -> dict:
    """The state of a seat before its first episode starts."""
    turn = {"round": 0, "phase": None, "you": False, "speech": False, "messages": False}
    text = "The game has not started yet."
    return {"seat": seat, "waiting": True, "text": text, "scene": {}, "events": [],
            "turn": turn, "legal": [], "over": False}  # fmt: skip


class _Broadcast(BaseWrapper):
    """Tells the game after every reset and step, so each person's page is brought up to date."""

    def __init__(self, env: Any, game: WebGame):
        super().__init__(env)
        self.game = game

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.env.reset(seed=seed, options=options)
        self.game.started(seed)
        self.game.changed(self)

    def step(self, action: Any) -> None:
        self.env.step(action)
        self.game.changed(self)


class WebGame:
    """One table: a task, a team with people in some seats, a series of seeded episodes.

    Args:
        env_id: a registered task id.
        team: seat -> policy name (``"human"`` for a person) or what
            :func:`mase.runner.parse_team` reads (a choice by side).
        episodes: how many episodes are played, one after another.
        seed: the first episode's seed.
        out: the run's directory (``None``: nothing is written).
        resume: keep the finished episodes in ``out`` and play the rest.
        env_kwargs: task arguments.
        messages: give the seats a message channel.
        llm: the model settings of LLM seats.
        time_limit: seconds a person's move may take (``None``: no limit).
        fallback: the policy name that moves for a person out of time (default ``random``).
        tokens: seat -> token, to keep the links of an earlier start (``None``: new ones).
        wrappers: more wrappers, outside the broadcast (a test's reset options, say).
        label: the team's name in the records (default: its seats and policies).
    """

    def __init__(
        self,
        env_id: str,
        team: Mapping[str, str],
        episodes: int = 1,
        seed: int = 0,
        out: str | Path | None = None,
        resume: bool = False,
        env_kwargs: Mapping[str, Any] | None = None,
        messages: bool = True,
        llm: Any = None,
        time_limit: float | None = None,
        fallback: str = "random",
        tokens: Mapping[str, str] | None = None,
        wrappers: tuple = (),
        label: str | None = None,
    ):
        people = [s for s, name in team.items() if name == "human"]
        if not people:
            raise ValueError("a web game needs at least one seat played by a person (human)")
        self.env_id, self.team, self.episodes, self.seed = env_id, dict(team), episodes, seed
        self.label = label or ",".join(f"{s}={n}" for s, n in self.team.items())
        self.out, self.resume, self.llm = out, resume, llm
        self.env_kwargs, self.messages = dict(env_kwargs or {}), messages
        self.time_limit, self.fallback, self.wrappers = time_limit, fallback, tuple(wrappers)
        tokens = dict(tokens or {})
        self.seats = {s: _Seat(s, tokens.get(s) or secrets.token_urlsafe(24)) for s in people}
        self.listeners: list[Listener] = []
        self.episode: int | None = None
        self.finished = threading.Event()
        self.error: str | None = None
        self.summary: dict | None = None
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._returns: dict[str, float] = {}
        self._seq = 0
        self._views = SeatViews()

    # -- the server's side ----------------------------------------------------------------
    def listen(self, listener: Listener) -> None:
        """Call ``listener(seat, message)`` for every message to a person's page."""
        self.listeners.append(listener)

    def state(self, seat: str) -> dict:
        """The latest state message of ``seat``'s page (what a tab that joins is sent)."""
        with self._lock:
            return self.seats[seat].state or self._message(seat, _waiting(seat))

    def submit(self, seat: str, text: Any, seq: Any) -> str | None:
        """A reply from ``seat``'s page to its state ``seq``: ``None`` if taken, else why not."""
        if not isinstance(text, str):
            return "a move is text"
        if len(text) > MAX_REPLY_CHARS:
            return f"that is {len(text):,} characters; at most {MAX_REPLY_CHARS:,} are read"
        place = self.seats[seat]
        with self._lock:
            state = place.state
            if self.finished.is_set() or state.get("over"):
                return "the game is over"
            if not state.get("turn", {}).get("you"):
                return "it is not your turn"
            if seq != state.get("seq"):
                return "the game has moved on since that page: look again"
            if place.busy:
                return "your last move is still being played"
            place.busy = True
        place.replies.put(text)
        return None

    def refuse_reply(self, seat: str, reason: str) -> None:
        """The reply taken was not a legal move: say why; the seat may send another."""
        with self._lock:
            self.seats[seat].busy = False
        self.tell(seat, "refused", reason)

    def start(self) -> None:
        """Play the episodes in a thread of their own."""
        self._thread = threading.Thread(target=self._play, name=f"mase-web-{self.env_id}")
        self._thread.daemon = True
        self._thread.start()

    def stop(self, timeout: float = 10) -> None:
        """End the episode being played (unrecorded: a resumed run plays it again)."""
        for place in self.seats.values():
            place.replies.put(_Stop())
        if self._thread is not None:
            self._thread.join(timeout)

    # -- the game's side ------------------------------------------------------------------
    def tell(self, seat: str, kind: str, text: str) -> None:
        """Send ``seat``'s page a line (``refused`` or ``notice``)."""
        self._send(seat, {"type": kind, "text": text})

    def started(self, seed: int | None) -> None:
        """An episode begins (``seed``: its seed, which says which episode it is)."""
        self.episode = None if seed is None else seed - self.seed
        self._returns = {}
        self._views.reset()

    def changed(self, env: Any) -> None:
        """Bring every person's page up to date with ``env`` (after a reset or a step)."""
        base = env.unwrapped
        for agent, reward in base.rewards.items():  # the returns so far, shown at the end
            self._returns[agent] = self._returns.get(agent, 0.0) + float(reward)
        self._seq += 1
        scene = scene_data(base)  # one drawing for every seat's page
        for seat in self.seats:
            state = self._views.state(env, seat, self._returns, scene)
            message = self._message(seat, state)
            with self._lock:
                self.seats[seat].state = message
                self.seats[seat].busy = False
            self._send(seat, message)

    def _message(self, seat: str, state: dict) -> dict:
        turn = state.get("turn") or {}
        limit = self.time_limit if turn.get("you") else None
        return {
            "type": "state",
            "seq": self._seq,
            "game": {"task": self.env_id, "episode": self.episode, "episodes": self.episodes},
            "time_limit": limit,
            **state,
        }

    def _send(self, seat: str, message: dict) -> None:
        for listener in list(self.listeners):
            listener(seat, message)

    def _team(self, env: Any) -> dict[str, Any]:
        from mase.agents import make_policy
        from mase.runner.teams import team_builder

        others = {s: n for s, n in self.team.items() if s not in self.seats}
        team = team_builder(others, list(env.possible_agents), self.llm)(env, 0)
        for seat in self.seats:
            fallback = make_policy(self.fallback, env, llm=self.llm)
            team[seat] = PersonSeat(self, seat, self.time_limit, fallback)
        return team

    def broadcast(self, env: Any) -> Any:
        """``env`` in the wrapper that brings the pages up to date after every step."""
        return _Broadcast(env, self)

    def _play(self) -> None:
        from mase.runner.evaluate import evaluate

        try:
            self.summary = evaluate(
                self.env_id,
                self._team,
                episodes=self.episodes,
                seed=self.seed,
                out=self.out,
                resume=self.resume,
                env_kwargs=self.env_kwargs,
                messages=self.messages,
                llm=self.llm,
                record=True,
                wrappers=[self.broadcast, *self.wrappers],
                stop_after_failures=0,
                label=self.label,
            )
        except EpisodeStopped:
            pass
        except Exception as exc:  # noqa: BLE001 - shown on every page, then the thread ends
            self.error = f"{type(exc).__name__}: {exc}"
            for seat in self.seats:
                self.tell(seat, "refused", f"The game stopped: {self.error}")
        finally:
            self.finished.set()
            for seat in self.seats:
                self._send(seat, {"type": "finished", "error": self.error})
