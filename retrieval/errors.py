"""The one error hierarchy of the HTTP boundary, and the one table from error code to HTTP status.

Every client mistake is a `ServiceError` subclass with a stable `code`; the WSGI app turns it into the
documented JSON shape. Anything else is a bug: logged, and answered with a bare `internal_error`.
"""

# Each error code and the HTTP status line it is sent with. Nothing else decides a status.
HTTP_STATUS = {
    "invalid_content_length": "400 Bad Request",
    "query_not_allowed": "400 Bad Request",
    "unauthenticated": "401 Unauthorized",
    "invalid_credentials": "401 Unauthorized",
    "not_found": "404 Not Found",
    "collection_not_found": "404 Not Found",
    "passage_not_found": "404 Not Found",
    "method_not_allowed": "405 Method Not Allowed",
    "body_too_large": "413 Content Too Large",
    "unsupported_media_type": "415 Unsupported Media Type",
    "invalid_json": "422 Unprocessable Content",
    "invalid_request": "422 Unprocessable Content",
    "rate_limited": "429 Too Many Requests",
    "internal_error": "500 Internal Server Error",
    "not_ready": "503 Service Unavailable",
    "draining": "503 Service Unavailable",
    "overloaded": "503 Service Unavailable",
}

MAX_ISSUES = 12
MAX_PATH_PART = 64


class ServiceError(Exception):
    """A request the service refuses, with a stable code and optional extra headers."""

    code = "internal_error"

    def __init__(self, detail: str = ""):
        # The detail is for logs and tests only; it is never sent to the client.
        super().__init__(detail or self.code)

    @property
    def status(self) -> str:
        """Return the HTTP status line from the one table."""
        return HTTP_STATUS[self.code]

    def headers(self) -> list:
        """Return extra response headers this error requires."""
        return []

    def error_object(self) -> dict:
        """Return the value of the body's `error` member."""
        return {"code": self.code}

    def to_body(self) -> dict:
        """Return the documented error body."""
        return {"error": self.error_object(), "admission": {"accepted": False}}


class InvalidContentLength(ServiceError):
    code = "invalid_content_length"


class PassageNotFound(ServiceError):
    code = "passage_not_found"


class QueryNotAllowed(ServiceError):
    code = "query_not_allowed"


class Unauthenticated(ServiceError):
    code = "unauthenticated"

    def headers(self):
        return [("WWW-Authenticate", "Bearer")]


class InvalidCredentials(ServiceError):
    code = "invalid_credentials"

    def headers(self):
        # RFC 6750 3.1; the same words for an unknown and an expired key, so neither is told.
        return [("WWW-Authenticate", 'Bearer error="invalid_token"')]


class CollectionNotFound(ServiceError):
    """The collection does not exist, or the caller's key may not read it: one answer for both."""

    code = "collection_not_found"


class NotFound(ServiceError):
    code = "not_found"


class MethodNotAllowed(ServiceError):
    code = "method_not_allowed"

    def __init__(self, allowed):
        super().__init__(f"allowed: {', '.join(allowed)}")
        self.allowed = tuple(allowed)

    def headers(self):
        return [("Allow", ", ".join(self.allowed))]


class BodyTooLarge(ServiceError):
    code = "body_too_large"


class UnsupportedMediaType(ServiceError):
    code = "unsupported_media_type"


class InvalidJSON(ServiceError):
    code = "invalid_json"


class InvalidRequest(ServiceError):
    code = "invalid_request"

    def __init__(self, issues):
        super().__init__(f"{len(issues)} issue(s)")
        self.issues = [
            {"path": [str(part)[:MAX_PATH_PART] for part in issue["path"]], "type": issue["type"]}
            for issue in issues[:MAX_ISSUES]
        ]

    def error_object(self):
        return {"code": self.code, "issues": self.issues}


class NotReady(ServiceError):
    code = "not_ready"


class Draining(ServiceError):
    code = "draining"

    def headers(self):
        # Another replica can answer now; this one is going away.
        return [("Retry-After", "1")]


class RateLimited(ServiceError):
    code = "rate_limited"

    def __init__(self, retry_after_s: int):
        super().__init__(f"retry after {retry_after_s}s")
        self.retry_after_s = retry_after_s

    def headers(self):
        return [("Retry-After", str(self.retry_after_s))]


class Overloaded(ServiceError):
    code = "overloaded"

    def headers(self):
        # max_in_flight requests are running; one of them will finish long before a second.
        return [("Retry-After", "1")]


class InternalError(ServiceError):
    code = "internal_error"
