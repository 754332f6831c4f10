"""LlamaIndex: `RetrievalRetriever`, a llama-index-core `BaseRetriever` over a running service.

    retriever = RetrievalRetriever(url="http://127.0.0.1:8765", version="3.12")
    nodes = retriever.retrieve("Will write_text replace an existing file?")

Each evidence passage becomes `NodeWithScore(TextNode(id_=passage_id, text=<verbatim text>,
metadata=...), score=...)`; an altered response raises IntegrityError. LlamaIndex reads a higher
score as better (its postprocessors cut below a threshold and sort descending). The service's
native score is lower-better and of no fixed sign (FTS5's bm25() is negative; a built snapshot
subtracts a prior that may be negative too), so the score is the reciprocal of the passage's
rank in the search that found it: 1.0, 0.5, 0.33, ..., always above 0, in ranking order.
metadata["native_score"] keeps the service's own number.
"""


from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from . import RetrievalSettings, retrieve_passages

# What llama-index-core's BaseRetriever.__init__ takes (0.14).
BASE_OPTIONS = ("callback_manager", "object_map", "objects", "verbose")


class RetrievalRetriever(BaseRetriever):
    """Retrieve verified documentation passages for a query (one budgeted run per query)."""

    def __init__(self, url: str = "http://127.0.0.1:8765", *, version: str,
                 collection: str | None = None, api_key: str | None = None,
                 timeout: float = 10.0, allowances: dict | None = None, **options):
        unknown = sorted(set(options) - set(BASE_OPTIONS))
        if unknown:
            # Refused, never ignored: base_url= for url= would quietly ask the default URL.
            raise TypeError(f"RetrievalRetriever: unknown setting(s) {', '.join(unknown)}; it "
                            f"takes url, version, collection, api_key, timeout, allowances and "
                            f"BaseRetriever's {', '.join(BASE_OPTIONS)}")
        super().__init__(**options)
        self._settings = RetrievalSettings(url, version, collection, api_key, timeout,
                                           dict(allowances or {}))

    def _retrieve(self, query_bundle: QueryBundle) -> list:
        return [NodeWithScore(node=TextNode(id_=passage.metadata["passage_id"],
                                            text=passage.text, metadata=passage.metadata),
                              score=1 / passage.metadata["rank"])
                for passage in retrieve_passages(self._settings, query_bundle.query_str)]
