"""One retrieval run from validated request to result, over a loaded snapshot."""

from collections.abc import Callable
from dataclasses import dataclass

from . import digests
from .admission import AdmissionRunner, Limits, RunEnded
from .index import CollectionIndex, SnapshotIndex
from .loading import load_snapshot
from .memo import ResultMemo
from .model import Snapshot
from .outcomes import repeatable
from .policy import run_rule
from .query import question_terms
from .rules import QUESTION_TERMS, Rule
from .searches import MATCH_ANY, SearchCall
from .tools import RetrievalTools, result_size


class UnknownCollection(LookupError):
    """The snapshot has no collection of that name."""


class UnknownVersion(LookupError):
    """The collection declares its versions, and the one asked for is not among them."""

    def __init__(self, collection: str, version: str, versions: tuple):
        super().__init__(f"{collection} {version}")
        self.collection = collection
        self.version = version
        self.versions = versions


def echoed_names(version: str | None, collection: str | None, served_collection: str | None,
                 served_version: str | None, pinned: bool) -> dict:
    """Return what a request echoes of its version and collection, in the documented order.

    The version and collection as asked (no version: none was asked), then what was served
    where it is not what was asked: served_collection (the collection a distribution or import
    name reads), served_version (the held version of another spelling, the highest X.Y.* of an
    X.Y, or the project's pin), and pinned: true when the version served is the pin because the
    request named none.
    """
    return {**({} if version is None else {"version": version}), "collection": collection,
            **({} if served_collection is None else {"served_collection": served_collection}),
            **({} if served_version is None else {"served_version": served_version}),
            **({"pinned": True} if pinned else {})}


class ServedNames:
    """What a request named (its version may be None: the project's pin) and what it reads.

    Mixed into the requests (RetrieveRequest, the search's SearchRequest), which declare these
    fields. served_collection: the collection read, when the request named it otherwise (its
    distribution's name in another spelling, an import name); served_version: the version
    searched, when it is not the one asked for; pinned: the request named no version, and the
    project's pin is served. All three are echoed, and so bound into request_id.
    """

    version: str | None
    collection: str | None
    served_collection: str | None
    served_version: str | None
    pinned: bool

    @property
    def search_version(self) -> str:
        """Return the version searched."""
        version = self.served_version or self.version
        assert version is not None, "a request without a version is served at its pin"
        return version

    @property
    def search_collection(self) -> str:
        """Return the collection read."""
        collection = self.served_collection or self.collection
        assert collection is not None, "a request without a collection is refused"
        return collection

    def echoed_names(self) -> dict:
        """Return the echo of the version and collection (echoed_names)."""
        return echoed_names(self.version, self.collection, self.served_collection,
                            self.served_version, self.pinned)


@dataclass(frozen=True)
class RetrieveRequest(ServedNames):
    """A validated retrieval request with every default filled in."""

    question: str
    version: str | None
    collection: str
    limits: Limits
    served_version: str | None = None
    served_collection: str | None = None
    pinned: bool = False

    def normalized(self) -> dict:
        """Return the request as it is echoed and bound into request_id."""
        return {"question": self.question, **self.echoed_names(), **self.limits.as_dict()}


def served_version(collection, version: str) -> str | None:
    """Return the version to record as served for `version` (None: the same); raise
    UnknownVersion if the collection must refuse it (Collection.serve_version)."""
    served = collection.serve_version(version)
    if served is None:
        raise UnknownVersion(collection.name, version, collection.version_names())
    return None if served == version else served


@dataclass(frozen=True)
class RunResult:
    """Everything a run produced, ready to be reported."""

    request_id: str
    corpus_id: str
    request: dict
    status: str
    reason: str
    limits: dict
    usage: dict
    trace: list
    evidence: list
    policy: dict

    @property
    def repeatable(self) -> bool:
        """Tell whether the same request on the same snapshot gives this same result again."""
        return repeatable(self.status, self.reason)


# Called as factory(collection_index, memo, deadline=...) once per request.
ToolFactory = Callable[..., RetrievalTools]
MEMO_ENTRIES = 4096
MEMO_BYTES = 32 * 1024 * 1024


class RetrievalService:
    """A loaded snapshot, its shared index, and the factory of request-local tools."""

    def __init__(self, snapshot: Snapshot, tool_factory: ToolFactory | None = None,
                 memo_entries: int = MEMO_ENTRIES, memo_bytes: int = MEMO_BYTES,
                 connections: int = 1):
        self.snapshot = snapshot
        # One connection per worker thread, opened now, while the file is the verified one.
        self.index = SnapshotIndex(snapshot, connections)
        self.memo = ResultMemo(memo_entries, memo_bytes, size_of=result_size)
        self._tool_factory = tool_factory or RetrievalTools

    @classmethod
    def from_path(cls, path, expect_corpus_id=None, tool_factory=None,
                  **options) -> "RetrievalService":
        """Load and verify a snapshot and open its index (options: memo caps, connections)."""
        return cls(load_snapshot(path, expect_corpus_id), tool_factory, **options)

    @property
    def corpus_id(self) -> str:
        return self.snapshot.corpus_id

    def collection(self, name: str) -> CollectionIndex:
        """Return the named collection's index, or raise UnknownCollection."""
        collection = self.index.collection(name)
        if collection is None:
            raise UnknownCollection(name)
        return collection

    def question_search(self, question: str, collection: str, version: str, k: int) -> SearchCall:
        """Return the search a question gets, as a /retrieve run's first search would.

        The question's own words (at most MAX_QUESTION_TERMS, each once, those no unit of the
        version holds taking none of those places: Rule.for_question) less the policy
        fallback's stop words and literals and the collection's ubiquitous words, any of them
        matching (MATCH_ANY); whether the question quoted literal values; what its embedding
        reads when the snapshot's semantic policy embeds questions; and the question as an API
        name when it is one as a whole, else the first dotted name it mentions (its units rank
        first). A snapshot whose fallback is
        not a question-terms rule (the fixture's) has no stop words to leave out and reads no
        literals; a question of no words searches nothing.
        """
        if self.snapshot.fallback.kind == QUESTION_TERMS:
            rule = self.snapshot.fallback_for(
                question, collection, version, self.collection(collection).holds_of(version))
            return SearchCall(rule.first_query, version, k, MATCH_ANY, rule.literals,
                              rule.semantic_query, rule.question_name)
        return SearchCall(question_terms(question, frozenset()), version, k, MATCH_ANY)

    def rule_for(self, question: str, collection: str, version: str) -> Rule:
        """Return the rule a run of the question gets in a version of a collection (the
        snapshot's select_rule, told which words that version's units hold)."""
        return self.snapshot.select_rule(question, collection, version,
                                         self.collection(collection).holds_of(version))

    def request_id(self, request: RetrieveRequest) -> str:
        """Return the id a run of request gets: its normalized request bound to the collection."""
        return digests.request_id(self.collection(request.search_collection).corpus_id,
                                  request.normalized())

    def retrieve(self, request: RetrieveRequest, deadline: float | None = None,
                 request_id: str | None = None) -> RunResult:
        """Run the scripted policy for one request; the tools are closed on every path.

        deadline is a time.monotonic() value after which no action starts and a running search
        is interrupted. request_id: this request's request_id(), when the caller has it already.
        """
        collection = self.collection(request.search_collection)
        rule = self.rule_for(request.question, request.search_collection,
                             request.search_version)
        normalized = request.normalized()
        evidence: list[dict] = []
        tools = self._tool_factory(collection, self.memo, deadline=deadline)
        try:
            runner = AdmissionRunner(request.limits, tools, deadline)
            try:
                outcome = run_rule(rule, request.search_version, runner, evidence)
                status, reason = outcome.status, outcome.reason
            except RunEnded as ended:
                status, reason = ended.status, ended.reason
        finally:
            tools.close()
        return RunResult(
            request_id=request_id or self.request_id(request),
            corpus_id=collection.corpus_id,
            request=normalized,
            status=status,
            reason=reason,
            limits=request.limits.as_dict(),
            usage=runner.usage(),
            trace=runner.trace,
            evidence=evidence,
            policy=rule.describe(),
        )

    def serving_verified(self) -> bool:
        """Tell whether what is served is still the snapshot verified at load."""
        return self.index.unchanged()

    def passage(self, passage_id: str):
        """Return the passage with this id in any collection, or None (callers check access)."""
        return self.index.passage(passage_id)

    def close(self):
        """Release the index's connections."""
        self.index.close()
