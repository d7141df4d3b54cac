"""Avalon's rules as a pure core: a state dataclass and the functions that play it.

No I/O and no env: each function takes the :class:`State` (and the :class:`Rules`), changes the
state and returns the :class:`mase.events.Event` records of what happened, each with the
audience the rules allow. A planner or the knowledge tracker can copy a state and play ahead.
A move that breaks the rules raises :class:`mase.actions.InvalidAction` before changing anything.

``state.stage`` names what is played next: ``"propose"``, ``"discuss"``, ``"vote"``,
``"quest"``, ``"assassinate"``, ``"lady"``, or ``"over"`` once ``state.winner`` is set.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from mase.actions import InvalidAction
from mase.envs.avalon.roles import (
    FAILS_NEEDED,
    LADY_AFTER,
    MAX_REJECTIONS,
    ROLES,
    SEATS,
    SEES_EVIL,
    SEES_MERLIN_OR_MORGANA,
    TEAM_SIZES,
    TEAMS,
    TO_WIN,
)
from mase.events import Event

FifthProposal = Literal["official", "forced"]
VOTES = ("reject", "approve")  # a vote is action 0 or 1
CARDS = ("success", "fail")  # a quest card is action 0 or 1

#: How a game can end (``info["metrics"]["ended_by"]``).
ENDINGS = {
    "three_fails": "evil",
    "five_rejections": "evil",
    "assassin_hit": "evil",
    "assassin_missed": "good",
    "three_successes": "good",  # a role set without an Assassin
}


@dataclass(frozen=True)
class Rules:
    """The rule options of a game (the player count and the variants)."""

    n_players: int
    fifth_proposal: FifthProposal = "official"
    discussion: int = 1
    lady_of_the_lake: bool = False


@dataclass
class Proposal:
    """One proposal: who led, the team, the votes (``None`` when forced without a vote)."""

    quest: int
    leader: int
    team: tuple[int, ...]
    approved: bool | None = None
    votes: dict[int, int] | None = None
    default: bool = False  # the leader gave no legal team, so the default team was put up


@dataclass
class State:
    """Everything about one game (seat indices throughout; names in ``seats``)."""

    seats: tuple[str, ...]
    roles: tuple[str, ...]  # the role of each seat
    leader: int
    lady: int | None = None  # who holds the Lady of the Lake
    round: int = 1
    stage: str = "propose"
    quest: int = 0  # the quest being played (0-based)
    results: list[str] = field(default_factory=list)  # "success"/"fail" per finished quest
    fails: list[int] = field(default_factory=list)  # fail cards per finished quest
    rejections: int = 0  # rejected proposals in a row, this quest
    proposal: Proposal | None = None
    proposals: list[Proposal] = field(default_factory=list)
    votes: dict[int, int] = field(default_factory=dict)  # cast, still secret
    revealed: dict[int, int] = field(default_factory=dict)  # the last vote, revealed
    cards: dict[int, int] = field(default_factory=dict)  # played, never revealed one by one
    played: list[dict[int, int]] = field(default_factory=list)  # each finished quest's cards
    discussion_left: int = 0
    held_lady: list[int] = field(default_factory=list)
    lady_results: list[tuple[int, int, str]] = field(default_factory=list)  # holder, target
    target: int | None = None  # whom the Assassin named
    winner: str | None = None
    ended_by: str = ""

    @property
    def n(self) -> int:
        """The number of players."""
        return len(self.seats)

    def side(self, seat: int) -> str:
        """``"good"`` or ``"evil"``."""
        return ROLES[self.roles[seat]]

    def seat_of(self, role: str) -> int | None:
        """The seat holding ``role`` (the first, for a repeated role), or ``None``."""
        return next((i for i, r in enumerate(self.roles) if r == role), None)

    def team_size(self) -> int:
        """The team size of the quest being played."""
        return TEAM_SIZES[self.n][min(self.quest, 4)]


def new_state(
    rules: Rules,
    roles: tuple[str, ...],
    rng: np.random.Generator,
    deal: tuple[str, ...] | None = None,
    leader: int | None = None,
) -> State:
    """Deal ``roles`` to random seats and pick the first leader at random.

    The Lady of the Lake (when played) starts with the player before the first leader in seat
    order (the official "to the leader's right"). ``deal`` (the roles in seat order, a
    reordering of ``roles``) and ``leader`` fix the draw, for scenarios.
    """
    n = rules.n_players
    dealt = tuple(roles[i] for i in rng.permutation(n))
    first = int(rng.integers(n))
    if deal is not None:
        if sorted(deal) != sorted(roles):
            raise ValueError(f"deal must be the game's roles in seat order: {sorted(roles)}")
        dealt = tuple(deal)
    if leader is not None:
        if leader not in range(n):
            raise ValueError(f"leader must be a seat index from 0 to {n - 1}, got {leader!r}")
        first = leader
    leader = first
    lady = (leader - 1) % n if rules.lady_of_the_lake else None
    return State(SEATS[:n], dealt, leader, lady, held_lady=[] if lady is None else [lady])


def _event(s: State, kind, actor, facts, audience, note="") -> Event:
    names = frozenset(s.seats[i] for i in audience)
    return Event(kind, None if actor is None else s.seats[actor], facts, names, s.round, note)


def start_events(s: State) -> list[Event]:
    """The moderator's reveals at the start, each to exactly whom the rules show it.

    Each player learns their own role; evil players who see each other learn it together (one
    event, common ground among them); Merlin learns the evil players he sees; Percival the pair
    Merlin and Morgana (or Merlin alone, with no Morgana in the game).
    """
    events = [
        _event(s, "role", None, {("role", s.seats[i]): r, ("side", s.seats[i]): ROLES[r]}, [i])
        for i, r in enumerate(s.roles)
    ]
    groups: dict[frozenset, list[int]] = {}
    for i, role in enumerate(s.roles):
        seen = frozenset(j for j in range(s.n) if s.roles[j] in SEES_EVIL[role])
        if seen:
            groups.setdefault(seen, []).append(i)
    for seen, watchers in groups.items():
        if set(watchers) <= seen:  # they see each other: one event, seen together
            others = seen
        else:
            others = seen - set(watchers)
        facts = {("side", s.seats[j]): "evil" for j in sorted(others)}
        events.append(_event(s, "sees_evil", None, facts, watchers))
    for i, role in enumerate(s.roles):
        if role in SEES_MERLIN_OR_MORGANA:
            events.append(_event(s, "sees_merlin", None, percival_facts(s, role), [i]))
    return events


def percival_facts(s: State, role: str) -> dict:
    """What a Percival-like role sees: the Merlin/Morgana pair, or Merlin alone."""
    pair = [i for i, r in enumerate(s.roles) if r in SEES_MERLIN_OR_MORGANA[role]]
    if len(pair) == 2:
        return {("merlin_or_morgana",): tuple(sorted(s.seats[i] for i in pair))}
    return {("role", s.seats[i]): s.roles[i] for i in pair}


def start_facts(s: State, seat: int) -> dict:
    """What ``seat``'s role showed it at the start.

    Its own role and side, the evil players its role sees, and Percival's pair (or Merlin
    alone).
    """
    me, role = s.seats[seat], s.roles[seat]
    facts: dict = {("role", me): role, ("side", me): ROLES[role]}
    for j in range(s.n):
        if j != seat and s.roles[j] in SEES_EVIL[role]:
            facts[("side", s.seats[j])] = "evil"
    if role in SEES_MERLIN_OR_MORGANA:
        facts.update(percival_facts(s, role))
    return facts


def lady_facts(s: State, seat: int) -> dict:
    """The sides the Lady of the Lake showed ``seat``."""
    return {
        ("side", s.seats[target]): side for holder, target, side in s.lady_results if holder == seat
    }


def known_facts(s: State, seat: int) -> dict:
    """Every fact ``seat`` holds now by the rules: what its role shows, and what was revealed.

    Its :func:`start_facts`; its :func:`lady_facts`; the quests' results and fail counts; the
    last revealed votes; and the Assassin's public act at the end.
    """
    facts = start_facts(s, seat)
    facts.update(lady_facts(s, seat))
    for k, (result, fails) in enumerate(zip(s.results, s.fails, strict=True), 1):
        facts[("quest", k)] = result
        facts[("fails", k)] = fails
    for j, vote in s.revealed.items():
        facts[("vote", s.seats[j])] = VOTES[vote]
    facts.update(assassination_facts(s))
    return facts


def assassination_facts(s: State) -> dict:
    """What the Assassin's act shows everyone: who the Assassin is, and a hit on Merlin."""
    if s.target is None:
        return {}
    assassin = s.seat_of("Assassin")
    facts = {("role", s.seats[assassin]): "Assassin"}
    if s.roles[s.target] == "Merlin":
        facts[("role", s.seats[s.target])] = "Merlin"
    return facts


# -- moves ------------------------------------------------------------------------------------


def legal(s: State, seat: int, rules: Rules) -> list[int]:
    """The legal action indices of ``seat`` in the stage being played (empty in discussion)."""
    if s.stage == "propose":
        return list(range(len(TEAMS[s.n][s.team_size()])))
    if s.stage == "vote":
        return [0, 1]
    if s.stage == "quest":
        return [0] if s.side(seat) == "good" else [0, 1]
    if s.stage == "assassinate":
        return [j for j in range(s.n) if j != seat]
    if s.stage == "lady":
        return [j for j in range(s.n) if j not in s.held_lady]
    return []


def propose(s: State, seat: int, team: int) -> list[Event]:
    """The leader puts up team number ``team`` of the quest's size (``roles.TEAMS`` order)."""
    teams = TEAMS[s.n][s.team_size()]
    if not 0 <= team < len(teams):
        raise InvalidAction(
            "no_such_team",
            f"there are {len(teams)} teams of {s.team_size()} (actions 0 to {len(teams) - 1}); "
            f"action {team} is none of them",
        )
    return _put_up(s, seat, teams[team], default=False)


def _put_up(s: State, seat: int, team: tuple[int, ...], default: bool) -> list[Event]:
    s.proposal = Proposal(s.quest, seat, team, default=default)
    s.proposals.append(s.proposal)
    names = ", ".join(s.seats[i] for i in team)
    facts = {("team", s.quest + 1): tuple(s.seats[i] for i in team)}
    how = "the default team (no legal proposal)" if default else "the team"
    actor = None if default else seat  # the default team is the moderator's, not a move
    return [_event(s, "propose", actor, facts, range(s.n), f"proposes {how}: {names}")]


def end_propose(s: State, rules: Rules) -> list[Event]:
    """After the leader's turn: a leader who gave no legal team puts up the default team.

    The default team is the leader and the players after them in seat order.
    """
    events = []
    if s.proposal is None:
        team = tuple(sorted((s.leader + i) % s.n for i in range(s.team_size())))
        events = _put_up(s, s.leader, team, default=True)
    s.discussion_left = rules.discussion
    if s.discussion_left:
        s.stage = "discuss"
        return events
    return events + _after_discussion(s, rules)


def _after_discussion(s: State, rules: Rules) -> list[Event]:
    """The vote, or (the forced variant's fifth proposal in a row) the quest without one."""
    if rules.fifth_proposal == "forced" and s.rejections == MAX_REJECTIONS - 1:
        s.stage = "quest"
        s.proposal.approved = True
        note = f"proposal {MAX_REJECTIONS} in a row goes on the quest without a vote"
        return [_event(s, "forced", None, {}, range(s.n), note)]
    s.stage = "vote"
    return []


def end_discuss(s: State, rules: Rules) -> list[Event]:
    """One pass of discussion is over: another, or the vote (or a forced quest)."""
    s.discussion_left -= 1
    return [] if s.discussion_left else _after_discussion(s, rules)


def vote(s: State, seat: int, choice: int) -> list[Event]:
    """A secret vote (0 reject, 1 approve); seen by all once everyone has voted."""
    if choice not in (0, 1):
        raise InvalidAction("not_a_vote", f"{choice} is neither 0 (reject) nor 1 (approve)")
    s.votes[seat] = choice
    facts = {("vote", s.seats[seat]): VOTES[choice]}
    return [_event(s, "vote", seat, facts, range(s.n), VOTES[choice])]


def end_vote(s: State, rules: Rules) -> list[Event]:
    """Count the votes (a missing vote rejects): a strict majority sends the team on the quest.

    A rejection passes the lead on; the fifth rejection in a row ends the game for evil.
    """
    votes = {i: s.votes.get(i, 0) for i in range(s.n)}
    s.votes, s.revealed = {}, votes
    approvals = sum(votes.values())
    approved = 2 * approvals > s.n
    s.proposal.approved, s.proposal.votes = approved, votes
    note = f"{'approved' if approved else 'rejected'} {approvals} to {s.n - approvals}"
    events = [_event(s, "vote_result", None, {}, range(s.n), note)]
    if approved:
        s.stage = "quest"
        return events
    s.rejections += 1
    s.stage = "propose"
    _next_leader(s)
    if s.rejections >= MAX_REJECTIONS:
        _end(s, "five_rejections")
    return events


def play_card(s: State, seat: int, card: int) -> list[Event]:
    """A quest card, face down (0 success, 1 fail); good players can only play success."""
    if card not in (0, 1):
        raise InvalidAction("not_a_card", f"{card} is neither 0 (success) nor 1 (fail)")
    if card == 1 and s.side(seat) == "good":
        raise InvalidAction("good_cannot_fail", "a good player can only play success")
    s.cards[seat] = card
    return [_event(s, "card", seat, {}, [seat], CARDS[card])]  # seen by its player alone


def end_quest(s: State, rules: Rules) -> list[Event]:
    """Count the fail cards (a missing card counts as success) and score the quest.

    Three failed quests end the game for evil; three successes call on the Assassin (good wins
    at once without one). Otherwise the lead passes on and, after quests 2 to 4 with the Lady
    of the Lake in play, her holder examines a player first.
    """
    fails = sum(s.cards.get(i, 0) for i in s.proposal.team)
    s.played.append({i: s.cards.get(i, 0) for i in s.proposal.team})
    s.cards = {}
    k = s.quest + 1
    result = "fail" if fails >= FAILS_NEEDED[s.n][s.quest] else "success"
    s.results.append(result)
    s.fails.append(fails)
    facts = {("quest", k): result, ("fails", k): fails}
    events = [_event(s, "quest", None, facts, range(s.n), f"quest {k}: {result}")]
    s.quest += 1
    s.rejections = 0
    _next_leader(s)
    if s.results.count("fail") >= TO_WIN:
        _end(s, "three_fails")
    elif s.results.count("success") >= TO_WIN:
        if s.seat_of("Assassin") is None:
            _end(s, "three_successes")
        else:
            s.stage = "assassinate"
    elif rules.lady_of_the_lake and k in LADY_AFTER:
        s.stage = "lady"
    else:
        s.stage = "propose"
    return events


def assassinate(s: State, seat: int, target: int) -> list[Event]:
    """The Assassin names a player: Merlin means evil wins, anyone else good."""
    if not 0 <= target < s.n or target == seat:
        raise InvalidAction("bad_target", f"name another player (0 to {s.n - 1}, not yourself)")
    s.target = target
    hit = s.roles[target] == "Merlin"
    _end(s, "assassin_hit" if hit else "assassin_missed")
    note = f"names {s.seats[target]}: {'Merlin' if hit else 'not Merlin'}"
    return [_event(s, "assassinate", seat, assassination_facts(s), range(s.n), note)]


def end_assassinate(s: State, rules: Rules) -> list[Event]:
    """An Assassin who named no one (an invalid move) missed: good wins."""
    if s.winner is None:
        _end(s, "assassin_missed")
    return []


def examine(s: State, seat: int, target: int) -> list[Event]:
    """The Lady of the Lake: the holder learns the target's side, privately; the card passes."""
    if not 0 <= target < s.n or target in s.held_lady:
        raise InvalidAction("bad_target", "examine a player who has not held the Lady of the Lake")
    side = s.side(target)
    s.lady_results.append((seat, target, side))
    s.held_lady.append(target)
    s.lady = target
    names = s.seats[seat], s.seats[target]
    return [
        _event(s, "lady", seat, {("side", names[1]): side}, [seat], f"{names[1]} is {side}"),
        _event(s, "lady_passes", seat, {}, range(s.n), f"{names[0]} examines {names[1]}"),
    ]


def end_lady(s: State, rules: Rules) -> list[Event]:
    """After the Lady of the Lake (an invalid examination is lost), the next proposal."""
    s.stage = "propose"
    return []


def _next_leader(s: State) -> None:
    s.leader = (s.leader + 1) % s.n
    s.proposal = None


def _end(s: State, how: str) -> None:
    s.winner, s.ended_by, s.stage = ENDINGS[how], how, "over"
