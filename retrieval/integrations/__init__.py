"""Framework adapters: thin mappings of a verified `retrieval.client` run onto retrievers.

Each adapter is an optional extra (`langchain`, `llamaindex`). Nothing is unverified: the client
checks every digest before a passage is handed over, and an altered response raises
`retrieval.client.IntegrityError` out of the framework's retrieve call.
"""

from dataclasses import dataclass, field

from ..core.fields import CITATION_FIELDS, EVIDENCE_OPTIONAL_FIELDS


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
        metadata = {name: getattr(item, name) for name in CITATION_FIELDS}
        # What the passage has beyond its citation (title, flags, version notes, where a cut
        # unit goes on): present only where it has it, as in the service's own evidence.
        metadata.update({name: getattr(item, name) for name in EVIDENCE_OPTIONAL_FIELDS
                         if getattr(item, name) is not None})
        metadata.update(status=result.status, request_id=result.request_id)
        passages.append(Passage(item.text, metadata, item.native_score))
    return passages
