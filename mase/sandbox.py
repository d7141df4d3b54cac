"""Run a model-written Python program behind an operating-system boundary.

A CodeAct agent writes a small program over the facts it was given, and what the program prints
informs its next action; a coding task runs a model's function against its tests.
:func:`run_code` runs such a program in a child interpreter and returns a
:class:`SandboxResult`; its :meth:`~SandboxResult.feedback` is the text to show the model so
that it can fix its program.

The boundary is the kernel's. The child runs under bubblewrap (``bwrap``, the sandbox Flatpak
uses), in three layers:

1. **Namespaces** (bubblewrap): its own user, PID, network, IPC, UTS and cgroup namespaces,
   so it has no network at all (not even the host's loopback), sees and can signal only its own
   processes (a fresh ``/proc`` of its PID namespace), and holds no capability (all dropped;
   it may not create further user namespaces). Its file system is a read-only view of only
   what the interpreter needs: ``/usr`` (and ``/bin``, ``/lib``... as the host links them),
   Python's prefixes (the virtual environment with its site-packages, so ``numpy`` imports),
   this package's child script (:mod:`mase._sandbox_child`), a minimal ``/dev`` (read-only,
   with a 1 MB ``/dev/shm``) and the working folder: a private tmpfs of
   :data:`MAX_FOLDER_BYTES` at :data:`SANDBOX_FOLDER`, or the caller's ``folder`` bound
   read-write at its own path. No ``/etc``, no host ``/tmp``, no home, no repository. It
   starts with an empty environment (``--clearenv``) in a new session, and dies with its parent.
2. **rlimits and a seccomp filter**, set by the child before the program starts, hard limits
   equal to the soft ones so that the program cannot raise them: ``RLIMIT_AS`` (``memory_mb``
   plus :data:`INTERPRETER_HEADROOM_MB`), ``RLIMIT_CPU`` (the time limit plus one second),
   ``RLIMIT_FSIZE`` (:data:`MAX_FILE_BYTES`), ``RLIMIT_NOFILE``, ``RLIMIT_NPROC`` and
   ``RLIMIT_CORE`` (0). The seccomp filter, a classic BPF program built here (no library),
   refuses new processes (``clone`` without ``CLONE_THREAD``, ``fork``, ``vfork``;
   ``clone3`` answers ``ENOSYS``, so the C library falls back to ``clone``), new programs
   (``execve``), ``ptrace`` and reading other processes' memory, mounts, namespaces, ``bpf``,
   ``io_uring``, keyrings and modules. It earns its place: where the host user is root (CI
   containers), the kernel does not apply ``RLIMIT_NPROC``, so without it a fork bomb would
   multiply until the time limit. It costs two ``prctl`` calls at the child's start
   (``benchmarks/sandbox.py`` measures the whole child). ``pyseccomp`` or Debian's
   ``python3-seccomp`` would build the same filter from a dependency (and libseccomp); this one
   is 80 instructions on x86-64, 74 on arm64, and none on other machines, where the namespaces
   and rlimits stand alone.
3. **The audit hook** (:func:`sys.addaudithook`) of the earlier sandbox, kept as a second line
   and for the messages a model reads: it refuses ``os.system``, ``subprocess``, ``os.fork``,
   ``os.exec*``, signals, sockets, ``ctypes`` and ``resource.setrlimit``, and files outside
   the folder, with a :class:`ForbiddenError` that says what was refused. Python documents
   audit hooks as a way to observe code, not to sandbox it, and this one has known holes (a
   program can reach it through ``gc``; ``os.open(..., dir_fd=)`` and ``os.mkfifo`` raise no
   event it checks); the layers above do not depend on it.

The time limit ends everything in the namespace: the parent kills the namespace's first
process (``pid 1``, through a pidfd, so a recycled pid is never hit), the kernel then kills
every other process of the namespace (session leaders included), and :func:`run_code` returns
only after bubblewrap, which waits for that, has exited.

Where bubblewrap cannot run (not installed, or user namespaces disabled; probed once per
process, :func:`confinement_problem`), :func:`run_code` raises :class:`SandboxUnavailable`,
whose one line names the fix, unless the caller opts into the **unconfined** child: the audit
hook and the rlimits alone, in a child process of this machine's user with the host's file
system and network behind only the hook (``run_code(..., unconfined=True)``,
``CodeActAgent(unconfined=True)``, ``mase eval --unconfined-sandbox``, the run configuration's
``unconfined_sandbox = true``, or :data:`UNCONFINED_VARIABLE` in the environment, which the
last two set). Results say which ran (:attr:`SandboxResult.confined`), and so do the run's
``config.json``, its episode records and its printed table.

What the limits stop, in either child:

* endless loops: a wall-clock timeout in the parent, counted from the program's start (the
  child reports it on a status pipe; the interpreter has :data:`STARTUP_LIMIT_S` to start),
  and ``RLIMIT_CPU`` for threads that burn CPU time faster than the clock runs;
* huge allocations: ``MemoryError`` in the child, the parent untouched;
* floods of output: stdout and stderr are read as they come, and a program that prints more than
  ``max_output`` characters on either is stopped;
* big files: ``RLIMIT_FSIZE`` per file, and the tmpfs's size for the folder as a whole.

How the child runs: ``sys.executable -P -s -B -u -X utf8`` runs :mod:`mase._sandbox_child` as a
script with ``PYTHONHASHSEED=0`` (``-I`` would be the same isolation but ignores it), in the
working folder. The fixed hash seed makes a program that prints a set print it in the same
order every run, as the seeded ``random`` (:data:`RANDOM_SEED`) makes its draws the same and the
fixed folder path makes ``os.getcwd()`` the same, so a CodeAct game replays from the response
cache. The program and the facts come as JSON on the child's standard input (then standard
input is ``/dev/null``); the program sees the facts as its global ``facts`` and runs as
``__main__`` (its tracebacks name it ``<program>``). The child sets
``OPENBLAS_NUM_THREADS``, ``OMP_NUM_THREADS`` and ``MKL_NUM_THREADS`` to 1 and ``TMPDIR`` to the
folder, so the program's ``os.environ`` holds those, ``PYTHONHASHSEED`` and whatever Python
itself sets (``LC_CTYPE``), nothing else.

It needs Linux; elsewhere :func:`run_code` raises :class:`RuntimeError`.

Example:
    >>> result = run_code("print(sum(facts['xs']))", {"xs": [1, 2, 3]})
    >>> result.reason, result.stdout.strip(), result.confined
    ('ok', '6', True)
"""

from __future__ import annotations

import codecs
import contextlib
import functools
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from mase import _sandbox_child as child_script
from mase._sandbox_child import (
    HASH_SEED,
    INTERPRETER_HEADROOM_MB,
    MAX_FILE_BYTES,
    PROGRAM_NAME,
    RANDOM_SEED,
    ForbiddenError,
)

Reason = Literal["ok", "exception", "timeout", "memory", "output_limit", "forbidden", "killed"]

#: The most an interpreter may take to start before the program's own clock runs (a child that
#: has not started by then is stopped as a timeout): the limit counts from the program's start,
#: so a machine slow to start processes does not shorten it.
STARTUP_LIMIT_S = 30.0
#: The working folder inside the sandbox when the caller gives none: a private tmpfs.
SANDBOX_FOLDER = "/sandbox"
#: The size of that tmpfs: what all the program's files together may take.
MAX_FOLDER_BYTES = 64 * 2**20
#: Set to ``1`` in the environment, it opts every :func:`run_code` that does not say otherwise
#: into the unconfined child (``mase eval --unconfined-sandbox`` sets it for its run).
UNCONFINED_VARIABLE = "MASE_UNCONFINED_SANDBOX"

_CHILD_PATH = "/mase/sandbox_child.py"  # where the child script is bound inside the sandbox
_SHM_BYTES = 2**20
_READ_CHUNK = 65536
#: How much of the traceback :meth:`SandboxResult.feedback` shows by default.
_FEEDBACK_CHARS = 1500
#: The layers inside the child. Tests drop the hook and the filter to show that the namespaces
#: alone hold; nothing else should change it.
_LAYERS = ("hook", "seccomp")
_OPT_IN = (
    "or opt into the unconfined child (the audit hook alone): run_code(..., unconfined=True), "
    "CodeActAgent(unconfined=True) or mase eval --unconfined-sandbox"
)
_PROBE_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class SandboxResult:
    """How a program run by :func:`run_code` ended.

    Attributes:
        ok: Whether the program finished without an error.
        stdout: What it printed, at most ``max_output`` characters.
        stderr: Its error output (tracebacks), at most ``max_output`` characters.
        reason: ``"ok"``, ``"exception"`` (an uncaught exception or a non-zero exit),
            ``"timeout"``, ``"memory"``, ``"output_limit"``, ``"forbidden"`` (the sandbox
            refused an action) or ``"killed"`` (a signal the sandbox did not send).
        error: One sentence for a model: what went wrong and which limit; empty when ok.
        returncode: The child's exit status, negative for the signal that ended it.
        seconds: Wall-clock time from start to end.
        confined: Whether it ran under bubblewrap (False: the unconfined child, the audit hook
            alone).
    """

    ok: bool
    stdout: str
    stderr: str
    reason: Reason
    error: str
    returncode: int
    seconds: float
    confined: bool = True

    def feedback(self, max_chars: int = _FEEDBACK_CHARS) -> str:
        """The text to show a model so it can fix its program; empty when the run was ok.

        Args:
            max_chars: Cap on the text's length; the error sentence always comes first, then
                as many of the last lines of stderr (the end of the traceback) as fit.

        Returns:
            The error sentence and the last lines of the traceback.
        """
        if self.ok:
            return ""
        text = self.error[:1].upper() + self.error[1:] + "."
        tail: list[str] = []
        budget = max_chars - len(text) - len("\nLast lines of its error output:")
        for line in reversed(self.stderr.rstrip().splitlines()):
            budget -= len(line) + 1
            if budget < 0:
                break
            tail.insert(0, line)
        if tail:
            text += "\nLast lines of its error output:\n" + "\n".join(tail)
        return text[:max_chars]


class SandboxUnavailable(RuntimeError):
    """Bubblewrap cannot run here, and the caller did not opt into the unconfined child."""


def run_code(
    code: str,
    facts: Mapping[str, Any] | None = None,
    *,
    timeout_s: float = 5.0,
    memory_mb: int = 256,
    max_output: int = 4000,
    folder: str | os.PathLike[str] | None = None,
    unconfined: bool | None = None,
    hidden: Sequence[str | os.PathLike[str]] = (),
) -> SandboxResult:
    """Run ``code`` in a confined child interpreter and report how it ended.

    Args:
        code: The program's source.
        facts: JSON-serializable facts, the program's global ``facts`` (an empty dict if None).
        timeout_s: Wall-clock limit in seconds, counted from the program's start (the
            interpreter's start before it is not counted; it may take up to
            :data:`STARTUP_LIMIT_S`); the CPU-time limit is one second more, rounded up.
        memory_mb: Address space the program may use, on top of
            :data:`INTERPRETER_HEADROOM_MB`.
        max_output: Characters kept of stdout and of stderr; a program that prints more on
            either is stopped with reason ``"output_limit"``.
        folder: The working folder, created if missing and kept afterwards (bound read-write
            into the sandbox at its own path); by default a private tmpfs inside the sandbox
            (a temporary folder, removed afterwards, for the unconfined child).
        unconfined: Run the unconfined child (the audit hook alone, no operating-system
            boundary) instead of bubblewrap; ``None`` (the default) reads
            :data:`UNCONFINED_VARIABLE`. Meant for machines where bubblewrap cannot run.
        hidden: Files and folders inside the read-only view that the program must not read,
            such as a data set's answers that ship in an installed package: under bubblewrap
            a folder is covered by an empty read-only tmpfs and a file by ``/dev/null``; the
            audit hook refuses to read them too.

    Returns:
        The program's output and how it ended.

    Raises:
        SandboxUnavailable: Bubblewrap cannot run here and ``unconfined`` is not set (the
            message names the fix).
        RuntimeError: Not on Linux.
        ValueError: A limit is not positive.
        TypeError: The facts are not JSON-serializable.
    """
    if not sys.platform.startswith("linux"):
        raise RuntimeError(
            f"mase.sandbox runs programs only on Linux (it needs namespaces, resource limits "
            f"and /proc), not on {sys.platform!r}; run the agent on a Linux machine"
        )
    if timeout_s <= 0 or memory_mb <= 0 or max_output <= 0:
        raise ValueError(
            f"timeout_s, memory_mb and max_output must be positive, got {timeout_s}, "
            f"{memory_mb} and {max_output}"
        )
    confined = not require_confinement(unconfined)
    masked = tuple(sorted({os.path.realpath(path) for path in hidden}))
    payload = {"code": code, "facts": dict(facts or {}), "hidden": list(masked)}
    payload = json.dumps(payload).encode()
    limits = {"timeout_s": timeout_s, "memory_mb": memory_mb, "max_output": max_output}
    if folder is not None:
        work = os.path.realpath(folder)
        os.makedirs(work, exist_ok=True)
        return _supervise(payload, work, False, limits, confined, masked)
    if confined:
        return _supervise(payload, SANDBOX_FOLDER, True, limits, confined, masked)
    work = os.path.realpath(tempfile.mkdtemp(prefix="mase-sandbox-"))
    try:
        return _supervise(payload, work, True, limits, confined, masked)
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# Whether bubblewrap can run, and the opt-in to run without it.


def unconfined_requested() -> bool:
    """Whether :data:`UNCONFINED_VARIABLE` opts this process into the unconfined child."""
    return os.environ.get(UNCONFINED_VARIABLE, "") == "1"


@contextlib.contextmanager
def unconfined_runs(allow: bool = True) -> Iterator[None]:
    """Within the block, :func:`run_code` runs the unconfined child unless told otherwise.

    It sets :data:`UNCONFINED_VARIABLE` (so processes started in the block, such as Ray's
    local workers, inherit it) and restores it afterwards; ``allow=False`` changes nothing.
    """
    if not allow:
        yield
        return
    before = os.environ.get(UNCONFINED_VARIABLE)
    os.environ[UNCONFINED_VARIABLE] = "1"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(UNCONFINED_VARIABLE, None)
        else:
            os.environ[UNCONFINED_VARIABLE] = before


def require_confinement(unconfined: bool | None = None) -> bool:
    """Whether programs will run unconfined; raise if they may run neither way.

    Args:
        unconfined: The caller's choice; ``None`` reads :data:`UNCONFINED_VARIABLE`.

    Returns:
        True for the unconfined child, False for bubblewrap.

    Raises:
        SandboxUnavailable: Bubblewrap cannot run here and the caller did not opt out of it.
    """
    if unconfined is None:
        unconfined = unconfined_requested()
    if not unconfined:
        problem = confinement_problem()
        if problem is not None:
            raise SandboxUnavailable(problem)
    return bool(unconfined)


def confinement_problem() -> str | None:
    """Why bubblewrap cannot confine programs here, in one line naming the fix; None if it can.

    The first call runs bubblewrap once with the sandbox's namespaces (a few milliseconds);
    the answer is kept for the process.
    """
    bwrap = _bwrap_path()
    if bwrap is None:
        return (
            "bubblewrap (bwrap) is not installed, so mase.sandbox cannot confine programs: "
            f"install it (Debian/Ubuntu: apt-get install bubblewrap), {_OPT_IN}"
        )
    return _probe(bwrap)


def _bwrap_path() -> str | None:
    found = shutil.which("bwrap")
    if found is None and os.access("/usr/bin/bwrap", os.X_OK):
        found = "/usr/bin/bwrap"
    return os.path.realpath(found) if found else None


@functools.cache
def _probe(bwrap: str) -> str | None:
    command = [bwrap, *_ISOLATION, *_system_binds(), "--remount-ro", "/", "--", "true"]
    try:
        done = subprocess.run(
            command, env={}, capture_output=True, timeout=_PROBE_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap ({bwrap}) could not be run ({exc}): reinstall it, {_OPT_IN}"
    if done.returncode == 0:
        return None
    said = done.stderr.decode(errors="replace").strip().splitlines()
    said = said[0] if said else f"exit status {done.returncode}"
    if "Unknown option" in said or "Unrecognized" in said:
        return (
            f"bubblewrap ({bwrap}) is too old for mase.sandbox ({said}): install 0.8 or newer, "
            f"{_OPT_IN}"
        )
    return (
        f"bubblewrap cannot create its namespaces here ({said}): allow unprivileged user "
        "namespaces (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu 24.04 "
        f"kernel.apparmor_restrict_unprivileged_userns=0), or run in a VM or container that "
        f"allows them, {_OPT_IN}"
    )


# ---------------------------------------------------------------------------------------------
# The bubblewrap command.

_ISOLATION = (
    "--unshare-user",
    "--unshare-pid",
    "--unshare-net",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup",
    "--disable-userns",
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
    "--clearenv",
    "--hostname",
    "sandbox",
    "--uid",
    "65534",
    "--gid",
    "65534",
)
_SYSTEM_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")


def _system_binds() -> list[str]:
    """``/usr`` read-only, and ``/bin``, ``/lib``... as the host has them (links or folders)."""
    binds = ["--ro-bind", "/usr", "/usr"]
    for name in _SYSTEM_LINKS:
        path = f"/{name}"
        if os.path.islink(path):
            binds += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            binds += ["--ro-bind", path, path]
    return binds


def _python_binds() -> list[str]:
    """Python's prefixes, read-only, and the interpreter itself where it lives elsewhere."""
    roots: list[str] = []
    for prefix in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix):
        roots += [os.path.abspath(prefix), os.path.realpath(prefix)]
    for program in (sys.executable, os.path.realpath(sys.executable)):
        if not any(_inside(program, root) for root in roots):
            roots.append(os.path.abspath(program))
    binds: list[str] = []
    kept: list[str] = ["/usr"]
    for root in sorted(set(roots), key=len):
        if os.path.exists(root) and not any(_inside(root, other) for other in kept):
            binds += ["--ro-bind", root, root]
            kept.append(root)
    return binds


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(os.path.join(root, ""))


def _masks(hidden: Sequence[str]) -> list[str]:
    """Bubblewrap's options that cover each hidden path that exists.

    A folder gets an empty read-only tmpfs, anything else ``/dev/null``.
    """
    options: list[str] = []
    for path in hidden:
        if os.path.isdir(path):
            options += ["--size", "4096", "--tmpfs", path, "--remount-ro", path]
        elif os.path.exists(path):
            options += ["--ro-bind", os.devnull, path]
    return options


def _bwrap_command(
    work: str,
    own_folder: bool,
    status_fd: int,
    info_fd: int,
    limits: dict[str, float],
    hidden: Sequence[str] = (),
) -> list[str]:
    """The command line that runs the child under bubblewrap in ``work``."""
    bwrap = _bwrap_path()
    assert bwrap is not None  # require_confinement checked
    folder = ["--size", str(MAX_FOLDER_BYTES), "--tmpfs", work] if own_folder else []
    command = [
        bwrap,
        *_ISOLATION,
        "--setenv",
        "PYTHONHASHSEED",
        HASH_SEED,
        *_system_binds(),
        *_python_binds(),
        *_masks(hidden),
        "--ro-bind",
        os.path.realpath(child_script.__file__),
        _CHILD_PATH,
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--size",
        str(_SHM_BYTES),
        "--tmpfs",
        "/dev/shm",
        "--remount-ro",
        "/dev",
        *(folder or ["--bind", work, work]),
        "--remount-ro",
        "/",
        "--chdir",
        work,
        "--info-fd",
        str(info_fd),
        "--",
    ]
    return command + _interpreter(_CHILD_PATH, work, status_fd, limits, ("confined", *_LAYERS))


def _interpreter(
    script: str, work: str, status_fd: int, limits: dict[str, float], layers: tuple[str, ...]
) -> list[str]:
    # -P -s and an environment of our own are -I's isolation, but let PYTHONHASHSEED in
    return [
        sys.executable,
        *("-P", "-s", "-B", "-u", "-X", "utf8", script, work, str(status_fd)),
        *(str(limits["memory_mb"]), str(limits["timeout_s"]), ",".join(layers) or "none"),
    ]


# ---------------------------------------------------------------------------------------------
# The parent: start the child, feed it, read its output with a cap, stop it, classify the end.


@dataclass
class _Capture:
    """One output stream of the child, decoded as it arrives."""

    decoder: codecs.IncrementalDecoder = field(
        default_factory=lambda: codecs.getincrementaldecoder("utf-8")(errors="replace")
    )
    text: str = ""


def _supervise(
    payload: bytes,
    work: str,
    own_folder: bool,
    limits: dict[str, float],
    confined: bool,
    hidden: Sequence[str] = (),
) -> SandboxResult:
    """Start the child in ``work``, collect its output and turn its end into a result."""
    status_read, status_write = os.pipe()
    info_read, info_write = os.pipe()
    if confined:
        command = _bwrap_command(work, own_folder, status_write, info_write, limits, hidden)
        options = {"cwd": "/", "env": {}, "pass_fds": (status_write, info_write)}
    else:
        command = _interpreter(child_script.__file__, work, status_write, limits, ("hook",))
        options = {"cwd": work, "env": {"PYTHONHASHSEED": HASH_SEED}, "pass_fds": (status_write,)}
    started = time.monotonic()
    try:
        child = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            **options,
        )
    except BaseException:
        os.close(status_read)
        os.close(info_read)
        raise
    finally:
        os.close(status_write)
        os.close(info_write)
    with child:
        namespace = _namespace_init(info_read, child.pid)  # closes info_read
        try:
            captures = {child.stdout: _Capture(), child.stderr: _Capture()}
            status = bytearray()
            stop = _collect(child, captures, payload, status_read, status, limits)
            if stop is not None:
                _stop(child, namespace)
            returncode = child.wait()
        finally:
            if child.poll() is None:  # interrupted (Ctrl-C): nothing of it may outlive the call
                _stop(child, namespace)
            if namespace is not None:
                os.close(namespace)
    seconds = time.monotonic() - started
    status = _read_status(status_read, status)
    if confined and not status and returncode > 128:  # bubblewrap's 128 + N: killed by N
        returncode = 128 - returncode
    stdout, stderr = (capture.text[: int(limits["max_output"])] for capture in captures.values())
    reason, error = _classify(stop, returncode, status, stderr, limits)
    ok = reason == "ok"
    return SandboxResult(ok, stdout, stderr, reason, error, returncode, seconds, confined)


def _namespace_init(info_read: int, bwrap_pid: int) -> int | None:
    """A pidfd of the namespace's first process, from bubblewrap's ``--info-fd`` report.

    None for the unconfined child (nothing is written), or where the report or the pidfd is
    missing: then stopping the child kills bubblewrap, and ``--die-with-parent`` the rest.
    """
    with os.fdopen(info_read, "rb") as info:
        data = info.read()  # bubblewrap writes it and closes it as soon as the namespace exists
    try:
        pid = int(json.loads(data)["child-pid"])
        pidfd = os.pidfd_open(pid)
    except (ValueError, KeyError, TypeError, OSError, AttributeError):
        return None
    try:  # a pid recycled before the pidfd was opened is not bubblewrap's child
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            ppid = next(int(line.split()[1]) for line in status if line.startswith("PPid:"))
    except (OSError, StopIteration, ValueError):
        ppid = -1
    if ppid != bwrap_pid:
        os.close(pidfd)
        return None
    return pidfd


def _stop(child: subprocess.Popen[bytes], namespace: int | None) -> None:
    """Kill everything the child started: its PID namespace's first process, then the rest."""
    if namespace is not None:
        with contextlib.suppress(ProcessLookupError):
            signal.pidfd_send_signal(namespace, signal.SIGKILL)
        try:  # bubblewrap exits once the kernel has ended every process of the namespace
            child.wait(timeout=5.0)
            return
        except subprocess.TimeoutExpired:
            pass
    with contextlib.suppress(ProcessLookupError):
        os.killpg(child.pid, signal.SIGKILL)


def _collect(
    child: subprocess.Popen[bytes],
    captures: dict[Any, _Capture],
    payload: bytes,
    status_read: int,
    status: bytearray,
    limits: dict[str, float],
) -> Literal["timeout", "output_limit"] | None:
    """Feed the child its payload and read its output until it ends; why to stop it, or None.

    The clock of ``timeout_s`` starts when the child reports the program's start on the status
    pipe (what else comes on it is collected into ``status``); before that, the interpreter has
    :data:`STARTUP_LIMIT_S` to start.
    """
    timeout_s, max_output = limits["timeout_s"], limits["max_output"]
    deadline = time.monotonic() + STARTUP_LIMIT_S + timeout_s
    feed = _Feed(child, payload)
    with selectors.DefaultSelector() as selector:
        for stream in captures:
            selector.register(stream, selectors.EVENT_READ)
        selector.register(status_read, selectors.EVENT_READ)
        feed.register(selector)
        while selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "timeout"
            for key, _ in selector.select(remaining):
                if key.fileobj is child.stdin:
                    feed.write(selector)
                    continue
                chunk = os.read(key.fd, _READ_CHUNK)
                if key.fileobj == status_read:
                    if not status and chunk.startswith(child_script.STARTED):
                        deadline = time.monotonic() + timeout_s
                    status += chunk
                    if not chunk:
                        selector.unregister(status_read)
                    continue
                capture = captures[key.fileobj]
                capture.text += capture.decoder.decode(chunk, final=not chunk)
                if not chunk:
                    selector.unregister(key.fileobj)
                if len(capture.text) > max_output:
                    return "output_limit"
    try:
        child.wait(timeout=max(deadline - time.monotonic(), 0))
    except subprocess.TimeoutExpired:
        return "timeout"
    return None


class _Feed:
    """The payload written to the child's standard input as the pipe takes it."""

    def __init__(self, child: subprocess.Popen[bytes], payload: bytes) -> None:
        self.stdin = child.stdin
        self.left = memoryview(payload)
        os.set_blocking(self.stdin.fileno(), False)

    def register(self, selector: selectors.BaseSelector) -> None:
        selector.register(self.stdin, selectors.EVENT_WRITE)

    def write(self, selector: selectors.BaseSelector) -> None:
        try:
            self.left = self.left[os.write(self.stdin.fileno(), self.left[:_READ_CHUNK]) :]
        except BlockingIOError:
            return
        except BrokenPipeError:  # the child ended before it read it all
            self.left = self.left[:0]
        if not self.left:
            selector.unregister(self.stdin)
            self.stdin.close()


def _read_status(status_read: int, data: bytearray) -> dict[str, str]:
    """The child's report of how the program ended; empty if it died before writing one.

    ``data`` is what :func:`_collect` read of the pipe already: the start mark, maybe more.
    """
    os.set_blocking(status_read, False)
    try:
        while chunk := os.read(status_read, _READ_CHUNK):
            data += chunk
    except BlockingIOError:
        pass  # only a stray descendant could still hold the pipe open; take what came
    finally:
        os.close(status_read)
    try:
        status = json.loads(data.removeprefix(child_script.STARTED))
    except ValueError:
        return {}
    return status if isinstance(status, dict) else {}


#: Signs in stderr that a child which died without a report ran out of memory.
_MEMORY_SIGNS = ("MemoryError", "Cannot allocate memory", "out of memory")


def _classify(
    stop: str | None,
    returncode: int,
    status: dict[str, str],
    stderr: str,
    limits: dict[str, float],
) -> tuple[Reason, str]:
    """The reason the program ended and the error sentence for a model."""
    summary = status.get("summary", "")
    outcome = status.get("outcome")
    if stop == "output_limit":
        return "output_limit", (
            f"the program printed more than {limits['max_output']} characters and was "
            f"stopped; its output was cut"
        )
    if stop == "timeout":
        return "timeout", f"the program ran past its {limits['timeout_s']} s limit and was stopped"
    if outcome == "forbidden":
        return "forbidden", f"the program tried something the sandbox forbids: {summary}"
    if outcome == "memory" or (not status and any(s in stderr for s in _MEMORY_SIGNS)):
        return "memory", f"the program ran out of memory (its limit is {limits['memory_mb']} MB)"
    if returncode == -signal.SIGXCPU:
        return "timeout", (
            f"the program used up its CPU time (about {limits['timeout_s']} s) and was stopped"
        )
    if returncode < 0:
        return "killed", f"the program was killed by signal {signal.Signals(-returncode).name}"
    if outcome == "exception":
        return "exception", f"the program raised {summary}"
    if returncode != 0:
        return "exception", f"the program exited with status {returncode}"
    return "ok", ""


__all__ = [
    "HASH_SEED",
    "INTERPRETER_HEADROOM_MB",
    "MAX_FILE_BYTES",
    "MAX_FOLDER_BYTES",
    "PROGRAM_NAME",
    "RANDOM_SEED",
    "SANDBOX_FOLDER",
    "STARTUP_LIMIT_S",
    "UNCONFINED_VARIABLE",
    "ForbiddenError",
    "SandboxResult",
    "SandboxUnavailable",
    "confinement_problem",
    "require_confinement",
    "run_code",
    "unconfined_requested",
    "unconfined_runs",
]
