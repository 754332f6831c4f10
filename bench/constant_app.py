"""Constant-response WSGI app: the throughput ceiling for a given server config."""

import os

_DEFAULT_BODY_BYTES = 9800


def _make_body(size):
    """Return exactly `size` bytes of valid-looking JSON ASCII."""
    # Valid JSON so a client that parses the response does the same work for both apps.
    head, tail = b'{"pad":"', b'"}'
    if size < len(head) + len(tail):
        return b" " * size
    return head + b"x" * (size - len(head) - len(tail)) + tail


# Built once at import: the ceiling must not pay for anything per request that
# a well-behaved real app would not also pay.
BODY = _make_body(int(os.environ.get("CONSTANT_BODY_BYTES", _DEFAULT_BODY_BYTES)))
_HEADERS = [
    ("Content-Type", "application/json"),
    ("Content-Length", str(len(BODY))),
]


def app(environ, start_response):
    """Drain the request body like the real app would, then return BODY."""
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > 0:
        environ["wsgi.input"].read(length)
    start_response("200 OK", list(_HEADERS))
    return [BODY]
