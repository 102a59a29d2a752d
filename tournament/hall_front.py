"""The hall's front: what `make hall` runs on the hall's port (``python -m tournament.hall_front``).

One client on the hall's Wi-Fi must not stop the saves and pages of everyone else. gunicorn's
threads (tournament/hall_server.py) wait on whatever they serve: a request sent half-way and
then nothing held one for good, and a phone's stream one for hours. So this process, one
thread of asyncio for every connection, stands between the hall's network and gunicorn:

- A request is passed on only once it has arrived whole: its head within ``HEAD_SECONDS`` (of
  the connection's opening, or of the last answer on a kept-alive one), its body at
  ``BODY_RATE`` bytes a second at the least (after ``HEAD_SECONDS``). Anything slower is
  dropped, having held no thread of gunicorn's.
- gunicorn listens on a socket in a fresh folder of this user's (0700), and each connection
  to it starts with a PROXY protocol line naming the client's address: Django's REMOTE_ADDR,
  which no header a client writes can change (X-Forwarded-For is read only as PROXY_COUNT and
  TRUSTED_PROXIES say, tournament/security.py).
- Its answer is read as fast as gunicorn gives it (``KEPT_ANSWER`` bytes of it at once), so a
  client that reads slowly holds no thread either, but for the rest of a larger one.
- The phones' streams (tournament/streams.py) are served here, by the hub of this process:
  each one a connection written to when the hub has something, never a thread.
- One address holds at most ``CLIENT_CONNECTIONS`` connections (503 beyond),
  ``CLIENT_REQUESTS`` requests at gunicorn at once (the next ones wait their turn) and
  ``LIVE_STREAMS_PER_CLIENT`` streams (204 beyond: its page asks every few seconds); each
  limit is off at 0 (HALL_CLIENT_CONNECTIONS, HALL_CLIENT_REQUESTS, as in the container).

It starts gunicorn, and on Ctrl+C or SIGTERM ends its streams at once, passes the signal on
and exits with gunicorn's status when gunicorn has stopped (after its last backups).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import queue
import resource
import shutil
import signal
import socket
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote_to_bytes

from tournament.hall import bind_host, bind_port

HEAD_SECONDS = 10  # a request's head (or a kept-alive connection's next one) within this
BODY_RATE = 16_000  # bytes a second: the slowest body taken (a photo of 15 MB: 16 minutes)
MOST_HEAD = 64 * 1024
MOST_BODY = 64 * 1024 * 1024  # bytes: a photo is 15 MB at most, an event file 20 MB
KEPT_BODY = 1024 * 1024  # bytes of a body kept in memory; the rest waits in a file
KEPT_ANSWER = 1024 * 1024  # bytes of an answer read ahead of a client that reads slowly
SEND_SECONDS = 60  # a client that takes nothing of its answer for this long is dropped


def client_limit(name: str, default: int) -> int:
    """A per-address limit from the environment; 0 turns it off. In a container whose network
    shows every phone as one address (Docker Desktop, rootless Podman), a per-address limit
    would be the whole room's: the image turns them off (Containerfile)."""
    value = os.environ.get(name, "").strip()
    return int(value) if value.isdigit() else default


# A browser opens 6 connections to a site; a few browsers on the laptop.
CLIENT_CONNECTIONS = client_limit("HALL_CLIENT_CONNECTIONS", 64)
# At gunicorn at once (2 processes of 8 threads).
CLIENT_REQUESTS = client_limit("HALL_CLIENT_REQUESTS", 4)
START_SECONDS = 120  # how long a request waits for gunicorn to listen, as the hall starts
HEARTBEAT = 20  # seconds: a comment on a quiet stream (tournament/streams.py)

# What the front says itself, to a client that sent no proper request (both languages: it
# is answered before Django knows the reader's).
REFUSALS = {
    400: ("Bad Request", "A request this server cannot read. / Requête illisible."),
    408: ("Request Timeout", "The request took too long. / La requête a été trop lente."),
    411: (
        "Length Required",
        "A request's body needs its length. / Le corps d'une requête doit dire sa longueur.",
    ),
    413: ("Content Too Large", "The request is too large. / La requête est trop grande."),
    431: (
        "Request Header Fields Too Large",
        "The request's headers are too large. / Les en-têtes de la requête sont trop grands.",
    ),
    502: (
        "Bad Gateway",
        "The site is starting or stopping: try again. / Le site démarre ou s'arrête : réessayez.",
    ),
    503: (
        "Service Unavailable",
        "Too many connections from this device. / Trop de connexions depuis cet appareil.",
    ),
}
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "te", "upgrade", "expect"}


class NotTaken(Exception):
    """A request the front will not pass on: its HTTP status."""

    def __init__(self, status: int):
        super().__init__(status)
        self.status = status


@dataclass
class Request:
    method: str
    target: str
    version: str
    headers: list[tuple[str, str]]
    body: bytes | tempfile.SpooledTemporaryFile = b""
    length: int = 0

    def header(self, name: str) -> str | None:
        values = [v for n, v in self.headers if n.lower() == name]
        return ",".join(values) if values else None

    @property
    def keeps_alive(self) -> bool:
        tokens = {t.strip().lower() for t in (self.header("connection") or "").split(",")}
        if self.version == "HTTP/1.0":
            return "keep-alive" in tokens
        return "close" not in tokens

    @property
    def path(self) -> str:
        return self.target.partition("?")[0]

    def head_for_gunicorn(self) -> bytes:
        lines = [f"{self.method} {self.target} {self.version}"]
        lines += [f"{n}: {v}" for n, v in self.headers if n.lower() not in HOP_BY_HOP]
        lines += ["Connection: close", "", ""]
        return "\r\n".join(lines).encode("latin-1")


@dataclass
class Client:
    """An address's connections and its turns at gunicorn."""

    connections: int = 0
    turns: asyncio.Semaphore = field(
        default_factory=lambda: asyncio.Semaphore(CLIENT_REQUESTS or sys.maxsize)
    )


def plain_address(address: str) -> str:
    """An IPv4 client of an IPv6 socket (``::ffff:192.168.1.20``) as IPv4."""
    return address.removeprefix("::ffff:") if "." in address else address


def proxy_line(peer: tuple, local: tuple) -> bytes:
    """The PROXY protocol (v1) line that tells gunicorn who the client is."""
    client, here = plain_address(peer[0]), plain_address(local[0])
    family = "TCP6" if ":" in client or ":" in here else "TCP4"
    if family == "TCP6":  # both of one family
        client = f"::ffff:{client}" if ":" not in client else client
        here = f"::ffff:{here}" if ":" not in here else here
    return f"PROXY {family} {client} {here} {peer[1]} {local[1]}\r\n".encode()


def parse_head(head: bytes) -> Request:
    lines = head.lstrip(b"\r\n").split(b"\r\n")
    try:
        method, target, version = lines[0].decode("ascii").split(" ")
    except (UnicodeDecodeError, ValueError):
        raise NotTaken(400) from None
    if version not in ("HTTP/1.1", "HTTP/1.0") or not method.isalpha() or not target:
        raise NotTaken(400)
    headers = []
    for line in lines[1:]:
        if not line:
            continue
        name, colon, value = line.partition(b":")
        if not colon or not name or name != name.strip() or line[:1] in b" \t":
            raise NotTaken(400)  # no space before the colon, no folded line
        headers.append((name.decode("latin-1"), value.strip().decode("latin-1")))
    request = Request(method, target, version, headers)
    if request.header("transfer-encoding") is not None:
        raise NotTaken(411)  # browsers say a body's length
    lengths = {v.strip() for n, v in headers if n.lower() == "content-length"}
    if len(lengths) > 1 or not all(v.isdigit() and v.isascii() for v in lengths):
        raise NotTaken(400)
    request.length = int(lengths.pop()) if lengths else 0
    if request.length > MOST_BODY:
        raise NotTaken(413)
    return request


def wsgi_environ(request: Request, peer: tuple, local: tuple) -> dict:
    """The request as Django's WSGI handler takes it (the streams' requests)."""
    path, _, query = request.target.partition("?")
    environ = {
        "REQUEST_METHOD": request.method,
        "SCRIPT_NAME": "",
        "PATH_INFO": unquote_to_bytes(path).decode("latin-1"),
        "QUERY_STRING": query,
        "SERVER_NAME": str(local[0]),
        "SERVER_PORT": str(local[1]),
        "SERVER_PROTOCOL": request.version,
        "REMOTE_ADDR": plain_address(peer[0]),
        "REMOTE_PORT": str(peer[1]),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(request.body if isinstance(request.body, bytes) else b""),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    for name, value in request.headers:
        if "_" in name:  # as gunicorn: Some_Header would pass for Some-Header
            continue
        key = name.upper().replace("-", "_")
        if key not in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            key = f"HTTP_{key}"
        environ[key] = f"{environ[key]},{value}" if key in environ else value
    return environ


class Front:
    def __init__(self, upstream: str, gunicorn: asyncio.subprocess.Process, private: Path):
        from django.urls import Resolver404, resolve

        from tournament.streams import EventStreamView
        from tournament.wsgi import application

        self.upstream = upstream
        self.gunicorn = gunicorn
        self.private = private
        self.application = application
        self.clients: dict[str, Client] = {}
        self.writers: set[asyncio.StreamWriter] = set()
        self.opening = ThreadPoolExecutor(4, thread_name_prefix="stream-open")
        self.stopping = False

        def is_stream(path: str) -> bool:
            if not path.endswith("/stream/"):
                return False
            try:
                return getattr(resolve(path).func, "view_class", None) is EventStreamView
            except Resolver404:
                return False

        self.is_stream = is_stream

    # -- one connection ------------------------------------------------------------------------

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer, local = writer.get_extra_info("peername"), writer.get_extra_info("sockname")
        address = plain_address(peer[0])
        client = self.clients.setdefault(address, Client())
        client.connections += 1
        self.writers.add(writer)
        try:
            if CLIENT_CONNECTIONS and client.connections > CLIENT_CONNECTIONS:
                await self.refuse(writer, 503)
                return
            while not self.stopping:
                try:
                    request = await self.read(reader, writer)
                except NotTaken as taken:
                    await self.refuse(writer, taken.status)
                    return
                if request is None:
                    return
                if request.method == "GET" and self.is_stream(request.path):
                    kept = await self.stream(request, reader, writer, client, peer, local)
                else:
                    kept = await self.forward(request, writer, client, peer, local)
                if not kept:
                    return
        except (ConnectionError, TimeoutError, asyncio.IncompleteReadError):
            writer.transport.abort()
        finally:
            # What is left of the answer is sent before the connection closes (within
            # SEND_SECONDS): the connection counts for its client until then.
            writer.close()
            try:
                async with asyncio.timeout(SEND_SECONDS):
                    await writer.wait_closed()
            except (ConnectionError, TimeoutError, asyncio.CancelledError):
                writer.transport.abort()
            finally:
                self.writers.discard(writer)
                client.connections -= 1
                if not client.connections:
                    del self.clients[address]

    async def read(self, reader, writer) -> Request | None:
        """The next request, whole; None when the client closed or went quiet between
        requests."""
        try:
            async with asyncio.timeout(HEAD_SECONDS):
                head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, TimeoutError):
            return None
        except asyncio.LimitOverrunError:
            raise NotTaken(431) from None
        request = parse_head(head)
        if not request.length:
            return request
        if request.header("expect") == "100-continue" and request.version == "HTTP/1.1":
            writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        try:
            async with asyncio.timeout(HEAD_SECONDS + request.length / BODY_RATE):
                if request.length <= KEPT_BODY:
                    request.body = await reader.readexactly(request.length)
                else:
                    request.body = tempfile.SpooledTemporaryFile(KEPT_BODY, dir=self.private)
                    left = request.length
                    while left:
                        chunk = await reader.read(min(left, 65536))
                        if not chunk:
                            raise asyncio.IncompleteReadError(b"", left)
                        request.body.write(chunk)
                        left -= len(chunk)
                    request.body.seek(0)
        except TimeoutError:
            raise NotTaken(408) from None
        return request

    async def refuse(self, writer, status: int) -> None:
        reason, text = REFUSALS[status]
        body = (text + "\n").encode()
        writer.write(
            f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
            + body
        )
        with contextlib.suppress(ConnectionError, TimeoutError):
            async with asyncio.timeout(SEND_SECONDS):
                await writer.drain()

    async def sent(self, writer) -> None:
        async with asyncio.timeout(SEND_SECONDS):
            await writer.drain()

    # -- a request for gunicorn ----------------------------------------------------------------

    async def connect(self):
        """A connection to gunicorn (waited for while the hall starts)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + START_SECONDS
        while True:
            try:
                return await asyncio.open_unix_connection(self.upstream, limit=MOST_HEAD)
            except (FileNotFoundError, ConnectionRefusedError):
                if self.gunicorn.returncode is not None or loop.time() > deadline:
                    raise
                await asyncio.sleep(0.05)

    async def forward(self, request: Request, writer, client: Client, peer, local) -> bool:
        """The request passed to gunicorn, its answer to the client; whether the connection
        is kept for another request."""
        turn = client.turns
        await turn.acquire()
        held = True
        try:
            try:
                up_reader, up_writer = await self.connect()
            except OSError:
                await self.refuse(writer, 502)
                return False
            try:
                up_writer.write(proxy_line(peer, local) + request.head_for_gunicorn())
                if isinstance(request.body, bytes):
                    up_writer.write(request.body)
                else:
                    while chunk := request.body.read(65536):
                        up_writer.write(chunk)
                        await up_writer.drain()
                    request.body.close()
                await up_writer.drain()
                try:
                    head = await up_reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, asyncio.LimitOverrunError):
                    await self.refuse(writer, 502)
                    return False
                lines = head.decode("latin-1").split("\r\n")
                status = int(lines[0].split(" ", 2)[1])
                headers = [line.partition(":") for line in lines[1:] if line]
                names = {n.strip().lower(): v.strip() for n, _, v in headers}
                if request.method == "HEAD" or status in (204, 304) or status < 200:
                    length = 0
                elif "transfer-encoding" not in names and names.get("content-length", "").isdigit():
                    length = int(names["content-length"])
                else:
                    length = None  # to gunicorn's end (chunked as it is, or closed)
                kept = length is not None and request.keeps_alive and not self.stopping
                out = [lines[0]] + [
                    f"{n.strip()}:{v}" for n, _, v in headers if n.strip().lower() not in HOP_BY_HOP
                ]
                out += ["Connection: " + ("keep-alive" if kept else "close"), "", ""]
                writer.write("\r\n".join(out).encode("latin-1"))
                # The answer read ahead of the client (up to KEPT_ANSWER): gunicorn's thread
                # is free once it is all read, however slowly the client takes it.
                left = length
                while left is None or left > 0:
                    chunk = await up_reader.read(65536 if left is None else min(left, 65536))
                    if not chunk:
                        if left:
                            return False  # cut short: the client sees it cut short too
                        break
                    writer.write(chunk)
                    if left is not None:
                        left -= len(chunk)
                    if writer.transport.get_write_buffer_size() > KEPT_ANSWER:
                        await self.sent(writer)
            finally:
                up_writer.transport.abort()
            turn.release()
            held = False
            await self.sent(writer)
            return kept
        finally:
            if held:
                turn.release()

    # -- a phone's stream ----------------------------------------------------------------------

    async def stream(self, request: Request, reader, writer, client: Client, peer, local) -> bool:
        """The stream's request answered by the site's view (in a thread: it reads the
        database); its messages then written as the hub sends them."""
        loop = asyncio.get_running_loop()
        async with client.turns:
            status, headers, body, stream = await loop.run_in_executor(
                self.opening, self.open_stream, wsgi_environ(request, peer, local)
            )
        kept = stream is None and request.keeps_alive and not self.stopping
        out = [f"HTTP/1.1 {status}"]
        out += [f"{n}: {v}" for n, v in headers if n.lower() not in ("content-length", *HOP_BY_HOP)]
        if stream is None:
            out.append(f"Content-Length: {len(body)}")
        out += ["Connection: " + ("keep-alive" if kept else "close"), "", ""]
        writer.write("\r\n".join(out).encode("latin-1") + body)
        if stream is None:
            await self.sent(writer)
            return kept
        await self.follow(stream, reader, writer)
        return False

    def open_stream(self, environ: dict):
        """In a thread: the site's answer to a stream's request (status, headers, body) and
        the stream it opened, if it did."""
        said = {}

        def start_response(status, headers, exc_info=None):
            said["status"], said["headers"] = status, headers

        answer = self.application(environ, start_response)
        try:
            stream = getattr(answer, "live_stream", None)
            body = b"" if stream is not None else b"".join(answer)
        finally:
            answer.close()
        return said["status"], said["headers"], body, stream

    async def follow(self, stream, reader, writer) -> None:
        loop = asyncio.get_running_loop()
        ready = asyncio.Event()

        def wake():  # from the hub's thread
            with contextlib.suppress(RuntimeError):  # the loop has closed: the front stopped
                loop.call_soon_threadsafe(ready.set)

        stream.wake = wake
        gone = asyncio.ensure_future(reader.read(1))  # the phone's end (or anything it sends)
        try:
            writer.write(stream.opening())
            await self.sent(writer)
            while True:
                waiting = asyncio.ensure_future(ready.wait())
                done, _ = await asyncio.wait(
                    {waiting, gone}, timeout=HEARTBEAT, return_when=asyncio.FIRST_COMPLETED
                )
                waiting.cancel()
                if gone in done:
                    return
                if waiting not in done:
                    writer.write(b":\n\n")
                ready.clear()
                while True:
                    try:
                        message = stream.messages.get_nowait()
                    except queue.Empty:
                        break
                    if message is None:
                        await self.sent(writer)
                        return
                    writer.write(message)
                await self.sent(writer)
        finally:
            gone.cancel()
            stream.wake = None
            stream.hub.leave(stream)

    # -- the stop ------------------------------------------------------------------------------

    def stop(self, signum: int, server: asyncio.Server) -> None:
        """Ctrl+C or SIGTERM: no new connection, every stream ended now, gunicorn told."""
        from tournament.streams import hub

        if not self.stopping:
            self.stopping = True
            server.close()
            hub().stop()
        if self.gunicorn.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.gunicorn.send_signal(signum)


def listening_socket(bind: str) -> socket.socket:
    host, port = bind_host(bind) or "0.0.0.0", bind_port(bind)  # noqa: S104 (the hall)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if family == socket.AF_INET6 and host == "::":
        listener.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    try:
        listener.bind((host, port))
    except OSError:
        listener.close()
        # As gunicorn says it (tests/hall.py tries another port on it).
        print(f"[ERROR] Connection in use: {(host, port)!r}", file=sys.stderr, flush=True)
        raise
    listener.listen(1024)
    listener.setblocking(False)
    return listener


def more_files() -> None:
    """Room for every connection: the soft limit on open files raised to the hard one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 65536 if hard == resource.RLIM_INFINITY else min(hard, 65536)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def stopped_with_its_parent() -> None:
    """In gunicorn's process, before it starts (Linux): SIGTERM when the front ends, even
    killed alone (``kill -9``), so that no server is left behind it. The front has started no
    thread yet."""
    import ctypes

    ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


async def run(bind: str) -> int:
    from tournament.folders import runtime_folder

    listener = listening_socket(bind)
    private = Path(tempfile.mkdtemp(prefix="mt-hall-", dir=runtime_folder()))  # 0700, fresh
    try:
        upstream = str(private / "gunicorn.sock")
        gunicorn = await asyncio.create_subprocess_exec(
            *[sys.executable, "-m", "gunicorn", "-c", "python:tournament.hall_server"],
            env={**os.environ, "HALL_UPSTREAM": f"unix:{upstream}"},
            preexec_fn=stopped_with_its_parent if sys.platform == "linux" else None,  # noqa: PLW1509
        )
        import django

        django.setup()
        front = Front(upstream, gunicorn, private)
        server = await asyncio.start_server(front.serve, sock=listener, limit=MOST_HEAD)
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, front.stop, signum, server)
        status = await gunicorn.wait()
        front.stopping = True
        server.close()
        for writer in list(front.writers):
            writer.transport.abort()
        front.opening.shutdown(wait=False, cancel_futures=True)
        return status
    finally:
        shutil.rmtree(private, ignore_errors=True)


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournament.settings")
    os.environ.setdefault("LIVE_STREAMS", "1000")  # served here: a connection each
    more_files()
    try:
        status = asyncio.run(run(os.environ.get("HOST") or "0.0.0.0:8000"))  # noqa: S104
    except OSError:
        sys.exit(1)
    sys.exit(status if status >= 0 else 128 - status)


if __name__ == "__main__":
    main()
