"""The SQLite layout every snapshot is served from: passages plus their FTS5 index.

A built snapshot directory holds this database as a file, opened immutable; the JSON fixture is
loaded into the same layout in memory. One layout means one ranking query and one way to read a
passage, whatever the snapshot's origin.
"""

import sqlite3
from urllib.parse import quote

from .snapshot import Passage

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE passages (
    id INTEGER PRIMARY KEY,
    passage_id TEXT NOT NULL UNIQUE,
    source_id TEXT NOT NULL,
    version TEXT NOT NULL,
    url TEXT NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    text TEXT NOT NULL,
    text_sha256 TEXT NOT NULL,
    source_sha256 TEXT NOT NULL,
    document_revision TEXT NOT NULL,
    byte_count INTEGER NOT NULL
);
CREATE INDEX passages_source ON passages(version, source_id);
-- External content: the FTS index stores no second copy of the text. Only `text` is indexed, so
-- BM25 document lengths count passage words and nothing else.
CREATE VIRTUAL TABLE passage_fts USING fts5(
    text, content='passages', content_rowid='id', tokenize='unicode61'
);
"""

PASSAGE_COLUMNS = ("passage_id", "source_id", "version", "url", "start_line", "end_line", "text",
                   "text_sha256", "source_sha256", "document_revision", "byte_count")
_SELECT = ", ".join("p." + column for column in PASSAGE_COLUMNS)
# Passage order (id) breaks score ties, so equal scores always rank in snapshot order.
RANKED = (
    f"SELECT {_SELECT}, bm25(passage_fts) AS score FROM passage_fts "
    "JOIN passages AS p ON p.id = passage_fts.rowid "
    "WHERE passage_fts MATCH ? AND p.version = ? ORDER BY score, p.id LIMIT ?"
)
BY_PASSAGE_ID = f"SELECT {_SELECT} FROM passages AS p WHERE p.passage_id = ?"
SOURCE_SUMMARY = (
    "SELECT version, source_id, source_sha256, count(*) FROM passages "
    "GROUP BY version, source_id, source_sha256 ORDER BY version, source_id"
)
IN_ORDER = f"SELECT {_SELECT} FROM passages AS p ORDER BY p.id"


def create(conn: sqlite3.Connection, passages, meta: dict):
    """Write the schema, the passages in order, their FTS index and the meta table."""
    conn.executescript(SCHEMA)
    placeholders = ", ".join("?" for _ in PASSAGE_COLUMNS)
    conn.executemany(
        f"INSERT INTO passages ({', '.join(PASSAGE_COLUMNS)}) VALUES ({placeholders})",
        (tuple(getattr(p, column) for column in PASSAGE_COLUMNS) for p in passages),
    )
    conn.execute("INSERT INTO passage_fts(rowid, text) SELECT id, text FROM passages")
    conn.executemany("INSERT INTO meta(key, value) VALUES (?, ?)", sorted(meta.items()))
    conn.commit()


def open_immutable(path) -> sqlite3.Connection:
    """Open a snapshot database read-only and immutable (no locks, no journal, no writes)."""
    uri = "file:" + quote(str(path)) + "?mode=ro&immutable=1"
    # check_same_thread=False only so that the owner may close it from another thread; each
    # connection is used by the one thread that opened it.
    return sqlite3.connect(uri, uri=True, check_same_thread=False)


def passage_from_row(row) -> Passage:
    """Build a Passage from a row selected with PASSAGE_COLUMNS first."""
    return Passage(*row[:len(PASSAGE_COLUMNS)])
