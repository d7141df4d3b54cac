"""Record everything: every event of an episode, its frames and, when a model plays, its prompts."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pettingzoo.utils.wrappers import BaseWrapper

from mase.events import Event
from mase.task import TaskEnv


def event_dict(event: Event) -> dict[str, Any]:
    """A JSON-ready dict of an event; fact keys become lists, ``[[key...], value]`` pairs.

    The reveal of a secret move has ``"revealed": true``.
    """
    record = {
        "kind": event.kind,
        "actor": event.actor,
        "round": event.round,
        "audience": sorted(event.audience),
        "facts": [[list(key), _plain(value)] for key, value in event.facts.items()],
        "note": event.note,
    }
    if event.revealed:
        record["revealed"] = True
    return record


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    return value


def frame(env: TaskEnv, actor: str | None = None, round: int | None = None) -> dict[str, Any]:
    """The world now, as the replay viewer shows it.

    ``{"round", "actor", "events", "text", "scene"}``: the round of the move (``round``, by
    default the env's round now: a round's last move may have opened the next), who just moved
    (``None`` at the start), how many events the log holds (the viewer shows those since the
    last frame), the task's text picture (``_render``) and its
    :meth:`~mase.task.TaskEnv.scene`.
    """
    return {
        "round": env.round if round is None else round,
        "actor": actor,
        "events": len(env.event_log),
        "text": env._render(),
        "scene": scene_data(env),
    }


def scene_data(env: TaskEnv) -> dict[str, Any]:
    """The task's :meth:`~mase.task.TaskEnv.scene` now, JSON-ready, as frames hold it."""
    return _jsonable(env.scene())


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, tuple | list | set | frozenset):
        items = sorted(value, key=str) if isinstance(value, set | frozenset) else value
        return [_jsonable(v) for v in items]
    if hasattr(value, "tolist"):  # numpy arrays and scalars
        return value.tolist()
    return value


class Recorder(BaseWrapper):
    """Keeps the whole story of each episode for the run's records.

    With :func:`mase.evaluate` (``record=True``, ``mase eval --record``) the runner adds this
    wrapper's ``episode_record()`` to each line of ``episodes.jsonl``: every event (kind,
    actor, round, audience, facts, note; the agents' ``observe`` views included), the
    episode's frames (:func:`frame`: the world at the start and after every move, which
    ``mase replay`` draws), and, because :attr:`record_prompts` is set, every model call of
    every LLM seat (purpose, the full message list, the reply, tokens, latency).

    Used on its own (your own step loop), give it ``path``: each finished episode's events are
    appended to that JSONL file as one line ``{"episode", "seed", "events"}``.

    Args:
        env: a MASE task (possibly already wrapped).
        path: a JSONL file to append finished episodes to (optional).
    """

    #: Tells the runner to keep the prompts and replies of the policies that make model calls.
    record_prompts = True

    def __init__(self, env: Any, path: str | os.PathLike | None = None):
        super().__init__(env)
        if not isinstance(env.unwrapped, TaskEnv):
            raise TypeError(f"Recorder needs a MASE task, got {type(env.unwrapped).__name__}")
        self.path = Path(path) if path is not None else None
        self.episodes = 0
        self._seed: int | None = None
        self._written = True
        self.frames: list[dict[str, Any]] = []

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Write the last episode if it was not written yet, then reset."""
        self._flush()
        self.env.reset(seed=seed, options=options)
        self._seed = seed
        self._written = False
        self.frames = [frame(self.env.unwrapped)]

    def step(self, action: Any) -> None:
        """Take the action; write the episode to ``path`` once every agent is done.

        A move of a live agent adds a frame (a dead step, ``None`` for a finished agent, adds
        none), so ``frames[k + 1]`` is the world after the runner's ``turns[k]``.
        """
        base = self.env.unwrapped
        agent = base.agent_selection
        moved = not (base.terminations.get(agent, True) or base.truncations.get(agent, True))
        round_ = base.round
        self.env.step(action)
        if moved:
            self.frames.append(frame(base, agent, round_))
        if not base.agents:
            self._flush()

    def close(self) -> None:
        """Write an unfinished episode, then close."""
        self._flush()
        self.env.close()

    def events(self) -> list[dict[str, Any]]:
        """Every event of the episode so far, as dicts; a message with what it was read to claim.

        A message's ``"claims"``: the facts the task's claim reader took from it, how sure the
        reading is, the parts it could not read (flagged, never dropped) and the teammates it
        says hold them.
        """
        base = self.env.unwrapped
        log = base.event_log
        records = [event_dict(e) for e in log]
        if any(e.kind == "message" for e in log):
            read = base.knowledge().claims
            for index, record in enumerate(records):
                claims = read.get(index)
                if claims is not None:
                    record["claims"] = {
                        "facts": [[list(k), _plain(v)] for k, v in claims.facts.items()],
                        "confidence": claims.confidence,
                        "unread": list(claims.unread),
                        "reader": claims.reader,
                        "holders": {
                            a: [list(k) for k in keys] for a, keys in claims.holders.items()
                        },
                    }
        return records

    def episode_record(self) -> dict[str, Any]:
        """``{"events": [...], "frames": [...]}`` for the runner's record of this episode."""
        return {"events": self.events(), "frames": self.frames}

    def _flush(self) -> None:
        if self._written:
            return
        self._written = True
        if self.path is None:
            return
        line = {
            "episode": self.episodes,
            "seed": self._seed,
            "events": self.events(),
            "frames": self.frames,
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a") as f:
            f.write(json.dumps(line) + "\n")
        self.episodes += 1
