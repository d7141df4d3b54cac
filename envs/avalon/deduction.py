"""Exact Bayesian deduction in Avalon: the posterior over role assignments from one seat's view.

A seat knows its own role and what it has seen. Every way of dealing the other roles to the
other seats that agrees with what the seat was shown (its role's start knowledge, the Lady of
the Lake's answers, the roles the Assassin's act made public) is a possible world, and all are
equally likely before play: the deal is uniform. Play then weighs them by a stated
:class:`BehaviourModel`, the probability that a player of a given role proposes a team, casts
a vote or plays the fail cards that were seen, given what that role knows. The posterior is
exact for that model: every assignment is enumerated (numpy arrays; at most 9!/3! = 60,480,
a loyal servant's view of ``official-10``), nothing is sampled.

What a seat has seen is an :class:`Evidence`, built from the world (:func:`evidence`, the
reference for probes) or from the seat's own text observations
(:class:`.deduction_player.DeductionPlayer` reads them). Speech is not evidence here:
players may say anything.

Example:
    >>> import mase
    >>> env = mase.make("mase/Avalon-v0", roles="avalonbench-5", discussion=0)
    >>> env.reset(seed=0, options={"deal": ("Loyal Servant", "Merlin", "Assassin",
    ...     "Loyal Servant", "Minion of Mordred"), "leader": "alpha"})
    >>> post = posterior(evidence(env.unwrapped.world, 0))
    >>> len(post.weights), post.p_evil().round(2).tolist()
    (24, [0.0, 0.5, 0.5, 0.5, 0.5])
    >>> post = posterior(evidence(env.unwrapped.world, 1))  # Merlin sees both evil players
    >>> post.p_evil().tolist(), post.p_role("Assassin").tolist()
    ([0.0, 0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 0.5, 0.0, 0.5])
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from math import comb
from typing import Any

import numpy as np

from mase.envs.avalon.roles import (
    FAILS_NEEDED,
    ROLE_ORDER,
    ROLES,
    SEES_EVIL,
    SEES_MERLIN_OR_MORGANA,
    SIDE_COUNTS,
    TEAM_SIZES,
)
from mase.envs.avalon.world import State, known_facts

_EVIL = np.array([ROLES[r] == "evil" for r in ROLE_ORDER])
#: knows[r, q]: a player of role r sees players of role q as evil at the start.
_KNOWS = np.array([[q in SEES_EVIL[r] for q in ROLE_ORDER] for r in ROLE_ORDER])
_MERLIN = ROLE_ORDER.index("Merlin")


@dataclass(frozen=True)
class BehaviourModel:
    """How the deduction expects players to act, given their role and what it shows them.

    A leader of the evil side puts a team with one of the evil players it knows (itself
    included) on the table with probability ``leader_own_side``, any such team alike; Merlin
    proposes a team without the evil players he sees with the same probability; other good
    leaders pick any team alike. An evil voter approves a team with an evil player it knows
    with probability ``evil_approves_own``, another with ``evil_approves_other``; Merlin
    approves a team with an evil player he sees with ``merlin_approves_seen``, another with
    ``merlin_approves_clean``; any other good player approves with ``good_approves``. Each evil
    player on a quest plays fail with probability ``fail``, independently. A leader's default
    team (no legal proposal) says nothing; neither does speech.
    """

    leader_own_side: float = 0.9
    evil_approves_own: float = 0.9
    evil_approves_other: float = 0.3
    merlin_approves_seen: float = 0.2
    merlin_approves_clean: float = 0.8
    good_approves: float = 0.6
    fail: float = 0.75

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if not 0.0 < value < 1.0:
                raise ValueError(f"{name} must be a probability strictly between 0 and 1")


@dataclass(frozen=True)
class SeenProposal:
    """A decided proposal: its quest (0-based), leader, team, votes (seat -> 1 approve)."""

    quest: int
    leader: int
    team: tuple[int, ...]
    votes: tuple[int, ...] | None  # one per seat; None: the fifth proposal, sent without a vote
    default: bool = False

    @property
    def approved(self) -> bool:
        """Whether the team went on its quest."""
        return self.votes is None or 2 * sum(self.votes) > len(self.votes)


@dataclass(frozen=True)
class Evidence:
    """Everything one seat has seen that bears on who holds which role.

    ``roles`` is the game's role set (public), ``seen`` the seats the seat's role showed it as
    evil at the start, ``pair`` Percival's Merlin/Morgana pair (or Merlin alone), ``sides``
    sides learned later (the Lady of the Lake; a side known from the start is not repeated),
    ``known_roles`` roles made public (the Assassin's act), ``not_merlin`` the player the
    Assassin named and missed, ``proposals`` the decided proposals in order, ``fails`` the
    fail cards of each finished quest and ``own_cards`` the seat's own card on each (0 when
    not on it).
    """

    roles: tuple[str, ...]
    seat: int
    role: str
    seen: frozenset[int] = frozenset()
    pair: tuple[int, ...] = ()
    sides: tuple[tuple[int, str], ...] = ()
    known_roles: tuple[tuple[int, str], ...] = ()
    not_merlin: frozenset[int] = frozenset()  # whom the Assassin named and missed
    proposals: tuple[SeenProposal, ...] = ()
    fails: tuple[int, ...] = ()
    own_cards: tuple[int, ...] = ()

    @property
    def n(self) -> int:
        """The number of players."""
        return len(self.roles)

    def quest_teams(self) -> list[tuple[int, ...]]:
        """The team that went on each finished quest (its last, approved proposal)."""
        teams = []
        for k in range(len(self.fails)):
            went = [p for p in self.proposals if p.quest == k and p.approved]
            if not went:
                raise ValueError(f"quest {k + 1} finished, but no proposal for it was approved")
            teams.append(went[-1].team)
        return teams


@dataclass(frozen=True)
class Posterior:
    """Role assignments (rows: a role index of ``ROLE_ORDER`` per seat) and their probability."""

    assignments: np.ndarray
    weights: np.ndarray

    def p_role(self, role: str) -> np.ndarray:
        """The probability that each seat holds ``role``."""
        return self.weights @ (self.assignments == ROLE_ORDER.index(role))

    def p_evil(self) -> np.ndarray:
        """The probability that each seat is evil."""
        return self.weights @ _EVIL[self.assignments]

    def p_clean(self, teams: Sequence[Sequence[int]]) -> np.ndarray:
        """The probability that each team has no evil player."""
        evil = _EVIL[self.assignments].astype(np.float32)
        member = np.zeros((len(teams), self.assignments.shape[1]), dtype=np.float32)
        for t, team in enumerate(teams):
            member[t, list(team)] = 1.0
        return self.weights @ ((evil @ member.T) == 0)  # float32 sums of 0/1: exact

    def table(self) -> dict[tuple[str, ...], float]:
        """The posterior as ``{roles in seat order: probability}`` (nonzero ones)."""
        return {
            tuple(ROLE_ORDER[r] for r in row): float(w)
            for row, w in zip(self.assignments, self.weights, strict=True)
            if w > 0
        }


# -- enumeration ------------------------------------------------------------------------------


@lru_cache(maxsize=64)
def assignments(roles: tuple[str, ...], seat: int, role: str) -> np.ndarray:
    """Every distinct deal of ``roles`` with ``role`` at ``seat``: role indices, one row each."""
    rest = Counter(roles)
    if rest[role] == 0:
        raise ValueError(f"role {role!r} is not in the game's roles {roles}")
    rest[role] -= 1
    kinds = sorted(ROLE_ORDER.index(r) for r, c in rest.items() if c > 0)
    counts = [rest[ROLE_ORDER[k]] for k in kinds]
    rows: list[list[int]] = []
    prefix: list[int] = []

    def place(left: int) -> None:
        if left == 0:
            rows.append(prefix.copy())
            return
        for i, k in enumerate(kinds):
            if counts[i]:
                counts[i] -= 1
                prefix.append(k)
                place(left - 1)
                prefix.pop()
                counts[i] += 1

    place(len(roles) - 1)
    others = np.array(rows, dtype=np.int8).reshape(len(rows), len(roles) - 1)
    mine = np.full((len(rows), 1), ROLE_ORDER.index(role), dtype=np.int8)
    table = np.concatenate([others[:, :seat], mine, others[:, seat:]], axis=1)
    table.flags.writeable = False
    return table


def consistent(ev: Evidence) -> np.ndarray:
    """The deals that agree with everything the seat was shown (rows of :func:`assignments`)."""
    table = assignments(tuple(sorted(ev.roles)), ev.seat, ev.role)
    keep = np.ones(len(table), dtype=bool)
    mine = ROLE_ORDER.index(ev.role)
    others = [j for j in range(ev.n) if j != ev.seat]
    seen = _KNOWS[mine][table[:, others]]
    keep &= (seen == np.array([j in ev.seen for j in others])).all(axis=1)
    if ev.role in SEES_MERLIN_OR_MORGANA:
        idx = [ROLE_ORDER.index(r) for r in SEES_MERLIN_OR_MORGANA[ev.role]]
        in_pair = np.isin(table[:, others], idx)
        keep &= (in_pair == np.array([j in ev.pair for j in others])).all(axis=1)
    for j, side in ev.sides:
        keep &= _EVIL[table[:, j]] == (side == "evil")
    for j, role in ev.known_roles:
        keep &= table[:, j] == ROLE_ORDER.index(role)
    for j in ev.not_merlin:
        keep &= table[:, j] != _MERLIN
    return table[keep]


# -- likelihood -------------------------------------------------------------------------------


def _knowing(table: np.ndarray) -> np.ndarray:
    """Who knows whom to be evil, as float32 for the products of :func:`log_likelihood`.

    ``[deal, j, k]``: in that deal seat ``j`` knows seat ``k`` to be evil (an evil ``j`` knows
    itself).
    """
    rows = table.astype(np.intp)
    known = _KNOWS[rows[:, :, None], rows[:, None, :]]
    seats = np.arange(table.shape[1])
    known[:, seats, seats] |= _EVIL[rows]
    return known.astype(np.float32)


def log_likelihood(ev: Evidence, table: np.ndarray, model: BehaviourModel) -> np.ndarray:
    """The log probability of the other players' seen moves under ``model``, per deal."""
    n, total = ev.n, np.zeros(len(table))
    evil = _EVIL[table]
    merlin = table == _MERLIN
    # knowing[a, j, k]: in deal a, seat j knows seat k to be evil
    knowing = _knowing(table)
    known_counts = knowing.sum(axis=2).astype(np.intp)
    # a voter's log chance of approving (row 0) or rejecting (row 1), by kind and by whether
    # the team holds an evil player it knows: kind 0 evil, 1 Merlin, 2 another good player
    kind = np.where(evil, 0, np.where(merlin, 1, 2))
    approve = np.array(
        [
            [model.evil_approves_other, model.evil_approves_own],
            [model.merlin_approves_clean, model.merlin_approves_seen],
            [model.good_approves, model.good_approves],
        ]
    )
    vote_log = np.log(np.stack([1.0 - approve, approve]))
    flat_vote_log = vote_log.reshape(-1)  # [vote * 6 + kind * 2 + hit]
    kind2 = kind * 2
    others_all = [j for j in range(n) if j != ev.seat]
    for p in ev.proposals:
        team = list(p.team)
        member = np.zeros(n, dtype=np.float32)
        member[team] = 1.0
        hits = (knowing @ member) > 0  # per deal and seat: the team holds evil it knows
        if p.leader != ev.seat and not p.default:
            hit = hits[:, p.leader]
            size, all_teams = len(team), comb(n, len(team))
            clean = np.array([comb(n - k, size) for k in range(n + 1)])[known_counts[:, p.leader]]
            dirty = all_teams - clean
            q = model.leader_own_side
            # evil wants its own side on the team; Merlin wants the evil he sees off it
            wanted = np.where(evil[:, p.leader], hit, ~hit)
            n_wanted = np.where(evil[:, p.leader], dirty, clean)
            n_other = all_teams - n_wanted
            chose = np.where(
                n_other == 0,
                1.0 / np.maximum(n_wanted, 1),
                np.where(wanted, q / np.maximum(n_wanted, 1), (1 - q) / np.maximum(n_other, 1)),
            )
            plain = ~(evil[:, p.leader] | merlin[:, p.leader])
            total += np.log(np.where(plain, 1.0 / all_teams, chose))
        if p.votes is None:
            continue
        # each other voter's term at once: vote_log[vote][kind, hit], flattened
        cell = kind2 + hits.view(np.int8)
        terms = flat_vote_log[np.asarray(p.votes, dtype=np.intp) * 6 + cell]
        total += terms[:, others_all].sum(axis=1)
    for team, fails, mine in zip(ev.quest_teams(), ev.fails, ev.own_cards, strict=True):
        others = [i for i in team if i != ev.seat]
        by_others = fails - (mine if ev.seat in team else 0)
        e = evil[:, others].sum(axis=1)
        f = model.fail
        with np.errstate(divide="ignore"):
            binom = np.array([comb(k, by_others) for k in range(n + 1)], dtype=float)[e]
            total += np.log(binom) + by_others * np.log(f) + (e - by_others) * np.log(1 - f)
    return total


def posterior(ev: Evidence, model: BehaviourModel | None = None) -> Posterior:
    """The exact posterior over the deals :func:`consistent` with ``ev``.

    Raises:
        ValueError: no deal agrees with the evidence (it contradicts the rules).
    """
    table = consistent(ev)
    if not len(table):
        raise ValueError(f"no deal of the roles agrees with what seat {ev.seat} saw")
    logs = log_likelihood(ev, table, model or BehaviourModel())
    if not np.isfinite(logs).any():
        raise ValueError(f"no deal of the roles explains the quests seat {ev.seat} saw")
    weights = np.exp(logs - logs.max())
    return Posterior(table, weights / weights.sum())


# -- evidence from the world ------------------------------------------------------------------


def evidence(s: State, seat: int) -> Evidence:
    """What ``seat`` has seen in the game ``s`` (the reference for probes and tests).

    Read from the state through the rules' own :func:`~.world.known_facts` for what the
    seat's role shows, plus the public history (decided proposals, votes, quests) and the
    seat's own quest cards.
    """
    known = known_facts(s, seat)
    index = {name: i for i, name in enumerate(s.seats)}
    role = s.roles[seat]
    seen = frozenset(j for j in range(s.n) if j != seat and s.roles[j] in SEES_EVIL[role])
    pair = tuple(index[x] for x in known.get(("merlin_or_morgana",), ()))
    known_roles = []
    for (kind, *key), value in known.items():
        if kind == "role" and key[0] != s.seats[seat]:
            known_roles.append((index[key[0]], value))
            if role in SEES_MERLIN_OR_MORGANA and value == "Merlin" and not pair:
                pair = (index[key[0]],)
    # the Lady's answers, but for a side the seat's role already showed it at the start
    shown = seen | (set(pair) if len(pair) == 1 else set())
    sides = tuple(
        (target, side)
        for holder, target, side in s.lady_results
        if holder == seat and target not in shown
    )
    proposals = tuple(
        SeenProposal(
            p.quest,
            p.leader,
            tuple(p.team),
            None if p.votes is None else tuple(p.votes[j] for j in range(s.n)),
            p.default,
        )
        for p in s.proposals
        if p.approved is not None
    )
    return Evidence(
        roles=tuple(sorted(s.roles)),
        seat=seat,
        role=role,
        seen=seen,
        pair=pair,
        sides=sides,
        known_roles=tuple(sorted(known_roles)),
        not_merlin=frozenset(
            () if s.target is None or s.roles[s.target] == "Merlin" else (s.target,)
        ),
        proposals=proposals,
        fails=tuple(s.fails),
        own_cards=tuple(cards.get(seat, 0) for cards in s.played),
    )


# -- what a seat knows, for programs and beliefs ------------------------------------------------


def evidence_facts(ev: Evidence, seats: Sequence[str]) -> dict[str, Any]:
    """A seat's evidence as plain JSON facts (what a CodeAct agent's program reads).

    Everything is from the seat's own view: its role, the sides and roles it was shown, the
    Merlin/Morgana pair, every decided proposal with its leader and votes, and each finished
    quest's team, fail cards, result and the seat's own card.
    """
    n = ev.n
    sides = {seats[j]: "evil" for j in sorted(ev.seen)}
    sides.update({seats[j]: side for j, side in ev.sides})
    sides.update({seats[j]: ROLES[r] for j, r in ev.known_roles})
    teams = ev.quest_teams()
    return {
        "me": seats[ev.seat],
        "my_role": ev.role,
        "my_side": ROLES[ev.role],
        "players": list(seats),
        "roles_in_game": list(ev.roles),
        "evil_count": SIDE_COUNTS[n][1],
        "team_sizes": list(TEAM_SIZES[n]),
        "fails_needed": list(FAILS_NEEDED[n]),
        "known_sides": sides,
        "known_roles": {seats[j]: r for j, r in ev.known_roles},
        "merlin_or_morgana": [seats[j] for j in ev.pair] if len(ev.pair) == 2 else [],
        "proposals": [
            {
                "quest": p.quest + 1,
                "leader": seats[p.leader],
                "team": [seats[i] for i in p.team],
                "votes": None
                if p.votes is None
                else {seats[j]: "approve" if v else "reject" for j, v in enumerate(p.votes)},
                "approved": p.approved,
            }
            for p in ev.proposals
        ],
        "quests": [
            {
                "quest": k + 1,
                "team": [seats[i] for i in team],
                "fails": fails,
                "result": "fail" if fails >= FAILS_NEEDED[n][k] else "success",
                "my_card": ("fail" if mine else "success") if ev.seat in team else None,
            }
            for k, (team, fails, mine) in enumerate(zip(teams, ev.fails, ev.own_cards, strict=True))
        ],
    }
