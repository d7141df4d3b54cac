"""Evaluations: many seeded episodes of one team, recorded, resumable, summarized.

:func:`evaluate` builds the env (the task in its wrappers, :func:`make_env`), the team of each
worker (:mod:`.teams`), plays the episodes not yet in the store (:mod:`.store`), one worker or
many (:mod:`.pool`) or on a Ray cluster (:mod:`.distributed`), and summarizes the records
(:func:`mase.report.summarize`).
"""

from __future__ import annotations

import os
import threading
import traceback
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gymnasium.envs.registration import load_env_creator

from mase.provenance import run_provenance
from mase.registry import make
from mase.report import USAGE_KEYS, summarize
from mase.runner.episode import EpisodeStopped, Team, jsonable, policy_records, run_episode
from mase.runner.pool import play_concurrently
from mase.runner.store import RunStore
from mase.runner.teams import TeamSpec, team_builder, team_label, uses_llm
from mase.sandbox import unconfined_requested

#: The wrappers :func:`evaluate`'s flags add, innermost first: the message channel sits on
#: the task; the belief state takes its ``"belief"`` key out of action dicts before the
#: channel; the probe asks about the events of everything inside it; the recorder, outermost,
#: sees every action as the policy gave it. Wrappers given as specs go between the probe and
#: the recorder.
FLAG_WRAPPERS = {
    "messages": "mase.wrappers.message_channel:MessageChannel",
    "belief": "mase.wrappers.belief_state:BeliefState",
    "probes": "mase.wrappers.tom_probe:ToMProbe",
    "record": "mase.wrappers.recorder:Recorder",
}

#: Where :func:`evaluate` plays the episodes: in this process, or as tasks on a Ray cluster.
BACKENDS = ("local", "ray")

#: A wrapper to apply: a class or callable taking the env (or its ``"module:attribute"``), or
#: ``(that, {keyword arguments})``.
WrapperSpec = str | Callable[..., Any] | tuple[str | Callable[..., Any], Mapping[str, Any]]


def _wrapper_target(target: str | Callable[..., Any]) -> Callable[..., Any]:
    if not isinstance(target, str):
        return target
    try:
        return load_env_creator(target)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ValueError(f"cannot load the wrapper {target!r}: {exc}") from None


def wrap(env: Any, spec: WrapperSpec) -> Any:
    """``env`` in the wrapper ``spec`` names."""
    target, kwargs = spec if isinstance(spec, tuple) else (spec, {})
    return _wrapper_target(target)(env, **dict(kwargs))


def describe_wrapper(spec: WrapperSpec) -> Any:
    """A JSON-ready description of a wrapper spec (for ``config.json``)."""
    target, kwargs = spec if isinstance(spec, tuple) else (spec, {})
    if not isinstance(target, str):
        target = f"{getattr(target, '__module__', '?')}:{getattr(target, '__qualname__', target)}"
    return [target, jsonable(dict(kwargs))] if kwargs else target


def wrapper_specs(wrappers: Sequence[WrapperSpec] = (), **flags: bool | float) -> list[WrapperSpec]:
    """The whole wrapper list, innermost first: the flags' wrappers, then ``wrappers``.

    Args:
        wrappers: more wrappers (a protocol over the task, say), outside the probe.
        **flags: ``messages``, ``belief``, ``probes``, ``record`` (:data:`FLAG_WRAPPERS`);
            ``probes`` may be a number in (0, 1], the share of questions asked.

    Raises:
        ValueError: an unknown flag.
    """
    unknown = set(flags) - set(FLAG_WRAPPERS)
    if unknown:
        raise ValueError(f"unknown wrapper flags {sorted(unknown)}; known: {list(FLAG_WRAPPERS)}")
    specs: list[WrapperSpec] = []
    for flag in ("messages", "belief", "probes"):
        value = flags.get(flag)
        if value and flag == "probes" and not isinstance(value, bool):
            specs.append((FLAG_WRAPPERS[flag], {"rate": float(value)}))  # a share of questions
        elif value:
            specs.append(FLAG_WRAPPERS[flag])
    specs += list(wrappers)
    if flags.get("record"):
        specs.append(FLAG_WRAPPERS["record"])
    return specs


def make_env(
    env_id: str,
    env_kwargs: Mapping[str, Any] | None = None,
    wrappers: Sequence[WrapperSpec] = (),
    **flags: bool | float,
) -> Any:
    """The task ``env_id`` in the wrappers the flags ask for and those given (innermost first).

    Args:
        env_id: a registered task id.
        env_kwargs: task arguments.
        wrappers: more wrappers (see :func:`wrapper_specs`).
        **flags: ``messages``, ``belief``, ``probes``, ``record`` (each default ``False``).

    Raises:
        ValueError: an unknown flag, or a wrapper that cannot be loaded.
    """
    specs = wrapper_specs(wrappers, **flags)
    env = make(env_id, **dict(env_kwargs or {}))
    for spec in specs:
        env = wrap(env, spec)
    return env


def evaluate(
    env_id: str,
    team: TeamSpec,
    episodes: int = 10,
    seed: int = 0,
    out: str | os.PathLike | None = None,
    resume: bool = False,
    env_kwargs: Mapping[str, Any] | None = None,
    messages: bool = True,
    progress: bool = False,
    record_text: bool = True,
    label: str | None = None,
    concurrency: int | None = None,
    llm: Any = None,
    probes: bool | float = False,
    belief: bool = False,
    record: bool = False,
    wrappers: Sequence[WrapperSpec] = (),
    stop_after_failures: int = 3,
    backend: str = "local",
    address: str | None = None,
    about: Mapping[str, Any] | None = None,
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

    With ``backend="ray"`` each episode still to play is a task on a Ray cluster
    (:mod:`mase.runner.distributed`) that builds its own env and team and plays that
    episode's seed; the records come back to this process and are written as above, so they,
    the summary and resuming are the same as with the local backend. Ctrl-C cancels the tasks
    still queued or running, keeps the records of those that ended, and raises
    ``KeyboardInterrupt``. Every node of the cluster needs ``mase`` installed, and model seats
    an endpoint each node can reach; each node keeps its own response cache.

    The env is the task in these wrappers, innermost first: ``MessageChannel``
    (``messages``), ``BeliefState`` (``belief``), ``ToMProbe`` (``probes``), the
    ``wrappers`` given, ``Recorder`` (``record``).

    Args:
        env_id: a registered task id.
        team: a team spec string (see :func:`mase.runner.parse_team`), a dict seat -> policy
            name or object, or a callable ``env -> team``.
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
        concurrency: episodes played at once (default 1; with ``backend="ray"``, tasks in
            flight, by default the cluster's CPUs).
        llm: a :class:`mase.llm.LLMConfig` for the team's model seats (``llm``,
            ``llm-belief``); ``None`` lets them read the environment (``OPENAI_BASE_URL``, ...).
        probes: ask Theory-of-Mind questions (``ToMProbe``); policies answer with ``answer``.
            A number in (0, 1] asks that share of the questions (fewer model calls).
        belief: keep belief states (``BeliefState``).
        record: record every event, and the prompts and replies of model seats (``Recorder``).
        wrappers: more wrappers or protocols over the task (specs: a class, a callable
            ``env -> env``, ``"module:Class"``, or ``(any of those, {kwargs})``).
        stop_after_failures: when the first this many episodes played all fail with one
            reason, the evaluation stops there (:class:`EvaluationFailed`) instead of failing
            every other episode the same way; ``0`` plays them all.
        backend: ``"local"`` (threads in this process) or ``"ray"`` (tasks on a Ray cluster;
            the ``ray`` extra).
        address: with ``backend="ray"``, the cluster to join when Ray is not initialized yet
            (``ray.init(address=...)``): ``"auto"`` for the one ``ray start --head`` runs on
            this machine, ``"HOST:PORT"``, ``"local"`` for a new cluster of this process, or
            ``None`` for ``RAY_ADDRESS``, else the one ``ray start`` runs here, else a new one.
            An initialized Ray session is used as it is, and no cluster is shut down here.
        about: more to record of the run in its ``"provenance"`` (JSON-ready; ``mase eval``
            gives ``{"served": ...}``, where its model seats' model runs). Never a key.

    ``config.json`` and the summary say what the run was under ``"provenance"``
    (:mod:`mase.provenance`): MASE's version and commit, the libraries' versions, every
    wrapper with its settings, each model seat's model and public endpoint, and ``about``.
    It is not part of the set-up, so a run resumes under a new version; each session that
    resumes it adds its own under ``"resumed"``.

    Returns:
        The summary (also written to ``summary.json``), see :func:`mase.report.summarize`.

    Raises:
        ValueError: a bad argument, a different set-up in ``out``, a policy object that
            cannot be copied for several workers (or pickled for a Ray cluster), or no Ray
            cluster at ``address``.
        ImportError: ``backend="ray"`` and Ray is not installed (the message names the extra).
        FileExistsError: ``out`` holds episodes and ``resume`` is false.
        EvaluationFailed: the first ``stop_after_failures`` episodes failed alike; their
            records are kept (``--resume`` plays them again once the cause is fixed).
    """
    _check_backend(backend, address, concurrency)
    env_kwargs = dict(env_kwargs or {})
    flags = {"messages": messages, "belief": belief, "probes": probes, "record": record}
    specs = wrapper_specs(wrappers, **flags)
    env = make_env(env_id, env_kwargs, specs)
    # what each metric is picks its interval in the summary (mase.stats.interval)
    declared = getattr(env.unwrapped, "metric_specs", dict)()
    seats = list(env.possible_agents)
    config = _run_config(env_id, label or team_label(team), env_kwargs, seed, flags, wrappers)
    model_seats = uses_llm(team, seats, env.unwrapped.sides)
    if model_seats and llm is not None and getattr(llm, "model", None):
        config["model"] = llm.model

    store = RunStore(out, config, episodes, resume)
    done = store.done()
    todo = [i for i in range(episodes) if i not in done]
    # with Ray, the team built here only checks the set-up before any task is sent
    workers = 1 if backend == "ray" else max(1, min(concurrency or 1, len(todo)))
    envs = [env] + [make_env(env_id, env_kwargs, specs) for _ in range(workers - 1)]
    build_team = team_builder(team, seats, llm, concurrency or 1)
    teams = _start_teams(envs, build_team, store, bool(todo), specs, about, backend, address)

    stop = threading.Event()
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=episodes, initial=episodes - len(todo), desc=config["team"], unit="ep")
    finished = _finisher(store, bar, stop_after_failures, stop, out)
    try:
        if backend == "ray":
            from mase.runner.distributed import EpisodeJob, play_on_ray

            if model_seats and llm is None:  # the workers get this process's model settings
                from mase.llm import LLMConfig

                llm = LLMConfig.from_env()
            job = EpisodeJob(env_id, env_kwargs, specs, team, llm, seed, record_text)
            play_on_ray(job, todo, finished, concurrency, address)
        else:
            _play_locally(todo, envs, teams, seed, record_text, stop, finished)
    finally:
        if bar is not None:
            bar.close()
        for e in envs:
            e.close()

    summary = {**config, **summarize(store.records, declared), **store.provenance}
    store.close(summary)
    return summary


def _check_backend(backend: str, address: str | None, concurrency: int | None) -> None:
    """Raise on a bad ``backend``, ``address`` or ``concurrency``; with Ray, check it is there.

    Raises:
        ValueError: an unknown backend, an address without Ray, or a concurrency under 1.
        ImportError: ``backend="ray"`` and Ray is not installed.
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}")
    if address is not None and backend != "ray":
        raise ValueError(f"address names a Ray cluster; it needs backend='ray', not {backend!r}")
    if concurrency is not None and concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    if backend == "ray":  # before anything is written: a missing Ray is said at once
        from mase.runner.distributed import require_ray

        require_ray()


def _run_config(
    env_id: str,
    label: str,
    env_kwargs: dict[str, Any],
    seed: int,
    flags: Mapping[str, bool | float],
    wrappers: Sequence[WrapperSpec],
) -> dict[str, Any]:
    """The set-up of a run, as ``config.json`` holds it (a resumed run must match it)."""
    config: dict[str, Any] = {
        "env_id": env_id,
        "team": label,
        "env_kwargs": jsonable(env_kwargs),
        "messages": flags["messages"],
        "seed": seed,
    }
    # only when set, so that runs made before these options existed still resume
    config.update({flag: flags[flag] for flag in ("belief", "probes", "record") if flags[flag]})
    if wrappers:
        config["wrappers"] = [describe_wrapper(spec) for spec in wrappers]
    if unconfined_requested():  # model-written programs run without bubblewrap (mase.sandbox)
        config["sandbox"] = "unconfined"
    return config


def _start_teams(
    envs: list[Any],
    build_team: Callable[[Any, int], Team],
    store: RunStore,
    to_play: bool,
    specs: Sequence[WrapperSpec],
    about: Mapping[str, Any] | None,
    backend: str,
    address: str | None,
) -> list[Team]:
    """Each worker's team; with episodes to play, the run's provenance and the Ray cluster.

    The envs are closed when any of it fails.
    """
    try:
        teams = [build_team(e, w) for w, e in enumerate(envs)]
        if to_play:  # a session that plays nothing leaves what the run was as it is
            store.describe(run_provenance(specs, _wrapper_target, teams[0], about))
        if backend == "ray" and to_play:  # joined before the progress bar: Ray logs as it joins
            from mase.runner.distributed import connect

            connect(address)
    except BaseException:
        for e in envs:
            e.close()
        raise
    return teams


def _finisher(
    store: RunStore,
    bar: Any,
    stop_after_failures: int,
    stop: threading.Event,
    out: str | os.PathLike | None,
) -> Callable[[dict], None]:
    """What is done with each finished episode's record: stored, counted, checked.

    The callable it returns raises :class:`EvaluationFailed` (and sets ``stop``) when the
    first ``stop_after_failures`` records all failed with one reason.
    """
    played: list[dict] = []

    def finished(record: dict) -> None:
        store.add(record)
        played.append(record)
        if bar is not None:
            bar.update(1)
        first = played[:stop_after_failures]
        if (
            stop_after_failures
            and len(first) == stop_after_failures
            and len(played) == stop_after_failures
            and all(r.get("failed") for r in first)
            and len({r.get("error") for r in first}) == 1
        ):
            stop.set()
            kept = f"; their records are in {out}: add resume once it is fixed" if out else ""
            raise EvaluationFailed(
                f"the first {stop_after_failures} episodes all failed, so the evaluation "
                f"stopped: {first[0].get('error')}{kept}"
            )

    return finished


def _play_locally(
    todo: list[int],
    envs: list[Any],
    teams: list[Team],
    seed: int,
    record_text: bool,
    stop: threading.Event,
    finished: Callable[[dict], None],
) -> None:
    """Play the episodes ``todo`` in this process: in turn with one env, else in threads."""

    def play(env: Any, policies: Team, i: int) -> dict:
        return {"episode": i, **_play_or_fail(env, policies, seed + i, record_text, stop)}

    if len(envs) == 1:
        for i in todo:
            finished(play(envs[0], teams[0], i))
    else:
        play_concurrently(todo, list(zip(envs, teams, strict=True)), play, finished, stop)


class EvaluationFailed(ValueError):
    """The first episodes of an evaluation all failed with one reason, so it stopped."""


def _play_or_fail(
    env: Any, policies: Team, seed: int, record_text: bool, stop: threading.Event
) -> dict:
    """The episode's record, or a failure record with the reason and what it cost."""
    try:
        return run_episode(
            env, policies, seed=seed, record_text=record_text, should_stop=stop.is_set
        )
    except EpisodeStopped:
        raise
    except Exception as exc:  # a policy or endpoint failure: record it, go on
        record = {
            "seed": seed,
            "failed": True,
            "error": f"{type(exc).__name__}: {exc}",
            "traceback": traceback.format_exc(limit=5),
        }
        try:  # what the failed episode cost, as far as the policies can tell
            _, usage = policy_records(env, policies)
        except Exception:  # noqa: BLE001 - the failure itself is what gets recorded
            usage = {}
        usage = {k: v for k, v in usage.items() if k in USAGE_KEYS}
        if usage:
            record["usage"] = usage
        return record
