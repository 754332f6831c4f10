"""`retrieval build`: documentation trees in, a snapshot directory (manifest + SQLite) out."""

import hashlib
import json
import os
import sqlite3
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ..core import database
from ..core.snapshot import DEFAULT_COLLECTION, SnapshotError, collection_corpus_ids, \
    collection_of, compute_corpus_id, derive_passage, parse_policy
from ..core.snapshot_directory import DATABASE, MANIFEST, manifest_for, source_summary
from .parse import decode_source, iter_source_files, page_url, parse_source

# English function words. They are data in the policy (and so part of corpus_id), not code, so
# changing the list changes the snapshot's identity.
DEFAULT_STOP_WORDS = sorted(set("""
a about above after again against all am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have
having he her here hers herself him himself his how i if in into is it its itself just me more most
my myself no nor not now of off on once only or other our ours ourselves out over own same she
should so some such than that the their theirs them themselves then there these they this those
through to too under until up very was we were what when where which while who whom why will with
would you your yours yourself yourselves
""".split()))

DEFAULT_POLICY = {
    "rules": [],
    "fallback": {
        "name": "question-terms",
        "kind": "question_terms",
        "phrases": [],
        "initial_query": None,
        "refinement_query": None,
        "required_marker": None,
        "max_rounds": 2,
        "stop_words": DEFAULT_STOP_WORDS,
    },
}


@dataclass(frozen=True)
class SourceTree:
    """One documentation version to build: version, source root, base URL, and collection."""

    version: str
    root: str
    base_url: str
    collection: str = DEFAULT_COLLECTION

    @property
    def label(self) -> str:
        """Return how progress lines and --source name this tree: [collection/]version."""
        if self.collection == DEFAULT_COLLECTION:
            return self.version
        return f"{self.collection}/{self.version}"


class Progress:
    """Report files and passages done, with the rate, on stderr at most once a second."""

    def __init__(self, stream=None):
        self._stream = stream or sys.stderr
        self._start = time.monotonic()
        self._last = 0.0
        self.files = 0
        self.passages = 0
        self.skipped = []

    def tick(self, version, force=False):
        now = time.monotonic()
        if force or now - self._last >= 1.0:
            self._last = now
            rate = self.files / max(now - self._start, 1e-9)
            print(f"build: {version}: {self.files} files, {self.passages} passages, "
                  f"{rate:.0f} files/s", file=self._stream, flush=True)

    def skip(self, relative_path, reason):
        self.skipped.append(relative_path)
        print(f"build: skipped {relative_path}: {reason}", file=self._stream, flush=True)

    def done(self, passages, corpus):
        elapsed = time.monotonic() - self._start
        print(f"build: done: {passages} passages from {self.files} files "
              f"({len(self.skipped)} skipped) in {elapsed:.1f}s; corpus_id {corpus}",
              file=self._stream, flush=True)


def read_passage_contents(tree: SourceTree, progress: Progress) -> list:
    """Parse every supported file of one tree into passage content, in path order."""
    contents = []
    for relative_path, absolute_path in iter_source_files(tree.root):
        data = Path(absolute_path).read_bytes()
        try:
            text = decode_source(data)
        except UnicodeDecodeError as exc:
            # Reported and skipped whole: a half-read file would be evidence nobody wrote.
            progress.skip(f"{tree.label}/{relative_path}", f"not UTF-8 (byte {exc.start})")
            continue
        source_sha256 = hashlib.sha256(data).hexdigest()
        page = page_url(tree.base_url, relative_path)
        # The default collection is the absence of the field (one spelling per identity).
        collection = {} if tree.collection == DEFAULT_COLLECTION else {
            "collection": tree.collection}
        for paragraph in parse_source(relative_path, text):
            contents.append(collection | {
                "source_id": relative_path,
                "version": tree.version,
                "url": page + ("#" + paragraph.anchor if paragraph.anchor else ""),
                "start_line": paragraph.start_line,
                "end_line": paragraph.end_line,
                "text": paragraph.text,
                "source_sha256": source_sha256,
            })
            progress.passages += 1
        progress.files += 1
        progress.tick(tree.label)
    progress.tick(tree.label, force=True)
    return contents


def build_snapshot(trees, out_dir, policy=None, progress=None) -> dict:
    """Build a snapshot directory from documentation trees; return its manifest."""
    policy = DEFAULT_POLICY if policy is None else policy
    parse_policy(policy)  # refuse a bad policy before any work
    progress = progress or Progress()
    labels = [tree.label for tree in trees]
    if len(set(labels)) != len(labels):
        raise SnapshotError("each version of a collection may be given once")
    contents = []
    for tree in sorted(trees, key=lambda t: (t.collection, t.version)):
        contents.extend(read_passage_contents(tree, progress))
    if not contents:
        raise SnapshotError("no passages: the sources hold no supported, readable files")

    corpus = compute_corpus_id(contents, policy)
    collection_ids = collection_corpus_ids(contents, policy)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    # Written under a temporary name and renamed, so a failed build never leaves a database that
    # looks complete.
    partial = out / (DATABASE + ".partial")
    partial.unlink(missing_ok=True)
    conn = sqlite3.connect(partial)
    try:
        conn.execute("PRAGMA journal_mode = OFF")
        conn.execute("PRAGMA synchronous = OFF")
        database.create(
            conn, (derive_passage(collection_ids[collection_of(c)], c) for c in contents),
            {"corpus_id": corpus, "schema_version": "1"}, collection_ids)
        sources = source_summary(conn)
    finally:
        conn.close()
    os.replace(partial, out / DATABASE)

    manifest = manifest_for(corpus, collection_ids, sources, policy,
                            {(tree.collection, tree.version): tree.base_url for tree in trees})
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n",
                                encoding="utf-8")
    progress.done(len(contents), corpus)
    return manifest
