"""Teams: who plays which seat, from a spec string, a mapping or a callable.

A team spec names a policy for every seat (:func:`parse_team`); :func:`team_builder` turns any
team form into a function that builds one team per worker of a concurrent evaluation.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mase.agents import PolicyProtocol, is_llm, make_policy
from mase.agents.by_side import BySide

Team = Mapping[str, PolicyProtocol]
TeamSpec = str | Mapping[str, "str | PolicyProtocol"] | Callable[[Any], Team]


class SideChoice(dict):
    """A seat's policy names by the side it is dealt (side -> name), for hidden-role tasks."""

    def names(self) -> list[str]:
        """The policy names it may play."""
        return list(self.values())


def parse_team(
    spec: str, seats: list[str], sides: Sequence[str] = ()
) -> dict[str, str | SideChoice]:
    """Read a team spec into seat -> policy name (or a :class:`SideChoice`).

    ``"scripted"`` puts one policy in every seat; ``"alpha=scripted,bravo=random,charlie=random"``
    names each seat; ``"random,alpha=scripted"`` gives a default and exceptions. In a task
    whose seats are dealt sides (``sides``, e.g. good and evil), a side may be named
    as well: ``"scripted,good=deduction"`` plays the deduction player on whichever seats are
    dealt good each episode; a named seat keeps its policy whatever its side.

    Raises:
        ValueError: unknown seat or side, or seats left without a policy (the message names
            them).
    """
    default = None
    named: dict[str, str] = {}
    by_side: dict[str, str] = {}
    for part in (p.strip() for p in spec.split(",") if p.strip()):
        if "=" in part:
            key, _, name = (s.strip() for s in part.partition("="))
            if key in seats:
                if key in named:
                    raise ValueError(f"team {spec!r} gives seat {key} two policies")
                named[key] = name
            elif key in sides:
                if key in by_side:
                    raise ValueError(f"team {spec!r} gives side {key} two policies")
                by_side[key] = name
            else:
                where = f"seats: {seats}" + (f"; sides: {list(sides)}" if sides else "")
                raise ValueError(f"unknown seat {key!r} in team {spec!r}; {where}")
        elif default is None:
            default = part
        else:
            raise ValueError(f"team {spec!r} gives two default policies ({default}, {part})")
    if by_side:
        unnamed = [s for s in sides if s not in by_side]
        if unnamed and default is None:
            raise ValueError(f"team {spec!r} names no policy for side(s) {unnamed} and no default")
        choice = SideChoice({s: by_side.get(s, default) for s in sides})
        return {seat: named.get(seat, choice) for seat in seats}
    missing = [s for s in seats if s not in named and default is None]
    if missing:
        raise ValueError(f"team {spec!r} leaves seats {missing} without a policy")
    return {seat: named.get(seat, default) for seat in seats}


def entry_names(entry: Any) -> list[Any]:
    """The policies a parsed seat entry may play (one, or one per side)."""
    return entry.names() if isinstance(entry, SideChoice) else [entry]


def team_label(team: TeamSpec) -> str:
    """The team's name in tables and ``config.json`` when none is given."""
    if isinstance(team, str):
        return team
    if callable(team) and not isinstance(team, Mapping):
        return getattr(team, "__name__", "custom")
    return ",".join(f"{s}={p if isinstance(p, str) else type(p).__name__}" for s, p in team.items())


def uses_llm(team: TeamSpec, seats: list[str], sides: Sequence[str] = ()) -> bool:
    """Whether a team spec or mapping names a language-model policy for some seat."""
    if callable(team) and not isinstance(team, Mapping):
        return False
    names = parse_team(team, seats, sides) if isinstance(team, str) else dict(team)
    return any(
        isinstance(p, str) and is_llm(p) for entry in names.values() for p in entry_names(entry)
    )


def copy_policy(policy: PolicyProtocol, seat: str, concurrency: int) -> PolicyProtocol:
    """Another worker's copy of ``policy``: its ``spawn()``, else a deep copy."""
    spawn = getattr(policy, "spawn", None)
    if callable(spawn):
        return spawn()
    try:
        return copy.deepcopy(policy)
    except Exception as exc:
        raise ValueError(
            f"concurrency={concurrency} needs a copy of the {type(policy).__name__} in seat "
            f"{seat!r} for each worker, and it cannot be deep-copied ({exc}); give it a "
            "spawn() method returning a fresh policy, pass a policy name, or use concurrency=1"
        ) from exc


def team_builder(
    team: TeamSpec, seats: list[str], llm: Any = None, concurrency: int = 1
) -> Callable[[Any, int], dict[str, PolicyProtocol]]:
    """A function ``(env, worker) -> team`` for each worker of an evaluation.

    Policy names are built once per worker (LLM seats with ``llm``); policy objects serve
    worker 0 and are copied for the others (:func:`copy_policy`); a callable team is called
    once per worker's env.
    """
    if callable(team) and not isinstance(team, Mapping):

        def build_called(env: Any, worker: int) -> dict[str, PolicyProtocol]:
            return dict(team(env))

        return build_called
    llm_kwargs = {"llm": llm} if llm is not None else {}

    def one(p: Any, env: Any, seat: str, worker: int) -> PolicyProtocol:
        if isinstance(p, SideChoice):
            return BySide({side: one(name, env, seat, worker) for side, name in p.items()})
        if isinstance(p, str):
            return make_policy(p, env, **llm_kwargs)
        return p if worker == 0 else copy_policy(p, seat, concurrency)

    def build(env: Any, worker: int) -> dict[str, PolicyProtocol]:
        sides = getattr(env.unwrapped, "sides", ())
        names = parse_team(team, seats, sides) if isinstance(team, str) else dict(team)
        return {seat: one(p, env, seat, worker) for seat, p in names.items()}

    return build
