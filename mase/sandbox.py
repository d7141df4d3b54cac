"""Run a model-written Python program in a limited child process.

A CodeAct agent writes a small program over the facts it was given, and what the program prints
informs its next action. :func:`run_code` runs such a program in a child interpreter and returns
a :class:`SandboxResult`; its :meth:`~SandboxResult.feedback` is the text to show the model so
that it can fix its program.

What this stops are the mistakes a model's program makes:

* endless loops: a wall-clock timeout in the parent, counted from the program's start (the
  child reports it), kills the child's process group, and ``RLIMIT_CPU`` stops threads that
  burn CPU time faster than the clock runs;
* huge allocations: ``RLIMIT_AS`` caps the child's address space, so the allocation fails with
  ``MemoryError`` in the child and the parent is untouched;
* floods of output: stdout and stderr are read as they come, and a program that prints more than
  ``max_output`` characters on either is stopped;
* stray writes and big files: creating, changing, renaming or removing files is allowed only
  inside the working folder, and ``RLIMIT_FSIZE`` caps any file at :data:`MAX_FILE_BYTES`;
* reading the machine's secrets: the child starts with an empty environment and may read only
  its folder and Python's own files, not ``/etc``, ``/proc/*/environ`` or the user's home;
* starting processes, the network and ``ctypes``: refused.

What it is not: a security boundary. The rules on files, processes and the network are an audit
hook (:func:`sys.addaudithook`), and Python documents audit hooks as a way to observe code, not
to sandbox it: C extensions act without raising events, and a determined program can reach the
hook's state. Code from an adversary belongs in a container or a virtual machine.

How the child runs: ``sys.executable -P -s -B -u -X utf8`` runs this file as a script with
``env={"PYTHONHASHSEED": "0"}``, ``start_new_session=True`` and the working folder as its
current directory (``-I`` would be the same isolation, but it ignores ``PYTHONHASHSEED``; the
fixed seed makes a program that prints a set print it in the same order every run, as the
seeded ``random`` (:data:`RANDOM_SEED`) makes its draws the same). The
program and the facts travel in a JSON file, ``_sandbox_input.json``, that the child reads and
removes before the program starts; the program sees the facts as its global ``facts`` and runs
as ``__main__`` (its tracebacks name it ``<program>``). The child sets its limits, installs the
audit hook, runs the program, and reports how it ended through a pipe. It sets
``OPENBLAS_NUM_THREADS``, ``OMP_NUM_THREADS`` and ``MKL_NUM_THREADS`` to 1 (a BLAS thread pool
reserves tens of MB of address space per core) and ``TMPDIR`` to the folder, so the program's
``os.environ`` holds those, ``PYTHONHASHSEED`` and whatever Python itself sets (``LC_CTYPE``),
nothing else.

The audit hook, for the events of Python 3.11:

* refuses ``os.system``, ``subprocess.Popen``, ``os.exec``, ``os.posix_spawn``, ``os.fork`` and
  ``os.forkpty`` (``os.spawn*``, ``pty`` and ``multiprocessing`` go through them;
  ``_posixsubprocess.fork_exec``, which raises no event, is replaced by a refusal), ``os.kill``,
  ``os.killpg``, ``socket.connect``, ``socket.bind``, ``socket.getaddrinfo``, ``socket.sendto``,
  ``socket.sendmsg``, ``socket.gethostbyname``, ``socket.gethostbyaddr``,
  ``socket.getnameinfo``, ``resource.setrlimit`` and ``resource.prlimit``;
* refuses every ``ctypes.*`` event: ctypes is imported before the hook (numpy imports it), and
  loading a library, looking up a symbol, calling a foreign function or reading memory through
  it is refused, so the hook cannot be undone that way;
* checks ``open``: writing only inside the folder (and ``/dev/null``), reading only the folder,
  ``/dev/null``, ``/dev/urandom``, Python's prefixes and the ``sys.path`` entries that exist at
  start; ``os.listdir``, ``os.scandir``, ``os.getxattr`` and ``os.listxattr`` count as reads;
* checks ``os.chdir``: into the folder only;
* checks ``os.mkdir``, ``os.remove``, ``os.rmdir``, ``os.rename``, ``os.link``, ``os.symlink``
  (both ends), ``os.chmod``, ``os.chown``, ``os.utime``, ``os.truncate``, ``os.setxattr``,
  ``os.removexattr``, ``shutil.rmtree`` and ``sqlite3.connect``: strictly inside the folder.

Paths are resolved with :func:`os.path.realpath` (and ``dir_fd`` through ``/proc/self/fd``), so
``..`` and symlinks do not lead out. A refusal raises :class:`ForbiddenError`, a
:class:`PermissionError`; bytecode is not written (``-B``), so imports need no writes.

It needs Linux (``resource``, process groups and ``/proc/self/fd``); elsewhere :func:`run_code`
raises :class:`RuntimeError`.

Example:
    >>> result = run_code("print(sum(facts['xs']))", {"xs": [1, 2, 3]})
    >>> result.reason, result.stdout.strip()
    ('ok', '6')
"""

from __future__ import annotations

import codecs
import contextlib
import json
import math
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Reason = Literal["ok", "exception", "timeout", "memory", "output_limit", "forbidden", "killed"]

#: Address space the interpreter needs on top of ``memory_mb``. A bare ``python -I`` peaks at
#: about 14 MB and this child, with its imports, at about 19 MB before the program starts; the
#: rest is slack. Libraries count against ``memory_mb``: ``import numpy`` maps about 85 MB.
INTERPRETER_HEADROOM_MB = 32
#: The largest file the program may write (``RLIMIT_FSIZE``); a larger write fails with
#: ``OSError: [Errno 27] File too large``.
MAX_FILE_BYTES = 2**20
#: The child's string hash seed: a program that prints a set of names prints them in the same
#: order every run, so a replayed episode shows a model the same output (and hits the cache).
HASH_SEED = "0"
#: The seed of the standard library's ``random`` before the program starts, for the same reason:
#: a program that calls ``random.choice`` prints the same choice every run (numpy's global
#: generator is not seeded).
RANDOM_SEED = 0
#: The name of the program in its tracebacks.
PROGRAM_NAME = "<program>"

#: The most an interpreter may take to start before the program's own clock runs (a child that
#: has not started by then is stopped as a timeout): the limit counts from the program's start,
#: so a machine slow to start processes does not shorten it.
STARTUP_LIMIT_S = 30.0

_INPUT_NAME = "_sandbox_input.json"
#: What the child writes to the status pipe the moment the program starts.
_STARTED = b"+"
_READ_CHUNK = 65536
#: How much of the traceback :meth:`SandboxResult.feedback` shows by default.
_FEEDBACK_CHARS = 1500
_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC


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
    """

    ok: bool
    stdout: str
    stderr: str
    reason: Reason
    error: str
    returncode: int
    seconds: float

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


class ForbiddenError(PermissionError):
    """Raised in the child when the sandbox refuses an action."""


def run_code(
    code: str,
    facts: Mapping[str, Any] | None = None,
    *,
    timeout_s: float = 5.0,
    memory_mb: int = 256,
    max_output: int = 4000,
    folder: str | os.PathLike[str] | None = None,
) -> SandboxResult:
    """Run ``code`` in a limited child interpreter and report how it ended.

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
        folder: The working folder, created if missing and kept afterwards; by default a fresh
            temporary folder, removed afterwards.

    Returns:
        The program's output and how it ended.

    Raises:
        RuntimeError: Not on Linux.
        ValueError: A limit is not positive.
        TypeError: The facts are not JSON-serializable.
    """
    if not sys.platform.startswith("linux"):
        raise RuntimeError(
            f"mase.sandbox runs programs only on Linux (it needs resource limits, process "
            f"groups and /proc), not on {sys.platform!r}; run the agent on a Linux machine"
        )
    if timeout_s <= 0 or memory_mb <= 0 or max_output <= 0:
        raise ValueError(
            f"timeout_s, memory_mb and max_output must be positive, got {timeout_s}, "
            f"{memory_mb} and {max_output}"
        )
    payload = json.dumps({"code": code, "facts": dict(facts or {})})
    own_folder = folder is None
    work = os.path.realpath(tempfile.mkdtemp(prefix="mase-sandbox-") if own_folder else folder)
    os.makedirs(work, exist_ok=True)
    try:
        with open(os.path.join(work, _INPUT_NAME), "w", encoding="utf-8") as file:
            file.write(payload)
        return _supervise(work, timeout_s, memory_mb, max_output)
    finally:
        if own_folder:
            shutil.rmtree(work, ignore_errors=True)
        else:
            with contextlib.suppress(FileNotFoundError):
                os.remove(os.path.join(work, _INPUT_NAME))


# ---------------------------------------------------------------------------------------------
# The parent: start the child, read its output with a cap, stop it, classify the end.


@dataclass
class _Capture:
    """One output stream of the child, decoded as it arrives."""

    decoder: codecs.IncrementalDecoder = field(
        default_factory=lambda: codecs.getincrementaldecoder("utf-8")(errors="replace")
    )
    text: str = ""


def _supervise(work: str, timeout_s: float, memory_mb: int, max_output: int) -> SandboxResult:
    """Start the child in ``work``, collect its output and turn its end into a result."""
    status_read, status_write = os.pipe()
    # -P -s and an environment of our own are -I's isolation, but let PYTHONHASHSEED in
    command = [sys.executable, "-P", "-s", "-B", "-u", "-X", "utf8", os.path.abspath(__file__)]
    command += [work, str(status_write), str(memory_mb), str(timeout_s)]
    started = time.monotonic()
    try:
        child = subprocess.Popen(
            command,
            cwd=work,
            env={"PYTHONHASHSEED": HASH_SEED},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=(status_write,),
            start_new_session=True,
        )
    except BaseException:
        os.close(status_read)
        raise
    finally:
        os.close(status_write)
    with child:
        captures = {child.stdout: _Capture(), child.stderr: _Capture()}
        status = bytearray()
        stop = _collect(child, captures, status_read, status, timeout_s, max_output)
        if stop is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGKILL)
        returncode = child.wait()
    seconds = time.monotonic() - started
    status = _read_status(status_read, status)
    stdout, stderr = (capture.text[:max_output] for capture in captures.values())
    limits = {"timeout_s": timeout_s, "memory_mb": memory_mb, "max_output": max_output}
    reason, error = _classify(stop, returncode, status, stderr, limits)
    return SandboxResult(reason == "ok", stdout, stderr, reason, error, returncode, seconds)


def _collect(
    child: subprocess.Popen[bytes],
    captures: dict[Any, _Capture],
    status_read: int,
    status: bytearray,
    timeout_s: float,
    max_output: int,
) -> Literal["timeout", "output_limit"] | None:
    """Read the child's output until it ends; why the parent must stop it, or None.

    The clock of ``timeout_s`` starts when the child reports the program's start on the status
    pipe (what else comes on it is collected into ``status``); before that, the interpreter has
    :data:`STARTUP_LIMIT_S` to start.
    """
    deadline = time.monotonic() + STARTUP_LIMIT_S + timeout_s
    with selectors.DefaultSelector() as selector:
        for stream in captures:
            selector.register(stream, selectors.EVENT_READ)
        selector.register(status_read, selectors.EVENT_READ)
        while selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "timeout"
            for key, _ in selector.select(remaining):
                chunk = os.read(key.fd, _READ_CHUNK)
                if key.fileobj == status_read:
                    if not status and chunk.startswith(_STARTED):
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
        status = json.loads(data.removeprefix(_STARTED))
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


# ---------------------------------------------------------------------------------------------
# The child: limits, the audit hook, the program.

#: Audit events refused outright, with what the program was trying to do.
_REFUSED = {
    "os.system": "running a shell command",
    "subprocess.Popen": "starting a process",
    "os.exec": "replacing the process with another program",
    "os.posix_spawn": "starting a process",
    "os.fork": "forking the process",
    "os.forkpty": "forking the process",
    "os.kill": "sending a signal to a process",
    "os.killpg": "sending a signal to a process group",
    "socket.connect": "network access",
    "socket.bind": "network access",
    "socket.getaddrinfo": "network access",
    "socket.sendto": "network access",
    "socket.sendmsg": "network access",
    "socket.gethostbyname": "network access",
    "socket.gethostbyaddr": "network access",
    "socket.getnameinfo": "network access",
    "resource.setrlimit": "changing the sandbox's limits",
    "resource.prlimit": "changing the sandbox's limits",
}

#: Audit events that name paths: the access checked, and (path, dir_fd) argument positions.
_PATH_EVENTS: dict[str, tuple[str, tuple[tuple[int, int | None], ...]]] = {
    "os.listdir": ("read", ((0, None),)),
    "os.scandir": ("read", ((0, None),)),
    "os.getxattr": ("read", ((0, None),)),
    "os.listxattr": ("read", ((0, None),)),
    "os.chdir": ("enter", ((0, None),)),
    "os.mkdir": ("write", ((0, 2),)),
    "os.remove": ("write", ((0, 1),)),
    "os.rmdir": ("write", ((0, 1),)),
    "os.rename": ("write", ((0, 2), (1, 3))),
    "os.link": ("write", ((0, 2), (1, 3))),
    "os.chmod": ("write", ((0, 2),)),
    "os.chown": ("write", ((0, 3),)),
    "os.utime": ("write", ((0, 3),)),
    "os.truncate": ("write", ((0, None),)),
    "os.setxattr": ("write", ((0, None),)),
    "os.removexattr": ("write", ((0, None),)),
    "shutil.rmtree": ("write", ((0, 1),)),
    "sqlite3.connect": ("write", ((0, None),)),
}

_READABLE_DEVICES = ("/dev/null", "/dev/urandom")


def _resolve(path: Any, dir_fd: int | None = None) -> str:
    """The real absolute path an audited call acts on (a descriptor's target for an int)."""
    if isinstance(path, int):
        return _fd_target(path)
    base = os.getcwd() if dir_fd is None or dir_fd < 0 else _fd_target(dir_fd)
    return os.path.realpath(os.path.join(base, os.fsdecode("." if path is None else path)))


def _fd_target(fd: int) -> str:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return f"<file descriptor {fd}>"


def _within(path: str, root: str) -> bool:
    return path.startswith(os.path.join(root, ""))


class _Guard:
    """The audit hook: refuses what :data:`_REFUSED` lists and paths outside the folder."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, *sys.path}
        self.library = tuple(os.path.realpath(root) for root in roots if os.path.exists(root))

    def __call__(self, event: str, args: tuple[Any, ...]) -> None:
        if event == "open":
            path, _, flags = args
            real = None if isinstance(path, int) else _resolve(path)  # a descriptor is its own
            if real not in (None, self.folder):  # writing to the folder itself is O_TMPFILE
                self._check(real, "write" if flags & _WRITE_FLAGS else "read")
        elif event in _REFUSED:
            raise ForbiddenError(f"{_REFUSED[event]} ({event}) is not allowed in the sandbox")
        elif event.startswith("ctypes."):
            raise ForbiddenError(f"ctypes ({event}) is not allowed in the sandbox")
        elif event == "os.symlink":
            source, link, dir_fd = args
            link = _resolve(link, dir_fd)
            self._check(link, "write")
            self._check(_resolve(os.path.join(os.path.dirname(link), os.fsdecode(source))), "write")
        elif event in _PATH_EVENTS:
            access, positions = _PATH_EVENTS[event]
            for path_at, dir_fd_at in positions:
                dir_fd = None if dir_fd_at is None else args[dir_fd_at]
                self._check(_resolve(args[path_at], dir_fd), access)

    def _check(self, path: str, access: str) -> None:
        """Raise :class:`ForbiddenError` unless ``access`` to the real ``path`` is allowed."""
        inside = _within(path, self.folder)
        if access == "write" and not (inside or path == "/dev/null"):
            raise ForbiddenError(
                f"writing to {path!r} is not allowed: a program may only create, change or "
                f"remove files inside its working folder {self.folder}"
            )
        if access == "enter" and not (inside or path == self.folder):
            raise ForbiddenError(
                f"changing directory to {path!r} is not allowed: a program must stay in its "
                f"working folder {self.folder}"
            )
        if access == "read" and not (
            inside
            or path == self.folder
            or path in _READABLE_DEVICES
            or any(path == root or _within(path, root) for root in self.library)
        ):
            raise ForbiddenError(
                f"reading {path!r} is not allowed: a program may only read its working folder "
                f"and Python's own files"
            )


def _refuse_fork_exec(*args: Any) -> None:
    raise ForbiddenError("starting a process (fork_exec) is not allowed in the sandbox")


def _child_main(folder: str, status_fd: str, memory_mb: str, timeout_s: str) -> int:
    """Set the limits, install the guard and run the program; return the exit status."""
    import _posixsubprocess
    import builtins
    import ctypes  # noqa: F401  numpy imports it; loading it (ctypes.dlopen) must precede the guard
    import linecache
    import random
    import resource
    import types

    address_space = int((float(memory_mb) + INTERPRETER_HEADROOM_MB) * 2**20)
    cpu_seconds = math.ceil(float(timeout_s)) + 1
    resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (MAX_FILE_BYTES, MAX_FILE_BYTES))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a too-large write raises OSError instead
    os.environ.update(dict.fromkeys(_THREAD_VARIABLES, "1"), TMPDIR=folder)

    with open(_INPUT_NAME, encoding="utf-8") as file:
        payload = json.load(file)
    os.remove(_INPUT_NAME)
    source = payload["code"]
    linecache.cache[PROGRAM_NAME] = (len(source), None, source.splitlines(True), PROGRAM_NAME)
    program = types.ModuleType("__main__")
    program.__dict__.update(facts=payload["facts"], __builtins__=builtins)
    sys.modules["__main__"] = program
    random.seed(RANDOM_SEED)
    _posixsubprocess.fork_exec = _refuse_fork_exec  # it raises no audit event of its own
    sys.addaudithook(_Guard(folder))

    reserve = bytearray(2**20)  # freed on MemoryError, so the traceback can still be written
    outcome, summary, exit_status = "ok", "", 0
    os.write(int(status_fd), _STARTED)  # the parent's clock for the program starts now
    try:
        exec(compile(source, PROGRAM_NAME, "exec"), program.__dict__)
    except SystemExit as exit_:
        if exit_.code is None or isinstance(exit_.code, int):
            exit_status = exit_.code or 0
        else:  # sys.exit("message") prints the message and exits with 1, as Python does
            print(exit_.code, file=sys.stderr)
            exit_status = 1
        outcome = "ok" if exit_status == 0 else "exit"
    except BaseException as error:
        del reserve
        outcome, summary = _describe(error)
        if outcome == "memory":
            program.__dict__.clear()
            traceback.clear_frames(error.__traceback__)
        report = traceback.TracebackException.from_exception(error)
        _hide_sandbox_frames(report)
        print("".join(report.format()), end="", file=sys.stderr)
        exit_status = 1
    with contextlib.suppress(OSError):  # the program may have closed the pipe
        os.write(int(status_fd), json.dumps({"outcome": outcome, "summary": summary}).encode())
    return exit_status


def _describe(error: BaseException) -> tuple[str, str]:
    """The outcome an uncaught exception stands for, and a one-line summary of it."""
    chain: list[BaseException] = []
    link: BaseException | None = error
    while link is not None and link not in chain:
        chain.append(link)
        link = link.__cause__ or link.__context__
    for link in chain:
        if isinstance(link, ForbiddenError):
            return "forbidden", str(link)[:500]
    summary = traceback.format_exception_only(error)[-1].strip()[:500]
    memory = any(isinstance(link, MemoryError) for link in chain)
    return ("memory" if memory else "exception"), summary


def _hide_sandbox_frames(report: traceback.TracebackException) -> None:
    """Drop this file's frames (the child's start, the guard) from a traceback and its chain."""
    report.stack[:] = [frame for frame in report.stack if frame.filename != __file__]
    for linked in (report.__cause__, report.__context__):
        if linked is not None:
            _hide_sandbox_frames(linked)


if __name__ == "__main__":
    sys.exit(_child_main(*sys.argv[1:]))
