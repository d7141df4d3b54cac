"""Avalon leak checks: everything a seat is told, against what the rules let it know.

Each check returns a list of leak descriptions (empty: no leak), so the same functions serve
the leak scan (``benchmarks/leak_scan_avalon.py``, thousands of games per role set), its fast
test, and the prompts of LLM seats (:func:`scan_prompt`).

What a seat may know comes from two sources, checked separately:

* the task's own :func:`mase.envs.avalon.world.known_facts`, read now (never the env's cache),
  against which :func:`check_text` reads the moderator's sentences with the task's
  ``parse_facts``;
* :func:`allowed_knowledge`, written here from the rulebook (REFERENCE §4) with its own table
  of who sees whom and the game's history: the deal, each Lady of the Lake examination (its
  holder alone learns the side, recomputed here from the role), the Assassin's public act (who
  the Assassin is, and Merlin when hit), the votes of each proposal once all are cast, the
  quests' results and the teams put up. Raw text is read against it with patterns of its own
  (:func:`check_sentences`): a sentence that names a player together with a role, a side, a
  quest card or a vote must be one of the few forms the rules allow, stating what is allowed.

Besides texts (observations, rules, legal actions, prompts: :func:`check_text`,
:func:`scan_prompt`) there are checks for the vector view, the action mask, the events of a step
(who each reached), the facts a seat's program is given and its belief template. The benchmark
also compares the history records the derivation reads (votes, cards, examinations, the
Assassin's target) with the moves it made, so the derivation rests on the moves.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mase import protocol
from mase.agents.codeact import split_memory
from mase.envs.avalon import text as words
from mase.envs.avalon import vector, world
from mase.envs.avalon.roles import ROLE_ORDER, SEATS, TEAM_SIZES
from mase.events import Event

#: The evil roles (REFERENCE §4), written out rather than read from ``roles.ROLES``.
EVIL = frozenset({"Morgana", "Assassin", "Mordred", "Oberon", "Minion of Mordred"})
#: role -> the roles whose holders it sees as evil at the start: Merlin every evil player but
#: Mordred; evil players each other but Oberon; Oberon, Percival and servants no one.
SEES_EVIL = {"Merlin": EVIL - {"Mordred"}, **dict.fromkeys(EVIL - {"Oberon"}, EVIL - {"Oberon"})}
ROLE_NAMES = ("Merlin", "Percival", "Loyal Servant", *sorted(EVIL))
#: Facts about players (the rest are public: quests, teams, revealed votes).
PRIVATE_KINDS = ("role", "side", "merlin_or_morgana")
VOTE = ("reject", "approve")  # a vote is action 0 or 1
CARDS = ("success", "fail")  # a quest card is action 0 or 1


@dataclass
class Allowed:
    """What one seat may know now by the rulebook.

    Attributes:
        seat: the seat.
        role: its role.
        facts: the role, side and Merlin/Morgana facts it may hold (a role implies its side).
        reveals: the votes of each revealed vote, oldest first (seat -> approve/reject).
        proposals: per proposal, in order: its revealed votes, ``None`` when sent without a
            vote, or ``"open"`` while it is on the table.
        results: the quest and fails facts announced.
        teams: quest (1-based) -> the teams put up for it.
        table: the team on the table now, as ``(quest, team)``, or ``None``.
        cards: the seat's own card on each scored quest it went on (quest -> success/fail).
        ceiling: per player, the most its block of the vector may show: ``(n, 5)``, columns
            me, known evil, known good, in Percival's pair, known Merlin.
        public_of: builds (once, for every seat) :attr:`public`, the public part of the
            vector: ``state()`` without the roles, its quest and vote blocks derived here.
    """

    seat: str
    role: str
    facts: dict
    reveals: list[dict[str, str]]
    proposals: list[Any]
    results: dict
    teams: dict[int, list[tuple[str, ...]]]
    table: tuple[int, tuple[str, ...]] | None
    cards: dict[int, str]
    ceiling: np.ndarray
    public_of: Any

    @property
    def public(self) -> np.ndarray:
        """The public part of the vector (see the attributes)."""
        return self.public_of()

    @property
    def last_votes(self) -> dict[str, str]:
        """The last vote revealed (empty before the first)."""
        return self.reveals[-1] if self.reveals else {}


def rulebook_start(roles: Mapping[str, str], seat: str) -> dict:
    """What ``seat`` learns at the start (``roles``: seat -> role), by the rulebook."""
    me = roles[seat]
    known = {("role", seat): me}
    known |= {("side", s): "evil" for s, r in roles.items() if r in SEES_EVIL.get(me, ())}
    if me == "Percival":  # Merlin and Morgana, which is which unknown; Merlin alone without her
        pair = sorted(s for s, r in roles.items() if r in ("Merlin", "Morgana"))
        if len(pair) == 2:
            known[("merlin_or_morgana",)] = tuple(pair)
        elif pair:
            known[("role", pair[0])] = "Merlin"
    return known


def allowed_knowledge(env: Any) -> dict[str, Allowed]:
    """Every seat's :class:`Allowed` now, from the deal and the game's history."""
    s = env.unwrapped.world
    reveals, proposals, teams, results, table, cards = _public_history(s)
    public = functools.cache(lambda: _public_vector(env, results, reveals[-1] if reveals else {}))
    return {
        seat: Allowed(
            seat,
            s.roles[me],
            facts,
            reveals,
            proposals,
            results,
            teams,
            table,
            cards[me],
            ceiling,
            public,
        )  # fmt: skip
        for me, (seat, (facts, ceiling)) in enumerate(_player_facts(s).items())
    }


_PUBLIC_HISTORY: dict[str, Any] = {"world": None, "key": None, "found": None}


def _public_history(s: Any) -> tuple:
    """Revealed votes, proposals, teams, results, the team on the table, and each seat's own
    cards (cached per history)."""
    played = getattr(s, "played", ())  # each scored quest's cards, where the task keeps them
    last = s.proposals[-1].approved if s.proposals else None
    key = (len(s.proposals), last, s.proposal is None, len(s.results), len(played))
    cache = _PUBLIC_HISTORY
    if cache["world"] is s and cache["key"] == key:
        return cache["found"]
    proposals: list[Any] = []
    teams: dict[int, list[tuple[str, ...]]] = {}
    for p in s.proposals:
        if p.approved is None:
            proposals.append("open")
        elif p.votes is None:
            proposals.append(None)
        else:
            proposals.append({s.seats[j]: VOTE[v] for j, v in p.votes.items()})
        teams.setdefault(p.quest + 1, []).append(tuple(s.seats[i] for i in p.team))
    reveals = [p for p in proposals if isinstance(p, dict)]
    results: dict = {}
    for k, (result, fails) in enumerate(zip(s.results, s.fails, strict=True), 1):
        results[("quest", k)], results[("fails", k)] = result, fails
    table = None
    if s.proposal is not None:
        table = (s.proposal.quest + 1, tuple(s.seats[i] for i in s.proposal.team))
    cards = [{k: CARDS[c[me]] for k, c in enumerate(played, 1) if me in c} for me in range(s.n)]
    found = (reveals, proposals, teams, results, table, cards)
    cache.update(world=s, key=key, found=found)
    return found


_PLAYER_FACTS: dict[str, Any] = {"world": None, "key": None, "facts": None}


def _player_facts(s: Any) -> dict[str, tuple[dict, np.ndarray]]:
    """Per seat, the player facts it may hold and its vector's ceiling (cached per history)."""
    key = (tuple(s.roles), len(s.lady_results), s.target)
    cache = _PLAYER_FACTS
    if cache["world"] is s and cache["key"] == key:
        return cache["facts"]
    roles = dict(zip(s.seats, s.roles, strict=True))
    public: dict = {}
    if s.target is not None:  # the Assassin's act: who names, and Merlin when hit
        public[("role", s.seats[s.roles.index("Assassin")])] = "Assassin"
        if s.roles[s.target] == "Merlin":
            public[("role", s.seats[s.target])] = "Merlin"
    found = {}
    for me, seat in enumerate(s.seats):
        facts = rulebook_start(roles, seat) | public
        for holder, target, _ in s.lady_results:
            if holder == me:
                facts[("side", s.seats[target])] = _side(roles[s.seats[target]])
        for key_, role in list(facts.items()):
            if key_[0] == "role":
                facts[("side", key_[1])] = _side(role)
        ceiling = np.zeros((s.n, 5), dtype=np.float32)
        ceiling[me, 0] = 1
        for fact, value in facts.items():
            if fact[0] == "side":
                ceiling[s.seats.index(fact[1]), 1 if value == "evil" else 2] = 1
            elif fact[0] == "role" and value == "Merlin":
                ceiling[s.seats.index(fact[1]), 4] = 1
            elif fact[0] == "merlin_or_morgana":
                ceiling[[s.seats.index(name) for name in value], 3] = 1
        found[seat] = (facts, ceiling)
    cache.update(world=s, key=key, facts=found)
    return found


def _public_vector(env: Any, results: Mapping, votes: Mapping[str, str]) -> np.ndarray:
    """The public part of every seat's vector, its quest and vote blocks derived here."""
    base = env.unwrapped
    s = base.world
    n = s.n
    start = len(ROLE_ORDER) * n  # the public part, before the state's history
    public = vector.state_vector(s, base.phase.name)[start : start + 29 + 5 * n].copy()
    quests = np.zeros((5, 3))
    for k in range(5):
        if ("quest", k + 1) in results:
            failed = results[("quest", k + 1)] == "fail"
            quests[k] = (not failed, failed, results[("fails", k + 1)] / TEAM_SIZES[n][k])
    public[:15] = quests.ravel()
    start = _vote_block(n)
    block = np.zeros((n, 2))
    for name, v in votes.items():
        block[s.seats.index(name), 0 if v == "approve" else 1] = 1  # approved, rejected
    public[start : start + 2 * n] = block.ravel()
    return public


def _vote_block(n: int) -> int:
    """Where the vote block starts in the public part: after quests, quest index, rejections,
    leader, team and phase."""
    return 15 + 6 + 1 + n + n + len(vector.PHASES)


def _side(role: str) -> str:
    return "evil" if role in EVIL else "good"


# -- text ------------------------------------------------------------------------------------

_SEAT = "(" + "|".join(SEATS) + ")"
_ROLE = "(" + "|".join(sorted(ROLE_NAMES, key=len, reverse=True)) + ")"
_CLAIM = (
    r"merlin|percival|loyal|servants?|morgana|assassins?|mordred|oberon|minions?|good|evil|"
    r"roles?|side|succe\w*|fail\w*|card\w*|approv\w*|reject\w*|vot\w*"
)
#: A claim word, a seat, the end of a sentence (in lower-case text).
_CLAIM_WORD = re.compile(rf"\b(?:{_CLAIM})\b")
_SEAT_WORD = re.compile(rf"\b{_SEAT}\b")
_SENTENCE_END = re.compile(r"([.;:!?\n])")
#: The sentence forms that may name a player with a claim word, and what each states.
_ROLE_FORM = re.compile(rf"{_SEAT}'s role is {_ROLE}", re.I)
_SIDE_FORM = re.compile(rf"{_SEAT} is (good|evil)", re.I)
_PAIR_FORM = re.compile(rf"Merlin and Morgana are {_SEAT} and {_SEAT}, in some order", re.I)
_VOTE_FORM = re.compile(rf"{_SEAT} voted (approve|reject)", re.I)
_YOU_ARE_SEAT = re.compile(rf"You are {_SEAT}\b", re.I)
_YOU_ARE_ROLE = re.compile(rf"You are (?:the |an? )?{_ROLE}\b", re.I)


def claim_sentences(text: str) -> list[str]:
    """The statements of ``text`` (sentences ended by ``.;:!`` or a line break, not by ``?``)
    that name a player together with a claim word: a role, a side, a quest card, a vote."""
    lower = text.lower()
    if len(lower) != len(text):  # a character whose lower case is longer: read it lower-case
        text = lower
    parts, low = _SENTENCE_END.split(text), _SENTENCE_END.split(lower)
    return [
        parts[i].strip()
        for i in range(0, len(parts), 2)
        if _CLAIM_WORD.search(low[i])
        and _SEAT_WORD.search(low[i])
        and (i + 1 == len(parts) or parts[i + 1] != "?")  # a question states nothing
    ]


def split_own(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The moderator's part of an observation and the ``(sender, text)`` messages it lists.

    Stricter than :func:`mase.protocol.split_messages`: a line after the messages header that
    is not a message line (an action request, or text a message broke out of its line into)
    counts as the moderator's.
    """
    head, sep, tail = text.partition(f"\n{protocol.MESSAGES_HEADER}\n")
    if not sep:
        return text, []
    own, messages = [head], []
    for line in tail.split("\n"):
        listed = protocol.read_message_lines(line)
        if listed:
            messages += listed
        else:
            own.append(line)
    return "\n".join(own), messages


def check_sentences(own: str, allowed: Allowed, current: bool = True) -> list[str]:
    """Raw text against the rulebook, without the task's parser.

    A sentence that names a player and a role, a side, a quest card or a vote must be one of
    ``<Seat>'s role is <role>``, ``<Seat> is good/evil``, ``Merlin and Morgana are <Seat> and
    <Seat>, in some order`` or ``<Seat> voted approve/reject``, stating a fact ``allowed``
    holds; votes shown are the whole last revealed vote (``current``) or, in an older
    observation, a revealed one. ``You are <Seat>`` and ``You are the <role>`` are the seat's.
    """
    leaks = []
    votes = {}
    for sentence in claim_sentences(own):
        if m := _ROLE_FORM.fullmatch(sentence):
            key, value = ("role", m.group(1).lower()), _canonical_role(m.group(2))
        elif m := _SIDE_FORM.fullmatch(sentence):
            key, value = ("side", m.group(1).lower()), m.group(2).lower()
        elif m := _PAIR_FORM.fullmatch(sentence):
            key, value = ("merlin_or_morgana",), tuple(sorted(g.lower() for g in m.groups()))
        elif m := _VOTE_FORM.fullmatch(sentence):
            votes[m.group(1).lower()] = m.group(2).lower()
            continue
        else:
            leaks.append(f"a sentence names a player with a hidden matter: {sentence!r}")
            continue
        if allowed.facts.get(key) != value:
            leaks.append(f"states {_fact(key, value)} the rules keep from it: {sentence!r}")
    leaks += _vote_leaks(votes, allowed, current, "says")
    lower = own.lower()
    at = lower.find("you are ")
    while at >= 0:
        if m := _YOU_ARE_SEAT.match(own, at):
            if m.group(1).lower() != allowed.seat:
                leaks.append(f"addressed to {m.group(1)}: {m.group(0)!r}")
        elif (m := _YOU_ARE_ROLE.match(own, at)) and _canonical_role(m.group(1)) != allowed.role:
            leaks.append(f"tells it it is {m.group(1)}: {m.group(0)!r}")
        at = lower.find("you are ", at + 1)
    return leaks


def _canonical_role(name: str) -> str:
    return next(r for r in ROLE_NAMES if r.lower() == name.lower())


def _fact(key: tuple, value: Any) -> str:
    return f"{'/'.join(map(str, key))}={value}"


def _vote_leaks(votes: Mapping[str, str], allowed: Allowed, current: bool, how: str) -> list[str]:
    """Votes shown must be the last revealed vote, whole (or any revealed one, when old)."""
    if not votes:
        return []
    if not current:
        return [
            f"{how} {seat} voted {v}, which no revealed vote holds"
            for seat, v in votes.items()
            if all(r.get(seat) != v for r in allowed.reveals)
        ]
    last = allowed.last_votes
    if votes != last:
        shown = ", ".join(f"{s} {v}" for s, v in sorted(votes.items()))
        return [f"{how} votes {shown} before they were revealed (last revealed: {last or 'none'})"]
    return []


def check_facts(env: Any, seat: str, own: str, allowed: Allowed, current: bool = True) -> list[str]:
    """The facts the moderator's part states (``parse_facts``), against both sources.

    Player facts must be held by the seat per ``known_facts`` now (when ``current``) and per
    the rulebook; votes are the last revealed vote, whole; quests as announced; a team the one
    on the table (``current``) or one put up.
    """
    stated = words.parse_facts(own)
    if not stated:
        return []
    s = env.unwrapped.world
    known = world.known_facts(s, s.seats.index(seat)) if current else {}
    leaks, votes = [], {}
    for key, value in stated.items():
        kind = key[0]
        if kind == "vote":
            votes[key[1]] = value
            if current and known.get(key) != value:
                leaks.append(f"states {_fact(key, value)}, not in known_facts")
        elif kind in PRIVATE_KINDS:
            if allowed.facts.get(key) != value:
                leaks.append(f"states {_fact(key, value)} the rulebook keeps from it")
            if current and known.get(key) != value:
                leaks.append(f"states {_fact(key, value)}, not in known_facts")
        elif kind in ("quest", "fails"):
            if allowed.results.get(key) != value:
                leaks.append(f"states {_fact(key, value)} before the quest was scored")
        elif kind == "team":
            if current and allowed.table != (key[1], tuple(value)):
                leaks.append(f"states {_fact(key, value)}, not the team on the table")
            if tuple(value) not in allowed.teams.get(key[1], ()):
                leaks.append(f"states {_fact(key, value)}, a team never put up")
    return leaks + _vote_leaks(votes, allowed, current, "states")


_CARD_ENTRY = re.compile(r"\bquest ([1-5]) (success|fail)\b", re.I)


def check_cards(own: str, allowed: Allowed) -> list[str]:
    """The seat's own quest cards (when the task shows them): only its own, once scored."""
    header = getattr(words, "CARDS_HEADER", None)
    if header is None or header not in own:
        return []
    leaks = []
    for line in own.splitlines():
        if line.startswith(header):
            for m in _CARD_ENTRY.finditer(line):
                k, card = int(m.group(1)), m.group(2).lower()
                if allowed.cards.get(k) != card:
                    leaks.append(f"shows a {card} card on quest {k}, not its own: {line!r}")
    return leaks


def check_history(own: str, allowed: Allowed) -> list[str]:
    """The proposal history lines (when the task writes them): votes only once revealed."""
    parse = getattr(words, "parse_history", None)
    if parse is None:
        return []
    leaks = []
    for entry in parse(own):
        number = entry["number"]
        if not 1 <= number <= len(allowed.proposals):
            leaks.append(f"the history lists proposal {number}, never made")
        elif allowed.proposals[number - 1] == "open":
            leaks.append(f"the history lists proposal {number}, still being voted on")
        elif entry["votes"] != allowed.proposals[number - 1]:
            leaks.append(f"the history shows votes {entry['votes']} on proposal {number}, not "
                         f"those revealed: {allowed.proposals[number - 1]}")  # fmt: skip
    return leaks


_HEARD: dict[str, Any] = {"log": None, "read": 0, "by_seat": {}}


def heard(env: Any, seat: str, quoted_lines: bool = False) -> set[tuple[str, str]]:
    """``(sender, text)`` of every utterance of another seat whose audience held ``seat``.

    With ``quoted_lines`` the text is as a message line quotes it (:func:`protocol.quote`).
    Read from the event log incrementally (one game at a time is cached).
    """
    log = env.unwrapped.event_log
    if _HEARD["log"] is not log:
        _HEARD.update(log=log, read=0, by_seat={})
    by_seat = _HEARD["by_seat"]
    for event in log[_HEARD["read"] :]:
        if event.kind == "message":
            quoted = (event.actor, protocol.quote(event.note)[1:-1])
            for listener in event.audience - {event.actor}:
                said = by_seat.setdefault(listener, (set(), set()))
                said[0].add((event.actor, event.note))
                said[1].add(quoted)
    _HEARD["read"] = len(log)
    return by_seat.get(seat, _NOTHING)[quoted_lines]


_NOTHING = (frozenset(), frozenset())


def check_messages(env: Any, seat: str, messages: Iterable[tuple[str, str]]) -> list[str]:
    """Each message listed must be something another seat said with ``seat`` in earshot."""
    said = heard(env, seat, quoted_lines=True)
    return [
        f"lists a message from {sender} it never heard: {text[:80]!r}"
        for sender, text in messages
        if (sender, text) not in said
    ]


def check_text(
    env: Any, seat: str, text: str, allowed: Allowed | None = None, current: bool = True
) -> list[str]:
    """Every leak in a text ``seat`` is shown: an observation, a prompt message, legal actions.

    Args:
        env: the Avalon env (or a wrapper of it).
        seat: who is shown the text.
        text: the text.
        allowed: the seat's :class:`Allowed` now (computed when ``None``).
        current: the text is what the seat is shown now; ``False`` for an older observation
            (in an LLM's history window), whose votes and team may be earlier ones.
    """
    if allowed is None:
        allowed = allowed_knowledge(env)[seat]
    own, messages = split_own(text)
    return check_own(env, seat, own, allowed, current) + check_messages(env, seat, messages)


def check_own(env: Any, seat: str, own: str, allowed: Allowed, current: bool = True) -> list[str]:
    """The moderator's part of a text (:func:`split_own`): facts, sentences, history, cards."""
    return (
        check_facts(env, seat, own, allowed, current)
        + check_sentences(own, allowed, current)
        + check_history(own, allowed)
        + check_cards(own, allowed)
    )


def check_rules(env: Any, seat: str, allowed: Allowed | None = None) -> list[str]:
    """``rules_text(seat)``: no leak in it, and the same whoever holds which role.

    The rules are rendered again for the same table with the roles dealt one seat on; any
    difference means the text depends on the deal.
    """
    base = env.unwrapped
    text = base.rules_text(seat)
    leaks = check_text(env, seat, text, allowed, current=False)
    s = base.world
    other = dataclasses.replace(s, roles=s.roles[1:] + s.roles[:1])
    if words.rules_text(other, base.rules, s.seats.index(seat)) != text:
        leaks.append("rules_text changes with the deal")
    return leaks


# -- vectors and masks -------------------------------------------------------------------------


def check_vector(env: Any, seat: str, vec: np.ndarray, allowed: Allowed | None = None) -> list[str]:
    """The vector view (layout in ``avalon.vector``) against the rulebook.

    Own role one-hot; per player only the sides, pair and Merlin the seat may know; quest
    blocks only for scored quests (no card of a quest being played); the vote block only the
    last revealed vote; everything else the public state (``state()`` without the roles).
    """
    if allowed is None:
        allowed = allowed_knowledge(env)[seat]
    s = env.unwrapped.world
    n = s.n
    size = vector.layout(n).size
    if len(vec) != size:
        return [f"vector of {len(vec)} numbers, not {size}"]
    first = 38 + 10 * n  # the first release's blocks, up to "lady held"
    return check_first_blocks(env, seat, vec[:first], allowed) + check_appended_blocks(
        env, seat, vector.layout(n).split(vec), allowed
    )


def check_first_blocks(env: Any, seat: str, vec: np.ndarray, allowed: Allowed) -> list[str]:
    """The first release's blocks (role, players, the public state, whether I hold the Lady)."""
    s = env.unwrapped.world
    n, me, roles = s.n, s.seats.index(seat), len(ROLE_ORDER)
    leaks = []
    if vec[ROLE_ORDER.index(allowed.role)] != 1 or vec[:roles].sum() != 1:
        leaks.append(f"own-role block {vec[:roles].tolist()} is not its role {allowed.role}")
    players = vec[roles : roles + 5 * n].reshape(n, 5)
    ceiling = allowed.ceiling
    if (players[:, 0] != ceiling[:, 0]).any() or (players[:, 1:] > ceiling[:, 1:]).any():
        what = ("me", "known evil", "known good", "in the Merlin/Morgana pair", "known Merlin")
        for j, column in zip(*np.nonzero((players != ceiling) & ((players > ceiling) | _ME)),
                             strict=True):  # fmt: skip
            leaks.append(f"player {s.seats[j]} marked {what[column]}: {players[j, column]}")
    public = vec[roles + 5 * n : -1]
    if not np.array_equal(public, allowed.public):
        quests, expected = public[:15].reshape(5, 3), allowed.public[:15].reshape(5, 3)
        for k in np.flatnonzero((quests != expected).any(axis=1)):
            leaks.append(f"quest {k + 1} block {quests[k].tolist()}, announced "
                         f"{expected[k].tolist()}")  # fmt: skip
        start = _vote_block(n)
        votes = public[start : start + 2 * n]
        if not np.array_equal(votes, allowed.public[start : start + 2 * n]):
            leaks.append(
                f"vote block {votes.tolist()}, last revealed {allowed.last_votes or 'none'}"
            )
        if not leaks:
            leaks.append("public blocks differ from the public state")
    if vec[-1] != (s.lady == me):
        leaks.append("the 'I hold the Lady' flag is wrong")
    return leaks


def check_appended_blocks(
    env: Any, seat: str, blocks: Mapping[str, np.ndarray], allowed: Allowed
) -> list[str]:
    """The blocks after the first release's: each may show only what the rulebook allows.

    The Assassin named only once its act made it public (or the seat's side knows it); the
    ending only once the game is over; the seat's own cards on the quests it went on; the
    Lady's answers to the seat alone; decided proposals with their votes once all were cast
    (none for a team sent without a vote, nothing of the one on the table); claims only from
    seats whose messages reached it.
    """
    s = env.unwrapped.world
    n, me = s.n, s.seats.index(seat)
    leaks = []
    for j in np.flatnonzero(blocks["known assassin"]):
        if j == me or allowed.facts.get(("role", s.seats[j])) != "Assassin":
            leaks.append(f"{s.seats[j]} marked the known Assassin")
    if blocks["ending"].any() and s.stage != "over":
        leaks.append("an ending is shown while the game goes on")
    cards = blocks["own cards"].reshape(-1, 2)
    for k, row in enumerate(cards, 1):
        expected = np.zeros(2)
        if k in allowed.cards:
            expected[CARDS.index(allowed.cards[k])] = 1
        if not np.array_equal(row, expected):
            leaks.append(
                f"own card of quest {k} shown {row.tolist()}, played {allowed.cards.get(k)}"
            )
    for j, (evil, good) in enumerate(blocks["lady answers"].reshape(n, 2)):
        shown = "evil" if evil else "good" if good else None
        if shown is not None and not any(h == me and t == j for h, t, _ in s.lady_results):
            leaks.append(f"a Lady's answer about {s.seats[j]} it never asked for")
        elif shown is not None and allowed.facts.get(("side", s.seats[j])) != shown:
            leaks.append(f"the Lady's answer about {s.seats[j]} shown {shown}")
    leaks += _check_history(n, s.seats, blocks["history"], allowed)
    senders = {sender for sender, _ in heard(env, seat)}
    others = [name for name in s.seats if name != seat]
    told = blocks["told"].reshape(n - 1, -1)
    for name, row in zip(others, told, strict=True):
        if row.any() and name not in senders:
            leaks.append(f"claims of {name}, whose messages never reached it")
    return leaks


def _check_history(n: int, seats: Sequence[str], values: np.ndarray, allowed: Allowed) -> list:
    """The history block: decided proposals in their slots, votes only as revealed."""
    width = vector.slot_size(n)
    rows = values.reshape(-1, width)
    expected: dict[int, tuple] = {}
    order = iter(allowed.proposals)
    for quest in sorted(allowed.teams):
        for attempt, team in enumerate(allowed.teams[quest]):
            expected[(quest - 1) * vector.PROPOSALS + attempt] = (team, next(order))
    leaks = []
    for slot, row in enumerate(rows):
        team, votes = expected.get(slot, (None, "open"))
        if votes == "open":
            if row.any():
                leaks.append(f"history slot {slot} shows a proposal not yet decided")
            continue
        shown_team = tuple(seats[i] for i in np.flatnonzero(row[n : 2 * n]))
        if shown_team != tuple(sorted(team, key=seats.index)):
            leaks.append(f"history slot {slot} team {shown_team}, put up {team}")
        approvals = row[2 * n + 2 :]
        if votes is None and (row[2 * n + 1] or approvals.any()):
            leaks.append(f"history slot {slot} shows votes of a team sent without a vote")
        elif isinstance(votes, dict):
            revealed = np.array([votes[name] == "approve" for name in seats], dtype=np.float32)
            if not row[2 * n + 1] or not np.array_equal(approvals, revealed):
                leaks.append(f"history slot {slot} votes {approvals.tolist()}, revealed {votes}")
    return leaks


_ME = np.array([True, False, False, False, False])


def check_mask(env: Any, seat: str, mask: np.ndarray) -> list[str]:
    """A seat that is not to act has no legal action."""
    base = env.unwrapped
    if mask.any() and (base.ended_by or base.agent_selection != seat):
        return [f"action mask {np.flatnonzero(mask).tolist()} while not to act"]
    return []


def check_observation(
    env: Any, seat: str, obs: Mapping[str, Any], info: Mapping, allowed: Allowed
) -> list[str]:
    """One ``env.observe(seat)`` (text, vector, mask), its info's messages, its legal actions.

    A ``None`` text is not read (a caller that already checked the same text).
    """
    leaks = []
    if obs.get("text") is not None:
        leaks += check_text(env, seat, obs["text"], allowed)
    if "observation" in obs:
        leaks += check_vector(env, seat, obs["observation"], allowed)
    if "action_mask" in obs:
        leaks += check_mask(env, seat, obs["action_mask"])
    records = info.get("messages", ())
    for record in records:
        if record["sender"] == seat or seat not in record["recipients"]:
            leaks.append(f"info lists a message from {record['sender']} to "
                         f"{record['recipients']}")  # fmt: skip
    said = heard(env, seat)
    leaks += [
        f"info lists a message from {r['sender']} it never heard: {r['text'][:80]!r}"
        for r in records
        if (r["sender"], r["text"]) not in said
    ]
    actions = env.unwrapped.legal_actions_text(seat)
    if actions:
        leaks += [f"legal actions: {w}" for w in check_text(env, seat, "\n".join(actions), allowed)]
    return leaks


# -- what programs and belief writers are given ---------------------------------------------------


def check_code_facts(
    env: Any, seat: str, allowed: Allowed | None = None, facts: Mapping | None = None
) -> list[str]:
    """The JSON facts a seat's program is given (``facts``, else the task's ``code_facts``).

    Its seat and role; sides, roles and the Merlin/Morgana pair the rulebook lets it know;
    each proposal's votes as revealed (none of the proposal on the table); each scored quest's
    fails as announced, and the seat's own card only.
    """
    code_facts = getattr(env.unwrapped, "code_facts", None)
    if facts is None and code_facts is None:
        return []
    if allowed is None:
        allowed = allowed_knowledge(env)[seat]
    if facts is None:
        facts = code_facts(seat)
    leaks = []
    if facts.get("me") != seat or facts.get("my_role") != allowed.role:
        leaks.append(f"code facts for {facts.get('me')} ({facts.get('my_role')})")
    for kind in ("side", "role"):
        for name, value in facts.get(f"known_{kind}s", {}).items():
            if allowed.facts.get((kind, name)) != value:
                leaks.append(f"code facts give {_fact((kind, name), value)}")
    pair = facts.get("merlin_or_morgana") or ()
    if pair and tuple(sorted(pair)) != allowed.facts.get(("merlin_or_morgana",)):
        leaks.append(f"code facts give the pair {pair}")
    decided = [p for p in allowed.proposals if p != "open"]
    given = facts.get("proposals", [])
    if len(given) > len(decided):
        leaks.append(f"code facts list {len(given)} decided proposals, not {len(decided)}")
    for p, votes in zip(given, decided, strict=False):
        if p.get("votes") != votes:
            leaks.append(f"code facts give votes {p.get('votes')}, revealed {votes}")
    for q in facts.get("quests", []):
        k = q.get("quest")
        if allowed.results.get(("fails", k)) != q.get("fails"):
            leaks.append(f"code facts give quest {k} {q.get('fails')} fails")
        if q.get("my_card") != allowed.cards.get(k):
            leaks.append(f"code facts give quest {k} card {q.get('my_card')}")
    return leaks


def check_belief_template(env: Any, seat: str, allowed: Allowed | None = None) -> list[str]:
    """The belief an LLM seat starts from (``belief_template``, when the task has one)."""
    base = env.unwrapped
    try:
        template = base.belief_template(seat)
    except NotImplementedError:
        return []
    if allowed is None:
        allowed = allowed_knowledge(env)[seat]
    stated = base.belief_facts(template)
    leaks = [
        f"the belief template states {_fact(key, value)}"
        for key, value in stated.items()
        if key[0] in PRIVATE_KINDS and allowed.facts.get(key) != value
    ]
    return leaks + [f"belief template: {w}" for w in check_sentences(template, allowed, False)]


# -- events ----------------------------------------------------------------------------------

#: Event kinds the rules show to their actor alone.
ACTOR_ONLY = frozenset({"card", "lady", "invalid"})


def check_events(
    env: Any,
    events: Sequence[Event],
    allowed: Mapping[str, Allowed],
    mover: str | None = None,
    revealed: Mapping[str, str] | None = None,
) -> list[str]:
    """The events of a step (or of the deal): each reaches only whom the rules let see it.

    Quest cards, examinations and invalid moves reach their actor alone; a vote reaches the
    others only in the reveal after the last vote (``revealed``: the votes revealed in this
    step); speech is the mover's (``mover``), to the whole table; and every fact about a
    player reaches only seats that may hold it.
    """
    table = frozenset(env.unwrapped.possible_agents)
    leaks = []
    for e in events:
        alone = frozenset((e.actor,))
        if e.kind in ACTOR_ONLY and e.audience != alone:
            leaks.append(f"a {e.kind} event of {e.actor} reached {sorted(e.audience - alone)}")
        if e.kind == "vote" and e.audience != alone and not (e.revealed and revealed):
            leaks.append(f"the vote of {e.actor} reached {sorted(e.audience - alone)} unrevealed")
        if e.kind == "message" and (e.actor != mover or e.audience != table):
            leaks.append(f"speech of {e.actor} (mover {mover}) to {sorted(e.audience)}")
        for seat in e.audience:
            for key, value in e.facts.items():
                kind = key[0]
                if kind in PRIVATE_KINDS and allowed[seat].facts.get(key) != value:
                    leaks.append(f"a {e.kind} event shows {seat} {_fact(key, value)}")
                elif kind == "vote" and key[1] != seat:
                    if e.kind == "vote":
                        shown = [revealed or {}]
                    else:  # a turn view, logged at the start of the step: before any reveal
                        shown = allowed[seat].reveals[-2 if revealed else -1 :]
                    if not any(votes.get(key[1]) == value for votes in shown):
                        leaks.append(f"a {e.kind} event shows {seat} {_fact(key, value)}")
                elif kind in ("quest", "fails") and allowed[seat].results.get(key) != value:
                    leaks.append(f"a {e.kind} event shows {seat} {_fact(key, value)} early")
    return leaks


# -- prompts ---------------------------------------------------------------------------------


def scan_prompt(env: Any, seat: str, messages: Sequence[Mapping[str, str]]) -> list[str]:
    """Every leak in the chat an LLM in ``seat`` would be sent now.

    The system message (the rules) and each user message (observations, the current one and
    those of the history window, feedback on a refused reply, questions) are read like an
    observation (:func:`check_text`); the one holding the seat's current observation strictly,
    older ones allowing an earlier revealed vote or team. Assistant messages are the seat's own
    replies, and a belief block (after :data:`mase.protocol.BELIEF_HEADER`, up to the next
    header) the seat's own writing: neither is the moderator's.

    Args:
        env: the Avalon env (or a wrapper of it), in the state the prompt is sent in.
        seat: the LLM's seat.
        messages: the chat, ``[{"role": ..., "content": ...}, ...]`` oldest first.

    Returns:
        The leaks, each prefixed with the message's index and role.
    """
    base = env.unwrapped
    allowed = allowed_knowledge(env)[seat]
    now = base.observe_text(seat)
    leaks = []
    for index, message in enumerate(messages):
        role, content = message.get("role"), message.get("content") or ""
        if role == "assistant":
            continue
        content = _without_belief(content)
        current = role == "user" and now in content
        found = check_text(env, seat, content, allowed, current=current)
        leaks += [f"prompt message {index} ({role}): {leak}" for leak in found]
    return leaks


_NEXT_HEADER = re.compile(
    "|".join(
        re.escape(h)
        for h in (protocol.NEW_OBSERVATION, protocol.CURRENT_OBSERVATION, protocol.ACTION_REQUEST)
    )
)


def scan_model_prompt(env: Any, seat: str, messages: Sequence[Mapping[str, str]]) -> list[str]:
    """Every leak in a chat an LLM or CodeAct seat sends: :func:`scan_prompt` on its sentences.

    A CodeAct prompt's memory block (after :data:`mase.protocol.MEMORY_HEADER`) is read as
    older text: its moderator lines like an earlier observation, its speech lines as messages
    the seat must have heard (:func:`mase.agents.codeact.split_memory`).
    A CodeAct request's facts block (after :data:`mase.protocol.FACTS_HEADER`, up to
    :data:`mase.protocol.CODE_REQUEST`) is JSON, not sentences: it is read back and checked
    field by field (:func:`check_code_facts`); a block that is not JSON is itself a finding.
    """
    sentences, found = [], []
    allowed = allowed_knowledge(env)[seat]
    for message in messages:
        content = message.get("content") or ""
        head, has_memory, tail = content.partition(protocol.MEMORY_HEADER + "\n")
        if has_memory and message.get("role") != "assistant":
            memory, sep, rest = tail.partition("\n\n" + protocol.CURRENT_OBSERVATION)
            own, said = split_memory(memory)
            said = [(sender, text) for sender, text in said if sender != seat]  # its own words
            found += [
                f"memory: {leak}"
                for leak in check_own(env, seat, own, allowed, current=False)
                + check_messages(env, seat, said)
            ]
            content = head + sep.lstrip("\n") + rest
        head, has_facts, tail = content.partition(protocol.FACTS_HEADER)
        if has_facts:
            listing, _, rest = tail.partition(protocol.CODE_REQUEST)
            try:
                facts = json.loads(listing)
            except json.JSONDecodeError as error:
                found.append(f"facts block is not JSON ({error})")
            else:
                leaks = check_code_facts(env, seat, facts=facts)
                found += [f"code facts: {leak}" for leak in leaks]
            content = head + protocol.CODE_REQUEST + rest
        sentences.append({**message, "content": content})
    return found + scan_prompt(env, seat, sentences)


def _without_belief(content: str) -> str:
    head, sep, tail = content.partition(protocol.BELIEF_HEADER)
    if not sep:
        return content
    after = _NEXT_HEADER.search(tail)
    return head + (tail[after.start() :] if after else "")
