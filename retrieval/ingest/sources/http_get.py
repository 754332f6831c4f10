"""One polite, bounded HTTP GET for the crawler: caps, deadlines, retries, no automatic redirects.

A response is read in chunks up to a byte cap and within a deadline for the whole exchange, so a
huge page or a slow drip costs at most the cap and the deadline. 429 and 5xx are retried with
exponential backoff, honouring Retry-After up to a bound (a longer wait gives up on the page);
redirects are returned to the caller, who decides whether their target is in bounds.
"""

import dataclasses
import email.utils
import http.client
import socket
import ssl
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field

from ... import __version__
from ...core.errors import UserError

USER_AGENT = f"retrieval/{__version__} (documentation snapshot builder: retrieval build --source)"
REDIRECTS = frozenset((301, 302, 303, 307, 308))
_RETRIED = frozenset((429, 500, 502, 503, 504))
_CHUNK = 65536


def _limit(default, help_text):
    return field(default=default, metadata={"help": help_text})


@dataclass(frozen=True)
class Limits:
    """How far one crawl may go and how politely it goes there (each a --crawl-* build flag)."""

    max_pages: int = _limit(5000, "most files one crawl asks for")
    max_page_bytes: int = _limit(10 * 1024 * 1024, "largest file kept, in bytes")
    max_total_bytes: int = _limit(500 * 1024 * 1024, "most bytes one crawl downloads")
    in_flight: int = _limit(4, "requests at once to the crawled host")
    delay_s: float = _limit(0.0, "least seconds between the starts of two requests "
                                 "(robots.txt's Crawl-delay when longer)")
    timeout_s: float = _limit(30.0, "seconds one request may take, body included")
    retries: int = _limit(3, "retries of a request after 429, 5xx or a failed connection")
    max_retry_after_s: float = _limit(60.0, "longest Retry-After or Crawl-delay waited for; "
                                            "longer gives the page (or the crawl) up")
    max_redirects: int = _limit(5, "most redirects followed, each within the prefix")

    def __post_init__(self):
        for limit in dataclasses.fields(self):
            value, least = getattr(self, limit.name), _LEAST.get(limit.name, 0)
            if not (value > least if limit.name == "timeout_s" else value >= least):  # and NaN
                relation = "above" if limit.name == "timeout_s" else "at least"
                raise UserError(f"--crawl-{limit.name.replace('_', '-')} must be {relation} "
                                f"{least}, not {value}")


_LEAST = {"max_pages": 1, "in_flight": 1}


@dataclass(frozen=True)
class Reply:
    """What one GET came back with: a final status (after retries), headers and body."""

    url: str
    status: int
    headers: dict  # lowercased names
    body: bytes

    @property
    def content_type(self) -> str:
        """Return the media type, lowercased, without parameters."""
        return self.headers.get("content-type", "").split(";")[0].strip().lower()


class FetchFailure(Exception):
    """A GET got no usable reply: the reason is a short phrase a summary counts by."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None  # the 3xx reaches the caller as an HTTPError with its Location


# The deadline of the exchange the current thread runs, and its watchdogs, for the connections.
_exchange = threading.local()


def _watch(sock):
    """Shut a connection's socket at its exchange's deadline: no drip outlasts the timeout."""
    # A socket timeout bounds each read, not the exchange: headers or a body sent a byte at a
    # time would never trip it. Shutting the socket wakes the blocked read, which then fails.
    timer = threading.Timer(max(0.0, _exchange.deadline - time.monotonic()), _shut, (sock,))
    timer.daemon = True
    timer.start()
    _exchange.timers.append(timer)


def _shut(sock):
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # already closed: the exchange ended in time


class _WatchedHTTP(http.client.HTTPConnection):
    def connect(self):
        super().connect()
        _watch(self.sock)


class _WatchedHTTPS(http.client.HTTPSConnection):
    def connect(self):
        super().connect()
        _watch(self.sock)


class _HTTP(urllib.request.HTTPHandler):
    def http_open(self, req):
        return self.do_open(_WatchedHTTP, req)


class _HTTPS(urllib.request.HTTPSHandler):
    def https_open(self, req):
        return self.do_open(_WatchedHTTPS, req, context=self._context)


_OPENER = urllib.request.build_opener(_NoRedirects, _HTTP, _HTTPS)


def retry_after_s(value: str | None, now: float) -> float | None:
    """Return the seconds a Retry-After header asks to wait (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - now)


def _read_capped(response, limits: Limits, deadline: float) -> bytes:
    length = response.headers.get("Content-Length")
    if length and length.isdigit() and int(length) > limits.max_page_bytes:
        raise FetchFailure("over the size cap", f"{length} bytes")
    chunks: list[bytes] = []
    size = 0
    while True:
        if time.monotonic() > deadline:
            raise FetchFailure("timed out", f"body not complete in {limits.timeout_s:g}s")
        chunk = response.read1(_CHUNK)
        if not chunk:
            if time.monotonic() >= deadline:  # the watchdog shut the socket
                raise FetchFailure("timed out", f"body not complete in {limits.timeout_s:g}s")
            if response.length:  # what Content-Length promised and never came
                raise FetchFailure("unreachable", f"body cut short by {response.length} bytes")
            return b"".join(chunks)
        size += len(chunk)
        if size > limits.max_page_bytes:
            raise FetchFailure("over the size cap", f"more than {limits.max_page_bytes} bytes")
        chunks.append(chunk)


def _once(url: str, headers: dict, limits: Limits) -> Reply:
    deadline = time.monotonic() + limits.timeout_s
    _exchange.deadline, _exchange.timers = deadline, []
    try:
        return _exchange_once(url, headers, limits, deadline)
    except FetchFailure as failure:
        if time.monotonic() >= deadline and failure.reason == "unreachable":
            raise FetchFailure("timed out", f"no complete reply in {limits.timeout_s:g}s") \
                from None
        raise
    finally:
        for timer in _exchange.timers:
            timer.cancel()


def _exchange_once(url: str, headers: dict, limits: Limits, deadline: float) -> Reply:
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, **headers})
    try:
        with _OPENER.open(request, timeout=limits.timeout_s) as response:
            body = _read_capped(response, limits, deadline)
            return Reply(response.geturl(), response.status,
                         {k.lower(): v for k, v in response.headers.items()}, body)
    except urllib.error.HTTPError as error:
        with error:
            return Reply(url, error.code, {k.lower(): v for k, v in error.headers.items()}, b"")
    except urllib.error.URLError as error:
        reason = error.reason
        if isinstance(reason, ssl.SSLError):
            raise FetchFailure("TLS error", str(reason)) from None
        if isinstance(reason, TimeoutError):
            raise FetchFailure("timed out", str(reason)) from None
        raise FetchFailure("unreachable", str(reason)) from None
    except ssl.SSLError as error:
        raise FetchFailure("TLS error", str(error)) from None
    except TimeoutError as error:
        raise FetchFailure("timed out", str(error) or f"no reply in {limits.timeout_s:g}s") \
            from None
    except (OSError, ValueError, http.client.HTTPException) as error:
        # Reset connections, malformed status lines, bodies cut short.
        raise FetchFailure("unreachable", str(error) or type(error).__name__) from None


def get(url: str, limits: Limits, headers: dict | None = None,
        sleep: Callable[[float], None] = time.sleep) -> Reply:
    """GET url with retries on 429, 5xx and connection failures; 3xx are returned as they are."""
    attempt = 0
    while True:
        try:
            reply = _once(url, headers or {}, limits)
        except FetchFailure as failure:
            if failure.reason in ("TLS error", "over the size cap") or attempt >= limits.retries:
                raise
            wait = min(0.5 * 2 ** attempt, limits.max_retry_after_s)
        else:
            if reply.status not in _RETRIED or attempt >= limits.retries:
                return reply
            asked = retry_after_s(reply.headers.get("retry-after"), time.time())
            if asked is not None and asked > limits.max_retry_after_s:
                raise FetchFailure(f"HTTP {reply.status}",
                                   f"Retry-After {asked:g}s is over {limits.max_retry_after_s:g}s")
            wait = asked if asked is not None else min(0.5 * 2 ** attempt,
                                                       limits.max_retry_after_s)
        attempt += 1
        sleep(wait)
