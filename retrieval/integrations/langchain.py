"""LangChain: `RetrievalRetriever`, a langchain-core `BaseRetriever` over a running service.

    retriever = RetrievalRetriever(url="http://127.0.0.1:8765", version="3.12")
    documents = retriever.invoke("Will write_text replace an existing file?")

Each evidence passage becomes `Document(page_content=<verbatim text>, metadata={url, passage_id,
version, start_line, end_line, digests, status, ...})`; an altered response raises IntegrityError.
"""


from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict

from . import RetrievalSettings, retrieve_passages


class RetrievalRetriever(BaseRetriever):
    """Retrieve verified documentation passages for a query (one budgeted run per query)."""

    # An unknown setting (base_url= for url=) is refused, never ignored: ignored, the retriever
    # would quietly talk to the default URL.
    model_config = ConfigDict(extra="forbid")

    url: str = "http://127.0.0.1:8765"
    version: str
    collection: str | None = None
    api_key: str | None = None
    timeout: float = 10.0
    allowances: dict = {}

    def _get_relevant_documents(self, query: str, *, run_manager=None) -> list:
        settings = RetrievalSettings(self.url, self.version, self.collection, self.api_key,
                                     self.timeout, dict(self.allowances))
        return [Document(page_content=passage.text, metadata=passage.metadata)
                for passage in retrieve_passages(settings, query)]
