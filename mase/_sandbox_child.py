"""The child side of :mod:`mase.sandbox`: limits, a seccomp filter, the audit hook, the program.

This file runs as a script inside the sandbox (under bubblewrap it is the only file of the
repository the child can see, bound read-only), so it imports nothing but the standard library.
:mod:`mase.sandbox` documents what it does; this module holds the constants both sides share.

Its arguments: the working folder, the status pipe's descriptor, ``memory_mb``, ``timeout_s``
and the layers to set up (``"confined,hook,seccomp"``, a comma-separated subset). The program
and its facts come as JSON on standard input, read to its end before the program starts (then
standard input is ``/dev/null``).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import struct
import sys
import traceback
from collections.abc import Sequence
from typing import Any

#: Address space the interpreter needs on top of ``memory_mb``. A bare ``python -I`` peaks at
#: about 14 MB and this child, with its imports, at about 19 MB before the program starts; the
#: rest is slack. Libraries count against ``memory_mb``: ``import numpy`` maps about 85 MB.
INTERPRETER_HEADROOM_MB = 32
#: The largest file the program may write (``RLIMIT_FSIZE``); a larger write fails with
#: ``OSError: [Errno 27] File too large``.
MAX_FILE_BYTES = 2**20
#: Descriptors the program may hold open at once (``RLIMIT_NOFILE``).
MAX_OPEN_FILES = 256
#: Processes and threads of the sandbox's own user namespace (``RLIMIT_NPROC``; a host's root
#: is exempt from it, which is one reason for the seccomp filter). Only set when confined: in
#: the unconfined child it would count every process of the user on the machine.
MAX_PROCESSES = 64
#: The child's string hash seed: a program that prints a set of names prints them in the same
#: order every run, so a replayed episode shows a model the same output (and hits the cache).
HASH_SEED = "0"
#: The seed of the standard library's ``random`` before the program starts, for the same reason:
#: a program that calls ``random.choice`` prints the same choice every run (numpy's global
#: generator is not seeded).
RANDOM_SEED = 0
#: The name of the program in its tracebacks.
PROGRAM_NAME = "<program>"
#: What the child writes to the status pipe the moment the program starts.
STARTED = b"+"

_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC


class ForbiddenError(PermissionError):
    """Raised in the child when the sandbox refuses an action."""


# ---------------------------------------------------------------------------------------------
# The seccomp filter: no new processes, no new programs, no kernel interfaces a program of
# facts has no use for. Built by hand (a classic BPF program of 80 instructions on x86-64), so
# it needs no library.

_ARCHES = {  # machine -> (AUDIT_ARCH_*, syscall numbers)
    "x86_64": (
        0xC000003E,
        {
            "clone": 56, "fork": 57, "vfork": 58, "execve": 59, "execveat": 322, "clone3": 435,
            "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "bpf": 321,
            "perf_event_open": 298, "userfaultfd": 323, "keyctl": 250, "add_key": 248,
            "request_key": 249, "unshare": 272, "setns": 308, "mount": 165, "umount2": 166,
            "pivot_root": 155, "chroot": 161, "io_uring_setup": 425, "io_uring_enter": 426,
            "io_uring_register": 427, "open_tree": 428, "move_mount": 429, "fsopen": 430,
            "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
            "kexec_load": 246, "init_module": 175, "finit_module": 313, "delete_module": 176,
        },
    ),
    "aarch64": (
        0xC00000B7,
        {
            "clone": 220, "execve": 221, "execveat": 281, "clone3": 435, "ptrace": 117,
            "process_vm_readv": 270, "process_vm_writev": 271, "bpf": 280,
            "perf_event_open": 241, "userfaultfd": 282, "keyctl": 219, "add_key": 217,
            "request_key": 218, "unshare": 97, "setns": 268, "mount": 40, "umount2": 39,
            "pivot_root": 41, "chroot": 51, "io_uring_setup": 425, "io_uring_enter": 426,
            "io_uring_register": 427, "open_tree": 428, "move_mount": 429, "fsopen": 430,
            "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
            "kexec_load": 104, "init_module": 105, "finit_module": 273, "delete_module": 106,
        },
    ),
}  # fmt: skip
_CLONE_THREAD = 0x00010000
_EPERM, _ENOSYS = 1, 38
_RET_ALLOW, _RET_ERRNO, _RET_KILL_PROCESS = 0x7FFF0000, 0x00050000, 0x80000000
_LD_ABS, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_X32_SYSCALL_BIT = 0x40000000


def seccomp_program(machine: str | None = None) -> bytes | None:
    """The filter for this machine as ``struct sock_filter`` bytes; None for an unknown one.

    ``clone`` is allowed for threads only (``CLONE_THREAD``), ``clone3`` answers ``ENOSYS`` (its
    flags sit behind a pointer the filter cannot read, and the C library then falls back to
    ``clone``), the rest of the table answers ``EPERM``, a call of another architecture kills
    the process, and everything else is allowed.
    """
    machine = machine or os.uname().machine
    if machine not in _ARCHES:
        return None
    arch, numbers = _ARCHES[machine]

    def op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
        return struct.pack("=HBBI", code, jt, jf, k)

    code = [op(_LD_ABS, 4), op(_JEQ, arch, 1, 0), op(_RET, _RET_KILL_PROCESS), op(_LD_ABS, 0)]
    if machine == "x86_64":  # the x32 ABI's numbers would dodge the table
        code += [op(_JGE, _X32_SYSCALL_BIT, 0, 1), op(_RET, _RET_KILL_PROCESS)]
    code += [op(_JEQ, numbers["clone3"], 0, 1), op(_RET, _RET_ERRNO | _ENOSYS)]
    for name, number in sorted(numbers.items()):
        if name not in ("clone", "clone3"):
            code += [op(_JEQ, number, 0, 1), op(_RET, _RET_ERRNO | _EPERM)]
    code += [
        op(_JEQ, numbers["clone"], 0, 4),
        op(_LD_ABS, 16),  # the low half of the first argument, the flags (little-endian)
        op(_JSET, _CLONE_THREAD, 0, 1),
        op(_RET, _RET_ALLOW),
        op(_RET, _RET_ERRNO | _EPERM),
        op(_RET, _RET_ALLOW),
    ]
    return b"".join(code)


def _install_seccomp() -> None:
    """Load :func:`seccomp_program` into this (single-threaded) process; it cannot be undone."""
    import ctypes

    program = seccomp_program()
    if program is None:
        return  # an architecture without a table: the namespaces and rlimits still hold
    filters = ctypes.create_string_buffer(program, len(program))

    class SockFprog(ctypes.Structure):
        _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.c_void_p))

    fprog = SockFprog(len(program) // 8, ctypes.cast(filters, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_no_new_privs, pr_set_seccomp, seccomp_mode_filter = 38, 22, 2
    if libc.prctl(pr_set_no_new_privs, 1, 0, 0, 0) != 0 or (
        libc.prctl(pr_set_seccomp, seccomp_mode_filter, ctypes.byref(fprog), 0, 0) != 0
    ):
        error = ctypes.get_errno()
        raise OSError(error, f"the sandbox could not load its seccomp filter: {os.strerror(error)}")


# ---------------------------------------------------------------------------------------------
# The audit hook.

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

    def __init__(self, folder: str, hidden: Sequence[str] = ()) -> None:
        self.folder = folder
        self.hidden = tuple(hidden)
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
        if access == "read" and any(path == h or _within(path, h) for h in self.hidden):
            raise ForbiddenError(f"reading {path!r} is not allowed: the caller hid it")
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


# ---------------------------------------------------------------------------------------------
# The child's start and the program's run.


def _set_limits(memory_mb: float, timeout_s: float, confined: bool) -> None:
    """Soft and hard limits alike, so the program cannot raise them again."""
    import resource

    address_space = int((memory_mb + INTERPRETER_HEADROOM_MB) * 2**20)
    cpu_seconds = math.ceil(timeout_s) + 1
    limits = {
        resource.RLIMIT_AS: (address_space, address_space),
        resource.RLIMIT_CPU: (cpu_seconds, cpu_seconds + 1),
        resource.RLIMIT_FSIZE: (MAX_FILE_BYTES, MAX_FILE_BYTES),
        resource.RLIMIT_CORE: (0, 0),
        resource.RLIMIT_NOFILE: (MAX_OPEN_FILES, MAX_OPEN_FILES),
    }
    if confined:
        limits[resource.RLIMIT_NPROC] = (MAX_PROCESSES, MAX_PROCESSES)
    for kind, limit in limits.items():
        resource.setrlimit(kind, limit)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a too-large write raises OSError instead


def _read_payload() -> dict[str, Any]:
    """The program and its facts from standard input; then standard input is /dev/null."""
    chunks = []
    while chunk := os.read(0, 65536):
        chunks.append(chunk)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    return json.loads(b"".join(chunks))


def child_main(folder: str, status_fd: str, memory_mb: str, timeout_s: str, layers: str) -> int:
    """Set the limits and layers and run the program; return the exit status."""
    import _posixsubprocess
    import builtins
    import ctypes  # noqa: F401  numpy imports it; loading it (ctypes.dlopen) must precede the guard
    import linecache
    import random
    import types

    wanted = set(layers.split(","))
    payload = _read_payload()
    _set_limits(float(memory_mb), float(timeout_s), "confined" in wanted)
    os.environ.pop("PWD", None)  # bubblewrap's --chdir sets it; the unconfined child has none
    os.environ.update(dict.fromkeys(_THREAD_VARIABLES, "1"), TMPDIR=folder)
    source = payload["code"]
    linecache.cache[PROGRAM_NAME] = (len(source), None, source.splitlines(True), PROGRAM_NAME)
    program = types.ModuleType("__main__")
    program.__dict__.update(facts=payload["facts"], __builtins__=builtins)
    sys.modules["__main__"] = program
    random.seed(RANDOM_SEED)
    if "seccomp" in wanted:
        _install_seccomp()
    if "hook" in wanted:
        _posixsubprocess.fork_exec = _refuse_fork_exec  # it raises no audit event of its own
        sys.addaudithook(_Guard(folder, payload.get("hidden", ())))
    return _run(source, program, int(status_fd))


def _run(source: str, program: Any, status_fd: int) -> int:
    """Run the program as ``__main__``, report how it ended on the status pipe."""
    reserve = bytearray(2**20)  # freed on MemoryError, so the traceback can still be written
    outcome, summary, exit_status = "ok", "", 0
    os.write(status_fd, STARTED)  # the parent's clock for the program starts now
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
        os.write(status_fd, json.dumps({"outcome": outcome, "summary": summary}).encode())
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
    sys.exit(child_main(*sys.argv[1:]))
