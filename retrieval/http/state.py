"""One app's mutable state, and what every operation checks against it first: ready, draining,
in-flight, key, rate, body.

`AppState` holds what the operations of one app share (the service, None once the app is
closed; the key store, the gate, the memos, the draining flag, the fixed maxima) and the checks
they run against it. An operation calls the checks it needs in the order its route reads; each
raises the ServiceError its refusal is, before any later work is done.
"""

import time
from dataclasses import dataclass, field, replace

from ..core.admission import Limits
from ..core.service import RetrievalService, UnknownVersion, served_version
from ..settings import Settings
from .auth import KeyStore, RateLimiter, retry_after_seconds
from .errors import (
    CollectionNotFound,
    Draining,
    InvalidRequest,
    NotReady,
    Overloaded,
    QueryNotAllowed,
    RateLimited,
    UnsupportedMediaType,
    VersionNotFound,
)
from .exchange import Exchange, Reply, is_json_media_type, read_bounded_body
from .inflight import ADMISSION_KEY, DRAINING, InFlightGate
from .metrics import Metrics
from .response_memo import RetrieveMemos
from .validation import MISSING_VERSION


def maxima_of(settings: Settings) -> Limits:
    """Return the largest allowances a request may ask for under these settings."""
    return Limits(
        max_steps=settings.max_steps_limit,
        max_searches=settings.max_searches_limit,
        max_reads=settings.max_reads_limit,
        max_source_bytes=settings.max_source_bytes_limit,
        max_tokens=settings.max_tokens_limit,
    )


def verified(service: RetrievalService) -> RetrievalService:
    """Return service, or refuse (503 not_ready) once its verified file was rewritten in place."""
    # One fstat of the held descriptor: a file rewritten under the server (cp over it) must not
    # be answered under the corpus_id verified at load, by any route (/health says not_ready).
    if not service.serving_verified():
        raise NotReady("snapshot file rewritten")
    return service


@dataclass(eq=False)
class AppState:
    """One app's mutable state, which its operations share, and the checks they run first."""

    service: RetrievalService | None  # None once the app is closed
    settings: Settings
    keys: KeyStore | None  # None: no authentication
    maxima: Limits = field(init=False)  # the largest allowances a request may ask for
    in_flight: InFlightGate = field(init=False)
    memos: RetrieveMemos = field(init=False)
    metrics: Metrics = field(init=False)
    collections: dict = field(init=False)  # the snapshot's, by name
    default_collection: str | None = field(init=False)
    pins: bool = field(init=False)  # the snapshot pins versions (project.json)
    deadline_s: float = field(init=False)
    draining: bool = False
    # This app's OpenAPI document, built by the app from every operation's (/openapi.json).
    openapi: dict = field(default_factory=dict)
    rate_limiter: RateLimiter = field(default_factory=RateLimiter)

    def __post_init__(self):
        settings, service = self.settings, self.service
        assert service is not None, "an app is built over a loaded service"
        self.maxima = maxima_of(settings)
        self.in_flight = InFlightGate(settings.max_in_flight, settings.max_in_flight_per_peer)
        self.memos = RetrieveMemos(settings.cache_entries, settings.cache_bytes)
        self.metrics = Metrics(in_flight=lambda: self.in_flight.count, memos=self.memo_stats)
        self.collections = service.snapshot.collections
        self.default_collection = service.snapshot.default_collection
        self.pins = service.snapshot.project is not None
        self.deadline_s = settings.deadline_ms / 1000

    def memo_stats(self) -> dict:
        """Return the counters of the reply, request and result memos."""
        service = self.service
        stats = {"response": self.memos.responses.stats(),
                 "request": self.memos.requests.stats()}
        if service is not None:
            stats["result"] = service.memo.stats()
        return stats

    def ready_service(self) -> RetrievalService:
        """Return the service, or refuse (503 not_ready) once closed or its file rewritten."""
        service = self.service
        if service is None:
            raise NotReady("application closed")
        return verified(service)

    def admitted(self, environ, exchange: Exchange, run) -> Reply:
        """Run an admitted route's work inside the in-flight gate, or refuse it."""
        service = self.ready_service()
        # A request the server admitted before the drain began finishes (shutdown_grace_s
        # bounds the wait); everything else is refused.
        admitted = environ.get(ADMISSION_KEY)
        if admitted == DRAINING or (self.draining and admitted is not True):
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

    def authenticate(self, environ, exchange: Exchange):
        """Return the caller's key (None without a keys file), or refuse the request."""
        key = self.key_for(environ.get("HTTP_AUTHORIZATION"))
        if key is not None:
            exchange.key_id = key.key_id
        return key

    def key_for(self, authorization: str | None):
        """Return the key an Authorization header names (None without a keys file); raise the
        refusal a request with that header would get."""
        if self.keys is None:
            return None
        return self.keys.authenticate(authorization, time.time())

    def json_body(self, environ, exchange: Exchange, started: float):
        """Authenticate and rate-limit the caller, then return (key, the JSON body's bytes)."""
        key = self.authenticate(environ, exchange)
        if key is not None:
            wait_s = self.rate_limiter.take(key, started)
            if wait_s > 0:
                raise RateLimited(retry_after_seconds(wait_s))
        # Every input is in the body; a query string would otherwise be silently ignored.
        if environ.get("QUERY_STRING"):
            raise QueryNotAllowed(exchange.route, environ["QUERY_STRING"][:64])
        if not is_json_media_type(environ.get("CONTENT_TYPE", "")):
            raise UnsupportedMediaType(environ.get("CONTENT_TYPE", "")[:64])
        return key, read_bounded_body(environ, self.settings.max_body_bytes)

    def reads_all(self, key) -> bool:
        """Tell whether the caller may read every collection."""
        return key is None or all(key.may_read(name) for name in self.collections)

    def visible(self, key) -> tuple:
        """Return the names of the collections the caller may read."""
        return tuple(name for name in self.collections if key is None or key.may_read(name))

    def default_for(self, key) -> str | None:
        """Return what a request of this caller naming no collection reads, or None.

        A key sees the snapshot as if it held only the collections it may read: the snapshot's
        default if the key may read it, else the key's only collection, else none. So a key
        learns nothing of the others: not even that there are others, nor that the default is
        one of them.
        """
        if key is None:
            return self.default_collection
        visible = self.visible(key)
        if self.default_collection in visible:
            return self.default_collection
        return visible[0] if len(visible) == 1 else None

    def check_readable(self, key, collection: str | None, named: bool = True):
        """Refuse (404) a collection that is missing or hidden from the caller's key."""
        # One answer whether the collection is missing or only hidden from this key. Only a
        # request that named none is told the collections, and only the caller's own.
        if collection not in self.collections or (
                key is not None and not key.may_read(collection)):
            raise CollectionNotFound(str(collection), None if named else self.visible(key),
                                     named)

    def resolved(self, key, request):
        """Return a parsed request with its collection and version settled, or refuse it.

        Parsed with the caller's default collection (default_for), a request names None only
        when the caller has no default. The collection is the one its name reads
        (Snapshot.resolve_collection: a distribution's name in any spelling, a pinned import
        name), among those the caller may read, refused alike whether missing or hidden from the
        key; once the caller is known to be one who may read it, the version is served as
        Collection.serve_version says, or, where the request names none, the project's pin.
        """
        snapshot = self.ready_service().snapshot
        name = request.collection
        readable = None if key is None else self.visible(key)
        found = snapshot.resolve_collection(name, readable) if name is not None else None
        self.check_readable(key, name if found is None else found, named=name is not None)
        names = {} if found == name else {"served_collection": found}
        if request.version is None:
            pinned = snapshot.pinned_version(found)
            if pinned is None:
                raise InvalidRequest([MISSING_VERSION])
            return replace(request, served_version=pinned, pinned=True, **names)
        try:
            served = served_version(self.collections[found], request.version)
        except UnknownVersion as unknown:
            raise VersionNotFound(unknown.collection, unknown.version, unknown.versions) from None
        return replace(request, served_version=served, **names)
