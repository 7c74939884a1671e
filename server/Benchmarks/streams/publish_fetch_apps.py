"""The apps of `publish_fetch.py`: N streams and a pool of keep-alive fetch connections in one epoll loop.

Each app is a stream socket with its own context and its own fetch request, built before the publish. When an
app's stream delivers the `version` event of the new version (read from the socket, the chunked framing
decoded), the app's fetch goes out on an idle connection of the pool (or waits for one); the answer counts when
it is complete, a 200 carrying the new `templateVersion`. One connection carries one fetch at a time, as behind
a load balancer's pool, never pipelined.

No asyncio and no per-app task: a callback, a future and a task per event and per fetch cost the Python
process more than the server spends on the fetch, and that time was part of the figure. Each arrival is also
stamped by the kernel (`SO_TIMESTAMPNS`), so the report can say when the server had written each event, apart
from when this process got round to reading it.
"""

from __future__ import annotations

import collections
import errno
import select
import socket
import struct
import time

SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # Linux; the control message has the same number
ANCILLARY = socket.CMSG_SPACE(16)


class ChunkedStream:
    """One app's stream: the response head, then chunks, decoded into the SSE text read so far."""

    __slots__ = ("sock", "index", "raw", "text", "head_done", "chunk_left", "failed")

    def __init__(self, sock: socket.socket, index: int) -> None:
        self.sock = sock
        self.index = index
        self.raw = b""
        self.text = b""
        self.head_done = False
        self.chunk_left = 0  # data bytes of the current chunk still to come, then its CRLF (2 more)
        self.failed = ""

    def feed(self, data: bytes) -> None:
        raw = self.raw + data
        if not self.head_done:
            end = raw.find(b"\r\n\r\n")
            if end < 0:
                self.raw = raw
                return
            head = raw[:end]
            if not head.startswith(b"HTTP/1.1 200") or b"chunked" not in head.lower():
                self.failed = head.split(b"\r\n", 1)[0].decode("latin-1")
                self.raw = b""
                return
            self.head_done = True
            raw = raw[end + 4:]
        text = []
        while raw:
            if self.chunk_left > 2:
                take = raw[:self.chunk_left - 2]
                text.append(take)
                self.chunk_left -= len(take)
                raw = raw[len(take):]
            elif self.chunk_left > 0:  # the CRLF after a chunk's data
                skip = min(self.chunk_left, len(raw))
                self.chunk_left -= skip
                raw = raw[skip:]
            else:
                end = raw.find(b"\r\n")
                if end < 0:
                    break
                self.chunk_left = int(raw[:end].split(b";", 1)[0], 16) + 2
                raw = raw[end + 2:]
        self.raw = raw
        if text:
            self.text += b"".join(text)

    def has_version(self, event: bytes) -> bool:
        """Whether a complete `version` event with this id (`event` = `b"id: N"`) has arrived; the text read
        before it is dropped."""
        while True:
            end = self.text.find(b"\n\n")
            if end < 0:
                return False
            block, self.text = self.text[:end], self.text[end + 2:]
            lines = block.split(b"\n")
            if b"event: version" in lines and event in lines:
                return True


def open_streams(port: int, request: bytes, count: int, version: int, concurrency: int = 200,
                 timeout: float = 60.0) -> tuple[list[ChunkedStream], int]:
    """Opens `count` streams, at most `concurrency` connecting at once, each until its first `version` event
    (the version published now). Returns the open streams and how many failed."""
    epoll = select.epoll()
    opening: dict[int, ChunkedStream] = {}
    opened: list[ChunkedStream] = []
    failed = 0
    started = 0
    first = b"id: %d" % version
    deadline = time.monotonic() + timeout
    while (started < count or opening) and time.monotonic() < deadline:
        while started < count and len(opening) < concurrency:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setblocking(False)
            code = sock.connect_ex(("127.0.0.1", port))
            if code not in (0, errno.EINPROGRESS):
                sock.close()
                failed += 1
                started += 1
                continue
            stream = ChunkedStream(sock, started)
            opening[sock.fileno()] = stream
            epoll.register(sock.fileno(), select.EPOLLOUT)
            started += 1
        for fd, mask in epoll.poll(0.5):
            stream = opening[fd]
            done = False
            if mask & select.EPOLLOUT:
                if stream.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                    stream.failed = "connect"
                else:
                    stream.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
                    stream.sock.send(request)  # a few hundred bytes into an empty socket buffer
                    epoll.modify(fd, select.EPOLLIN)
            elif mask & (select.EPOLLIN | select.EPOLLHUP | select.EPOLLERR):
                try:
                    data = stream.sock.recv(65536)
                except OSError:
                    data = b""
                if not data:
                    stream.failed = stream.failed or "closed"
                else:
                    stream.feed(data)
                    done = not stream.failed and stream.has_version(first)
            if done or stream.failed:
                epoll.unregister(fd)
                del opening[fd]
                if done:
                    opened.append(stream)
                else:
                    stream.sock.close()
                    failed += 1
    for fd, stream in opening.items():
        epoll.unregister(fd)
        stream.sock.close()
        failed += 1
    epoll.close()
    return opened, failed


class FetchConnection:
    """A keep-alive connection of the pool: one fetch in flight at a time."""

    __slots__ = ("sock", "app", "received")

    def __init__(self, port: int, warm_up: bytes) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.app = -1
        self.received = b""
        # A first request: the server closes a new connection that stays idle before its first one.
        self.sock.sendall(warm_up)
        while self.answer() is None:
            self.received += self.sock.recv(65536)
        self.received = b""
        self.sock.setblocking(False)

    def send(self, app: int, request: bytes) -> None:
        self.app = app
        self.sock.send(request)  # one small request into an idle connection's empty send buffer

    def answer(self) -> tuple[int, bytes] | None:
        """The status and body of the answer read so far, once it is complete."""
        end = self.received.find(b"\r\n\r\n")
        if end < 0:
            return None
        head = self.received[:end].lower()
        length = 0
        at = head.find(b"\r\ncontent-length:")
        if at >= 0:
            stop = head.find(b"\r\n", at + 2)
            length = int(head[at + 17:stop if stop >= 0 else len(head)])
        if len(self.received) < end + 4 + length:
            return None
        status = int(self.received[9:12])
        body = self.received[end + 4:end + 4 + length]
        self.received = self.received[end + 4 + length:]
        return status, body


def run(port: int, streams: list[ChunkedStream], pool: list[FetchConnection], fetches: list[bytes],
        version: int, marker: bytes, timeout: float) -> dict:
    """Waits for every stream's event of `version` and fetches each app's answer; returns the arrival times
    (`time.perf_counter()`): `events` when read here, `stamped` when the kernel received them, `answered`
    when each app's answer was complete, and the wrong answers."""
    epoll = select.epoll()
    by_fd: dict[int, ChunkedStream] = {}
    for stream in streams:
        by_fd[stream.sock.fileno()] = stream
        epoll.register(stream.sock.fileno(), select.EPOLLIN)
    connections = {connection.sock.fileno(): connection for connection in pool}
    for fd in connections:
        epoll.register(fd, select.EPOLLIN)
    idle = list(pool)
    waiting: collections.deque[int] = collections.deque()
    event = b"id: %d" % version
    events: list[float] = []
    stamped: list[float] = []
    answered: list[float] = []
    wrong: list[str] = []
    # The kernel stamps arrivals with the wall clock; the offset turns them into perf_counter() readings.
    offset = time.perf_counter() - time.time_ns() / 1e9
    remaining = len(streams)
    deadline = time.perf_counter() + timeout
    while len(answered) + len(wrong) < len(streams) and time.perf_counter() < deadline:
        for fd, _ in epoll.poll(0.05):
            connection = connections.get(fd)
            if connection is None:
                stream = by_fd[fd]
                try:
                    data, ancillary, _, _ = stream.sock.recvmsg(65536, ANCILLARY)
                except BlockingIOError:
                    continue
                now = time.perf_counter()
                if not data:
                    epoll.unregister(fd)
                    wrong.append(f"stream {stream.index} closed before its event")
                    remaining -= 1
                    continue
                stream.feed(data)
                if not stream.has_version(event):
                    continue
                epoll.unregister(fd)
                remaining -= 1
                events.append(now)
                for level, kind, payload in ancillary:
                    if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(payload) >= 16:
                        seconds, nanoseconds = struct.unpack("qq", payload[:16])
                        stamped.append(seconds + nanoseconds / 1e9 + offset)
                if idle:
                    idle.pop().send(stream.index, fetches[stream.index])
                else:
                    waiting.append(stream.index)
                continue
            try:
                data = connection.sock.recv(65536)
            except BlockingIOError:
                continue
            if not data:
                raise RuntimeError("the server closed a fetch connection")
            connection.received += data
            result = connection.answer()
            if result is None:
                continue
            status, body = result
            # A byte search, not a JSON parse: this process's time is part of the figure.
            if status == 200 and marker in body:
                answered.append(time.perf_counter())
            else:
                wrong.append(f"{status} {body[:120]!r}")
            if waiting:
                connection.send(waiting[0], fetches[waiting.popleft()])
            else:
                idle.append(connection)
    epoll.close()
    return {"answered": answered, "events": events, "stamped": stamped, "wrong": len(wrong),
            "wrong_examples": wrong[:3], "streams": len(streams)}
