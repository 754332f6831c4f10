"""Serving the app with Waitress: listening socket, body cap, signals, orderly shutdown."""

import importlib
import logging
import signal
import socket
import sys

import waitress


def load_app_object(spec: str):
    """Import `module:attribute` and return the attribute (a WSGI app)."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"--app must be MODULE:ATTRIBUTE, not {spec!r}")
    return getattr(importlib.import_module(module_name), attribute)


def _exit_on_sigterm(signum, frame):
    # Waitress's run loop treats SystemExit like Ctrl-C: it stops accepting and shuts down its
    # task dispatcher, then returns to us so that the app can be closed.
    raise SystemExit(0)


def configure_logging():
    """Log Waitress's messages to stderr, without its per-request queue-depth warnings."""
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # Waitress warns "Task queue depth is N" for every request that waits for a worker. With the
    # one worker thread this service ships with, waiting is the normal case: under load that is
    # thousands of lines a second, which fills logs and costs throughput.
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)


def serve(app, settings, inherited_fd=None, log=sys.stderr) -> int:
    """Serve app until SIGTERM or SIGINT, then close it; return the process exit code."""
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
    previous = signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        corpus = getattr(app, "corpus_id", None)
        print(f"retrieval: serving corpus {corpus} on "
              f"http://{server.effective_host}:{server.effective_port}", file=log, flush=True)
        server.run()
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.close()
        cache_stats = getattr(app, "cache_stats", None)
        stats = cache_stats() if cache_stats is not None else None
        if stats is not None:
            print(f"retrieval: result cache {stats.as_dict()}", file=log, flush=True)
        close = getattr(app, "close", None)
        if close is not None:
            close()
        print("retrieval: shutdown complete", file=log, flush=True)
    return 0
