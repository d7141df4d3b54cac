"""Theory-of-Mind probe types, shared by the tasks that define probes and the wrapper that asks.

A probe hook (:data:`Probe`) is a function ``hook(context) -> iterable of Question``: after a
step it sees a :class:`ProbeContext` (who acted, the step's events, the task, its knowledge
tracker and true facts, a seeded generator per seat) and yields :class:`Question` records (who
is asked, the level, the kind, the teammate asked about, the fact keys, the question text). A
task names its built-in hooks in its ``tom_probes`` attribute; :class:`mase.wrappers.ToMProbe`
asks the questions and scores the replies against :func:`true_answer`.

The levels (:data:`LEVELS`), and the ground truth of each for the question's fact keys (all of
them must hold), evaluated when the question is put to the asked agent:

================  ==========================================================================
level             true when
================  ==========================================================================
introspection     the asked agent holds the current value (``tracker.introspection``)
first_order       teammate ``about`` holds it (``tracker.first_order``)
second_order      ``about`` knows the asked agent holds it
                  (``tracker.second_order(knower=about, other=asked)``)
================  ==========================================================================

``false_belief`` marks a question whose relevant agent holds an outdated value: the asked
agent (introspection), ``about`` (first order), or ``about``'s picture of the asked agent
(second order). A hook may instead give its own ``holds(tracker, truth) -> bool`` (:data:`Holds`),
which any other level needs.

A seat's questions must depend only on what that seat saw and the seed (the task contract's
non-interference rule): a hook draws the choices of a question put to seat S (which teammate it
names, which fact it picks) from ``context.rng_for(S)``, S's own generator, never from a
generator another seat's questions also draw from.

This module sits below tasks and wrappers: it imports neither, so a task's probe hooks can
build questions without importing the wrapper that asks them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from mase.events import Event, FactKey
from mase.knowledge import KnowledgeTracker

#: The Theory-of-Mind levels with a built-in ground truth (the table above), in order.
LEVELS = ("introspection", "first_order", "second_order")

#: A custom ground truth: ``holds(tracker, true_facts) -> bool``, evaluated at asking time.
Holds = Callable[[KnowledgeTracker, Mapping[FactKey, Any]], bool]


@dataclass(frozen=True)
class ProbeContext:
    """What a probe hook sees after a step.

    Attributes:
        agent: the agent that just acted.
        events: the events of that step (its action's, its message's, and any the task logged).
        env: the unwrapped task.
        knowledge: the task's knowledge tracker, up to date.
        truth: the true facts now.
        rngs: each seat's own seeded generator (for choosing whom to ask about): a question
            put to seat S draws from ``rngs[S]`` (:meth:`rng_for`), so what S is asked does not
            depend on the questions put to anyone else.
    """

    agent: str
    events: tuple[Event, ...]
    env: Any
    knowledge: KnowledgeTracker
    truth: Mapping[FactKey, Any]
    rngs: Mapping[str, np.random.Generator]

    @property
    def rng(self) -> np.random.Generator:
        """The acting agent's generator: for the questions put to the agent that just acted."""
        return self.rngs[self.agent]

    def rng_for(self, seat: str) -> np.random.Generator:
        """The generator of the questions put to ``seat``."""
        return self.rngs[seat]


@dataclass(frozen=True)
class Question:
    """A question a probe hook wants asked.

    Attributes:
        asked: the agent the question is put to (at its next turn).
        level: ``"introspection"``, ``"first_order"`` or ``"second_order"`` (any other level
            needs ``holds``).
        kind: what the question is about, in the task's words (``"sequence"``, ...).
        question: the text put to the agent.
        facts: the fact keys the answer depends on.
        about: the teammate asked about (``None`` for introspection).
        holds: a custom ground truth; ``None`` uses the level's rule (module docstring).
    """

    asked: str
    level: str
    kind: str
    question: str
    facts: tuple[FactKey, ...] = ()
    about: str | None = None
    holds: Holds | None = None

    def __post_init__(self) -> None:
        if self.holds is None:
            if self.level not in LEVELS:
                raise ValueError(
                    f"question level {self.level!r} is not one of {LEVELS}; give a custom "
                    "holds(tracker, truth) function for other levels"
                )
            if not self.facts:
                raise ValueError("a question needs the fact keys its answer depends on")
            if self.level != "introspection" and self.about is None:
                raise ValueError(f"a {self.level} question needs the teammate it is about")


#: A probe hook: given what just happened, the questions to ask.
Probe = Callable[[ProbeContext], Iterable[Question]]


def true_answer(
    question: Question, tracker: KnowledgeTracker, truth: Mapping[FactKey, Any]
) -> tuple[bool, bool]:
    """The true answer to ``question`` now, and whether a false belief is involved."""
    if question.holds is not None:
        return bool(question.holds(tracker, truth)), False
    asked, about, keys = question.asked, question.about, question.facts
    if question.level == "introspection":
        holds = all(tracker.introspection(asked, k, truth) for k in keys)
        stale = any(tracker.false_belief(asked, k, truth) for k in keys)
    elif question.level == "first_order":
        holds = all(tracker.first_order(about, k, truth) for k in keys)
        stale = any(tracker.false_belief(about, k, truth) for k in keys)
    else:
        holds = all(tracker.second_order(about, asked, k, truth) for k in keys)
        picture = tracker.model(about, asked)
        stale = any(k in picture and picture[k] != truth.get(k) for k in keys)
    return holds, stale


def evidence(question: Question, tracker: KnowledgeTracker) -> list[dict[str, Any]]:
    """What the true answer rests on: per fact, who holds what and the event that showed it.

    One row per fact key and agent whose holding the level asks about: the asked agent
    (introspection, and second order), ``about`` (first order), and ``about``'s picture of the
    asked agent (second order, ``"knows_of"``). ``event`` is the index in the task's event log
    of the event that made it so (``None``: nothing did). A custom ``holds`` gives no evidence.
    """
    if question.holds is not None:
        return []
    asked, about = question.asked, question.about
    holder = about if question.level == "first_order" else asked
    rows: list[dict[str, Any]] = []
    for key in question.facts:
        held = tracker.belief(holder, key) if holder else None
        rows.append(
            {
                "fact": list(key),
                "agent": holder,
                "value": held.value if held else None,
                "event": held.event if held else None,
            }
        )
        if question.level == "second_order" and about is not None:
            rows.append(
                {
                    "fact": list(key),
                    "agent": about,
                    "knows_of": asked,
                    "value": tracker.model(about, asked).get(key),
                    "event": tracker.model_evidence(about, asked, key),
                }
            )
    return rows


def unread_messages(question: Question, tracker: KnowledgeTracker) -> list[int]:
    """The unreadable messages the answer may rest on (their event indexes).

    A message counts when the claim reader left part of it unread, an agent whose knowledge
    the question is about sent or received it, and an unread part names one of the question's
    subjects (a fact key's second element, as a word: the bomb, the room).
    """
    agents = {question.asked} if question.level == "introspection" else {question.about}
    if question.level == "second_order":
        agents.add(question.asked)
    subjects = {str(key[1]).lower() for key in question.facts if len(key) > 1}
    found = []
    for unread in tracker.unread:
        if not agents & unread.audience:
            continue
        words = set(re.findall(r"\w+", " ".join(unread.parts).lower()))
        if subjects & words:
            found.append(unread.event)
    return found
