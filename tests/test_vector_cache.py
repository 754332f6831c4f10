"""The vector cache (retrieval/ingest/vector_cache.py): what it reuses, and what it never trusts.

A fake model whose "vector" of a text is its first bytes, so every answer is checkable: a text
embedded once is read back, a text the cache lacks is embedded (once, however often it occurs),
another model's vectors are not read, and a file that is not a cache is embedded around.
"""

import os
import sqlite3
import unittest
from dataclasses import dataclass

from retrieval.ingest.vector_cache import cached_vectors
from tests.support import temporary_directory

TIER = "unit"


@dataclass(frozen=True)
class Model:
    digest: str = "d1"
    recipe: str = "r1"
    dim: int = 2  # float16 rows: 4 bytes


class VectorCacheTest(unittest.TestCase):

    def setUp(self):
        self.folder = temporary_directory(self)
        self.asked: list = []

    def embed(self, texts: list) -> list:
        self.asked.append(list(texts))
        return [text.encode()[:4].ljust(4, b".") for text in texts]

    def test_a_text_is_embedded_once_and_read_back(self):
        vectors, reused = cached_vectors(self.folder, Model(), ["alpha", "beta", "alpha"],
                                         self.embed)
        self.assertEqual((vectors, reused), ([b"alph", b"beta", b"alph"], 0))
        self.assertEqual(self.asked, [["alpha", "beta"]])
        vectors, reused = cached_vectors(self.folder, Model(), ["beta", "gamma", "alpha"],
                                         self.embed)
        self.assertEqual((vectors, reused), ([b"beta", b"gamm", b"alph"], 2))
        self.assertEqual(self.asked[1:], [["gamma"]])
        cached_vectors(self.folder, Model(), ["gamma"], self.embed)
        self.assertEqual(len(self.asked), 2)  # nothing missing: embed not called

    def test_the_build_says_how_many_distinct_texts_it_embeds_and_reads(self):
        # Three units, two texts: a cold cache embeds both (none "from the vector cache").
        import io
        from types import SimpleNamespace

        from retrieval.ingest.builder import _embed
        from retrieval.ingest.tree import Progress

        semantic = SimpleNamespace(document_text=lambda names, heading, body: body,
                                   vector_bytes=lambda vectors: vectors)
        model = SimpleNamespace(digest="d1" * 8, recipe="r1", dim=2, embed=self.embed)
        units = [SimpleNamespace(heading="h", content={"fields": {"names": "", "body": text}})
                 for text in ("alpha", "beta", "alpha")]
        for said in ("embedding 2 of 3 units' 2 distinct texts, 0 from the vector cache",
                     None):  # again: every text from the cache, nothing embedded or said
            stream = io.StringIO()
            progress = Progress(stream=stream)
            self.assertEqual(_embed(semantic, model, units, progress, self.folder),
                             [b"alph", b"beta", b"alph"])
            if said is None:
                self.assertEqual(stream.getvalue(), "")
            else:
                self.assertIn(said, stream.getvalue())

    def test_a_long_embedding_says_how_far_it_has_come_and_gives_the_same_vectors(self):
        import io
        from types import SimpleNamespace
        from unittest import mock

        from retrieval.ingest import builder
        from retrieval.ingest.tree import Progress

        semantic = SimpleNamespace(vector_bytes=lambda vectors: list(vectors))
        model = SimpleNamespace(embed=self.embed)
        texts = [f"t{number:03}" for number in range(5)]
        stream = io.StringIO()
        with mock.patch.object(builder, "EMBED_SLICE", 2), \
                mock.patch.object(builder, "EMBED_SAID_EVERY_S", 0.0):
            vectors = builder._embedded(semantic, model, texts, Progress(stream=stream))
        self.assertEqual(vectors, self.embed(texts))  # as in one call
        self.assertEqual([len(asked) for asked in self.asked[:-1]], [2, 2, 1])
        # Said after each slice but the last (the build's next line says it is done).
        self.assertEqual([line.split(" texts,")[0] for line in stream.getvalue().splitlines()],
                         ["build: embedded 2 of 5", "build: embedded 4 of 5"])

    def test_another_model_reads_none_of_them(self):
        cached_vectors(self.folder, Model(), ["alpha"], self.embed)
        for other in (Model(digest="d2"), Model(recipe="r2")):
            _, reused = cached_vectors(self.folder, other, ["alpha"], self.embed)
            self.assertEqual(reused, 0)
        self.assertEqual(len(self.asked), 3)

    def test_a_vector_of_another_size_is_embedded_again(self):
        cached_vectors(self.folder, Model(), ["alpha"], self.embed)
        _, reused = cached_vectors(self.folder, Model(dim=3), ["alpha"], self.embed)
        self.assertEqual(reused, 0)

    def test_a_file_that_is_not_a_cache_is_embedded_around(self):
        cached_vectors(self.folder, Model(), ["alpha"], self.embed)
        (name,) = os.listdir(self.folder)
        with open(os.path.join(self.folder, name), "wb") as broken:
            broken.write(b"not a database" * 100)
        vectors, reused = cached_vectors(self.folder, Model(), ["alpha"], self.embed)
        self.assertEqual((vectors, reused), ([b"alph"], 0))
        with self.assertRaises(sqlite3.DatabaseError):  # left as it was, not overwritten
            sqlite3.connect(os.path.join(self.folder, name)).execute("SELECT 1 FROM vectors")


if __name__ == "__main__":
    unittest.main()
