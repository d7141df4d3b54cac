"""Teams: who plays which seat, from a spec string, a mapping or a callable.

A team spec names a policy for every seat (:func:`parse_team`); :func:`team_builder` turns any
team form into a function that builds one team per worker of a concurrent evaluation.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from mase.agents import PolicyProtocol, is_llm, make_policy

Team = Mapping[str, PolicyProtocol]
TeamSpec = str | Mapping[str, "str | PolicyProtocol"] | Callable[[Any], Team]


def parse_team(spec: str, seats: list[str]) -> dict[str, str]:
    """Read a team spec into seat -> policy name.

    ``"scripted"`` puts one policy in every seat; ``"alpha=scripted,bravo=random,charlie=random"``
    names each seat; ``"random,alpha=scripted"`` gives a default and exceptions.

    Raises:
        ValueError: unknown seat, or seats left without a policy (the message names them).
    """
    default = None
    named: dict[str, str] = {}
    for part in (p.strip() for p in spec.split(",") if p.strip()):
        if "=" in part:
            seat, _, name = (s.strip() for s in part.partition("="))
            if seat not in seats:
                raise ValueError(f"unknown seat {seat!r} in team {spec!r}; seats: {seats}")
            if seat in named:
                raise ValueError(f"team {spec!r} gives seat {seat} two policies")
            named[seat] = name
        elif default is None:
            default = part
        else:
            raise ValueError(f"team {spec!r} gives two default policies ({default}, {part})")
    missing = [s for s in seats if s not in named and default is None]
    if missing:
        raise ValueError(f"team {spec!r} leaves seats {missing} without a policy")
    return {seat: named.get(seat, default) for seat in seats}


def team_label(team: TeamSpec) -> str:
    """The team's name in tables and ``config.json`` when none is given."""
    if isinstance(team, str):
        return team
    if callable(team) and not isinstance(team, Mapping):
        return getattr(team, "__name__", "custom")
    return ",".join(f"{s}={p if isinstance(p, str) else type(p).__name__}" for s, p in team.items())


def uses_llm(team: TeamSpec, seats: list[str]) -> bool:
    """Whether a team spec or mapping names a language-model policy for some seat."""
    if callable(team) and not isinstance(team, Mapping):
        return False
    names = parse_team(team, seats) if isinstance(team, str) else dict(team)
    return any(isinstance(p, str) and is_llm(p) for p in names.values())


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
    names = parse_team(team, seats) if isinstance(team, str) else dict(team)
    llm_kwargs = {"llm": llm} if llm is not None else {}

    def build(env: Any, worker: int) -> dict[str, PolicyProtocol]:
        return {
            seat: make_policy(p, env, **llm_kwargs)
            if isinstance(p, str)
            else (p if worker == 0 else copy_policy(p, seat, concurrency))
            for seat, p in names.items()
        }

    return build
