"""The HTTP boundary: a PEP 3333 application over a `RetrievalService`.

A request is routed by the contract's table (retrieval/http/contract.py): the Inspector's pages
(static.py) and CORS preflights (cors.py) are answered at once; any other request is checked against
its route's methods and handed to the route's operation (OPERATIONS below, one module each in
operations/), which runs the checks it needs from the app's state (state.py) first. Each refusal
happens before any later work, and no tool instance exists for a refused request. Every request ends
with its metrics and one access-log line. The app is built by factory.py; this package knows nothing
of SQL.
"""

import time
import traceback
from collections.abc import Callable

from ..core.index import IndexUnavailable
from ..core.outcomes import FAILED, LIMITED
from ..hosts import HostCheck
from .access_log import access_log_line
from .contract import (
    NO_CONTENT,
    NOT_MODIFIED,
    OK,
    OTHER,
    PERMANENT_REDIRECT,
    find_route,
    request_path,
)
from .cors import CorsPolicy
from .errors import (
    HostNotAllowed,
    InternalError,
    MethodNotAllowed,
    NotFound,
    NotReady,
    ServiceError,
)
from .exchange import Exchange, Reply, body_for, error_reply, etag_matches
from .openapi import openapi_document
from .operations.diff import Diff
from .operations.lookup import Lookup
from .operations.lookups import Corpus, Passage
from .operations.probes import Health, MetricsText, OpenAPIDocument
from .operations.retrieve import Retrieve
from .operations.search import Search
from .state import AppState
from .static import StaticPages

# Every JSON route's operation, in the contract's order. A route without one fails the first
# request to it, and a test (tests/test_contract.py).
OPERATIONS = (Retrieve, Search, Lookup, Diff, Health, Corpus, Passage, MetricsText,
              OpenAPIDocument)

# Refusals counted as admission decisions in /metrics.
REFUSAL_CODES = frozenset({"overloaded", "rate_limited", "draining"})


class RetrievalApp:
    """The WSGI application: refusals in order, then the route's operation (OPERATIONS).

    Collaborators come in as arguments (factory.create_app builds them): the app's state, which its
    operations share (service, keys, gate, memos), the CORS policy, the Host check (None: any Host),
    the Inspector's pages and the access-log sink (a callable taking one line, or None).
    """

    def __init__(self, state: AppState, cors: CorsPolicy, hosts: HostCheck | None,
                 pages: StaticPages, access_log: Callable[[str], None] | None = None):
        self._state = state
        state.openapi = openapi_document(
            state.maxima, state.settings.max_body_bytes,
            {operation.route.path: operation.openapi()
             for operation in OPERATIONS if operation.route.documented}, state.pins)
        self._operations = {operation.route.path: operation(state) for operation in OPERATIONS}
        self._cors = cors
        self._hosts = hosts
        self._pages = pages
        self._access_log = access_log
        # What retrieval's server and MCP read of the app.
        self.maxima = state.maxima  # the largest allowances a request may ask for
        self.in_flight = state.in_flight
        self.metrics = state.metrics

    @property
    def corpus_id(self):
        """Return the served corpus_id, or None once closed."""
        service = self._state.service
        return service.corpus_id if service is not None else None

    @property
    def provenance(self):
        """Return where the served snapshot's versions came from and when it was built
        (core.provenance.Provenance), or None: a JSON snapshot records none, or closed."""
        service = self._state.service
        return service.snapshot.provenance if service is not None else None

    def result_memo_stats(self):
        """Return the result memo's counters, or None once closed."""
        service = self._state.service
        return service.memo.stats() if service is not None else None

    def begin_drain(self):
        """Stop taking retrievals: /health, and /retrieve not admitted yet, answer 503 draining."""
        self._state.draining = True

    def close(self):
        """Release the snapshot and write out the access log; /health reports not_ready."""
        state = self._state
        service, state.service = state.service, None
        if service is not None:
            service.close()
        close_log = getattr(self._access_log, "close", None)
        if close_log is not None:
            close_log()

    @property
    def keys_required(self) -> bool:
        """Tell whether callers must present a key (the app has a keys file)."""
        return self._state.keys is not None

    def authenticate(self, authorization: str | None):
        """Return the key an Authorization header names (None without a keys file); raise the
        refusal a request with that header would get."""
        return self._state.key_for(authorization)

    def __call__(self, environ, start_response):
        started = time.perf_counter()
        path = request_path(environ.get("PATH_INFO", ""))
        route = find_route(path)
        exchange = Exchange(OTHER if route is None else route.path)
        method = environ["REQUEST_METHOD"]
        hosts = self._hosts
        if hosts is not None and not hosts.allows(environ.get("HTTP_HOST")):
            # Before any page, preflight or route: a rebound name gets nothing of this service.
            exchange.code = HostNotAllowed.code
            body = self._send(environ, start_response, exchange, error_reply(HostNotAllowed()))
        elif path == "" and environ.get("SCRIPT_NAME"):
            body = self._redirect_to_mount(environ, start_response, exchange)
        elif route is not None and route.page is not None and method in route.methods:
            body = self._send_page(environ, start_response, exchange, path)
        elif method == "OPTIONS" and self._cors:  # the cheap test first: `_cors` calls __bool__
            body = self._preflight(environ, start_response, exchange, route, path)
        else:
            body = self._send(environ, start_response, exchange,
                              self._reply(environ, exchange, route, path))
        self._observe(exchange, time.perf_counter() - started)
        return body

    def _reply(self, environ, exchange: Exchange, route, path: str) -> Reply:
        try:
            if route is None:
                raise NotFound(path[:64])
            if environ["REQUEST_METHOD"] not in route.methods:
                raise MethodNotAllowed(route.methods)
            return self._operations[route.path](environ, exchange, path)
        except ServiceError as error:
            exchange.code = error.code
            return error_reply(error)
        except IndexUnavailable:
            # More threads than connections opened at start-up, and the verified snapshot
            # file is no longer at its path: nothing else may be served in its name.
            exchange.code = NotReady.code
            return error_reply(NotReady("snapshot file replaced"))
        except Exception:
            # A bug, not a client mistake: the traceback goes to the server's error log.
            traceback.print_exc(file=environ["wsgi.errors"])
            exchange.code = InternalError.code
            return error_reply(InternalError())

    def _observe(self, exchange: Exchange, duration_s: float):
        status = int(exchange.status[:3])
        metrics = self._state.metrics
        run = exchange.run
        metrics.record_request(exchange.route, status, exchange.code, duration_s,
                               None if run is None else run.status)
        if exchange.code in REFUSAL_CODES:
            metrics.record_refusal(exchange.code)
        if run is not None:
            # Only a failed or limited run can hold a failed tool call.
            if run.status in (FAILED, LIMITED):
                metrics.record_tool_failures(
                    [entry["reason"] for entry in run.trace if entry.get("status") == "failed"])
        if self._access_log is not None:
            self._access_log(access_log_line(exchange, status, duration_s))

    def _send(self, environ, start_response, exchange: Exchange, reply: Reply):
        headers = list(reply.entity_headers)
        cors = self._cors.headers(environ)
        if reply.cache_control is not None:
            etag = f'"{reply.digest}"'
            validators = [("ETag", etag), ("Cache-Control", reply.cache_control)]
            if reply.status == OK and etag_matches(environ.get("HTTP_IF_NONE_MATCH", ""), etag):
                exchange.status = NOT_MODIFIED
                # A 304 carries the Vary the 200 would have (RFC 9110 15.4.5), so a cache
                # revalidating one origin's copy never serves it to another.
                start_response(exchange.status, validators + cors)
                return [b""]
            headers += validators
        headers += cors
        exchange.status = reply.status
        start_response(reply.status, headers)
        return body_for(environ, reply.body)

    def _preflight(self, environ, start_response, exchange: Exchange, route, path: str):
        if route is None or route.page is not None:
            exchange.code = NotFound.code
            return self._send(environ, start_response, exchange, error_reply(NotFound(path[:64])))
        exchange.status = NO_CONTENT
        start_response(exchange.status, self._cors.preflight_headers(environ, route.methods))
        return [b""]

    def _redirect_to_mount(self, environ, start_response, exchange: Exchange):
        # Mounted under a prefix (SCRIPT_NAME "/rag"), "/rag" itself reaches the app with an
        # empty PATH_INFO. The Inspector's relative URLs need the page at "/rag/", so send the
        # browser there (308 keeps the method), as a web server does for a directory.
        exchange.status = PERMANENT_REDIRECT
        start_response(exchange.status, [("Location", environ["SCRIPT_NAME"] + "/"),
                                         ("Content-Type", "text/plain"),
                                         ("Content-Length", "0")])
        return [b""]

    def _send_page(self, environ, start_response, exchange: Exchange, path: str):
        body, headers = self._pages.response(path)
        exchange.status = OK
        start_response(OK, list(headers))
        return body_for(environ, body)
