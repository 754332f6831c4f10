"""The request-local search and read tools.

A `RetrievalTools` instance belongs to exactly one request. It remembers the read handles its own
searches issued, and reads only those, unaltered: a handle from another request, or one edited in
transit, is refused and never read. It is closed in `finally` by whoever created it.

The results themselves are pure functions of the snapshot and the arguments; they are built by
the module-level functions below and memoized in the shared index.
"""

import sqlite3
from contextlib import contextmanager
from dataclasses import replace

from . import digests
from .fields import HANDLE_PASSAGE_FIELDS, NAMED_FIELDS, NEXT_PIECE, PREVIOUS_PIECE
from .flags import flags_field
from .index import CollectionIndex, DeadlineExceeded
from .lookup import Lookup
from .memo import ResultMemo
from .notes import note_fields
from .query import bounded_query
from .searches import SearchCall

DEADLINE_EXCEEDED = "deadline_exceeded"
# A read whose text no longer digests to the text_sha256 (or measures the byte_count) its handle
# was issued with: the stored text was altered after the build, and is never delivered.
TEXT_DIGEST_MISMATCH = "text_digest_mismatch"


class ToolFailure(Exception):
    """A tool call was admitted but could not produce a result."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class ToolResult(dict):
    """A search result, read handle or read result: immutable once built, shared by requests.

    `encoded` is its compact JSON text, made once when it is built: responses splice that text
    in instead of serializing the value again, and the memo counts its bytes.
    """

    __slots__ = ("encoded",)
    encoded: str

    @classmethod
    def sealed(cls, fields: dict) -> "ToolResult":
        """Return a finished result with its serialization attached."""
        result = cls(fields)
        result.encoded = digests.compact_json_text(result)
        return result


def result_size(result: ToolResult) -> int:
    """Return the memo's measure of a result: the characters of its serialization."""
    return len(result.encoded)


def build_handle(corpus: str, search_id: str, passage, score: float, rank: int) -> ToolResult:
    """Return the read handle of a passage a search issues, at this score and rank."""
    # In HANDLE_FIELDS order, then NAMED_FIELDS where the snapshot names its units, then the
    # unit's version notes (NOTE_FIELDS) where it has some, and FLAGGED_FIELDS where the passage
    # has flags.
    return ToolResult.sealed({
        "corpus_id": corpus,
        "search_request_id": search_id,
        **{name: getattr(passage, name) for name in HANDLE_PASSAGE_FIELDS},
        "native_score": score,
        "rank": rank,
        "read_token": digests.read_token(search_id, passage.passage_id),
        **({} if passage.title is None else {
            name: getattr(passage, name) for name in NAMED_FIELDS}),
        **note_fields(passage.notes),
        **flags_field(passage.flags),
    })


def build_search_result(index: CollectionIndex, search: SearchCall, deadline=None) -> ToolResult:
    """Rank passages of exactly the search's version; each hit is a read handle."""
    corpus = index.corpus_id
    arguments = search.traced()
    search_id = digests.search_request_id(corpus, arguments)
    # A term given twice is searched once: its cost, not its result, grows with the copies.
    ranked = index.rank(replace(search, query=bounded_query(search.query)), deadline)
    results = [build_handle(corpus, search_id, passage, score, rank)
               for rank, (passage, score) in enumerate(ranked, start=1)]
    return ToolResult.sealed({
        "corpus_id": corpus,
        "search_request_id": search_id,
        **arguments,
        "results": results,
    })


def text_matches(text: str, handle: dict) -> bool:
    """Tell whether text has the byte_count and text_sha256 the handle promises."""
    data = text.encode("utf-8")
    return len(data) == handle["byte_count"] and \
        digests.sha256_hex(data) == handle["text_sha256"]


def build_read_result(handle: dict, passage, beside=(None, None)) -> ToolResult:
    """Return the handle's fields plus the passage text, its URL and the result's digests.

    beside: the pieces before and after this one of the unit the build cut it from (None: the
    unit starts or ends here); where there is either, the result says the unit was cut and where
    it goes on (CUT_FIELDS), so that a caller can read the rest.
    """
    result = dict(handle)
    result["text"] = passage.text
    result["url"] = passage.url
    before, after = beside
    if before is not None or after is not None:
        result["truncated"] = True
    if before is not None:
        result[PREVIOUS_PIECE] = before.passage_id
    if after is not None:
        result[NEXT_PIECE] = after.passage_id
        result["next_start_line"] = after.start_line
    result["read_request_id"] = digests.read_request_id(handle["read_token"])
    result["result_sha256"] = digests.read_result_sha256(result)
    return ToolResult.sealed(result)


@contextmanager
def _index_failures():
    """Raise what the index fails with as the ToolFailure a tool call answers."""
    try:
        yield
    except DeadlineExceeded:
        raise ToolFailure(DEADLINE_EXCEEDED) from None
    except sqlite3.Error:
        raise ToolFailure("tool_failure") from None


class RetrievalTools:
    """Search and read over one collection's shared index, with this request's issued handles.

    deadline (a time.monotonic() value, or None) interrupts a search still running then.
    """

    def __init__(self, index: CollectionIndex, memo: ResultMemo, deadline=None):
        self._index = index
        self._memo = memo
        self._deadline = deadline
        self._issued: dict = {}  # read token -> the handle issued with it
        self.closed = False

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def close(self):
        """Forget every issued handle; later calls fail."""
        self._issued.clear()
        self.closed = True

    def _ensure_open(self):
        if self.closed:
            raise ToolFailure("tools_closed")

    def search(self, search: SearchCall) -> dict:
        """Rank passages of exactly the search's version and issue a read handle for each hit."""
        self._ensure_open()
        index, deadline = self._index, self._deadline
        with _index_failures():
            # The corpus_id names the collection, so one memo serves every collection.
            found = self._memo.get_or_compute(
                ("search", index.corpus_id, search),
                lambda: build_search_result(index, search, deadline))
        for handle in found["results"]:
            self._issued[handle["read_token"]] = handle
        return found

    def noted(self, name: str, version: str, per_version: int) -> tuple | None:
        """Return the version notes of an API name's units in one version, or None if it
        documents the name in none (CollectionIndex.noted): no text is read."""
        self._ensure_open()
        with _index_failures():
            return self._index.noted(name, version, per_version, self._deadline)

    def lookup(self, name: str, version: str, per_version: int) -> Lookup:
        """Return an API name's units in each version of the collection (core/lookup.py), every
        one's text checked against its digest."""
        self._ensure_open()
        with _index_failures():
            found = self._index.lookup(name, version, per_version, self._deadline)
        for passages in found.found.values():
            for passage in passages:
                if not text_matches(passage.text, {"byte_count": passage.byte_count,
                                                   "text_sha256": passage.text_sha256}):
                    raise ToolFailure(TEXT_DIGEST_MISMATCH)
        return found

    def read(self, handle: dict) -> dict:
        """Return the passage behind a handle this instance issued, with provenance and digest."""
        self._ensure_open()
        issued = self._issued.get(handle.get("read_token")) if isinstance(handle, dict) else None
        # The policy passes back the very object it was given; anything else must have the same
        # canonical bytes (Python's == would take 1.0 for 1 or True for 1).
        if issued is None or (handle is not issued and
                              digests.canonical_json(handle) != digests.canonical_json(issued)):
            raise ToolFailure("handle_not_issued")
        index = self._index

        def build():
            passage = index.passage(issued["passage_id"])
            if passage is None:
                raise ToolFailure("passage_missing")
            if not text_matches(passage.text, issued):
                raise ToolFailure(TEXT_DIGEST_MISMATCH)
            return build_read_result(issued, passage, index.pieces_beside(passage))

        try:
            return self._memo.get_or_compute(("read", issued["read_token"]), build)
        except sqlite3.Error:
            raise ToolFailure("tool_failure") from None

    def piece(self, result: dict, side: str) -> dict:
        """Issue the handle of the piece a read result of this instance names on one side
        (PREVIOUS_PIECE or NEXT_PIECE), as its search would: at the score and rank of the hit
        read, unless the search issued that passage a handle of its own."""
        self._ensure_open()
        issued = self._issued.get(result.get("read_token"))
        if issued is None or side not in (PREVIOUS_PIECE, NEXT_PIECE) or side not in result:
            raise ToolFailure("handle_not_issued")
        token = digests.read_token(issued["search_request_id"], result[side])
        if token not in self._issued:
            try:
                passage = self._index.passage(result[side])
            except sqlite3.Error:
                raise ToolFailure("tool_failure") from None
            if passage is None:
                raise ToolFailure("passage_missing")
            self._issued[token] = build_handle(issued["corpus_id"], issued["search_request_id"],
                                               passage, issued["native_score"], issued["rank"])
        return self._issued[token]
