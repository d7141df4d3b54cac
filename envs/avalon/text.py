"""Avalon in words: the moderator's sentences, the rules, legal actions, and the two parsers.

Every fact is written with one sentence template (:data:`FACT_TEMPLATES`) and read back by
the regular expression made from it (:func:`parse_facts`), so an observation, a player's
message and the knowledge tracker agree on fact keys:

=================================  ==========================================================
fact key                           sentence
=================================  ==========================================================
``("role", seat)``                 ``Alpha's role is Merlin.``
``("side", seat)``                 ``Alpha is evil.``
``("merlin_or_morgana",)``         ``Merlin and Morgana are Alpha and Delta, in some order.``
``("quest", k)``                   ``Quest 2 failed.`` / ``Quest 2 succeeded.``
``("fails", k)``                   ``Quest 2 had 1 fail cards.``
``("team", k)``                    ``The team for quest 2 is Alpha, Charlie, Echo.``
``("vote", seat)``                 ``Alpha voted approve.``
=================================  ==========================================================

``parse_action`` reads a reply's action part: ``propose alpha, bravo`` or ``team: 1, 3``
(seats by name or number, 1 = alpha), ``approve`` / ``reject``, ``success`` / ``fail``,
``assassinate charlie``, ``examine delta``. Every pattern runs in linear time.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from mase.actions import ActionParse
from mase.envs.avalon.roles import (
    FAILS_NEEDED,
    MAX_REJECTIONS,
    QUESTS,
    ROLES,
    SEATS,
    TEAM_SIZES,
    TEAMS,
)
from mase.envs.avalon.world import (
    CARDS,
    VOTES,
    Rules,
    State,
    assassination_facts,
    lady_facts,
    start_facts,
)
from mase.events import Event
from mase.protocol import MESSAGES_HEADER, REPLY_FORMAT_HELP, message_line

# -- facts as sentences ------------------------------------------------------------------------

#: One sentence template per fact kind.
FACT_TEMPLATES = {
    "role": "{Seat}'s role is {value}.",
    "side": "{Seat} is {value}.",
    "merlin_or_morgana": "Merlin and Morgana are {value}, in some order.",
    "quest": "Quest {subject} {value}.",
    "fails": "Quest {subject} had {value} fail cards.",
    "team": "The team for quest {subject} is {value}.",
    "vote": "{Seat} voted {value}.",
}
_QUEST_WORDS = {"success": "succeeded", "fail": "failed"}

_SEAT = "(" + "|".join(SEATS) + r")\b"
_SEATS = rf"({'|'.join(SEATS)})\b((?:, (?:{'|'.join(SEATS)})\b)*+)"
_ROLE = "(" + "|".join(r.lower() for r in ROLES) + r")\b"
_K = r"([1-5])(?!\d)"
#: Every fact sentence in one pattern, so a text is scanned once (groups by kind below).
_FACT = re.compile(
    rf"\b(?:{_SEAT}(?:'s role is {_ROLE}| is (good|evil)\b| voted (approve|reject)\b)"
    rf"|Merlin and Morgana are {_SEAT} and {_SEAT}"
    rf"|Quest {_K} (?:(succeeded|failed)\b|had (\d{{1,2}})(?!\d) fail cards?\b)"
    rf"|The team for quest {_K} is {_SEATS})",
    re.I,
)
_ROLE_NAMES = {r.lower(): r for r in ROLES}


def _name(seat: str) -> str:
    return seat.capitalize()


def _names(seats: Sequence[str]) -> str:
    return ", ".join(_name(s) for s in seats)


def fact_sentence(key: tuple, value) -> str:
    """The sentence that states one fact (``""`` for a fact with no sentence)."""
    kind = key[0]
    if kind in ("role", "side", "vote"):
        return FACT_TEMPLATES[kind].format(Seat=_name(key[1]), value=value)
    if kind == "merlin_or_morgana":
        return FACT_TEMPLATES[kind].format(value=" and ".join(_name(s) for s in value))
    if kind == "quest":
        return FACT_TEMPLATES[kind].format(subject=key[1], value=_QUEST_WORDS[value])
    if kind == "fails":
        return FACT_TEMPLATES[kind].format(subject=key[1], value=value)
    if kind == "team":
        return FACT_TEMPLATES[kind].format(subject=key[1], value=_names(value))
    return ""


def facts_text(facts: Mapping) -> str:
    """Facts as sentences, one after another (:func:`parse_facts` reads them back)."""
    return " ".join(filter(None, (fact_sentence(k, v) for k, v in facts.items())))


def parse_facts(text: str) -> dict:
    """The facts ``text`` states in the moderator's sentences (later statements win)."""
    facts: dict = {}
    for m in _FACT.finditer(text):
        seat, role, side, vote, pair_a, pair_b, k, result, fails, team_k, first, rest = m.groups()
        if seat and role:
            facts[("role", seat.lower())] = _ROLE_NAMES[role.lower()]
        elif seat and side:
            facts[("side", seat.lower())] = side.lower()
        elif seat and vote:
            facts[("vote", seat.lower())] = vote.lower()
        elif pair_a and pair_a.lower() != pair_b.lower():
            facts[("merlin_or_morgana",)] = tuple(sorted((pair_a.lower(), pair_b.lower())))
        elif k and result:
            facts[("quest", int(k))] = "success" if result.lower() == "succeeded" else "fail"
        elif k and fails:
            facts[("fails", int(k))] = int(fails)
        elif team_k:
            others = [s for s in rest.lower().split(", ") if s]
            facts[("team", int(team_k))] = (first.lower(), *others)
    return facts


def claim_forms() -> list[str]:
    """One example of each fact sentence."""
    examples = {
        ("role", "alpha"): "Merlin",
        ("side", "bravo"): "evil",
        ("merlin_or_morgana",): ("charlie", "delta"),
        ("quest", 1): "success",
        ("fails", 2): 1,
        ("team", 3): ("alpha", "echo"),
        ("vote", "echo"): "approve",
    }
    return [fact_sentence(k, v) for k, v in examples.items()]


# -- observations ------------------------------------------------------------------------------

PHASE_WORDS = {
    "propose": "the leader proposes a team",
    "discuss": "discussion of the proposed team",
    "vote": "everyone votes on the team, in secret",
    "quest": "the team plays its quest cards, face down",
    "assassinate": "the Assassin names the player they think is Merlin",
    "lady": "the holder of the Lady of the Lake examines a player",
    "over": "the game is over",
}


def observation_text(
    s: State,
    rules: Rules,
    seat: int,
    known: Mapping,
    phase: str,
    to_act: bool,
    messages: Sequence[Event],
    reason: str | None,
) -> str:
    """What the moderator tells ``seat`` now: its role and knowledge, the game, its move."""
    me = s.seats[seat]
    # the first line is what the role showed at the start (and the Assassin's public act);
    # the Lady of the Lake's answers have a line of their own
    private = {**start_facts(s, seat), **assassination_facts(s)}
    lines = [f"You are {_name(me)}, seat {seat + 1} of {s.n}. {facts_text(private)}"]
    lady = lady_facts(s, seat)
    if lady:
        lines.append(f"{LADY_HEADER} {facts_text(lady)}")
    if s.stage == "over":
        winner = f"The {s.winner} side wins ({s.ended_by.replace('_', ' ')})."
        lines.append(f"The game is over. {winner}")
    else:
        k = min(s.quest, QUESTS - 1)
        lines.append(
            f"Quest {k + 1} of {QUESTS}: a team of {TEAM_SIZES[s.n][k]}; "
            f"{FAILS_NEEDED[s.n][k]} fail card(s) fail it. Rejected proposals in a row: "
            f"{s.rejections} of {MAX_REJECTIONS}. Leader: {_name(s.seats[s.leader])}."
        )
    results = {k: v for k, v in known.items() if k[0] in ("quest", "fails")}
    lines.append(f"{RESULTS_HEADER} {facts_text(results) or 'none yet.'}")
    mine = [(k, cards[seat]) for k, cards in enumerate(s.played, 1) if seat in cards]
    if mine:
        played = ", ".join(f"quest {k} {CARDS[card]}" for k, card in mine)
        lines.append(f"{CARDS_HEADER} {played}.")
    if s.proposal is not None:
        lines.append(fact_sentence(("team", s.quest + 1), [s.seats[i] for i in s.proposal.team]))
    votes = {k: v for k, v in known.items() if k[0] == "vote"}
    if votes:
        lines.append(f"{LAST_VOTE_HEADER} {facts_text(votes)}")
    history = history_lines(s)
    if history:
        lines.append(HISTORY_HEADER)
        lines.extend(history)
    if s.lady is not None:
        lines.append(f"The Lady of the Lake is held by {_name(s.seats[s.lady])}.")
    if s.stage != "over":
        lines.append(f"Now: {PHASE_WORDS[phase]}. {_your_move(s, seat, phase, to_act)}")
    if reason:
        lines.append(f"{INVALID_HEADER} {reason}")
    if messages:
        lines.append(MESSAGES_HEADER)
        lines.extend(message_line(e.actor, e.note) for e in messages)
    return "\n".join(lines)


#: Opens the line of the seat's own quest cards (seen by it alone).
CARDS_HEADER = "Your quest cards:"
_OWN_CARD = re.compile(r"\bquest ([1-5]) (success|fail)\b")


def parse_own_cards(text: str) -> dict[int, int]:
    """The seat's own cards its observation states: quest (1-based) -> 0 success, 1 fail."""
    line = next((x for x in text.splitlines() if x.startswith(CARDS_HEADER)), "")
    return {int(k): CARDS.index(card) for k, card in _OWN_CARD.findall(line)}


#: Opens the line of what the Lady of the Lake showed the seat.
LADY_HEADER = "The Lady of the Lake showed you:"

#: The line before the proposal history of an observation.
HISTORY_HEADER = "Proposals so far (the votes as revealed):"
_NONE = "none"


def history_lines(s: State) -> list[str]:
    """Every decided proposal, one line each: quest, leader, team, and the revealed votes.

    Public knowledge (proposals and votes are shown to everyone), written so that no line
    reads as a fact sentence; :func:`parse_history` reads the lines back.
    """
    lines = []
    for number, p in enumerate(s.proposals, 1):
        if p.approved is None:
            continue  # the proposal on the table: its votes are still secret
        default = " (default team)" if p.default else ""
        head = (
            f"Proposal {number}, quest {p.quest + 1}, leader {_name(s.seats[p.leader])}{default}: "
            f"team {_names(s.seats[i] for i in p.team)}; "
        )
        if p.votes is None:
            lines.append(head + "no vote (the fifth proposal in a row).")
            continue
        ayes = [s.seats[j] for j in sorted(p.votes) if p.votes[j]]
        noes = [s.seats[j] for j in sorted(p.votes) if not p.votes[j]]
        lines.append(head + f"approve: {_names(ayes) or _NONE}; reject: {_names(noes) or _NONE}.")
    return lines


_HISTORY = re.compile(
    rf"^Proposal (\d+), quest {_K}, leader {_SEAT}( \(default team\))?: team {_SEATS}; "
    rf"(?:(no vote)|approve: ((?:{_SEATS})|{_NONE}); reject: ((?:{_SEATS})|{_NONE}))",
    re.I | re.M,
)


def parse_history(text: str) -> list[dict]:
    """The proposals a :data:`HISTORY_HEADER` block states, in order.

    Each as ``{"number", "quest" (1-based), "leader", "team", "default", "votes"}``, with
    ``votes`` mapping each seat to ``"approve"`` or ``"reject"``, or ``None`` for a fifth
    proposal sent without a vote.
    """
    head, sep, block = text.partition(HISTORY_HEADER)
    if not sep:
        return []
    found = []
    for m in _HISTORY.finditer(block):
        number, k, leader, default, first, rest, no_vote, ayes, _, _, noes, _, _ = m.groups()
        votes = None
        if not no_vote:
            votes = {}
            for value, seats in (("approve", ayes), ("reject", noes)):
                if seats.lower() != _NONE:
                    votes.update(dict.fromkeys(seats.lower().split(", "), value))
        team = (first.lower(), *[t for t in rest.lower().split(", ") if t])
        found.append({
            "number": int(number), "quest": int(k), "leader": leader.lower(), "team": team,
            "default": bool(default), "votes": votes,
        })  # fmt: skip
    return found


_FIRST = re.compile(rf"^You are {_SEAT}, seat (\d+) of (\d+)\.(.*)$", re.I)
_HEADER = re.compile(
    rf"^Quest {_K} of {QUESTS}: a team of (\d+); (\d+) fail card\(s\) fail it\. Rejected "
    rf"proposals in a row: (\d+) of {MAX_REJECTIONS}\. Leader: {_SEAT}\.$",
    re.I,
)
_OVER = re.compile(r"^The game is over\. The (good|evil) side wins \(([a-z ]+)\)\.$")
_HOLDER = re.compile(rf"^The Lady of the Lake is held by {_SEAT}\.$", re.I)
_PHASE_OF = {words: phase for phase, words in PHASE_WORDS.items()}
_NOW = re.compile(r"^Now: (" + "|".join(map(re.escape, _PHASE_OF)) + r")\. (.+)$")
_WAIT = "You wait for your turn."
INVALID_HEADER = "Your last action was invalid:"
RESULTS_HEADER = "Results so far:"
LAST_VOTE_HEADER = "Last vote:"


def parse_observation(text: str) -> dict:
    """Every fact a moderator's observation (:func:`observation_text`) states, line by line.

    The message lines (after the messages header) are not read here: they are the senders'
    claims. Keys: ``("seat",)`` and ``("players",)``; the first line's and the Lady of the
    Lake's facts (``("role", seat)``, ``("side", seat)``, ``("merlin_or_morgana",)``, and
    ``("lady", seat)`` for each side she showed); ``("ended_by",)`` and ``("winner",)`` once
    the game is over, else ``("quest_now",)``, ``("team_size",)``, ``("fails_needed",)``,
    ``("rejections",)``, ``("leader",)``, ``("phase",)`` and ``("to_act",)``; the results
    (``("quest", k)``, ``("fails", k)``); the own cards (``("card", k)``); the team on the
    table (``("team", k)``); the last vote (``("vote", seat)``); ``("proposal", number)`` for
    each proposal of the history, ``(quest, leader, team, default, votes)`` with the votes in
    seat order (``None``: sent without a vote); ``("lady_holder",)``; ``("invalid",)``.

    Raises:
        ValueError: a line that is none of the observation's, so that no fact goes unread.
    """
    own, _, _ = text.partition(f"\n{MESSAGES_HEADER}\n")
    lines = own.split("\n")
    facts: dict = {("invalid",): False}
    first = _FIRST.match(lines[0])
    if not first:
        raise ValueError(f"not an Avalon observation: {lines[0][:80]!r}")
    facts[("seat",)], facts[("players",)] = first.group(1).lower(), int(first.group(3))
    facts.update(parse_facts(first.group(4)))
    history, listed = False, 0
    for line in lines[1:]:
        if history and line.startswith("Proposal "):
            listed += 1  # read below, by parse_history
            continue
        history = False
        if not _read_line(line, facts):
            if line != HISTORY_HEADER:
                raise ValueError(f"an observation line no parser reads: {line[:80]!r}")
            history = True
    proposals = parse_history(own)
    if len(proposals) != listed:
        raise ValueError(f"{listed} proposal lines, {len(proposals)} of them read")
    for p in proposals:
        votes = p["votes"]
        if votes is not None:
            votes = tuple((seat, votes[seat]) for seat in sorted(votes, key=SEATS.index))
        facts[("proposal", p["number"])] = (p["quest"], p["leader"], p["team"], p["default"],
                                             votes)  # fmt: skip
    return facts


def _read_line(line: str, facts: dict) -> bool:
    """Read one line of the observation into ``facts``; whether it is one of its lines."""
    if line.startswith(LADY_HEADER):
        shown = parse_facts(line[len(LADY_HEADER) :])
        facts.update(shown)
        facts.update({("lady", key[1]): side for key, side in shown.items()})
    elif m := _OVER.match(line):
        facts[("winner",)], facts[("phase",)] = m.group(1), "over"
        facts[("ended_by",)] = m.group(2).replace(" ", "_")
    elif m := _HEADER.match(line):
        k, size, fails, rejections, leader = m.groups()
        facts[("quest_now",)], facts[("team_size",)] = int(k), int(size)
        facts[("fails_needed",)], facts[("rejections",)] = int(fails), int(rejections)
        facts[("leader",)] = leader.lower()
    elif line.startswith((RESULTS_HEADER, LAST_VOTE_HEADER, "The team for quest ")):
        facts.update(parse_facts(line))
    elif line.startswith(CARDS_HEADER):
        facts.update({("card", k): CARDS[c] for k, c in parse_own_cards(line).items()})
    elif m := _HOLDER.match(line):
        facts[("lady_holder",)] = m.group(1).lower()
    elif m := _NOW.match(line):
        facts[("phase",)] = _PHASE_OF[m.group(1)]
        facts[("to_act",)] = m.group(2) != _WAIT
    elif line.startswith(INVALID_HEADER):
        facts[("invalid",)] = True
    else:
        return False
    return True


def _your_move(s: State, seat: int, phase: str, to_act: bool) -> str:
    if not to_act:
        return _WAIT
    if phase == "propose":
        size = s.team_size()
        return f"You are the leader: propose a team of {size} (for example 'propose alpha, ...')."
    if phase == "discuss":
        return "Your turn to speak: what you say is your move."
    if phase == "vote":
        return "Vote: approve or reject."
    if phase == "quest":
        return "Play a quest card: success" + (" or fail." if s.side(seat) == "evil" else ".")
    if phase == "assassinate":
        return "You are the Assassin: name the player you think is Merlin."
    return "Examine a player who has not held the Lady of the Lake: you will learn their side."


RULES_TEMPLATE = """\
You are {name}, one of {n} players of The Resistance: Avalon: {seats} (seat numbers 1 to {n}).
Sides: {good} good (loyal servants of Arthur) and {evil} evil (minions of Mordred); roles in \
this game: {roles}. Each player's role is secret.
What roles see at the start: Merlin sees the evil players, except Mordred; Percival sees \
Merlin and Morgana without knowing which is which; evil players see each other, except \
Oberon, who sees no one and whom no one sees; loyal servants see no one.
Five quests; team sizes {sizes}; fail cards that fail a quest: {fails}.
Each round the leader proposes a team of the quest's size; {discussion}then everyone votes \
approve or reject at once, unseen until all have voted, and a strict majority approves. \
{rejections} A rejection passes the lead to the next player.
The team plays quest cards face down: good players must play success; evil players may play \
success or fail. Only the number of fail cards is announced.
Three failed quests: evil wins. Three successful quests: {assassin}{lady}
Actions: 'propose alpha, bravo' or 'team: 1, 2'; 'approve' or 'reject'; 'success' or 'fail'; \
'assassinate charlie'; 'examine delta'. In the discussion your reply is what you say.
{reply_format}"""


def rules_text(s: State, rules: Rules, seat: int) -> str:
    """The rules as told to ``seat`` (no secret in them: the role set is public)."""
    n = s.n
    counts: dict[str, int] = {}
    for role in sorted(s.roles, key=list(ROLES).index):
        counts[role] = counts.get(role, 0) + 1
    roles = ", ".join(f"{c} {r}" if c > 1 else r for r, c in counts.items())
    good = sum(ROLES[r] == "good" for r in s.roles)
    passes = rules.discussion
    discussion = (
        f"then {passes} pass(es) of discussion around the table, starting after the leader; "
        if passes
        else ""
    )
    rejections = (
        f"The {MAX_REJECTIONS}th proposal in a row goes on the quest without a vote."
        if rules.fifth_proposal == "forced"
        else f"{MAX_REJECTIONS} rejected proposals in a row: evil wins."
    )
    assassin = (
        "the Assassin names one player; if that is Merlin evil wins, otherwise good wins."
        if "Assassin" in s.roles
        else "good wins."
    )
    lady = (
        "\nLady of the Lake: after quests 2, 3 and 4 its holder examines a player who has not "
        "held it and privately learns their side; the card passes to that player."
        if rules.lady_of_the_lake
        else ""
    )
    return RULES_TEMPLATE.format(
        name=_name(s.seats[seat]),
        n=n,
        seats=_names(s.seats),
        good=good,
        evil=n - good,
        roles=roles,
        sizes=", ".join(map(str, TEAM_SIZES[n])),
        fails=", ".join(map(str, FAILS_NEEDED[n])),
        discussion=discussion,
        rejections=rejections,
        assassin=assassin,
        lady=lady,
        reply_format=REPLY_FORMAT_HELP,
    )


def legal_actions_text(s: State, seat: int, phase: str, legal: Sequence[int]) -> list[str]:
    """The legal actions of ``seat`` now, in words."""
    if phase == "discuss":
        return ["say what you think of the team, in your own words"]
    if phase == "propose":
        teams = TEAMS[s.n][s.team_size()]
        return ["propose " + ", ".join(s.seats[i] for i in teams[t]) for t in legal]
    if phase == "vote":
        return [VOTES[v] for v in legal]
    if phase == "quest":
        return [CARDS[c] for c in legal]
    verb = "assassinate" if phase == "assassinate" else "examine"
    return [f"{verb} {s.seats[j]}" for j in legal]


# -- parsing replies into actions -------------------------------------------------------------

_MENTION = re.compile(rf"\b(?:{_SEAT}|(\d++))", re.I)
_VOTE = re.compile(r"\b(approve|reject)\w*+", re.I)
_CARD = re.compile(r"\b(succe|fail)\w*+", re.I)


def _mentions(s: State, text: str) -> tuple[list[int], str]:
    """The seats ``text`` names (by name or number), in order, or a reason."""
    seats = []
    for m in _MENTION.finditer(text):
        if m.group(1):
            index = SEATS.index(m.group(1).lower())
        else:
            digits = m.group(2)
            index = int(digits) - 1 if len(digits) <= 2 else -1
        if not 0 <= index < s.n:
            return (
                [],
                f"{m.group(0)[:20]!r} is no player here (players 1 to {s.n}: {_names(s.seats)})",
            )
        seats.append(index)
    return seats, ""


def parse_action(s: State, seat: int, phase: str, legal: Sequence[int], text: str) -> ActionParse:
    """Read the action part of a reply into an action index, or say why it is none."""
    if phase == "vote":
        found = {m.group(1).lower() for m in _VOTE.finditer(text)}
        if len(found) == 1:
            return ActionParse(VOTES.index(found.pop()))
        return ActionParse(None, "vote with exactly one of: approve, reject")
    if phase == "quest":
        found = {m.group(1).lower() for m in _CARD.finditer(text)}
        if len(found) == 1:
            return ActionParse(0 if found.pop() == "succe" else 1)
        return ActionParse(None, "play exactly one card: " + " or ".join(CARDS[c] for c in legal))
    if phase not in ("propose", "assassinate", "lady"):
        return ActionParse(None, "it is not your turn to act; wait for your turn")
    seats, reason = _mentions(s, text)
    if reason:
        return ActionParse(None, reason)
    if phase == "propose":
        size = s.team_size()
        if len(set(seats)) != len(seats):
            return ActionParse(None, f"name each player once; a team of {size} has {size} players")
        if len(seats) != size:
            return ActionParse(
                None, f"name {size} players for the team (you named {len(seats)}), "
                "for example 'propose alpha, bravo'",
            )  # fmt: skip
        return ActionParse(TEAMS[s.n][size].index(tuple(sorted(seats))))
    verb = "assassinate" if phase == "assassinate" else "examine"
    if len(set(seats)) != 1:
        return ActionParse(None, f"name exactly one player, for example '{verb} charlie'")
    if seats[0] not in legal:
        return ActionParse(None, f"you cannot {verb} {_name(s.seats[seats[0]])}; "
                           f"choose among {_names([s.seats[j] for j in legal])}")  # fmt: skip
    return ActionParse(seats[0])
