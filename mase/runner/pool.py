"""Episodes played at once: one thread per worker, each with its own env and team.

Model calls wait on the network, not the CPU, so threads are enough; every record depends only
on its episode's seed, so the records are the same whatever the number of workers.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any

from mase.runner.episode import EpisodeStopped, Team


def play_concurrently(
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
