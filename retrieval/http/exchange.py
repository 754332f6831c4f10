"""One request's exchange: what it did, the reply it gets, and the reading of its body bytes.

Every operation builds a `Reply` (status, body bytes, headers, cache policy); the app sends it.
The JSON encoders of every body live here, so each body is serialized one way.
"""

from dataclasses import dataclass, field

from ..core import digests
from ..core.service import RunResult
from .contract import BODY_DIGEST_HEADER
from .errors import BodyTooLarge, InvalidContentLength, ServiceError


def encode_json(value) -> bytes:
    """Serialize a response body compactly as UTF-8."""
    return digests.compact_json_text(value).encode("utf-8")


def encode_error(error: ServiceError) -> bytes:
    """Return the body bytes of a refused request."""
    return encode_json(error.to_body())


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


def etag_matches(if_none_match: str, etag: str) -> bool:
    """Apply If-None-Match's weak comparison (RFC 9110 13.1.2) to one entity tag."""
    for candidate in if_none_match.split(","):
        candidate = candidate.strip()
        if candidate == "*" or candidate.removeprefix("W/") == etag:
            return True
    return False


def body_for(environ, body: bytes) -> list:
    """Return the WSGI body iterable of a reply: the bytes, or none for HEAD."""
    # Waitress sends whatever the app returns, even for HEAD; the headers stay those of GET.
    return [b""] if environ["REQUEST_METHOD"] == "HEAD" else [body]
