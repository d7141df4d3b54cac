"""The event log of a task: events, who saw them, messages, secret moves, who knows what.

:class:`EventLog` is the half of :class:`mase.task.TaskEnv` that records what happened. Every
event is logged and delivered to the inbox of each agent in its audience (what the agent
witnessed since its last turn, from which its observation is rendered); messages are events
too, listed also in their recipients' ``info["messages"]``; a secret move's events reach others
only at the reveal (:mod:`mase.schedules`); and the knowledge tracker reads the same log, so
what an agent was shown and what it is credited with knowing come from one source.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from mase.claims import Claims
from mase.events import Event, FactKey, Message
from mase.knowledge import KnowledgeTracker
from mase.schedules import Phase
from mase.spaces import clean_text


class EventLog:
    """Events, inboxes, messages and knowledge; mixed into :class:`mase.task.TaskEnv`.

    It uses the env's ``agents``, ``possible_agents``, ``infos``, ``round``, ``terminations``
    and ``truncations``, and its hooks ``turn_view``, ``parse_facts`` and ``true_facts``.
    """

    event_log: list[Event]
    #: Reads messages' claims instead of :meth:`read_claims` when set (a model-based reader,
    #: :func:`mase.llm.claims.use_model_claims`).
    claim_reader: Any = None
    messages_enabled: bool
    max_message_length: int
    speech_limit: int

    def _turn_started(self) -> None:
        """Log what the selected agent sees at the start of its turn, once per turn.

        An ``observe`` event with the task's :meth:`turn_view`, for the knowledge tracker, not
        delivered: the agent's observation already shows it. It is logged when knowledge is
        asked for (a probe or an oracle belief before the agent acts), or at the latest when
        the agent acts; the world does not change in between, so the view is the same
        whichever comes first.
        """
        if self._observed_turn == self._turns or not self._started:
            return
        agent = self.agent_selection
        if self.terminations.get(agent, True) or self.truncations.get(agent, True):
            return
        self._log_turn_view(agent)

    def _log_turn_view(self, agent: str) -> None:
        """Log ``agent``'s view now (it is live and has not been logged this turn)."""
        self._observed_turn = self._turns
        facts = self.turn_view(agent)
        if facts:
            self.emit(Event("observe", agent, facts, self._alone[agent], self.round), False)

    def _begin_turn(self, agent: str) -> None:
        """The agent acts now: what it was shown is consumed and its inbox starts afresh."""
        self._inbox[agent] = []
        info = self.infos[agent]
        if info:
            info.pop("messages", None)
            info.pop("invalid_action", None)

    def emit(self, event: Event, deliver: bool = True) -> None:
        """Record an event and deliver it to the inbox of every agent in its audience.

        Args:
            event: what happened.
            deliver: ``False`` logs the event for the knowledge tracker without putting it in
                any inbox, for what an agent already saw in its observation (its view at the
                start of its turn): delivering it again would change the next observation.
        """
        self.event_log.append(event)
        if deliver:
            inbox = self._inbox
            for agent in event.audience:
                inbox[agent].append(event)
            if event.kind == "message":
                self._deliver_message(event, event.audience)

    def _deliver(self, event: Event, agents: frozenset[str]) -> None:
        inbox = self._inbox
        for agent in agents:
            inbox[agent].append(event)
        if event.kind == "message":
            self._deliver_message(event, agents)

    def _deliver_message(self, event: Event, agents: frozenset[str]) -> None:
        """Also list a message in its recipients' ``info["messages"]`` (as records)."""
        sender = event.actor
        recipients = tuple(a for a in self.possible_agents if a in event.audience and a != sender)
        record = Message(sender, recipients, event.note, event.round).to_dict()
        for agent in agents:
            if agent != sender and agent in self.infos:
                self.infos[agent].setdefault("messages", []).append(record)

    def _emit_move(self, agent: str, events: Sequence[Event], phase: Phase) -> None:
        """Emit a move's events; in a secret phase only the mover sees them until the reveal."""
        if not phase.secret:
            for event in events:
                self.emit(event)
            return
        alone = self._alone[agent]
        for event in events:
            if event.audience <= alone:
                self.emit(event)  # private for good (a card played face down)
                continue
            if agent in event.audience:
                self.emit(
                    Event(event.kind, event.actor, event.facts, alone, event.round, event.note)
                )
            self._held.append((event, agent if agent in event.audience else None))

    def _reveal(self, event: Event, mover: str | None) -> None:
        """Show a held secret event to its audience (the mover already has its private copy)."""
        shown = Event(
            event.kind, event.actor, event.facts, event.audience, event.round, event.note, True
        )
        self.event_log.append(shown)
        self._deliver(shown, event.audience - {mover} if mover else event.audience)

    def _speech_event(self, agent: str, text: str, phase: Phase) -> Event:
        audience = frozenset(self.agents if phase.audience is None else phase.audience)
        # the task's own limit on what is said (a rule of the task: a message channel's
        # limit on its messages does not change it); else the channel's, if any
        limit = self.speech_limit or self.max_message_length or None
        note = clean_text(text, limit) if limit else clean_text(text)
        return Event("message", agent, {}, audience | self._alone[agent], self.round, note=note)

    def inbox(self, agent: str) -> list[Event]:
        """The events the agent witnessed since its last turn (oldest first)."""
        return self._inbox[agent]

    def post_message(self, sender: str, text: str, recipients: tuple[str, ...]) -> Message:
        """Deliver a message from ``sender``: recipients see it at their next observation.

        Used by :class:`mase.wrappers.MessageChannel`; a task without that wrapper is the
        no-communication condition (speech phases aside).
        """
        if not self.messages_enabled:
            raise RuntimeError(
                "this env has no message channel; wrap it with mase.wrappers.MessageChannel"
            )
        limit = self.max_message_length or None
        message = Message(sender, recipients, clean_text(text, limit or 10**9), self.round)
        audience = frozenset(recipients) | {sender}
        self.emit(Event("message", sender, {}, audience, self.round, note=message.text))
        self._turn_messages[sender] = message.text
        return message

    def received_messages(self, agent: str) -> list[Event]:
        """Message events from teammates in the agent's inbox."""
        return [e for e in self._inbox[agent] if e.kind == "message" and e.actor != agent]

    # -- facts and knowledge ------------------------------------------------------------------

    def knowledge(self) -> KnowledgeTracker:
        """Who knows what now: the episode's tracker, brought up to date with the event log.

        Built on first use and fed incrementally, so a task that never asks pays nothing. The
        facts a message states (read with the task's :meth:`read_claims`) enter its
        recipients' knowledge as the sender's claims, right or wrong; what is seen together
        by whom comes from :meth:`seen_together`, what follows from facts from
        :meth:`implied_facts`. Secret moves count only once revealed.
        """
        if self.agents:
            self._turn_started()
        if self._tracker is None:
            reader = self.claim_reader or self.read_claims
            self._tracker = KnowledgeTracker(
                reader, shared=self.seen_together, implied=self.implied_facts
            )
            self._tracked = 0
        log = self.event_log
        for event in log[self._tracked :]:
            self._tracker.update(event)
        self._tracked = len(log)
        return self._tracker

    def read_claims(self, sender: str, text: str, known: Mapping[FactKey, Any]) -> Claims:
        """The claims a message states, read for the knowledge tracker.

        By default its fact sentences (:meth:`parse_facts`; none when the task has no fact
        sentences); a task with free-text claims reads them with a tolerant grammar.

        Args:
            sender: who sent it.
            text: the message.
            known: what the sender held when it spoke (for words like "here").
        """
        try:
            return Claims(self.parse_facts(text))
        except NotImplementedError:
            return Claims({})

    def seen_together(self, event: Event) -> Iterable[tuple[frozenset[str], Mapping]]:
        """Who sees which part of an observation event together (common ground among them).

        By default the whole event by its whole audience. A task whose turn views hold things
        others see at the same time (a room's contents to everyone in it, a scoreboard to all)
        splits its ``observe`` events here, so the tracker credits each part to everyone who
        saw it and second-order knowledge between them.
        """
        return ((event.audience, event.facts),)

    def implied_facts(self, facts: Mapping[FactKey, Any]) -> Mapping[FactKey, Any]:
        """The facts that follow from ``facts``, the given ones included (default: none more)."""
        return facts

    def true_facts(self) -> dict[FactKey, Any]:
        """Every fact of the world now, in the fact keys of events (the ground truth)."""
        raise NotImplementedError

    def parse_facts(self, text: str) -> dict[FactKey, Any]:
        """The facts a text states, in the task's fact sentences."""
        raise NotImplementedError
