"""Framework adapters: thin mappings of a verified `retrieval.client` run onto retrievers.

Each adapter is an optional extra (`langchain`, `llamaindex`). Nothing is unverified: the client
checks every digest before a passage is handed over, and an altered response raises
`retrieval.client.IntegrityError` out of the framework's retrieve call.
"""

from dataclasses import dataclass, field


@dataclass
class RetrievalSettings:
    """Where to ask and with what allowances (None: the service's default)."""

    url: str = "http://127.0.0.1:8765"
    version: str = "3.12"
    collection: str | None = None
    api_key: str | None = None
    timeout: float = 10.0
    allowances: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Passage:
    """One evidence passage of a verified run: its verbatim text, metadata and score."""

    text: str
    metadata: dict
    score: float


def retrieve_passages(settings: RetrievalSettings, question: str) -> list:
    """Run one verified retrieval and return its evidence as Passages, best first."""
    from ..client import RetrievalClient

    with RetrievalClient(settings.url, api_key=settings.api_key,
                         timeout=settings.timeout) as client:
        result = client.retrieve(question, settings.version, collection=settings.collection,
                                 **settings.allowances)
    passages = []
    for item in result.evidence:
        metadata = {
            "url": item.url, "passage_id": item.passage_id, "source_id": item.source_id,
            "version": item.version, "start_line": item.start_line, "end_line": item.end_line,
            "text_sha256": item.text_sha256, "result_sha256": item.result_sha256,
            "source_sha256": item.source_sha256, "rank": item.rank, "corpus_id": item.corpus_id,
            "status": result.status, "request_id": result.request_id,
            "native_score": item.native_score,
        }
        passages.append(Passage(item.text, metadata, item.native_score))
    return passages
