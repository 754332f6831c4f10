"""The lexical index: SQLite FTS5 over one snapshot, opened once and shared read-only.

A built snapshot's database file is opened immutable, once per worker thread. The JSON fixture is
loaded into the same layout in memory once and serialized; each thread gets a private copy of that
image (sqlite3 connections must not be shared across threads). Nothing corpus-sized is built or
copied per request.
"""

import sqlite3
import threading

from . import database
from .snapshot import Passage, Snapshot, SnapshotError


MATCH_ALL = "all"
MATCH_ANY = "any"


def quote_fts_terms(query: str, match: str = MATCH_ALL):
    """Turn a search query into an FTS5 query of quoted terms, or None when it has no terms.

    Every whitespace-separated term becomes one FTS5 string (inner quotes doubled), so operators
    such as NEAR, OR, *, -, : or parentheses in caller or rule text are searched as text, never
    interpreted. Terms are ANDed (FTS5's default), or ORed when match is "any": the choice is an
    argument of the search, never something the query text can say.
    """
    terms = query.split()
    if not terms:
        return None
    joiner = " OR " if match == MATCH_ANY else " "
    return joiner.join('"' + term.replace('"', '""') + '"' for term in terms)


class IndexClosed(RuntimeError):
    """The index was closed; no further searches can run."""


class SnapshotIndex:
    """A read-only FTS5 index of a snapshot's passages, one connection per thread."""

    def __init__(self, snapshot: Snapshot):
        self.snapshot = snapshot
        self._image = None
        if snapshot.database_path is None:
            builder = sqlite3.connect(":memory:")
            try:
                database.create(builder, snapshot.passages, {"corpus_id": snapshot.corpus_id})
                self._image = builder.serialize()
            finally:
                builder.close()
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections = []
        self._closed = False
        try:
            self._spans = database.version_spans(self._connection())
        except (ValueError, sqlite3.Error) as exc:
            self.close()
            raise SnapshotError(f"snapshot database: {exc}") from None

    def _connection(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            return conn
        with self._lock:
            if self._closed:
                raise IndexClosed("the snapshot index is closed")
            if self._image is None:
                conn = database.open_immutable(self.snapshot.database_path)
            else:
                # check_same_thread=False only so that close() may close every thread's
                # connection; each connection is used by the one thread that opened it.
                conn = sqlite3.connect(":memory:", check_same_thread=False)
                conn.deserialize(self._image)
            conn.execute("PRAGMA query_only = ON")
            self._connections.append(conn)
        self._local.conn = conn
        return conn

    def rank(self, query: str, version: str, k: int, match: str = MATCH_ALL):
        """Return up to k (passage, bm25 score) pairs of that version, best first."""
        fts_query = quote_fts_terms(query, match)
        span = self._spans.get(version)
        if fts_query is None or span is None or k <= 0:
            return []
        conn = self._connection()
        ranked = conn.execute(database.RANKED, (fts_query, span[0], span[1], k)).fetchall()
        return [(database.passage_from_row(conn.execute(database.BY_ID, (rowid,)).fetchone()),
                 score) for rowid, score in ranked]

    def passage(self, passage_id: str) -> Passage:
        """Return the passage with this id, or None."""
        row = self._connection().execute(database.BY_PASSAGE_ID, (passage_id,)).fetchone()
        return database.passage_from_row(row) if row is not None else None

    def close(self):
        """Close every thread's connection; later searches raise IndexClosed."""
        with self._lock:
            self._closed = True
            connections, self._connections = self._connections, []
        for conn in connections:
            conn.close()
