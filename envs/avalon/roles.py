"""Avalon's rules as data: seats, roles, sides, quest tables, who sees whom, and role sets.

Everything the official game fixes by the number of players is a table here (REFERENCE §4):
the good/evil split, each quest's team size and the fails that fail it. What a role learns at
the start is a table too (:data:`SEES_EVIL`, :data:`SEES_MERLIN_OR_MORGANA`), read by the
world when it deals the roles.

Example:
    >>> TEAM_SIZES[7], FAILS_NEEDED[7]
    ((2, 3, 3, 4, 4), (1, 1, 1, 2, 1))
    >>> resolve_roles(5, "avalonbench-5")
    ('Merlin', 'Loyal Servant', 'Loyal Servant', 'Minion of Mordred', 'Assassin')
    >>> resolve_roles(6, ("Merlin", "Assassin", "Loyal Servant"))
    Traceback (most recent call last):
    ...
    ValueError: roles: 6 players need 6 roles, got 3: ('Merlin', 'Assassin', 'Loyal Servant')
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations

#: Seat names, in seat order (the NATO alphabet, as in search and rescue): a game of ``n``
#: players uses the first ``n``. Text numbers seats from 1 (``1`` is alpha).
SEATS = (
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliett",
)

#: Every role and its side.
ROLES = {
    "Merlin": "good",
    "Percival": "good",
    "Loyal Servant": "good",
    "Morgana": "evil",
    "Assassin": "evil",
    "Mordred": "evil",
    "Oberon": "evil",
    "Minion of Mordred": "evil",
}
#: Roles in a fixed order (the one-hot order of the vector view).
ROLE_ORDER = tuple(ROLES)
SIDES = ("good", "evil")
#: Roles a game holds at most once (servants and minions may repeat).
UNIQUE_ROLES = frozenset(ROLES) - {"Loyal Servant", "Minion of Mordred"}

#: players -> (good, evil), the official split.
SIDE_COUNTS = {5: (3, 2), 6: (4, 2), 7: (4, 3), 8: (5, 3), 9: (6, 3), 10: (6, 4)}
#: players -> the team size of quests 1 to 5.
TEAM_SIZES = {
    5: (2, 3, 2, 3, 3),
    6: (2, 3, 4, 3, 4),
    7: (2, 3, 3, 4, 4),
    8: (3, 4, 4, 5, 5),
    9: (3, 4, 4, 5, 5),
    10: (3, 4, 4, 5, 5),
}
#: players -> the fails that fail quests 1 to 5 (two on the fourth quest with 7 or more).
FAILS_NEEDED = {
    n: (1, 1, 1, 2, 1) if n >= 7 else (1, 1, 1, 1, 1) for n in SIDE_COUNTS
}  # fmt: skip
QUESTS = 5
#: Quests a side must win.
TO_WIN = 3
#: Rejected proposals in a row that end the game (official: evil wins).
MAX_REJECTIONS = 5
#: After which quests (1-based) the Lady of the Lake is used.
LADY_AFTER = (2, 3, 4)
LADY_MIN_PLAYERS = 7

#: role -> the roles whose holders it sees as evil at the start (official knowledge rules):
#: Merlin sees every evil player but Mordred; evil players see each other but Oberon, and
#: Oberon sees no one; Percival and the loyal servants see no one as evil.
_EVIL_TEAM = frozenset({"Morgana", "Assassin", "Mordred", "Minion of Mordred"})
SEES_EVIL = {
    "Merlin": frozenset({"Morgana", "Assassin", "Oberon", "Minion of Mordred"}),
    "Percival": frozenset(),
    "Loyal Servant": frozenset(),
    **dict.fromkeys(_EVIL_TEAM, _EVIL_TEAM),
    "Oberon": frozenset(),
}
#: role -> the roles it sees as one pair without telling which is which (Percival sees Merlin
#: and Morgana; with no Morgana in the game he sees Merlin alone, and knows him).
SEES_MERLIN_OR_MORGANA = {"Percival": ("Merlin", "Morgana")}

#: Named role sets: name -> the roles of the game (dealt to random seats each game).
ROLE_SETS = {
    # AvalonPlay (Shi et al. 2023), 7 players: the paper names six roles (Merlin, Percival,
    # loyal servants, Morgana, Assassin, ...); the third evil seat is a plain Minion of
    # Mordred because the paper lists no other evil role.
    "avalonplay-7": (
        "Merlin", "Percival", "Loyal Servant", "Loyal Servant",
        "Morgana", "Assassin", "Minion of Mordred",
    ),
    # AvalonBench (Light et al. 2023), 5 players.
    "avalonbench-5": (
        "Merlin", "Loyal Servant", "Loyal Servant", "Minion of Mordred", "Assassin",
    ),
    # The official defaults: Merlin, Percival, Morgana and the Assassin in every game (the
    # rulebook's first set of special roles), then loyal servants to fill the good side and,
    # on the evil side, Oberon at 7, a Minion at 8, Mordred at 9, Mordred and Oberon at 10.
    "official-5": ("Merlin", "Percival", "Loyal Servant", "Morgana", "Assassin"),
    "official-6": (
        "Merlin", "Percival", "Loyal Servant", "Loyal Servant", "Morgana", "Assassin",
    ),
    "official-7": (
        "Merlin", "Percival", "Loyal Servant", "Loyal Servant", "Morgana", "Assassin", "Oberon",
    ),
    "official-8": (
        "Merlin", "Percival", "Loyal Servant", "Loyal Servant", "Loyal Servant",
        "Morgana", "Assassin", "Minion of Mordred",
    ),
    "official-9": (
        "Merlin", "Percival", "Loyal Servant", "Loyal Servant", "Loyal Servant",
        "Loyal Servant", "Morgana", "Assassin", "Mordred",
    ),
    "official-10": (
        "Merlin", "Percival", "Loyal Servant", "Loyal Servant", "Loyal Servant",
        "Loyal Servant", "Morgana", "Assassin", "Mordred", "Oberon",
    ),
}  # fmt: skip

#: players -> every team of each quest's size, as tuples of seat indices (the proposal
#: actions index into these lists; ``itertools.combinations`` order).
TEAMS = {
    n: {size: tuple(combinations(range(n), size)) for size in set(TEAM_SIZES[n])}
    for n in SIDE_COUNTS
}


def official_set(n_players: int) -> str:
    """The name of the official default role set for ``n_players``."""
    return f"official-{n_players}"


def resolve_roles(n_players: int | None, roles: str | Sequence[str] | None) -> tuple[str, ...]:
    """The roles of a game: a set name or a tuple of role names, checked against the rules.

    Args:
        n_players: 5 to 10, or ``None`` to take it from ``roles`` (5 when both are ``None``).
        roles: a name of :data:`ROLE_SETS`, a sequence of role names (of :data:`ROLES`,
            case-insensitive), or ``None`` for the official default of ``n_players``.

    Raises:
        ValueError: an unknown set or role, a count that does not match the official
            good/evil split, a unique role twice, an Assassin or Percival without Merlin.
    """
    if n_players is not None and (
        isinstance(n_players, bool)
        or not isinstance(n_players, int)
        or n_players not in SIDE_COUNTS
    ):
        raise ValueError(f"n_players must be a whole number from 5 to 10, got {n_players!r}")
    if roles is None:
        return ROLE_SETS[official_set(5 if n_players is None else n_players)]
    if isinstance(roles, str):
        if roles not in ROLE_SETS:
            raise ValueError(
                f"roles: unknown role set {roles!r}; sets: {', '.join(ROLE_SETS)} (or a tuple "
                "of role names)"
            )
        chosen = ROLE_SETS[roles]
        if n_players is not None and len(chosen) != n_players:
            raise ValueError(
                f"roles: the set {roles!r} is for {len(chosen)} players, not {n_players}; "
                f"pass n_players={len(chosen)} or another set"
            )
        return chosen
    by_lower = {r.lower(): r for r in ROLES}
    names = tuple(roles)
    unknown = [r for r in names if not isinstance(r, str) or r.lower() not in by_lower]
    if unknown:
        raise ValueError(f"roles: unknown role names {unknown}; roles: {', '.join(ROLES)}")
    chosen = tuple(by_lower[r.lower()] for r in names)
    n = len(chosen) if n_players is None else n_players
    if len(chosen) != n:
        raise ValueError(f"roles: {n} players need {n} roles, got {len(chosen)}: {names}")
    if n not in SIDE_COUNTS:
        raise ValueError(f"roles: Avalon is for 5 to 10 players, got {n} roles")
    counts = Counter(chosen)
    twice = sorted(r for r in UNIQUE_ROLES if counts[r] > 1)
    if twice:
        raise ValueError(f"roles: {', '.join(twice)} may appear only once, got {names}")
    good = sum(ROLES[r] == "good" for r in chosen)
    if (good, n - good) != SIDE_COUNTS[n]:
        want = SIDE_COUNTS[n]
        raise ValueError(
            f"roles: {n} players are {want[0]} good and {want[1]} evil, got {good} good and "
            f"{n - good} evil: {names}"
        )
    for needs_merlin in ("Assassin", "Percival"):
        if counts[needs_merlin] and not counts["Merlin"]:
            raise ValueError(f"roles: a game with {needs_merlin} needs exactly one Merlin")
    return chosen
