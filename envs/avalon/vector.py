"""Avalon's vector views: one seat's observation and the global state, float32 in [0, 1].

Observation layout (``n`` players; :func:`layout` builds it, :func:`observation_size` is
``layout(n).size``: 960 numbers for 5 players, 1524 for 7). The first eleven blocks, ``38 +
10 n`` numbers, are the layout of the first release, unchanged, so a policy trained on it
reads the leading numbers; the rest were appended after them:

=====================  ===============  ===========================================================
block                  size             content
=====================  ===============  ===========================================================
role                   8                own role, one-hot in ``roles.ROLE_ORDER``
players                5 n              per player: is me, known evil, known good, one of
                                        Percival's Merlin/Morgana pair, known Merlin (role
                                        knowledge, Lady of the Lake answers, the Assassin's act)
quests                 15               per quest: succeeded, failed, fail cards / team size
quest index            6                one-hot: quest 1 to 5, or over
rejections             1                rejected proposals in a row / 5 (0 once the game is over)
leader                 n                one-hot (0 once the game is over)
team                   n                the proposed team (0 when none)
phase                  7                one-hot: propose, discuss, vote, quest, assassinate,
                                        lady, over
last vote              2 n              per player: approved, rejected (the last revealed vote)
lady                   n                who holds the Lady of the Lake (one-hot; 0: not in play)
lady held              1                whether I hold it
known assassin         n                per other player: known to be the Assassin (its public act)
ending                 5                one-hot, how the game ended (``world.ENDINGS`` order)
to act                 1                whether it is my turn
invalid                1                whether my last action was invalid (until my next turn)
own cards              10               per quest: the card I played, success or fail
lady answers           2 n              per player: the Lady of the Lake showed me evil, good
history                25 (3 n + 2)     per quest and proposal of it (5 x 5 slots): leader
                                        (one-hot), team, default team, voted, who approved
told                   (n - 1)(9 n +    per other seat, in seat order, what its messages since
                       10)              my last turn claim (:func:`told_size`)
=====================  ===============  ===========================================================

The history is held whole: the rules allow at most 5 proposals a quest (the fifth rejection
ends the game, or the fifth proposal goes on the quest without a vote) and 5 quests. A
proposal enters it once decided (its votes revealed, or sent without a vote). A claim's
values are codes: a role ``(i + 1) / 8`` (``ROLE_ORDER``), a side ``0.5`` good ``1`` evil, a
vote ``0.5`` reject ``1`` approve, a quest ``0.5`` succeeded ``1`` failed, a fail count ``(f +
1) / 100`` (a sentence states up to 99); 0 is no claim.

``state()`` is every seat's role (one-hot, ``8 n``), the public part of the view (quests to
lady holder, without the private player block), then the proposal history.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

import numpy as np

from mase.envs.avalon.roles import (
    FAILS_NEEDED,
    MAX_REJECTIONS,
    QUESTS,
    ROLE_ORDER,
    ROLES,
    SEATS,
    TEAM_SIZES,
)
from mase.envs.avalon.world import CARDS, ENDINGS, VOTES, State
from mase.layout import TOLD, Block, VectorLayout

PHASES = ("propose", "discuss", "vote", "quest", "assassinate", "lady", "over")
ENDED_BY = tuple(ENDINGS)
_ROLES = len(ROLE_ORDER)
#: Proposals a quest can have: the fifth is the last (rejected: evil wins; forced: no vote).
PROPOSALS = MAX_REJECTIONS
#: The history's slots, quest by quest.
SLOTS = QUESTS * PROPOSALS
#: The largest fail count a claim states (the sentence has one or two digits).
MAX_FAILS_CLAIMED = 99


def slot_size(n: int) -> int:
    """The numbers of one proposal of the history: leader, team, default, voted, approvals."""
    return 3 * n + 2


def told_size(n: int) -> int:
    """The numbers of one sender's claims.

    Per player: role, side and vote codes, in the claimed Merlin/Morgana pair; per quest: its
    result and fail-count codes and the claimed team (``n``).
    """
    return 4 * n + QUESTS * (2 + n)


@functools.cache
def layout(n: int) -> VectorLayout:
    """The observation's blocks for ``n`` players, in order (the module docstring's table)."""
    return VectorLayout([
        Block("role", _ROLES, "Own role, one-hot in roles.ROLE_ORDER."),
        Block("players", 5 * n, "Per player: is me, known evil, known good, in Percival's "
              "Merlin/Morgana pair, known Merlin."),
        Block("quests", 3 * QUESTS, "Per quest: succeeded, failed, fail cards / team size."),
        Block("quest index", QUESTS + 1, "One-hot: quest 1 to 5, or over."),
        Block("rejections", 1, "Rejected proposals in a row / 5 (0 once the game is over)."),
        Block("leader", n, "The leader, one-hot (0 once the game is over)."),
        Block("team", n, "The proposed team (0 when none)."),
        Block("phase", len(PHASES), "One-hot: " + ", ".join(PHASES) + "."),
        Block("last vote", 2 * n, "Per player: approved, rejected (the last revealed vote)."),
        Block("lady", n, "Who holds the Lady of the Lake, one-hot (0: not in play)."),
        Block("lady held", 1, "Whether I hold the Lady of the Lake."),
        Block("known assassin", n, "Per other player: known to be the Assassin (its public "
              "act; my own role block says mine)."),
        Block("ending", len(ENDED_BY), "One-hot, how the game ended: " + ", ".join(ENDED_BY)
              + " (0 while it goes on)."),
        Block("to act", 1, "Whether it is my turn."),
        Block("invalid", 1, "Whether my last action was invalid (until my next turn)."),
        Block("own cards", 2 * QUESTS, "Per quest: the card I played on it, success or fail."),
        Block("lady answers", 2 * n, "Per player: the Lady of the Lake showed me evil, good."),
        Block("history", SLOTS * slot_size(n), "Per quest and proposal of it (5 x 5 slots), "
              "once decided: leader (one-hot), team, default team, voted, who approved.",
              "none left out: the rules allow 5 proposals a quest and 5 quests."),
        Block("told", (n - 1) * told_size(n), "Per other seat in seat order, the claims of its "
              "messages since my last turn: per player role, side and vote codes and the "
              "claimed pair; per quest result and fail-count codes and the claimed team.",
              "every claim: later claims of a sender replace its earlier ones of a fact."),
    ])  # fmt: skip


def observation_size(n: int) -> int:
    """The length of one seat's observation vector for ``n`` players."""
    return layout(n).size


def state_size(n: int) -> int:
    """The length of ``state()`` for ``n`` players."""
    return _ROLES * n + _public_size(n) + SLOTS * slot_size(n)


def _public_size(n: int) -> int:
    return 3 * QUESTS + (QUESTS + 1) + 1 + n + n + len(PHASES) + 2 * n + n


def _public(s: State, phase: str) -> list[np.ndarray]:
    n, over = s.n, s.stage == "over"
    quests = np.zeros((QUESTS, 3))
    for k, (result, fails) in enumerate(zip(s.results, s.fails, strict=True)):
        quests[k] = (result == "success", result == "fail", fails / TEAM_SIZES[n][k])
    team = np.zeros(n)
    if s.proposal is not None:
        team[list(s.proposal.team)] = 1
    votes = np.zeros((n, 2))
    for j, v in s.revealed.items():
        votes[j, 1 - v] = 1  # column 0: approved, column 1: rejected
    lady = np.zeros(n)
    if s.lady is not None:
        lady[s.lady] = 1
    return [
        quests.ravel(),
        np.eye(QUESTS + 1)[QUESTS if over else min(s.quest, QUESTS)],
        [0.0 if over else s.rejections / MAX_REJECTIONS],
        np.zeros(n) if over else np.eye(n)[s.leader],
        team,
        np.eye(len(PHASES))[PHASES.index("over" if over else phase)],
        votes.ravel(),
        lady,
    ]


def history(s: State) -> np.ndarray:
    """The decided proposals, ``[SLOTS, 3 n + 2]``: slot ``5 quest + attempt``."""
    n = s.n
    out = np.zeros((SLOTS, slot_size(n)))
    attempt = dict.fromkeys(range(QUESTS), 0)
    for p in s.proposals:
        slot = p.quest * PROPOSALS + attempt[p.quest]
        attempt[p.quest] += 1
        if p.approved is None:
            continue  # on the table: its votes are still secret
        row = out[slot]
        row[p.leader] = 1
        row[n + np.array(p.team)] = 1
        row[2 * n] = p.default
        if p.votes is not None:
            row[2 * n + 1] = 1
            row[2 * n + 2 :] = [p.votes[j] for j in range(n)]
    return out


def told_vector(n: int, me: int, told: Mapping[tuple, object]) -> np.ndarray:
    """The ``told`` block from ``("told", sender, *fact key) -> value`` claims."""
    out = np.zeros((n - 1, told_size(n)))
    others = [j for j in range(n) if j != me]
    for key, value in told.items():
        sender = SEATS.index(key[1])
        row = out[others.index(sender)]
        kind = key[2]
        if kind == "merlin_or_morgana":
            row[3 * n + np.array([SEATS.index(x) for x in value])] = 1
        elif kind in _CODES:
            codes, column = _CODES[kind]
            row[column * n + SEATS.index(key[3])] = (codes.index(value) + 1) / len(codes)
        else:
            q = 4 * n + (key[3] - 1) * (2 + n)
            if kind == "quest":
                row[q] = (CARDS.index(value) + 1) / 2
            elif kind == "fails":
                row[q + 1] = (value + 1) / (MAX_FAILS_CLAIMED + 1)
            else:  # a team
                row[q + 2 + np.array([SEATS.index(x) for x in value])] = 1
    return out.ravel()


#: A per-player claim kind: its values in code order, and its column of ``n`` numbers.
_CODES = {"role": (ROLE_ORDER, 0), "side": (("good", "evil"), 1), "vote": (VOTES, 2)}


def observation(
    s: State,
    seat: int,
    known: Mapping,
    phase: str,
    to_act: bool = False,
    invalid: bool = False,
    told: Mapping[tuple, object] | None = None,
) -> np.ndarray:
    """``seat``'s observation vector from the facts it holds (``world.known_facts``).

    ``to_act``: whether it is the seat's turn; ``invalid``: whether its last action was
    invalid; ``told``: the claims of the messages it was shown (:func:`mase.layout.inbox_told`).
    """
    n = s.n
    players = np.zeros((n, 5))
    players[seat, 0] = 1
    assassin = np.zeros(n)
    for j, name in enumerate(s.seats):
        side = known.get(("side", name))
        players[j, 1] = side == "evil"
        players[j, 2] = side == "good"
        players[j, 4] = known.get(("role", name)) == "Merlin"
        assassin[j] = j != seat and known.get(("role", name)) == "Assassin"
    for name in known.get(("merlin_or_morgana",), ()):
        players[s.seats.index(name), 3] = 1
    ending = np.zeros(len(ENDED_BY))
    if s.stage == "over":
        ending[ENDED_BY.index(s.ended_by)] = 1
    cards = np.zeros((QUESTS, 2))
    for k, played in enumerate(s.played):
        if seat in played:
            cards[k, played[seat]] = 1
    answers = np.zeros((n, 2))
    for holder, target, side in s.lady_results:
        if holder == seat:
            answers[target] = (side == "evil", side == "good")
    public = _public(s, phase)
    return layout(n).pack({
        "role": np.eye(_ROLES)[ROLE_ORDER.index(s.roles[seat])],
        "players": players,
        **dict(zip(_PUBLIC_BLOCKS, public, strict=True)),
        "lady held": [s.lady == seat],
        "known assassin": assassin,
        "ending": ending,
        "to act": [to_act],
        "invalid": [invalid],
        "own cards": cards,
        "lady answers": answers,
        "history": history(s),
        "told": told_vector(n, seat, told or {}),
    })  # fmt: skip


_PUBLIC_BLOCKS = ("quests", "quest index", "rejections", "leader", "team", "phase",
                  "last vote", "lady")  # fmt: skip


def state_vector(s: State, phase: str) -> np.ndarray:
    """The global state: every seat's role, the public part of the views, the history."""
    roles = np.eye(_ROLES)[[ROLE_ORDER.index(r) for r in s.roles]].ravel()
    parts = [roles, *_public(s, phase), history(s).ravel()]
    return np.concatenate(parts).astype(np.float32)


# -- reading a vector back ----------------------------------------------------------------------


def _one(values: np.ndarray, what: str) -> int | None:
    """The index of a one-hot's 1, ``None`` for all zeros; two 1s are no such vector."""
    hot = np.flatnonzero(values)
    if hot.size > 1:
        raise ValueError(f"{what}: {values.tolist()} is no one-hot")
    return int(hot[0]) if hot.size else None


def _bits(values: np.ndarray, what: str) -> list[int]:
    return np.flatnonzero(values).tolist()


@functools.cache
def _flags(n: int) -> np.ndarray:
    """Where the vector holds 0/1 flags (everything but counts and claim codes)."""
    lay = layout(n)
    flags = np.ones(lay.size, dtype=bool)
    flags[lay.slices["quests"]][2::3] = False
    flags[lay.slices["rejections"]] = False
    told = np.zeros((n - 1, told_size(n)), dtype=bool)
    for k in range(QUESTS):
        told[:, 4 * n + k * (2 + n) + 2 :][:, :n] = True  # a claimed team
    told[:, 3 * n : 4 * n] = True  # a claimed pair
    flags[lay.slices["told"]] = told.ravel()
    return flags


def _count(value: float, scale: int, what: str) -> int:
    """An exact count written as ``count / scale``."""
    count = round(float(value) * scale)
    if abs(float(value) * scale - count) > 1e-3:
        raise ValueError(f"{what}: {value} is no count / {scale}")
    return count


def knowledge(n: int, vector: Sequence[float] | np.ndarray) -> dict:
    """The facts a seat's observation vector holds, keyed as ``AvalonEnv.text_knowledge``.

    Raises:
        ValueError: a vector the env never writes (a one-hot with two 1s, a code between
            values, facts that contradict each other).
    """
    vector = np.asarray(vector, dtype=np.float64)
    b = layout(n).split(vector)
    flags = vector[_flags(n)]
    if ((flags != 0) & (flags != 1)).any():
        raise ValueError("a flag that is neither 0 nor 1")
    facts: dict = {}
    me = _seat_and_roles(n, b, facts)
    phase_at = _one(b["phase"], "phase")
    if phase_at is None:
        raise ValueError("no phase")
    over = PHASES[phase_at] == "over"
    facts[("phase",)] = PHASES[phase_at]
    _quests(n, b, facts)
    _table(n, b, facts, over)
    _lady(n, me, b, facts)
    ended = _one(b["ending"], "ending")
    if (ended is not None) != over:
        raise ValueError("an ending while the game goes on, or none at its end")
    if over:
        facts[("ended_by",)] = ENDED_BY[ended]
        facts[("winner",)] = ENDINGS[ENDED_BY[ended]]
    to_act = _bits(b["to act"], "to act")
    if over and to_act:
        raise ValueError("to act once the game is over")
    if not over:
        facts[("to_act",)] = bool(to_act)
    facts[("invalid",)] = bool(_bits(b["invalid"], "invalid"))
    cards = b["own cards"].reshape(QUESTS, 2)
    for k in range(QUESTS):
        card = _one(cards[k], f"own card {k + 1}")
        if card is not None:
            facts[("card", k + 1)] = CARDS[card]
    facts.update(_history(n, b["history"]))
    facts.update(_told(n, me, b["told"]))
    return facts


def _seat_and_roles(n: int, b: dict, facts: dict) -> int:
    """Who I am, my role, and each player's side and role I know; returns my seat."""
    seats = SEATS[:n]
    players = b["players"].reshape(n, 5)
    me = _one(players[:, 0], "is me")
    role = _one(b["role"], "own role")
    if me is None or role is None:
        raise ValueError("no seat or no role")
    facts[("seat",)], facts[("players",)] = seats[me], n
    roles = {me: ROLE_ORDER[role]}
    for j in _bits(players[:, 4], "known Merlin"):
        if roles.setdefault(j, "Merlin") != "Merlin":
            raise ValueError(f"{seats[j]} is known Merlin and {roles[j]}")
    for j in _bits(b["known assassin"], "known assassin"):
        if j == me:
            raise ValueError("my own seat marked known Assassin (my role says it)")
        if roles.setdefault(j, "Assassin") != "Assassin":
            raise ValueError(f"{seats[j]} is known the Assassin and {roles[j]}")
    for j, r in roles.items():
        facts[("role", seats[j])] = r
    evil, good = _bits(players[:, 1], "known evil"), _bits(players[:, 2], "known good")
    if set(evil) & set(good):
        raise ValueError("a player known evil and good")
    for j in evil:
        facts[("side", seats[j])] = "evil"
    for j in good:
        facts[("side", seats[j])] = "good"
    if facts.get(("side", seats[me])) != ROLES[ROLE_ORDER[role]]:
        raise ValueError("my side is not my role's")
    pair = _bits(players[:, 3], "pair")
    if pair:
        if len(pair) != 2:
            raise ValueError(f"a pair of {len(pair)}")
        facts[("merlin_or_morgana",)] = tuple(seats[j] for j in pair)
    return me


def _quests(n: int, b: dict, facts: dict) -> None:
    quests = b["quests"].reshape(QUESTS, 3)
    for k in range(QUESTS):
        result = _one(quests[k, :2], f"quest {k + 1}")
        fails = _count(quests[k, 2], TEAM_SIZES[n][k], f"quest {k + 1}'s fails")
        if result is None:
            if fails:
                raise ValueError(f"fails on quest {k + 1}, not played")
            continue
        facts[("quest", k + 1)] = CARDS[result]
        facts[("fails", k + 1)] = fails


def _table(n: int, b: dict, facts: dict, over: bool) -> None:
    """The quest being played, rejections, leader, team on the table, the last vote."""
    seats = SEATS[:n]
    index = _one(b["quest index"], "quest index")
    rejections = _count(b["rejections"][0], MAX_REJECTIONS, "rejections")
    leader = _one(b["leader"], "leader")
    if index is None or (over and (index != QUESTS or leader is not None or rejections)):
        raise ValueError("a quest, leader or rejections that are not the game's")
    if not over:
        if leader is None or rejections >= MAX_REJECTIONS:
            raise ValueError("no leader, or five rejections while the game goes on")
        k = min(index, QUESTS - 1)
        facts[("quest_now",)] = k + 1
        facts[("team_size",)] = TEAM_SIZES[n][k]
        facts[("fails_needed",)] = FAILS_NEEDED[n][k]
        facts[("rejections",)] = rejections
        facts[("leader",)] = seats[leader]
    team = _bits(b["team"], "team")
    if team:
        if over:
            raise ValueError("a team on the table once the game is over")
        facts[("team", facts[("quest_now",)])] = tuple(seats[j] for j in team)
    votes = b["last vote"].reshape(n, 2)
    for j in range(n):
        vote = _one(votes[j], f"{seats[j]}'s vote")
        if vote is not None:
            facts[("vote", seats[j])] = ("approve", "reject")[vote]


def _lady(n: int, me: int, b: dict, facts: dict) -> None:
    seats = SEATS[:n]
    holder = _one(b["lady"], "lady")
    held = _bits(b["lady held"], "lady held")
    if bool(held) != (holder == me):
        raise ValueError("'I hold the Lady' disagrees with her holder")
    if holder is not None:
        facts[("lady_holder",)] = seats[holder]
    answers = b["lady answers"].reshape(n, 2)
    for j in range(n):
        side = _one(answers[j], f"the Lady's answer on {seats[j]}")
        if side is not None:
            facts[("lady", seats[j])] = ("evil", "good")[side]


def _history(n: int, values: np.ndarray) -> dict:
    """``("proposal", number) -> (quest, leader, team, default, votes or None)``."""
    seats = SEATS[:n]
    rows = values.reshape(SLOTS, slot_size(n))
    found, number = {}, 0
    for slot in np.flatnonzero(rows.any(axis=1)).tolist():
        row = rows[slot]
        leader = _one(row[:n], "a proposal's leader")
        team = _bits(row[n : 2 * n], "a proposal's team")
        flags = _bits(row[2 * n : 2 * n + 2], "a proposal's flags")
        ayes = _bits(row[2 * n + 2 :], "a proposal's approvals")
        if leader is None:
            raise ValueError("a proposal without a leader")
        if not team or (ayes and 1 not in flags):
            raise ValueError("a proposal without a team, or approvals without a vote")
        number += 1
        votes = None
        if 1 in flags:
            votes = tuple((seats[j], "approve" if j in ayes else "reject") for j in range(n))
        key = ("proposal", number)
        found[key] = (slot // PROPOSALS + 1, seats[leader], tuple(seats[j] for j in team),
                      0 in flags, votes)  # fmt: skip
    return found


def _told(n: int, me: int, values: np.ndarray) -> dict:
    """The claims of the ``told`` block, ``("told", sender, *fact key) -> value``."""
    seats = SEATS[:n]
    others = [j for j in range(n) if j != me]
    rows = values.reshape(n - 1, told_size(n))
    told: dict = {}
    for sender, row in zip(others, rows, strict=True):
        if not row.any():
            continue
        name = seats[sender]
        for kind, (codes, column) in _CODES.items():
            for j in range(n):
                code = _count(row[column * n + j], len(codes), f"a {kind} claim")
                if code > len(codes):
                    raise ValueError(f"a {kind} code {code} of {len(codes)}")
                if code:
                    told[(TOLD, name, kind, seats[j])] = codes[code - 1]
        pair = _bits(row[3 * n : 4 * n], "a claimed pair")
        if pair:
            if len(pair) != 2:
                raise ValueError(f"a claimed pair of {len(pair)}")
            told[(TOLD, name, "merlin_or_morgana")] = tuple(seats[j] for j in pair)
        for k in range(QUESTS):
            q = 4 * n + k * (2 + n)
            result = _count(row[q], 2, "a quest claim")
            fails = _count(row[q + 1], MAX_FAILS_CLAIMED + 1, "a fail-count claim")
            if result > 2 or fails > MAX_FAILS_CLAIMED + 1:
                raise ValueError("a quest or fail-count code out of range")
            if result:
                told[(TOLD, name, "quest", k + 1)] = CARDS[result - 1]
            if fails:
                told[(TOLD, name, "fails", k + 1)] = fails - 1
            team = _bits(row[q + 2 : q + 2 + n], "a claimed team")
            if team:
                told[(TOLD, name, "team", k + 1)] = tuple(seats[j] for j in team)
    return told
