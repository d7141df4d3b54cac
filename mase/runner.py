"""Run episodes and evaluations: seeded, recorded to JSONL, resumable.

``run_episode`` plays one episode of any AEC env with a team of policies and returns a
JSON-ready record. ``evaluate`` plays many, appending one line per finished episode to
``episodes.jsonl`` (flushed as it goes), and writes ``summary.json`` with each metric's mean,
std, 95% confidence half-width and count. Interrupted evaluations resume: finished episodes
are read back and not played again.
"""

from __future__ import annotations

import inspect
import json
import math
import os
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from mase.agents import PolicyProtocol, make_policy
from mase.registry import make
from mase.wrappers.message_channel import MessageChannel

Team = Mapping[str, PolicyProtocol]


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
            named[seat] = name
        elif default is None:
            default = part
        else:
            raise ValueError(f"team {spec!r} gives two default policies ({default}, {part})")
    missing = [s for s in seats if s not in named and default is None]
    if missing:
        raise ValueError(f"team {spec!r} leaves seats {missing} without a policy")
    return {seat: named.get(seat, default) for seat in seats}


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


def _reset_policy(policy: PolicyProtocol, agent: str, env: Any, seed: int | None) -> None:
    if "seed" in inspect.signature(policy.reset).parameters:
        policy.reset(agent, env, seed=seed)
    else:
        policy.reset(agent, env)


def run_episode(env: Any, team: Team, seed: int | None = None, record_text: bool = True) -> dict:
    """Play one episode and return its record.

    Args:
        env: a PettingZoo AEC env (a MASE task, possibly wrapped).
        team: seat -> policy; every seat of ``env.possible_agents`` needs one.
        seed: episode seed; each policy gets its own seed derived from it.
        record_text: store each turn's text observation in the record.

    Returns:
        ``{"seed", "turns", "messages", "returns", "metrics"}``; each turn holds the round,
        agent, text observation, the policy's action as given, what the env made of it and
        the reward received since the agent's previous turn.
    """
    missing = [a for a in env.possible_agents if a not in team]
    if missing:
        raise ValueError(f"the team has no policy for seats {missing}")
    env.reset(seed=seed)
    base = env.unwrapped
    seat_seeds = (
        np.random.SeedSequence(seed).generate_state(len(env.possible_agents))
        if seed is not None
        else [None] * len(env.possible_agents)
    )
    for agent, seat_seed in zip(env.possible_agents, seat_seeds, strict=True):
        _reset_policy(team[agent], agent, env, None if seat_seed is None else int(seat_seed))

    turns: list[dict] = []
    returns = {a: 0.0 for a in env.possible_agents}
    metrics: dict = {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        returns[agent] += float(reward)
        if terminated or truncated:
            metrics = metrics or dict(info.get("metrics", {}))
            env.step(None)
            continue
        action = team[agent].act(obs, info)
        turn = {"round": base.round, "agent": agent, "action": _jsonable(action)}
        if record_text:
            text = obs.get("text") if isinstance(obs, dict) else None
            turn["observation"] = text if text is not None else base.observe_text(agent)
        turn["reward"] = float(reward)
        before = len(base.event_log)
        env.step(action)
        turn["outcome"] = [
            f"{e.kind}:{e.note}" if e.note else e.kind
            for e in base.event_log[before:]
            if e.actor == agent and e.kind != "message"
        ]
        turns.append(turn)
    messages = [
        {
            "sender": e.actor,
            "recipients": sorted(e.audience - {e.actor}),
            "text": e.note,
            "round": e.round,
        }
        for e in base.event_log
        if e.kind == "message"
    ]
    return {
        "seed": seed,
        "turns": turns,
        "messages": messages,
        "returns": returns,
        "metrics": _jsonable(metrics),
    }


# -- evaluations ------------------------------------------------------------------------------


def summarize(records: list[dict]) -> dict:
    """Mean, std, 95% CI half-width and n of every numeric metric over finished episodes."""
    done = [r for r in records if not r.get("failed")]
    summary: dict[str, Any] = {"episodes": len(done), "failed": len(records) - len(done)}
    numeric: dict[str, list[float]] = {}
    counts: dict[str, dict[str, int]] = {}
    for record in done:
        for key, value in record["metrics"].items():
            if isinstance(value, bool | int | float):
                numeric.setdefault(key, []).append(float(value))
            elif isinstance(value, str):
                counts.setdefault(key, {}).setdefault(value, 0)
                counts[key][value] += 1
    metrics = {}
    for key, values in numeric.items():
        arr = np.asarray(values)
        std = float(arr.std(ddof=1)) if len(arr) > 1 else 0.0
        metrics[key] = {
            "mean": float(arr.mean()),
            "std": std,
            "ci95": 1.96 * std / math.sqrt(len(arr)),
            "n": len(arr),
        }
    summary["metrics"] = metrics
    summary["counts"] = counts
    return summary


def _read_records(path: Path) -> list[dict]:
    """Records of a JSONL file; a torn last line (an interrupted write) is dropped."""
    records = []
    if not path.exists():
        return records
    for line in path.read_text().splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            break
    return records


def evaluate(
    env_id: str,
    team: str | Mapping[str, str | PolicyProtocol] | Callable[[Any], Team],
    episodes: int = 10,
    seed: int = 0,
    out: str | os.PathLike | None = None,
    resume: bool = False,
    env_kwargs: Mapping[str, Any] | None = None,
    messages: bool = True,
    progress: bool = False,
    record_text: bool = True,
    label: str | None = None,
) -> dict:
    """Play ``episodes`` seeded episodes (seeds ``seed``, ``seed + 1``, ...) and summarize.

    Args:
        env_id: a registered task id.
        team: a team spec string (see :func:`parse_team`), a dict seat -> policy name or
            object, or a callable ``env -> team``.
        episodes: how many episodes in all (finished ones count when resuming).
        seed: seed of the first episode.
        out: a directory for ``config.json``, ``episodes.jsonl`` and ``summary.json``
            (nothing is written when ``None``).
        resume: continue an interrupted evaluation in ``out``; without it an ``out`` that
            already holds episodes is an error, so nothing is overwritten by accident.
        env_kwargs: task arguments.
        messages: give the team a :class:`MessageChannel` (the paper's communication
            condition); ``False`` is the no-communication condition.
        progress: show a progress bar.
        record_text: keep each turn's text observation in the records.
        label: the team's name in tables and ``config.json`` (default: from ``team``).

    Returns:
        The summary (also written to ``summary.json``).
    """
    env_kwargs = dict(env_kwargs or {})
    env = make(env_id, **env_kwargs)
    if messages:
        env = MessageChannel(env)
    seats = list(env.possible_agents)
    if callable(team) and not isinstance(team, Mapping):
        policies = dict(team(env))
        default_label = getattr(team, "__name__", "custom")
    else:
        names = parse_team(team, seats) if isinstance(team, str) else dict(team)
        policies = {s: make_policy(p, env) if isinstance(p, str) else p for s, p in names.items()}
        default_label = (
            team
            if isinstance(team, str)
            else ",".join(
                f"{s}={p if isinstance(p, str) else type(p).__name__}" for s, p in names.items()
            )
        )
    config = {
        "env_id": env_id,
        "team": label or default_label,
        "env_kwargs": _jsonable(env_kwargs),
        "messages": messages,
        "seed": seed,
    }

    records: list[dict] = []
    path = None
    if out is not None:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        path = out / "episodes.jsonl"
        existing = _read_records(path)
        if existing and not resume:
            raise FileExistsError(
                f"{path} already holds {len(existing)} episodes; pass resume=True (--resume) "
                "to continue it, or choose another output directory"
            )
        old_config = out / "config.json"
        if existing and old_config.exists():
            previous = json.loads(old_config.read_text())
            if previous != {**config, "episodes": previous.get("episodes")}:
                raise ValueError(
                    f"{out} holds an evaluation with a different set-up ({previous}); resume "
                    "it with the same arguments or choose another output directory"
                )
        records = [r for r in existing if not r.get("failed")]  # failed ones are retried
        with path.open("w") as f:  # drop torn lines and failures before appending
            f.writelines(json.dumps(r) + "\n" for r in records)
        old_config.write_text(json.dumps({**config, "episodes": episodes}, indent=2))

    done = {r["episode"] for r in records}
    todo = [i for i in range(episodes) if i not in done]
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=episodes, initial=episodes - len(todo), desc=config["team"], unit="ep")
    try:
        for i in todo:
            try:
                record = run_episode(env, policies, seed=seed + i, record_text=record_text)
            except Exception as exc:  # a policy or endpoint failure: record it, go on
                record = {
                    "seed": seed + i,
                    "failed": True,
                    "error": f"{type(exc).__name__}: {exc}",
                    "traceback": traceback.format_exc(limit=5),
                }
            record = {"episode": i, **record}
            records.append(record)
            if path is not None:
                with path.open("a") as f:
                    f.write(json.dumps(record) + "\n")
                    f.flush()
                    os.fsync(f.fileno())
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
        env.close()

    summary = {**config, **summarize(records)}
    if out is not None:
        (Path(out) / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary
