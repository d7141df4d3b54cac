"""Search and rescue in words: observations, rules, legal actions, and the two parsers.

Every fact is written with one sentence template (:data:`FACT_TEMPLATES`) and read back by
the regular expression made from it, so an observation, a scripted teammate's message and a
language model's reply that uses the same sentences all parse to the same fact keys as the
vector view. ``parse_action`` reads replies in the paper's "Action selection: ... Message to
Team: ..." format and in free phrasings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from mase.actions import ActionParse
from mase.envs.search_rescue.world import (
    INVALID_REASONS,
    Layout,
    State,
    invalid_event,
    invalid_reason,
)
from mase.events import Event
from mase.protocol import MESSAGES_HEADER, REPLY_FORMAT_HELP, message_line

# -- facts as sentences ------------------------------------------------------------------------

#: One sentence template per fact kind (fact key = (kind, subject)).
FACT_TEMPLATES = {
    "round": "Round {value} of {max_rounds}.",
    "score": "Team score: {value}.",
    "cutters": "{subject} holds cutters: {value}.",
    "agent_room": "{subject} is in room {value}.",
    "room_bomb": "Room {subject} has bomb {value}.",
    "bomb_room": "Bomb {subject} is in room {value}.",
    "bomb_status": "Bomb {subject} is {value}.",
    "bomb_phases": "Bomb {subject} has {value} phases.",
    "bomb_remaining": "Bomb {subject} remaining sequence: {value}.",
}

_WORD = r"[A-Za-z]+"
_COLOURS = r"(?:none|[a-z]+(?:, [a-z]+)*+)"
#: A number as facts state it: at most 9 digits (a longer run of digits is no fact, and
#: ``int`` refuses runs of over 4,300 digits).
_N = r"(\d{1,9})(?!\d)"
_FACT_PATTERNS = {
    "round": re.compile(rf"\bRound {_N} of \d{{1,9}}\."),
    "score": re.compile(rf"\bTeam score: {_N}\b"),
    "cutters": re.compile(rf"\b({_WORD}) holds cutters: ({_COLOURS})\.", re.I),
    "agent_room": re.compile(rf"\b({_WORD}) is in room {_N}\.", re.I),
    "room_bomb": re.compile(rf"\bRoom {_N} has (?:bomb {_N}|(no) bomb)\.", re.I),
    "bomb_room": re.compile(rf"\bBomb {_N} is in room {_N}\.", re.I),
    "bomb_status": re.compile(rf"\bBomb {_N} is (active|defused|exploded)\.", re.I),
    "bomb_phases": re.compile(rf"\bBomb {_N} has {_N} phases?\.", re.I),
    "bomb_remaining": re.compile(rf"\bBomb {_N} remaining sequence: ({_COLOURS})\.", re.I),
}


def colours_text(colours: Iterable[str]) -> str:
    """``("red", "green")`` -> ``"red, green"``; empty -> ``"none"``."""
    return ", ".join(colours) or "none"


def _colours_value(text: str) -> tuple[str, ...]:
    text = text.lower()
    return () if text == "none" else tuple(text.split(", "))


def fact_sentence(key: tuple, value: object, max_rounds: int = 0) -> str:
    """Write one fact ``(key, value)`` as its template sentence."""
    kind = key[0]
    subject = key[1] if len(key) > 1 else None
    if kind == "room_bomb" and not value:
        return f"Room {subject} has no bomb."
    if isinstance(subject, str):
        subject = subject.capitalize()
    if kind in ("cutters", "bomb_remaining"):
        value = colours_text(value)  # type: ignore[arg-type]
    if kind == "bomb_phases" and value == 1:
        return f"Bomb {subject} has 1 phase."
    return FACT_TEMPLATES[kind].format(subject=subject, value=value, max_rounds=max_rounds)


def claim_forms() -> list[str]:
    """One example of each fact sentence a message can claim (for a claim-reading model)."""
    examples = {
        ("bomb_remaining", 2): ("red", "green"),
        ("bomb_phases", 2): 2,
        ("bomb_status", 4): "defused",
        ("bomb_room", 2): 3,
        ("room_bomb", 3): 2,
        ("agent_room", "bravo"): 6,
        ("score",): 40,
    }
    forms = [fact_sentence(k, v) for k, v in examples.items()]
    forms += [
        fact_sentence(("room_bomb", 5), 0),
        fact_sentence(("bomb_remaining", 4), ()) + " (nothing left to cut)",
        fact_sentence(("bomb_status", 5), "exploded"),
        fact_sentence(("bomb_status", 1), "active"),
    ]
    return forms


def facts_text(facts: Mapping[tuple, object], max_rounds: int = 0) -> str:
    """Write several facts as sentences separated by spaces."""
    return " ".join(fact_sentence(k, v, max_rounds) for k, v in facts.items())


def parse_facts(text: str) -> dict[tuple, object]:
    """Read every fact sentence in ``text``; later sentences win over earlier ones.

    Sentences that are not fact templates are ignored, so this reads observations, messages
    and free text alike.
    """
    found: list[tuple[int, tuple, object]] = []
    for kind, pattern in _FACT_PATTERNS.items():
        for m in pattern.finditer(text):
            g = m.groups()
            if kind in ("round", "score"):
                found.append((m.start(), (kind,), int(g[0])))
            elif kind == "cutters":
                found.append((m.start(), (kind, g[0].lower()), _colours_value(g[1])))
            elif kind == "agent_room":
                if g[0].lower() in ("bomb", "who", "it", "that", "which", "what"):
                    continue
                found.append((m.start(), (kind, g[0].lower()), int(g[1])))
            elif kind == "room_bomb":
                room, bomb = int(g[0]), 0 if g[2] else int(g[1])
                found.append((m.start(), (kind, room), bomb))
            elif kind == "bomb_remaining":
                found.append((m.start(), (kind, int(g[0])), _colours_value(g[1])))
            elif kind == "bomb_status":
                found.append((m.start(), (kind, int(g[0])), g[1].lower()))
            else:
                found.append((m.start(), (kind, int(g[0])), int(g[1])))
    found.sort(key=lambda item: item[0])
    return {key: value for _, key, value in found}


# -- results of one's own last action -----------------------------------------------------------

#: How an invalid action is explained; each starts with words no other reason starts with.
REASON_TEMPLATES = {
    "already_there": "you are already in room {room}.",
    "not_adjacent": "room {target} is not next to room {room}; its doors lead to rooms "
    "{doors}{detour}.",
    "no_bomb": "there is no bomb in room {room}.",
    "bomb_done": "the bomb in room {room} is already {status}; there is nothing left to do here.",
    "not_owned": "you have no {colour} cutter; {holders} can cut {colour}, so ask for help.",
    "wrong_colour": "the bomb in room {room} rejected the {colour} cutter: {colour} is not its "
    "next phase. Inspect it to learn the sequence.",
    "unparseable": "your reply names no action I can carry out: {detail}",
    "out_of_range": "action {action} does not exist; actions are numbered 0 to {last}.",
}
RESULT_CODES = ("moved", "inspected", "cut", "exploded") + tuple(
    f"invalid:{code}" for code in INVALID_REASONS
)
_RESULT_OF_KIND = {"move": "moved", "inspect": "inspected", "cut": "cut", "explode": "exploded"}


def result_code(event: Event) -> str:
    """The result code of one's own action event (see :data:`RESULT_CODES`)."""
    if event.kind == "invalid":
        return "invalid:" + event.note.split(":", 1)[0]
    return _RESULT_OF_KIND[event.kind]


def explain_invalid(layout: Layout, state: State, event: Event) -> str:
    """The sentence that tells an agent why its action failed."""
    code, _, detail = event.note.partition(":")
    agent = event.actor
    room = event.facts.get(("agent_room", agent), state.positions[agent])
    if code == "unparseable":
        return REASON_TEMPLATES[code].format(detail=detail)
    action = int(detail)
    if code == "out_of_range":
        return REASON_TEMPLATES[code].format(action=action, last=len(layout.actions) - 1)
    kind, arg = layout.actions[action]
    if code in ("bomb_done", "wrong_colour"):
        bomb_id = next(k[1] for k in event.facts if k[0] == "bomb_status")
        room = event.facts[("bomb_room", bomb_id)]
        status = event.facts[("bomb_status", bomb_id)]
        return REASON_TEMPLATES[code].format(room=room, status=status, colour=arg)
    if code == "not_adjacent":
        return REASON_TEMPLATES[code].format(
            target=arg,
            room=room,
            doors=_rooms(layout.neighbours[room]),
            detour=_detour(layout, room, arg),
        )
    if code == "not_owned":
        holders = [a.capitalize() for a in layout.agents if arg in layout.cutters[a]]
        return REASON_TEMPLATES[code].format(colour=arg, holders=" and ".join(holders) or "nobody")
    return REASON_TEMPLATES[code].format(room=room if code != "already_there" else arg)


def _rooms(rooms: Iterable[int]) -> str:
    return ", ".join(str(r) for r in sorted(rooms))


def detour_room(layout: Layout, start: int, goal: int) -> int | None:
    """The first room of a shortest path from ``start`` to ``goal`` (the lowest, if several).

    ``None`` when ``goal`` cannot be reached or is ``start`` itself.
    """
    dist = layout.distances()
    if goal not in dist[start] or goal == start:
        return None
    for room in sorted(layout.neighbours[start]):
        if dist[room].get(goal) == dist[start][goal] - 1:
            return room
    return None


def _detour(layout: Layout, start: int, goal: int) -> str:
    """Name the first room of a shortest path from ``start`` to ``goal``."""
    room = detour_room(layout, start, goal)
    return "" if room is None else f"; to reach room {goal}, go through room {room}"


# -- observation, rules, legal actions --------------------------------------------------------


#: How an action is told to the one who took it, and to a teammate who saw it.
_OWN_ACTION = {
    "move": "you moved to room {room}.",
    "inspect": "you inspected bomb {bomb}.",
    "cut": "you applied the {colour} cutter to bomb {bomb}.",
    "explode": "you applied the {colour} cutter to bomb {bomb} and it exploded.",
}
_SEEN_ACTION = {
    "move": "You saw {who} move.",
    "inspect": "You saw {who} inspect bomb {bomb}.",
    "cut": "You saw {who} apply the {colour} cutter to bomb {bomb}.",
    "explode": "You saw bomb {bomb} explode when {who} applied {colour}.",
}


def _action_fields(event: Event) -> dict:
    bomb = next((k[1] for k in event.facts if k[0].startswith("bomb_")), None)
    room = event.facts.get(("agent_room", event.actor))
    who = event.actor.capitalize() if event.actor else "Someone"
    return {"bomb": bomb, "room": room, "colour": event.note, "who": who}


def own_result_text(layout: Layout, state: State, event: Event) -> str:
    """The sentence about one's own last action, with the facts it revealed."""
    if event.kind == "invalid":
        head = "Your last action failed: " + explain_invalid(layout, state, event)
    else:
        head = "Your last action: " + _OWN_ACTION[event.kind].format(**_action_fields(event))
    return head + (" " + facts_text(event.facts) if event.facts else "")


def seen_text(event: Event) -> str:
    """A teammate's action that the agent witnessed, with the facts it revealed."""
    head = _SEEN_ACTION[event.kind].format(**_action_fields(event))
    return head + " " + facts_text(event.facts)


def observation_text(
    layout: Layout,
    state: State,
    agent: str,
    inbox: list[Event],
    view: Mapping[tuple, object],
    max_rounds: int,
) -> str:
    """The text observation: what happened since the agent's last turn, then what it sees now.

    Messages from teammates come last, under ``Messages:``, so that the facts they claim are
    kept apart from what the agent observed itself.
    """
    lines = [f"You are {agent.capitalize()}."]
    happened = []
    messages = []
    for event in inbox:
        if event.kind == "message":
            if event.actor != agent:
                messages.append(message_line(event.actor, event.note))
        elif event.actor == agent:
            happened.append("- " + own_result_text(layout, state, event))
        else:
            happened.append("- " + seen_text(event))
    if happened:
        lines.append("Since your last turn:")
        lines.extend(happened)
    room = state.positions[agent]
    lines.append("Now:")
    for kinds in _VIEW_LINES:
        group = {k: v for k, v in view.items() if k[0] in kinds}
        if group:
            lines.append(facts_text(group, max_rounds))
    lines.append(f"Doors from room {room} lead to rooms {_rooms(layout.neighbours[room])}.")
    lines.append("Your legal actions: " + "; ".join(legal_actions_text(layout, state, agent)) + ".")
    if messages:
        lines.append(MESSAGES_HEADER)
        lines.extend(messages)
    return "\n".join(lines)


# -- what an observation states beyond its fact sentences --------------------------------------

#: The kinds of a teammate's action a seat can see (``witness=True``), in the vector's order.
SEEN_KINDS = ("move", "inspect", "cut", "explode")
#: The result codes whose sentence names the seat's room.
ROOM_NAMED = frozenset(
    ("moved", "invalid:already_there", "invalid:not_adjacent", "invalid:no_bomb")
    + ("invalid:bomb_done", "invalid:wrong_colour")
)
#: The result codes whose sentence names the bomb acted on.
BOMB_NAMED = frozenset(("inspected", "cut", "exploded"))


def last_action_facts(layout: Layout, state: State, event: Event) -> dict[tuple, object]:
    """What the sentence about one's own last action states, as facts besides its event's.

    ``("last_result",)`` the result code (:data:`RESULT_CODES`); ``("last_room",)`` the room
    the sentence names as the seat's; ``("last_bomb",)`` the bomb acted on;
    ``("last_colour",)`` the cutter's colour; ``("last_status",)`` a finished bomb's status;
    for a move to a room not next door, ``("last_target",)`` that room, ``("last_doors",)``
    the doors out and ``("last_detour",)`` the first room of a shortest way there;
    ``("last_holders",)`` who holds the cutter the seat lacks. The number of an action out
    of range and the explanation of an unreadable reply echo the seat's own input; they are
    no facts of the game, and :func:`parse_observation` skips them too.
    """
    code = result_code(event)
    facts: dict[tuple, object] = {("last_result",): code}
    agent = event.actor
    if event.kind != "invalid":
        fields = _action_fields(event)
        if event.kind == "move":
            facts[("last_room",)] = fields["room"]
        else:
            facts[("last_bomb",)] = fields["bomb"]
        if event.kind in ("cut", "explode"):
            facts[("last_colour",)] = fields["colour"]
        return facts
    reason, _, detail = event.note.partition(":")
    if reason in ("unparseable", "out_of_range"):
        return facts
    kind, arg = layout.actions[int(detail)]
    room = event.facts.get(("agent_room", agent), state.positions[agent])
    if reason == "already_there":
        facts[("last_room",)] = arg
    elif reason == "not_adjacent":
        facts[("last_target",)] = arg
        facts[("last_room",)] = room
        facts[("last_doors",)] = tuple(sorted(layout.neighbours[room]))
        detour = detour_room(layout, room, arg)
        if detour is not None:
            facts[("last_detour",)] = detour
    elif reason == "no_bomb":
        facts[("last_room",)] = room
    elif reason in ("bomb_done", "wrong_colour"):
        bomb = next(k[1] for k in event.facts if k[0] == "bomb_status")
        facts[("last_room",)] = event.facts[("bomb_room", bomb)]
        if reason == "bomb_done":
            facts[("last_status",)] = event.facts[("bomb_status", bomb)]
        else:
            facts[("last_colour",)] = arg
    elif reason == "not_owned":
        facts[("last_colour",)] = arg
        facts[("last_holders",)] = holders(layout, arg)
    return facts


def holders(layout: Layout, colour: str) -> tuple[str, ...]:
    """The agents holding a cutter of ``colour``, in turn order."""
    return tuple(a for a in layout.agents if colour in layout.cutters[a])


def seen_action_facts(event: Event) -> dict[tuple, object]:
    """What the sentence about a teammate's action seen states, besides its event's facts.

    ``("seen", who)`` the kind of action (:data:`SEEN_KINDS`), ``("seen_bomb", who)`` the
    bomb it acted on and ``("seen_colour", who)`` the colour it applied.
    """
    fields, who = _action_fields(event), event.actor
    facts: dict[tuple, object] = {("seen", who): event.kind}
    if event.kind != "move":
        facts[("seen_bomb", who)] = fields["bomb"]
    if event.kind in ("cut", "explode"):
        facts[("seen_colour", who)] = fields["colour"]
    return facts


_ROOM, _BOMB, _COLOUR = r"(?P<room>\d+)", r"(?P<bomb>\d+)", r"(?P<colour>[a-z]+)"
_OWN_PATTERNS = {
    "moved": rf"you moved to room {_ROOM}\.",
    "inspected": rf"you inspected bomb {_BOMB}\.",
    "exploded": rf"you applied the {_COLOUR} cutter to bomb {_BOMB} and it exploded\.",
    "cut": rf"you applied the {_COLOUR} cutter to bomb {_BOMB}\.",
}
_FAILED_PATTERNS = {
    "already_there": rf"you are already in room {_ROOM}\.",
    "not_adjacent": rf"room (?P<target>\d+) is not next to room {_ROOM}; its doors lead to "
    r"rooms (?P<doors>\d+(?:, \d+)*)(?:; to reach room (?P=target), go through room "
    r"(?P<detour>\d+))?\.",
    "no_bomb": rf"there is no bomb in room {_ROOM}\.",
    "bomb_done": rf"the bomb in room {_ROOM} is already (?P<status>[a-z]+); there is nothing "
    r"left to do here\.",
    "not_owned": rf"you have no {_COLOUR} cutter; (?P<holders>[A-Za-z ]+?) can cut (?P=colour), "
    r"so ask for help\.",
    "wrong_colour": rf"the bomb in room {_ROOM} rejected the {_COLOUR} cutter: (?P=colour) is "
    r"not its next phase\.",
    "unparseable": r"your reply names no action I can carry out: ",
    "out_of_range": r"action -?\d+ does not exist; actions are numbered 0 to \d+\.",
}
_RESULT_PATTERNS = {code: re.compile(p) for code, p in _OWN_PATTERNS.items()} | {
    f"invalid:{code}": re.compile(p) for code, p in _FAILED_PATTERNS.items()
}
_OWN_LINE = re.compile(r"^- Your last action( failed)?: (.*)$", re.M)
_WHO = r"(?P<who>[A-Za-z]+)"
_SEEN_PATTERNS = {
    "move": re.compile(rf"^- You saw {_WHO} move\.", re.M),
    "inspect": re.compile(rf"^- You saw {_WHO} inspect bomb {_BOMB}\.", re.M),
    "cut": re.compile(rf"^- You saw {_WHO} apply the {_COLOUR} cutter to bomb {_BOMB}\.", re.M),
    "explode": re.compile(
        rf"^- You saw bomb {_BOMB} explode when {_WHO} applied {_COLOUR}\.", re.M
    ),
}
_SEAT = re.compile(r"\AYou are ([A-Za-z]+)\.$", re.M)
_DOORS = re.compile(r"^Doors from room \d+ lead to rooms (\d+(?:, \d+)*)\.$", re.M)
_LEGAL = re.compile(r"^Your legal actions: (.*)\.$", re.M)
_NAMED_VALUES = {"room": int, "bomb": int, "target": int, "detour": int, "status": str}


def parse_observation(text: str) -> dict[tuple, object]:
    """Every fact the own part of an observation states (its messages cut off).

    The fact sentences (:func:`parse_facts`, later ones winning), who the seat is
    (``("seat",)``), the sentence about its own last action (:func:`last_action_facts`'s keys),
    the teammates' actions it saw (:func:`seen_action_facts`'s keys), the doors out of its room
    (``("doors",)``) and its legal actions in words (``("legal",)``).

    Raises:
        ValueError: a line about the last action that no result's wording matches.
    """
    facts = parse_facts(text)
    seat = _SEAT.search(text)
    if seat:
        facts[("seat",)] = seat[1].lower()
    for line in _OWN_LINE.finditer(text):
        facts.update(_parse_result(bool(line[1]), line[2]))
    for kind, pattern in _SEEN_PATTERNS.items():
        for m in pattern.finditer(text):
            who = m["who"].lower()
            facts[("seen", who)] = kind
            if kind != "move":
                facts[("seen_bomb", who)] = int(m["bomb"])
            if kind in ("cut", "explode"):
                facts[("seen_colour", who)] = m["colour"]
    doors = _DOORS.search(text)
    if doors:
        facts[("doors",)] = tuple(int(r) for r in doors[1].split(", "))
    legal = _LEGAL.search(text)
    if legal:
        facts[("legal",)] = tuple(legal[1].split("; ")) if legal[1] else ()
    return facts


def _parse_result(failed: bool, sentence: str) -> dict[tuple, object]:
    for code, pattern in _RESULT_PATTERNS.items():
        if code.startswith("invalid:") != failed:
            continue
        m = pattern.match(sentence)
        if m is None:
            continue
        facts: dict[tuple, object] = {("last_result",): code}
        for name, value in m.groupdict().items():
            if value is None:
                continue
            if name in _NAMED_VALUES:
                facts[(f"last_{name}",)] = _NAMED_VALUES[name](value)
            elif name == "colour":
                facts[("last_colour",)] = value
            elif name == "doors":
                facts[("last_doors",)] = tuple(int(r) for r in value.split(", "))
            elif name == "holders":
                names = () if value == "nobody" else value.split(" and ")
                facts[("last_holders",)] = tuple(n.lower() for n in names)
        return facts
    raise ValueError(f"no result reads {sentence!r}")


#: How the "Now:" part of an observation groups its facts, one line per group.
_VIEW_LINES = (
    ("round", "score"),
    ("cutters",),
    ("agent_room",),
    ("room_bomb", "bomb_room", "bomb_status"),
)


def action_text(layout: Layout, state: State, action: int) -> str:
    """An action index in words, e.g. ``"go to room 3"``."""
    kind, arg = layout.actions[action]
    if kind == "inspect":
        return "inspect the bomb here"
    if kind == "go":
        return f"go to room {arg}"
    return f"apply the {arg} cutter"


def legal_actions_text(layout: Layout, state: State, agent: str) -> list[str]:
    """The agent's legal actions in words, in action order."""
    bomb = state.bomb_in(state.positions[agent])
    out = []
    for i, (kind, arg) in enumerate(layout.actions):
        if invalid_reason(state, agent, i) is not None:
            continue
        if kind == "inspect":
            out.append(f"inspect bomb {bomb.id}")
        elif kind == "go":
            out.append(f"go to room {arg}")
        else:
            out.append(f"apply {arg} cutter to bomb {bomb.id}")
    return out


RULES_TEMPLATE = """\
You are {name}, one of {team_size} agents ({team}) on a bomb-defusal mission.
Rooms: {rooms}. Doors (you can move only through a door): {doors}.
There are {n_bombs} bombs, at most one per room. Each bomb has a sequence of 1 to {max_phases} \
coloured phases; apply cutters in exactly that order to defuse it. Inspect a bomb to learn its \
sequence. Each phase cut earns the team {points} points ({max_score} in all).
Cutters: {cutters}. You can only use cutters you hold; ask a teammate for the others.
Agents act in turn ({team}); one round is one action each. The mission ends when every bomb is \
defused or after {max_rounds} rounds.
You see your own room (who is in it, its bomb and whether that bomb is active, defused or \
exploded), your tools, {teammates_seen} and the result of your own last action. {witness_rule}
Each turn choose one action: go to room N, inspect bomb, or apply COLOUR cutter.
{reply_format}"""


#: What the rules say about teammates' actions, per observation rule (``witness``).
WITNESS_RULES = {
    False: "You do not see what teammates do or what their actions reveal, even in your room, "
    "unless they tell you.",
    True: "You also see what teammates in your room do and what it reveals; you do not see "
    "what teammates do elsewhere unless they tell you.",
}


def rules_text(
    layout: Layout, agent: str, max_rounds: int, see_teammates: bool, witness: bool = False
) -> str:
    """The rules of the mission as told to ``agent`` (``witness``: the observation rule)."""
    cutters = "; ".join(
        f"{a.capitalize()} holds {colours_text(layout.cutters[a])}" for a in layout.agents
    )
    return RULES_TEMPLATE.format(
        name=agent.capitalize(),
        team_size=len(layout.agents),
        team=", ".join(a.capitalize() for a in layout.agents),
        rooms=_rooms(layout.rooms),
        doors=", ".join(f"{a}-{b}" for a, b in layout.edges),
        n_bombs=len(layout.phases),
        max_phases=max(layout.phases),
        points=10,
        max_score=layout.max_score,
        cutters=cutters,
        max_rounds=max_rounds,
        teammates_seen="where every teammate is" if see_teammates else "teammates in your room",
        witness_rule=WITNESS_RULES[witness],
        reply_format=REPLY_FORMAT_HELP,
    )


# -- parsing replies into actions -------------------------------------------------------------

# Possessive whitespace (\s++): a run of spaces is read once, never re-split between the
# optional words around it, so a reply of "go" and many spaces parses in linear time.
_GO = re.compile(
    r"\b(?:go|move|walk|head|travel|proceed|enter|return|run)\w*+\b(?:\s++(?:back|over|on))?"
    r"(?:\s++(?:to|into|towards?))?\s++(?:the\s++)?(?:room\s*+)?#?\s*+(-?\d++)"
)
_INSPECT = re.compile(
    r"\b(?:inspect|examine|check|look at)\w*+\b(?:\s++(?:the\s++)?bomb\s*+#?\s*+(\d++))?"
)
#: Room and bomb numbers a reply may name (longer ones are no room; ``int`` would refuse some).
_MAX_DIGITS = 9
_CUT = re.compile(r"\b(?:apply|applies|applying|use|using|cut|cutting|defuse|defusing|snip)\b")
_COLOUR_WORD = re.compile(r"\b([a-z]+)\b")


def parse_action(layout: Layout, state: State, agent: str, text: str) -> ActionParse:
    """Read the action part of a reply; return the legal action it names, or why it names none.

    Reads the paper's wording and free phrasings ("go to room 3", "move to 3", "inspect the
    bomb", "use the red cutter", "cut blue") in any case. A reply that names several different
    actions, an unknown room or colour, or an action that is illegal now is refused with a
    sentence the agent can act on. ``TaskEnv.read_action`` hands it the action part of a whole
    reply (:mod:`mase.protocol`: the message parts cut off, ``Action selection:`` dropped).
    """
    lowered = text.lower()

    candidates: dict[int, str] = {}
    problems = []
    for m in _GO.finditer(lowered):
        digits = m.group(1)
        room = int(digits) if len(digits.lstrip("-")) <= _MAX_DIGITS else None
        if room in layout.rooms:
            candidates.setdefault(layout.action_index("go", room), m.group(0))
        else:
            shown = digits if room is not None else f"{digits[:12]}..."
            problems.append(f"room {shown} does not exist (rooms: {_rooms(layout.rooms)})")
    for m in _INSPECT.finditer(lowered):
        named = m.group(1)
        here = state.bomb_in(state.positions[agent])
        if named is not None and len(named) > _MAX_DIGITS:
            problems.append(f"bomb {named[:12]}... does not exist")
            continue
        if named is not None and (here is None or int(named) != here.id):
            where = f"the bomb here is bomb {here.id}" if here else "there is no bomb here"
            problems.append(f"bomb {named} is not in your room ({where})")
            continue
        candidates.setdefault(0, m.group(0))
    if _CUT.search(lowered):
        words = set(_COLOUR_WORD.findall(lowered))
        named = [c for c in layout.colours if c in words]
        unknown = [w for w in words & _ALL_COLOUR_WORDS if w not in layout.colours]
        for colour in named:
            candidates.setdefault(layout.action_index("cut", colour), colour)
        if unknown and not named:
            problems.append(f"there is no {unknown[0]} cutter in this game")
        elif not named and not candidates:
            problems.append("say which colour to apply (e.g. 'apply red cutter')")

    if len(candidates) > 1:
        named = "; ".join(action_text(layout, state, a) for a in sorted(candidates))
        return ActionParse(None, f"the reply names several actions ({named}); choose one")
    if not candidates:
        hint = "; ".join(problems) if problems else "no action found"
        return ActionParse(
            None,
            f"{hint}. Answer like 'Action selection: go to room 3', 'inspect bomb', or "
            "'apply red cutter'",
        )
    action = next(iter(candidates))
    reason = invalid_reason(state, agent, action)
    if reason is not None:
        event = invalid_event(state, agent, reason, action)
        return ActionParse(None, explain_invalid(layout, state, event))
    return ActionParse(action)


_ALL_COLOUR_WORDS = frozenset(
    ("red", "green", "blue", "yellow", "purple", "orange", "white", "black", "pink", "brown")
)
