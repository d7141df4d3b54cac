"""The sandbox runs a model's program and stops its mistakes, as seen from the parent."""

import json
import os
import socket
import sys
import tempfile
import time

import pytest

from mase import sandbox
from mase.sandbox import SandboxResult, run_code


def test_a_program_prints_a_result_computed_from_its_facts():
    result = run_code("print(sum(facts['xs']) * facts['k'])", {"xs": [1, 2, 3], "k": 7})

    assert result.ok
    assert result.reason == "ok"
    assert result.stdout == "42\n"
    assert result.error == ""
    assert result.returncode == 0
    assert result.feedback() == ""


def test_an_exception_gives_its_traceback_without_the_sandbox_frames():
    result = run_code("counts = facts['counts']\nprint(counts['blue'])", {"counts": {"red": 1}})

    assert not result.ok
    assert result.reason == "exception"
    assert result.error == "the program raised KeyError: 'blue'"
    assert result.stderr.startswith("Traceback (most recent call last):")
    assert 'File "<program>", line 2, in <module>' in result.stderr
    assert "print(counts['blue'])" in result.stderr
    assert "sandbox.py" not in result.stderr
    assert result.feedback().startswith("The program raised KeyError: 'blue'.")
    assert result.feedback().endswith("KeyError: 'blue'")


def test_feedback_keeps_the_last_lines_of_a_long_traceback_within_its_cap():
    code = "def down(n):\n    return 1 / n if n == 0 else down(n - 1)\ndown(40)"
    result = run_code(code)

    feedback = result.feedback(max_chars=300)
    assert len(feedback) <= 300
    assert feedback.startswith("The program raised ZeroDivisionError: division by zero.")
    assert feedback.endswith("ZeroDivisionError: division by zero")


def test_a_syntax_error_and_a_nonzero_exit_are_exceptions():
    broken = run_code("total = (1 +")
    exited = run_code("import sys\nprint('partial')\nsys.exit(3)")

    assert broken.reason == "exception"
    assert "SyntaxError" in broken.error
    assert exited.reason == "exception"
    assert exited.returncode == 3
    assert exited.error == "the program exited with status 3"
    assert exited.stdout == "partial\n"


def test_an_endless_loop_is_stopped_after_its_time_limit():
    started = time.monotonic()
    result = run_code("print('started')\nwhile True:\n    pass", timeout_s=1.0)

    assert time.monotonic() - started < 2.5
    assert result.reason == "timeout"
    assert result.error == "the program ran past its 1.0 s limit and was stopped"
    assert 1.0 <= result.seconds < 2.0
    assert result.stdout == "started\n"  # unbuffered: what came before the loop is kept


def slow_python(tmp_path, delay_s):
    """An interpreter that takes ``delay_s`` to start: a machine too busy to start processes."""
    script = tmp_path / "slow-python"
    script.write_text(f'#!/bin/sh\nsleep {delay_s}\nexec "{sys.executable}" "$@"\n')
    script.chmod(0o755)
    return str(script)


def test_the_time_limit_counts_from_the_programs_start_not_the_interpreters(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox.sys, "executable", slow_python(tmp_path, 1.0))
    result = run_code("print('ran')", timeout_s=0.5)

    assert result.reason == "ok" and result.stdout == "ran\n"
    assert result.seconds >= 1.0  # the start it waited for, not held against the program


def test_an_interpreter_that_never_starts_is_stopped(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox.sys, "executable", slow_python(tmp_path, 30))
    monkeypatch.setattr(sandbox, "STARTUP_LIMIT_S", 0.5)
    started = time.monotonic()
    result = run_code("print('ran')", timeout_s=0.5)

    assert result.reason == "timeout" and result.stdout == ""
    assert time.monotonic() - started < 5


@pytest.mark.parametrize(
    "code",
    [
        "block = bytearray(4 * 2**30)",
        "blocks = []\nwhile True:\n    blocks.append(bytearray(10**7))",
        "def grow():\n    blocks = []\n    while True:\n        blocks.append(bytearray(10**7))\n"
        "grow()",
    ],
    ids=["one-block", "growing-global", "growing-local"],
)
def test_allocating_beyond_the_limit_is_a_memory_error_and_the_parent_is_fine(code):
    result = run_code(code, memory_mb=128)

    assert result.reason == "memory"
    assert result.error == "the program ran out of memory (its limit is 128 MB)"
    assert result.stderr.rstrip().endswith("MemoryError")
    assert run_code("print(len(bytearray(10**7)))", memory_mb=128).stdout == "10000000\n"


@pytest.mark.parametrize(
    "code",
    [
        "open(facts['target'], 'w').write('escaped')",
        "import pathlib\npathlib.Path(facts['target']).write_text('escaped')",
        "import os\nos.close(os.open(facts['target'], os.O_CREAT | os.O_WRONLY))",
        "import os\nopen('../' + os.path.basename(facts['target']), 'w')",
        "import shutil\nopen('inside.txt', 'w').write('x')\n"
        "shutil.copy('inside.txt', facts['target'])",
        "open('inside.txt', 'w').write('x')\nimport os\nos.rename('inside.txt', facts['target'])",
        "import os\nos.symlink(facts['target'], 'link')\nopen('link', 'w').write('escaped')",
        "import os\nos.mkdir(facts['target'])",
    ],
    ids=["open", "pathlib", "os.open", "dotdot", "copy", "rename", "symlink", "mkdir"],
)
def test_writing_outside_the_folder_is_forbidden(tmp_path, code):
    folder = tmp_path / "work"
    target = tmp_path / "escaped.txt"
    result = run_code(code, {"target": str(target)}, folder=folder)

    assert result.reason == "forbidden"
    assert result.error.startswith("the program tried something the sandbox forbids: writing to")
    assert "PermissionError" not in result.stderr  # the model sees the sandbox's own message
    assert "ForbiddenError: writing to" in result.stderr
    assert not target.exists()


@pytest.mark.parametrize(
    "code",
    [
        "import os\nos.remove(facts['target'])",
        "import shutil\nshutil.rmtree(facts['folder'])",
        "import os\nos.chmod(facts['target'], 0o777)",
    ],
    ids=["remove", "rmtree", "chmod"],
)
def test_changing_files_outside_the_folder_is_forbidden(tmp_path, code):
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / "keep.txt"
    target.write_text("kept")
    target.chmod(0o600)
    facts = {"target": str(target), "folder": str(outside)}
    result = run_code(code, facts, folder=tmp_path / "work")

    assert result.reason == "forbidden"
    assert target.read_text() == "kept"
    assert target.stat().st_mode & 0o777 == 0o600


def test_the_program_sees_none_of_the_parents_environment(monkeypatch):
    monkeypatch.setenv("MASE_TEST_SECRET", "hunter2")
    result = run_code("import os\nprint(sorted(os.environ.items()))")

    assert result.ok
    assert "hunter2" not in result.stdout
    assert "MASE_TEST_SECRET" not in result.stdout
    assert "HOME" not in result.stdout
    assert "PATH" not in result.stdout


@pytest.mark.parametrize(
    "path",
    ["/proc/self/environ", "/proc/{parent}/environ", "/etc/passwd", "{home}/.bashrc"],
)
def test_reading_the_machines_secrets_is_forbidden(path):
    path = path.format(parent=os.getpid(), home=os.path.expanduser("~"))
    result = run_code("print(open(facts['path'], 'rb').read())", {"path": path})

    assert result.reason == "forbidden"
    assert result.error.startswith("the program tried something the sandbox forbids: reading")
    assert result.stdout == ""


def test_listing_or_entering_folders_outside_is_forbidden():
    listed = run_code("import os\nprint(os.listdir('/etc'))")
    entered = run_code("import os\nos.chdir('..')\nprint(os.listdir())")

    assert listed.reason == "forbidden"
    assert listed.stdout == ""
    assert entered.reason == "forbidden"
    assert "changing directory" in entered.error


@pytest.mark.parametrize(
    "code",
    [
        "import os\nos.system('echo escaped')",
        "import subprocess\nsubprocess.run(['echo', 'escaped'])",
        "import os\nos.execv('/bin/echo', ['echo', 'escaped'])",
        "import os\nif os.fork() == 0:\n    print('escaped')",
        "import os\nos.posix_spawn('/bin/echo', ['echo', 'escaped'], {})",
        "import multiprocessing as mp\nmp.get_context('spawn').Process(target=print).start()",
        "import ctypes\nctypes.CDLL('libc.so.6').system(b'echo escaped')",
        "import ctypes\nprint(ctypes.string_at(id(0), 8))",
    ],
    ids=["os.system", "subprocess", "exec", "fork", "posix_spawn", "spawn", "ctypes", "memory"],
)
def test_starting_processes_and_ctypes_are_forbidden(code):
    result = run_code(code)

    assert result.reason == "forbidden"
    assert "escaped" not in result.stdout
    assert "is not allowed in the sandbox" in result.error


def test_the_network_is_forbidden():
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.setblocking(False)
        port = server.getsockname()[1]
        code = "import socket\nsocket.create_connection(('127.0.0.1', facts['port']), timeout=1)"
        result = run_code(code, {"port": port})

        assert result.reason == "forbidden"
        assert "network access" in result.error
        with pytest.raises(BlockingIOError):
            server.accept()  # nobody connected


def test_a_program_that_prints_forever_is_stopped_and_its_output_cut():
    started = time.monotonic()
    result = run_code("while True:\n    print('spam' * 25)", max_output=1000)

    assert time.monotonic() - started < 2.0
    assert result.reason == "output_limit"
    assert result.error == (
        "the program printed more than 1000 characters and was stopped; its output was cut"
    )
    assert len(result.stdout) == 1000
    assert result.stdout.startswith("spam" * 25 + "\n")


def test_a_program_writes_and_reads_back_files_in_its_own_folder():
    code = """
import os, shutil, tempfile
os.makedirs('notes/old')
with open('notes/plan.txt', 'w') as file:
    file.write('search room 3')
os.rename('notes/plan.txt', 'notes/plan2.txt')
with tempfile.NamedTemporaryFile('w', delete=False) as scratch:
    scratch.write('x')
shutil.rmtree('notes/old')
print(open('notes/plan2.txt').read(), sorted(os.listdir('notes')), os.path.exists(scratch.name))
"""
    result = run_code(code)

    assert result.reason == "ok", result.stderr
    assert result.stdout == "search room 3 ['plan2.txt'] True\n"


def test_a_file_larger_than_the_limit_cannot_be_written():
    result = run_code("open('big.bin', 'wb').write(bytes(2 * 2**20))")

    assert result.reason == "exception"
    assert "File too large" in result.error


def test_standard_library_and_numpy_imports_work():
    code = """
import math, itertools, json, numpy
pairs = list(itertools.combinations(range(5), 2))
print(json.dumps([math.comb(5, 2), len(pairs), int(numpy.arange(4).sum())]))
"""
    result = run_code(code)

    assert result.reason == "ok", result.stderr
    assert result.stdout == "[10, 10, 6]\n"


def test_the_folder_is_a_private_tmpfs_that_leaves_nothing_on_the_host():
    # Other tests (a browser, say) may make files in the host's /tmp meanwhile: the evidence is
    # a name only this run uses, looked for in every entry that appeared while it ran.
    host_tmp = tempfile.gettempdir()
    marker = f"left-{os.getpid()}-{time.time_ns()}.txt"
    before = set(os.listdir(host_tmp))
    result = run_code(f"import os\nopen({marker!r}, 'w').write('x')\nprint(os.getcwd())")

    assert result.ok and result.confined, result.stderr
    assert result.stdout.strip() == sandbox.SANDBOX_FOLDER  # the same path every run
    assert not os.path.exists(os.path.join(sandbox.SANDBOX_FOLDER, marker))
    appeared = set(os.listdir(host_tmp)) - before
    for name in sorted(appeared):
        for _, _, files in os.walk(os.path.join(host_tmp, name)):
            assert marker not in files
    assert marker not in os.listdir(host_tmp)


def test_the_unconfined_childs_temporary_folder_is_removed_afterwards():
    result = run_code(
        "import os\nopen('left.txt', 'w').write('x')\nprint(os.getcwd())", unconfined=True
    )

    folder = result.stdout.strip()
    assert result.ok and not result.confined
    assert os.path.basename(folder).startswith("mase-sandbox-")
    assert not os.path.exists(folder)


def test_a_given_folder_is_kept_with_the_programs_files_and_nothing_else(tmp_path):
    result = run_code(
        "open('answer.txt', 'w').write(str(facts['n'] + 1))", {"n": 41}, folder=tmp_path
    )

    assert result.ok
    assert sorted(os.listdir(tmp_path)) == ["answer.txt"]
    assert (tmp_path / "answer.txt").read_text() == "42"


def test_bad_limits_and_other_platforms_raise_clear_errors(monkeypatch):
    with pytest.raises(ValueError, match="must be positive"):
        run_code("print(1)", timeout_s=0)
    monkeypatch.setattr("mase.sandbox.sys.platform", "win32")
    with pytest.raises(RuntimeError, match="only on Linux"):
        run_code("print(1)")


def test_the_result_is_frozen():
    result = run_code("print('done')")

    assert isinstance(result, SandboxResult)
    with pytest.raises(AttributeError):
        result.ok = False


def test_a_program_prints_a_set_in_the_same_order_every_run():
    """String hashing is seeded the same in every child, so a printed set replays exactly."""
    code = "print({'alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf'})"
    outputs = {run_code(code).stdout for _ in range(4)}
    assert len(outputs) == 1


def test_a_programs_random_draws_are_the_same_every_run():
    """``random`` starts from the same seed in every child, so a replayed program prints alike."""
    code = "import random\nprint(random.choice(['alpha', 'bravo', 'charlie']), random.random())"
    outputs = {run_code(code).stdout for _ in range(4)}
    assert len(outputs) == 1


def test_the_program_runs_under_bubblewrap_in_namespaces_of_its_own(monkeypatch):
    monkeypatch.setattr(sandbox, "_LAYERS", ())  # the audit hook would refuse to list /proc
    host_file = tempfile.NamedTemporaryFile(prefix="mase-host-")  # in the host's /tmp
    code = (
        "import os, socket\n"
        "print(os.getpid(), sorted(p for p in os.listdir('/proc') if p.isdigit()))\n"
        "print(socket.gethostname(), *sorted(os.listdir('/')))\n"
        f"paths = ('/etc', {host_file.name!r}, os.environ['TMPDIR'])\n"
        "print(*(os.path.exists(path) for path in paths))"
    )
    with host_file:
        result = run_code(code, unconfined=False)

    assert result.ok and result.confined, result.stderr
    pid_line, host_line, exists_line = result.stdout.splitlines()
    assert pid_line.split(" ", 1)[0] == "2"  # bubblewrap's init is 1: a PID namespace of its own
    assert "'1', '2'" in pid_line and str(os.getpid()) not in pid_line.split(" ", 1)[1]
    name, *root = host_line.split()
    assert name == "sandbox"
    # the host's /etc, /home and /tmp are not there; a folder of that name appears only as the
    # way to a Python prefix that lives under it (a virtual environment in /tmp/clone/.venv)
    prefixes = {root.split("/")[1] for root in sandbox._python_binds()[1::3]}
    assert {"etc", "home", "tmp"} & set(root) <= prefixes - {"etc"}
    assert exists_line == "False False True"  # nothing of the host's /etc or /tmp


def fake_bwrap(tmp_path, monkeypatch, stderr):
    """A bwrap on PATH that fails as bubblewrap does where user namespaces are off."""
    folder = tmp_path / "bin"
    folder.mkdir()
    script = folder / "bwrap"
    script.write_text(f"#!/bin/sh\necho '{stderr}' >&2\nexit 1\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}:{os.environ.get('PATH', '')}")


def test_without_user_namespaces_run_code_refuses_with_one_line_naming_the_fix(
    tmp_path, monkeypatch
):
    fake_bwrap(tmp_path, monkeypatch, "bwrap: No permissions to create a new namespace")
    monkeypatch.delenv(sandbox.UNCONFINED_VARIABLE, raising=False)

    with pytest.raises(sandbox.SandboxUnavailable) as refused:
        run_code("print('ran')")
    message = str(refused.value)
    assert "\n" not in message
    assert "No permissions to create a new namespace" in message
    assert "user namespaces" in message and "unconfined=True" in message
    assert "--unconfined-sandbox" in message


def test_without_bubblewrap_run_code_refuses_unless_the_caller_opts_in(monkeypatch):
    monkeypatch.setattr(sandbox, "_bwrap_path", lambda: None)
    monkeypatch.delenv(sandbox.UNCONFINED_VARIABLE, raising=False)

    with pytest.raises(sandbox.SandboxUnavailable, match="apt-get install bubblewrap"):
        run_code("print('ran')")
    opted = run_code("print('ran')", unconfined=True)
    with sandbox.unconfined_runs():
        by_variable = run_code("print('ran')")
    assert opted.ok and opted.stdout == "ran\n" and not opted.confined
    assert by_variable.ok and not by_variable.confined
    assert sandbox.UNCONFINED_VARIABLE not in os.environ  # restored after the block
    with pytest.raises(sandbox.SandboxUnavailable):
        run_code("print('ran')")


def test_the_unconfined_child_still_has_the_audit_hook_and_the_limits():
    refused = run_code("import os\nos.system('echo escaped')", unconfined=True)
    looped = run_code("while True:\n    pass", timeout_s=0.5, unconfined=True)

    assert refused.reason == "forbidden" and "escaped" not in refused.stdout
    assert looped.reason == "timeout"


@pytest.mark.parametrize("unconfined", [False, True], ids=["confined", "unconfined"])
def test_both_children_print_the_same_bytes_run_after_run(unconfined):
    code = (
        "import random, numpy\n"
        "print({'alpha', 'bravo', 'charlie', 'delta'}, random.random(), numpy.arange(3).tolist())"
    )
    outputs = {run_code(code, unconfined=unconfined).stdout for _ in range(3)}
    assert len(outputs) == 1 and "[0, 1, 2]" in next(iter(outputs))


def test_a_codeact_seat_is_refused_at_once_without_bubblewrap_or_runs_unconfined_if_asked(
    monkeypatch,
):
    import mase
    from mase.agents.codeact import CodeActAgent
    from mase.envs.avalon.bots import AvalonBot
    from mase.envs.avalon.language_model import AvalonModel
    from mase.llm import LLMConfig, OfflineServer
    from mase.runner import run_episode

    monkeypatch.setattr(sandbox, "_bwrap_path", lambda: None)
    monkeypatch.delenv(sandbox.UNCONFINED_VARIABLE, raising=False)
    with pytest.raises(sandbox.SandboxUnavailable, match="bubblewrap"):
        CodeActAgent(LLMConfig(base_url="http://127.0.0.1:9/v1", cache=False))
    env = mase.make("mase/Avalon-v0", roles="avalonbench-5", discussion=0)
    with OfflineServer(AvalonModel()) as server:
        agent = CodeActAgent(LLMConfig(base_url=server.base_url, cache=False), unconfined=True)
        team = {seat: AvalonBot() for seat in env.possible_agents}
        team["alpha"] = agent
        run_episode(env, team, seed=0)
    record = agent.episode_record()
    assert record["sandbox"] == "unconfined"
    assert record["programs"] and all(not p["confined"] for p in record["programs"])
    assert all(p["reason"] == "ok" for p in record["programs"])
    assert agent.spawn().unconfined  # its copies for other workers too


def test_mase_eval_unconfined_sandbox_says_so_in_its_records_and_its_table(tmp_path, capsys):
    from mase.cli import main

    out = tmp_path / "run"
    argv = ["eval", "mase/Avalon-v0", "--team", "random,alpha=codeact", "--offline"]
    argv += ["--env-arg", "roles=avalonbench-5", "--env-arg", "discussion=0"]
    code = main([*argv, "--episodes", "1", "--quiet", "--out", str(out), "--unconfined-sandbox"])

    printed = capsys.readouterr().out
    assert code == 0
    assert "sandbox: UNCONFINED" in printed
    config = json.loads((out / "config.json").read_text())
    assert config["sandbox"] == "unconfined"
    episode = json.loads((out / "episodes.jsonl").read_text().splitlines()[0])
    assert "unconfined" in json.dumps(episode)
    assert sandbox.UNCONFINED_VARIABLE not in os.environ  # only for the run


def test_the_run_configuration_opts_into_the_unconfined_child(tmp_path):
    from mase.config import RunConfig

    path = tmp_path / "run.toml"
    path.write_text('env = "mase/Avalon-v0"\nunconfined_sandbox = true\n')
    assert RunConfig.from_file(path).unconfined_sandbox is True
    path.write_text('unconfined_sandbox = "yes"\n')
    with pytest.raises(ValueError, match="unconfined_sandbox must be true or false"):
        RunConfig.from_file(path)


def test_mase_eval_without_bubblewrap_says_the_fix_before_any_episode(
    tmp_path, capsys, monkeypatch
):
    from mase.cli import main

    monkeypatch.setattr(sandbox, "_bwrap_path", lambda: None)
    monkeypatch.delenv(sandbox.UNCONFINED_VARIABLE, raising=False)
    out = tmp_path / "run"
    argv = ["eval", "mase/Avalon-v0", "--team", "random,alpha=codeact", "--offline", "--quiet"]
    code = main([*argv, "--env-arg", "roles=avalonbench-5", "--out", str(out)])

    said = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert said[-1].startswith("mase eval: error: bubblewrap (bwrap) is not installed")
    assert "apt-get install bubblewrap" in said[-1] and "--unconfined-sandbox" in said[-1]
    assert not (out / "episodes.jsonl").exists() or not (out / "episodes.jsonl").read_text()
