"""LlamaIndex: `RetrievalRetriever`, a llama-index-core `BaseRetriever` over a running service.

    retriever = RetrievalRetriever(url="http://127.0.0.1:8765", version="3.12")
    nodes = retriever.retrieve("Will write_text replace an existing file?")

Each evidence passage becomes `NodeWithScore(TextNode(id_=passage_id, text=<verbatim text>,
metadata=...), score=<the service's native score>)`; an altered response raises IntegrityError.
"""


from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from . import RetrievalSettings, retrieve_passages


class RetrievalRetriever(BaseRetriever):
    """Retrieve verified documentation passages for a query (one budgeted run per query)."""

    def __init__(self, url: str = "http://127.0.0.1:8765", *, version: str,
                 collection: str | None = None, api_key: str | None = None,
                 timeout: float = 10.0, allowances: dict | None = None, **options):
        super().__init__(**options)
        self._settings = RetrievalSettings(url, version, collection, api_key, timeout,
                                           dict(allowances or {}))

    def _retrieve(self, query_bundle: QueryBundle) -> list:
        return [NodeWithScore(node=TextNode(id_=passage.metadata["passage_id"],
                                            text=passage.text, metadata=passage.metadata),
                              score=passage.score)
                for passage in retrieve_passages(self._settings, query_bundle.query_str)]
