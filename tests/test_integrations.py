"""The LangChain and LlamaIndex retrievers against a real server on a loopback port.

Needs the `langchain` / `llamaindex` extras: skipped without them, except in CI (.ci/run
installs them), where that is a failure.
"""

import unittest

import requests

from retrieval import client as rc
from retrieval.core import digests
from retrieval.scenarios import QUESTION
from tests.support import require_module, start_server
from tests.test_client import FakeServer

TIER = "server"

# What every document's metadata carries, whatever the framework.
METADATA = {"url", "passage_id", "source_id", "version", "start_line", "end_line",
            "text_sha256", "result_sha256", "source_sha256", "rank", "corpus_id", "status",
            "request_id", "native_score"}


class ServedRun:
    """A real server per test and the verified result the client gets from it directly."""

    def setUp(self):
        self.server = start_server(self)
        self.expected = rc.RetrievalClient(self.server.base_url).retrieve(QUESTION, "3.12")
        self.assertTrue(self.expected.evidence)

    def tampered_url(self) -> str:
        """Serve the real run's body with one evidence byte changed and its body digest redone.

        The body digest header then matches; only the result's own digests can catch it.
        """
        response = requests.post(self.server.base_url + "/retrieve",
                                 json={"question": QUESTION, "version": "3.12"}, timeout=10)
        raw = response.content.replace(b"overwritten", b"overwriten", 1)
        self.assertNotEqual(raw, response.content)
        fake = FakeServer(self, (200, {"Content-Type": "application/json",
                                       rc.BODY_DIGEST_HEADER: digests.sha256_hex(raw)}, raw))
        return fake.base_url


class LangChainTest(ServedRun, unittest.TestCase):
    def setUp(self):
        require_module(self, "langchain_core", "langchain")
        super().setUp()

    def test_documents_are_the_evidence_verbatim_with_metadata(self):
        from retrieval.integrations.langchain import RetrievalRetriever

        retriever = RetrievalRetriever(url=self.server.base_url, version="3.12")
        documents = retriever.invoke(QUESTION)
        self.assertEqual([d.page_content for d in documents],
                         [e.text for e in self.expected.evidence])
        for document, evidence in zip(documents, self.expected.evidence, strict=True):
            self.assertEqual(set(document.metadata), METADATA)
            self.assertEqual(document.metadata["passage_id"], evidence.passage_id)
            self.assertEqual(document.metadata["url"], evidence.url)
            self.assertEqual(document.metadata["status"], self.expected.status)

    def test_an_unknown_setting_is_refused(self):
        from pydantic import ValidationError

        from retrieval.integrations.langchain import RetrievalRetriever

        with self.assertRaises(ValidationError) as caught:
            RetrievalRetriever(base_url=self.server.base_url, version="3.12")
        self.assertIn("base_url", str(caught.exception))
        self.assertIn("extra_forbidden", str(caught.exception))

    def test_an_altered_response_raises(self):
        from retrieval.integrations.langchain import RetrievalRetriever

        with self.assertRaises(rc.IntegrityError):
            RetrievalRetriever(url=self.tampered_url(), version="3.12").invoke(QUESTION)


class LlamaIndexTest(ServedRun, unittest.TestCase):
    def setUp(self):
        require_module(self, "llama_index.core", "llamaindex")
        super().setUp()

    def test_nodes_are_the_evidence_verbatim_with_metadata_and_score(self):
        from retrieval.integrations.llamaindex import RetrievalRetriever

        nodes = RetrievalRetriever(self.server.base_url, version="3.12").retrieve(QUESTION)
        # Higher is better, as LlamaIndex reads scores: 1 / the rank in the search that found it.
        self.assertEqual([(n.node.node_id, n.node.text, n.score) for n in nodes],
                         [(e.passage_id, e.text, 1 / e.rank) for e in self.expected.evidence])
        for node, evidence in zip(nodes, self.expected.evidence, strict=True):
            self.assertEqual(set(node.node.metadata), METADATA)
            self.assertEqual(node.node.metadata["native_score"], evidence.native_score)
        from llama_index.core.postprocessor import SimilarityPostprocessor

        kept = SimilarityPostprocessor(similarity_cutoff=0.0).postprocess_nodes(nodes)
        self.assertEqual([n.node.node_id for n in kept], [n.node.node_id for n in nodes])

    def test_an_unknown_setting_is_refused(self):
        from retrieval.integrations.llamaindex import RetrievalRetriever

        with self.assertRaises(TypeError) as caught:
            RetrievalRetriever(version="3.12", base_url=self.server.base_url)
        self.assertIn("unknown setting(s) base_url", str(caught.exception))
        RetrievalRetriever(self.server.base_url, version="3.12", verbose=True)

    def test_an_altered_response_raises(self):
        from retrieval.integrations.llamaindex import RetrievalRetriever

        with self.assertRaises(rc.IntegrityError):
            RetrievalRetriever(self.tampered_url(), version="3.12").retrieve(QUESTION)


if __name__ == "__main__":
    unittest.main()
