"""What a snapshot is made of: its values, their constants, and the words a run ends with.

This module imports nothing from the package (the type-only imports below never run), so every
other module of core can build on it.
"""

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from .index import Reranker
    from .ranking import IndexFields, Ranking, Semantic

SNAPSHOT_FORMAT = "retrieval-snapshot"
SCHEMA_VERSION = 1
# FTS5's bm25() has these constants built in; the snapshot records them so that its identity says
# which ranking function produced its scores.
BM25 = {"k1": 1.2, "b": 0.75}
TOKENIZER = "unicode61"
# A documentation version as people write it: X.Y (3.11) or X.Y.Z (Django 3.2.25).
VERSION_PATTERN = re.compile(r"[0-9]{1,3}\.[0-9]{1,3}(?:\.[0-9]{1,3})?")
VERSION_SHAPE = "two or three dot-separated runs of 1-3 digits"
# Collection names appear in requests, keys files and SQL table names: a closed alphabet.
COLLECTION_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
# Passages that name no collection belong to this one; requests that name none read it.
DEFAULT_COLLECTION = "default"

# Said wherever a path turns out not to be a snapshot at all: the usual cause is a raw docs tree.
BUILD_HINT = ("a snapshot is a JSON file or a directory made by "
              "`retrieval build --source VERSION=DOCS --base-url VERSION=URL --out DIR`")


class SnapshotError(ValueError):
    """A snapshot file is missing, malformed, or does not match its own digests."""


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
    index: Optional["IndexFields"] = None


FIXED = "fixed"
QUESTION_TERMS = "question_terms"
MAX_QUESTION_TERMS = 16
_WORD = re.compile(r"\w+")
# Literal values a question quotes (`d1`, 'abc', "[1, 2]"): they name the asker's data, not the
# documentation's words, and match unrelated code examples. A quote must stand at a word edge so
# that apostrophes ("don't", "it's") are not taken for one.
_LITERAL_SPAN = re.compile(r"`[^`]*`|(?<!\w)'[^'\n]*'(?!\w)|(?<!\w)\"[^\"\n]*\"(?!\w)"
                           r"|[\u2018\u201c][^\u2019\u201d\n]*[\u2019\u201d]")
READ_FIRST = "first"  # one read per round: the first hit not read yet
READ_BEST = "best"  # after a search, its distinct hits in rank order while the allowances permit
DEFAULT_SEARCH_K = 2
# The most hits a rule's search may ask for.
MAX_SEARCH_K = 50


def without_literals(question: str) -> str:
    """Return the question with its quoted and backticked spans blanked out."""
    return _LITERAL_SPAN.sub(" ", question)


def question_terms(question: str, stop_words, drop_literals: bool = False) -> str:
    """Derive a query from the question's own words: case-folded, stop words out, first use kept.

    Words are runs of letters, digits and underscores, so no punctuation (quotes, `*`, `-`, `:`,
    parentheses) survives, and case-folding means no word can be an FTS5 operator. With
    drop_literals, quoted and backticked spans and words that are only digits are left out too.
    """
    if drop_literals:
        question = without_literals(question)
    terms = []
    for word in _WORD.findall(question.casefold()):
        if word in stop_words or word in terms or (drop_literals and word.isdigit()):
            continue
        terms.append(word)
    return " ".join(terms[:MAX_QUESTION_TERMS])


def ubiquitous_terms(unit_texts, shares: tuple) -> tuple:
    """Return, for each share, the words (as question_terms spells them) more than it of the
    units hold; the texts are read once for all shares.

    unit_texts: each unit's indexed text. The builder stores them per collection and
    `retrieval verify` recomputes them, as it does the priors.
    """
    holding: dict[str, int] = {}
    count = 0
    for text in unit_texts:
        count += 1
        for word in set(_WORD.findall(text.casefold())):
            holding[word] = holding.get(word, 0) + 1
    return tuple(frozenset(word for word, units in holding.items() if units > share * count)
                 for share in shares)


@dataclass(frozen=True)
class Rule:
    """A scripted query plan chosen by phrases in the question.

    A `question_terms` rule (only as the fallback) has no fixed initial query: it searches for
    any of the question's own words; refinement and marker are fixed data as for every rule.
    """

    name: str
    phrases: tuple
    initial_query: str | None
    refinement_query: str | None
    required_marker: str | None
    max_rounds: int
    kind: str = FIXED
    stop_words: frozenset = frozenset()
    search_k: int = DEFAULT_SEARCH_K
    reads: str = READ_FIRST
    drop_literals: bool = False
    # A question_terms query leaves out the words more than this share of the collection's units
    # hold (Collection.ubiquitous_terms, derived by the builder); None: it keeps them.
    ubiquitous_share: float | None = None

    @property
    def first_query(self) -> str:
        """Return the first search's query (a question_terms rule has one once for_question)."""
        if self.initial_query is None:
            raise ValueError(f"rule {self.name!r}: no initial query before for_question")
        return self.initial_query

    @property
    def initial_match(self) -> str:
        """Return whether the first search needs all its terms or any of them."""
        return "any" if self.kind == QUESTION_TERMS else "all"

    def matches(self, folded_question: str) -> bool:
        """Tell whether the case-folded question contains any of this rule's phrases."""
        return any(phrase in folded_question for phrase in self.phrases)

    def for_question(self, question: str, ubiquitous: frozenset = frozenset()) -> "Rule":
        """Return the rule with its initial query settled for this question.

        Words nearly every unit of the collection holds (`ubiquitous`: `django` in Django's
        docs) tell its units apart no better than stop words, and matching them makes FTS5
        score almost every unit; they are left out unless nothing else would remain.
        """
        if self.kind != QUESTION_TERMS:
            return self
        terms = question_terms(question, self.stop_words, self.drop_literals)
        telling = " ".join(word for word in terms.split() if word not in ubiquitous)
        return replace(self, initial_query=telling or terms)

    def describe(self) -> dict:
        """Return the rule as the response's `policy` section shows it."""
        described: dict[str, object] = {
            "name": self.name,
            "initial_query": self.initial_query,
            "refinement_query": self.refinement_query,
            "required_marker": self.required_marker,
            "max_rounds": self.max_rounds,
        }
        if self.kind != FIXED:
            described["kind"] = self.kind
        # Shown only where they differ from the defaults, so the seed rules read as they did.
        if self.search_k != DEFAULT_SEARCH_K:
            described["search_k"] = self.search_k
        if self.reads != READ_FIRST:
            described["reads"] = self.reads
        if self.ubiquitous_share is not None:
            described["ubiquitous_share"] = self.ubiquitous_share
        return described


@dataclass(frozen=True)
class Collection:
    """One separately identified and separately ranked part of a snapshot.

    Its corpus_id covers only its own passages (and the policy), and its passage ids and BM25
    statistics derive from it alone: adding, changing or removing passages of another collection
    changes nothing a caller of this one can see.
    """

    name: str
    corpus_id: str
    # ({"version", "passages", "sources"}, ...) in version order, for /corpus.
    versions: tuple
    # The words more than the fallback's ubiquitous_share of its units hold (built snapshots).
    ubiquitous_terms: frozenset = frozenset()
    # The words more than the ranking's common_terms share of its units hold (built snapshots).
    common_terms: frozenset = frozenset()
    # Built snapshots: the manifest declares the versions it was built from, so a version not
    # among them is a caller's mistake, refused. A JSON snapshot declares none: a version it
    # holds no passage of is searched as asked, and finds nothing (the seed's empty_eligible).
    declares_versions: bool = False

    def version_names(self) -> tuple:
        """Return the versions this collection holds, in version order."""
        return tuple(entry["version"] for entry in self.versions)

    def serve_version(self, asked: str) -> str | None:
        """Return the version a request for `asked` searches, or None if it must be refused.

        A version held is served as asked. An X.Y held only as X.Y.Z releases (2.28, when the
        collection holds 2.28.1 and 2.28.2) is served as the highest of them. Any other version
        is refused where the versions are declared, and searched as asked where they are not.
        """
        held = self.version_names()
        if asked in held:
            return asked
        releases = [name for name in held if name.startswith(asked + ".")]
        if asked.count(".") == 1 and releases:
            return max(releases, key=_version_key)
        return None if self.declares_versions else asked

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
    rules: tuple
    fallback: Rule
    # Name -> Collection, in name order.
    collections: dict
    # Built snapshots keep their passages in this SQLite file instead of `passages`, and every
    # connection must open the file verified at load (database.file_identity), no other.
    database_path: str | None = None
    database_identity: tuple | None = None
    # Built snapshots rank by fields and priors; None: one text column, plain bm25.
    ranking: Optional["Ranking"] = None
    # A policy's semantic section: searches re-rank with `reranker` (see index.Reranker), which
    # the semantic extra attaches (retrieval.rerank.attach); a snapshot with a section and no
    # re-ranker is never served. None: the lexical ranking alone.
    semantic: Optional["Semantic"] = None
    reranker: Optional["Reranker"] = None
    # The collection a request that names none reads, as built (`build --default-collection`);
    # None: see default_collection.
    declared_default: str | None = None

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

    def select_rule(self, question: str, collection: str = DEFAULT_COLLECTION) -> Rule:
        """Return the first rule whose phrase occurs in the question, else the fallback."""
        folded = question.casefold()
        for rule in self.rules:
            if rule.matches(folded):
                return rule
        found = self.collections.get(collection)
        return self.fallback.for_question(
            question, found.ubiquitous_terms if found is not None else frozenset())


def summarize_versions(counts) -> tuple:
    """Sum (version, source_id, passages) counts per version, in version order."""
    passages: dict[str, int] = {}
    sources: dict[str, set] = {}
    for version, source_id, count in counts:
        passages[version] = passages.get(version, 0) + count
        sources.setdefault(version, set()).add(source_id)
    return tuple({"version": v, "passages": passages[v], "sources": len(sources[v])}
                 for v in sorted(passages, key=_version_key))


def _version_key(version) -> tuple:
    # Numerically, part by part: 3.9 < 3.10 < 3.10.1.
    return tuple(int(part) for part in version.split("."))


# --- how a run ends: a status, and the reason for it ---------------------------------------------

COMPLETED = "completed"
INCOMPLETE = "incomplete"
LIMITED = "limited"
FAILED = "failed"
# Completed: the rule's marker is in a passage read; or a `reads: best` rule read the best
# distinct passages its search found, as many as the allowances permitted (usage says how many).
MARKER_FOUND = "configured_context_marker_found"
BEST_MATCHES_READ = "best_matches_read"
# Incomplete: the rule has no refinement query for a second round; its rounds ran out; or its
# search matched no passage of that version, so there was nothing to read.
NO_REFINEMENT = "no_refinement_rule"
ROUND_LIMIT = "round_limit"
NO_MATCHES = "no_matching_passages"
# Limited: an action was denied. The allowances are checked in this order and the first one
# exhausted is the reason (each is named as the request's field); then the wall-clock deadline.
MAX_STEPS = "max_steps"
MAX_SEARCHES = "max_searches"
MAX_READS = "max_reads"
MAX_SOURCE_BYTES = "max_source_bytes"
DEADLINE = "deadline"
# Failed: an admitted tool call could not produce a result.
RETRIEVAL_FAILED = "retrieval_failed"
# Every run status with the reasons it can have.
RUN_REASONS = {
    COMPLETED: (MARKER_FOUND, BEST_MATCHES_READ),
    INCOMPLETE: (NO_REFINEMENT, ROUND_LIMIT, NO_MATCHES),
    LIMITED: (MAX_STEPS, MAX_SEARCHES, MAX_READS, MAX_SOURCE_BYTES, DEADLINE),
    FAILED: (RETRIEVAL_FAILED,),
}
RUN_STATUSES = tuple(RUN_REASONS)
# What a denied trace entry can give as its reason.
DENIAL_REASONS = RUN_REASONS[LIMITED]


def repeatable(status: str, reason: str) -> bool:
    """Tell whether a run that ended so gives the same result when the same request runs again.

    Every run is a pure function of (collection, normalized request, snapshot) except one ended by
    the wall-clock deadline or by a tool failure.
    """
    return status != FAILED and not (status == LIMITED and reason == DEADLINE)
