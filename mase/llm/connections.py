"""The offline server's connections: whole requests read by one thread, answered by a few.

A thread per connection lets a client that trickles its request a byte at a time pin a
thread for as long as it likes (200 such sockets held 202 threads of the old
``ThreadingHTTPServer``). Here one thread watches every open connection with a selector and
buffers each request until all of it has arrived, the head and every byte its
``Content-Length`` announces; only then does a worker of a small pool answer it. A stalled or
trickling client costs a socket and its buffer, never a thread, and:

* the whole request must arrive within ``request_timeout`` seconds of its first byte (a
  deadline, not a per-byte timeout, so a byte every second does not keep it alive);
* a connection that sends nothing for ``idle_timeout`` seconds (between requests, or in the
  middle of one) is dropped;
* at most ``max_connections`` are open at once; when a new one arrives at the bound, the
  connection waiting longest for its request to arrive is dropped to make room, and only when
  every open connection is being answered is the new one refused (``503``);
* a request head over :data:`MAX_HEAD_BYTES` is refused (``431``) unread, and requests are
  held in memory up to :data:`MAX_BUFFERED_BYTES` in all (past it, ``503``);
* a reply must be taken by the client within ``request_timeout`` seconds of its first byte
  (else ``idle_timeout``), so a client that reads slowly holds a worker no longer.

A request whose head has arrived but whose body ran out of time, or ended early, still goes to
a worker, which answers that the body was cut short. One whose head never arrived is closed
without a reply, as ``http.server`` does. What a worker answers and how is the caller's
``handle``; it writes to the socket itself (blocking, within the reply's deadline above) and
says whether the connection may carry another request.

Why not uvicorn (with Starlette): measured against uvicorn 0.55 (h11), 200 sockets trickling a
byte every 0.2 s with ``timeout_keep_alive=1`` were all still open after 8 s (that timeout
applies between requests, and a byte restarts it), and with ``limit_concurrency=100`` every
ordinary request got ``503`` meanwhile; it would need this deadline all the same. It is not
among MASE's dependencies either, and a server there took about 0.3 s to start and stop (plus
0.6 s to import), where this one takes about 3 ms, which every test's server pays.
"""

from __future__ import annotations

import contextlib
import io
import json
import queue
import selectors
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from typing import Any

from mase.llm.wire import MAX_BODY_BYTES, error_object

#: The longest request head (request line and headers) read; a longer one is answered 431.
MAX_HEAD_BYTES = 64 * 2**10

#: The most bytes of requests held at once, over every connection; the connection whose bytes
#: would pass it is answered 503, so many large bodies at once cannot exhaust memory.
MAX_BUFFERED_BYTES = 256 * 2**20

#: Answers one whole request on ``sock``: ``(sock, request bytes, client address)`` ->
#: ``(keep the connection open, the bytes after the request)``; :meth:`RequestHandler.answer`.
Handle = Callable[[socket.socket, bytes, tuple], tuple[bool, bytes]]

_RECV_BYTES = 2**16


@dataclass(eq=False)
class _Connection:
    """One open connection and the request arriving on it."""

    sock: socket.socket
    address: tuple
    buffer: bytearray = field(default_factory=bytearray)
    first_byte: float | None = None  # when the request now arriving began
    last_byte: float = field(default_factory=time.monotonic)
    answering: bool = False  # a worker has it
    continued: bool = False  # "100 Continue" sent for the request now arriving


class Connections:
    """A listening socket, the thread that reads requests off it, and the workers that answer.

    Args:
        address: ``(host, port)`` to bind; port 0 picks a free one.
        handle: answers one whole request (see :data:`Handle`).
        idle_timeout: seconds a connection may send nothing; ``None``: no limit.
        request_timeout: seconds from a request's first byte to its last; ``None``: no limit.
        max_connections: connections open at once.
        workers: requests answered at once (threads, started as they are needed).
    """

    def __init__(
        self,
        address: tuple[str, int],
        handle: Handle,
        idle_timeout: float | None,
        request_timeout: float | None,
        max_connections: int,
        workers: int,
    ):
        self.handle = handle
        self.idle_timeout = idle_timeout
        self.request_timeout = request_timeout
        self.max_connections = max_connections
        self.workers = workers
        self._listener = socket.create_server(address, backlog=1024)
        self._listener.setblocking(False)
        self.server_address = self._listener.getsockname()[:2]
        self._selector = selectors.DefaultSelector()
        self._wake_read, self._wake_write = socket.socketpair()
        self._wake_read.setblocking(False)
        self._wake_write.setblocking(False)  # a full pipe already says "wake up"
        self._selector.register(self._listener, selectors.EVENT_READ, "accept")
        self._selector.register(self._wake_read, selectors.EVENT_READ, "wake")
        self._open: dict[socket.socket, _Connection] = {}
        self._returned: queue.SimpleQueue[tuple[_Connection, bool, bytes]] = queue.SimpleQueue()
        self._jobs: queue.SimpleQueue[_Connection | None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._idle_workers = 0
        self._buffered = 0  # bytes in the buffers of connections being read
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._stopped = threading.Event()
        self._closed = False

    # -- the reading thread -------------------------------------------------------------------

    def serve_forever(self) -> None:
        """Read and dispatch requests until :meth:`shutdown`."""
        self._stopped.clear()
        try:
            while not self._stop.is_set():
                for key, _ in self._selector.select(self._wait()):
                    if key.data == "accept":
                        self._accept()
                    elif key.data == "wake":
                        self._take_back()
                    else:
                        self._receive(key.data)
                self._expire(time.monotonic())
        finally:
            self._stopped.set()

    def _wait(self) -> float | None:
        """Seconds until the next deadline of a connection being read (``None``: none)."""
        due = [d for c in self._open.values() if not c.answering and (d := self._due(c))]
        return max(0.0, min(due) - time.monotonic()) if due else None

    def _due(self, conn: _Connection) -> float | None:
        """When ``conn`` runs out of time: its idle timeout or its request's deadline."""
        due = []
        if self.idle_timeout is not None:
            due.append(conn.last_byte + self.idle_timeout)
        if self.request_timeout is not None and conn.first_byte is not None:
            due.append(conn.first_byte + self.request_timeout)
        return min(due) if due else None

    def _accept(self) -> None:
        while True:
            try:
                sock, address = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:  # out of file descriptors, or the peer gave up already
                return
            sock.setblocking(False)
            # without it every small reply waits ~40 ms for the client's delayed ACK
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if len(self._open) >= self.max_connections and not self._make_room():
                self._refuse(sock, 503, "the server is answering as many connections as it takes")
                continue
            conn = self._open[sock] = _Connection(sock, address)
            self._selector.register(sock, selectors.EVENT_READ, conn)

    def _make_room(self) -> bool:
        """Drop the connection waiting longest for its request; False if all are answered."""
        waiting = [c for c in self._open.values() if not c.answering]
        if not waiting:
            return False
        self._close(min(waiting, key=lambda c: c.first_byte or c.last_byte))
        return True

    def _receive(self, conn: _Connection) -> None:
        try:
            data = conn.sock.recv(_RECV_BYTES)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        now = time.monotonic()
        if not data:  # the client hung up, or half-closed after what it sent
            if _head_end(conn.buffer) is not None:
                self._dispatch(conn)  # the worker says the body was cut short
            else:
                self._close(conn)
            return
        if self._buffered + len(data) > MAX_BUFFERED_BYTES:
            self._forget(conn)
            self._refuse(conn.sock, 503, "the server holds as many request bytes as it takes")
            return
        if conn.first_byte is None:
            conn.first_byte = now
        conn.last_byte = now
        conn.buffer += data
        self._buffered += len(data)
        self._check(conn)

    def _check(self, conn: _Connection) -> None:
        """Dispatch ``conn``'s request if all of it is here, refuse an oversize head."""
        complete = _complete(conn.buffer)
        if complete is None and len(conn.buffer) > MAX_HEAD_BYTES:
            self._forget(conn)
            self._refuse(conn.sock, 431, f"the request head is over {MAX_HEAD_BYTES} bytes")
        elif complete:
            self._dispatch(conn)
        elif complete is False and not conn.continued:
            # curl asks before a large body and waits a second for leave to send it
            head = bytes(conn.buffer[: _head_end(conn.buffer)]).lower()
            if b"\nexpect: 100-continue" in head:
                conn.continued = True
                with contextlib.suppress(OSError):
                    conn.sock.send(b"HTTP/1.1 100 Continue\r\n\r\n")

    def _expire(self, now: float) -> None:
        for conn in [c for c in self._open.values() if not c.answering]:
            due = self._due(conn)
            if due is None or due > now:
                continue
            if conn.buffer and _head_end(conn.buffer) is not None:
                self._dispatch(conn)  # the head arrived: the worker names the missing bytes
            else:
                self._close(conn)

    def _dispatch(self, conn: _Connection) -> None:
        self._selector.unregister(conn.sock)
        self._buffered -= len(conn.buffer)
        conn.answering = True
        with self._lock:
            idle = self._idle_workers > 0
            if idle:
                self._idle_workers -= 1
            elif len(self._threads) < self.workers:
                thread = threading.Thread(
                    target=self._work, name="mase-offline-worker", daemon=True
                )
                self._threads.append(thread)
                thread.start()
        self._jobs.put(conn)

    def _take_back(self) -> None:
        """Connections the workers are done with: read on, or close."""
        with contextlib.suppress(BlockingIOError):
            self._wake_read.recv(4096)
        while True:
            try:
                conn, keep, rest = self._returned.get_nowait()
            except queue.Empty:
                return
            if not keep or self._stop.is_set():
                self._close(conn, registered=False)
                continue
            conn.answering = conn.continued = False
            conn.buffer = bytearray(rest)
            self._buffered += len(rest)
            conn.last_byte = time.monotonic()
            conn.first_byte = conn.last_byte if rest else None
            conn.sock.setblocking(False)
            self._selector.register(conn.sock, selectors.EVENT_READ, conn)
            self._check(conn)

    # -- the workers --------------------------------------------------------------------------

    def _work(self) -> None:
        while (conn := self._jobs.get()) is not None:
            keep, rest = False, b""
            try:
                # the whole reply's budget: the writer counts it down from its first byte
                conn.sock.settimeout(self.request_timeout or self.idle_timeout)
                keep, rest = self.handle(conn.sock, bytes(conn.buffer), conn.address)
            except Exception:  # a bug in the handler ends this connection, not the server
                keep = False
            self._returned.put((conn, keep, rest))
            with contextlib.suppress(OSError):
                self._wake_write.send(b"x")
            with self._lock:
                self._idle_workers += 1

    # -- closing ------------------------------------------------------------------------------

    def _refuse(self, sock: socket.socket, status: int, message: str) -> None:
        """Answer ``status`` as far as the socket takes it at once, and close it."""
        body = json.dumps(error_object(status, message)).encode()
        head = (
            f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        )
        with contextlib.suppress(OSError):
            sock.send(head.encode() + body)
        sock.close()

    def _close(self, conn: _Connection, registered: bool = True) -> None:
        if registered:
            with contextlib.suppress(KeyError, ValueError):
                self._selector.unregister(conn.sock)
        self._forget(conn)
        conn.sock.close()

    def _forget(self, conn: _Connection) -> None:
        if conn.sock in self._open and self._open[conn.sock] is conn:
            with contextlib.suppress(KeyError, ValueError):
                self._selector.unregister(conn.sock)
            del self._open[conn.sock]
            if not conn.answering:
                self._buffered -= len(conn.buffer)
            conn.buffer = bytearray()

    def shutdown(self) -> None:
        """Stop :meth:`serve_forever` (from another thread) and wait until it has."""
        self._stop.set()
        with contextlib.suppress(OSError):
            self._wake_write.send(b"x")
        self._stopped.wait()

    def server_close(self) -> None:
        """Close the listener and every connection; idle workers end, busy ones when done."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        for conn in list(self._open.values()):
            # a worker's connection too: its writes then fail and it returns
            with contextlib.suppress(OSError):
                conn.sock.shutdown(socket.SHUT_RDWR)
            conn.sock.close()
        self._open.clear()
        for _ in self._threads:
            self._jobs.put(None)
        self._selector.close()
        self._listener.close()
        self._wake_read.close()
        self._wake_write.close()


class RequestHandler(BaseHTTPRequestHandler):
    """``http.server``'s handler for one request that has all arrived (a :data:`Handle`).

    Subclass it with ``do_GET``/``do_POST`` as usual; the request is read from the buffered
    bytes, the reply written straight to the socket. Quiet: no line per request on stderr.
    """

    protocol_version = "HTTP/1.1"  # keep-alive: the openai client reuses connections

    def __init__(self, sock: socket.socket, data: bytes, address: tuple):
        # not BaseRequestHandler's __init__, which reads a connection to its end: this
        # answers one request, and the connection goes back to the reading thread
        self.request = self.connection = sock
        self.client_address = address
        self.server = None
        self.rfile = io.BytesIO(data)
        self.wfile = _SocketWriter(sock)
        self.close_connection = True

    @classmethod
    def answer(cls, sock: socket.socket, data: bytes, address: tuple) -> tuple[bool, bytes]:
        """Answer the request in ``data``: whether the connection stays open, what follows it."""
        handler = cls(sock, data, address)
        try:
            handler.handle_one_request()
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            # a client that hung up (e.g. timed out) or stopped reading is not an error
            handler.close_connection = True
        return not handler.close_connection, handler.rfile.read()

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet: a test or a demo does not want a line per request on stderr."""


class _SocketWriter(io.RawIOBase):
    """Writes straight to the socket (``http.server``'s ``wfile``).

    The socket's timeout is the budget of the whole reply, from its first byte: a client that
    reads a stream slowly gets ``TimeoutError``, not a worker for as long as it likes.
    """

    def __init__(self, sock: socket.socket):
        self._sock = sock
        self._budget = sock.gettimeout()
        self._deadline: float | None = None

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        if self._budget is not None:
            now = time.monotonic()
            if self._deadline is None:
                self._deadline = now + self._budget
            if now >= self._deadline:
                raise TimeoutError("the client did not take the reply in time")
            self._sock.settimeout(self._deadline - now)
        self._sock.sendall(data)
        return len(data)


def _head_end(buffer: bytearray) -> int | None:
    """Where the request's body starts (after the blank line ending its head), if it has come."""
    ends = [(i, n) for sep, n in ((b"\r\n\r\n", 4), (b"\n\n", 2)) if (i := buffer.find(sep)) >= 0]
    if not ends:
        return None
    at, length = min(ends)
    return at + length


def _complete(buffer: bytearray) -> bool | None:
    """Whether the request in ``buffer`` is all here (``None``: its head is not).

    A head the worker will refuse (a chunked body, a ``Content-Length`` that is not a number
    or is over :data:`~mase.llm.wire.MAX_BODY_BYTES`) is complete: its body is never read.
    """
    start = _head_end(buffer)
    if start is None:
        return None
    length = b"0"
    for line in bytes(buffer[:start]).split(b"\n")[1:]:
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"transfer-encoding":
            return True
        if name == b"content-length":
            length = value.strip()
            break
    if not length.isdigit() or int(length) > MAX_BODY_BYTES:
        return True
    return len(buffer) - start >= int(length)
