"""The Ray backend of evaluations: the same records as a local run, Ctrl-C, resume, the cache."""

import json
import socket
import sys
import threading
import time

import pytest
from golden.golden import normalize

import mase
from mase.agents import RandomPolicy
from mase.cli import main
from mase.llm import LLMConfig, ResponseCache, offline_server
from mase.runner import distributed
from mase.runner.evaluate import EvaluationFailed

ray = pytest.importorskip("ray")

ENV = "mase/SearchRescue-v0"
LLM_TEAM = "alpha=llm,bravo=llm-belief,charlie=scripted"


@pytest.fixture(scope="module", autouse=True)
def cluster(tmp_path_factory):
    # workers inherit the environment the cluster starts with: keep them off the user's cache
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MASE_CACHE", str(tmp_path_factory.mktemp("workers") / "responses.sqlite"))
        # "local": a cluster of its own, even where `ray start` runs one on this machine
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def _lines(path):
    return [json.loads(line) for line in (path / "episodes.jsonl").read_text().splitlines()]


def _json(path):
    return json.loads(path.read_text())


def test_records_summary_and_config_are_those_of_a_local_run(tmp_path):
    team = {"alpha": RandomPolicy(use_mask=False), "bravo": "random", "charlie": "scripted"}
    options = {"episodes": 6, "seed": 3, "record": True}
    local = mase.evaluate(ENV, team, out=tmp_path / "local", **options)
    on_ray = mase.evaluate(ENV, team, out=tmp_path / "ray", backend="ray", concurrency=2, **options)
    assert on_ray == local
    assert _lines(tmp_path / "ray") == _lines(tmp_path / "local")
    assert [r["episode"] for r in _lines(tmp_path / "ray")] == list(range(6))
    for name in ("summary.json", "config.json"):
        assert _json(tmp_path / "ray" / name) == _json(tmp_path / "local" / name)
    assert local["episodes"] == 6 and local["failed"] == 0


def test_ctrl_c_cancels_the_cluster_keeps_what_ended_and_resume_plays_the_rest(
    tmp_path, monkeypatch
):
    class Stuck(RandomPolicy):  # nested: sent to the workers by value
        """Random, but an episode from seed 103 on goes on until it is cancelled."""

        def reset(self, agent, env, seed=None):
            super().reset(agent, env, seed)
            self.episode_seed = env.unwrapped.np_random_seed
            # bounded, so a failed cancel fails the test (ray.get below waits 30 s); long
            # enough that the episodes before it end first on a loaded machine, where a Ray
            # worker's start alone can take many seconds
            self.deadline = time.monotonic() + 120

        def act(self, observation, info):
            while self.episode_seed >= 103 and time.monotonic() < self.deadline:
                time.sleep(0.01)
            return super().act(observation, info)

    mase.evaluate(ENV, "random", episodes=8, seed=100, out=tmp_path / "full")
    real_wait, real_cancel = ray.wait, ray.cancel
    collected, cancelled, in_flight = [], [], []

    def wait(refs, num_returns=1, timeout=None):
        if timeout is None and len(collected) == 2:  # Ctrl-C after two records were
            in_flight.extend(refs)  # collected and a third ended uncollected
            real_wait(refs, num_returns=1)
            raise KeyboardInterrupt
        ready, rest = real_wait(refs, num_returns=num_returns, timeout=timeout)
        if timeout is None:  # the driver waiting for the next record
            collected.extend(ready)
        return ready, rest

    def cancel(ref, **kwargs):
        cancelled.append(ref)
        real_cancel(ref, **kwargs)

    monkeypatch.setattr(ray, "wait", wait)
    monkeypatch.setattr(ray, "cancel", cancel)
    part = tmp_path / "part"
    team = {"alpha": Stuck(), "bravo": "random", "charlie": "random"}
    with pytest.raises(KeyboardInterrupt):
        mase.evaluate(
            ENV, team, episodes=8, seed=100, out=part, label="random", backend="ray",
            concurrency=2,
        )  # fmt: skip
    monkeypatch.undo()

    # episodes 0 to 2 ended (in any order) and are kept; 3 was running and is cancelled
    kept = sorted(_lines(part), key=lambda r: r["episode"])
    assert kept == _lines(tmp_path / "full")[:3]
    # one task cancelled (asked again, then ended by force, where a cancel was lost)
    assert len(in_flight) == 2 and len(set(cancelled)) == 1 and cancelled[0] in in_flight
    stopped = (ray.exceptions.TaskCancelledError, ray.exceptions.WorkerCrashedError)
    with pytest.raises(stopped):
        ray.get(cancelled[0], timeout=30)

    played = []
    play_on_ray = distributed.play_on_ray

    def spy(job, todo, *args, **kwargs):
        played.extend(todo)
        return play_on_ray(job, todo, *args, **kwargs)

    monkeypatch.setattr(distributed, "play_on_ray", spy)
    summary = mase.evaluate(
        ENV, "random", episodes=8, seed=100, out=part, resume=True, backend="ray"
    )
    assert played == [3, 4, 5, 6, 7]
    assert summary["episodes"] == 8 and summary["failed"] == 0
    assert _lines(part) == _lines(tmp_path / "full")


def _closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_endpoint_that_is_down_stops_the_run_after_the_first_failures(tmp_path):
    down = LLMConfig(
        base_url=f"http://127.0.0.1:{_closed_port()}/v1", cache=False, max_retries=0, max_errors=1
    )
    with pytest.raises(EvaluationFailed, match="first 3 episodes all failed"):
        mase.evaluate(ENV, "llm", episodes=10, out=tmp_path, llm=down, backend="ray", concurrency=2)
    kept = _lines(tmp_path)
    assert 3 <= len(kept) <= 5 and all(r["failed"] for r in kept)  # 3, and 2 in flight at most
    assert len({r["error"] for r in kept}) == 1


def test_llm_seats_on_workers_share_one_response_cache(tmp_path):
    cache = tmp_path / "shared.sqlite"
    options = {"episodes": 4, "seed": 11, "probes": 0.5}
    with offline_server(ENV) as server:
        uncached = LLMConfig(base_url=server.base_url, cache=False)
        mase.evaluate(ENV, LLM_TEAM, out=tmp_path / "local", llm=uncached, **options)
        config = uncached.replace(cache=str(cache))
        first = mase.evaluate(
            ENV, LLM_TEAM, out=tmp_path / "ray", llm=config, backend="ray", **options
        )
    # two workers wrote every reply into one file, and the records are the local run's
    assert first["failed"] == 0 and not first["usage"].get("cached_calls")
    with ResponseCache(cache) as written:
        assert len(written) == first["usage"]["llm_calls"] > 0
    local, on_ray = (normalize(_lines(tmp_path / k)) for k in ("local", "ray"))
    assert on_ray == local
    # with the server gone, every call is answered from the file the workers wrote
    again = mase.evaluate(
        ENV, LLM_TEAM, out=tmp_path / "again", llm=config, backend="ray", **options
    )
    assert again["failed"] == 0
    assert (
        again["usage"]["cached_calls"] == again["usage"]["llm_calls"] == first["usage"]["llm_calls"]
    )
    assert again["metrics"]["score"] == first["metrics"]["score"]


def test_processes_writing_one_cache_file_at_once_all_succeed(tmp_path):
    path = str(tmp_path / "responses.sqlite")

    def write(worker, n):  # nested: sent to the workers by value
        cache = ResponseCache(path)
        try:
            timeout_ms = cache._db.execute("PRAGMA busy_timeout").fetchone()[0]
            for k in range(n):
                cache.put(f"{worker}-{k}", "m", "reply " * 50, 10, 50, 0.1)
            return timeout_ms
        finally:
            cache.close()

    task = ray.remote(num_cpus=1)(write)
    timeouts = ray.get([task.remote(w, 300) for w in range(2)])
    assert all(ms > 0 for ms in timeouts)  # a writer waits for the other instead of failing
    with ResponseCache(path) as written:
        assert len(written) == 600


def test_cli_backend_ray_writes_what_a_local_run_writes(tmp_path, capsys):
    args = ["eval", ENV, "--team", "scripted", "--episodes", "3", "--seed", "5", "--quiet"]
    assert main([*args, "--out", str(tmp_path / "local")]) == 0
    assert main([*args, "--out", str(tmp_path / "ray"), "--backend", "ray"]) == 0
    assert _lines(tmp_path / "ray") == _lines(tmp_path / "local")
    assert _json(tmp_path / "ray" / "summary.json") == _json(tmp_path / "local" / "summary.json")
    capsys.readouterr()
    assert main([*args, "--address", "auto"]) == 2
    assert "add --backend ray" in capsys.readouterr().err


def test_bad_arguments_are_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="unknown backend 'dask'"):
        mase.evaluate(ENV, "random", episodes=1, backend="dask")
    with pytest.raises(ValueError, match="needs backend='ray'"):
        mase.evaluate(ENV, "random", episodes=1, address="auto")
    unpicklable = RandomPolicy()
    unpicklable.lock = threading.Lock()
    team = {"alpha": unpicklable, "bravo": "random", "charlie": "random"}
    with pytest.raises(ValueError, match="cannot be pickled"):
        mase.evaluate(ENV, team, episodes=1, backend="ray")
    with pytest.raises(SystemExit) as exited:
        main(["eval", ENV, "--backend", "dask"])
    assert exited.value.code == 2


def test_a_missing_ray_names_the_extra(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now fails
    with pytest.raises(ImportError, match=r"pip install 'mase-suite\[ray\]'"):
        mase.evaluate(ENV, "random", episodes=1, out=tmp_path / "eval", backend="ray")
    assert not (tmp_path / "eval").exists()  # said before anything is written
    assert main(["eval", ENV, "--episodes", "1", "--backend", "ray", "--quiet"]) == 2
    assert "pip install 'mase-suite[ray]'" in capsys.readouterr().err
