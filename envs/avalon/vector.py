"""Avalon's vector views: one seat's observation and the global state, float32 in [0, 1].

Observation layout (``n`` players; :func:`observation_size` is ``38 + 10 n``):

=====================  ======  ==================================================================
block                  size    content
=====================  ======  ==================================================================
own role               8       one-hot, in ``roles.ROLE_ORDER``
players                5 n     per player: is me, known evil, known good, one of Percival's
                               Merlin/Morgana pair, known Merlin (role knowledge, Lady of the
                               Lake results and the Assassin's public act)
quests                 15      per quest: succeeded, failed, fail cards / team size
quest index            6       one-hot: quest 1 to 5, or over
rejections             1       rejected proposals in a row / 5
leader                 n       one-hot
team                   n       the proposed team (0 when none)
phase                  7       one-hot: propose, discuss, vote, quest, assassinate, lady, over
last vote              2 n     per player: approved, rejected (the last revealed vote)
lady of the lake       n + 1   who holds it (one-hot), and whether I hold it
=====================  ======  ==================================================================

``state()`` is every seat's role (one-hot, ``8 n``) then the public part of the view (quests to
lady holder, without the private player block).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from mase.envs.avalon.roles import QUESTS, ROLE_ORDER, TEAM_SIZES
from mase.envs.avalon.world import State

PHASES = ("propose", "discuss", "vote", "quest", "assassinate", "lady", "over")
_ROLES = len(ROLE_ORDER)


def observation_size(n: int) -> int:
    """The length of one seat's observation vector for ``n`` players."""
    return _ROLES + 5 * n + _public_size(n) + 1


def state_size(n: int) -> int:
    """The length of ``state()`` for ``n`` players."""
    return _ROLES * n + _public_size(n)


def _public_size(n: int) -> int:
    return 3 * QUESTS + (QUESTS + 1) + 1 + n + n + len(PHASES) + 2 * n + n


def _public(s: State, phase: str) -> list[np.ndarray]:
    n = s.n
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
        np.eye(QUESTS + 1)[min(s.quest, QUESTS) if s.stage != "over" else QUESTS],
        [s.rejections / 5],
        np.eye(n)[s.leader],
        team,
        np.eye(len(PHASES))[PHASES.index("over" if s.stage == "over" else phase)],
        votes.ravel(),
        lady,
    ]


def observation(s: State, seat: int, known: Mapping, phase: str) -> np.ndarray:
    """``seat``'s observation vector from the facts it holds (``world.known_facts``)."""
    n = s.n
    players = np.zeros((n, 5))
    players[seat, 0] = 1
    for j, name in enumerate(s.seats):
        side = known.get(("side", name))
        players[j, 1] = side == "evil"
        players[j, 2] = side == "good"
        players[j, 4] = known.get(("role", name)) == "Merlin"
    for name in known.get(("merlin_or_morgana",), ()):
        players[s.seats.index(name), 3] = 1
    role = np.eye(_ROLES)[ROLE_ORDER.index(s.roles[seat])]
    parts = [role, players.ravel(), *_public(s, phase), [s.lady == seat]]
    return np.concatenate(parts).astype(np.float32)


def state_vector(s: State, phase: str) -> np.ndarray:
    """The global state: every seat's role, then the public part of the views."""
    roles = np.eye(_ROLES)[[ROLE_ORDER.index(r) for r in s.roles]].ravel()
    return np.concatenate([roles, *_public(s, phase)]).astype(np.float32)
