"""Belief states in Avalon: each player's suspected side and role, with the evidence.

The format, one line per player (the seat's own line first)::

    Players (side; role; evidence):
    - Alpha (you): good; Loyal Servant; your own role.
    - Bravo: evil (certain); Assassin or Minion of Mordred; your role showed them as evil ...
    - Charlie: good (likely, 81%); role unknown; on 1 failed quest(s) of 2.
    - Delta: unknown; role unknown; nothing yet.

:func:`template` is the belief before play (sides unknown but one's own); :func:`oracle` is what
the seat could hold now from its own view, read off the exact posterior of
:mod:`.deduction` (the most likely side of each player, ``certain`` when the posterior leaves no
doubt, and a role when only one is possible); :func:`facts` reads the sides and roles a belief
states, as fact keys ``("side", seat)`` and ``("role", seat)``, so a written belief is scored
against the truth and against the oracle.

Example:
    >>> import mase
    >>> env = mase.make("mase/Avalon-v0", roles="avalonbench-5")
    >>> env.reset(seed=0, options={"deal": ("Merlin", "Loyal Servant", "Assassin",
    ...     "Loyal Servant", "Minion of Mordred"), "leader": "alpha"})
    >>> text = oracle(env.unwrapped.world, 0)
    >>> print(text.splitlines()[3][:60])
    - Charlie: evil (certain); Assassin or Minion of Mordred; yo
    >>> facts(text)[("side", "charlie")]
    'evil'
    >>> ("side", "bravo") in facts(template(env.unwrapped.world, 0))
    False
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from mase.envs.avalon.deduction import Evidence, Posterior, evidence, posterior
from mase.envs.avalon.roles import FAILS_NEEDED, ROLE_ORDER, ROLES
from mase.envs.avalon.world import State

HEADER = "Players (side; role; evidence):"
#: The belief's last section: the latest observation, so an action can be chosen from the
#: belief alone (the belief mode of Li et al. 2023 shows the model nothing else).
LATEST = "Latest observation:"
_CERTAIN = 1 - 1e-9


def _name(seat: str) -> str:
    return seat.capitalize()


def template(s: State, seat: int) -> str:
    """The belief before play: one's own side and role, the rest unknown."""
    lines = [HEADER]
    for j, name in enumerate(s.seats):
        if j == seat:
            role = s.roles[seat]
            lines.append(f"- {_name(name)} (you): {ROLES[role]}; {role}; your own role.")
        else:
            lines.append(f"- {_name(name)}: unknown; role unknown; nothing yet.")
    return "\n".join(lines) + f"\n\n{LATEST}\n(none yet)"


def with_observation(belief: str, observation: str) -> str:
    """``belief`` with its latest-observation section set to ``observation``."""
    return f"{belief.split(LATEST)[0].rstrip()}\n\n{LATEST}\n{observation.strip()}"


def latest_observation(belief: str) -> str | None:
    """The observation a belief's last section holds (``None`` when it holds none)."""
    _, found, text = belief.partition(LATEST)
    text = text.strip()
    return text if found and text and text != "(none yet)" else None


def describe(ev: Evidence, post: Posterior, seats: Sequence[str]) -> str:
    """The belief a seat with evidence ``ev`` and posterior ``post`` could hold."""
    evil = post.p_evil()
    roles = {r: post.p_role(r) for r in dict.fromkeys(ev.roles)}
    teams = ev.quest_teams()
    lines = [HEADER]
    for j, name in enumerate(seats):
        if j == ev.seat:
            lines.append(f"- {_name(name)} (you): {ROLES[ev.role]}; {ev.role}; your own role.")
            continue
        p = float(evil[j])
        if p >= _CERTAIN or p <= 1 - _CERTAIN:
            side = f"{'evil' if p >= 0.5 else 'good'} (certain)"
        elif abs(p - 0.5) < 1e-9:
            side = "unknown"
        else:
            side = f"{'evil' if p > 0.5 else 'good'} (likely, {max(p, 1 - p):.0%})"
        possible = [r for r, q in roles.items() if q[j] > 1 - _CERTAIN]
        if len(possible) == 1:
            role = possible[0]
        elif len(possible) <= 2 and (p >= _CERTAIN or p <= 1 - _CERTAIN):
            role = " or ".join(sorted(possible, key=ROLE_ORDER.index))
        else:
            role = "role unknown"
        lines.append(f"- {_name(name)}: {side}; {role}; {_reasons(ev, j, teams)}.")
    return "\n".join(lines)


def _reasons(ev: Evidence, j: int, teams: list[tuple[int, ...]]) -> str:
    reasons = []
    if j in ev.seen:
        reasons.append("your role showed them as evil at the start")
    if j in ev.pair:
        reasons.append("one of Merlin and Morgana, as Percival sees")
    reasons += [f"the Lady of the Lake showed them {side}" for k, side in ev.sides if k == j]
    reasons += [f"their role was made public: {role}" for k, role in ev.known_roles if k == j]
    on = [k for k, team in enumerate(teams) if j in team]
    failed = [k for k in on if ev.fails[k] >= FAILS_NEEDED[ev.n][k]]
    if on:
        reasons.append(f"on {len(failed)} failed quest(s) of {len(on)}")
    return "; ".join(reasons) if reasons else "nothing yet"


def oracle(s: State, seat: int) -> str:
    """What ``seat`` could believe now, from its own view: the exact posterior, described.

    (Without the latest-observation section: :func:`with_observation` adds it.)
    """
    ev = evidence(s, seat)
    return describe(ev, posterior(ev), s.seats)


_LINE = re.compile(
    r"^- ([A-Za-z]+)(?: \(you\))?: (good|evil|unknown)\b[^;\n]*;\s*([^;\n]*);", re.M | re.I
)
_ROLES = {r.lower(): r for r in ROLES}


def facts(text: str) -> dict:
    """The sides and single roles a belief states (``unknown`` and ``X or Y`` state none)."""
    found: dict = {}
    for m in _LINE.finditer(text.split(LATEST)[0]):
        seat, side, role = m.group(1).lower(), m.group(2).lower(), m.group(3).strip().lower()
        if side != "unknown":
            found[("side", seat)] = side
        if role in _ROLES:
            found[("role", seat)] = _ROLES[role]
    return found
