"""Run episodes and evaluations: seeded, recorded to JSONL, resumable.

``run_episode`` plays one episode of any AEC env with a team of policies and returns a
JSON-ready record. ``evaluate`` plays many, appending one line per finished episode to
``episodes.jsonl`` (flushed as it goes), and writes ``summary.json`` with each metric's mean,
std, 95% confidence half-width and count. Interrupted evaluations resume: finished episodes
are read back and not played again. ``evaluate(..., concurrency=K)`` plays K episodes at once,
each worker with its own env and team; the records do not depend on K.

Policies and wrappers may add to the records (duck-typed, all optional): a policy's
``answer(question)`` answers the Theory-of-Mind questions a probe wrapper puts in
``info["tom_questions"]``; after each episode ``episode_record()`` of every wrapper and every
policy is merged into the record (see :func:`run_episode`).
"""

from __future__ import annotations

import copy
import importlib
import inspect
import json
import math
import os
import queue
import threading
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from mase.actions import wrappers
from mase.agents import PolicyProtocol, make_policy
from mase.registry import make

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


class EpisodeStopped(BaseException):
    """Raised inside :func:`run_episode` when ``should_stop`` says so; nothing is recorded.

    A ``BaseException``, like ``KeyboardInterrupt``, so that it is never taken for a policy's
    failure.
    """


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
        record["metrics"].update(_jsonable(extra.pop("metrics", {})))
        record.update(_jsonable(extra))


def _policy_records(env: Any, team: Team) -> tuple[dict[str, dict], dict[str, float]]:
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
        seats[seat] = seen[id(policy)] = _jsonable(extra)
        for key, value in extra.get("metrics", {}).items():
            if isinstance(value, int | float) and not isinstance(value, bool):
                totals[key] = totals.get(key, 0) + value
    if "prompt_tokens" in totals and "completion_tokens" in totals:
        totals["llm_tokens"] = totals["prompt_tokens"] + totals["completion_tokens"]
    if totals.get("llm_outputs"):
        totals["llm_valid_output_rate"] = totals.get("llm_valid_outputs", 0) / totals["llm_outputs"]
    return seats, _jsonable(totals)


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
        _answer_questions(env, agent, team[agent], info)
        if terminated or truncated:
            metrics = metrics or dict(info.get("metrics", {}))
            env.step(None)
            continue
        if should_stop is not None and should_stop():
            raise EpisodeStopped
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
    record = {
        "seed": seed,
        "turns": turns,
        "messages": messages,
        "returns": returns,
        "metrics": _jsonable(metrics),
    }
    _merge_wrapper_records(env, record)
    seats, totals = _policy_records(env, team)
    if seats:
        record["seats"] = seats
        for key, value in totals.items():
            record["metrics"].setdefault(key, value)
    return record


# -- evaluations ------------------------------------------------------------------------------

#: Levels of Theory-of-Mind probes, in the order tables show them.
TOM_LEVELS = ("introspection", "first_order", "second_order")

#: Metrics of model usage that a summary also totals over all episodes, failed ones included.
USAGE_KEYS = (
    "llm_calls",
    "prompt_tokens",
    "completion_tokens",
    "llm_tokens",
    "cost_usd",
    "latency_s",
    "llm_errors",
)


def _tom_accuracy(records: list[dict]) -> dict[str, dict]:
    """Accuracy per level pooled over the answered probes of the records.

    Pooled, as the paper counts it, rather than a mean of per-episode accuracies, which would
    weigh an episode with one question like one with twenty. Questions put to seats whose
    policy cannot answer (a scripted or random teammate) are counted as asked, not as wrong;
    a reply that says neither yes nor no is answered and wrong.
    """
    pooled: dict[str, list[int]] = {}
    for record in records:
        for probe in record.get("probes") or []:
            counts = pooled.setdefault(str(probe.get("level")), [0, 0, 0])
            answered = probe.get("reply") is not None
            counts[0] += answered and probe.get("correct") is True
            counts[1] += answered
            counts[2] += 1
    return {
        level: {
            "accuracy": correct / n if n else None,
            "correct": correct,
            "n": n,
            "asked": asked,
        }
        for level, (correct, n, asked) in sorted(pooled.items(), key=lambda kv: _level_order(kv[0]))
    }


def _level_order(level: str) -> tuple[int, str]:
    return (TOM_LEVELS.index(level) if level in TOM_LEVELS else len(TOM_LEVELS), level)


def summarize(records: list[dict]) -> dict:
    """Statistics of an evaluation's records, whatever their order.

    Returns:
        ``episodes`` and ``failed`` counts; ``metrics``: mean, std, 95% CI half-width and n of
        every numeric metric over finished episodes; ``counts``: tallies of text metrics;
        when probes were asked, ``tom``: per level, the accuracy pooled over all questions
        with its counts; when a model played, ``usage``: totals of :data:`USAGE_KEYS` over
        all episodes, failed ones included (they were paid for too).
    """
    records = sorted(records, key=lambda r: r.get("episode", 0))  # float sums in a fixed order
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
    tom = _tom_accuracy(done)
    if tom:
        summary["tom"] = tom
    usage: dict[str, float] = {}
    for record in records:
        source = record.get("usage", {}) if record.get("failed") else record["metrics"]
        for key in USAGE_KEYS:
            if isinstance(source.get(key), int | float):
                usage[key] = usage.get(key, 0) + source[key]
    if usage:
        summary["usage"] = usage
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


def _write_records(path: Path, records: list[dict]) -> None:
    """Replace ``path`` by ``records`` atomically: an interruption leaves the old or the new."""
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w") as f:
        f.writelines(json.dumps(r) + "\n" for r in records)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


#: Env wrappers :func:`evaluate` can apply: (its argument, ``"module:Class"``), innermost
#: first. The message channel sits on the task; the belief state takes its ``"belief"`` key
#: out of action dicts before the channel; the probe asks about the events of everything
#: inside it; the recorder, outermost, sees every action as the policy gave it.
WRAPPERS = (
    ("messages", "mase.wrappers.message_channel:MessageChannel"),
    ("belief", "mase.wrappers.belief_state:BeliefState"),
    ("probes", "mase.wrappers.tom_probe:ToMProbe"),
    ("record", "mase.wrappers.recorder:Recorder"),
)


def _wrapper_class(path: str, flag: str) -> type:
    module_name, _, name = path.partition(":")
    try:
        return getattr(importlib.import_module(module_name), name)
    except (ImportError, AttributeError):
        raise ValueError(f"{flag}=True needs {path.replace(':', '.')}, which is missing") from None


def make_env(env_id: str, env_kwargs: Mapping[str, Any] | None = None, **flags: bool) -> Any:
    """The task ``env_id`` in the wrappers the flags ask for, in the order of :data:`WRAPPERS`.

    Args:
        env_id: a registered task id.
        env_kwargs: task arguments.
        **flags: ``messages``, ``belief``, ``probes``, ``record`` (each default ``False``);
            ``probes`` may be a number in (0, 1], the share of questions asked.

    Raises:
        ValueError: an unknown flag, or a wrapper whose module is missing.
    """
    unknown = set(flags) - {flag for flag, _ in WRAPPERS}
    if unknown:
        raise ValueError(
            f"unknown wrapper flags {sorted(unknown)}; known: {[f for f, _ in WRAPPERS]}"
        )
    env = make(env_id, **dict(env_kwargs or {}))
    for flag, path in WRAPPERS:
        value = flags.get(flag)
        if not value:
            continue
        if flag == "probes" and not isinstance(value, bool):
            env = _wrapper_class(path, flag)(env, rate=float(value))  # a share of questions
        else:
            env = _wrapper_class(path, flag)(env)
    return env


def _copy_policy(policy: PolicyProtocol, seat: str, concurrency: int) -> PolicyProtocol:
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


def _uses_llm(name: str) -> bool:
    return name.partition(":")[0].startswith("llm")


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
    concurrency: int = 1,
    llm: Any = None,
    probes: bool | float = False,
    belief: bool = False,
    record: bool = False,
) -> dict:
    """Play ``episodes`` seeded episodes (seeds ``seed``, ``seed + 1``, ...) and summarize.

    With ``concurrency`` K > 1, K workers play episodes at once in threads (model calls wait
    on the network, not the CPU), each with its own env and its own team: policy names are
    built once per worker, policy objects are copied with their ``spawn()`` method (which
    shares thread-safe resources such as a model client and its cache) or else deep-copied,
    and a callable team is called once per worker's env. Every record depends only on its
    episode's seed, so the records are the same whatever K; ``episodes.jsonl`` gets one line
    per finished episode as it finishes (written by the calling thread, flushed and synced),
    and is rewritten in episode order once all are done.

    The env is the task in these wrappers, innermost first (:data:`WRAPPERS`):
    ``MessageChannel`` (``messages``), ``BeliefState`` (``belief``), ``ToMProbe``
    (``probes``), ``Recorder`` (``record``).

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
            Finished episodes are kept, failed ones are played again.
        env_kwargs: task arguments.
        messages: give the team a :class:`~mase.wrappers.MessageChannel` (the paper's
            communication condition); ``False`` is the no-communication condition.
        progress: show a progress bar.
        record_text: keep each turn's text observation in the records.
        label: the team's name in tables and ``config.json`` (default: from ``team``).
        concurrency: episodes played at once.
        llm: a :class:`mase.llm.LLMConfig` for the team's model seats (``llm``,
            ``llm-belief``); ``None`` lets them read the environment (``OPENAI_BASE_URL``, ...).
        probes: ask Theory-of-Mind questions (``ToMProbe``); policies answer with ``answer``.
            A number in (0, 1] asks that share of the questions (fewer model calls).
        belief: keep belief states (``BeliefState``).
        record: record every event, and the prompts and replies of model seats (``Recorder``).

    Returns:
        The summary (also written to ``summary.json``), see :func:`summarize`.

    Raises:
        ValueError: a bad argument, a different set-up in ``out``, or a policy object that
            cannot be copied for several workers.
        FileExistsError: ``out`` holds episodes and ``resume`` is false.
    """
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    env_kwargs = dict(env_kwargs or {})
    flags = {"messages": messages, "belief": belief, "probes": probes, "record": record}
    env = make_env(env_id, env_kwargs, **flags)
    seats = list(env.possible_agents)
    if callable(team) and not isinstance(team, Mapping):
        default_label = getattr(team, "__name__", "custom")
        uses_llm = False

        def build_team(env: Any, worker: int) -> dict:
            return dict(team(env))
    else:
        names = parse_team(team, seats) if isinstance(team, str) else dict(team)
        default_label = (
            team
            if isinstance(team, str)
            else ",".join(
                f"{s}={p if isinstance(p, str) else type(p).__name__}" for s, p in names.items()
            )
        )
        uses_llm = any(isinstance(p, str) and _uses_llm(p) for p in names.values())
        llm_kwargs = {"llm": llm} if llm is not None else {}

        def build_team(env: Any, worker: int) -> dict:
            return {
                s: make_policy(p, env, **llm_kwargs)
                if isinstance(p, str)
                else (p if worker == 0 else _copy_policy(p, s, concurrency))
                for s, p in names.items()
            }

    config: dict[str, Any] = {
        "env_id": env_id,
        "team": label or default_label,
        "env_kwargs": _jsonable(env_kwargs),
        "messages": messages,
        "seed": seed,
    }
    # only when set, so that runs made before these options existed still resume
    config.update({flag: flags[flag] for flag in ("belief", "probes", "record") if flags[flag]})
    if uses_llm and llm is not None and getattr(llm, "model", None):
        config["model"] = llm.model

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
        _write_records(path, records)  # drops torn lines and failures before appending
        old_config.write_text(json.dumps({**config, "episodes": episodes}, indent=2))

    done = {r["episode"] for r in records}
    todo = [i for i in range(episodes) if i not in done]
    workers = max(1, min(concurrency, len(todo)))
    envs = [env] + [make_env(env_id, env_kwargs, **flags) for _ in range(workers - 1)]
    try:
        teams = [build_team(e, w) for w, e in enumerate(envs)]
    except BaseException:
        for e in envs:
            e.close()
        raise

    def play(env: Any, policies: Team, i: int) -> dict:
        try:
            record = run_episode(
                env, policies, seed=seed + i, record_text=record_text, should_stop=stop.is_set
            )
        except Exception as exc:  # a policy or endpoint failure: record it, go on
            record = {
                "seed": seed + i,
                "failed": True,
                "error": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc(limit=5),
            }
            try:  # what the failed episode cost, as far as the policies can tell
                _, usage = _policy_records(env, policies)
            except Exception:  # noqa: BLE001 - the failure itself is what gets recorded
                usage = {}
            usage = {k: v for k, v in usage.items() if k in USAGE_KEYS}
            if usage:
                record["usage"] = usage
        return {"episode": i, **record}

    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=episodes, initial=episodes - len(todo), desc=config["team"], unit="ep")

    def finished(record: dict) -> None:
        records.append(record)
        if path is not None:
            with path.open("a") as f:
                f.write(json.dumps(record) + "\n")
                f.flush()
                os.fsync(f.fileno())
        if bar is not None:
            bar.update(1)

    stop = threading.Event()
    try:
        if workers == 1:
            for i in todo:
                finished(play(envs[0], teams[0], i))
        else:
            _play_concurrently(todo, list(zip(envs, teams, strict=True)), play, finished, stop)
    finally:
        if bar is not None:
            bar.close()
        for e in envs:
            e.close()

    records.sort(key=lambda r: r["episode"])
    if path is not None:
        _write_records(path, records)  # episode order, whatever order they finished in
    summary = {**config, **summarize(records)}
    if out is not None:
        (Path(out) / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary


def _play_concurrently(
    todo: list[int],
    workers: list[tuple[Any, Team]],
    play: Callable[[Any, Team, int], dict],
    finished: Callable[[dict], None],
    stop: threading.Event,
) -> None:
    """Play the episodes ``todo`` with one thread per (env, team) worker.

    The workers take episode numbers from a shared queue and hand records back; only the
    calling thread writes them (one writer, so lines never interleave). When anything is
    raised (a policy's ``KeyboardInterrupt``, Ctrl-C in the calling thread), ``stop`` makes
    the other workers abandon their episodes at their next turn; the records that finished
    are still written, then the exception goes on up.
    """
    tasks: queue.SimpleQueue[int] = queue.SimpleQueue()
    for i in todo:
        tasks.put(i)
    results: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()

    def work(env: Any, policies: Team) -> None:
        try:
            while not stop.is_set():
                try:
                    i = tasks.get_nowait()
                except queue.Empty:
                    break
                results.put(("record", play(env, policies, i)))
        except EpisodeStopped:
            pass
        except BaseException as exc:  # noqa: BLE001 - handed to the calling thread
            stop.set()
            results.put(("raise", exc))
        finally:
            results.put(("exit", None))

    threads = [
        threading.Thread(target=work, args=worker, name=f"mase-eval-{n}", daemon=True)
        for n, worker in enumerate(workers)
    ]
    for thread in threads:
        thread.start()
    error: BaseException | None = None
    running = len(threads)
    try:
        while running:
            kind, value = results.get()
            if kind == "record":
                finished(value)
            elif kind == "raise":
                error = error or value
            else:
                running -= 1
    finally:
        stop.set()
        for thread in threads:
            thread.join()
        while True:  # records handed back while the calling thread was being interrupted
            try:
                kind, value = results.get_nowait()
            except queue.Empty:
                break
            if kind == "record":
                finished(value)
    if error is not None:
        raise error
