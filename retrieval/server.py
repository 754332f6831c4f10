"""Serving the app with Waitress: listening socket, body cap, signals, orderly shutdown."""

import importlib
import logging
import os
import signal
import socket
import sys
import threading
import time

import waitress


def load_app_object(spec: str):
    """Import `module:attribute` and return the attribute (a WSGI app)."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"--app must be MODULE:ATTRIBUTE, not {spec!r}")
    return getattr(importlib.import_module(module_name), attribute)


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


def serve(app, settings, inherited_fd=None, log=sys.stderr) -> int:
    """Serve app until SIGTERM or SIGINT, drain, close it; return the process exit code."""
    configure_logging()
    options = {
        "threads": settings.threads,
        # Far above the app's own cap, so the app's JSON 413 answers everything in between;
        # Waitress's plain-text 413 only stops bodies large enough to cost real memory.
        "max_request_body_size": settings.server_max_request_body_size,
        "ident": "retrieval",
    }
    if inherited_fd is not None:
        options["sockets"] = [socket.socket(fileno=inherited_fd)]
    else:
        options["host"] = settings.host
        options["port"] = settings.port
    server = waitress.create_server(app, **options)
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
