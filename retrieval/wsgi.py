"""The HTTP boundary: a PEP 3333 application over a `RetrievalService`.

A request is routed by the contract's table (retrieval/contract.py): the Inspector's pages
(retrieval/static.py) and CORS preflights (retrieval/cors.py) are answered at once; any other
request is checked against its route's methods and handed to the route's handler (HANDLERS).
/retrieve reads top to bottom: ready -> draining -> in-flight admission -> key -> rate limit ->
query string -> media type -> body bytes (bounded) -> strict JSON -> validated request ->
collection -> core run under a deadline, or the memoized reply -> response bytes. Each refusal
happens before any later work, and no tool instance exists for a refused request. Every request
ends with its metrics and one access-log line. This module knows nothing of SQL.
"""

import re
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from .access_log import BatchedLineWriter, access_log_line, run_fields
from .contract import (
    BODY_DIGEST_HEADER,
    CORPUS,
    HEALTH,
    METRICS,
    NO_CONTENT,
    NOT_MODIFIED,
    OK,
    OPENAPI,
    OTHER,
    PASSAGE,
    PERMANENT_REDIRECT,
    RETRIEVE,
    SEARCH,
    UNAVAILABLE,
    find_route,
    request_path,
)
from .core import digests
from .core.admission import Limits
from .core.index import IndexUnavailable
from .core.model import FAILED, LIMITED
from .core.service import RetrievalService, RunResult, UnknownVersion, served_version
from .core.snapshot import SnapshotError, default_snapshot_path, load_snapshot
from .cors import CorsPolicy
from .errors import (
    BodyTooLarge,
    CollectionNotFound,
    Draining,
    HostNotAllowed,
    InternalError,
    InvalidContentLength,
    MethodNotAllowed,
    NotFound,
    NotReady,
    Overloaded,
    PassageNotFound,
    QueryNotAllowed,
    RateLimited,
    ServiceError,
    UnsupportedMediaType,
    VersionNotFound,
)
from .hosts import HostCheck, parse_hosts
from .inflight import ADMISSION_KEY, DRAINING, InFlightGate
from .keys import KeysFileError, KeyStore, RateLimiter, retry_after_seconds
from .metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from .metrics import Metrics
from .openapi import openapi_document
from .request import decode_body, parse_retrieve_request
from .rerank import attach
from .response import (
    corpus_body,
    encode_error,
    encode_json,
    encode_run_result,
    health_body,
    passage_body,
)
from .response_memo import KnownRequest, MemoizedRun, RetrieveMemos
from .search import parse_search_request, run_search
from .settings import Settings, SettingsError, load_settings, parse_origins
from .static import StaticPages
from .waitress_serve import check_addresses


def is_json_media_type(content_type: str) -> bool:
    """Accept application/json in any case, with parameters; refuse a charset other than UTF-8."""
    if content_type == "application/json":  # what nearly every client sends
        return True
    media_type, _, parameters = content_type.partition(";")
    if media_type.strip().lower() != "application/json":
        return False
    for parameter in parameters.split(";"):
        name, _, value = parameter.partition("=")
        # JSON is UTF-8 (RFC 8259); decoding a declared latin-1 body as UTF-8 would coerce it.
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() not in (
                "utf-8", "utf8"):
            return False
    return True


def read_bounded_body(environ, cap: int) -> bytes:
    """Read the request body, refusing (413) anything over cap without reading past cap + 1."""
    stream = environ["wsgi.input"]
    declared = environ.get("CONTENT_LENGTH", "")
    if declared:
        if not (declared.isascii() and declared.isdigit()):
            raise InvalidContentLength(f"Content-Length {declared[:32]!r}")
        length = int(declared)
        if length > cap:
            raise BodyTooLarge(cap, f"Content-Length {length}")
        return _read_up_to(stream, length)
    # No length: only a server that marks the input as terminated (or passes a chunked body
    # through) lets the app read to end-of-stream; elsewhere PEP 3333 makes the body empty.
    chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
    if not (environ.get("wsgi.input_terminated") or chunked):
        return b""
    body = _read_up_to(stream, cap + 1)
    if len(body) > cap:
        raise BodyTooLarge(cap, "undeclared length")
    return body


def _read_up_to(stream, limit: int) -> bytes:
    first = stream.read(limit)
    # A server that buffered the body (Waitress does) returns it in one read.
    if len(first) == limit or not first:
        return first
    parts = [first]
    remaining = limit - len(first)
    while remaining > 0:
        chunk = stream.read(remaining)
        if not chunk:
            break
        parts.append(chunk)
        remaining -= len(chunk)
    return b"".join(parts)


@dataclass(slots=True)
class Exchange:
    """What one request did, filled in as it goes: request-local, read by metrics and the log."""

    route: str
    status: str = ""
    code: str = ""
    key_id: str | None = None
    run: RunResult | None = None
    run_fields: str = ""  # the run's access-log fields, when already formatted


@dataclass(frozen=True)
class Reply:
    """A JSON response before CORS and validators: status, body bytes, extra headers, cache policy.

    `cache_control` is set only for content-addressed responses: they get an ETag (the body
    digest) and are answered 304 when If-None-Match names it. The body's digest and the entity
    headers are computed once, here, so a memoized reply sent again computes neither.
    """

    status: str
    body: bytes
    headers: tuple = ()
    cache_control: str | None = None
    content_type: str = "application/json"
    digest: str = field(init=False)  # the body's SHA-256, hex
    entity_headers: tuple = field(init=False)  # Content-Type, Content-Length, digest, headers

    def __post_init__(self):
        digest = digests.sha256_hex(self.body)
        object.__setattr__(self, "digest", digest)
        object.__setattr__(self, "entity_headers", (
            ("Content-Type", self.content_type),
            ("Content-Length", str(len(self.body))),
            (BODY_DIGEST_HEADER, digest),
            *self.headers,
        ))


def error_reply(error: ServiceError) -> Reply:
    """Return the documented JSON reply of a refusal."""
    return Reply(error.status, encode_error(error), tuple(error.headers()))


# A passage id names one passage of one corpus, so its 200 response can never change.
IMMUTABLE = "public, max-age=31536000, immutable"
# /corpus describes whatever snapshot is deployed now: cacheable, but revalidated every time.
REVALIDATE = "no-cache"
# With keys, what a response shows depends on who asked: no shared cache may keep it.
PRIVATE_IMMUTABLE = "private, max-age=31536000, immutable"
PRIVATE_REVALIDATE = "private, no-cache"
_PASSAGE_ID = re.compile(r"[0-9a-f]{64}")


def etag_matches(if_none_match: str, etag: str) -> bool:
    """Apply If-None-Match's weak comparison (RFC 9110 13.1.2) to one entity tag."""
    for candidate in if_none_match.split(","):
        candidate = candidate.strip()
        if candidate == "*" or candidate.removeprefix("W/") == etag:
            return True
    return False


class RetrievalApp:
    """The WSGI application: refusals in order, then the route's handler (HANDLERS).

    Collaborators come in as arguments: the service (snapshot and index), the key store (None:
    no authentication), and the access-log sink (a callable taking one line, or None).
    """

    def __init__(self, service: RetrievalService, settings: Settings,
                 keys: KeyStore | None = None,
                 access_log: Callable[[str], None] | None = None):
        self._service = service
        self._body_cap = settings.max_body_bytes
        # The largest allowances a request may ask for (MCP's tool schemas show them too).
        self.maxima = Limits(
            max_steps=settings.max_steps_limit,
            max_searches=settings.max_searches_limit,
            max_reads=settings.max_reads_limit,
            max_source_bytes=settings.max_source_bytes_limit,
        )
        self._deadline_s = settings.deadline_ms / 1000
        self._keys = keys
        self._rate_limiter = RateLimiter()
        self._access_log = access_log
        self.in_flight = InFlightGate(settings.max_in_flight, settings.max_in_flight_per_peer)
        self._memos = RetrieveMemos(settings.cache_entries, settings.cache_bytes)
        self.metrics = Metrics(in_flight=lambda: self.in_flight.count, memos=self._memo_stats)
        # Replies whose bytes never change are built (and hashed) once, not per request.
        self._health_ok = Reply(OK, encode_json(health_body(service.corpus_id,
                                                            show_corpus_id=keys is None)))
        self._draining = False
        self._cors = CorsPolicy(parse_origins(settings.cors_origins))
        self._collections = service.snapshot.collections
        self._default_collection = service.snapshot.default_collection
        self._corpus_replies: dict[tuple, Reply] = {}  # by the collections a caller may read
        self._openapi_reply = Reply(
            OK, encode_json(openapi_document(self.maxima, settings.max_body_bytes)),
            cache_control=REVALIDATE)
        self._pages = StaticPages()
        # Without keys, only the names the service is served under (DNS rebinding).
        self._hosts = HostCheck(parse_hosts(settings.allowed_hosts)) if keys is None else None

    @property
    def corpus_id(self):
        """Return the served corpus_id, or None once closed."""
        service = self._service
        return service.corpus_id if service is not None else None

    def result_memo_stats(self):
        """Return the result memo's counters, or None once closed."""
        service = self._service
        return service.memo.stats() if service is not None else None

    def _memo_stats(self) -> dict:
        service = self._service
        stats = {"response": self._memos.responses.stats(),
                 "request": self._memos.requests.stats()}
        if service is not None:
            stats["result"] = service.memo.stats()
        return stats

    def begin_drain(self):
        """Stop taking retrievals: /health, and /retrieve not admitted yet, answer 503 draining."""
        self._draining = True

    def close(self):
        """Release the snapshot and write out the access log; /health reports not_ready."""
        service, self._service = self._service, None
        if service is not None:
            service.close()
        close_log = getattr(self._access_log, "close", None)
        if close_log is not None:
            close_log()

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
            return HANDLERS[route.path](self, environ, exchange, path)
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
        metrics = self.metrics
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
        return _body(environ, reply.body)

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
        return _body(environ, body)

    # --- handlers: one per JSON route, called with the method already allowed ------------------

    def _health(self, environ, exchange: Exchange, path: str) -> Reply:
        service = self._service
        if self._draining or service is None or not service.serving_verified():
            return Reply(UNAVAILABLE, encode_json(health_body(None, draining=self._draining)))
        return self._health_ok

    def _openapi(self, environ, exchange: Exchange, path: str) -> Reply:
        return self._openapi_reply

    def _metrics(self, environ, exchange: Exchange, path: str) -> Reply:
        # With keys, the counters (memo hits among them) would tell one key of others' requests.
        self._authenticate(environ, exchange)
        return Reply(OK, self.metrics.render(), content_type=METRICS_CONTENT_TYPE)

    def _ready_service(self) -> RetrievalService:
        service = self._service
        if service is None:
            raise NotReady("application closed")
        return _verified(service)

    def _corpus(self, environ, exchange: Exchange, path: str) -> Reply:
        self._ready_service()
        key = self._authenticate(environ, exchange)
        visible = self._visible(key)
        reply = self._corpus_replies.get(visible)
        if reply is None:
            reply = Reply(OK, encode_json(corpus_body((self._collections[name] for name in visible),
                                                      self._default_collection)),
                          cache_control=REVALIDATE if self._keys is None else PRIVATE_REVALIDATE)
            self._corpus_replies[visible] = reply
        return reply

    def _passage(self, environ, exchange: Exchange, path: str) -> Reply:
        service = self._ready_service()
        key = self._authenticate(environ, exchange)
        passage_id = path[len(PASSAGE.prefix):]
        passage = service.passage(passage_id) if _PASSAGE_ID.fullmatch(passage_id) else None
        # A passage of a collection the key may not read is answered exactly like a missing one,
        # after the same work (the lookup reads and decodes a row either way).
        if passage is None or (key is not None and not key.may_read(passage.collection)):
            raise PassageNotFound(passage_id[:64])
        _verified(service)  # the row just read came from the verified file
        corpus_id = self._collections[passage.collection].corpus_id
        return Reply(OK, encode_json(passage_body(corpus_id, passage)),
                     cache_control=IMMUTABLE if self._keys is None else PRIVATE_IMMUTABLE)

    def _retrieve(self, environ, exchange: Exchange, path: str) -> Reply:
        return self._admitted(environ, exchange, self._run)

    def _search(self, environ, exchange: Exchange, path: str) -> Reply:
        return self._admitted(environ, exchange, self._run_search)

    def _admitted(self, environ, exchange: Exchange, run) -> Reply:
        """Run an admitted route's work inside the in-flight gate, or refuse it."""
        service = self._ready_service()
        # A request the server admitted before the drain began finishes (shutdown_grace_s
        # bounds the wait); everything else is refused.
        admitted = environ.get(ADMISSION_KEY)
        if admitted == DRAINING or (self._draining and admitted is not True):
            raise Draining("shutting down")
        if admitted is False:
            raise Overloaded("refused by the server's in-flight gate")
        if admitted:
            return run(service, environ, exchange)
        # Not admitted by retrieval's own server: count the running request here.
        peer = environ.get("REMOTE_ADDR")
        if not self.in_flight.try_enter(peer):
            raise Overloaded(f"{self.in_flight.limit} requests in flight")
        try:
            return run(service, environ, exchange)
        finally:
            self.in_flight.leave(peer)

    @property
    def keys_required(self) -> bool:
        """Tell whether callers must present a key (the app has a keys file)."""
        return self._keys is not None

    def authenticate(self, authorization: str | None):
        """Return the key an Authorization header names (None without a keys file); raise the
        refusal a request with that header would get."""
        if self._keys is None:
            return None
        return self._keys.authenticate(authorization, time.time())

    def _authenticate(self, environ, exchange: Exchange):
        key = self.authenticate(environ.get("HTTP_AUTHORIZATION"))
        if key is not None:
            exchange.key_id = key.key_id
        return key

    def _json_body(self, environ, exchange: Exchange, started: float):
        """Authenticate and rate-limit the caller, then return (key, the JSON body's bytes)."""
        key = self._authenticate(environ, exchange)
        if key is not None:
            wait_s = self._rate_limiter.take(key, started)
            if wait_s > 0:
                raise RateLimited(retry_after_seconds(wait_s))
        # Every input is in the body; a query string would otherwise be silently ignored.
        if environ.get("QUERY_STRING"):
            raise QueryNotAllowed(exchange.route, environ["QUERY_STRING"][:64])
        if not is_json_media_type(environ.get("CONTENT_TYPE", "")):
            raise UnsupportedMediaType(environ.get("CONTENT_TYPE", "")[:64])
        return key, read_bounded_body(environ, self._body_cap)

    def _reads_all(self, key) -> bool:
        return key is None or all(key.may_read(name) for name in self._collections)

    def _visible(self, key) -> tuple:
        """Return the names of the collections the caller may read."""
        return tuple(name for name in self._collections if key is None or key.may_read(name))

    def _check_readable(self, key, collection: str | None, named: bool = True):
        # One answer whether the collection is missing or only hidden from this key. Only a
        # request that named none is told the collections, and only the caller's own.
        if collection not in self._collections or (
                key is not None and not key.may_read(collection)):
            raise CollectionNotFound(str(collection), None if named else self._visible(key),
                                     named)

    def _resolved(self, key, request):
        """Return a parsed request with its served version settled, or refuse it.

        Parsed with the snapshot's default collection, a request names None only when the
        snapshot has no default. The version is served as Collection.serve_version says, once
        the caller is known to be one who may read the collection.
        """
        name = request.collection
        self._check_readable(key, name, named=name is not None)
        try:
            served = served_version(self._collections[name], request.version)
        except UnknownVersion as unknown:
            raise VersionNotFound(unknown.collection, unknown.version, unknown.versions) from None
        return request if served is None else replace(request, served_version=served)

    def _run_search(self, service, environ, exchange: Exchange) -> Reply:
        started = time.monotonic()
        key, body = self._json_body(environ, exchange, started)
        request = self._resolved(key, parse_search_request(
            decode_body(body), self.maxima.max_source_bytes, self._default_collection))
        found = run_search(service, request, started + self._deadline_s)
        _verified(service)  # what a rewritten file gave is never sent
        return Reply(OK, encode_json(found))

    def _run(self, service, environ, exchange: Exchange) -> Reply:
        started = time.monotonic()
        key, body = self._json_body(environ, exchange, started)
        memos = self._memos
        # A key that may not read every collection is checked before any memo is consulted:
        # a memoized body of a hidden collection would otherwise answer faster (and count a hit
        # on /metrics), telling the key that somebody asked it, so that it exists.
        known, memoized = memos.find(body) if self._reads_all(key) else (None, None)
        if known:
            request = known.request  # resolved when it was first parsed
            self._check_readable(key, request.collection)
        else:
            request = self._resolved(key, parse_retrieve_request(body, self.maxima,
                                                                 self._default_collection))
        if known is None:
            known = KnownRequest(request, service.request_id(request), len(body))
            memos.requests.put(body, known)
            # Another spelling of the same request may have left its reply.
            memoized = memos.responses.get(known.request_id)
        if memoized is None:
            result = service.retrieve(request, started + self._deadline_s, known.request_id)
            _verified(service)  # never memoize, nor send, what a rewritten file gave
            status, payload = encode_run_result(result)
            memoized = MemoizedRun(Reply(status, payload), result, run_fields(result))
            memos.responses.put(known.request_id, memoized)
        exchange.run = memoized.run
        exchange.run_fields = memoized.run_fields
        return memoized.reply


# The dispatcher: each JSON route of the contract and its handler (the Inspector's pages are
# retrieval/static.py's). A route without a handler fails the first request to it, and a test.
HANDLERS = {
    RETRIEVE.path: RetrievalApp._retrieve,
    SEARCH.path: RetrievalApp._search,
    HEALTH.path: RetrievalApp._health,
    CORPUS.path: RetrievalApp._corpus,
    PASSAGE.path: RetrievalApp._passage,
    METRICS.path: RetrievalApp._metrics,
    OPENAPI.path: RetrievalApp._openapi,
}


def _verified(service: RetrievalService) -> RetrievalService:
    """Return service, or refuse (503 not_ready) once its verified file was rewritten in place."""
    # One fstat of the held descriptor: a file rewritten under the server (cp over it) must not
    # be answered under the corpus_id verified at load, by any route (/health says not_ready).
    if not service.serving_verified():
        raise NotReady("snapshot file rewritten")
    return service


def _body(environ, body: bytes) -> list:
    # Waitress sends whatever the app returns, even for HEAD; the headers stay those of GET.
    return [b""] if environ["REQUEST_METHOD"] == "HEAD" else [body]


# Refusals counted as admission decisions in /metrics.
REFUSAL_CODES = frozenset({"overloaded", "rate_limited", "draining"})


def create_app(snapshot_path=None, tool_factory=None, settings=None, expect_corpus_id=None,
               access_log=None):
    """Load and verify a snapshot (and the keys file), build the index, return the WSGI app.

    access_log: a callable taking one line per request; default stderr when the access_log
    setting is on.
    """
    settings = settings or load_settings()
    path = snapshot_path or settings.snapshot or default_snapshot_path()
    keys = KeyStore.load(settings.keys_file) if settings.keys_file else None
    # A semantic snapshot's re-ranker is attached here, by the extra, before its index opens.
    service = RetrievalService(
        attach(load_snapshot(path, expect_corpus_id or settings.expect_corpus_id)), tool_factory,
        memo_entries=settings.cache_entries, memo_bytes=settings.cache_bytes,
        connections=settings.threads)
    if access_log is None and settings.access_log:
        access_log = BatchedLineWriter(sys.stderr)
    return RetrievalApp(service, settings, keys, access_log)


def __getattr__(name):
    # `app` is created on first access (waitress-serve resolves it before serving), so importing
    # this module for create_app() does not load a snapshot as a side effect.
    if name == "app":
        try:
            check_addresses()
            app = create_app()
        except (SnapshotError, SettingsError, KeysFileError) as exc:
            # A start-up refusal under `waitress-serve retrieval.wsgi:app`: Waitress answers an
            # exception while resolving the app with its whole --help text and a traceback.
            # SystemExit is not one it catches, so one line and exit status 2 are all there is.
            print(f"retrieval: {exc}", file=sys.stderr)
            raise SystemExit(2) from None
        globals()["app"] = app
        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
