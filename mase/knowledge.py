"""Who knows what: exact ground truth for Theory-of-Mind questions, read from the event log.

A :class:`KnowledgeTracker` consumes a task's :class:`mase.events.Event` records in order and
keeps, for every agent, the value it holds for each fact (first-hand or as a teammate's claim)
and what it knows about what its teammates hold. Observations are rendered from the same
events, so what an agent was shown and what it is credited with knowing agree by construction.

The rules, from the paper's annotation criteria (was the target present and able to observe,
had it visited the room, was it communicated):

* An event that establishes facts (anything but a message) gives every agent in its audience
  those facts first-hand, and every agent in the audience learns that every other agent in the
  audience holds them too (B saw A observe it).
* A message gives its recipients the facts it states as claims of the sender, right or wrong.
  Everyone in its audience learns what the others now hold: a recipient knows the sender holds
  what it said (A told B), the sender knows each recipient holds it (B told A), and recipients
  know it of each other (the message reached all of them together). The sender's own belief is
  not changed by what it says.
* The latest event wins: a fact seen or told later replaces what was held before.

Queries are asked against the true current value of a fact, supplied by the caller (a
task's ``env.unwrapped.true_facts()``), so the tracker itself stays pure: no I/O,
no task import.

Example:
    >>> from mase.events import Event
    >>> tracker = KnowledgeTracker()
    >>> tracker.update(Event("inspect", "alpha", {("code",): 7}, frozenset({"alpha", "bravo"}), 1))
    >>> tracker.second_order("bravo", "alpha", ("code",), {("code",): 7})
    True
    >>> tracker.false_belief("alpha", ("code",), {("code",): 8})
    True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from mase.events import Event, FactKey

#: Reads the facts a message states from its text (a task's ``parse_facts``).
MessageFacts = Callable[[str], Mapping[FactKey, Any]]


@dataclass(frozen=True, slots=True)
class Belief:
    """The value an agent holds for one fact, and where it came from.

    Attributes:
        value: the value held.
        source: ``None`` when the agent saw it first-hand, else the agent whose message said it.
        round: the round of the event it came from.
    """

    value: Any
    source: str | None
    round: int

    @property
    def first_hand(self) -> bool:
        """Whether the agent observed the fact itself rather than being told it."""
        return self.source is None


class KnowledgeTracker:
    """What every agent holds, and knows its teammates hold, after a sequence of events.

    Args:
        message_facts: reads the facts a message's text states; without it messages carry no
            facts (but still count as events).
        message_kind: the event kind of messages (:meth:`mase.task.TaskEnv.post_message` emits
            ``"message"`` with the text in ``note``).
    """

    def __init__(self, message_facts: MessageFacts | None = None, message_kind: str = "message"):
        self.message_facts = message_facts
        self.message_kind = message_kind
        # beliefs[agent][key]: what the agent holds
        self._beliefs: dict[str, dict[FactKey, Belief]] = {}
        # models[(b, a)][key]: the value b knows a holds
        self._models: dict[tuple[str, str], dict[FactKey, Any]] = {}

    @classmethod
    def from_events(
        cls, events: Iterable[Event], message_facts: MessageFacts | None = None
    ) -> KnowledgeTracker:
        """A tracker that has consumed ``events`` in order."""
        tracker = cls(message_facts)
        for event in events:
            tracker.update(event)
        return tracker

    # -- consuming events -----------------------------------------------------------------------

    def update(self, event: Event) -> None:
        """Consume one event (events must come in the order they happened)."""
        if event.kind == self.message_kind:
            self._consume_message(event)
        elif event.facts:
            self._consume_observation(event)

    def _consume_observation(self, event: Event) -> None:
        facts, rnd = event.facts, event.round
        audience = tuple(event.audience)
        for agent in audience:
            held = self._beliefs.setdefault(agent, {})
            for key, value in facts.items():
                held[key] = Belief(value, None, rnd)
            for other in audience:
                if other != agent:
                    self._models.setdefault((agent, other), {}).update(facts)

    def _consume_message(self, event: Event) -> None:
        if self.message_facts is None or event.actor is None:
            return
        facts = self.message_facts(event.note)
        if not facts:
            return
        sender, rnd = event.actor, event.round
        audience = tuple(event.audience)
        for agent in audience:
            if agent == sender:
                continue
            held = self._beliefs.setdefault(agent, {})
            for key, value in facts.items():
                held[key] = Belief(value, sender, rnd)
        # the sender may have said something it does not hold (a lie, a slip); second_order
        # checks what the other actually holds, so these models can record the claim as said
        for agent in audience:
            for other in audience:
                if other != agent:
                    self._models.setdefault((agent, other), {}).update(facts)

    # -- reading ---------------------------------------------------------------------------------

    def belief(self, agent: str, key: FactKey) -> Belief | None:
        """What ``agent`` holds for ``key``, or ``None`` if it holds nothing."""
        return self._beliefs.get(agent, {}).get(key)

    def beliefs(self, agent: str) -> dict[FactKey, Belief]:
        """Everything ``agent`` holds (a copy)."""
        return dict(self._beliefs.get(agent, {}))

    def model(self, knower: str, other: str) -> dict[FactKey, Any]:
        """The values ``knower`` knows ``other`` holds (a copy)."""
        return dict(self._models.get((knower, other), {}))

    # -- Theory-of-Mind questions ----------------------------------------------------------------

    def introspection(self, agent: str, key: FactKey, truth: Mapping[FactKey, Any]) -> bool:
        """Does ``agent`` hold the current value of ``key``?

        Args:
            agent: whose knowledge is asked about.
            key: the fact.
            truth: the true current facts (at least ``key``).

        Returns:
            True when the agent holds a value for ``key`` and it is the true one.
        """
        return self._holds(agent, key, _true_value(truth, key))

    def first_order(self, other: str, key: FactKey, truth: Mapping[FactKey, Any]) -> bool:
        """Does teammate ``other`` hold the current value of ``key``?

        The same question as :meth:`introspection`, asked about someone else; a separate name
        so that probes read as the paper's levels.
        """
        return self._holds(other, key, _true_value(truth, key))

    def second_order(
        self, knower: str, other: str, key: FactKey, truth: Mapping[FactKey, Any]
    ) -> bool:
        """Does ``knower`` know that ``other`` holds the current value of ``key``?

        True when ``other`` does hold the current value and ``knower`` has seen it establish
        that value: both were in the audience of the event that showed it, or they exchanged a
        message stating it (either direction). Knowledge is of something true, so a ``knower``
        who is right about an outdated value is not credited.
        """
        value = _true_value(truth, key)
        if not self._holds(other, key, value):
            return False
        model = self._models.get((knower, other))
        return model is not None and key in model and model[key] == value

    def false_belief(self, agent: str, key: FactKey, truth: Mapping[FactKey, Any]) -> bool:
        """Does ``agent`` hold a value for ``key`` that is not the current one?"""
        held = self.belief(agent, key)
        return held is not None and held.value != _true_value(truth, key)

    def _holds(self, agent: str, key: FactKey, value: Any) -> bool:
        held = self.belief(agent, key)
        return held is not None and held.value == value


def _true_value(truth: Mapping[FactKey, Any], key: FactKey) -> Any:
    try:
        return truth[key]
    except KeyError:
        raise KeyError(f"the true facts have no {key!r}; pass the task's full true facts") from None
