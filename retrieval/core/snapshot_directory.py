"""Built snapshots: a directory holding a manifest and one SQLite database of passages, written
and read here.

The manifest says what the database must contain (corpus_id, per version and per source the
passage counts and source digests, the policy); loading checks the two against each other and
refuses a mismatch. Loading does not re-hash every passage, so start-up stays cheap whatever the
corpus size; `verify_snapshot_directory` (`python -m retrieval verify DIR`) recomputes everything.
"""

import contextlib
import errno
import json
import os
import sqlite3
import time
from pathlib import Path

from . import database, digests
from .checks import SnapshotError
from .flags import flags_field
from .identity import (
    PASSAGE_CONTENT,
    collection_corpus_ids,
    collection_of,
    compute_corpus_id,
    derive_passage,
)
from .model import (
    BM25,
    BUILD_HINT,
    DEFAULT_COLLECTION,
    Collection,
    Snapshot,
    summarize_versions,
)
from .notes import notes_content
from .policy_format import Policy
from .project import read_project
from .provenance import PROVENANCE, read_provenance, write_provenance
from .ranking import (
    FIELDED_SCHEMA_VERSION,
    FIELDED_TOKENIZER,
    IndexFields,
    ubiquitous_by_collection,
    word_shares,
)
from .strict_json import StrictJSONError, loads_strict

DIRECTORY_FORMAT = "retrieval-snapshot-directory"
MANIFEST = "manifest.json"
DATABASE = "passages.sqlite"
# What a built snapshot's identity is computed with (compute_corpus_id's keyword arguments).
IDENTITY = {"schema_version": FIELDED_SCHEMA_VERSION, "tokenizer": FIELDED_TOKENIZER}
# What a database row holds beside its content: derived from it, and recomputed by verification.
_DERIVED = ("text_sha256", "byte_count", "document_revision", "passage_id")
_MANIFEST_FIELDS = ("format", "schema_version", "corpus_id", "tokenizer", "bm25", "database",
                    "collections", "sources", "policy")
# Present only when the build declared it (`--default-collection`), so other manifests are as
# they were. It names the collection a request without one reads; it is not content, so no
# corpus_id covers it.
DEFAULT_COLLECTION_FIELD = "default_collection"


def manifest_for(corpus_id, collection_ids, sources, policy_raw, base_urls,
                 default_collection: str | None = None) -> dict:
    """Return the manifest of a built snapshot; equal inputs give an equal manifest.

    base_urls maps (collection, version) to the published base URL.
    """
    declared = {} if default_collection is None else {DEFAULT_COLLECTION_FIELD: default_collection}
    return {
        **declared,
        "format": DIRECTORY_FORMAT,
        "schema_version": FIELDED_SCHEMA_VERSION,
        "corpus_id": corpus_id,
        "tokenizer": FIELDED_TOKENIZER,
        "bm25": BM25,
        "database": DATABASE,
        "collections": [
            {"collection": name, "corpus_id": collection_id,
             "versions": [dict(entry, base_url=base_urls[name, entry["version"]])
                          for entry in collection_versions(sources, name)]}
            for name, collection_id in sorted(collection_ids.items())
        ],
        "sources": sources,
        "policy": policy_raw,
    }


def collection_versions(sources, name) -> tuple:
    """Return one collection's per-version summary from the manifest's source entries."""
    return summarize_versions((entry["version"], entry["source_id"], entry["passages"])
                              for entry in sources if entry["collection"] == name)


def source_summary(conn) -> list:
    """Return per (collection, version, source) its digest and passage count, as listed."""
    return [{"collection": collection, "version": version, "source_id": source_id,
             "sha256": sha256, "passages": count}
            for collection, version, source_id, sha256, count
            in conn.execute(database.SOURCE_SUMMARY)]


def refuse_existing(out: Path):
    """Refuse a directory that already holds a snapshot: a served one is never rewritten."""
    for name in (MANIFEST, DATABASE):
        # A served snapshot's files are never rewritten in place: build into a new directory.
        if (out / name).exists():
            raise SnapshotError(f"{out}: already holds a snapshot ({name}); build into a new "
                                "directory and point the server at it")


def _refuse_duplicates(passages) -> None:
    """Refuse two contents of one passage (the builder merges them: ingest/unit.py)."""
    seen = set()
    for passage in passages:
        if passage.passage_id in seen:
            raise ValueError(f"{passage.collection}/{passage.version} {passage.source_id} lines "
                             f"{passage.start_line}-{passage.end_line}: given twice (the same "
                             "passage: merge its names into one content)")
        seen.add(passage.passage_id)


def write_snapshot_directory(out_dir, contents: list, policy: dict, base_urls: dict,
                             vectors: list | None = None, default_collection: str | None = None,
                             provenance: dict | None = None) -> dict:
    """Write a snapshot directory of passage contents under a policy; return its manifest.

    contents are the passages' contents in order (a vector's digest included, vector_content);
    vectors their vector bytes (a --semantic build) or None; base_urls maps (collection, version)
    to the published base URL; provenance maps a version's label to where it came from, written
    with the time of the build (core/provenance.py: both outside the snapshot's identity).
    The manifest is written last: its presence says the directory is complete. Whatever stops
    the writing (a full disk: OSError, Ctrl-C, a bug) removes every file it wrote, and the
    directory if it made it, so nothing half-written is left and the same --out can be built into.
    """
    out = Path(out_dir)
    refuse_existing(out)
    parsed = Policy.parse(policy)
    fallback, ranking = parsed.fallback, parsed.built_ranking()
    corpus = compute_corpus_id(contents, policy, **IDENTITY)
    collection_ids = collection_corpus_ids(contents, policy, **IDENTITY)
    made = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    # Each written under a temporary name and renamed, so a build stopped at any point never
    # leaves a database or a manifest that looks complete.
    partial = out / (DATABASE + ".partial")
    manifest_partial = out / (MANIFEST + ".partial")
    written = [partial, manifest_partial]  # removed again unless the directory is complete
    try:
        partial.unlink(missing_ok=True)
        sources = _write_database(partial, contents, collection_ids, corpus, fallback, ranking,
                                  vectors)
        written.append(out / DATABASE)
        os.replace(partial, out / DATABASE)
        written.append(out / PROVENANCE)
        # Before the manifest, whose presence says the directory is complete.
        write_provenance(out / PROVENANCE, provenance or {},
                         time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        manifest = manifest_for(corpus, collection_ids, sources, policy, base_urls,
                                default_collection)
        manifest_partial.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n",
                                    encoding="utf-8")
        os.replace(manifest_partial, out / MANIFEST)
        written = []
    finally:
        _remove(written, out if made else None)
    return manifest


def _remove(paths, directory: Path | None) -> None:
    """Remove what a stopped write left (each path, then the directory it made if now empty)."""
    for path in paths:
        with contextlib.suppress(OSError):  # cleaning up must not hide why it stopped
            path.unlink(missing_ok=True)
    if paths and directory is not None:
        with contextlib.suppress(OSError):  # not empty: someone else's files, kept
            directory.rmdir()


# What SQLite reports when the disk fails it, as the errno the build's one line says.
_DISK_ERRORS = {sqlite3.SQLITE_FULL: errno.ENOSPC, sqlite3.SQLITE_IOERR: errno.EIO,
                sqlite3.SQLITE_CANTOPEN: errno.EACCES, sqlite3.SQLITE_READONLY: errno.EROFS}


def _write_database(path: Path, contents, collection_ids, corpus, fallback, ranking,
                    vectors) -> list:
    """Write the passages' database at path; return its per-source summary.

    SQLite failing to write (the disk full, an I/O error) raises OSError, as any other file
    write of the build does.
    """
    try:
        conn = sqlite3.connect(path)
        try:
            conn.execute("PRAGMA journal_mode = OFF")
            conn.execute("PRAGMA synchronous = OFF")
            passages = [derive_passage(collection_ids[collection_of(c)], c) for c in contents]
            _refuse_duplicates(passages)
            words = ubiquitous_by_collection(
                (((passage.collection, passage.version), passage.index) for passage in passages),
                word_shares(fallback.ubiquitous_share, ranking))
            database.create(
                conn, passages,
                {"corpus_id": corpus, "schema_version": str(IDENTITY["schema_version"])},
                collection_ids, ranking, None if vectors is None else {
                    passage.passage_id: vector
                    for passage, vector in zip(passages, vectors, strict=True)},
                words.get("ubiquitous"), words.get("common"))
            return source_summary(conn)
        finally:
            conn.close()
    except sqlite3.OperationalError as exc:
        code = _DISK_ERRORS.get(exc.sqlite_errorcode & 0xFF)
        if code is None:
            raise
        # A full disk in the OS's words; other failures in SQLite's ("disk I/O error").
        raise OSError(code, os.strerror(code) if code == errno.ENOSPC else str(exc),
                      str(path)) from exc


def read_manifest(directory: Path) -> dict:
    """Read and shape-check a snapshot directory's manifest."""
    path = directory / MANIFEST
    try:
        manifest = loads_strict(path.read_bytes())
    except OSError as exc:
        raise SnapshotError(f"{path}: cannot read manifest: {exc.strerror or exc} "
                            f"({BUILD_HINT})") from None
    except StrictJSONError as exc:
        raise SnapshotError(f"{path}: not strict JSON: {exc}") from None
    if not isinstance(manifest, dict) or \
            sorted(set(manifest) - {DEFAULT_COLLECTION_FIELD}) != sorted(_MANIFEST_FIELDS):
        raise SnapshotError(f"{path}: a manifest has exactly the fields "
                            f"{', '.join(_MANIFEST_FIELDS)} (and {DEFAULT_COLLECTION_FIELD}, "
                            "if the build declared one)")
    if (manifest["schema_version"] != FIELDED_SCHEMA_VERSION
            and manifest["format"] == DIRECTORY_FORMAT):
        raise SnapshotError(f"{path.parent}: built by another version of retrieval "
                            f"(snapshot schema {manifest['schema_version']!r}, this one reads "
                            f"{FIELDED_SCHEMA_VERSION}): rebuild it with `retrieval build`")
    expected = {"format": DIRECTORY_FORMAT, "schema_version": FIELDED_SCHEMA_VERSION,
                "tokenizer": FIELDED_TOKENIZER, "bm25": BM25, "database": DATABASE}
    for key, value in expected.items():
        if manifest[key] != value:
            raise SnapshotError(f"{path}: {key} must be {value!r}")
    return manifest


def load_snapshot_directory(directory) -> Snapshot:
    """Open a built snapshot, checking its manifest against its database."""
    directory = Path(directory)
    manifest = read_manifest(directory)
    try:
        policy = Policy.parse(manifest["policy"])
        ranking = policy.built_ranking()
    except SnapshotError as exc:
        raise SnapshotError(f"{directory / MANIFEST}: {exc}") from None
    db_path = directory / DATABASE
    if not db_path.is_file():
        raise SnapshotError(f"{db_path}: database missing")
    try:
        # The identity taken before the checks is the one every later connection must match.
        identity = database.file_identity(db_path)
        conn = database.open_immutable(db_path, identity)
        try:
            meta = dict(conn.execute("SELECT key, value FROM meta"))
            sources = source_summary(conn)
            tables = database.collection_tables(conn)
            ubiquitous = (database.collection_terms(conn)
                          if policy.fallback.ubiquitous_share is not None else {})
            common = (database.collection_terms(conn, "common")
                      if ranking.common_terms is not None else {})
        finally:
            conn.close()
    except (sqlite3.Error, ValueError, OSError) as exc:
        raise SnapshotError(f"{db_path}: not a snapshot database: {exc}") from None
    if meta.get("corpus_id") != manifest["corpus_id"]:
        raise SnapshotError(f"{db_path}: corpus_id {meta.get('corpus_id')} does not match the "
                            f"manifest's {manifest['corpus_id']}")
    if sources != manifest["sources"]:
        raise SnapshotError(f"{db_path}: passages per source do not match the manifest")
    collections = {}
    for entry in manifest["collections"]:
        name = entry.get("collection") if isinstance(entry, dict) else None
        versions = collection_versions(sources, name)
        if not isinstance(name, str) or name not in tables or \
                tables[name][0] != entry.get("corpus_id") or [
                {k: v for k, v in version.items() if k != "base_url"}
                for version in entry.get("versions", ())] != list(versions):
            raise SnapshotError(f"{db_path}: collection {name!r} does not match the manifest")
        if sorted(tables[name][1]) != sorted(v["version"] for v in versions):
            raise SnapshotError(f"{db_path}: collection {name!r}: its FTS tables are not one "
                                "per version")
        collections[name] = Collection(name, entry["corpus_id"], versions,
                                       ubiquitous.get(name, {}), common.get(name, {}),
                                       declares_versions=True)
    if sorted(collections) != sorted(tables):
        raise SnapshotError(f"{db_path}: collections do not match the manifest")
    default = manifest.get(DEFAULT_COLLECTION_FIELD)
    if default is not None and (not isinstance(default, str) or default not in collections):
        raise SnapshotError(f"{directory / MANIFEST}: {DEFAULT_COLLECTION_FIELD} {default!r} is "
                            "not one of its collections")
    # A semantic section's re-ranker is attached by whoever serves it (retrieval.rerank.attach,
    # the semantic extra): core reads the vectors (snapshot_vectors), never a model.
    return Snapshot(corpus_id=manifest["corpus_id"], passages=(), policy=policy,
                    collections=collections, database_path=str(db_path),
                    database_identity=identity, declared_default=default,
                    project=read_project(directory, collections),
                    provenance=read_provenance(directory, manifest))


def snapshot_vectors(snapshot: Snapshot) -> list:
    """Return a semantic snapshot's stored vectors, passage id 1 first, from its verified file."""
    if snapshot.semantic is None or snapshot.database_path is None:
        raise SnapshotError("only a snapshot built with --semantic stores vectors")
    try:
        conn = database.open_immutable(snapshot.database_path, snapshot.database_identity)
        try:
            return database.vector_rows(conn, snapshot.semantic.dimensions)
        finally:
            conn.close()
    except (sqlite3.Error, ValueError, OSError) as exc:
        raise SnapshotError(f"{snapshot.database_path}: not a snapshot database: {exc}") from None


def verify_snapshot_directory(directory) -> list:
    """Recompute every digest of a built snapshot; return one line per problem (empty: verified)."""
    directory = Path(directory)
    snapshot = load_snapshot_directory(directory)
    manifest = read_manifest(directory)
    problems = []
    conn = database.open_immutable(snapshot.database_path, snapshot.database_identity)
    try:
        rows = conn.execute(database.IN_ORDER).fetchall()
        index_rows = conn.execute(database.INDEX_IN_ORDER).fetchall()
        notes = database.notes_by_row(conn)
        semantic = snapshot.policy.semantic
        vectors = (None if semantic is None
                   else database.vector_rows(conn, semantic.dimensions))
    finally:
        conn.close()
    contents = [dict(zip(database.PASSAGE_COLUMNS, row, strict=True)) for row in rows]
    for row in contents:  # as a built unit's content has them: a list, absent when empty
        row.update(flags=list(database.stored_flags(row["flags"])))
    if [index_row[0] for index_row in index_rows] != list(range(1, len(rows) + 1)):
        return ["passage_facts, passage_fields: not exactly one row per passage"]
    ranking = snapshot.policy.built_ranking()
    facts = []
    for row, index_row in zip(contents, index_rows, strict=True):
        kind, in_links, noindex, reference_page, *texts = index_row[1:-1]
        fields = IndexFields(kind, in_links, bool(noindex), bool(reference_page), *texts)
        facts.append(fields)
        if index_row[-1] != ranking.prior(fields):
            problems.append(f"{row['version']} {row['source_id']}:{row['start_line']}: "
                            "prior does not recompute")
    recomputed = ubiquitous_by_collection(
        (((row["collection"], row["version"]), fields)
         for row, fields in zip(contents, facts, strict=True)),
        word_shares(snapshot.fallback.ubiquitous_share, ranking))
    for which, words in recomputed.items():
        for name, collection in snapshot.collections.items():
            stored = getattr(collection, f"{which}_terms")
            for version in collection.version_names():
                if words.get((name, version), frozenset()) != stored.get(version, frozenset()):
                    problems.append(f"collection {name} {version}: its {which} words do not "
                                    "recompute")
    # The vectors' digests are part of each passage's content, so corpus_id recomputes over them.
    identity = [identity_of(c, f, None if vectors is None else vectors[position],
                            notes.get(position + 1, ()))
                for position, (c, f) in enumerate(zip(contents, facts, strict=True))]
    corpus = compute_corpus_id(identity, manifest["policy"], **IDENTITY)
    if corpus != manifest["corpus_id"]:
        problems.append(f"corpus_id: content digests to {corpus}, manifest says "
                        f"{manifest['corpus_id']}")
    collection_ids = collection_corpus_ids(identity, manifest["policy"], **IDENTITY)
    for name, collection in snapshot.collections.items():
        if collection_ids.get(name) != collection.corpus_id:
            problems.append(f"collection {name}: content digests to {collection_ids.get(name)}, "
                            f"manifest says {collection.corpus_id}")
    for row in contents:
        where = f"{row['version']} {row['source_id']}:{row['start_line']}"
        derived = derive_passage(snapshot.collections[row["collection"]].corpus_id, row)
        for key in _DERIVED:
            if row[key] != getattr(derived, key):
                problems.append(f"{where}: {key} does not recompute")
    return problems


def identity_of(row: dict, facts: IndexFields, vector: bytes | None = None,
                notes: tuple = ()) -> dict:
    """Return a database row's passage content (ranking facts, vector, version notes) as
    corpus_id covers it."""
    content = {key: row[key] for key in PASSAGE_CONTENT + ("title",)}
    if row["collection"] != DEFAULT_COLLECTION:
        content = {"collection": row["collection"], **content}
    return content | flags_field(row["flags"]) | facts.content() | vector_content(vector) | \
        notes_content(notes)


def vector_content(vector: bytes | None = None) -> dict:
    """Return what a passage's content says of its vector: its digest, or nothing without one."""
    return {} if vector is None else {"vector_sha256": digests.sha256_hex(vector)}
