"""One retrieval run from validated request to result, over a loaded snapshot."""

from dataclasses import dataclass
from typing import Callable, Optional

from . import digests
from .admission import AdmissionRunner, Limits, RunEnded
from .index import SnapshotIndex
from .memo import ResultMemo
from .policy import run_rule
from .snapshot import Snapshot, load_snapshot
from .tools import RetrievalTools, result_size


@dataclass(frozen=True)
class RetrieveRequest:
    """A validated retrieval request with every default filled in."""

    question: str
    version: str
    limits: Limits

    def normalized(self) -> dict:
        """Return the request as it is echoed and bound into request_id."""
        return {"question": self.question, "version": self.version, **self.limits.as_dict()}


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


ToolFactory = Callable[[SnapshotIndex, ResultMemo], RetrievalTools]
MEMO_ENTRIES = 4096
MEMO_BYTES = 32 * 1024 * 1024


class RetrievalService:
    """A loaded snapshot, its shared index, and the factory of request-local tools."""

    def __init__(self, snapshot: Snapshot, tool_factory: Optional[ToolFactory] = None,
                 memo_entries: int = MEMO_ENTRIES, memo_bytes: int = MEMO_BYTES):
        self.snapshot = snapshot
        self.index = SnapshotIndex(snapshot)
        self.memo = ResultMemo(memo_entries, memo_bytes, size_of=result_size)
        self._tool_factory = tool_factory or RetrievalTools

    @classmethod
    def from_path(cls, path, expect_corpus_id=None, tool_factory=None,
                  **memo_caps) -> "RetrievalService":
        """Load and verify a snapshot and open its index."""
        return cls(load_snapshot(path, expect_corpus_id), tool_factory, **memo_caps)

    @property
    def corpus_id(self) -> str:
        return self.snapshot.corpus_id

    def retrieve(self, request: RetrieveRequest) -> RunResult:
        """Run the scripted policy for one request; the tools are closed on every path."""
        rule = self.snapshot.select_rule(request.question)
        normalized = request.normalized()
        evidence = []
        tools = self._tool_factory(self.index, self.memo)
        try:
            runner = AdmissionRunner(request.limits, tools)
            try:
                outcome = run_rule(rule, request.version, runner, evidence)
                status, reason = outcome.status, outcome.reason
            except RunEnded as ended:
                status, reason = ended.status, ended.reason
        finally:
            tools.close()
        return RunResult(
            request_id=digests.request_id(self.corpus_id, normalized),
            corpus_id=self.corpus_id,
            request=normalized,
            status=status,
            reason=reason,
            limits=request.limits.as_dict(),
            usage=runner.usage(),
            trace=runner.trace,
            evidence=evidence,
            policy=rule.describe(),
        )

    def passage(self, passage_id: str):
        """Return the passage with this id in the served corpus, or None."""
        return self.index.passage(passage_id)

    def close(self):
        """Release the index's connections."""
        self.index.close()
