"""Serving the app with Waitress: listening socket, protections, admission, signals, shutdown.

Waitress protections set here, each from a setting (README, "Operators"):
- max_request_body_size: bodies this large get Waitress's own 413 before the app reads them;
- channel_timeout: a connection idle, or trickling its request, this long is closed, so slow
  clients cannot hold connections;
- connection_limit: at most this many open connections are served, the rest wait in the
  listen backlog;
- admission before the task queue (AdmittingDispatcher): at most max_in_flight /retrieve requests
  are queued or running; the next is answered 503 overloaded at once by a separate thread, which
  also answers /health and /metrics so probes never wait behind retrievals.
"""

import importlib
import ipaddress
import logging
import os
import signal
import socket
import sys
import threading
import time

import waitress
from waitress.channel import HTTPChannel
from waitress.task import ThreadedTaskDispatcher, WSGITask

from .inflight import ADMISSION_KEY
from .settings import SettingsError


def load_app_object(spec: str):
    """Import `module:attribute` and return the attribute (a WSGI app)."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"--app must be MODULE:ATTRIBUTE, not {spec!r}")
    return getattr(importlib.import_module(module_name), attribute)


def refuse_open_exposure(settings, inherited_fd=None):
    """Refuse to listen beyond loopback without a keys file, unless explicitly allowed."""
    if settings.keys_file or settings.allow_unauthenticated:
        return
    if inherited_fd is not None:
        with socket.socket(fileno=os.dup(inherited_fd)) as listening:
            address = listening.getsockname()
        host = address[0] if isinstance(address, tuple) else "localhost"  # AF_UNIX: local
    else:
        host = settings.host
    if not is_loopback(host):
        raise SettingsError(
            f"refusing to serve on {host} without a keys file: anyone who reaches the port "
            "could read every collection; set keys_file, or pass --allow-unauthenticated")


def is_loopback(host: str) -> bool:
    """Tell whether a listen address is reachable from this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name other than localhost may resolve anywhere


class AdmissionTask(WSGITask):
    """A WSGI task whose environ carries the server's admission decision for the request."""

    def get_environment(self):
        environ = super().get_environment()
        decision = getattr(self.request, "retrieval_admitted", None)
        if decision is not None:
            environ[ADMISSION_KEY] = decision
        return environ


class SelfFlushingChannel(HTTPChannel):
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
            if getattr(request, "retrieval_admitted", None):
                request.retrieval_admitted = None
                self.gate.leave()


# Probes answered from memory: they take the fast lane, never a place behind retrievals.
FAST_LANE_PATHS = frozenset({"/health", "/metrics"})


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
        self._fast_lane = ThreadedTaskDispatcher()
        self._fast_lane.set_thread_count(1)

    def add_task(self, task):
        requests = getattr(task, "requests", None)
        request = requests[0] if requests else None
        if request is not None and not request.error:
            if request.path == "/retrieve" and request.command == "POST":
                request.retrieval_admitted = self._gate.try_enter()
                if not request.retrieval_admitted:
                    self._fast_lane.add_task(task)
                    return
            elif request.path in FAST_LANE_PATHS:
                self._fast_lane.add_task(task)
                return
        super().add_task(task)

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
            begin_drain = getattr(self._app, "begin_drain", None)
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


def build_server(app, settings, inherited_fd=None):
    """Create the Waitress server `retrieval serve` runs: options, admission, channel class."""
    options = {
        "threads": settings.threads,
        # Far above the app's own cap, so the app's JSON 413 answers everything in between;
        # Waitress's plain-text 413 only stops bodies large enough to cost real memory.
        "max_request_body_size": settings.server_max_request_body_size,
        "channel_timeout": settings.channel_timeout_s,
        # Waitress checks for idle channels once per cleanup_interval (30 s by default), so a
        # shorter timeout needs checks at least that often to mean anything.
        "cleanup_interval": min(30, settings.channel_timeout_s),
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
        server = waitress.create_server(app, _dispatcher=dispatcher, **options)
        channel_class = type("RetrievalChannel", (AdmissionChannel,), {"gate": gate})
    else:
        server = waitress.create_server(app, **options)
        channel_class = SelfFlushingChannel
    for listener in _listeners(server):
        listener.channel_class = channel_class
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
        cache_stats = getattr(app, "cache_stats", None)
        stats = cache_stats() if cache_stats is not None else None
        if stats is not None:
            say(log, f"retrieval: result cache {stats.as_dict()}")
        close = getattr(app, "close", None)
        if close is not None:
            close()
        say(log, "retrieval: shutdown complete")
    return 0
