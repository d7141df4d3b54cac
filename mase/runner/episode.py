"""One episode: play it with a team of policies and return a JSON-ready record.

Besides playing, the loop serves the optional extras of policies and wrappers (duck-typed):
a policy's ``answer(question)`` answers the Theory-of-Mind questions a probe wrapper puts in
``info["tom_questions"]``; after the episode ``episode_record()`` of every wrapper and every
policy is merged into the record (see :func:`run_episode`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from mase.actions import wrappers
from mase.agents import PolicyProtocol
from mase.protocol import cut

Team = Mapping[str, PolicyProtocol]


class EpisodeStopped(BaseException):
    """Raised inside :func:`run_episode` when ``should_stop`` says so; nothing is recorded.

    A ``BaseException``, like ``KeyboardInterrupt``, so that it is never taken for a policy's
    failure.
    """


def jsonable(value: Any) -> Any:
    """``value`` with tuples, sets and numpy values made into JSON types (dict keys as str)."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((jsonable(v) for v in value), key=repr)
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


def _recorded(action: Any) -> Any:
    """An action as the record keeps it: JSON-ready, its text cut to a bounded length."""
    if isinstance(action, str):
        text, whole = cut(action)
        return text if whole is None else {"text": text, "truncated": whole}
    if isinstance(action, dict):
        return {k: _recorded(v) if isinstance(v, str) else jsonable(v) for k, v in action.items()}
    return jsonable(action)


def seat_seeds(seed: int | None, seats: Sequence[str]) -> dict[str, int | None]:
    """The seed :func:`run_episode` gives each seat's policy for episode ``seed``.

    One seed per seat, drawn from ``numpy.random.SeedSequence(seed)`` in seat order, so that
    seats never share a stream; all ``None`` when the episode has no seed.

    >>> seat_seeds(0, ["alpha", "bravo"]) == seat_seeds(0, ["alpha", "bravo"])
    True
    >>> seat_seeds(None, ["alpha"])
    {'alpha': None}
    """
    if seed is None:
        return dict.fromkeys(seats)
    drawn = np.random.SeedSequence(seed).generate_state(len(seats))
    return {seat: int(s) for seat, s in zip(seats, drawn, strict=True)}


def _reset_policy(policy: PolicyProtocol, agent: str, env: Any, seed: int | None) -> None:
    if "seed" in inspect.signature(policy.reset).parameters:
        policy.reset(agent, env, seed=seed)
    else:
        policy.reset(agent, env)


def _answer_questions(env: Any, agent: str, policy: PolicyProtocol, info: Any) -> None:
    """Put the probe's questions for ``agent`` to its policy and hand the replies back."""
    questions = info.get("tom_questions") if isinstance(info, Mapping) else None
    if not questions or not callable(getattr(policy, "answer", None)):
        return
    replies = {q["id"]: policy.answer(q["question"]) for q in questions}
    env.answer_questions(agent, replies)


def _own_method(obj: Any, name: str) -> Callable | None:
    """``obj.name`` when ``obj``'s class defines it, not reached through a wrapper's forwarding.

    PettingZoo wrappers forward unknown attributes to the env inside, so ``getattr`` on an
    outer wrapper would find an inner wrapper's method and its record would be merged twice.
    """
    return getattr(obj, name) if callable(getattr(type(obj), name, None)) else None


def _merge_wrapper_records(env: Any, record: dict) -> None:
    """Merge ``episode_record()`` of every wrapper (outermost first) into ``record``."""
    for wrapper in wrappers(env):
        episode_record = _own_method(wrapper, "episode_record")
        if episode_record is None:
            continue
        extra = dict(episode_record())
        record["metrics"].update(jsonable(extra.pop("metrics", {})))
        record.update(jsonable(extra))


def policy_records(env: Any, team: Team) -> tuple[dict[str, dict], dict[str, float]]:
    """Each seat's ``episode_record()`` and the team totals of their numeric metrics.

    A policy's ``"calls"`` (its prompts and replies) are kept only when a wrapper of the
    chain asks for them with ``record_prompts = True`` (the Recorder does).
    """
    keep_calls = any(getattr(w, "record_prompts", False) is True for w in wrappers(env))
    seats: dict[str, dict] = {}
    totals: dict[str, float] = {}
    seen: dict[int, dict] = {}
    for seat in env.possible_agents:
        policy = team[seat]
        episode_record = getattr(policy, "episode_record", None)
        if not callable(episode_record):
            continue
        if id(policy) in seen:  # one object in several seats reports once
            seats[seat] = seen[id(policy)]
            continue
        extra = dict(episode_record())
        if not keep_calls:
            extra.pop("calls", None)
        seats[seat] = seen[id(policy)] = jsonable(extra)
        for key, value in extra.get("metrics", {}).items():
            if isinstance(value, int | float) and not isinstance(value, bool):
                totals[key] = totals.get(key, 0) + value
    if "prompt_tokens" in totals and "completion_tokens" in totals:
        totals["llm_tokens"] = totals["prompt_tokens"] + totals["completion_tokens"]
    if totals.get("llm_outputs"):
        totals["llm_valid_output_rate"] = totals.get("llm_valid_outputs", 0) / totals["llm_outputs"]
    return seats, jsonable(totals)


def run_episode(
    env: Any,
    team: Team,
    seed: int | None = None,
    record_text: bool = True,
    should_stop: Callable[[], bool] | None = None,
) -> dict:
    """Play one episode and return its record.

    Besides playing, the loop serves the optional extras of policies and wrappers:

    - when ``info["tom_questions"]`` (a probe wrapper's questions, each ``{"id", "question"}``)
      is set for the agent to move, or at its final ``last()``, and its policy has
      ``answer(question) -> str``, each question is answered and the replies go back through
      ``env.answer_questions(agent, {id: reply})``;
    - after the episode, ``episode_record()`` of every wrapper around the task (outermost
      first): its ``"metrics"`` join the record's metrics, its other keys join the record;
    - and ``episode_record()`` of every policy, stored under ``record["seats"][seat]``; the
      numeric metrics of the seats are summed into the record's metrics as team totals
      (without replacing the env's own), with ``llm_tokens`` (prompt + completion) and
      ``llm_valid_output_rate`` (``llm_valid_outputs / llm_outputs``) derived when present.

    Args:
        env: a PettingZoo AEC env (a MASE task, possibly wrapped).
        team: seat -> policy; every seat of ``env.possible_agents`` needs one.
        seed: episode seed; each policy gets its own seed derived from it.
        record_text: store each turn's text observation in the record.
        should_stop: checked before each action; when it returns true the episode is
            abandoned with :class:`EpisodeStopped` (an evaluation being interrupted).

    Returns:
        ``{"seed", "turns", "messages", "returns", "metrics"}`` plus what wrappers and
        policies add (``"seats"``, ``"probes"``, ...); each turn holds the round, agent, text
        observation, the policy's action as given, what the env made of it and the reward
        received since the agent's previous turn.
    """
    missing = [a for a in env.possible_agents if a not in team]
    if missing:
        raise ValueError(f"the team has no policy for seats {missing}")
    env.reset(seed=seed)
    base = env.unwrapped
    for agent, seat_seed in seat_seeds(seed, env.possible_agents).items():
        _reset_policy(team[agent], agent, env, seat_seed)

    turns: list[dict] = []
    returns = {a: 0.0 for a in env.possible_agents}
    metrics: dict = {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        returns[agent] += float(reward)
        _answer_questions(env, agent, team[agent], info)
        if terminated or truncated:
            metrics = metrics or dict(info.get("metrics", {}))
            env.step(None)
            continue
        if should_stop is not None and should_stop():
            raise EpisodeStopped
        action = team[agent].act(obs, info)
        turn = {"round": base.round, "agent": agent, "action": _recorded(action)}
        if record_text:
            text = obs.get("text") if isinstance(obs, dict) else None
            turn["observation"] = text if text is not None else base.observe_text(agent)
        turn["reward"] = float(reward)
        before = len(base.event_log)
        env.step(action)
        turn["outcome"] = [  # the reveal of a secret move is not what this turn did
            f"{e.kind}:{e.note}" if e.note else e.kind
            for e in base.event_log[before:]
            if e.actor == agent and e.kind != "message" and not e.revealed
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
        if e.kind == "message" and e.audience != {e.actor}  # a secret utterance: its reveal
    ]
    record = {
        "seed": seed,
        "turns": turns,
        "messages": messages,
        "returns": returns,
        "metrics": jsonable(metrics),
    }
    _merge_wrapper_records(env, record)
    seats, totals = policy_records(env, team)
    if seats:
        record["seats"] = seats
        for key, value in totals.items():
            record["metrics"].setdefault(key, value)
    return record
