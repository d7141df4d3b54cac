"""``mase play --web``: a game served to browsers, people in the ``human`` seats."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import mase
from mase.agents import is_llm
from mase.cli.models import model_endpoint
from mase.runner import parse_team

#: The file in ``--out`` that keeps each person's seat token, so ``--resume`` keeps the links.
SEATS_FILE = "seats.json"


def web_team(args: argparse.Namespace, seats: list[str], sides: tuple) -> dict[str, Any]:
    """Seat -> policy name from ``--team`` and ``--seat``; the first seat is a person's if none is.

    Raises:
        SystemExit: a ``--seat`` that is no seat of the task.
    """
    team: dict[str, Any] = dict(parse_team(args.team, seats, sides))
    if args.seat:
        if args.seat not in seats:
            raise SystemExit(f"--seat must be one of {seats}, got {args.seat!r}")
        team[args.seat] = "human"
    if "human" not in team.values():
        team[seats[0]] = "human"
    return team


def _saved_tokens(out: str | None, resume: bool) -> dict[str, str]:
    path = Path(out or "", SEATS_FILE)
    if not (out and resume and path.is_file()):
        return {}
    try:
        data = json.loads(path.read_text())
    except ValueError:
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _save_tokens(out: str | None, game: Any) -> None:
    """The seats' tokens, readable by this user only (they are the seats' keys)."""
    if not out:
        return
    Path(out).mkdir(parents=True, exist_ok=True)
    path = Path(out, SEATS_FILE)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump({seat: place.token for seat, place in game.seats.items()}, f)


def _names(team: dict[str, Any]) -> list[str]:
    return [n for v in team.values() for n in (v.values() if isinstance(v, dict) else [v])]


def cmd_play_web(args: argparse.Namespace) -> int:
    """Serve the game; print each person's link; wait for the games (or Ctrl-C)."""
    from mase.web import WebGame, WebServer, is_loopback

    env_kwargs = dict(args.env_arg or [])
    probe = mase.make(args.env, **env_kwargs)
    seats, sides = list(probe.possible_agents), tuple(probe.unwrapped.sides)
    probe.close()
    team = web_team(args, seats, sides)
    if not is_loopback(args.host) and args.allow_remote:
        print(f"warning: serving on {args.host}: anyone who can reach it and holds a seat's "
              "link plays that seat", file=sys.stderr)  # fmt: skip
    llm_teams = [args.team] if any(is_llm(n) for n in _names(team)) else []
    with model_endpoint(args, args.env, llm_teams) as (llm, where):
        if where:
            print(f"model seats: {where}")
        game = WebGame(
            args.env, team, episodes=args.episodes, seed=args.seed or 0, out=args.out,
            resume=args.resume, env_kwargs=env_kwargs, messages=not args.no_messages, llm=llm,
            time_limit=args.move_time_limit, fallback=args.fallback,
            tokens=_saved_tokens(args.out, args.resume), label=args.team,
        )  # fmt: skip
        _save_tokens(args.out, game)
        with WebServer([game], args.host, args.port, args.allow_remote) as server:
            print(f"{args.env}: {len(game.seats)} seat(s) for people; open each link in a browser")
            for seat, link in server.links().items():
                print(f"  {seat}: {link}")
            sys.stdout.flush()
            _wait(game, args.close_after)
    if game.error:
        print(f"the game stopped: {game.error}", file=sys.stderr)
        return 1
    if args.out:
        print(f"records: {args.out} (mase replay {args.out} --seat SEAT)")
    return 0


def _wait(game: Any, close_after: float | None) -> None:
    try:
        game.finished.wait()
        print(
            "every game is over" + ("" if close_after is not None else "; Ctrl-C stops the server")
        )
        sys.stdout.flush()
        if close_after is None:
            while True:
                time.sleep(3600)
        time.sleep(close_after)
    except KeyboardInterrupt:
        left = (
            "" if game.finished.is_set() else " (the unfinished game is played again with --resume)"
        )
        print(f"\nstopped{left}")
