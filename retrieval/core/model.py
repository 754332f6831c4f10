"""What a snapshot is made of: its passages, its collections, the snapshot, and their constants.

It builds on policy_format (the policy, with its rules and ranking) and rerank (the re-rank
Protocol), none of which imports it. It defines every name it exports but VERSION_PATTERN and
VERSION_SHAPE (a held version's shape: names.py's PEP 440 normal form, the snapshot's constants),
and re-exports no other: run outcomes are outcomes.py's, rules rules.py's, SnapshotError
checks.py's, a question's words query.py's.
"""

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .names import (
    DEFAULT_COLLECTION,
    VERSION_PATTERN,
    VERSION_SHAPE,
    normal_version,
    resolve_collection,
    serve_version,
    version_order,
)
from .policy_format import Policy
from .project import Project
from .provenance import Provenance
from .ranking import EMBEDS_QUESTION, IndexFields, Ranking, Semantic
from .rerank import Reranker
from .rules import Rule

__all__ = [
    "BM25", "BUILD_HINT", "COLLECTION_PATTERN", "DEFAULT_COLLECTION", "SCHEMA_VERSION",
    "SNAPSHOT_FORMAT", "TOKENIZER", "VERSION_PATTERN", "VERSION_SHAPE", "Collection", "Passage",
    "Snapshot", "summarize_versions",
]

SNAPSHOT_FORMAT = "retrieval-snapshot"
SCHEMA_VERSION = 1
# FTS5's bm25() has these constants built in; the snapshot records them so that its identity says
# which ranking function produced its scores.
BM25 = {"k1": 1.2, "b": 0.75}
TOKENIZER = "unicode61"
# Collection names appear in requests, keys files and SQL table names: a closed alphabet.
COLLECTION_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")

# Said wherever a path turns out not to be a snapshot at all: the usual cause is a raw docs tree.
BUILD_HINT = ("a snapshot is a JSON file or a directory made by "
              "`retrieval build --source VERSION=DOCS --base-url VERSION=URL --out DIR`")


@dataclass(frozen=True)
class Passage:
    """One paragraph of one documentation source, with its provenance and digests."""

    passage_id: str
    source_id: str
    version: str
    url: str
    start_line: int
    end_line: int
    text: str
    text_sha256: str
    source_sha256: str
    document_revision: str
    byte_count: int
    collection: str = DEFAULT_COLLECTION
    # Built snapshots only: what search hits show, and what the unit is ranked by.
    title: str | None = None
    # Its flags (core/flags.py), in FLAGS order: none for most.
    flags: tuple = ()
    index: IndexFields | None = None
    # Built snapshots only: what its documentation says of its versions (notes.VersionNote).
    notes: tuple = ()


@dataclass(frozen=True)
class Collection:
    """One separately identified and separately ranked part of a snapshot.

    Its corpus_id covers only its own passages (and the policy), and its passage ids and BM25
    statistics derive from it alone: adding, changing or removing passages of another collection
    changes nothing a caller of this one can see. Its statistics are kept per version: a search of
    one version ranks as in a snapshot of that version alone.
    """

    name: str
    corpus_id: str
    # ({"version", "passages", "sources"}, ...) in version order, for /corpus.
    versions: tuple
    # Per version: the words more than the fallback's ubiquitous_share of that version's units
    # hold (built snapshots; {version: frozenset}).
    ubiquitous_terms: Mapping[str, frozenset] = field(default_factory=dict)
    # Per version: the words more than the ranking's common_terms share of its units hold.
    common_terms: Mapping[str, frozenset] = field(default_factory=dict)
    # Built snapshots: the manifest declares the versions it was built from, so a version not
    # among them is a caller's mistake, refused. A JSON snapshot declares none: a version it
    # holds no passage of is searched as asked, and finds nothing (the seed's empty_eligible).
    declares_versions: bool = False

    def version_names(self) -> tuple:
        """Return the versions this collection holds, in version order."""
        return tuple(entry["version"] for entry in self.versions)

    def serve_version(self, asked: str) -> str | None:
        """Return the version a request for `asked` searches, or None if it must be refused.

        A version held is served as asked; another spelling of one (v2.2.2, 2.5.0-beta.1) as
        held; an X.Y held only as X.Y.* releases (2.28, when the collection holds 2.28.1 and
        2.28.2) as the highest final or post release of them (names.serve_version). Any other
        version is refused where the versions are declared, and searched as its normal form
        (v3.12 as 3.12) where they are not.
        """
        served = serve_version(asked, self.version_names())
        if served is None and not self.declares_versions:
            return normal_version(asked) or asked
        return served

    def describe(self) -> dict:
        """Return the collection as /corpus lists it."""
        return {"collection": self.name, "corpus_id": self.corpus_id,
                "versions": list(self.versions)}


@dataclass(frozen=True)
class Snapshot:
    """An immutable, identified corpus and its policy.

    `corpus_id` identifies the whole snapshot (every collection); a single-collection snapshot's
    one collection has the same id.
    """

    corpus_id: str
    passages: tuple
    policy: Policy
    # Name -> Collection, in name order.
    collections: dict
    # Built snapshots keep their passages in this SQLite file instead of `passages`, and every
    # connection must open the file verified at load (database.file_identity), no other.
    database_path: str | None = None
    database_identity: tuple | None = None
    # A policy's semantic section: searches re-rank with `reranker` (see rerank.Reranker), which
    # the semantic extra attaches (retrieval.rerank.attach); a snapshot with a section and no
    # re-ranker is never served. None: the lexical ranking alone.
    reranker: Reranker | None = None
    # The collection a request that names none reads, as built (`build --default-collection`);
    # None: see default_collection.
    declared_default: str | None = None
    # What the snapshot was built for (project.json beside the manifest), or None.
    project: Project | None = None
    # Where its versions came from and when it was built (provenance.json); None: a JSON
    # snapshot, which records neither.
    provenance: Provenance | None = None

    @property
    def rules(self) -> tuple:
        """Return the policy's rules, in the order they are tried."""
        return self.policy.rules

    @property
    def fallback(self) -> Rule:
        """Return the rule a question no rule's phrase matches gets."""
        return self.policy.fallback

    @property
    def ranking(self) -> Ranking | None:
        """Return how a built snapshot ranks (fields and priors); None: plain bm25 (the JSON
        fixture's one text column)."""
        return self.policy.ranking

    @property
    def semantic(self) -> Semantic | None:
        """Return how a `--semantic` build's vectors re-rank; None: the lexical ranking alone."""
        return self.policy.semantic

    @property
    def default_collection(self) -> str | None:
        """Return the collection a request naming none reads, or None if it must name one.

        The declared default; else the only collection; else the one named DEFAULT_COLLECTION
        (the passages given without a collection), if there is one.
        """
        if self.declared_default is not None:
            return self.declared_default
        if len(self.collections) == 1:
            return next(iter(self.collections))
        return DEFAULT_COLLECTION if DEFAULT_COLLECTION in self.collections else None

    def resolve_collection(self, asked: str, readable=None) -> str | None:
        """Return the collection a request naming `asked` reads (its own name, its distribution's
        in any spelling, a pinned import name), or None (names.resolve_collection).

        readable: the names of the collections the caller may read (None: all), the only ones
        (and pins) a name is resolved among, so that what a caller cannot read changes nothing.
        """
        names = self.collections if readable is None else readable
        pins = self.project.pins if self.project is not None else ()
        return resolve_collection(asked, names, [pin for pin in pins if pin.collection in names])

    def pinned_version(self, collection: str) -> str | None:
        """Return the version the project pins for a collection, or None."""
        pin = self.project.pin_of(collection) if self.project is not None else None
        return pin.version if pin is not None else None

    def select_rule(self, question: str, collection: str = DEFAULT_COLLECTION,
                    version: str | None = None,
                    holds: Callable[[str], bool] | None = None) -> Rule:
        """Return the first rule whose phrase occurs in the question, else the fallback
        (version, holds: as fallback_for's)."""
        folded = question.casefold()
        for rule in self.rules:
            if rule.matches(folded):
                return rule
        return self.fallback_for(question, collection, version, holds)

    def fallback_for(self, question: str, collection: str = DEFAULT_COLLECTION,
                     version: str | None = None,
                     holds: Callable[[str], bool] | None = None) -> Rule:
        """Return the fallback settled for the question searching a version: that version's
        ubiquitous words left out (none for a version the collection does not hold, or None),
        and its sentence as the first search's semantic_query where the policy's semantic
        section embeds questions. holds: whether some unit of the searched version holds a
        word (Rule.for_question), None where no index is at hand."""
        found = self.collections.get(collection)
        semantic = self.policy.semantic
        words = found.ubiquitous_terms.get(version) if found is not None and version else None
        return self.fallback.for_question(
            question, words or frozenset(),
            semantic is not None and semantic.embeds == EMBEDS_QUESTION, holds)


def summarize_versions(counts) -> tuple:
    """Sum (version, source_id, passages) counts per version, in version order."""
    passages: dict[str, int] = {}
    sources: dict[str, set] = {}
    for version, source_id, count in counts:
        passages[version] = passages.get(version, 0) + count
        sources.setdefault(version, set()).add(source_id)
    return tuple({"version": v, "passages": passages[v], "sources": len(sources[v])}
                 for v in sorted(passages, key=version_order))
