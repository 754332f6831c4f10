"""Serving the app with Waitress: listening socket, protections, admission, signals, shutdown.

Waitress protections set here, each from a setting (docs/operating.md):
- max_request_body_size: bodies this large get Waitress's own 413 before the app reads them;
- channel_timeout: a connection that has sent and received nothing this long is closed;
- request deadlines (GuardedChannel, close_overdue): a request head not complete
  request_header_timeout_s after its first byte, or a body not complete request_body_timeout_s
  after its head, closes the connection however the client trickles (Waitress's channel_timeout
  is an idle timeout that every byte resets); a connection idle between requests is closed after
  keepalive_timeout_s. So slow or idle clients cannot hold the connection_limit slots;
- slow readers (close_overdue, GuardedChannel): a connection whose response bytes have waited
  send_grace_s and that took them at less than send_floor_bytes_s a second since is closed (every
  send() refreshes Waitress's last_activity, so a reader taking a few bytes at a time was never
  idle); a connection may have at most max_pipelined_requests requests read and unanswered, and
  one that pipelines more is closed once those are answered, so queued output stays bounded;
- connection_limit: at most this many open connections are served; at the limit a new connection
  closes the one that has waited longest without a request in service (make_room_at_limit), so
  idlers that reconnect cannot keep a new client in the backlog;
- admission before the task queue (AdmittingDispatcher): at most max_in_flight /retrieve requests
  are queued or running; the next is answered 503 overloaded at once by a separate thread, which
  also answers /health, /metrics and unknown paths so probes never wait behind retrievals (each
  route's lane is in retrieval/http/contract.py).
"""

import importlib
import logging
import os
import signal
import socket
import sys
import threading
import time
from dataclasses import dataclass

import waitress
from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser, ParsingError
from waitress.task import ThreadedTaskDispatcher, WSGITask

from ..core.errors import UserError
from ..http.contract import ADMITTED, FAST, lane
from ..http.inflight import ADMISSION_KEY, DRAINING
from ..settings import SettingsError
from . import io_loop


def load_app_object(spec: str):
    """Import `module:attribute` and return the attribute (a WSGI app)."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise UserError(f"--app must be MODULE:ATTRIBUTE, not {spec!r}")
    try:
        return getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as exc:
        raise UserError(f"--app {spec}: {exc}") from None


class GuardedParser(HTTPRequestParser):
    """Waitress's request parser, plus when the request began and its framing checks."""

    head_started = None  # time.monotonic() of the request's first byte
    body_started = None  # time.monotonic() when its head was complete

    def parse_header(self, header_plus):
        try:
            super().parse_header(header_plus)
        except ParsingError as exc:
            # Waitress quotes the offending bytes ('Malformed header line "..."'); its 400 body
            # keeps only the words before them, so nothing the client sent is echoed back.
            raise ParsingError(str(exc).split('"', 1)[0].strip() or "Bad request") from None
        # RFC 9112 6.1 and 6.3: a request with both Content-Length and Transfer-Encoding, or with
        # Transfer-Encoding under HTTP/1.0 (which Waitress ignores, reading the body by
        # Content-Length), is framed ambiguously: a proxy may read it otherwise, so refuse it
        # (400, and Waitress closes the connection after an error).
        if self.chunked and "CONTENT_LENGTH" in self.headers:
            raise ParsingError("Content-Length with Transfer-Encoding")
        if self.version == "1.0" and "TRANSFER_ENCODING" in self.headers:
            raise ParsingError("Transfer-Encoding in an HTTP/1.0 request")


class GuardedChannel(HTTPChannel):
    """A channel that times each request from its first byte, and its output (close_overdue).

    Also caps pipelining: requests read beyond max_pipelined are dropped unanswered and the
    connection is closed once the ones kept are answered (RFC 9112 9.3.2: a client retries what
    a closed connection left unanswered), so one burst cannot queue hundreds of responses.
    """

    parser_class = GuardedParser
    max_pipelined: int | None = None  # set per server by build_server()
    pipeline_full = False  # requests were dropped: read nothing more, close when answered
    bytes_sent = 0  # response bytes the socket took, counted for the send floor
    output_since: float | None = None  # time.monotonic() when unsent output was first seen
    sent_at_output_since = 0

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.waiting_since = time.monotonic()  # since when no request of it has been in service

    def received(self, data):
        pending = self.request
        result = super().received(data)
        request = self.request
        if request is not None:
            now = time.monotonic()
            if request is not pending or request.head_started is None:
                request.head_started = now
            if request.headers_finished and request.body_started is None:
                request.body_started = now
        cap = self.max_pipelined
        if cap is not None and len(self.requests) > cap:
            with self.requests_lock:
                for dropped in self.requests[cap:]:
                    dropped.close()
                del self.requests[cap:]
                if self.request is not None:
                    self.request.close()
                    self.request = None
                self.pipeline_full = True
        return result

    def readable(self):
        return not self.pipeline_full and super().readable()

    def send(self, data, do_close=True):
        sent = super().send(data, do_close)
        self.bytes_sent += sent
        return sent

    def service(self):
        super().service()
        if not self.requests:
            self.waiting_since = time.monotonic()
            if self.pipeline_full and not self.close_when_flushed:
                with self.requests_lock:
                    self.close_when_flushed = True
                self.server.pull_trigger()

    def send_continue(self):
        # Waitress 3.0.2 sends "100 Continue" to a request that has no body as well, and marks
        # it incomplete again to wait for that body: the request is never answered. A request
        # whose head says there is no body is complete; it is served, and nothing is sent first.
        if self.request.completed:
            self.request.expect_continue = False
            return
        super().send_continue()


@dataclass(frozen=True)
class ConnectionDeadlines:
    """How long a connection may take over each part of a request, and idle between them."""

    header_s: float
    body_s: float
    keepalive_s: float
    send_grace_s: float = 10.0
    send_floor_bytes_s: float = 1024.0

    def too_slow_a_reader(self, channel, now: float) -> bool:
        """Tell whether a channel's waiting output has been taken below the floor too long.

        Counted from when maintenance first saw output waiting, whatever is being served:
        a worker blocked on a full output buffer is released when the channel closes.
        """
        if not channel.total_outbufs_len:
            channel.output_since = None
            return False
        if channel.output_since is None:
            channel.output_since = now
            channel.sent_at_output_since = channel.bytes_sent
            return False
        waited = now - channel.output_since
        taken = channel.bytes_sent - channel.sent_at_output_since
        return waited > self.send_grace_s and taken < self.send_floor_bytes_s * waited

    def overdue(self, channel, now: float) -> bool:
        """Tell whether a channel no request of which is being served has run out of time."""
        request = channel.request
        if request is None:
            # Between requests, or before the first: idle since Waitress's last read or write.
            return time.time() - channel.last_activity > self.keepalive_s
        if request.body_started is not None:
            return now - request.body_started > self.body_s
        return request.head_started is not None and now - request.head_started > self.header_s


def close_overdue(server, deadlines: ConnectionDeadlines, loop=None):
    """Make the server's periodic maintenance also close connections past their deadlines."""
    idle_maintenance = server.maintenance

    def maintenance(now):
        idle_maintenance(now)  # Waitress's own channel_timeout
        monotonic_now = time.monotonic()
        for channel in list(server.active_channels.values()):
            # A request being served is bounded by the app (deadline_ms), not here.
            if not channel.requests and deadlines.overdue(channel, monotonic_now):
                channel.will_close = True
            elif hasattr(channel, "bytes_sent") and \
                    deadlines.too_slow_a_reader(channel, monotonic_now):
                channel.will_close = True
        if loop is not None:
            loop.ask_all()  # channels marked to close must be seen writable

    server.maintenance = maintenance


# A connection closed to make room must have waited this long: a newcomer has time to send its
# request, and idlers that reconnect at once cannot make each other churn faster than this.
MAKE_ROOM_AFTER_S = 1.0


def waiting_longest(server):
    """Return the channel that has waited longest without a request in service, or None.

    Idle keep-alive connections and heads still arriving qualify once they have waited
    MAKE_ROOM_AFTER_S; one with output still to send does not (the send floor bounds those).
    """
    cutoff = time.monotonic() - MAKE_ROOM_AFTER_S
    candidates = [channel for channel in server.active_channels.values()
                  if getattr(channel, "waiting_since", cutoff) < cutoff
                  and not channel.requests and not channel.total_outbufs_len
                  and not channel.will_close]
    return min(candidates, key=lambda channel: channel.waiting_since, default=None)


def make_room_at_limit(server):
    """At connection_limit, accept a new connection by closing the one waiting longest.

    Waitress stops polling its listener at the limit, so clients that hold every slot idle (and
    reconnect the moment one is closed) keep everyone else in the backlog. Here the listener
    stays readable while some connection is only waiting; a connection in the backlog then
    closes that one, on the I/O thread, and is accepted in its place.
    """
    stock_readable, stock_accept = server.readable, server.handle_accept

    def readable():
        if stock_readable():
            return True
        return bool(server.accepting) and waiting_longest(server) is not None

    def handle_accept():
        if len(server._map) >= server.adj.connection_limit:
            oldest = waiting_longest(server)
            if oldest is None:
                return  # everything is being served: the newcomer waits in the backlog
            oldest.handle_close()
        stock_accept()

    server.readable = readable
    server.handle_accept = handle_accept


class AdmissionTask(WSGITask):
    """A WSGI task whose environ carries the server's admission decision for the request."""

    def get_environment(self):
        environ = super().get_environment()
        decision = getattr(self.request, "retrieval_admitted", None)
        if decision is not None:
            environ[ADMISSION_KEY] = decision
        return environ


class SelfFlushingChannel(io_loop.TrackedChannel, GuardedChannel):
    """A channel the I/O loop leaves alone while a worker is serving it, unless output piles up.

    Installed on every listener of `retrieval serve` (docs/performance.md has the profile and
    docs/waitress-writable.md the patch offered upstream).
    """

    def writable(self):
        # Why: Waitress's worker sends a response itself inside write_soon(), holding outbuf_lock
        # across send(). Until it gets the GIL back its output still looks unsent, so the stock
        # writable() is true, select() returns at once, handle_write() cannot take the lock and
        # does nothing, and the loop goes round again, walking every connection in Python each
        # time and starving the worker: throughput fell as 1/connections (73 req/s at c=128).
        # While a request is served the worker flushes its own output and pulls the trigger when
        # it is done; only output above the high watermark (the worker is then waiting for the
        # loop to drain it) or a pending close needs the loop.
        if self.will_close or self.close_when_flushed:
            return True
        if self.requests and self.total_outbufs_len <= self.adj.outbuf_high_watermark:
            return False
        return bool(self.total_outbufs_len)


class AdmissionChannel(SelfFlushingChannel):
    """A channel that gives back the request's in-flight slot however its service ends."""

    task_class = AdmissionTask
    gate = None  # set per server by serve()

    def service(self):
        request = self.requests[0]
        try:
            super().service()
        finally:
            if getattr(request, "retrieval_admitted", None) is True:
                request.retrieval_admitted = None
                self.gate.leave(peer_of(self))


def peer_of(channel):
    """Return the client address a channel's connection comes from (None for a unix socket)."""
    addr = getattr(channel, "addr", None)
    return addr[0] if isinstance(addr, tuple) and addr else None


class AdmittingDispatcher(ThreadedTaskDispatcher):
    """Admit each /retrieve request against the gate before it joins the task queue.

    Waitress hands a channel to add_task once per request, when the request has been read in
    full, on its I/O thread. An admitted request holds a slot until its channel has served it
    (AdmissionChannel). A refused one goes to the fast lane, a second one-thread dispatcher for
    answers that need no retrieval work: the app's immediate 503 overloaded, and the /health and
    /metrics probes, which would otherwise wait behind up to max_in_flight retrievals (a load
    balancer would take a busy replica for a dead one).
    """

    def __init__(self, gate):
        super().__init__()
        self._gate = gate
        self._draining = False
        self._fast_lane = ThreadedTaskDispatcher()
        self._fast_lane.set_thread_count(1)

    def add_task(self, task):
        requests = getattr(task, "requests", None)
        request = requests[0] if requests else None
        if request is not None and not request.error:
            # The contract's lane for the route the app will dispatch the request to: its
            # route table and path normalisation are the app's.
            queue = lane(request.path, request.command)
            if queue == ADMITTED:
                # Once draining, nothing new is queued: what was admitted before still runs.
                request.retrieval_admitted = DRAINING if self._draining else \
                    self._gate.try_enter(peer_of(task))
                if request.retrieval_admitted is not True:
                    self._fast_lane.add_task(task)
                    return
            elif queue == FAST:
                # Probes answered from memory, and paths the app does not have (a 404 needs no
                # worker): never a place behind retrievals.
                self._fast_lane.add_task(task)
                return
        super().add_task(task)

    def begin_drain(self):
        """Send every later /retrieve to the fast lane to be refused `draining`."""
        self._draining = True

    def shutdown(self, cancel_pending=True, timeout=5):
        self._fast_lane.shutdown(cancel_pending, timeout)
        return super().shutdown(cancel_pending, timeout)


def busy_connections(server) -> int:
    """Count connections with a request being served or response bytes not yet sent."""
    # Waitress keeps its channels in the server's socket map; a channel is busy while it holds a
    # request or unsent output. Reading it from another thread is a snapshot, which is all a
    # drain needs: it polls until the count reaches zero.
    return sum(1 for channel in list(server._map.values())
               if getattr(channel, "requests", None) or getattr(channel, "total_outbufs_len", 0))


class GracefulStop:
    """SIGTERM or SIGINT: drain first, then stop Waitress; a second signal stops at once."""

    def __init__(self, server, app, settings, log):
        self._server = server
        self._app = app
        self._grace_s = settings.shutdown_grace_s
        self._delay_s = settings.drain_delay_s
        self._log = log
        self._draining = False

    def install(self):
        """Handle SIGTERM and SIGINT; return the previous handlers for restore()."""
        return {signum: signal.signal(signum, self._on_signal)
                for signum in (signal.SIGTERM, signal.SIGINT)}

    def _on_signal(self, signum, frame):
        if self._draining:
            # Waitress's run loop treats SystemExit like Ctrl-C: it stops accepting, shuts down
            # its task dispatcher and returns to serve(), which closes the app.
            raise SystemExit(0)
        self._draining = True
        threading.Thread(target=self._drain, name="retrieval-drain", daemon=True).start()

    def _drain(self):
        try:
            # The app first: from then on it refuses whatever was not admitted before.
            for owner in (self._app, getattr(self._server, "task_dispatcher", None)):
                begin_drain = getattr(owner, "begin_drain", None)
                if begin_drain is not None:
                    begin_drain()
            start = time.monotonic()
            self._say(f"retrieval: draining (grace {self._grace_s}s, delay {self._delay_s}s)")
            # Polling, bounded by the grace period: in-flight responses must be written out by
            # the I/O loop, which keeps running on the main thread meanwhile.
            while time.monotonic() - start < self._grace_s:
                if time.monotonic() - start >= self._delay_s and not busy_connections(self._server):
                    break
                time.sleep(0.02)
            self._say(f"retrieval: drained in {time.monotonic() - start:.2f}s, "
                      f"{busy_connections(self._server)} connection(s) still busy")
        finally:
            # Whatever happened above, stop: a real signal, so the main thread wakes from
            # select() and the handler ends the loop.
            os.kill(os.getpid(), signal.SIGTERM)

    def _say(self, line):
        say(self._log, line)


def _listeners(server):
    # create_server returns one server, or a MultiSocketServer holding several in its map.
    if hasattr(server, "channel_class"):
        return [server]
    return [s for s in server.map.values() if hasattr(s, "channel_class")]


def say(log, line):
    """Write one log line; a log that cannot be written never stops the server from stopping."""
    try:
        print(line, file=log, flush=True)
    except (OSError, ValueError):  # stderr may be a pipe whose reader has gone
        pass


def configure_logging():
    """Log Waitress's messages to stderr, without its per-request queue-depth warnings."""
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # Waitress warns "Task queue depth is N" for every request that waits for a worker. With the
    # one worker thread this service ships with, waiting is the normal case: under load that is
    # thousands of lines a second, which fills logs and costs throughput.
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)


def _create_server(app, options, **hooks):
    try:
        return waitress.create_server(app, **options, **hooks)
    except OSError as exc:
        # A port in use or an address not on this machine: one line, not a traceback.
        where = f"{options.get('host')}:{options.get('port')}" if "port" in options else \
            "the inherited socket"
        raise SettingsError(f"cannot listen on {where}: {exc.strerror or exc}") from None


def build_server(app, settings, inherited_fd=None):
    """Create the Waitress server `retrieval serve` runs: options, admission, channel class."""
    deadlines = ConnectionDeadlines(settings.request_header_timeout_s,
                                    settings.request_body_timeout_s, settings.keepalive_timeout_s,
                                    settings.send_grace_s, settings.send_floor_bytes_s)
    options = {
        "threads": settings.threads,
        # Far above the app's own cap, so the app's JSON 413 answers everything in between;
        # Waitress's plain-text 413 only stops bodies large enough to cost real memory.
        "max_request_body_size": settings.server_max_request_body_size,
        "channel_timeout": settings.channel_timeout_s,
        # Waitress checks channels once per cleanup_interval (30 s by default), so a shorter
        # timeout needs checks at least that often to mean anything.
        "cleanup_interval": min(30, settings.channel_timeout_s, deadlines.header_s,
                                deadlines.body_s, deadlines.keepalive_s, deadlines.send_grace_s),
        "connection_limit": settings.connection_limit,
        "ident": "retrieval",
    }
    if inherited_fd is not None:
        options["sockets"] = [socket.socket(fileno=inherited_fd)]
    else:
        options["host"] = settings.host
        options["port"] = settings.port
    gate = getattr(app, "in_flight", None)
    if gate is not None:
        # Waitress's create_server accepts a dispatcher (its "_dispatcher" test shim) and reads
        # channel_class from the server object; both are how admission gets in front of the
        # task queue without patching Waitress.
        dispatcher = AdmittingDispatcher(gate)
        dispatcher.set_thread_count(settings.threads)
        server = _create_server(app, options, _dispatcher=dispatcher)
        channel_class = type("RetrievalChannel", (AdmissionChannel,),
                             {"gate": gate, "max_pipelined": settings.max_pipelined_requests})
    else:
        server = _create_server(app, options)
        channel_class = type("RetrievalChannel", (SelfFlushingChannel,),
                             {"max_pipelined": settings.max_pipelined_requests})
    loop = io_loop.install(server)
    for listener in _listeners(server):
        listener.channel_class = channel_class
        listener.io_loop = loop
        close_overdue(listener, deadlines, loop)
        make_room_at_limit(listener)
    return server


def serve(app, settings, inherited_fd=None, log=sys.stderr) -> int:
    """Serve app until SIGTERM or SIGINT, drain, close it; return the process exit code."""
    configure_logging()
    server = build_server(app, settings, inherited_fd)
    previous = GracefulStop(server, app, settings, log).install()
    try:
        corpus = getattr(app, "corpus_id", None)
        say(log, f"retrieval: serving corpus {corpus} on "
                 f"http://{server.effective_host}:{server.effective_port}")
        server.run()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        server.close()
        result_memo_stats = getattr(app, "result_memo_stats", None)
        stats = result_memo_stats() if result_memo_stats is not None else None
        if stats is not None:
            # "cache" in this line is kept: operators' log filters may match it.
            say(log, f"retrieval: result cache {stats.as_dict()}")
        close = getattr(app, "close", None)
        if close is not None:
            close()
        say(log, "retrieval: shutdown complete")
    return 0
