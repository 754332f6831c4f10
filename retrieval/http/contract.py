"""The HTTP contract, each fact once: routes, header names, statuses, error codes, allowances.

The app (retrieval/http/app.py), the server's admission and fast lane
(retrieval/serve/server.py), the OpenAPI document (retrieval/http/openapi.py) and the client
(retrieval/client.py) all read these values; none of them spells a route, a status line or the
digest header itself. Run statuses and reasons, and the allowances with their defaults and
maxima, are the core's (it knows nothing of HTTP, and never imports this module); they are
re-exported here for the HTTP layer.
"""

from dataclasses import dataclass

from ..core.admission import (  # noqa: F401 (re-exported)
    ALLOWANCES,
    DEFAULT_LIMITS,
    DEFAULT_MAXIMA,
    TOKEN_ALLOWANCE,
)
from ..core.outcomes import DENIAL_REASONS as DENIAL_REASONS  # re-exported for the HTTP side
from ..core.outcomes import FAILED
from ..core.outcomes import RUN_STATUSES as RUN_STATUSES  # re-exported for the HTTP side

# --- headers ------------------------------------------------------------------------------------

# Every response carries the hex SHA-256 of its exact body bytes under this name.
BODY_DIGEST_HEADER = "X-Retrieval-Body-SHA256"

# --- statuses -----------------------------------------------------------------------------------

OK = "200 OK"
NO_CONTENT = "204 No Content"
NOT_MODIFIED = "304 Not Modified"
PERMANENT_REDIRECT = "308 Permanent Redirect"
UNAVAILABLE = "503 Service Unavailable"

# Each error code and the HTTP status line it is sent with.
HTTP_STATUS = {
    "invalid_content_length": "400 Bad Request",
    "query_not_allowed": "400 Bad Request",
    "unauthenticated": "401 Unauthorized",
    "invalid_credentials": "401 Unauthorized",
    "not_found": "404 Not Found",
    "collection_not_found": "404 Not Found",
    "version_not_found": "404 Not Found",
    "passage_not_found": "404 Not Found",
    "method_not_allowed": "405 Method Not Allowed",
    "diff_unavailable": "409 Conflict",
    "host_not_allowed": "421 Misdirected Request",
    "body_too_large": "413 Content Too Large",
    "unsupported_media_type": "415 Unsupported Media Type",
    "invalid_json": "422 Unprocessable Content",
    "invalid_request": "422 Unprocessable Content",
    "rate_limited": "429 Too Many Requests",
    "internal_error": "500 Internal Server Error",
    "not_ready": UNAVAILABLE,
    "search_failed": UNAVAILABLE,
    "draining": UNAVAILABLE,
    "overloaded": UNAVAILABLE,
}

# --- runs ---------------------------------------------------------------------------------------

# Run statuses and reasons are the core's (core/outcomes.py); RUN_STATUSES and DENIAL_REASONS are
# re-exported from here for the HTTP side.

# A run that failed in a tool is reported in full, but with a status that tells proxies and
# clients it may succeed on retry; every other terminal status is a successful retrieval.
RUN_HTTP_STATUS = {FAILED: UNAVAILABLE}


def run_status_line(run_status: str) -> str:
    """Return the HTTP status line a run result with this terminal status is sent with."""
    return RUN_HTTP_STATUS.get(run_status, OK)


# --- routes -------------------------------------------------------------------------------------

# Where `retrieval serve` queues a request of a route (retrieval/serve/server.py).
ADMITTED = "admitted"  # through the in-flight gate; refused at once when it is full
FAST = "fast"  # the one-thread fast lane: answered from memory, never behind retrievals
WORKER = "worker"  # the worker threads' queue

READ_METHODS = ("GET", "HEAD")


@dataclass(frozen=True)
class Page:
    """A static file of the Retrieval Inspector: the packaged file and its media type."""

    file: str
    media_type: str


@dataclass(frozen=True)
class Route:
    """One route: its path (a template for /passages), methods, lane, and what it serves.

    The path is also the route's label in metrics and access logs, so labels stay a closed set.
    """

    path: str
    methods: tuple
    lane: str = WORKER
    page: Page | None = None  # set for the Inspector's files (no CORS, not JSON)
    documented: bool = True  # listed in the OpenAPI document

    @property
    def prefix(self) -> str | None:
        """Return the fixed part of a template path (before its `{`), or None for exact paths."""
        head, brace, _ = self.path.partition("{")
        return head if brace else None

    def fill(self, value: str) -> str:
        """Return the path of a template route with its parameter set to value."""
        prefix = self.prefix
        if prefix is None:
            raise ValueError(f"{self.path} has no parameter")
        return prefix + value

    def value_of(self, path: str) -> str:
        """Return the parameter of a path this template route matched."""
        return path[len(self.fill("")):]


RETRIEVE = Route("/retrieve", ("POST",), ADMITTED)
SEARCH = Route("/search", ("POST",), ADMITTED)  # one ranked search (MCP's search_docs)
DIFF = Route("/diff", ("POST",), ADMITTED)  # two versions' API changes (MCP's diff_versions)
LOOKUP = Route("/lookup", ("POST",), ADMITTED)  # an API name across versions (MCP's lookup_api)
HEALTH = Route("/health", READ_METHODS, FAST)
CORPUS = Route("/corpus", READ_METHODS)
PASSAGE = Route("/passages/{passage_id}", READ_METHODS)
METRICS = Route("/metrics", READ_METHODS, FAST)
OPENAPI = Route("/openapi.json", READ_METHODS)
# In the OpenAPI document's order.
ROUTES = (
    RETRIEVE, SEARCH, DIFF, LOOKUP, HEALTH, CORPUS, PASSAGE, METRICS, OPENAPI,
    Route("/", READ_METHODS, page=Page("index.html", "text/html; charset=utf-8")),
    Route("/inspector.js", READ_METHODS,
          page=Page("inspector.js", "text/javascript; charset=utf-8"), documented=False),
    Route("/inspector.css", READ_METHODS,
          page=Page("inspector.css", "text/css; charset=utf-8"), documented=False),
)
_EXACT = {route.path: route for route in ROUTES if route.prefix is None}
_TEMPLATES = tuple((route.prefix, route) for route in ROUTES if route.prefix is not None)
# The label of every path no route matches.
OTHER = "other"


def request_path(path: str) -> str:
    """Return the path a request is routed by: leading slashes collapse to one, as Waitress does.

    Waitress hands the app `//retrieve` as `/retrieve` (and percent-decodes), but its own request
    object keeps the raw spelling; admission (retrieval/serve/server.py), the fast lane, metrics and
    dispatch all route the value this returns, so a spelling can never be one route to one of
    them and another route to the next. Any other variant (`/retrieve/`, `/./retrieve`) is a
    path the app does not have: 404 everywhere.
    """
    return "/" + path.lstrip("/") if path.startswith("//") else path


def find_route(path: str) -> Route | None:
    """Return the route a (normalised) path belongs to, or None for a path the app does not have."""
    route = _EXACT.get(path)
    if route is not None:
        return route
    for prefix, route in _TEMPLATES:
        if path.startswith(prefix):
            return route
    return None


def route_label(path: str) -> str:
    """Return the bounded route name a path is counted under (templates, never raw paths)."""
    route = find_route(path)
    return OTHER if route is None else route.path


def lane(path: str, method: str) -> str:
    """Return where `retrieval serve` queues a request (ADMITTED, FAST or WORKER).

    The gate admits only the method its route answers; a path the app does not have is a 404
    that needs no worker, so it takes the fast lane.
    """
    route = find_route(request_path(path))
    if route is None:
        return FAST
    if route.lane == ADMITTED and method not in route.methods:
        return WORKER
    return route.lane
