"""The lexical index: SQLite FTS5 over one snapshot, opened once and shared read-only.

Searches go through a `CollectionIndex`, one per collection, which ranks each version with that
version's own FTS table and finds only its own passages.

A built snapshot's database file is opened immutable, one connection per worker thread, and only
ever the file that was verified at load: the connections for the expected workers are opened up
front, so a snapshot replaced or deleted under a running server changes nothing it serves, and a
connection opened later refuses a path that names another file (IndexUnavailable). The JSON
fixture is loaded into the same layout in memory once and serialized; each thread gets a private
copy of that image (sqlite3 connections must not be shared across threads). Nothing corpus-sized
is built or copied per request.
"""

import json
import os
import sqlite3
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import NamedTuple, Optional

from . import database
from .checks import SnapshotError
from .lookup import MAX_NAMED_ROWS, Lookup, exactness, name_query, names_match
from .model import Passage, Snapshot
from .notes import VersionNote
from .query import quote_fts_terms
from .ranking import RankingModel, page_counts, page_of
from .rerank import Reranker
from .searches import MATCH_ALL, SearchCall


class IndexClosed(RuntimeError):
    """The index was closed; no further searches can run."""


class IndexUnavailable(RuntimeError):
    """A thread needs a connection and the verified database file is no longer at its path."""


class DeadlineExceeded(RuntimeError):
    """A query was interrupted inside SQLite because the request's deadline passed."""


# SQLite calls the progress handler every this many virtual-machine instructions: often enough
# to stop within well under a millisecond, rarely enough to cost nothing measurable.
PROGRESS_INSTRUCTIONS = 1000


class SnapshotIndex:
    """A read-only FTS5 index of a snapshot's passages, one connection per thread."""

    def __init__(self, snapshot: Snapshot, connections: int = 1):
        """connections: how many worker threads will search; each gets a connection opened now."""
        if snapshot.semantic is not None and snapshot.reranker is None:
            # Served lexically, it would answer otherwise than the policy its corpus_id names.
            raise SnapshotError("a snapshot built with --semantic is served with its re-ranker "
                                "(retrieval.rerank.attach), never without")
        self.snapshot = snapshot
        self._image = None
        if snapshot.database_path is None:
            builder = sqlite3.connect(":memory:")
            try:
                database.create(builder, snapshot.passages, {"corpus_id": snapshot.corpus_id},
                                {name: c.corpus_id for name, c in snapshot.collections.items()})
                self._image = builder.serialize()
            finally:
                builder.close()
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: list[sqlite3.Connection] = []
        self._spare = []
        self._closed = False
        self._held = None
        self._notes = False  # whether the database holds version notes (database.has_notes)
        self._embedder: ThreadPoolExecutor | None = None
        self._identity = snapshot.database_identity
        try:
            if snapshot.database_path is not None:
                # A snapshot made without the directory loader is verified as it is now.
                self._identity = self._identity or database.file_identity(snapshot.database_path)
                self._held = database.open_held(snapshot.database_path, self._identity)
            self._spare = [self._open() for _ in range(max(1, connections))]
            conn = self._spare[0]
            spans = database.version_spans(conn)
            tables = database.collection_tables(conn)
            self._notes = database.has_notes(conn)
        except (ValueError, sqlite3.Error, OSError) as exc:
            self.close()
            raise SnapshotError(f"snapshot database: {exc}") from None
        if {name: corpus_id for name, (corpus_id, _) in tables.items()} != {
                name: c.corpus_id for name, c in snapshot.collections.items()}:
            self.close()
            raise SnapshotError("snapshot database: collections do not match the snapshot's")
        ranking = snapshot.ranking
        common = None if ranking is None else ranking.common_terms
        # A query's embedding and its nearest units run beside its lexical scan, which they do
        # not depend on (both release the GIL: numpy in BLAS, sqlite3 in each step), so a search
        # waits for the longer of the two, not their sum (the 3.11 docs with minilm, one
        # request at a time: embedding and nearest p50 15 ms, lexical candidates 8 ms;
        # docs/building.md). One worker per connection: a search never waits for another's.
        # Workers start at the first such search (CollectionIndex._model_candidates decides).
        if snapshot.reranker is not None:
            self._embedder = ThreadPoolExecutor(max(1, connections), "retrieval-embed")
        if sorted(spans) != sorted((name, version) for name, (_, versions) in tables.items()
                                   for version in versions):
            self.close()
            raise SnapshotError("snapshot database: not one FTS table per version")
        self._collections = {
            name: CollectionIndex(self, name, corpus_id, {
                version: VersionIndex(
                    spans[name, version], database.ranked_sql(table, ranking),
                    None if ranking is None or ranking.model is None else ModelQueries(
                        ranking.model, *database.model_sql(table, ranking)),
                    None if ranking is None else database.NAMED.format(table=table),
                    database.HOLDS.format(table=table),
                    snapshot.collections[name].common_terms.get(version, frozenset()))
                for version, table in versions.items()},
                snapshot.reranker, () if common is None else common.fields)
            for name, (corpus_id, versions) in tables.items()
        }

    def unchanged(self) -> bool:
        """Tell whether the verified database file still holds the bytes verified at load.

        Connections hold the verified file open, so replacing or deleting it changes nothing
        served; rewriting that very file in place would, and is detected here (size, mtime).
        """
        if self._held is None:
            return True
        try:
            return database.fd_identity(self._held) == self._identity
        except OSError:  # closed
            return False

    def collection(self, name: str) -> Optional["CollectionIndex"]:
        """Return the index of one collection, or None when the snapshot has no such collection."""
        return self._collections.get(name)

    def _connection(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            return conn
        with self._lock:
            if self._closed:
                raise IndexClosed("the snapshot index is closed")
            if self._spare:
                conn = self._spare.pop()
            else:
                try:
                    conn = self._open()
                except database.DatabaseReplaced as exc:
                    raise IndexUnavailable(str(exc)) from None
        self._local.conn = conn
        return conn

    def _open(self) -> sqlite3.Connection:
        # Called with self._lock held, or from __init__.
        if self._image is None:
            conn = database.open_immutable(self.snapshot.database_path, self._identity)
        else:
            # check_same_thread=False: opened here, used by the one thread it is handed to,
            # closed by close().
            conn = sqlite3.connect(":memory:", check_same_thread=False)
            conn.deserialize(self._image)
        conn.execute("PRAGMA query_only = ON")
        self._connections.append(conn)
        return conn

    def run_ranked(self, sql: str, arguments: tuple, deadline: float | None):
        """Run a ranking query on this thread's connection; return (connection, rows)."""
        conn = self._connection()
        if deadline is None:
            return conn, conn.execute(sql, arguments).fetchall()
        clock = time.monotonic
        # A nonzero return makes SQLite abandon the statement with "interrupted".
        conn.set_progress_handler(lambda: clock() >= deadline, PROGRESS_INSTRUCTIONS)
        try:
            return conn, conn.execute(sql, arguments).fetchall()
        except sqlite3.OperationalError:
            if clock() >= deadline:
                raise DeadlineExceeded("search interrupted at the deadline") from None
            raise
        finally:
            conn.set_progress_handler(None, 0)

    def dense_beside(self, reranker: Reranker, query: str, span: tuple) -> Future:
        """Start embedding the query and finding its nearest rows of span on a worker thread;
        return the future (vector, row ids)."""
        assert self._embedder is not None  # a snapshot with a re-ranker has one
        try:
            return self._embedder.submit(_nearest_to, reranker, query, span)
        except RuntimeError:  # shut down by close()
            raise IndexClosed("the snapshot index is closed") from None

    def passage(self, passage_id: str) -> Passage | None:
        """Return the passage with this id, or None."""
        row = self._connection().execute(database.BY_PASSAGE_ID, (passage_id,)).fetchone()
        if row is None:
            return None
        # Built either way: a stand-in row for a missing id costs what a real one does.
        passage = database.passage_from_row(row)
        if passage.passage_id != passage_id:
            return None
        return self.with_notes(passage, database.NOTES_OF_PASSAGE, passage_id)

    @property
    def has_notes(self) -> bool:
        """Tell whether the snapshot records version notes (one built since they exist)."""
        return self._notes

    def with_notes(self, passage: Passage, sql: str, key) -> Passage:
        """Return the passage with its version notes (database.notes_of by sql and key)."""
        if not self._notes:
            return passage
        notes = database.notes_of(self._connection(), sql, key)
        return replace(passage, notes=notes) if notes else passage

    def pieces_beside(self, passage: Passage) -> tuple:
        """Return the pieces of passage's unit just before and just after it (None: none).

        A passage without a title (a JSON snapshot's) is a unit of its own (database._PIECES).
        """
        if passage.title is None:
            return None, None
        unit = (passage.collection, passage.version, passage.source_id, passage.url, passage.title)
        connection = self._connection()
        rows = (connection.execute(database.PREVIOUS_PIECE, unit + (passage.start_line,)),
                connection.execute(database.NEXT_PIECE, unit + (passage.end_line,)))
        return tuple(None if row is None else database.passage_from_row(row)
                     for row in (cursor.fetchone() for cursor in rows))

    def close(self):
        """Close every thread's connection; later searches raise IndexClosed."""
        with self._lock:
            self._closed = True
            connections, self._connections = self._connections, []
        for conn in connections:
            conn.close()
        held, self._held = self._held, None
        if held is not None:
            os.close(held)
        if self._embedder is not None:
            self._embedder.shutdown(wait=False, cancel_futures=True)


def _nearest_to(reranker: Reranker, query: str, span: tuple) -> tuple:
    """Return the query's vector and the row ids of span nearest it."""
    vector = reranker.query_vector(query)
    return vector, reranker.nearest(vector, span)


class UnitFacts(NamedTuple):
    """What a ranking model reads of a candidate unit besides its bm25: a row of
    database.DENSE_FACTS_SQL, and the first columns of a row of its features query."""

    rowid: int
    kind: str
    in_links: int
    noindex: int  # 0 or 1
    reference_page: int  # 0 or 1
    url: str


# The features query's columns: the unit's facts, then bm25_all, then bm25 of each field.
_FACT_COLUMNS = len(UnitFacts._fields)


class Matched(NamedTuple):
    """A unit the search's FTS5 scan matched: its facts, its bm25 scores, and its place in the
    fielded ranking's best and in bm25_all's best (-1: not among them)."""

    facts: UnitFacts
    bm25_all: float
    bm25_fields: tuple  # in FIELDS order
    fielded_rank: int
    plain_rank: int


class Candidate(NamedTuple):
    """One unit a ranking model scores for a search, and quality/fit.py fits it on."""

    rowid: int
    url: str
    features: tuple  # in MODEL_FEATURES order


@dataclass(frozen=True)
class ModelQueries:
    """A ranking model and the two queries of one FTS table it reads its candidates with."""

    model: RankingModel
    candidates_sql: str  # the fielded ranking's and bm25_all's best, from one scan
    features_sql: str  # every candidate's features


class VersionIndex(NamedTuple):
    """One version of a collection: its rows and the queries of its own FTS table."""

    span: tuple  # (first row id, last row id): a version's rows are contiguous
    ranked_sql: str  # database.ranked_sql
    model: ModelQueries | None  # a ranking model's queries; None: ranked by ranked_sql
    named_sql: str | None  # the name lookup's query (database.NAMED); None: no names
    holds_sql: str  # whether a unit of it holds a word (database.HOLDS; holds_of)
    common: frozenset  # the ranking's common_terms of this version's units


def _best_named(rows, per_version: int) -> list:
    """Return the row ids of at most per_version of one version's units documenting a name,
    (exactness, noindex, rowid) rows, in lookup's order: the name itself first, then indexed
    descriptions, then snapshot order (what lookup() gives and noted() reads the notes of)."""
    return [rowid for *_, rowid in sorted(rows)[:per_version]]


class ApiUnit(NamedTuple):
    """One unit of a built snapshot that documents an API object (database.DOCUMENTS_OBJECT):
    its passage and what it is indexed by (core/diff.py)."""

    passage: Passage
    kind: str
    noindex: int  # 0 or 1: out of the site's index of objects (a `:noindex:` duplicate)
    names: str  # qualified names, space-separated
    signature: str
    body: str


class CollectionIndex:
    """One collection of a SnapshotIndex: its identity and its versions, each with its rows and
    its own FTS table (VersionIndex)."""

    def __init__(self, owner: SnapshotIndex, name: str, corpus_id: str, versions: dict,
                 reranker: Reranker | None = None, common_fields: tuple = ()):
        self._owner = owner
        self.name = name
        self.corpus_id = corpus_id
        # {version: VersionIndex}, in row order.
        self._versions = dict(sorted(versions.items(), key=lambda item: item[1].span))
        self._reranker = reranker
        # The ranking's common_terms fields: a version's common words match only in them.
        self._common_fields = common_fields

    def holds_of(self, version: str):
        """Return a test of a word: whether some unit of the version holds it, matched as a
        search matches it (a common word in the common fields only); None for a version the
        collection does not hold."""
        held = self._versions.get(version)
        if held is None:
            return None

        def holds(word: str) -> bool:
            return self._owner._connection().execute(held.holds_sql, (quote_fts_terms(
                word, MATCH_ALL, held.common, self._common_fields), *held.span)
            ).fetchone() is not None
        return holds

    def _fts_query_and_version(self, search: SearchCall) -> tuple:
        """Return the search's FTS5 query (None: no term) and its VersionIndex (None: a version
        the collection does not hold)."""
        held = self._versions.get(search.version)
        common = frozenset() if held is None else held.common
        return quote_fts_terms(search.query, search.match, common, self._common_fields), held

    def rank(self, search: SearchCall, deadline: float | None = None):
        """Return up to search.k (passage, score) pairs of its version, best first, one per unit
        (_unit_hits).

        The score is bm25 (minus the prior), or with a reranker the re-sorted score of the
        reranker's candidates (the lexical ones, and its dense ones of this version). deadline
        is a time.monotonic() value; a ranking still running then raises DeadlineExceeded.
        """
        fts_query, held = self._fts_query_and_version(search)
        k = search.k
        if fts_query is None or held is None or k <= 0:
            return []
        reranker = self._reranker
        span = held.span
        limit = k if reranker is None else max(k, reranker.candidates)
        while True:
            if held.model is not None:
                # Without a re-ranker every candidate is scored anyway: take them all.
                conn, ranked = self._model_ranked(
                    search, fts_query, held, None if reranker is None else limit, deadline)
            else:
                conn, ranked = self._owner.run_ranked(
                    held.ranked_sql, (fts_query, span[0], span[1], limit), deadline)
                if reranker is not None:
                    # The span's rows are the collection's version: the only units it may add.
                    ranked = reranker(search.embedded, ranked, span)
            if search.name is not None:
                ranked = self._named_first(search.name, held, ranked, k, deadline)
            hits = self._unit_hits(conn, ranked, k)
            # Pieces of one unit take one place: rank deeper until k units or no more rows.
            every_candidate = held.model is not None and reranker is None
            if len(hits) == k or every_candidate or len(ranked) < limit:
                return hits
            limit *= 2

    def _named_first(self, name: str, held: VersionIndex, ranked: list, k: int,
                     deadline: float | None) -> list:
        """Return ranked, (row id, score) pairs, with the rows of the units documenting an API
        name moved first, in a name lookup's order (_best_named: the name itself, then indexed
        descriptions), each with its own score; the others keep their order.

        Only rows the ranking found move: a search's hits stay the units its query matched,
        scored as its ranking scored them. Why: a question that is a name asks for the unit
        documenting that name, and the ranking alone puts it below units that say the name more
        often (pytest's `markers` setting below eleven pages about markers).
        """
        _, rows, _ = self._named(name, held, deadline)
        order = {rowid: place for place, rowid in enumerate(_best_named(rows, k))}
        if not order:
            return ranked
        first = sorted((pair for pair in ranked if pair[0] in order),
                       key=lambda pair: order[pair[0]])
        return first + [pair for pair in ranked if pair[0] not in order]

    def _unit_hits(self, conn, ranked, k: int) -> list:
        """Return the first k (passage, score) pairs of ranked (row id, score) pairs, one per
        unit: a unit the build cut is hit by its best-ranked piece alone. A search's places go
        to distinct units, and a `reads: best` run reads a hit's unit whole anyway."""
        hits: list = []
        units: set = set()
        for rowid, score in ranked:
            passage = self._row(conn, rowid)
            unit = database.unit_of(passage)
            if unit in units:
                continue
            units.add(unit)
            hits.append((self._owner.with_notes(passage, database.NOTES_OF, rowid), score))
            if len(hits) == k:
                break
        return hits

    @staticmethod
    def _row(conn, rowid: int) -> Passage:
        """Return the passage of a row id, without its version notes."""
        return database.passage_from_row(conn.execute(database.BY_ID, (rowid,)).fetchone())

    def row_passage(self, conn, rowid: int) -> Passage:
        """Return the passage of a row id, with its version notes."""
        return self._owner.with_notes(self._row(conn, rowid), database.NOTES_OF, rowid)

    def _model_ranked(self, search: SearchCall, fts_query: str, held: VersionIndex,
                      limit: int | None, deadline: float | None):
        """Return (connection, (row id, score) pairs best first) by the ranking model; a
        re-ranker embeds search.embedded (the query, or the question's sentence).

        Without a re-ranker, the best `limit`; with one, every candidate (its dense ones too)
        re-sorted by score - weight x cosine, as quality/fit.py --cosine fits them. Ties go
        to the lower row id, as in every other ranking.
        """
        assert held.model is not None
        model, reranker = held.model.model, self._reranker
        literals = search.literals
        conn, candidates, vector = self._model_candidates(search.embedded, fts_query, held,
                                                          deadline)
        scored = sorted((model.score(candidate.features, literals), candidate.rowid)
                        for candidate in candidates)
        if reranker is None:
            return conn, [(rowid, score) for score, rowid in scored[:limit]]
        if vector is None:  # a model that does not weigh dense candidates: added at the floor
            return conn, reranker(search.embedded,
                                  [(rowid, score) for score, rowid in scored[:limit]], held.span,
                                  literals)
        return conn, reranker.resort(vector, [(rowid, score) for score, rowid in scored],
                                     literals)

    def model_candidates(self, search: SearchCall, deadline: float | None = None) -> list:
        """Return the ranking model's Candidates for a search: what the model scores, whatever
        search.k, and what quality/fit.py fits it on (with a re-ranker, its dense
        candidates too, nearest search.embedded's vector)."""
        fts_query, held = self._fts_query_and_version(search)
        if held is None or held.model is None or fts_query is None:
            return []
        _, candidates, _ = self._model_candidates(search.embedded, fts_query, held, deadline)
        return candidates

    def _model_candidates(self, embedded: str, fts_query: str, held: VersionIndex,
                          deadline: float | None):
        """Return (connection, Candidates, the vector of `embedded` or None): the fielded
        ranking's best and bm25_all's best, and with a re-ranker and a model that weighs `dense`
        the rows nearest that vector that neither holds (dense candidates: no bm25, in no list).
        Each candidate's page_candidates counts them all.
        """
        assert held.model is not None
        model, reranker = held.model.model, self._reranker
        vector, dense = None, []
        if reranker is None or not model.weighs_dense:
            conn, lexical = self._lexical_rows(fts_query, held, deadline)
        else:
            pending = self._owner.dense_beside(reranker, embedded, held.span)
            conn, lexical = self._lexical_rows(fts_query, held, deadline)
            vector, nearest = pending.result()
            present = {matched.facts.rowid for matched in lexical}
            dense_ids = [rowid for rowid in nearest if rowid not in present]
            if dense_ids:
                _, rows = self._owner.run_ranked(database.DENSE_FACTS_SQL,
                                                 (json.dumps(dense_ids),), deadline)
                dense = list(map(UnitFacts._make, rows))
        on_page = page_counts([matched.facts.url for matched in lexical] +
                              [facts.url for facts in dense])
        candidates = []
        for matched in lexical:
            facts = matched.facts
            candidates.append(Candidate(facts.rowid, facts.url, model.features(
                matched.bm25_all, matched.bm25_fields, facts.kind, facts.in_links,
                bool(facts.noindex), bool(facts.reference_page), facts.url,
                matched.fielded_rank, matched.plain_rank, on_page[page_of(facts.url)])))
        candidates += [Candidate(facts.rowid, facts.url, model.dense_features(
            facts.kind, facts.in_links, bool(facts.noindex), bool(facts.reference_page),
            facts.url, on_page[page_of(facts.url)])) for facts in dense]
        return conn, candidates, vector

    def _lexical_rows(self, fts_query: str, held: VersionIndex, deadline: float | None):
        """Return (connection, [Matched]): the fielded ranking's best and bm25_all's best."""
        assert held.model is not None
        queries, run = held.model, self._owner.run_ranked
        model = queries.model
        bounds = (fts_query, *held.span)
        _, tagged = run(queries.candidates_sql, (*bounds, model.candidates, model.candidates),
                        deadline)
        # Each list comes in its own rank order, tagged 0 (fielded) or 1 (plain).
        fielded_rank: dict = {}
        plain_rank: dict = {}
        for rowid, plain in tagged:
            ranks = plain_rank if plain else fielded_rank
            ranks[rowid] = len(ranks)
        ids = sorted(fielded_rank.keys() | plain_rank.keys())
        conn, rows = run(queries.features_sql, (*bounds, json.dumps(ids)), deadline)
        end = _FACT_COLUMNS
        return conn, [Matched(UnitFacts._make(row[:end]), row[end], row[end + 1:],
                              fielded_rank.get(row[0], -1), plain_rank.get(row[0], -1))
                      for row in rows]

    def api_units(self, version: str) -> list | None:
        """Return the ApiUnits of one version (the units documenting an object, as a lookup
        finds them: database.DOCUMENTS_OBJECT) in passage order, each passage with its version
        notes ([]: a version it does not hold); None for a snapshot that records no units' facts
        (the JSON fixture)."""
        if self._owner.snapshot.ranking is None:
            return None
        held = self._versions.get(version)
        if held is None:
            return []
        rows = self._owner._connection().execute(database.API_UNITS, held.span).fetchall()
        end = len(database.PASSAGE_COLUMNS)
        return [ApiUnit(self._owner.with_notes(database.passage_from_row(row), database.NOTES_OF,
                                               row[-1]), *row[end:-1]) for row in rows]

    def _named(self, name: str, held: VersionIndex, deadline: float | None,
               limit: int = MAX_NAMED_ROWS):
        """Return (connection, [(exactness, noindex, rowid)], how many rows were read): the units
        of one version documenting an API name, in snapshot order (core/lookup.py's test), of
        the first `limit` rows whose names hold its words."""
        fts_query = name_query(name)
        if held.named_sql is None or fts_query is None:
            return None, [], 0
        conn, rows = self._owner.run_ranked(held.named_sql, (fts_query, *held.span, limit),
                                            deadline)
        return conn, [(exactness(name, qualified), noindex, rowid)
                      for rowid, qualified, bare, noindex in rows
                      if names_match(name, qualified, bare)], len(rows)

    def noted(self, name: str, version: str, per_version: int,
              deadline: float | None = None) -> tuple | None:
        """Return the version notes of the units documenting an API name in one version, those
        lookup() would give (at most per_version, in its order): (passage_id, VersionNotes)
        pairs, of the units with notes only; None when the version documents the name in no
        unit. Reads that version's rows alone, and no passage text."""
        held = self._versions.get(version)
        if held is None:
            return None
        conn, rows, _ = self._named(name, held, deadline)
        if not rows:
            return None
        ids = _best_named(rows, per_version)
        if not self._owner.has_notes:
            return ()
        noted: dict = {}
        for rowid, passage_id, *note in conn.execute(database.NOTES_OF_ROWS, (json.dumps(ids),)):
            noted.setdefault(rowid, (passage_id, []))[1].append(VersionNote(*note))
        return tuple((noted[rowid][0], tuple(noted[rowid][1])) for rowid in ids
                     if rowid in noted)

    def lookup(self, name: str, version: str, per_version: int,
               deadline: float | None = None) -> Lookup:
        """Return the units documenting an API name in each of the collection's versions, at
        most per_version of each, those whose qualified name is the name itself first, then the
        indexed ones (a `:noindex:` duplicate after its description), then in snapshot order
        (core/lookup.py)."""
        found: dict = {}
        left = MAX_NAMED_ROWS  # over all versions, in row order, as one scan would read them
        for held_version, held in self._versions.items():
            if left <= 0:
                break
            conn, rows, read = self._named(name, held, deadline, left)
            left -= read
            if rows:
                found[held_version] = tuple(self.row_passage(conn, rowid)
                                            for rowid in _best_named(rows, per_version))
        return Lookup(name, version, found)

    def passage(self, passage_id: str) -> Passage | None:
        """Return the passage with this id if it belongs to this collection, else None."""
        passage = self._owner.passage(passage_id)
        return passage if passage is not None and passage.collection == self.name else None

    def pieces_beside(self, passage: Passage) -> tuple:
        """Return the pieces of passage's unit before and after it (SnapshotIndex.pieces_beside)."""
        return self._owner.pieces_beside(passage)
