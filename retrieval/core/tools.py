"""The request-local search and read tools.

A `RetrievalTools` instance belongs to exactly one request. It remembers the read handles its own
searches issued, and reads only those, unaltered: a handle from another request, or one edited in
transit, is refused and never read. It is closed in `finally` by whoever created it.
"""

import sqlite3

from . import digests
from .index import SnapshotIndex


class ToolFailure(Exception):
    """A tool call was admitted but could not produce a result."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class RetrievalTools:
    """Search and read over a shared index, with this request's table of issued handles."""

    def __init__(self, index: SnapshotIndex):
        self._index = index
        self._corpus_id = index.snapshot.corpus_id
        self._issued = {}
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

    def search(self, query: str, version: str, k: int) -> dict:
        """Rank passages of exactly this version and issue a read handle for each hit."""
        self._ensure_open()
        try:
            ranked = self._index.rank(query, version, k)
        except sqlite3.Error:
            raise ToolFailure("tool_failure") from None
        corpus = self._corpus_id
        search_id = digests.search_request_id(corpus, query, version, k)
        results = []
        for rank, (passage, score) in enumerate(ranked, start=1):
            handle = {
                "corpus_id": corpus,
                "search_request_id": search_id,
                "passage_id": passage.passage_id,
                "source_id": passage.source_id,
                "version": passage.version,
                "document_revision": passage.document_revision,
                "source_sha256": passage.source_sha256,
                "start_line": passage.start_line,
                "end_line": passage.end_line,
                "text_sha256": passage.text_sha256,
                "byte_count": passage.byte_count,
                "native_score": score,
                "rank": rank,
                "read_token": digests.read_token(search_id, passage.passage_id),
            }
            self._issued[handle["read_token"]] = (handle, passage)
            results.append(handle)
        return {
            "corpus_id": corpus,
            "search_request_id": search_id,
            "query": query,
            "version": version,
            "k": k,
            "results": results,
        }

    def read(self, handle: dict) -> dict:
        """Return the passage behind a handle this instance issued, with provenance and digest."""
        self._ensure_open()
        issued = self._issued.get(handle.get("read_token")) if isinstance(handle, dict) else None
        # Compare canonical bytes, not Python equality, which would take 1.0 for 1 or True for 1.
        if issued is None or digests.canonical_json(handle) != digests.canonical_json(issued[0]):
            raise ToolFailure("handle_not_issued")
        original, passage = issued
        result = dict(original)
        result["text"] = passage.text
        result["url"] = passage.url
        result["read_request_id"] = digests.read_request_id(original["read_token"])
        result["result_sha256"] = digests.read_result_sha256(result)
        return result
