"""The lexical index: SQLite FTS5 over one snapshot, built once and shared read-only.

The database is built once in memory and serialized; each worker thread gets its own connection over
a private copy of that image (sqlite3 connections must not be shared across threads). Nothing
corpus-sized is built per request.
"""

import sqlite3
import threading

from .snapshot import Snapshot

_SCHEMA = "CREATE VIRTUAL TABLE passage_fts USING fts5(text, version UNINDEXED, tokenize='unicode61')"
# rowid breaks score ties so that equal scores always rank in snapshot order.
_RANKED = (
    "SELECT rowid, bm25(passage_fts) AS score FROM passage_fts "
    "WHERE passage_fts MATCH ? AND version = ? ORDER BY score, rowid LIMIT ?"
)


def quote_fts_terms(query: str):
    """Turn free text into an FTS5 query of quoted terms, or None when it has no terms.

    Every whitespace-separated term becomes one FTS5 string (inner quotes doubled), so operators
    such as NEAR, OR, *, -, : or parentheses in caller or rule text are searched as text, never
    interpreted. Terms are ANDed, FTS5's default.
    """
    terms = query.split()
    if not terms:
        return None
    return " ".join('"' + term.replace('"', '""') + '"' for term in terms)


class IndexClosed(RuntimeError):
    """The index was closed; no further searches can run."""


MEMO_ENTRIES = 4096


class SnapshotIndex:
    """A read-only FTS5 index of a snapshot's passages, one connection per thread.

    It also memoizes tool results. Every search and read result is a pure function of the
    snapshot and the call's arguments, so computing one once per process instead of once per
    request changes no byte of any response. Memoized values are shared between requests and
    must never be mutated.
    """

    def __init__(self, snapshot: Snapshot, memo_entries: int = MEMO_ENTRIES):
        self.snapshot = snapshot
        self._memo = {}
        self._memo_entries = memo_entries
        builder = sqlite3.connect(":memory:")
        try:
            builder.execute(_SCHEMA)
            builder.executemany(
                "INSERT INTO passage_fts(rowid, text, version) VALUES (?, ?, ?)",
                ((row, p.text, p.version) for row, p in enumerate(snapshot.passages, start=1)),
            )
            builder.commit()
            self._image = builder.serialize()
        finally:
            builder.close()
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections = []
        self._closed = False

    def _connection(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            return conn
        with self._lock:
            if self._closed:
                raise IndexClosed("the snapshot index is closed")
            # check_same_thread=False only so that close() may close every thread's connection;
            # each connection is used by the one thread that opened it.
            conn = sqlite3.connect(":memory:", check_same_thread=False)
            conn.deserialize(self._image)
            conn.execute("PRAGMA query_only = ON")
            self._connections.append(conn)
        self._local.conn = conn
        return conn

    def rank(self, query: str, version: str, k: int):
        """Return up to k (passage, bm25 score) pairs of that version, best first."""
        fts_query = quote_fts_terms(query)
        if fts_query is None or k <= 0:
            return []
        rows = self._connection().execute(_RANKED, (fts_query, version, k)).fetchall()
        passages = self.snapshot.passages
        return [(passages[rowid - 1], score) for rowid, score in rows]

    def memoized(self, key, compute):
        """Return the memoized value for key, computing (and, while there is room, keeping) it."""
        value = self._memo.get(key)
        if value is None:
            value = compute()
            # Bounded, not evicting: once full, new keys are computed per call. A race between
            # threads can only compute an equal value twice.
            if len(self._memo) < self._memo_entries:
                self._memo[key] = value
        return value

    def close(self):
        """Close every thread's connection; later searches raise IndexClosed."""
        with self._lock:
            self._closed = True
            connections, self._connections = self._connections, []
        for conn in connections:
            conn.close()
