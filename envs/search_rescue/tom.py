"""Theory of Mind in search and rescue: the paper's question kinds, in words both ways.

The paper (Li et al. 2023) asks the acting agent, after an action that may change the world or
someone's beliefs, about itself and about a teammate, at three levels and four kinds:

==========  =====================================================  ==============================
kind        what is known                                           fact keys
==========  =====================================================  ==============================
room        the contents of room r                                  ``room_bomb r`` (+ its bomb's
                                                                    ``bomb_status``)
state       that bomb b's state and remaining sequence changed      ``bomb_status b``,
                                                                    ``bomb_remaining b``
phase       that a phase of bomb b was just defused                 ``bomb_remaining b``, ``score``
sequence    bomb b's sequence: the colours left to cut              ``bomb_remaining b``
==========  =====================================================  ==============================

Levels: ``introspection`` (do you know it?), ``first_order`` (does teammate P know it?),
``second_order`` (does P know that you know it?). The same phrase is used in questions and in
the statements of a belief state's Theory-of-Mind sections, and both are read back by regular
expressions made from it, so the offline model can answer a question from a belief it wrote.

:data:`PAPER_PROBES` are the paper's questions as :class:`mase.wrappers.ToMProbe` hooks. After
a successful action by agent A they ask A, at A's next turn, three questions per kind the
action bears on: introspection, first order about one teammate P, second order about P.

>>> import mase
>>> from mase.wrappers import MessageChannel, ToMProbe
>>> env = ToMProbe(MessageChannel(mase.make("mase/SearchRescue-v0")))
>>> env.reset(seed=0)
>>> for _ in range(3):  # Alpha, Bravo and Charlie inspect the bomb in their room
...     env.step(0)
>>> [q["question"] for q in env.infos["alpha"]["tom_questions"]][:1]
['Do you know the sequence of bomb 5?']

=========  =================  ========================================================
action     kinds              subject
=========  =================  ========================================================
move       room               the room A entered
inspect    sequence           the inspected bomb
cut        state, phase       the cut bomb
explode    state              the bomb that blew up (no phase was defused)
=========  =================  ========================================================

Choices the paper leaves open: P is drawn uniformly from A's teammates with A's own seeded
generator (``context.rng_for(A)``: what A is asked never depends on the questions put to the
others, whose actions A may not have seen), once per action (the same P for every kind of that
action); an invalid action (wrong colour, no door, unreadable reply) asks nothing, since it
changes no fact; a message alone asks nothing (the paper asks after actions); with no teammates
only introspection is asked. The fact keys are fixed when the question is made, from the true
facts then (kind ``room``: the bomb that room holds).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

from mase.events import FactKey
from mase.probes import LEVELS, ProbeContext, Question

KINDS = ("room", "state", "phase", "sequence")

#: What is known, per kind; ``{subject}`` is a room (room) or a bomb id (the others).
PHRASES = {
    "room": "what room {subject} holds",
    "state": "the state and remaining sequence of bomb {subject}",
    "phase": "that a phase of bomb {subject} was just defused",
    "sequence": "the sequence of bomb {subject}",
}


class Claim(NamedTuple):
    """One Theory-of-Mind proposition: who knows which kind of fact about what.

    Attributes:
        level: ``"introspection"``, ``"first_order"`` or ``"second_order"``.
        kind: one of :data:`KINDS`.
        subject: the room (kind ``room``) or bomb id.
        about: the teammate asked about (``None`` for introspection).
    """

    level: str
    kind: str
    subject: int
    about: str | None = None


def fact_keys(kind: str, subject: int, truth: Mapping[FactKey, Any]) -> tuple[FactKey, ...]:
    """The fact keys that knowing ``kind`` of ``subject`` means holding (see the table)."""
    if kind == "room":
        bomb = truth.get(("room_bomb", subject), 0)
        return (("room_bomb", subject),) + ((("bomb_status", bomb),) if bomb else ())
    if kind == "state":
        return (("bomb_status", subject), ("bomb_remaining", subject))
    if kind == "phase":
        return (("bomb_remaining", subject), ("score",))
    if kind == "sequence":
        return (("bomb_remaining", subject),)
    raise ValueError(f"unknown question kind {kind!r}; kinds: {KINDS}")


def _phrase(claim: Claim) -> str:
    return PHRASES[claim.kind].format(subject=claim.subject)


def question(claim: Claim) -> str:
    """The question asked to the acting agent (second person)."""
    what = _phrase(claim)
    if claim.level == "introspection":
        return f"Do you know {what}?"
    who = (claim.about or "").capitalize()
    if claim.level == "first_order":
        return f"Does {who} know {what}?"
    return f"Does {who} know that you know {what}?"


def statement(claim: Claim, holds: bool = True) -> str:
    """The claim as a sentence of a belief state (second person), true or negated."""
    what = _phrase(claim)
    if claim.level == "introspection":
        return f"You know {what}." if holds else f"You do not know {what}."
    who = (claim.about or "").capitalize()
    verb = "knows" if holds else "does not know"
    if claim.level == "first_order":
        return f"{who} {verb} {what}."
    return f"{who} {verb} that you know {what}."


_KIND_OF = {
    kind: re.compile(re.escape(phrase).replace(r"\{subject\}", r"(\d+)"), re.I)
    for kind, phrase in PHRASES.items()
}
_WHAT = "(?P<what>" + "|".join(p.pattern for p in _KIND_OF.values()) + ")"
_PATTERNS = {
    # (is a question, level form): pattern
    (True, "you"): re.compile(rf"\bDo you know {_WHAT}\?", re.I),
    (True, "other"): re.compile(
        rf"\bDoes (?P<who>[A-Za-z]+) know (?P<second>that you know )?{_WHAT}\?", re.I
    ),
    (False, "you"): re.compile(rf"(?<!that )\bYou (?P<neg>do not )?know {_WHAT}\.", re.I),
    (False, "other"): re.compile(
        rf"\b(?P<who>[A-Za-z]+) (?P<neg>does not know|knows) (?P<second>that you know )?{_WHAT}\.",
        re.I,
    ),
}


def _claim(m: re.Match) -> Claim:
    what = m.group("what")
    kind, found = next((k, f) for k, p in _KIND_OF.items() if (f := p.fullmatch(what)))
    subject = int(found.group(1))
    groups = m.re.groupindex
    if "who" not in groups:
        return Claim("introspection", kind, subject)
    level = "second_order" if m.group("second") else "first_order"
    return Claim(level, kind, subject, m.group("who").lower())


def _matches(text: str, is_question: bool) -> list[re.Match]:
    found = [m for form in ("you", "other") for m in _PATTERNS[is_question, form].finditer(text)]
    return sorted(found, key=lambda m: m.start())


def parse_question(text: str) -> Claim | None:
    """The claim a question asks about (the last question in ``text``), or ``None``."""
    found = _matches(text, True)
    return _claim(found[-1]) if found else None


def parse_statements(text: str) -> dict[Claim, bool]:
    """Every Theory-of-Mind statement in ``text``: claim -> whether it is said to hold."""
    found: dict[Claim, bool] = {}
    for m in _matches(text, False):
        neg = m.group("neg") or ""
        found[_claim(m)] = not neg.lower().startswith(("do not", "does not"))
    return found


#: Which question kinds an action event bears on (event kind -> kinds).
ACTION_KINDS = {
    "move": ("room",),
    "inspect": ("sequence",),
    "cut": ("state", "phase"),
    "explode": ("state",),
}


def _subject(event_kind: str, event_facts: Mapping[FactKey, Any], actor: str) -> int:
    if event_kind == "move":
        return event_facts[("agent_room", actor)]
    return next(key[1] for key in event_facts if key[0].startswith("bomb_"))


def paper_questions(context: ProbeContext) -> Iterator[Question]:
    """The paper's probe: after A's move, inspect, cut or explosion, ask A about itself and P.

    Yields, for each kind the action bears on (:data:`ACTION_KINDS`), the introspection,
    first-order and second-order question, P drawn once per action from A's teammates with
    A's own generator.
    """
    actor = context.agent
    for event in context.events:
        kinds = ACTION_KINDS.get(event.kind)
        if kinds is None or event.actor != actor:
            continue
        subject = _subject(event.kind, event.facts, actor)
        mates = [a for a in context.env.possible_agents if a != actor]
        about = mates[int(context.rng_for(actor).integers(len(mates)))] if mates else None
        for kind in kinds:
            keys = fact_keys(kind, subject, context.truth)
            claims = [Claim("introspection", kind, subject)]
            if about is not None:
                claims += [Claim(level, kind, subject, about) for level in LEVELS[1:]]
            for claim in claims:
                yield Question(
                    asked=actor,
                    level=claim.level,
                    kind=kind,
                    question=question(claim),
                    facts=keys,
                    about=claim.about,
                )


#: The paper's probe hooks, loaded by ``ToMProbe`` from ``SearchRescueEnv.tom_probes``.
PAPER_PROBES = (paper_questions,)
