"""Who knows what: exact ground truth for Theory-of-Mind questions, read from the event log.

A :class:`KnowledgeTracker` consumes a task's :class:`mase.events.Event` records in order and
keeps, for every agent, the value it holds for each fact (first-hand or as a teammate's claim)
and what it knows about what its teammates hold, each with the event it came from, so every
answer can be traced to what made it true.

The rules, from the paper's annotation criteria (was the target present and able to observe,
had it visited the room, was it communicated):

* An event that establishes facts (anything but a message) gives every agent in its audience
  those facts first-hand, and every agent in the audience learns that every other agent in the
  audience holds them too: what those present see while they see each other is common ground.
  A task says which parts of an event are seen together by whom (``shared``): search and
  rescue shows a room's contents to everyone in it, the scoreboard to everyone.
* A message gives its recipients the facts it states (read by the task's claim reader) as
  claims of the sender, right or wrong. Everyone in its audience learns what the others now
  hold: a recipient knows the sender holds what it said (A told B), the sender knows each
  recipient holds it (B told A), and recipients know it of each other (the message reached all
  of them together); a message that says a teammate holds a fact ("Alpha says ...") tells its
  readers that teammate holds it. The sender's own belief is not changed by what it says. A
  message whose claims could not be read is recorded in :attr:`KnowledgeTracker.unread`,
  never dropped silently.
* Facts imply others (``implied``: a bomb with colours left is active); the tracker credits the
  implied facts with the same evidence.
* The latest event wins: a fact seen or told later replaces what was held before; a value that
  has since changed unseen is a false belief (a stale visit).

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
    >>> tracker.evidence("bravo", ("code",))  # the event (its index in the log) that showed it
    0
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from mase.claims import Claims
from mase.events import Event, FactKey

#: Reads the claims a message states: ``(sender, text, known) -> Claims``, ``known`` being what
#: the sender held when it spoke (so "here" can mean its room); a task's ``read_claims``.
ClaimReader = Callable[[str, str, Mapping[FactKey, Any]], Claims]
#: How an observation event's facts are seen: ``event -> [(audience, facts), ...]``.
Shared = Callable[[Event], Iterable[tuple[frozenset[str], Mapping[FactKey, Any]]]]
#: The facts that follow from some facts (their closure, the given ones included).
Implied = Callable[[Mapping[FactKey, Any]], Mapping[FactKey, Any]]


@dataclass(frozen=True, slots=True)
class Belief:
    """The value an agent holds for one fact, and where it came from.

    Attributes:
        value: the value held.
        source: ``None`` when the agent saw it first-hand, else the agent whose message said it.
        round: the round of the event it came from.
        event: the index in the event log of the event it came from (-1 when not known).
    """

    value: Any
    source: str | None
    round: int
    event: int = -1

    @property
    def first_hand(self) -> bool:
        """Whether the agent observed the fact itself rather than being told it."""
        return self.source is None


@dataclass(frozen=True, slots=True)
class Unread:
    """A message whose claims the task's reader could not read (in part or at all).

    Attributes:
        event: the message's index in the event log.
        sender: who sent it.
        audience: who received it (the sender included).
        round: when.
        text: the message.
        parts: the parts of the text that look like claims but were not read.
    """

    event: int
    sender: str
    audience: frozenset[str]
    round: int
    text: str
    parts: tuple[str, ...]


class KnowledgeTracker:
    """What every agent holds, and knows its teammates hold, after a sequence of events.

    Args:
        read_claims: reads the claims a message states, ``(sender, text, known) -> Claims``
            (:func:`mase.claims.from_parser` makes one from a plain ``text -> facts`` parser).
            Without it messages carry no facts (but still count as events).
        message_kind: the event kind of messages (:meth:`mase.task.TaskEnv.post_message` emits
            ``"message"`` with the text in ``note``).
        shared: which parts of an observation event are seen together by whom; by default the
            whole event by its whole audience.
        implied: the closure of a set of facts under the task's implications; by default none.
    """

    def __init__(
        self,
        read_claims: ClaimReader | None = None,
        message_kind: str = "message",
        shared: Shared | None = None,
        implied: Implied | None = None,
    ):
        self.read_claims = read_claims
        self.message_kind = message_kind
        self.shared = shared
        self.implied = implied
        #: Messages whose claims could not be read, in order.
        self.unread: list[Unread] = []
        #: What each message was read to claim: event index -> Claims.
        self.claims: dict[int, Claims] = {}
        self._count = 0  # events consumed: the index of the next one
        # beliefs[agent][key]: what the agent holds
        self._beliefs: dict[str, dict[FactKey, Belief]] = {}
        # models[(b, a)][key]: (the value b knows a holds, the event index that showed it)
        self._models: dict[tuple[str, str], dict[FactKey, tuple[Any, int]]] = {}

    @classmethod
    def from_events(
        cls,
        events: Iterable[Event],
        read_claims: ClaimReader | None = None,
        **options: Any,
    ) -> KnowledgeTracker:
        """A tracker that has consumed ``events`` in order (``options``: as the constructor)."""
        tracker = cls(read_claims, **options)
        for event in events:
            tracker.update(event)
        return tracker

    # -- consuming events -----------------------------------------------------------------------

    def update(self, event: Event) -> None:
        """Consume one event (events must come in the order they happened)."""
        index = self._count
        self._count += 1
        if event.kind == self.message_kind:
            self._consume_message(event, index)
        elif event.facts:
            parts = self.shared(event) if self.shared else ((event.audience, event.facts),)
            for audience, facts in parts:
                if facts:
                    self._observe(tuple(audience), self._close(facts), event.round, index)

    def _close(self, facts: Mapping[FactKey, Any]) -> Mapping[FactKey, Any]:
        return self.implied(facts) if self.implied else facts

    def _observe(
        self, audience: tuple[str, ...], facts: Mapping[FactKey, Any], rnd: int, index: int
    ) -> None:
        known = {key: (value, index) for key, value in facts.items()}
        for agent in audience:
            held = self._beliefs.setdefault(agent, {})
            for key, value in facts.items():
                held[key] = Belief(value, None, rnd, index)
            for other in audience:
                if other != agent:
                    self._models.setdefault((agent, other), {}).update(known)

    def _read(self, event: Event) -> Claims:
        if self.read_claims is None or event.actor is None:
            return Claims({})
        known = {key: held.value for key, held in self._beliefs.get(event.actor, {}).items()}
        return self.read_claims(event.actor, event.note, known)

    def _consume_message(self, event: Event, index: int) -> None:
        claims = self._read(event)
        sender, rnd = event.actor, event.round
        if claims.unread and sender is not None:
            self.unread.append(
                Unread(index, sender, event.audience, rnd, event.note, tuple(claims.unread))
            )
        if sender is not None:
            self.claims[index] = claims
        if not claims.facts or sender is None:
            return
        facts = self._close(claims.facts)
        audience = tuple(event.audience)
        for agent in audience:
            if agent == sender:
                continue
            held = self._beliefs.setdefault(agent, {})
            for key, value in facts.items():
                held[key] = Belief(value, sender, rnd, index)
        # the sender may have said something it does not hold (a lie, a slip); second_order
        # checks what the other actually holds, so these models can record the claim as said
        known = {key: (value, index) for key, value in facts.items()}
        for agent in audience:
            for other in audience:
                if other != agent:
                    self._models.setdefault((agent, other), {}).update(known)
        # what the message says a teammate holds ("Alpha says ...", "Bravo defused ..."):
        # everyone who read it knows that teammate holds it
        for holder, keys in claims.holders.items():
            own = self._close({key: facts[key] for key in keys if key in facts})
            said = {key: known[key] for key in own if key in known}
            for agent in audience:
                if agent != holder and said:
                    self._models.setdefault((agent, holder), {}).update(said)

    # -- reading ---------------------------------------------------------------------------------

    def belief(self, agent: str, key: FactKey) -> Belief | None:
        """What ``agent`` holds for ``key``, or ``None`` if it holds nothing."""
        return self._beliefs.get(agent, {}).get(key)

    def beliefs(self, agent: str) -> dict[FactKey, Belief]:
        """Everything ``agent`` holds (a copy)."""
        return dict(self._beliefs.get(agent, {}))

    def model(self, knower: str, other: str) -> dict[FactKey, Any]:
        """The values ``knower`` knows ``other`` holds (a copy)."""
        return {key: known[0] for key, known in self._models.get((knower, other), {}).items()}

    def evidence(self, agent: str, key: FactKey) -> int | None:
        """The index of the event that gave ``agent`` what it holds for ``key``, or ``None``."""
        held = self.belief(agent, key)
        return held.event if held is not None else None

    def model_evidence(self, knower: str, other: str, key: FactKey) -> int | None:
        """The index of the event that showed ``knower`` what ``other`` holds for ``key``."""
        known = self._models.get((knower, other), {}).get(key)
        return known[1] if known is not None else None

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
        that value: both saw it together, or they exchanged a message stating it (either
        direction), or both received the same message. Knowledge is of something true, so a
        ``knower`` who is right about an outdated value is not credited.
        """
        value = _true_value(truth, key)
        if not self._holds(other, key, value):
            return False
        known = self._models.get((knower, other), {}).get(key)
        return known is not None and known[0] == value

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
