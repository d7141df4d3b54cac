"""mase.llm.local: llama.cpp's server as managed subprocesses, checked on a stand-in server.

The real server runs in ``test_real_model.py``; here ``stub_llama_server.py`` takes the same
options and answers with an echo, so starting, waiting, failing, stopping and the slot front are
checked without building llama.cpp.
"""

import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from mase.cli import main
from mase.llm import ChatClient, LLMConfig, local
from mase.llm.local import KnownModel, LocalServer, find_gguf

STUB = (sys.executable, str(Path(__file__).with_name("stub_llama_server.py")))


def ask(client):
    return client.complete([{"role": "user", "content": "hello"}])


@pytest.fixture
def gguf(tmp_path):
    path = tmp_path / "tiny.Q4_0.gguf"
    path.write_bytes(b"GGUF")
    return path


def test_a_server_starts_answers_through_the_openai_client_and_stops(gguf):
    server = LocalServer(gguf, command=STUB, threads=2)
    with server:
        assert server.alive() and server.alias == "tiny.Q4_0"
        client = ChatClient(LLMConfig(base_url=server.base_url, model=server.alias, cache=False))
        reply = ask(client)
        assert reply.error is None and reply.text.startswith("tiny.Q4_0 on port")
        assert "with 2 threads" in reply.text
        processes = list(server._processes)
    assert all(p.poll() is not None for p in processes)  # stopped on leaving the block
    server.stop()  # a second stop does nothing


def test_a_server_that_fails_to_start_is_an_error_with_what_it_said(gguf, monkeypatch):
    monkeypatch.setenv("STUB_FAIL", "1")
    with pytest.raises(RuntimeError, match="exit 3.*not a GGUF file"):
        LocalServer(gguf, command=STUB).start()


def test_a_server_that_never_answers_is_given_up_in_time(gguf):
    silent = (sys.executable, "-c", "import time; time.sleep(60)")
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="did not answer in 1 s"):
        LocalServer(gguf, command=silent, startup_timeout=1.0).start()
    assert time.monotonic() - start < 10


def test_slots_answer_at_once_and_more_requests_wait_for_a_free_one(gguf, monkeypatch):
    monkeypatch.setenv("STUB_DELAY", "0.6")
    with LocalServer(gguf, command=STUB, slots=2, threads=4) as server:
        client = ChatClient(LLMConfig(base_url=server.base_url, cache=False, timeout=30))
        assert "with 2 threads" in ask(client).text  # each process its share of the threads
        start = time.perf_counter()
        with ThreadPoolExecutor(4) as pool:
            replies = list(pool.map(lambda _: ask(client), range(4)))
        took = time.perf_counter() - start
    assert all(r.error is None for r in replies)
    assert len({r.text for r in replies}) == 2  # both processes answered
    assert 1.1 < took < 2.2  # two at a time: two waves of 0.6 s, not four


def test_a_known_model_is_found_in_its_package_without_importing_it(tmp_path, monkeypatch):
    package = tmp_path / "fake_models"
    package.mkdir()
    (package / "__init__.py").write_text("raise ImportError('importing it is not needed')\n")
    (package / "fake.gguf").write_bytes(b"GGUF")
    monkeypatch.syspath_prepend(str(tmp_path))
    fake = KnownModel("fake", "fake_models", "fake.gguf", "a fake model", "pip install fake")
    monkeypatch.setitem(local.KNOWN_MODELS, "fake", fake)
    assert find_gguf("fake") == package / "fake.gguf"
    gone = KnownModel("gone", "no_such_package_here", "x.gguf", "gone", "pip install gone")
    monkeypatch.setitem(local.KNOWN_MODELS, "gone", gone)
    with pytest.raises(FileNotFoundError, match="pip install gone"):
        find_gguf("gone")
    with pytest.raises(FileNotFoundError, match="known model names: .*smollm2"):
        find_gguf(tmp_path / "missing.gguf")


def test_without_llama_cpp_the_error_says_how_to_install_it(gguf, monkeypatch):
    real = local.importlib.util.find_spec
    monkeypatch.setattr(
        local.importlib.util, "find_spec", lambda name: None if name == "llama_cpp" else real(name)
    )
    with pytest.raises(ModuleNotFoundError, match=r"mase-suite\[local\]"):
        LocalServer(gguf).start()


def test_mase_serve_names_what_it_cannot_serve(capsys):
    assert main(["serve", "--model", "no-such-model"]) == 2
    assert "known model names: smollm2" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["serve", "--env", "mase/Craft-v0", "--model", "smollm2"])  # one or the other


def test_mase_eval_local_does_not_go_with_another_endpoint(capsys):
    for other in (["--offline"], ["--base-url", "http://127.0.0.1:9/v1"], ["--model", "m"]):
        code = main(["eval", "mase/Debate-v0", "--team", "llm", "--local", "smollm2", *other])
        assert code == 2
        assert "--local serves a real model" in capsys.readouterr().err


def test_a_server_does_not_outlive_a_parent_killed_outright(gguf, tmp_path):
    """SIGKILL runs no cleanup: the server processes still end (Linux)."""
    import os
    import signal
    import subprocess

    if not sys.platform.startswith("linux"):
        pytest.skip("PR_SET_PDEATHSIG is Linux's")
    script = tmp_path / "parent.py"
    script.write_text(
        "import sys, time\n"
        "from mase.llm.local import LocalServer\n"
        f"server = LocalServer({str(gguf)!r}, command={STUB!r}).start()\n"
        "print(server._processes[0].pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    for _ in range(50):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return
        if open(f"/proc/{child}/stat").read().split()[2] == "Z":  # ended, not yet reaped
            return
        time.sleep(0.1)
    os.kill(child, signal.SIGKILL)
    pytest.fail("the server outlived its parent")
