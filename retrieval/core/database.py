"""The SQLite layout every snapshot is served from: passages plus one FTS5 index per version of
each collection.

A built snapshot directory holds this database as a file, opened immutable; the JSON fixture is
loaded into the same layout in memory. One layout means one ranking query and one way to read a
passage, whatever the snapshot's origin.

FTS5 keeps its BM25 statistics (row count, average length, per-term document counts) per table,
so each version of each collection gets its own FTS table: no passage of another collection, nor
of another release of the same one, can change a score. A search of one version ranks exactly as
in a snapshot holding that version alone (the same scores, the same order); so do the words a
question leaves out and the words that match only in some fields, stored per version too.
"""

import os
import re
import sqlite3
from urllib.parse import quote

from .fields import PASSAGE_FIELDS
from .model import Passage
from .notes import VersionNote
from .ranking import FIELDED_TOKENIZER, FIELDS, Ranking

_FTS_TABLE_NAME = re.compile(r"passage_fts_[0-9]{1,6}")

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
    byte_count INTEGER NOT NULL,
    collection TEXT NOT NULL,
    title TEXT,
    flags TEXT
);
CREATE INDEX passages_source ON passages(collection, version, source_id);
CREATE TABLE collections (
    name TEXT PRIMARY KEY,
    corpus_id TEXT NOT NULL
);
CREATE TABLE version_tables (
    collection TEXT NOT NULL REFERENCES collections(name),
    version TEXT NOT NULL,
    fts_table TEXT NOT NULL UNIQUE,
    PRIMARY KEY (collection, version)
);
"""
# External content: the FTS index stores no second copy of the text. Only `text` is indexed, so
# BM25 document lengths count passage words and nothing else.
FTS_TABLE = """CREATE VIRTUAL TABLE {table} USING fts5(
    text, content='passages', content_rowid='id', tokenize='unicode61'
)"""

PASSAGE_COLUMNS = PASSAGE_FIELDS  # one column per field of model.Passage, in its order
# A passage's flags are stored as their codes separated by spaces, NULL when it has none.
_FLAGS_COLUMN = PASSAGE_COLUMNS.index("flags")
# Built snapshots: each unit's ranking facts with its prior (computed once, at build
# time, from the facts and the policy's weights), and its indexed fields, which the FTS table
# indexes as external content. Two tables, so that the join every ranking makes per matching row
# reads narrow rows: with the fields in the same table it cost about a quarter more CPU per
# query (measured in process).
FIELDED_SCHEMA = f"""
CREATE TABLE passage_facts (
    id INTEGER PRIMARY KEY REFERENCES passages(id),
    kind TEXT NOT NULL,
    in_links INTEGER NOT NULL,
    noindex INTEGER NOT NULL,
    reference_page INTEGER NOT NULL,
    prior REAL NOT NULL
);
CREATE TABLE passage_fields (
    id INTEGER PRIMARY KEY REFERENCES passages(id),
    {", ".join(name + " TEXT NOT NULL" for name in FIELDS)}
);
"""
# Built with --semantic: each unit's embedding, float16 little-endian (policy.semantic says of
# which model and how wide). Read once at load into one shared array.
VECTOR_SCHEMA = "CREATE TABLE passage_vectors (id INTEGER PRIMARY KEY REFERENCES passages(id), " \
    "vector BLOB NOT NULL)"
VECTORS_IN_ORDER = "SELECT id, vector FROM passage_vectors ORDER BY id"
# With a fallback's ubiquitous_share: per version of a collection, the words its question_terms
# queries leave out (ranking.ubiquitous_terms of that version's units' fields). With a ranking's
# common_terms, the same of its share, in UBIQUITOUS_TABLES["common"]: the words that match only
# in its fields.
UBIQUITOUS_TABLES = {"ubiquitous": "collection_terms", "common": "collection_common_terms"}
UBIQUITOUS_SCHEMA = ("CREATE TABLE {table} (collection TEXT NOT NULL, version TEXT NOT NULL, "
                     "term TEXT NOT NULL, PRIMARY KEY (collection, version, term)) WITHOUT ROWID")
# Built snapshots: each unit's version notes (notes.VersionNote), in the order its documentation
# gives them. A table of its own, written by every build since notes exist: an older snapshot
# without it has no notes, and serves as it did.
NOTES_TABLE = "passage_notes"
NOTES_SCHEMA = (f"CREATE TABLE {NOTES_TABLE} (id INTEGER NOT NULL REFERENCES passages(id), "
                "position INTEGER NOT NULL, kind TEXT NOT NULL, version TEXT NOT NULL, "
                "text TEXT NOT NULL, PRIMARY KEY (id, position)) WITHOUT ROWID")
NOTES_OF = f"SELECT kind, version, text FROM {NOTES_TABLE} WHERE id = ? ORDER BY position"
NOTES_OF_PASSAGE = (f"SELECT kind, version, text FROM {NOTES_TABLE} WHERE id = "
                    "(SELECT id FROM passages WHERE passage_id = ?) ORDER BY position")
# The notes of some rows (a json array of row ids) with their passages' ids, reading no text: what
# a name's units in the version asked say first (core/lookup.first_notes).
NOTES_OF_ROWS = (f"SELECT n.id, p.passage_id, n.kind, n.version, n.text FROM {NOTES_TABLE} AS n "
                 "JOIN passages AS p ON p.id = n.id "
                 "WHERE n.id IN (SELECT value FROM json_each(?)) ORDER BY n.id, n.position")
NOTES_IN_ORDER = f"SELECT id, kind, version, text FROM {NOTES_TABLE} ORDER BY id, position"
INDEX_FACTS = ("kind", "in_links", "noindex", "reference_page")
FIELDED_FTS_TABLE = f"""CREATE VIRTUAL TABLE {{table}} USING fts5(
    {", ".join(FIELDS)}, content='passage_fields', content_rowid='id',
    tokenize='{FIELDED_TOKENIZER}'
)"""
_SELECT = ", ".join("p." + column for column in PASSAGE_COLUMNS)
# Each (collection, version)'s passages occupy one contiguous id range (create() writes them
# grouped) and have an FTS table of their own; the range is the version's too, kept as a check
# the FTS5 scan applies itself (a name lookup reads the same way): no row of another version is
# scored, and no passage row is read until the top k are known. Measured on the full
# Python 3.11 docs (1,000 distinct question-derived queries): p99 27.3 ms with a join on
# passages.version, 14.7 ms with the range, identical results. Passage order (id) breaks score
# ties, so equal scores always rank in snapshot order.
RANKED = (
    "SELECT rowid, bm25({table}) AS score FROM {table} "
    "WHERE {table} MATCH ? AND rowid BETWEEN ? AND ? ORDER BY score, rowid LIMIT ?"
)
# bm25() with one weight per field, minus the unit's prior; the same rowid range and tie-break.
RANKED_FIELDED = (
    "SELECT f.rowid, bm25({table}, {weights}) - i.prior AS score "
    "FROM {table} AS f JOIN passage_facts AS i ON i.id = f.rowid "
    "WHERE {table} MATCH ? AND f.rowid BETWEEN ? AND ? ORDER BY score, f.rowid LIMIT ?"
)
# A ranking model's candidates: the fielded ranking's best and plain bm25's best (every field at
# weight 1), tagged 0 and 1, each list in its rank order, from one scan of the matching rows
# (measured on the 3.11 docs with CoNaLa train queries: mean 15.8 ms against 23.6 for the two
# ranking queries apart, the same lists). `+f.rowid` in the features query keeps SQLite from
# handing the id list to FTS5 as rowid look-ups, each of which re-runs the match (40x slower on
# the libraries' docs): the candidates are filtered from one scan instead.
MODEL_CANDIDATES = (
    "WITH m AS MATERIALIZED (SELECT f.rowid AS id, bm25({table}, {weights}) - i.prior AS fielded, "
    "bm25({table}) AS plain FROM {table} AS f JOIN passage_facts AS i ON i.id = f.rowid "
    "WHERE {table} MATCH ? AND f.rowid BETWEEN ? AND ?) "
    "SELECT * FROM (SELECT id, 0 FROM m ORDER BY fielded, id LIMIT ?) "
    "UNION ALL SELECT * FROM (SELECT id, 1 FROM m ORDER BY plain, id LIMIT ?)"
)
# Each candidate's facts (DENSE_FACTS_SQL's columns: index.UnitFacts), bm25_all, and the bm25
# of each field in FIELDS order.
MODEL_FEATURES_SQL = (
    "SELECT f.rowid, i.kind, i.in_links, i.noindex, i.reference_page, p.url, bm25({table}), "
    "{per_field} FROM {table} AS f JOIN passage_facts AS i ON i.id = f.rowid "
    "JOIN passages AS p ON p.id = f.rowid WHERE {table} MATCH ? AND f.rowid BETWEEN ? AND ? "
    "AND +f.rowid IN (SELECT value FROM json_each(?))"
)
# A ranking model's dense candidates (rows only the embedding found): their facts (index.UnitFacts),
# no bm25.
DENSE_FACTS_SQL = (
    "SELECT i.id, i.kind, i.in_links, i.noindex, i.reference_page, p.url FROM passage_facts AS i "
    "JOIN passages AS p ON p.id = i.id WHERE i.id IN (SELECT value FROM json_each(?))"
)
# The units that document an API object, one definition for what a release documents, which a
# name lookup (core/lookup.py) and a diff (core/diff.py) both read: those indexed under a
# qualified name (`f`: their passage_fields row). A `:noindex:` description and a docstring
# build's internals count (documented, only out of the site's index of objects), and so does a
# docstring build's module (a section under its module's name); a section of prose does not.
DOCUMENTS_OBJECT = "f.names != ''"
# A name lookup's candidates (core/lookup.py): the units documenting an object whose names fields
# hold the name's words, in a rowid range (a collection's versions), with those fields to match
# it exactly and whether each is out of the index (an indexed description is given first).
NAMED = (
    "SELECT t.rowid, f.names, f.name, i.noindex FROM {table} AS t "
    "JOIN passage_fields AS f ON f.id = t.rowid JOIN passage_facts AS i ON i.id = t.rowid "
    "WHERE {table} MATCH ? AND t.rowid BETWEEN ? AND ? AND " + DOCUMENTS_OBJECT +
    " ORDER BY t.rowid LIMIT ?"
)
# Whether any row of a span holds a term (a quoted FTS5 term, as a search matches it).
HOLDS = "SELECT 1 FROM {table} WHERE {table} MATCH ? AND rowid BETWEEN ? AND ? LIMIT 1"
INDEX_IN_ORDER = (f"SELECT a.id, {', '.join('a.' + c for c in INDEX_FACTS)}, "
                  f"{', '.join('b.' + c for c in FIELDS)}, a.prior FROM passage_facts a "
                  "JOIN passage_fields b ON b.id = a.id ORDER BY a.id")
BY_ID = f"SELECT {_SELECT} FROM passages AS p WHERE p.id = ?"
# Always reads one row: the passage, or (for an id the snapshot lacks) the first row, which the
# caller then discards. A missing id and one that exists but is hidden from the caller must cost
# the same (row read and decoded), or response time would tell them apart.
BY_PASSAGE_ID = (
    f"SELECT {_SELECT} FROM passages AS p WHERE p.id = coalesce("
    "(SELECT id FROM passages WHERE passage_id = ?), (SELECT min(id) FROM passages))"
)
# The pieces of a unit the build cut (blocks.size_pieces, or a section's own text around its
# objects) are the passages of one source, version, url and title; the piece before a passage and
# the piece after it are the nearest of them on either side. Only built snapshots name their units:
# a passage without a title (a JSON snapshot's) is a unit of its own, never looked up here.
_PIECES = ("SELECT {columns} FROM passages AS p WHERE p.collection = ? AND p.version = ? "
           "AND p.source_id = ? AND p.url = ? AND p.title = ? ")


def unit_of(passage: Passage) -> tuple:
    """Return what names a passage's unit, as _PIECES reads it: its source, url and title (its
    collection and version are the search's), or for a passage without a title its own id."""
    if passage.title is None:
        return (passage.passage_id,)
    return (passage.source_id, passage.url, passage.title)


PREVIOUS_PIECE = _PIECES.format(columns=_SELECT) + \
    "AND p.start_line < ? ORDER BY p.start_line DESC LIMIT 1"
NEXT_PIECE = _PIECES.format(columns=_SELECT) + \
    "AND p.start_line > ? ORDER BY p.start_line LIMIT 1"
VERSION_SPANS = (
    "SELECT collection, version, min(id), max(id), count(*) FROM passages "
    "GROUP BY collection, version"
)
COLLECTIONS = "SELECT name, corpus_id FROM collections ORDER BY name"
VERSION_TABLES = "SELECT collection, version, fts_table FROM version_tables"
SOURCE_SUMMARY = (
    "SELECT collection, version, source_id, source_sha256, count(*) FROM passages "
    "GROUP BY collection, version, source_id, source_sha256 ORDER BY collection, version, source_id"
)
IN_ORDER = f"SELECT {_SELECT} FROM passages AS p ORDER BY p.id"
# A built snapshot's units documenting an object (DOCUMENTS_OBJECT) in one version (a rowid range,
# as RANKED's): each passage with its kind, whether it is out of the index, and the names,
# signature and prose it is indexed by, in passage order (core/diff.py).
API_UNITS = (
    f"SELECT {_SELECT}, i.kind, i.noindex, f.names, f.signature, f.body, p.id FROM passages AS p "
    "JOIN passage_facts AS i ON i.id = p.id JOIN passage_fields AS f ON f.id = p.id "
    f"WHERE p.id BETWEEN ? AND ? AND {DOCUMENTS_OBJECT} ORDER BY p.id"
)


def ranked_sql(table: str, ranking) -> str:
    """Return the ranking query of one FTS table: plain bm25, or fielded with priors."""
    if ranking is None:
        return RANKED.format(table=table)
    return RANKED_FIELDED.format(table=table, weights=", ".join(map(repr, ranking.weights)))


def model_sql(table: str, ranking: Ranking) -> tuple:
    """Return a ranking model's candidates query and its features query for one table."""
    per_field = ", ".join(
        f"bm25({table}, {', '.join('1' if j == i else '0' for j in range(len(FIELDS)))})"
        for i in range(len(FIELDS)))
    return (MODEL_CANDIDATES.format(table=table, weights=", ".join(map(repr, ranking.weights))),
            MODEL_FEATURES_SQL.format(table=table, per_field=per_field))


def create(conn: sqlite3.Connection, passages, meta: dict, collection_ids: dict,
           ranking: Ranking | None = None, vectors: dict | None = None,
           ubiquitous: dict | None = None, common: dict | None = None):
    """Write the schema, passages grouped by collection and version, one FTS table per version
    of a collection, meta.

    collection_ids maps every collection name to its corpus_id. With a ranking, every
    passage must carry its IndexFields, and the FTS tables index those fields. With vectors
    (passage_id -> vector bytes), every passage's vector goes in passage_vectors. With
    ubiquitous or common ((collection, version) -> words), the words go in their
    UBIQUITOUS_TABLES table.
    """
    conn.executescript(SCHEMA)
    if ranking is not None:
        conn.executescript(FIELDED_SCHEMA)
    placeholders = ", ".join("?" for _ in PASSAGE_COLUMNS)
    # A stable sort: within a version, snapshot order (and so tie-breaking) is unchanged.
    ordered = sorted(passages, key=lambda p: (p.collection, p.version))
    conn.executemany(
        f"INSERT INTO passages ({', '.join(PASSAGE_COLUMNS)}) VALUES ({placeholders})",
        (tuple(" ".join(p.flags) or None if column == "flags" else getattr(p, column)
               for column in PASSAGE_COLUMNS) for p in ordered),
    )
    if ranking is not None:
        conn.executemany(
            f"INSERT INTO passage_facts (id, {', '.join(INDEX_FACTS)}, prior) "
            f"VALUES ({', '.join('?' for _ in range(2 + len(INDEX_FACTS)))})",
            ((rowid, *(getattr(p.index, fact) for fact in INDEX_FACTS), ranking.prior(p.index))
             for rowid, p in enumerate(ordered, start=1)))
        conn.executemany(
            f"INSERT INTO passage_fields (id, {', '.join(FIELDS)}) "
            f"VALUES ({', '.join('?' for _ in range(1 + len(FIELDS)))})",
            ((rowid, *(getattr(p.index, name) for name in FIELDS))
             for rowid, p in enumerate(ordered, start=1)))
        conn.execute(NOTES_SCHEMA)
        conn.executemany(
            f"INSERT INTO {NOTES_TABLE} (id, position, kind, version, text) "
            "VALUES (?, ?, ?, ?, ?)",
            ((rowid, position, note.kind, note.version, note.text)
             for rowid, p in enumerate(ordered, start=1)
             for position, note in enumerate(p.notes)))
    if vectors is not None:
        conn.execute(VECTOR_SCHEMA)
        conn.executemany("INSERT INTO passage_vectors (id, vector) VALUES (?, ?)",
                         ((rowid, vectors[p.passage_id]) for rowid, p in enumerate(ordered, 1)))
    for which, words in (("ubiquitous", ubiquitous), ("common", common)):
        if words is not None:
            table = UBIQUITOUS_TABLES[which]
            conn.execute(UBIQUITOUS_SCHEMA.format(table=table))
            conn.executemany(f"INSERT INTO {table} (collection, version, term) VALUES (?, ?, ?)",
                             sorted((*held, term) for held, terms in words.items()
                                    for term in terms))
    conn.executemany("INSERT INTO collections(name, corpus_id) VALUES (?, ?)",
                     sorted(collection_ids.items()))
    # Table names come from positions, never from collection or version names; a version's
    # rows are its id range (version_spans).
    for position, ((name, version), (first, last)) in enumerate(
            sorted(version_spans(conn).items())):
        table = f"passage_fts_{position}"
        if ranking is None:
            conn.execute(FTS_TABLE.format(table=table))
            conn.execute(f"INSERT INTO {table}(rowid, text) "
                         "SELECT id, text FROM passages WHERE id BETWEEN ? AND ? ORDER BY id",
                         (first, last))
        else:
            conn.execute(FIELDED_FTS_TABLE.format(table=table))
            conn.execute(f"INSERT INTO {table}(rowid, {', '.join(FIELDS)}) "
                         f"SELECT id, {', '.join(FIELDS)} FROM passage_fields "
                         "WHERE id BETWEEN ? AND ? ORDER BY id", (first, last))
        conn.execute("INSERT INTO version_tables(collection, version, fts_table) "
                     "VALUES (?, ?, ?)", (name, version, table))
    conn.executemany("INSERT INTO meta(key, value) VALUES (?, ?)", sorted(meta.items()))
    conn.commit()


class DatabaseReplaced(ValueError):
    """The file at a snapshot database's path is no longer the one that was verified."""


def file_identity(path) -> tuple:
    """Return what tells a file from its replacement or its rewrite: device, inode, size, mtime."""
    with open(path, "rb") as handle:
        return fd_identity(handle.fileno())


def fd_identity(fd) -> tuple:
    """Return file_identity of an open file descriptor's file."""
    info = os.fstat(fd)
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


def open_held(path, identity) -> int:
    """Open the verified file for os.fstat checks; return its descriptor."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    if fd_identity(fd) != identity:
        os.close(fd)
        raise DatabaseReplaced(f"{path} is not the file that was verified")
    return fd


def open_immutable(path, identity=None) -> sqlite3.Connection:
    """Open a snapshot database read-only and immutable (no locks, no journal, no writes).

    With an identity (file_identity of the verified file), refuse with DatabaseReplaced unless
    the path names that very file both before and after SQLite opens it: a file replaced,
    deleted or rewritten since it was verified is never served under the verified identity.
    """
    if identity is not None and _identity_or_none(path) != identity:
        raise DatabaseReplaced(f"{path} is not the file that was verified")
    uri = "file:" + quote(str(path)) + "?mode=ro&immutable=1"
    # check_same_thread=False: connections are opened up front and handed to worker threads, and
    # the owner closes them; each is used by one thread at a time.
    conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
    # SQLite holds its file descriptor from here on, whatever later happens to the path.
    if identity is not None and _identity_or_none(path) != identity:
        conn.close()
        raise DatabaseReplaced(f"{path} is not the file that was verified")
    return conn


def _identity_or_none(path):
    try:
        return file_identity(path)
    except OSError:
        return None


def version_spans(conn) -> dict:
    """Return {(collection, version): (first id, last id)}; refuse interleaved passages."""
    spans = {}
    for collection, version, first, last, count in conn.execute(VERSION_SPANS):
        if last - first + 1 != count:
            raise ValueError(f"passages of {collection} {version} are not contiguous")
        spans[collection, version] = (first, last)
    return spans


def collection_tables(conn) -> dict:
    """Return {collection: (corpus_id, {version: FTS table name})}; refuse any table create()
    never writes, and a version of a collection the database does not list."""
    tables: dict = {name: (corpus_id, {}) for name, corpus_id in conn.execute(COLLECTIONS)}
    for name, version, table in conn.execute(VERSION_TABLES):
        # The name is put into SQL text, so it must be one create() could have written.
        if not _FTS_TABLE_NAME.fullmatch(table):
            raise ValueError(f"{name} {version}: bad FTS table name {table[:64]!r}")
        if name not in tables:
            raise ValueError(f"an FTS table of {name} {version}, not a collection")
        tables[name][1][version] = table
    return tables


def collection_terms(conn, which: str = "ubiquitous") -> dict:
    """Return {collection: {version: frozenset of its ubiquitous (or common) words}}; refuse a
    database without them."""
    table = UBIQUITOUS_TABLES[which]
    try:
        rows = conn.execute(f"SELECT collection, version, term FROM {table}").fetchall()
    except sqlite3.OperationalError:
        raise ValueError(f"{table}: missing (the policy has {which} words)") from None
    terms: dict[str, dict[str, set]] = {}
    for collection, version, term in rows:
        terms.setdefault(collection, {}).setdefault(version, set()).add(term)
    return {collection: {version: frozenset(words) for version, words in versions.items()}
            for collection, versions in terms.items()}


def vector_rows(conn, dimensions: int) -> list:
    """Return every passage's vector bytes in id order; refuse a missing, extra or odd row."""
    try:
        rows = conn.execute(VECTORS_IN_ORDER).fetchall()
    except sqlite3.OperationalError:
        raise ValueError("passage_vectors: missing (the policy has a semantic section)") from None
    count = conn.execute("SELECT count(*) FROM passages").fetchone()[0]
    if [row[0] for row in rows] != list(range(1, count + 1)):
        raise ValueError("passage_vectors: not exactly one row per passage")
    if any(not isinstance(vector, bytes) or len(vector) != 2 * dimensions
           for _, vector in rows):
        raise ValueError(f"passage_vectors: every vector must be {dimensions} float16 values")
    return [vector for _, vector in rows]


def has_notes(conn) -> bool:
    """Tell whether a snapshot database holds version notes (built since they exist)."""
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                        (NOTES_TABLE,)).fetchone() is not None


def notes_of(conn, sql: str, key) -> tuple:
    """Return one passage's VersionNotes, by its row id (NOTES_OF) or passage_id
    (NOTES_OF_PASSAGE)."""
    return tuple(VersionNote(*row) for row in conn.execute(sql, (key,)))


def notes_by_row(conn) -> dict:
    """Return {row id: its VersionNotes} of every passage that has some (none: an older
    snapshot)."""
    notes: dict = {}
    if has_notes(conn):
        for rowid, *note in conn.execute(NOTES_IN_ORDER):
            notes.setdefault(rowid, []).append(VersionNote(*note))
    return {rowid: tuple(found) for rowid, found in notes.items()}


def passage_from_row(row) -> Passage:
    """Build a Passage from a row selected with PASSAGE_COLUMNS first."""
    values = list(row[:len(PASSAGE_COLUMNS)])
    values[_FLAGS_COLUMN] = stored_flags(values[_FLAGS_COLUMN])
    return Passage(*values)


def stored_flags(column) -> tuple:
    """Return the flags a passages row's flags column holds."""
    return tuple(column.split()) if column else ()
