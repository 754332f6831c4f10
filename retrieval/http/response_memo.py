"""The full-response memo: whole /retrieve replies kept by request_id, found by body bytes.

A /retrieve reply is a pure function of (collection, normalized request, snapshot), which
request_id names, unless the wall-clock deadline or a tool failure ended its run: every other
reply is kept and sent again byte for byte, so the same question from a thousand agents costs one
run. The run result is kept beside the reply for what the request reports about itself (metrics,
access log). Storage, caps and eviction are the core's ResultMemo; the bytes are this layer's.

In front of it, KnownRequests maps the exact bytes of a body already validated to its request and
request_id: validity is a pure function of those bytes (and the app's fixed maxima), so a repeated
body is neither parsed nor hashed again, which is most of what a memoized reply costs the app.
The collection is still checked against the caller's key on every request. RetrieveMemos holds
the two behind one lock, so a repeated body finds its reply with one acquisition.
"""

import threading
from dataclasses import dataclass

from ..core.memo import ResultMemo
from ..core.service import RetrieveRequest, RunResult
from .exchange import Reply


@dataclass(frozen=True)
class MemoizedRun:
    """A reply ready to send (status, body, digest), the run it reports, its log fields."""

    reply: Reply
    run: RunResult
    run_fields: str  # access_log.run_fields(run), formatted once


def _body_bytes(memoized: MemoizedRun) -> int:
    return len(memoized.reply.body)


class ResponseMemo(ResultMemo):
    """Keep replies of repeatable runs, within an entry cap and a byte cap (body bytes)."""

    def __init__(self, max_entries: int, max_bytes: int, lock=None):
        super().__init__(max_entries, max_bytes, size_of=_body_bytes, lock=lock)

    def put(self, request_id: str, memoized: MemoizedRun):
        """Keep memoized unless its run ended by the deadline or a tool failure."""
        if memoized.run.repeatable:
            super().put(request_id, memoized)


@dataclass(frozen=True)
class KnownRequest:
    """A validated body's request, its request_id, and the body's size in bytes."""

    request: RetrieveRequest
    request_id: str
    body_bytes: int


def _known_size(known: KnownRequest) -> int:
    return known.body_bytes


class KnownRequests(ResultMemo):
    """Validated requests by exact body bytes, within an entry cap and a byte cap (body bytes)."""

    def __init__(self, max_entries: int, max_bytes: int, lock=None):
        super().__init__(max_entries, max_bytes, size_of=_known_size, lock=lock)


class RetrieveMemos:
    """The known requests and the replies, each within the same caps, behind one shared lock."""

    def __init__(self, max_entries: int, max_bytes: int):
        lock = threading.Lock()
        self.requests = KnownRequests(max_entries, max_bytes, lock)
        self.responses = ResponseMemo(max_entries, max_bytes, lock)

    def find(self, body: bytes) -> tuple[KnownRequest | None, MemoizedRun | None]:
        """Return the body's known request and the reply memoized for it, each or both None.

        The reply is looked up only for a known body; an unknown body's request_id is not known
        until it is validated.
        """
        with self.requests.lock:
            known = self.requests.get_held(body)
            if known is None:
                return None, None
            return known, self.responses.get_held(known.request_id)
