"""Episodes played on a Ray cluster: one task per episode, records collected by the caller.

:func:`mase.evaluate` with ``backend="ray"`` sends one :class:`EpisodeJob` to the cluster and
submits a task per episode still to play. Each task builds its own env and team from the job
(the same wrappers and team builder as the local path) and plays its episode through
:func:`mase.runner.evaluate._play_or_fail`, so its record is the one a local run gives for that
seed. Records come back to the calling process, which alone writes them (one writer, as with
threads), so resuming works the same whichever backend played the episodes.

Ray is an optional dependency (the ``ray`` extra): it is imported only when this backend is
used, and :func:`require_ray` says how to install it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from mase.runner.teams import TeamSpec, team_builder

#: How to install the backend's dependency, for error messages.
RAY_INSTALL = "pip install 'mase-suite[ray]'"


def require_ray() -> ModuleType:
    """The ``ray`` module.

    Raises:
        ImportError: Ray is not installed; the message names the extra that installs it.
    """
    try:
        import ray
    except ImportError as exc:
        raise ImportError(
            f"backend 'ray' needs Ray, which is not installed: {RAY_INSTALL}"
        ) from exc
    return ray


def connect(address: str | None = None) -> ModuleType:
    """The ``ray`` module, connected to a cluster.

    A Ray session the caller opened already is used as it is (``address`` is then ignored);
    otherwise ``ray.init(address=address)`` joins the cluster at ``address`` (``"auto"``: the
    one ``ray start`` runs on this machine; ``"local"``: a new one), or with ``None`` the one
    ``RAY_ADDRESS`` names, else the one ``ray start`` runs here, else a new local cluster that
    lasts as long as this process. A cluster is never shut down here.

    Raises:
        ImportError: Ray is not installed (see :func:`require_ray`).
        ValueError: no Ray cluster answers at ``address``.
    """
    ray = require_ray()
    if not ray.is_initialized():
        try:
            ray.init(address=address)
        except ConnectionError as exc:
            raise ValueError(
                f"cannot join the Ray cluster at {address!r} ({exc}); start one with "
                "`ray start --head`, or leave out the address to start a local one"
            ) from None
    return ray


@dataclass(frozen=True)
class EpisodeJob:
    """What a worker needs to play any episode of an evaluation; sent to the cluster once.

    Attributes:
        env_id: the registered task id.
        env_kwargs: task arguments.
        wrappers: the whole wrapper list, innermost first (:func:`~.evaluate.wrapper_specs`).
        team: the team spec: a string, a mapping seat -> policy name or object, or a
            callable ``env -> team``; objects travel pickled.
        llm: the model seats' :class:`mase.llm.LLMConfig`, or ``None``.
        seed: seed of episode 0; episode ``i`` is played with ``seed + i``.
        record_text: keep each turn's text observation in the records.
    """

    env_id: str
    env_kwargs: Mapping[str, Any]
    wrappers: Sequence[Any]
    team: TeamSpec
    llm: Any
    seed: int
    record_text: bool


def play_episode(job: EpisodeJob, episode: int) -> dict:
    """Episode ``episode`` of ``job``, played here with an env and a team of its own.

    This is the body of each Ray task; it runs in any process that can import ``mase``. A
    policy's failure is recorded as the local path records it; the env is closed afterwards.
    """
    from mase.runner.evaluate import _play_or_fail, make_env

    env = make_env(job.env_id, job.env_kwargs, job.wrappers)
    try:
        team = team_builder(job.team, list(env.possible_agents), job.llm)(env, 0)
        # no one sets this event: the driver stops a task by cancelling it (ray.cancel)
        never = threading.Event()
        record = _play_or_fail(env, team, job.seed + episode, job.record_text, never)
        return {"episode": episode, **record}
    finally:
        env.close()


def play_on_ray(
    job: EpisodeJob,
    todo: Sequence[int],
    finished: Callable[[dict], None],
    concurrency: int | None = None,
    address: str | None = None,
) -> None:
    """Play the episodes ``todo`` as Ray tasks, handing each record to ``finished``.

    At most ``concurrency`` tasks are submitted at a time (default: the cluster's CPUs), so
    that stopping leaves little to cancel; each task takes one CPU. Records are handed to
    ``finished`` in the calling process as their tasks end, in whatever order they end.

    When anything is raised while waiting (Ctrl-C, or ``finished`` stopping the evaluation),
    the tasks still queued or running are cancelled, the records of those that had already
    ended are still handed to ``finished``, and the exception goes on up.

    Args:
        job: the evaluation's set-up, put in the cluster's object store once.
        todo: the episode numbers to play.
        finished: called with each record, in the calling process only.
        concurrency: tasks in flight at once (default: the cluster's CPUs).
        address: the cluster to join when Ray is not initialized yet (see :func:`connect`).

    Raises:
        ImportError: Ray is not installed.
        ValueError: no cluster at ``address``, or a team or wrapper that cannot be pickled.
    """
    if not todo:  # a finished evaluation resumed: no cluster needed
        return
    ray = connect(address)
    if concurrency is None:
        concurrency = max(1, int(ray.cluster_resources().get("CPU", 1)))
    try:
        job_ref = ray.put(job)
    except Exception as exc:  # pickling user objects may fail in any way they choose
        raise ValueError(
            "backend 'ray' sends the team and wrappers to the cluster's workers pickled, and "
            f"they cannot be pickled ({type(exc).__name__}: {exc}); pass policy names, or "
            "objects that pickle"
        ) from exc
    task = ray.remote(num_cpus=1)(play_episode)
    queued = list(reversed(todo))  # popped from the end: episodes start in order
    pending: set[Any] = set()  # the tasks submitted and not yet collected
    try:
        while queued or pending:
            while queued and len(pending) < concurrency:
                pending.add(task.remote(job_ref, queued.pop()))
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                record = ray.get(ref)
                pending.discard(ref)
                finished(record)
    except BaseException:
        _stop(ray, pending, finished)
        raise


def _stop(ray: ModuleType, pending: set[Any], finished: Callable[[dict], None]) -> None:
    """Cancel the unfinished tasks and hand over the records of those that had ended."""
    if not pending:
        return
    ended, running = ray.wait(list(pending), num_returns=len(pending), timeout=0)
    _cancel(ray, running)
    for ref in ended:
        try:
            record = ray.get(ref)
        except ray.exceptions.RayError:  # the task failed or was cancelled: nothing to keep
            continue
        finished(record)


#: Seconds a cancelled task is given to stop before it is asked again, then ended by force.
CANCEL_GRACE_S = 2.0


def _cancel(ray: ModuleType, refs: list[Any]) -> None:
    """Cancel ``refs`` and make sure they stop.

    A cancel that reaches a task while it is being handed to a worker can be lost, and the
    task then runs on; so a task still running after :data:`CANCEL_GRACE_S` is asked again,
    and after as long once more its worker is ended (``force=True``).
    """
    for force in (False, False, True):
        for ref in refs:
            ray.cancel(ref, force=force)
        if force:
            return
        _, refs = ray.wait(refs, num_returns=len(refs), timeout=CANCEL_GRACE_S)
        if not refs:
            return
