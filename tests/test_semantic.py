"""Unit: the optional embedding re-rank is offline, deterministic and orders as specified."""

import hashlib
import importlib.util
import os
import socket
import unittest
from unittest import mock

INSTALLED = all(importlib.util.find_spec(name) for name in ("numpy", "tokenizers", "wordllama"))
SKIP_REASON = "the semantic extra (numpy, tokenizers, wordllama) is not installed"

# sha256 over l2_supercat_256.safetensors then l2_supercat_tokenizer_config.json of wordllama
# 0.4.0.post1: a snapshot's vectors are only valid for this model.
WORDLLAMA_0_4_0_POST1 = "4d243a4b2daee65802d68699e288b9347fd45097303dc232205a660a82b5171e"


def _refuse_network(*args, **kwargs):
    raise AssertionError(f"network attempted: {args[1:]}")


@unittest.skipUnless(INSTALLED, SKIP_REASON)
class ModelTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        from retrieval import semantic
        cls.semantic = semantic
        with mock.patch.object(socket.socket, "connect", _refuse_network), \
                mock.patch.object(socket, "getaddrinfo", _refuse_network):
            cls.model = semantic.load_model()

    def test_loads_the_bundled_files_and_names_them_by_digest(self):
        directory = os.path.dirname(importlib.util.find_spec("wordllama").origin)
        digest = hashlib.sha256()
        for parts in (self.semantic.WEIGHTS, self.semantic.TOKENIZER):
            with open(os.path.join(directory, *parts), "rb") as handle:
                digest.update(handle.read())
        self.assertEqual(self.model.digest, digest.hexdigest())
        self.assertEqual(self.model.digest, WORDLLAMA_0_4_0_POST1)

    def test_same_text_gives_the_same_bytes_alone_or_in_a_batch(self):
        text = "Remove a directory tree with all its files"
        alone = self.model.embed([text])
        batched = self.model.embed(["shutil.rmtree", text, "an unrelated, much longer text " * 9])
        again = self.semantic.load_model().embed([text])
        self.assertEqual(alone.dtype.name, "float16")
        self.assertEqual(alone.shape, (1, 256))
        self.assertEqual(alone[0].tobytes(), batched[1].tobytes())
        self.assertEqual(alone.tobytes(), again.tobytes())

    def test_vectors_are_unit_length_and_empty_text_is_zero(self):
        vectors = self.model.embed(["parse command line arguments", ""])
        self.assertAlmostEqual(float(self.semantic.cosines(vectors[0], vectors[:1])[0]), 1.0,
                               places=2)
        self.assertFalse(vectors[1].any())

    def test_related_texts_are_closer_than_unrelated_ones(self):
        query, related, unrelated = self.model.embed([
            "delete a folder and everything in it",
            "shutil.rmtree Directory and files operations Delete an entire directory tree",
            "calendar.isleap Return True if year is a leap year"])
        near, far = self.semantic.cosines(query, [related, unrelated])
        self.assertGreater(near, far)


@unittest.skipUnless(INSTALLED, SKIP_REASON)
class RerankTest(unittest.TestCase):
    def setUp(self):
        import numpy
        from retrieval import semantic
        self.rerank = semantic.rerank
        # Row i is unit i; row 0 is unused, as SQLite row ids start at 1.
        self.vectors = numpy.array([[0, 0], [1, 0], [0, 1], [0.6, 0.8], [0, 1]], dtype="float16")
        self.query = numpy.array([0, 1], dtype="float16")

    def test_orders_by_score_minus_weight_times_cosine(self):
        candidates = [(1, 1.0), (2, 1.5), (3, 1.2)]
        # 1: 1.0 - 0; 2: 1.5 - 1; 3: 1.2 - 0.7998 (0.8 in float16)
        self.assertEqual(self.rerank(candidates, self.query, self.vectors, 1.0),
                         [(3, 1.2 - 0.7998046875), (2, 0.5), (1, 1.0)])

    def test_weight_zero_keeps_the_lexical_order_and_ties_go_to_the_lower_row(self):
        candidates = [(1, 1.0), (4, 1.5), (2, 1.5), (3, 1.2)]
        self.assertEqual([row for row, _ in self.rerank(candidates, self.query, self.vectors, 0)],
                         [1, 3, 2, 4])
        self.assertEqual([row for row, _ in self.rerank(candidates, self.query, self.vectors, 2)],
                         [2, 4, 3, 1])

    def test_no_candidates(self):
        self.assertEqual(self.rerank([], self.query, self.vectors, 30), [])


@unittest.skipUnless(INSTALLED, SKIP_REASON)
class DocumentTextTest(unittest.TestCase):
    def test_names_heading_and_first_sentence(self):
        from retrieval.semantic import document_text
        self.assertEqual(
            document_text("shutil.rmtree", "Directory and files operations",
                          "Delete an entire directory tree; *path* must point to a directory.\n"
                          "If *ignore_errors* is true, errors are ignored."),
            "shutil.rmtree Directory and files operations "
            "Delete an entire directory tree; *path* must point to a directory.")

    def test_a_section_body_loses_its_title_and_underline(self):
        from retrieval.semantic import document_text
        self.assertEqual(
            document_text("", "Using the issue tracker",
                          "Using the issue tracker\n=======================\n"
                          "Issue reports go to GitHub. Search first."),
            "Using the issue tracker Issue reports go to GitHub.")


if __name__ == "__main__":
    unittest.main()
