"""Events and messages: what happened in a task, and who saw it.

Every step of a MASE task emits :class:`Event` records. An event carries the facts it
establishes (a mapping from a fact key such as ``("bomb_remaining", 3)`` to its value) and
its audience (the agents who witnessed it). Observations are rendered from the events an
agent is in the audience of, and the knowledge tracker reads the same events, so what an
agent was shown and what it is credited with knowing come from one source.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

FactKey = tuple[Hashable, ...]


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened during a task.

    Attributes:
        kind: what happened, in the task's words (``"move"``, ``"inspect"``, ``"cut"``,
            ``"invalid"``, ``"observe"``, ``"message"``, ...).
        actor: the agent that caused it, or ``None`` for the world itself.
        facts: the facts the event establishes, ``{fact key: value}``.
        audience: the agents who witnessed the event.
        round: the round in which it happened (1-based).
        note: a short human-readable detail (for example the reason an action was invalid).
        revealed: this is the reveal of a secret move (a simultaneous vote, say), shown to its
            whole audience when everyone has moved; the mover saw it earlier, alone, as the
            same event with an audience of the mover only (:mod:`mase.schedules`).
    """

    kind: str
    actor: str | None
    facts: Mapping[FactKey, Any]
    audience: frozenset[str]
    round: int
    note: str = ""
    revealed: bool = False

    def __init__(
        self,
        kind: str,
        actor: str | None,
        facts: Mapping[FactKey, Any],
        audience: frozenset[str],
        round: int,
        note: str = "",
        revealed: bool = False,
    ):
        # a frozen dataclass's own __init__ assigns through object.__setattr__, which makes an
        # event cost twice as much; every step makes several, so the slots are set directly
        _KIND(self, kind)
        _ACTOR(self, actor)
        _FACTS(self, facts)
        _AUDIENCE(self, audience)
        _ROUND(self, round)
        _NOTE(self, note)
        _REVEALED(self, revealed)


_KIND, _ACTOR, _FACTS, _AUDIENCE, _ROUND, _NOTE, _REVEALED = (
    getattr(Event, name).__set__
    for name in ("kind", "actor", "facts", "audience", "round", "note", "revealed")
)


@dataclass(frozen=True, slots=True)
class Message:
    """A text message from one agent to some of its teammates.

    Attributes:
        sender: the agent that wrote it.
        recipients: the agents it is delivered to.
        text: what it says (already cleaned to the shared charset).
        round: the round in which it was sent.
    """

    sender: str
    recipients: tuple[str, ...]
    text: str
    round: int

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of the message."""
        return {
            "sender": self.sender,
            "recipients": list(self.recipients),
            "text": self.text,
            "round": self.round,
        }
