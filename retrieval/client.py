"""A verifying HTTP client for the retrieval service (the `client` extra: requests).

Every response is checked before anything is returned: the `X-Retrieval-Body-SHA256` header
against the exact body bytes, and for a run result its `result_sha256`, every read result's
`result_sha256`, its `request_id`, and the echo of the fields this client sent. A check that fails
raises `IntegrityError`; nothing unverified is ever handed back. Like the digests themselves, this
detects a response altered in transit or in a cache; it does not authenticate the server.

Error responses become typed exceptions (`RetrievalError` subclasses, one per error code). A 503
carrying a full run result with status `failed` is returned, not raised: the caller asked for a
retrieval and got an honest, verified failed one (trace, usage and any evidence already read).
Only what is safe is retried: 503 `overloaded` and `draining` (the server refused before doing any
work) and a refused connection (no byte was sent). `rate_limited` is the caller's own budget and
is raised at once. An `api_key` is sent as `Authorization: Bearer KEY`; a service with a keys
file answers a missing key 401 `unauthenticated` and an unknown or expired one 401
`invalid_credentials`, raised like any other error code.
"""

import json
import textwrap
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

try:
    import requests
    import urllib3
except ImportError as exc:  # the service itself does not need requests; only this client does
    # The package is not on an index: the extra is installed from the checkout.
    raise ImportError("retrieval.client needs requests: run pip install '.[client]' "
                      "from the retrieval checkout") from exc

from .core import digests
from .core.admission import Limits  # the allowances a run was admitted with
from .core.outcomes import FAILED
from .core.strict_json import StrictJSONError, loads_strict
from .core.verify import echo_problems, verify_passage, verify_run_result  # ValueError
from .http.contract import ALLOWANCES as ALLOWANCES  # importable from here, as it always was
from .http.contract import (
    BODY_DIGEST_HEADER,
    CORPUS,
    DIFF,
    HEALTH,
    LOOKUP,
    PASSAGE,
    RETRIEVE,
    SEARCH,
)

RETRIED_CODES = frozenset({"overloaded", "draining"})
DEFAULT_MAX_RETRY_WAIT = 30.0
DEFAULT_BACKOFF = 0.1
# Far above any body the service sends (a /retrieve reply is bounded by its allowances); a body
# past it is refused before it is read whole (a 300 MB one was read in full, then checked).
DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024
_CHUNK = 65536


# --- exceptions ---------------------------------------------------------------------------------

class IntegrityError(Exception):
    """A response whose bytes, digests or echo do not agree; nothing from it is trusted."""

    def __init__(self, message, http_status=None, raw=b"", headers=None):
        super().__init__(message)
        self.http_status = http_status
        self.raw = raw
        self.headers = headers if headers is not None else {}


class TransportError(Exception):
    """No usable HTTP response: connection refused (after retries), reset, or timed out."""


class RetrievalError(Exception):
    """A verified error response from the service, with its stable code and its message."""

    def __init__(self, code, http_status, body, raw=b"", headers=None):
        error = body.get("error") if isinstance(body, dict) else None
        message = error.get("message") if isinstance(error, dict) else None
        # The message is the service's words for a person; branch on code, never on it.
        self.message = message if isinstance(message, str) else None
        super().__init__(f"{code} (HTTP {http_status})"
                         + (f": {self.message}" if self.message else ""))
        self.code = code
        self.http_status = http_status
        self.body = body
        self.raw = raw
        self.headers = headers if headers is not None else {}

    def _error_list(self, member: str) -> list:
        """Return a list member of the body's `error` object, or [] if it has none."""
        error = self.body.get("error") if isinstance(self.body, dict) else None
        value = error.get(member) if isinstance(error, dict) else None
        return list(value) if isinstance(value, list) else []


class _RetryAfter:
    """Mixin for refusals that may say when to come back."""

    headers: Mapping[str, str]  # RetrievalError's: the response's headers

    @property
    def retry_after(self) -> int | None:
        """Return the Retry-After header in whole seconds, or None if absent or not an integer."""
        return _retry_after(self.headers)


class InvalidRequest(RetrievalError):
    """422 invalid_request: valid JSON of the wrong shape."""

    @property
    def issues(self) -> list:
        """Return the issues as sent: dicts with `path` (list), `type`, `message`, any bound."""
        return self._error_list("issues")


class InvalidJSON(RetrievalError):
    """422 invalid_json."""


class BodyTooLarge(RetrievalError):
    """413 body_too_large."""


class UnsupportedMediaType(RetrievalError):
    """415 unsupported_media_type."""


class NotFound(RetrievalError):
    """404 not_found."""


class MethodNotAllowed(RetrievalError):
    """405 method_not_allowed."""

    @property
    def allowed(self) -> tuple:
        """Return the methods the Allow header lists."""
        value = self.headers.get("Allow", "")
        return tuple(part.strip() for part in value.split(",") if part.strip())


class QueryNotAllowed(RetrievalError):
    """400 query_not_allowed."""


class InvalidContentLength(RetrievalError):
    """400 invalid_content_length."""


class HostNotAllowed(RetrievalError):
    """421 host_not_allowed: a keyless service does not answer for the URL's host name."""


class NotReady(RetrievalError):
    """503 not_ready: the app was closed."""


class InternalError(RetrievalError):
    """500 internal_error."""


class Unauthenticated(RetrievalError):
    """401 unauthenticated: no credentials were sent."""


class InvalidCredentials(RetrievalError):
    """401 invalid_credentials."""


class CollectionNotFound(RetrievalError):
    """404 collection_not_found."""


class VersionNotFound(RetrievalError):
    """404 version_not_found: the collection has no such version; `.versions` lists its own."""

    @property
    def versions(self) -> list:
        """Return the versions the collection has, as the service listed them."""
        return self._error_list("versions")


class PassageNotFound(RetrievalError):
    """404 passage_not_found."""


class DiffUnavailable(RetrievalError):
    """409 diff_unavailable: the snapshot records no API objects to compare (a JSON one)."""


class SearchFailed(RetrievalError):
    """503 search_failed: a search ended without a result (its deadline, or an index failure)."""


class RateLimited(_RetryAfter, RetrievalError):
    """429 rate_limited: the caller's own budget; never retried by this client."""


class Overloaded(_RetryAfter, RetrievalError):
    """503 overloaded: retried up to max_retries, then raised."""


class Draining(_RetryAfter, RetrievalError):
    """503 draining: retried up to max_retries, then raised."""


ERROR_CLASSES = {
    "invalid_request": InvalidRequest,
    "invalid_json": InvalidJSON,
    "body_too_large": BodyTooLarge,
    "unsupported_media_type": UnsupportedMediaType,
    "not_found": NotFound,
    "method_not_allowed": MethodNotAllowed,
    "query_not_allowed": QueryNotAllowed,
    "invalid_content_length": InvalidContentLength,
    "host_not_allowed": HostNotAllowed,
    "not_ready": NotReady,
    "internal_error": InternalError,
    "unauthenticated": Unauthenticated,
    "invalid_credentials": InvalidCredentials,
    "collection_not_found": CollectionNotFound,
    "version_not_found": VersionNotFound,
    "passage_not_found": PassageNotFound,
    "search_failed": SearchFailed,
    "diff_unavailable": DiffUnavailable,
    "rate_limited": RateLimited,
    "overloaded": Overloaded,
    "draining": Draining,
}


def error_from_response(code, http_status, body, raw=b"", headers=None) -> RetrievalError:
    """Return the typed exception for an error code (the base class for an unknown code)."""
    return ERROR_CLASSES.get(code, RetrievalError)(code, http_status, body, raw, headers)


# --- typed results ------------------------------------------------------------------------------

def _from_mapping(cls, mapping):
    """Build a dataclass from the keys it declares; unknown keys stay in the raw document."""
    mapping = mapping if isinstance(mapping, dict) else {}
    return cls(**{f.name: mapping.get(f.name) for f in fields(cls) if f.init})


def _member(document: dict, key: str) -> Any:
    """Return a JSON object's member as parsed, None if absent.

    The typed results' fields are annotated with the contract's types; what the service sent is
    stored as it is (the client verifies digests and the echo, not each member's type).
    """
    return document.get(key)


def _object(document: dict, key: str) -> dict:
    """Return a JSON object's member if it is an object, else an empty one."""
    value = document.get(key)
    return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class Usage:
    """What a run consumed (or had consumed after one action)."""

    steps: int
    searches: int
    reads: int
    reserved_source_bytes: int
    delivered_source_bytes: int
    # Counted only for a request that sent max_tokens (None otherwise).
    reserved_tokens: int | None = None
    delivered_tokens: int | None = None


@dataclass(frozen=True)
class Evidence:
    """One passage that was read, with its provenance and digests (core.fields.EVIDENCE_FIELDS),
    then what it has of EVIDENCE_OPTIONAL_FIELDS."""

    passage_id: str
    source_id: str
    version: str
    url: str
    start_line: int
    end_line: int
    text: str
    text_sha256: str
    source_sha256: str
    document_revision: str
    byte_count: int
    native_score: float
    rank: int
    result_sha256: str
    corpus_id: str
    search_request_id: str
    read_token: str
    read_request_id: str
    # Each only where the passage has it (core.fields.EVIDENCE_OPTIONAL_FIELDS), None otherwise.
    title: str | None = None
    flags: list | None = None
    since: list | None = None
    changed: list | None = None
    deprecated: list | None = None
    removed: list | None = None
    truncated: bool | None = None
    previous_passage_id: str | None = None
    next_passage_id: str | None = None
    next_start_line: int | None = None


@dataclass(frozen=True)
class TraceEntry:
    """One action the policy proposed: executed or denied, and what came of it."""

    tool: str
    arguments: dict
    decision: str
    invoked: bool
    status: str | None
    reason: str | None
    usage_after: Usage | None
    result: dict | None = field(repr=False)
    reserved_source_bytes: int | None = None
    preflight_source_bytes: int | None = None
    reserved_tokens: int | None = None  # a request that sent max_tokens
    preflight_tokens: int | None = None

    @classmethod
    def from_dict(cls, entry: dict) -> "TraceEntry":
        """Build from one element of a response's `trace`."""
        action = _object(entry, "action")
        usage_after = entry.get("usage_after")
        return cls(
            tool=_member(action, "tool"), arguments=_member(action, "arguments"),
            decision=_member(entry, "decision"), invoked=_member(entry, "invoked"),
            status=entry.get("status"), reason=entry.get("reason"),
            usage_after=_from_mapping(Usage, usage_after) if usage_after is not None else None,
            result=entry.get("result"),
            reserved_source_bytes=entry.get("reserved_source_bytes"),
            preflight_source_bytes=entry.get("preflight_source_bytes"),
            reserved_tokens=entry.get("reserved_tokens"),
            preflight_tokens=entry.get("preflight_tokens"),
        )


@dataclass(frozen=True)
class RetrievalResult:
    """A verified run result: completed, incomplete, limited or failed."""

    request_id: str
    corpus_id: str
    request: dict
    status: str
    reason: str
    limits: Limits
    usage: Usage
    trace: tuple
    evidence: tuple
    policy: dict
    result_sha256: str
    http_status: int
    body_sha256: str  # the X-Retrieval-Body-SHA256 header as received (verified against raw)
    raw: bytes = field(repr=False)
    document: dict = field(repr=False, compare=False)

    @classmethod
    def from_response(cls, document: dict, raw: bytes, http_status: int,
                      body_sha256: str) -> "RetrievalResult":
        """Build from a verified body and its parsed document."""
        admission = _object(document, "admission")
        return cls(
            request_id=_member(document, "request_id"), corpus_id=_member(document, "corpus_id"),
            request=_member(document, "request"), status=_member(document, "status"),
            reason=_member(document, "reason"),
            limits=_from_mapping(Limits, admission.get("limits")),
            usage=_from_mapping(Usage, document.get("usage")),
            trace=tuple(TraceEntry.from_dict(e) for e in document.get("trace") or ()
                        if isinstance(e, dict)),
            evidence=tuple(_from_mapping(Evidence, e) for e in document.get("evidence") or ()),
            policy=_member(document, "policy"),
            result_sha256=_member(document, "result_sha256"),
            http_status=http_status, body_sha256=body_sha256, raw=raw, document=document,
        )


# --- verification -------------------------------------------------------------------------------

def _retry_after(headers) -> int | None:
    value = (headers.get("Retry-After") or "").strip()
    # Only delta-seconds: an HTTP-date would make the wait depend on two clocks agreeing.
    return int(value) if value.isascii() and value.isdigit() else None


def _fields_sent(required: dict, optional: dict) -> dict:
    """Return a body's fields: the required ones, then each optional one not given as None."""
    return {**required, **{k: v for k, v in optional.items() if v is not None}}


def _integrity_error(exchange, message) -> "IntegrityError":
    return IntegrityError(message, exchange.http_status, exchange.raw, exchange.headers)


def _json_body(fields_sent: dict) -> bytes:
    return json.dumps(fields_sent, ensure_ascii=False, allow_nan=False,
                      separators=(",", ":")).encode("utf-8")


# --- the client ---------------------------------------------------------------------------------

def _connection_refused(exc: BaseException) -> bool:
    """Return True if a requests error was caused by a refused connection (nothing was sent)."""
    seen: set[int] = set()
    stack: list[BaseException | None] = [exc]
    while stack:
        current = stack.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, ConnectionRefusedError):
            return True
        # urllib3 nests the cause as MaxRetryError.reason -> NewConnectionError -> __cause__.
        stack += [getattr(current, "reason", None), current.__cause__, current.__context__]
        stack += [arg for arg in getattr(current, "args", ()) if isinstance(arg, BaseException)]
    return False


def _read_body(response, deadline: float, max_bytes: int) -> bytes:
    """Return a streamed response's body, read by deadline (time.monotonic) and under max_bytes.

    Each wait for bytes is bounded by the time left, so a service that trickles a byte a second
    cannot hold the call past its timeout (requests' own timeout bounds each wait, not the
    whole). A body over max_bytes is refused before it is read: by its Content-Length, or once
    that many bytes have come. Raises requests.Timeout, or IntegrityError for the size.
    """
    declared = response.headers.get("Content-Length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > max_bytes:
        raise IntegrityError(f"HTTP {response.status_code}: a body of {declared} bytes is over "
                             f"max_body_bytes ({max_bytes}); not read",
                             response.status_code, b"", response.headers)
    connection = getattr(response.raw, "connection", None) or getattr(
        response.raw, "_connection", None)
    sock = getattr(connection, "sock", None)
    read = getattr(response.raw, "read1", None) or response.raw.read  # read1: one wait at most
    body = bytearray()
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise requests.Timeout("the reply did not arrive whole within the timeout")
        if sock is not None:
            sock.settimeout(remaining)
        chunk = read(_CHUNK)
        if not chunk:
            return bytes(body)
        body += chunk
        if len(body) > max_bytes:
            raise IntegrityError(f"HTTP {response.status_code}: body over max_body_bytes "
                                 f"({max_bytes}); not read further",
                                 response.status_code, b"", response.headers)


@dataclass(frozen=True)
class _Exchange:
    http_status: int
    headers: object
    raw: bytes
    document: object
    body_sha256: str


class RetrievalClient:
    """Talk to one retrieval service; every response is verified before it is returned."""

    def __init__(self, base_url, api_key=None, timeout=10.0, max_retries=3, session=None, *,
                 sleep=time.sleep, backoff=DEFAULT_BACKOFF, max_retry_wait=DEFAULT_MAX_RETRY_WAIT,
                 max_body_bytes=DEFAULT_MAX_BODY_BYTES):
        self.base_url = base_url.rstrip("/")
        self.max_body_bytes = max_body_bytes
        self.api_key = api_key
        self.timeout = timeout
        self.max_retries = max_retries
        self._owns_session = session is None
        self._session = session if session is not None else requests.Session()
        self._sleep = sleep
        self._backoff = backoff
        self._max_retry_wait = max_retry_wait

    def close(self):
        """Close the session if this client created it."""
        if self._owns_session:
            self._session.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def health(self) -> dict:
        """Return the verified /health document; raise NotReady once the app is closed."""
        exchange = self._exchange("GET", HEALTH.path)
        document = exchange.document
        if exchange.http_status == 503 and isinstance(document, dict) and \
                document.get("status") == "not_ready":
            raise NotReady("not_ready", 503, document, exchange.raw, exchange.headers)
        return self._expect_document(exchange)

    def corpus(self) -> dict:
        """Return the verified /corpus document (the caller's collections and their versions)."""
        return self._expect_document(self._exchange("GET", CORPUS.path))

    def passage(self, passage_id: str) -> dict:
        """Return the verified /passages/{id} document: its text, digests and id recompute."""
        exchange = self._exchange("GET", PASSAGE.fill(passage_id))
        document = self._expect_document(exchange)
        try:
            if document.get("passage_id") != passage_id:
                raise ValueError("passage_id is not the one asked for")
            verify_passage(document)
        except ValueError as exc:
            raise _integrity_error(exchange, str(exc)) from None
        return document

    def search(self, query, version=None, **options) -> dict:
        """Run one ranked search (POST /search); verify every text returned and the echo.

        version None: none is sent, and the service serves the project's pin (or refuses)."""
        return self._hits_call(SEARCH.path, "search", {"query": query}, version, options)

    def lookup(self, name, version=None, **options) -> dict:
        """Look an API name up across the collection's versions (POST /lookup); verify every
        text returned and the echo. version None: as search's."""
        return self._hits_call(LOOKUP.path, "lookup", {"name": name}, version, options)

    def _hits_call(self, path: str, what: str, first: dict, version, options: dict) -> dict:
        """POST a body whose answer echoes it and lists hits (search, lookup); verify both."""
        fields_sent = _fields_sent(first, dict(version=version, **options))
        exchange = self._exchange("POST", path, _json_body(fields_sent))
        document = self._expect_document(exchange)
        try:
            # Every field sent is echoed: each must be what was sent.
            mismatch = echo_problems(document.get("request"), fields_sent, tuple(fields_sent))
            if mismatch:
                raise ValueError(mismatch[0])
            elsewhere = document.get("not_in_version") or {}
            for hit in [*(document.get("hits") or ()), *(elsewhere.get("hits") or ())]:
                verify_passage(dict(hit, corpus_id=document.get("corpus_id")))
        except (ValueError, AttributeError, TypeError) as exc:
            raise _integrity_error(exchange, f"{what} result: {exc}") from None
        return document

    def diff(self, to_version, version=None, **options) -> dict:
        """Ask what changed from version (None: the project's pin) to to_version (POST /diff);
        verify the echo of what was sent (each change cites passage_id and text_sha256)."""
        fields_sent = _fields_sent({"to_version": to_version}, dict(version=version, **options))
        exchange = self._exchange("POST", DIFF.path, _json_body(fields_sent))
        document = self._expect_document(exchange)
        mismatch = echo_problems(document.get("request"), fields_sent, tuple(fields_sent))
        if mismatch:
            raise _integrity_error(exchange, f"diff result: {mismatch[0]}")
        return document

    def retrieve(self, question, version=None, **allowances) -> RetrievalResult:
        """Run one retrieval (allowances and any other body fields as keywords); verify it.

        version None: none is sent, and the service serves the project's pin (or refuses)."""
        # Unknown keywords are sent as body fields so the server, not this client, decides what
        # it accepts; a keyword given as None is left out so the server's default applies.
        fields_sent = _fields_sent({"question": question}, dict(version=version, **allowances))
        exchange = self._exchange("POST", RETRIEVE.path, _json_body(fields_sent))
        document = exchange.document
        # A failed run comes back as 503 with a full result: returned, not raised (module doc).
        failed_run = (exchange.http_status == 503 and isinstance(document, dict)
                      and "error" not in document and document.get("status") == FAILED)
        if 200 <= exchange.http_status < 300 or failed_run:
            try:
                verify_run_result(exchange.raw, document, fields_sent)
            except ValueError as exc:
                raise _integrity_error(exchange, str(exc)) from None
            assert isinstance(document, dict), "verify_run_result refuses any other document"
            return RetrievalResult.from_response(document, exchange.raw, exchange.http_status,
                                                 exchange.body_sha256)
        raise self._error(exchange)

    # -- internals --

    def _expect_document(self, exchange) -> dict:
        if 200 <= exchange.http_status < 300 and isinstance(exchange.document, dict):
            return exchange.document
        raise self._error(exchange)

    @staticmethod
    def _error(exchange) -> RetrievalError:
        document = exchange.document
        error = document.get("error") if isinstance(document, dict) else None
        code = error.get("code") if isinstance(error, dict) else None
        return error_from_response(code, exchange.http_status, document, exchange.raw,
                                   exchange.headers)

    def _headers(self, has_body: bool) -> dict:
        headers = {"Accept": "application/json"}
        if has_body:
            headers["Content-Type"] = "application/json"
        if self.api_key is not None:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

    def _wait(self, attempt: int, retry_after: int | None) -> float:
        if retry_after is not None:
            return min(float(retry_after), self._max_retry_wait)
        return min(self._backoff * (2 ** attempt), self._max_retry_wait)

    def _exchange(self, method, path, body=None) -> _Exchange:
        """Send one request (retrying only what is safe) and return its verified exchange."""
        url = self.base_url + path
        attempt = 0
        while True:
            # The timeout bounds each attempt whole: connecting, sending, the head and the body.
            deadline = time.monotonic() + self.timeout
            try:
                response = self._session.request(
                    method, url, data=body, headers=self._headers(body is not None),
                    timeout=self.timeout, allow_redirects=False, stream=True)
                try:
                    if response.headers.get(BODY_DIGEST_HEADER) is None:
                        raise IntegrityError(
                            f"HTTP {response.status_code}: no {BODY_DIGEST_HEADER} header "
                            "(body not read)", response.status_code, b"", response.headers)
                    raw = _read_body(response, deadline, self.max_body_bytes)
                except requests.RequestException:
                    raise
                except (OSError, urllib3.exceptions.HTTPError) as exc:
                    raise requests.ConnectionError(exc) from exc  # a reset or wait mid-body
                finally:
                    response.close()
            except requests.ConnectionError as exc:
                refused = _connection_refused(exc)
                if refused and attempt < self.max_retries:
                    self._sleep(self._wait(attempt, None))
                    attempt += 1
                    continue
                if refused:
                    raise TransportError(f"{method} {url}: connection refused (is the service "
                                         "running there? `retrieval serve` starts one)") from exc
                raise TransportError(f"{method} {url}: {exc}") from exc
            except requests.RequestException as exc:
                # A timeout or a reset after sending: the request may have run, so never resent.
                raise TransportError(f"{method} {url}: {exc}") from exc
            exchange = self._verified(response, raw)
            error = exchange.document.get("error") if isinstance(exchange.document, dict) else None
            code = error.get("code") if isinstance(error, dict) else None
            if code in RETRIED_CODES and attempt < self.max_retries:
                self._sleep(self._wait(attempt, _retry_after(response.headers)))
                attempt += 1
                continue
            return exchange

    @staticmethod
    def _verified(response, raw: bytes) -> _Exchange:
        claimed = response.headers.get(BODY_DIGEST_HEADER)
        if claimed is None:
            raise IntegrityError(f"HTTP {response.status_code}: no {BODY_DIGEST_HEADER} header",
                                 response.status_code, raw, response.headers)
        if claimed != digests.sha256_hex(raw):
            raise IntegrityError(f"HTTP {response.status_code}: {BODY_DIGEST_HEADER} does not "
                                 "match the body bytes", response.status_code, raw,
                                 response.headers)
        try:
            document = loads_strict(raw)
        except StrictJSONError as exc:
            raise IntegrityError(f"HTTP {response.status_code}: body is not strict JSON: {exc}",
                                 response.status_code, raw, response.headers) from None
        return _Exchange(response.status_code, response.headers, raw, document, claimed)


# --- a readable summary (python -m retrieval ask) -----------------------------------------------

WRAP_WIDTH = 100
INDENT = "    "


def _describe_action(entry: TraceEntry) -> str:
    args = entry.arguments if isinstance(entry.arguments, dict) else {}
    if entry.tool == "search":
        extra = "" if args.get("match", "all") == "all" else f", match={args.get('match')}"
        extra += ", literals" if args.get("literals") is True else ""
        if isinstance(args.get("semantic_query"), str):
            extra += f", embedding {json.dumps(args['semantic_query'], ensure_ascii=False)}"
        query = json.dumps(args.get("query"), ensure_ascii=False)
        return f'search {query} ({args.get("version")}, k={args.get("k")}{extra})'
    if entry.tool == "read":
        handle = _object(args, "handle")
        return (f"read {handle.get('source_id')} lines {handle.get('start_line')}-"
                f"{handle.get('end_line')} ({handle.get('version')})")
    return f"{entry.tool} {json.dumps(args, ensure_ascii=False, sort_keys=True)}"


def _describe_outcome(entry: TraceEntry) -> str:
    if entry.decision == "denied":
        tokens = (f", {entry.preflight_tokens} tokens"
                  if entry.preflight_tokens is not None else "")
        needs = (f" (needs {entry.preflight_source_bytes} source bytes{tokens})"
                 if entry.preflight_source_bytes is not None else "")
        return f"DENIED {entry.reason}{needs}"
    outcome = f"{entry.decision} {entry.status}"
    return outcome + (f" {entry.reason}" if entry.status != "succeeded" and entry.reason else "")


def _passage_lines(text, max_chars=0) -> list:
    """Return a passage as indented lines: whole (or cut after max_chars), markup as it is.

    Long lines are wrapped at spaces; the passage's own line breaks are kept, since in
    documentation they can carry meaning (code, lists, tables).
    """
    text = str(text or "")
    cut = ""
    if max_chars and len(text) > max_chars:
        cut = f"[... {len(text) - max_chars} more characters; --max-chars 0 shows all]"
        text = text[:max_chars]
    lines = []
    for line in text.splitlines() or [""]:
        body = line.lstrip()
        indent = INDENT + line[:len(line) - len(body)]  # a code block keeps its indentation
        lines += textwrap.wrap(body, WRAP_WIDTH, initial_indent=indent, subsequent_indent=indent,
                               break_long_words=False, break_on_hyphens=False) or [""]
    if cut:
        lines.append(INDENT + cut)
    return lines


def _first_search_hits(result: RetrievalResult) -> list:
    """Return the first search's hits, one line each (rank, what it is, URL, whether read)."""
    first = next((entry for entry in result.trace
                  if entry.tool == "search" and isinstance(entry.result, dict)), None)
    if first is None:
        return []
    hits = [hit for hit in first.result.get("results") or () if isinstance(hit, dict)]
    read = {item.passage_id for item in result.evidence}
    lines = [f"first search's hits ({len(hits)})"]
    for hit in hits:
        # Built snapshots name each hit (an object or a section title); the fixture's do not,
        # and a plain file's units are all titled by its name: those say their lines.
        named = hit.get("title") or hit.get("source_id")
        if named == hit.get("source_id"):
            named = f"{named} lines {hit.get('start_line')}-{hit.get('end_line')}"
        url = f" {hit['url']}" if hit.get("url") else ""
        mark = " (read)" if hit.get("passage_id") in read else ""
        lines.append(f"  {hit.get('rank')} {named}{url}{mark}")
    return lines


def summarize(result: RetrievalResult, max_chars: int = 0) -> str:
    """Return a readable, multi-line summary of a verified result, passages whole by default."""
    usage, limits = result.usage, result.limits
    lines = [
        f"status {result.status} ({result.reason}), HTTP {result.http_status}",
        f"usage steps {usage.steps}/{limits.max_steps}, searches {usage.searches}/"
        f"{limits.max_searches}, reads {usage.reads}/{limits.max_reads}, source bytes "
        f"{usage.reserved_source_bytes}/{limits.max_source_bytes} "
        f"(delivered {usage.delivered_source_bytes})" + (
            "" if limits.max_tokens is None else
            f", tokens {usage.reserved_tokens}/{limits.max_tokens}"),
        f"actions ({len(result.trace)})",
    ]
    request = result.request if isinstance(result.request, dict) else {}
    if request.get("pinned"):
        lines.insert(1, f"version {request.get('served_version')} served: the project's pin")
    elif "served_version" in request:
        lines.insert(1, f"version {request.get('version')} served as "
                        f"{request['served_version']}")
    if "served_collection" in request:
        lines.insert(1, f"collection {request.get('collection')} served as "
                        f"{request['served_collection']}")
    for number, entry in enumerate(result.trace, 1):
        lines.append(f"  {number} {_describe_action(entry)} {_describe_outcome(entry)}")
    lines += _first_search_hits(result)
    lines.append(f"evidence ({len(result.evidence)})")
    for number, item in enumerate(result.evidence, 1):
        lines.append(f"  {number} {item.source_id} lines {item.start_line}-{item.end_line} "
                     f"{item.url}")
        lines += _passage_lines(item.text, max_chars)
    lines += [f"request_id {result.request_id}", f"corpus_id {result.corpus_id}", "verified"]
    return "\n".join(lines)


def describe_failure(result: RetrievalResult) -> str | None:
    """Return one line naming the tool calls a failed run failed in, or None for another run."""
    if result.status != FAILED:
        return None
    failed = [f"{_describe_action(entry)} failed {entry.reason}" for entry in result.trace
              if entry.status == "failed"]
    return f"the run failed ({result.reason}): " + ("; ".join(failed) or "no tool call failed")


def describe_error(error: RetrievalError) -> str:
    """Return an error response's code, HTTP status, message and issues, one per line."""
    lines = [f"error {error.code} (HTTP {error.http_status})"]
    issues = getattr(error, "issues", ())
    if error.message and not issues:
        lines[0] += f": {error.message}"
    for issue in issues:
        path = ".".join(str(part) for part in issue.get("path", ()))
        words = issue.get("message") or path
        lines.append(f"  {words} ({issue.get('type')})")
    retry_after = getattr(error, "retry_after", None)
    if retry_after is not None:
        lines.append(f"  retry after {retry_after} s")
    return "\n".join(lines)
