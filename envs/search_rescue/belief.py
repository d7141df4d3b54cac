"""Belief states for search and rescue: the paper's template, and the oracle belief.

In belief mode (Li et al. 2023, appendix) an LLM agent keeps an explicit belief state with one
section per kind of information, rewrites it after each observation, and decides from it
instead of from the raw history. MASE writes it one section per line, ``Header: content``::

    Belief state of Alpha.
    Role: You are Alpha. Alpha holds cutters: red, green.
    Round and score: Round 3 of 30. Team score: 10.
    Your location: Alpha is in room 3.
    Last action result: Your last action: you inspected bomb 5. ...
    Room contents: Room 0 has bomb 4. Room 3 has no bomb.
    Teammate locations: Bravo is in room 5. Charlie is in room 0.
    Room connectivity: Doors: 0-3, 0-5, 0-6, 0-8, 3-8, 5-6, 6-8.
    Bomb intel: Bomb 4 is in room 0. Bomb 4 is active. Bomb 4 has 2 phases. ...
    Messages: Bravo: "..."
    Tools: Alpha holds cutters: red, green.
    Available actions: go to room 0; go to room 8; inspect bomb 5.
    What Bravo knows: Bravo knows what room 0 holds.
    What Charlie knows: unknown
    What your teammates know about you: Bravo knows that you know the sequence of bomb 4.

The content is fact sentences (:data:`~mase.envs.search_rescue.text.FACT_TEMPLATES`, read by
``parse_facts``) and, in the last sections, Theory-of-Mind statements
(:func:`~mase.envs.search_rescue.tom.statement`, read by ``tom.parse_statements``): the
extension the paper proposed, what each teammate knows and what they know about me. Unknown
content is the word ``unknown``.

The oracle belief is the same format filled from the knowledge tracker: what the agent has
really been shown or told, and what it really knows of its teammates' knowledge. It serves
ablations (an agent given a perfect belief) and is the reference a written belief is scored
against.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from mase.envs.search_rescue import text as words
from mase.envs.search_rescue import tom
from mase.envs.search_rescue.world import Layout
from mase.events import FactKey
from mase.knowledge import KnowledgeTracker
from mase.protocol import quote

#: The sections every agent's belief has, in order (teammate sections follow).
BASE_SECTIONS = (
    "Role",
    "Round and score",
    "Your location",
    "Last action result",
    "Room contents",
    "Teammate locations",
    "Room connectivity",
    "Bomb intel",
    "Messages",
    "Tools",
    "Available actions",
)
#: The Theory-of-Mind sections: one "What NAME knows" per teammate, then this one.
ABOUT_ME = "What your teammates know about you"
UNKNOWN = "unknown"

_HEAD = "Belief state of {name}."
_LINE = re.compile(r"^([A-Z][A-Za-z ]+?): ?(.*)$")


def sections(layout: Layout, agent: str) -> tuple[str, ...]:
    """The section headers of ``agent``'s belief, in order."""
    mates = tuple(f"What {a.capitalize()} knows" for a in layout.agents if a != agent)
    return BASE_SECTIONS + mates + (ABOUT_ME,)


def write(layout: Layout, agent: str, content: Mapping[str, str]) -> str:
    """A belief state with the given section contents (missing or empty ones are unknown)."""
    lines = [_HEAD.format(name=agent.capitalize())]
    for header in sections(layout, agent):
        text = " ".join(str(content.get(header) or "").split()) or UNKNOWN
        lines.append(f"{header}: {text}")
    return "\n".join(lines)


def read(text: str) -> dict[str, str]:
    """Section header -> content of a belief state.

    Lines that are not sections are kept with the section before them; text before the first
    section is dropped.
    """
    found: dict[str, str] = {}
    header = None
    for line in text.splitlines():
        m = _LINE.match(line.strip())
        if m and (m.group(1) in BASE_SECTIONS or m.group(1) == ABOUT_ME or
                  (m.group(1).startswith("What ") and m.group(1).endswith(" knows"))):  # fmt: skip
            header = m.group(1)
            found[header] = m.group(2).strip()
        elif header is not None and line.strip():
            found[header] = (found[header] + " " + line.strip()).strip()
    return found


#: The sections whose facts are the agent's own beliefs (the others quote messages and results).
FACT_SECTIONS = (
    "Role",
    "Round and score",
    "Your location",
    "Room contents",
    "Teammate locations",
    "Bomb intel",
    "Tools",
)


def facts(text: str) -> dict[FactKey, Any]:
    """The facts a belief state holds: those of its fact sections (:data:`FACT_SECTIONS`).

    Quoted messages and the last result are left out: they are what was said or happened,
    not what the agent now holds. A text without sections is read whole.
    """
    content = read(text)
    if not content:
        return words.parse_facts(text)
    return words.parse_facts(" ".join(content.get(h, "") for h in FACT_SECTIONS))


def _doors(layout: Layout) -> str:
    return "Doors: " + ", ".join(f"{a}-{b}" for a, b in layout.edges) + "."


def template(layout: Layout, agent: str, max_rounds: int) -> str:
    """The initial belief, before any observation: only what the rules say is filled in."""
    tools = words.fact_sentence(("cutters", agent), layout.cutters[agent])
    name = agent.capitalize()
    return write(
        layout,
        agent,
        {
            "Role": f"You are {name}. {tools}",
            "Round and score": words.facts_text({("round",): 1, ("score",): 0}, max_rounds),
            "Last action result": "none yet",
            "Room connectivity": _doors(layout),
            "Messages": "none",
            "Tools": tools,
        },
    )


def _group(facts: Mapping[FactKey, Any], agent: str, max_rounds: int) -> dict[str, str]:
    """Fact sentences sorted into the belief's fact sections."""
    groups: dict[str, dict] = {}
    for key, value in sorted(facts.items(), key=lambda kv: tuple(map(str, kv[0]))):
        kind = key[0]
        if kind in ("round", "score"):
            section = "Round and score"
        elif kind == "agent_room":
            section = "Your location" if key[1] == agent else "Teammate locations"
        elif kind == "room_bomb":
            section = "Room contents"
        elif kind.startswith("bomb_"):
            section = "Bomb intel"
        else:
            continue  # cutters: the role and tools sections say them
        groups.setdefault(section, {})[key] = value
    # the round line first, then the score
    order = {"round": 0, "score": 1}
    out = {}
    for section, group in groups.items():
        items = sorted(group.items(), key=lambda kv: (order.get(kv[0][0], 2), _bomb_order(kv[0])))
        out[section] = words.facts_text(dict(items), max_rounds)
    return out


_BOMB_KIND_ORDER = {"bomb_room": 0, "bomb_status": 1, "bomb_phases": 2, "bomb_remaining": 3}


def _bomb_order(key: FactKey) -> tuple:
    if key[0] in _BOMB_KIND_ORDER:
        return (key[1], _BOMB_KIND_ORDER[key[0]])
    return (str(key[1:]), 0)


def known_claims(
    tracker: KnowledgeTracker,
    viewer: str,
    knower: str,
    other: str,
    subjects: Mapping[str, tuple[int, ...]],
) -> list[tuple[tom.Claim, bool]]:
    """What ``viewer`` can tell that ``knower`` knows ``other`` holds, as Theory-of-Mind kinds.

    Judged from ``viewer``'s side only, never from the truth: a kind of a subject holds when
    ``viewer`` holds every fact of it and ``knower`` knows ``other`` holds the same values
    (``tracker.model(knower, other)``, built from events both were in the audience of, which
    ``viewer`` is one of). ``viewer`` is ``knower`` (what a teammate knows) or ``other``
    (what a teammate knows about the viewer), so everything read was in its audience.

    Returns ``(claim of kind and subject, holds)`` pairs for every kind and subject.
    """
    held = {key: belief.value for key, belief in tracker.beliefs(viewer).items()}
    model = tracker.model(knower, other)
    out = []
    for kind, subjects_of_kind in subjects.items():
        for subject in subjects_of_kind:
            keys = tom.fact_keys(kind, subject, held)
            holds = all(key in held and model.get(key, _ABSENT) == held[key] for key in keys)
            out.append((tom.Claim("first_order", kind, subject, other), holds))
    return out


_ABSENT = object()


def oracle(
    layout: Layout,
    agent: str,
    tracker: KnowledgeTracker,
    max_rounds: int,
    last_result: str | None,
    messages: list[tuple[str, str]],
    legal_actions: list[str],
) -> str:
    """What ``agent`` could know now, in the belief format (see the module docstring).

    Everything comes from what the agent was shown or told (the tracker's beliefs of the agent
    and what it saw teammates see), never from the true world: two worlds that look the same
    to the agent give the same oracle belief.

    Args:
        layout: the map and team.
        agent: whose belief.
        tracker: the episode's knowledge tracker.
        max_rounds: the round limit, for the round sentence.
        last_result: the sentence about the agent's own last action, if it has acted.
        messages: the ``(sender, text)`` messages in the agent's latest observation.
        legal_actions: the agent's legal actions in words.
    """
    held = {key: belief.value for key, belief in tracker.beliefs(agent).items()}
    content = _group(held, agent, max_rounds)
    tools = words.fact_sentence(("cutters", agent), layout.cutters[agent])
    content["Role"] = f"You are {agent.capitalize()}. {tools}"
    content["Tools"] = tools
    content["Room connectivity"] = _doors(layout)
    content["Last action result"] = last_result or "none yet"
    content["Messages"] = (
        " ".join(f"{sender.capitalize()}: {quote(text)}" for sender, text in messages) or "none"
    )
    content["Available actions"] = "; ".join(legal_actions) + "."
    subjects = {
        "room": layout.rooms,
        "state": tuple(range(1, len(layout.phases) + 1)),
        "sequence": tuple(range(1, len(layout.phases) + 1)),
    }
    about_me = []
    for other in layout.agents:
        if other == agent:
            continue
        theirs = [
            tom.statement(claim)
            for claim, holds in known_claims(tracker, agent, agent, other, subjects)
            if holds
        ]
        content[f"What {other.capitalize()} knows"] = " ".join(theirs)
        for claim, holds in known_claims(tracker, agent, other, agent, subjects):
            if holds:
                about = tom.Claim("second_order", claim.kind, claim.subject, other)
                about_me.append(tom.statement(about))
    content[ABOUT_ME] = " ".join(about_me)
    return write(layout, agent, content)
