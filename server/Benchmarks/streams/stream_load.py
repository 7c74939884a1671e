#!/usr/bin/env python3
"""Idle realtime streams: memory per stream and publish-to-last-event latency.

Starts one `remote-config serve` on 127.0.0.1 with an embedded PostgreSQL in a temporary data dir, opens
N Server-Sent-Events streams to it (`GET /v1/projects/{p}/remoteConfig:stream`), measures the server's
RSS before and after, publishes a new version and measures, per stream, the time from sending the PUT to
receiving `id: 2`. Loopback only, standard library only, bounded in time; it always closes every
connection, stops the server with SIGTERM and removes the data dir.

    python3 server/Benchmarks/streams/stream_load.py --binary server/.build/debug/remote-config --streams 10000

See README.md next to this file.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import re
import resource
import secrets
import shutil
import socket
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

HOST = "127.0.0.1"  # loopback only: never configurable
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # Linux; the control message has the same number


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------------------------------------
# Process helpers


def raise_fd_limit(wanted: int) -> tuple[int, int]:
    """Raises RLIMIT_NOFILE towards `wanted` (the server we start inherits it). Returns (soft, hard)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if target > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError) as error:
            log(f"cannot raise the fd limit to {target}: {error}")
    return resource.getrlimit(resource.RLIMIT_NOFILE)


def status_kib(pid: int, name: str) -> int:
    """A `... kB` line of /proc/<pid>/status, in KiB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(name + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {name} for pid {pid}")


def rss_kib(pid: int) -> int:
    """VmRSS of `pid` in KiB."""
    return status_kib(pid, "VmRSS")


def open_fds(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return -1


def fd_limit_of(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/limits") as limits:
            for line in limits:
                if line.startswith("Max open files"):
                    parts = line.split()
                    return f"{parts[3]}/{parts[4]}"
    except OSError:
        pass
    return "?"


def cpu_seconds(pid: int) -> float:
    """utime + stime of `pid` in seconds."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


class Server:
    """One `remote-config serve --port 0` with an embedded cluster in a temporary data dir."""

    def __init__(self, binary: str, admin_token: str, keep_data: bool, log_level: str = "warning") -> None:
        self.binary = binary
        self.log_level = log_level
        self.admin_token = admin_token
        self.keep_data = keep_data
        # 0755: as root the embedded cluster runs as the `postgres` user, which must be able to enter the
        # data dir, or the server keeps the cluster in /var/lib/remote-config/<hash> (which we'd leave behind).
        self.data_dir = tempfile.mkdtemp(prefix="rc-stream-bench-")
        os.chmod(self.data_dir, 0o755)
        self.log_path = os.path.join(tempfile.gettempdir(), os.path.basename(self.data_dir) + ".log")
        self.process: subprocess.Popen | None = None
        self.port: int | None = None
        self.exit_status: int | None = None

    def start(self, timeout: float) -> None:
        env = dict(os.environ, RC_ADMIN_TOKEN=self.admin_token, RC_LOG_LEVEL=self.log_level)
        env.pop("RC_DATABASE_URL", None)
        env.pop("DATABASE_URL", None)
        self.log_file = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [self.binary, "serve", "--host", HOST, "--port", "0", "--data-dir", self.data_dir],
            stdout=self.log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
        )
        deadline = time.monotonic() + timeout
        pattern = re.compile(rb"remote-config listening on http://127\.0\.0\.1:(\d+)")
        while time.monotonic() < deadline:
            with open(self.log_path, "rb") as output:
                match = pattern.search(output.read())
            if match:
                self.port = int(match.group(1))
                return
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode} at start:\n{self.tail()}")
            time.sleep(0.1)
        raise RuntimeError(f"the server did not print its port within {timeout:.0f} s:\n{self.tail()}")

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def tail(self, lines: int = 30) -> str:
        try:
            with open(self.log_path, "rb") as output:
                text = output.read().decode("utf-8", "replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def stop(self, timeout: float = 30.0) -> int | None:
        """SIGTERM, wait; SIGKILL if it does not exit in time. Returns the exit status (None = killed)."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.exit_status = self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                log(f"the server did not exit within {timeout:.0f} s of SIGTERM: SIGKILL")
                self.process.kill()
                self.process.wait()
                self.exit_status = None
        else:
            self.exit_status = self.process.returncode
        self.log_file.close()
        return self.exit_status

    def cleanup(self) -> None:
        if self.keep_data:
            log(f"kept the data dir {self.data_dir}")
            return
        # If the embedded cluster outlived the server (it should not), stop it before removing its files.
        pgdata = os.path.join(self.data_dir, "postgres", "data")
        pid_file = os.path.join(pgdata, "postmaster.pid")
        if os.path.exists(pid_file):
            try:
                with open(pid_file) as f:
                    postmaster = int(f.readline().strip())
                os.kill(postmaster, 0)
                log(f"PostgreSQL (pid {postmaster}) still runs after the server stopped: stopping it")
                os.kill(postmaster, signal.SIGTERM)
                for _ in range(100):
                    time.sleep(0.1)
                    os.kill(postmaster, 0)
            except (OSError, ValueError):
                pass
        shutil.rmtree(self.data_dir, ignore_errors=True)


# ----------------------------------------------------------------------------------------------------------
# Plain HTTP/1.1 over asyncio (admin calls and the publish)


async def http_request(port: int, method: str, path: str, headers: dict[str, str], body: bytes | None = None,
                       on_sent=None, timeout: float = 30.0) -> tuple[int, dict[str, str], bytes]:
    async def run() -> tuple[int, dict[str, str], bytes]:
        reader, writer = await asyncio.open_connection(HOST, port)
        try:
            lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}:{port}", "Connection: close"]
            lines += [f"{name}: {value}" for name, value in headers.items()]
            if body is not None:
                lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
            if on_sent:
                on_sent()
            writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + (body or b""))
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
            status_line, *header_lines = head.decode("latin-1").split("\r\n")
            status = int(status_line.split()[1])
            response_headers = {}
            for line in header_lines:
                if ":" in line:
                    name, value = line.split(":", 1)
                    response_headers[name.strip().lower()] = value.strip()
            if "content-length" in response_headers:
                payload = await reader.readexactly(int(response_headers["content-length"]))
            elif response_headers.get("transfer-encoding", "").lower() == "chunked":
                payload = b""
                while True:
                    size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                    if size == 0:
                        await reader.readuntil(b"\r\n")
                        break
                    payload += await reader.readexactly(size)
                    await reader.readexactly(2)
            else:
                payload = await reader.read()
            return status, response_headers, payload
        finally:
            writer.close()

    return await asyncio.wait_for(run(), timeout)


async def admin(port: int, token: str, method: str, path: str, document: dict | None = None,
                headers: dict[str, str] | None = None, expect: tuple[int, ...] = (200, 201)) -> dict:
    all_headers = {"Authorization": f"Bearer {token}"}
    all_headers.update(headers or {})
    body = json.dumps(document).encode() if document is not None else None
    status, _, payload = await http_request(port, method, path, all_headers, body)
    if status not in expect:
        raise RuntimeError(f"{method} {path}: {status} {payload[:500]!r}")
    return json.loads(payload) if payload else {}


class KeepAliveConnection:
    """One HTTP/1.1 connection opened ahead of time and reused: at the server's connection limit a new one
    cannot be accepted, but what an operator or an app already holds must keep working."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(HOST, self.port)

    async def request(self, method: str, path: str, headers: dict[str, str], body: bytes | None = None,
                      on_sent=None, timeout: float = 30.0) -> tuple[int, bytes]:
        assert self.reader and self.writer
        lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}:{self.port}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        if body is not None:
            lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
        if on_sent:
            on_sent()
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + (body or b""))
        await self.writer.drain()

        async def read() -> tuple[int, bytes]:
            head = await self.reader.readuntil(b"\r\n\r\n")
            status_line, *header_lines = head.decode("latin-1").split("\r\n")
            length = 0
            for line in header_lines:
                if line.lower().startswith("content-length:"):
                    length = int(line.split(":", 1)[1])
            return int(status_line.split()[1]), await self.reader.readexactly(length)

        return await asyncio.wait_for(read(), timeout)

    def close(self) -> None:
        if self.writer:
            self.writer.close()


def hold_idle_connections(port: int, count: int, refused_within: float) -> int:
    """`--hold-idle`: a separate process (its own open-files limit, so the load is not capped by this
    script's) opens `count` connections that send nothing, one after another, prints one JSON line saying
    how many the server closed within `refused_within` seconds and how fast, then holds the others until
    its stdin closes."""
    import selectors
    import socket

    raise_fd_limit(65536)
    sockets: list[tuple[socket.socket, float]] = []
    connect_failed = 0
    started = time.perf_counter()
    for _ in range(count):
        # Bounded: once the server's backlog is full, connects time out; a few of those say enough.
        if connect_failed >= 20 or time.perf_counter() - started > 60:
            break
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.settimeout(refused_within)
        try:
            sock.connect((HOST, port))
        except OSError:
            connect_failed += 1
            sock.close()
            continue
        sock.setblocking(False)
        sockets.append((sock, time.perf_counter()))
    opened_in = time.perf_counter() - started
    # Which ones did the server close (EOF or reset), and how long after connecting?
    selector = selectors.DefaultSelector()
    for sock, at in sockets:
        selector.register(sock, selectors.EVENT_READ, at)
    closed: list[float] = []
    deadline = time.perf_counter() + refused_within
    while time.perf_counter() < deadline and len(closed) < len(sockets):
        for key, _ in selector.select(timeout=max(0.0, deadline - time.perf_counter())):
            sock = key.fileobj
            try:
                data = sock.recv(4096)
            except OSError:
                data = b""
            if not data:
                closed.append(time.perf_counter() - key.data)
                selector.unregister(sock)
                sock.close()
    closed.sort()
    print(json.dumps({
        "attempted": len(sockets) + connect_failed, "connect_failed": connect_failed, "connected": len(sockets),
        "closed_by_server": len(closed), "held": len(sockets) - len(closed), "opened_in": opened_in,
        "close_p50": closed[len(closed) // 2] if closed else None, "close_max": closed[-1] if closed else None,
    }), flush=True)
    sys.stdin.read()  # hold the rest until the benchmark is done with them
    return 0


# ----------------------------------------------------------------------------------------------------------
# One SSE stream as an asyncio Protocol: cheap per connection, timestamps taken on arrival


@dataclass
class Tally:
    opened: int = 0         # 200 + first event received
    failed: int = 0         # connect/HTTP errors while opening
    closed_early: int = 0   # closed by the server (or reset) while it should be open
    errors: dict[str, int] = field(default_factory=dict)

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


ALL_STREAMS: list["SSEStream"] = []  # every stream ever opened, so all of them are closed whatever happens


class SSEStream(asyncio.Protocol):
    def __init__(self, request: bytes, tally: Tally, watch_version: int | None = None) -> None:
        self.request = request
        self.tally = tally
        self.transport: asyncio.Transport | None = None
        self.buffer = b""          # raw bytes not yet decoded (headers or chunk framing)
        self.sse = b""             # decoded body not yet split into events
        self.headers_done = False
        self.chunked = False
        self.chunk_left = 0        # data bytes of the current chunk still to come
        self.crlf_left = 0         # bytes of the CRLF after a chunk's data still to skip
        self.status = 0
        self.retry_seen = False
        self.keepalives = 0
        self.versions: list[int] = []
        self.arrival: dict[int, float] = {}   # version -> perf_counter() when its event was complete
        self.ready = asyncio.get_running_loop().create_future()
        self.watch: dict[int, asyncio.Future] = {}
        self.closing = False       # we closed it on purpose
        self.lost = False

    # -- asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        ALL_STREAMS.append(self)
        # The kernel stamps each arriving segment, so the notify latency does not include the time this
        # single-threaded script takes to get round to thousands of sockets (see `receive_stamped`).
        self.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self.transport.write(self.request)

    def data_received(self, data: bytes, now: float | None = None) -> None:
        now = time.perf_counter() if now is None else now
        self.buffer += data
        if not self.headers_done:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = self.buffer[:end].decode("latin-1")
            self.buffer = self.buffer[end + 4:]
            self.headers_done = True
            status_line, *lines = head.split("\r\n")
            self.status = int(status_line.split()[1])
            lowered = [line.lower() for line in lines]
            self.chunked = any(l.startswith("transfer-encoding:") and "chunked" in l for l in lowered)
            if self.status != 200:
                self.fail(f"HTTP {self.status}")
                return
        if self.chunked:
            self.decode_chunks()
        else:
            self.sse += self.buffer
            self.buffer = b""
        self.parse_events(now)

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        if not self.closing:
            if not self.ready.done():
                self.fail(f"closed before the first event ({type(exc).__name__ if exc else 'EOF'})")
            else:
                self.tally.closed_early += 1
                self.tally.error(f"closed by peer ({type(exc).__name__ if exc else 'EOF'})")
        for future in self.watch.values():
            if not future.done():
                future.set_result(None)

    # -- decoding
    def decode_chunks(self) -> None:
        while self.buffer:
            if self.chunk_left > 0:
                data = self.buffer[:self.chunk_left]
                self.buffer = self.buffer[len(data):]
                self.chunk_left -= len(data)
                self.sse += data
                if self.chunk_left == 0:
                    self.crlf_left = 2
                continue
            if self.crlf_left > 0:
                skip = min(self.crlf_left, len(self.buffer))
                self.buffer = self.buffer[skip:]
                self.crlf_left -= skip
                continue
            line_end = self.buffer.find(b"\r\n")
            if line_end < 0:
                return
            size = int(self.buffer[:line_end].split(b";")[0] or b"0", 16)
            self.buffer = self.buffer[line_end + 2:]
            if size == 0:
                self.buffer = b""
                return  # the last chunk: the server ended the stream
            self.chunk_left = size

    def parse_events(self, now: float) -> None:
        while True:
            end = self.sse.find(b"\n\n")
            if end < 0:
                return
            block = self.sse[:end].decode("utf-8", "replace")
            self.sse = self.sse[end + 2:]
            event_id = None
            event_name = None
            for line in block.split("\n"):
                if line.startswith(":"):
                    self.keepalives += 1
                elif line.startswith("retry:"):
                    self.retry_seen = True
                elif line.startswith("event:"):
                    event_name = line[6:].strip()
                elif line.startswith("id:"):
                    event_id = int(line[3:].strip())
            if event_name == "version" and event_id is not None:
                self.versions.append(event_id)
                self.arrival.setdefault(event_id, now)
                if not self.ready.done():
                    self.ready.set_result(event_id)
                future = self.watch.get(event_id)
                if future and not future.done():
                    future.set_result(now)

    def fail(self, kind: str) -> None:
        if not self.ready.done():
            self.tally.failed += 1
            self.tally.error(kind)
            self.ready.set_result(None)
        if self.transport and not self.transport.is_closing():
            self.closing = True
            self.transport.close()

    def close(self) -> None:
        self.closing = True
        if self.transport and not self.transport.is_closing():
            self.transport.close()


async def receive_stamped(streams: list[SSEStream], version: int, sent_perf: float, sent_wall_ns: int,
                          timeout: float) -> None:
    """Reads the paused streams' sockets directly until each has `version` (or `timeout` passes), taking each
    arrival time from the kernel's receive timestamp rather than from when this script read it: with
    thousands of streams, one Python thread reading them one by one would otherwise be what is measured."""
    pending = {s for s in streams if version not in s.arrival and not s.lost}
    raw = {}
    for stream in pending:
        fd = stream.transport.get_extra_info("socket").fileno()
        raw[stream] = socket.socket(fileno=fd)  # the same descriptor: detached below, never closed here
    deadline = time.perf_counter() + timeout
    try:
        # The arrival times are the kernel's, so reading can wait: meanwhile this script stays off the cores
        # the server is fanning out on.
        await asyncio.sleep(1.0)
        while pending and time.perf_counter() < deadline:
            for stream in list(pending):
                sock = raw[stream]
                try:
                    data, ancillary, _, _ = sock.recvmsg(65536, socket.CMSG_SPACE(16), socket.MSG_DONTWAIT)
                except BlockingIOError:
                    continue
                except OSError:
                    pending.discard(stream)
                    continue
                if not data:
                    pending.discard(stream)
                    continue
                stamp_ns = None
                for level, kind, payload in ancillary:
                    if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(payload) >= 16:
                        seconds, nanoseconds = struct.unpack("qq", payload[:16])
                        stamp_ns = seconds * 1_000_000_000 + nanoseconds
                now = sent_perf + (stamp_ns - sent_wall_ns) / 1e9 if stamp_ns else time.perf_counter()
                stream.data_received(data, now)
                if version in stream.arrival:
                    pending.discard(stream)
            if pending:
                await asyncio.sleep(0.25)
    finally:
        for sock in raw.values():
            sock.detach()


async def open_stream(port: int, request: bytes, tally: Tally, timeout: float) -> SSEStream | None:
    loop = asyncio.get_running_loop()
    stream: SSEStream | None = None
    try:
        _, stream = await asyncio.wait_for(
            loop.create_connection(lambda: SSEStream(request, tally), HOST, port), timeout)
        if await asyncio.wait_for(asyncio.shield(stream.ready), timeout) is not None:
            tally.opened += 1
            return stream
    except asyncio.TimeoutError:
        tally.failed += 1
        tally.error("timeout opening (connect or first event)")
    except OSError as error:
        tally.failed += 1
        tally.error(f"connect: {error.strerror or error}")
    if stream is not None:
        stream.close()
    return None


async def open_many(port: int, request: bytes, count: int, concurrency: int, tally: Tally,
                    timeout: float, progress_every: int = 1000) -> list[SSEStream]:
    semaphore = asyncio.Semaphore(concurrency)
    streams: list[SSEStream] = []
    done = 0

    async def one() -> None:
        nonlocal done
        async with semaphore:
            stream = await open_stream(port, request, tally, timeout)
        if stream is not None:
            streams.append(stream)
        done += 1
        if progress_every and done % progress_every == 0:
            log(f"  {done}/{count} attempted, {tally.opened} open, {tally.failed} failed")

    await asyncio.gather(*(one() for _ in range(count)))
    return streams


# ----------------------------------------------------------------------------------------------------------
# The benchmark


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = max(0, min(len(ordered) - 1, math.ceil(q / 100 * len(ordered)) - 1))  # nearest rank
    return ordered[rank]


async def idle_rss(pid: int, settle: float) -> int:
    await asyncio.sleep(settle)
    return rss_kib(pid)


async def benchmark(args: argparse.Namespace, server: Server, results: dict) -> None:
    try:
        await measure(args, server, results)
    finally:
        for stream in ALL_STREAMS:
            stream.close()
        await asyncio.sleep(0)


async def measure(args: argparse.Namespace, server: Server, results: dict) -> None:
    port = server.port
    assert port is not None
    token = server.admin_token
    project = args.project

    await admin(port, token, "POST", "/v1/projects", {"projectId": project, "displayName": "stream bench"})
    key = (await admin(port, token, "POST", "/v1/apiKeys",
                       {"displayName": "stream bench", "role": "client", "project": project}))["key"]
    await admin(port, token, "PUT", f"/v1/projects/{project}/remoteConfig",
                {"parameters": {"x": {"defaultValue": {"value": "1"}}}}, headers={"If-Match": "*"})
    request = (f"GET /v1/projects/{project}/remoteConfig:stream HTTP/1.1\r\nHost: {HOST}:{port}\r\n"
               f"X-API-Key: {key}\r\nAccept: text/event-stream\r\n\r\n").encode()
    pid = server.pid

    # Reference: an idle server with 0 streams, measured twice, so the noise of the measure is visible.
    results["rss_idle_0"] = [await idle_rss(pid, args.settle), await idle_rss(pid, args.settle)]

    # Warm-up: a few streams opened and closed (first-use allocations, key cache, code paths).
    tally = Tally()
    warm = await open_many(port, request, args.warmup, min(args.warmup, args.concurrency) or 1, tally,
                           args.open_timeout, progress_every=0)
    if tally.failed:
        raise RuntimeError(f"warm-up: {tally.failed} of {args.warmup} streams failed: {tally.errors}")
    for stream in warm:
        stream.close()
    await asyncio.sleep(0.5)
    results["rss_before"] = await idle_rss(pid, args.settle)
    results["fds_before"] = open_fds(pid)
    results["anon_before"] = status_kib(pid, "RssAnon")
    results["threads"] = status_kib(pid, "Threads")

    # Open N idle streams.
    log(f"opening {args.streams} streams, at most {args.concurrency} opening at a time")
    tally = Tally()
    results["tally"] = tally
    server_cpu_0 = cpu_seconds(pid)
    t0 = time.perf_counter()
    streams = await open_many(port, request, args.streams, args.concurrency, tally, args.open_timeout)
    results["open_seconds"] = time.perf_counter() - t0
    results["open_server_cpu"] = cpu_seconds(pid) - server_cpu_0
    results["opened"] = len(streams)
    bad_opening = sum(1 for s in streams if not (s.retry_seen and s.versions[:1] == [1]))
    results["bad_opening"] = bad_opening
    log(f"opened {len(streams)} in {results['open_seconds']:.1f} s; {tally.failed} failed {tally.errors or ''}")
    if not streams:
        raise RuntimeError("no stream opened")

    results["rss_after"] = await idle_rss(pid, args.settle)
    results["rss_after_2"] = await idle_rss(pid, args.settle)
    results["fds_after"] = open_fds(pid)
    results["anon_after"] = status_kib(pid, "RssAnon")
    # Connections an operator and an app hold already: at the limit, new ones may be refused.
    admin_connection, app_connection = KeepAliveConnection(port), KeepAliveConnection(port)
    for connection in (admin_connection, app_connection):
        await connection.open()
        # A first request now: a connection that sends no request head within 30 s is closed by the server.
        await connection.request("GET", "/healthz", {})
    flood = None
    if args.idle_connections:
        # Past the limit: a separate process (the load is not capped by this script's own limit) opens idle
        # connections until the server has no room; how fast are the ones past it refused?
        log(f"opening {args.idle_connections} idle connections from a helper process")
        flood = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--binary", args.binary, "--hold-idle",
             str(args.idle_connections), "--port", str(port)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = await asyncio.get_running_loop().run_in_executor(None, flood.stdout.readline)
        results["flood"] = json.loads(line) if line else {"error": "the helper said nothing"}
        log(f"idle connections: {results['flood']}")
        results["fds_at_limit"] = open_fds(pid)
    try:
        await publish_and_fetch(args, server, results, streams, admin_connection, app_connection, project, key)
    finally:
        if flood:
            flood.stdin.close()
            flood.wait(10)
        admin_connection.close()
        app_connection.close()
    if args.stop_with_streams_open or "latencies" not in results:
        return
    still_open = results.pop("still_open")
    await close_and_drain(args, server, results, streams, still_open)


async def publish_and_fetch(args: argparse.Namespace, server: Server, results: dict, streams: list[SSEStream],
                            admin_connection: KeepAliveConnection, app_connection: KeepAliveConnection,
                            project: str, key: str) -> None:
    pid = server.pid
    token = server.admin_token
    still_open = [s for s in streams if not s.lost]
    results["still_open_before_publish"] = len(still_open)
    results["still_open"] = still_open

    # Publish version 2; time from sending the PUT to `id: 2` on every stream.
    loop = asyncio.get_running_loop()
    for stream in still_open:
        stream.watch[2] = loop.create_future()
    sent_at: list[float] = []
    sent_wall: list[int] = []
    for stream in still_open:
        stream.transport.pause_reading()  # read with kernel timestamps by receive_stamped
    server_cpu_0 = cpu_seconds(pid)

    def on_sent() -> None:
        sent_wall.append(time.time_ns())
        sent_at.append(time.perf_counter())

    status, payload = await admin_connection.request(
        "PUT", f"/v1/projects/{project}/remoteConfig",
        {"Authorization": f"Bearer {token}", "If-Match": "*"},
        json.dumps({"parameters": {"x": {"defaultValue": {"value": "2"}}}}).encode(), on_sent=on_sent)
    put_done = time.perf_counter()
    if status != 200:
        raise RuntimeError(f"publish: {status} {payload[:300]!r}")
    version = json.loads(payload).get("version", {}).get("versionNumber")
    if str(version) != "2":
        raise RuntimeError(f"publish made version {version!r}, expected 2")
    results["put_seconds"] = put_done - sent_at[0]
    # A fetch while the server fans out (this script reads no stream meanwhile, so it measures the server).
    fetch_started = time.perf_counter()
    fetch_status, _ = await app_connection.request(
        "POST", f"/v1/projects/{project}/remoteConfig:fetch", {"X-API-Key": key}, b'{"appInstanceId": "bench"}')
    results["fetch"] = (fetch_status, time.perf_counter() - fetch_started)
    await receive_stamped(still_open, 2, sent_at[0], sent_wall[0], args.notify_timeout)
    for stream in still_open:
        if not stream.lost:
            stream.transport.resume_reading()
    pending = [s for s in still_open if 2 not in s.arrival]
    results["notify_server_cpu"] = cpu_seconds(pid) - server_cpu_0
    latencies = [s.arrival[2] - sent_at[0] for s in still_open if 2 in s.arrival]
    results["notified"] = len(latencies)
    results["not_notified"] = len(still_open) - len(latencies)
    results["latencies"] = latencies
    results["dropped_during_notify"] = sum(1 for s in still_open if s.lost and 2 not in s.arrival)
    if pending:
        log(f"{len(pending)} streams got no `id: 2` within {args.notify_timeout:.0f} s")

    if args.stop_with_streams_open:
        # Graceful shutdown with every stream still open: how long SIGTERM takes, and do the streams end?
        for stream in still_open:
            stream.closing = True  # an end from the server is expected now, not an error
        stopped_at = time.perf_counter()
        server.process.send_signal(signal.SIGTERM)
        while server.process.poll() is None and time.perf_counter() - stopped_at < args.drain_timeout:
            await asyncio.sleep(0.05)
        results["shutdown_seconds"] = time.perf_counter() - stopped_at if server.process.poll() is not None else None
        await asyncio.sleep(0.5)
        results["ended_by_server"] = sum(1 for s in still_open if s.lost)
        results["streams_at_shutdown"] = len(still_open)
        return



async def close_and_drain(args: argparse.Namespace, server: Server, results: dict, streams: list[SSEStream],
                          still_open: list[SSEStream]) -> None:
    pid = server.pid
    tally: Tally = results["tally"]
    # Close every stream, and see what the server gives back: its descriptors less one per stream (the
    # database pool may have grown meanwhile, so not simply the count before the streams opened).
    results["fds_target"] = open_fds(pid) - sum(1 for s in streams if not s.lost)
    for stream in streams:
        stream.close()
    results["closed_early"] = tally.closed_early
    results["close_errors"] = dict(tally.errors)
    closed_at = time.perf_counter()
    # How long the server keeps the sockets of streams whose clients went away.
    drained = None
    while time.perf_counter() - closed_at < args.drain_timeout:
        if open_fds(pid) <= results["fds_target"]:
            drained = time.perf_counter() - closed_at
            break
        await asyncio.sleep(0.25)
    results["drain_seconds"] = drained
    results["fds_after_drain"] = open_fds(pid)
    results["rss_after_drain"] = rss_kib(pid)


def report(args: argparse.Namespace, server: Server, results: dict, failure: str | None) -> None:
    n = results.get("opened", 0)
    rows: list[tuple[str, str]] = [("binary", args.binary), ("streams requested (N)", str(args.streams))]

    def mib(kib: int) -> str:
        return f"{kib / 1024:.1f} MiB"

    if "rss_idle_0" in results:
        a, b = results["rss_idle_0"]
        rows.append(("reference: idle RSS, 0 streams, x2", f"{mib(a)}, {mib(b)} (diff {b - a:+d} KiB)"))
    if "opened" in results:
        tally: Tally = results["tally"]
        rows.append(("streams opened / failed", f"{n} / {tally.failed} {tally.errors or ''}".strip()))
        rows.append(("open time, server CPU", f"{results['open_seconds']:.1f} s ({n / results['open_seconds']:.0f}/s), "
                                            f"{results['open_server_cpu']:.1f} s CPU"))
        if results["bad_opening"]:
            rows.append(("streams without retry + id 1 first", str(results["bad_opening"])))
    if "rss_after" in results:
        before, after = results["rss_before"], results["rss_after"]
        rows.append(("RSS before (after warm-up)", mib(before)))
        rows.append(("RSS after N streams (x2)", f"{mib(after)}, {mib(results['rss_after_2'])}"))
        rows.append(("memory per idle stream", f"{(after - before) / n:.1f} KiB  ((after - before) / N)"))
        rows.append(("  of which RssAnon (heap, stacks)", f"{(results['anon_after'] - results['anon_before']) / n:.1f} KiB"))
        rows.append(("server fds before / after", f"{results['fds_before']} / {results['fds_after']}"))
    if "latencies" in results:
        lat = results["latencies"]
        rows.append(("publish PUT round trip", f"{results['put_seconds'] * 1000:.0f} ms"))
        rows.append(("streams notified / not", f"{results['notified']} / {results['not_notified']}"))
        if lat:
            rows.append(("notify first / p50 / p99", f"{min(lat) * 1000:.0f} / {percentile(lat, 50) * 1000:.0f} / "
                                                   f"{percentile(lat, 99) * 1000:.0f} ms"))
            rows.append(("notify max (last of N)", f"{max(lat) * 1000:.0f} ms"))
            rows.append(("last notified after the PUT's answer",
                         f"{(max(lat) - results['put_seconds']) * 1000:.0f} ms"))
        rows.append(("server CPU during notify", f"{results['notify_server_cpu']:.2f} s"))
        if "fetch" in results:
            status, took = results["fetch"]
            rows.append(("fetch during the fan-out", f"{status} in {took * 1000:.0f} ms (held connection)"))
    if "flood" in results:
        flood = results["flood"]
        rows.append(("idle connections past the streams", json.dumps(flood)))
        rows.append(("server fds at the limit", str(results.get("fds_at_limit"))))
        if results.get("closed_early"):
            rows.append(("streams closed by the server early", f"{results['closed_early']} {results['close_errors']}"))
    if "streams_at_shutdown" in results:
        took = results["shutdown_seconds"]
        rows.append(("SIGTERM with all streams open: exit", f"{took:.2f} s" if took is not None else
                     f"not within {args.drain_timeout:.0f} s"))
        rows.append(("streams ended by the server", f"{results['ended_by_server']} / {results['streams_at_shutdown']}"))
    if "drain_seconds" in results:
        drained = results["drain_seconds"]
        rows.append(("server fds released after close",
                     f"{drained:.1f} s" if drained is not None else
                     f"not within {args.drain_timeout:.0f} s ({results['fds_after_drain']} fds)"))
        rows.append(("RSS then", mib(results["rss_after_drain"])))
    rows.append(("server exit status (SIGTERM)", "killed after timeout" if server.exit_status is None and server.process
                 else str(server.exit_status)))
    rows.append(("load average (1 min) at end", f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"))
    if failure:
        rows.append(("FAILED", failure))
    width = max(len(name) for name, _ in rows)
    print()
    print(f"stream benchmark, {time.strftime('%Y-%m-%d %H:%M:%S %Z')}")
    for name, value in rows:
        print(f"  {name.ljust(width)}  {value}")
    if args.json:
        doc = {k: v for k, v in results.items() if k not in ("tally", "latencies")}
        if "latencies" in results and results["latencies"]:
            lat = results["latencies"]
            doc.update(notify_p50_ms=percentile(lat, 50) * 1000, notify_p99_ms=percentile(lat, 99) * 1000,
                       notify_max_ms=max(lat) * 1000)
        doc.update(streams=args.streams, binary=args.binary, exit_status=server.exit_status, failure=failure)
        with open(args.json, "w") as out:
            json.dump(doc, out, indent=2, default=str)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True, help="the remote-config executable")
    parser.add_argument("--streams", "-n", type=int, default=10_000, help="idle streams to open (default 10000)")
    parser.add_argument("--concurrency", type=int, default=100, help="streams opening at once (default 100)")
    parser.add_argument("--warmup", type=int, default=20, help="streams opened and closed before measuring")
    parser.add_argument("--settle", type=float, default=2.0, help="seconds to wait before each RSS reading")
    parser.add_argument("--open-timeout", type=float, default=30.0, help="per-stream limit to open and get id 1")
    parser.add_argument("--notify-timeout", type=float, default=30.0, help="limit for every stream to get id 2")
    parser.add_argument("--drain-timeout", type=float, default=40.0,
                        help="after closing, wait up to this long for the server to release the sockets")
    parser.add_argument("--stop-with-streams-open", action="store_true",
                        help="instead of closing the streams first, SIGTERM the server with all of them open")
    parser.add_argument("--timeout", type=float, default=180.0, help="overall limit in seconds (default 180)")
    parser.add_argument("--start-timeout", type=float, default=90.0, help="limit for the server to start")
    parser.add_argument("--project", default="stream-bench")
    parser.add_argument("--idle-connections", type=int, default=0,
                        help="past the limit: after the streams, open this many idle connections from a helper "
                             "process, then publish and fetch over connections opened before them")
    parser.add_argument("--hold-idle", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--keep-data", action="store_true", help="keep the temporary data dir (debugging)")
    args = parser.parse_args()
    if args.hold_idle:
        return hold_idle_connections(args.port, args.hold_idle, refused_within=1.0)
    args.binary = os.path.abspath(args.binary)
    if not os.access(args.binary, os.X_OK):
        parser.error(f"not an executable: {args.binary}")

    soft, hard = raise_fd_limit(65536)
    need = args.streams + args.warmup + 200
    log(f"fd limit {soft} (hard {hard}) for this script and the server")
    if soft < need:
        log(f"warning: {args.streams} streams need about {need} fds per process; the limit is {soft}")

    server = Server(args.binary, "rc_admin_" + secrets.token_hex(16), args.keep_data)
    results: dict = {}
    failure: str | None = None
    started = time.monotonic()
    try:
        log(f"starting {args.binary} (data dir {server.data_dir}, log {server.log_path})")
        server.start(args.start_timeout)
        log(f"server pid {server.pid} on port {server.port}, fd limit {fd_limit_of(server.pid)}")
        remaining = args.timeout - (time.monotonic() - started)
        asyncio.run(asyncio.wait_for(benchmark(args, server, results), remaining))
    except asyncio.TimeoutError:
        failure = f"overall timeout of {args.timeout:.0f} s"
    except Exception as error:  # report whatever happened, then clean up
        failure = f"{type(error).__name__}: {error}"
    finally:
        if server.process and server.process.poll() is not None and failure is None \
                and "streams_at_shutdown" not in results:
            failure = f"the server died (status {server.process.returncode})"
        server.stop()
        log_tail = server.tail(40)
        server.cleanup()
    report(args, server, results, failure)
    interesting = [line for line in log_tail.splitlines() if line.strip() and "listening on" not in line]
    if interesting:
        print("\nserver log (last lines, level warning and up):")
        for line in interesting[-20:]:
            print("  " + line[:400])
    print(f"\nfull server log: {server.log_path}")
    ok = failure is None and server.exit_status == 0 and results.get("not_notified", 1) == 0 \
        and results.get("tally") is not None and results["tally"].failed == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
