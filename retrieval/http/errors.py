"""The one error hierarchy of the HTTP boundary; each code's status is in contract.py.

Every client mistake is a `ServiceError` subclass with a stable `code` and a human `message`; the
WSGI app turns it into the documented JSON shape. Clients branch on `code` (and on an issue's
`path` and `type`); the `message` is for the person reading it and may be reworded. Anything else
is a bug: logged, and answered with `internal_error` and no detail.
"""

from ..core.tools import TEXT_DIGEST_MISMATCH
from .contract import HTTP_STATUS  # each code's status line: the contract's one table

MAX_ISSUES = 12
MAX_PATH_PART = 64
# Each issue type (pydantic's names) and what it says after the field's path; {limit} and
# {pattern} are the bound or pattern the value broke, sent beside the message as members.
ISSUE_MESSAGES = {
    "model_attributes_type": "must be a JSON object",
    "missing": "is required",
    "extra_forbidden": "is not a field of this request",
    "string_type": "must be a string",
    "string_too_short": "must not be blank",
    "string_too_long": "must be at most {limit} characters",
    "string_pattern_mismatch": "must match {pattern}",
    "int_type": "must be an integer (6, not 6.0 or true)",
    "greater_than_equal": "must be at least {limit}",
    "less_than_equal": "must be at most {limit}",
    "too_many_terms": "must have at most {limit} distinct terms",
    "null_character": "must not contain U+0000 (NUL)",
    "list_type": "must be a list",
    "too_long": "must have at most {limit} items",
}
# The members an issue may carry besides path, type and message.
ISSUE_BOUNDS = ("limit", "pattern")


class ServiceError(Exception):
    """A request the service refuses, with a stable code and optional extra headers."""

    code = "internal_error"
    message = "internal error: the server's log has the details"

    def __init__(self, detail: str = ""):
        # The detail is for logs and tests only; it is never sent to the client (message is).
        super().__init__(detail or self.code)

    @property
    def status(self) -> str:
        """Return the HTTP status line from the contract's one table."""
        return HTTP_STATUS[self.code]

    def headers(self) -> list:
        """Return extra response headers this error requires."""
        return []

    def error_object(self) -> dict:
        """Return the value of the body's `error` member."""
        return {"code": self.code, "message": self.message}

    def to_body(self) -> dict:
        """Return the documented error body."""
        return {"error": self.error_object(), "admission": {"accepted": False}}


class InvalidContentLength(ServiceError):
    code = "invalid_content_length"
    message = "Content-Length must be a decimal number of bytes"


class PassageNotFound(ServiceError):
    code = "passage_not_found"
    message = "no such passage (or this key may not read it)"


class QueryNotAllowed(ServiceError):
    code = "query_not_allowed"

    def __init__(self, route: str, detail: str = ""):
        super().__init__(detail)
        self.message = f"{route} takes no query string: send every field in the JSON body"


class HostNotAllowed(ServiceError):
    code = "host_not_allowed"
    message = ("this service does not answer for that Host name: without keys it answers only "
               "loopback names and the allowed_hosts setting's")


class Unauthenticated(ServiceError):
    code = "unauthenticated"
    message = "this service needs an API key: send Authorization: Bearer <secret>"

    def headers(self):
        return [("WWW-Authenticate", "Bearer")]


class InvalidCredentials(ServiceError):
    code = "invalid_credentials"
    message = "the API key is not accepted (unknown or expired)"

    def headers(self):
        # RFC 6750 3.1; the same words for an unknown and an expired key, so neither is told.
        return [("WWW-Authenticate", 'Bearer error="invalid_token"')]


# How collection_not_found begins when the request named none (read by mcp/library.py).
NAMES_NO_COLLECTION = "the request names no collection"


class CollectionNotFound(ServiceError):
    """The collection does not exist, or the caller's key may not read it: one answer for both.

    named=False: the request named none, and the caller has no default collection; then
    `yours` are the collections the caller may read, named in the message.
    """

    code = "collection_not_found"
    message = "no such collection (or this key may not read it); GET /corpus lists yours"

    def __init__(self, detail: str = "", yours=None, named: bool = True):
        super().__init__(detail)
        if not named:
            # Said alike with or without a key: what a key may not read is not hinted at.
            self.message = (f"{NAMES_NO_COLLECTION}, and the several you may read have no "
                            "default: send collection")
        if yours is not None:
            self.message += f"; yours: {', '.join(yours) or 'none'}"


class VersionNotFound(ServiceError):
    """The collection declares the versions it holds, and the one asked for is not one of them."""

    code = "version_not_found"

    def __init__(self, collection: str, version: str, versions):
        super().__init__(f"{collection} {version}")
        self.versions = list(versions)
        self.message = (f"collection {collection} has no version {version}: it has "
                        f"{', '.join(self.versions) or 'none'}")

    def error_object(self):
        return {**super().error_object(), "versions": self.versions}


class DiffUnavailable(ServiceError):
    """The snapshot records no API objects (the JSON fixture): there is nothing to compare."""

    code = "diff_unavailable"
    message = ("this snapshot records no API objects (a JSON snapshot): /diff needs one made by "
               "`retrieval build` or `retrieval project`")


class NotFound(ServiceError):
    code = "not_found"
    message = "nothing is served at this path; GET /openapi.json lists the routes"


class MethodNotAllowed(ServiceError):
    code = "method_not_allowed"

    def __init__(self, allowed):
        super().__init__(f"allowed: {', '.join(allowed)}")
        self.allowed = tuple(allowed)
        self.message = f"this path answers {', '.join(self.allowed)} only"

    def headers(self):
        return [("Allow", ", ".join(self.allowed))]


class BodyTooLarge(ServiceError):
    code = "body_too_large"

    def __init__(self, limit: int, detail: str = ""):
        super().__init__(detail)
        self.message = f"the body is over the limit of {limit} bytes"


class UnsupportedMediaType(ServiceError):
    code = "unsupported_media_type"
    message = "send the body as Content-Type: application/json (UTF-8)"


class InvalidJSON(ServiceError):
    code = "invalid_json"

    def __init__(self, message: str, byte_offset=None):
        super().__init__(message)
        self.message = f"the body is not strict JSON: {message}"
        self.byte_offset = byte_offset

    def error_object(self):
        error = super().error_object()
        if self.byte_offset is not None:
            error["byte_offset"] = self.byte_offset
        return error


class InvalidRequest(ServiceError):
    code = "invalid_request"

    def __init__(self, issues):
        """Take issues as dicts of path, type and any bound (limit, pattern) the value broke."""
        super().__init__(f"{len(issues)} issue(s)")
        self.issues = [_issue(issue) for issue in issues[:MAX_ISSUES]]
        self.message = "the request is not valid: " + "; ".join(
            issue["message"] for issue in self.issues)

    def error_object(self):
        return {**super().error_object(), "issues": self.issues}


def _issue(issue) -> dict:
    path = [str(part)[:MAX_PATH_PART] for part in issue["path"]]
    bounds = {name: issue[name] for name in ISSUE_BOUNDS if name in issue}
    text = ISSUE_MESSAGES[issue["type"]].format(**bounds)
    return {"path": path, "type": issue["type"], **bounds,
            "message": f"{'.'.join(path)} {text}"}


class NotReady(ServiceError):
    code = "not_ready"
    message = "the service is not ready: retry shortly"


class SearchFailed(ServiceError):
    """A search was admitted but ended without a result (its deadline, or the index failed)."""

    code = "search_failed"
    message = "the search did not finish (deadline or index failure): retry"

    def __init__(self, detail: str = ""):
        super().__init__(detail)
        if detail == TEXT_DIGEST_MISMATCH:  # a retry cannot help
            self.message = ("a passage's stored text does not match its digest, so it was not "
                            "sent: the snapshot was altered after its build (retrieval verify "
                            "names the passage)")


class Draining(ServiceError):
    code = "draining"
    message = "the service is shutting down: retry, another replica can answer"

    def headers(self):
        # Another replica can answer now; this one is going away.
        return [("Retry-After", "1")]


class RateLimited(ServiceError):
    code = "rate_limited"

    def __init__(self, retry_after_s: int):
        super().__init__(f"retry after {retry_after_s}s")
        self.retry_after_s = retry_after_s
        self.message = f"this key's rate limit is used up: retry after {retry_after_s} s"

    def headers(self):
        return [("Retry-After", str(self.retry_after_s))]


class Overloaded(ServiceError):
    code = "overloaded"
    message = "the service is running as many requests as it admits: retry after 1 s"

    def headers(self):
        # max_in_flight requests are running; one of them will finish long before a second.
        return [("Retry-After", "1")]


class InternalError(ServiceError):
    code = "internal_error"
