"""A version of a collection ranks as in a snapshot holding that version alone.

Two releases of one guide are built into one snapshot, and each into a snapshot of its own, from
the same sources by the builder. The releases differ in size and in how often their words occur
(one says "engine" in most of its sections, the other in few), so statistics counted over both
(bm25's document counts and mean length, the words a question leaves out, the words that match
only in some fields) would rank otherwise than either release's own. Every /search and /retrieve
of a version in the pair must answer as the single-version snapshot does: the same hits, in the
same order, with the same scores and texts. Only what is bound to the snapshot's identity differs
(corpus_id, passage ids, request ids, read tokens and result digests), and is set aside before
comparing.
"""

import io
import json
import os
import unittest

from retrieval.core.snapshot import SnapshotError, load_snapshot
from retrieval.ingest.builder import DEFAULT_POLICY, Progress, SourceTree, build_snapshot
from retrieval.wsgi import create_app
from tests.support import (
    call,
    class_temporary_directory,
    fixture_document,
    one_line_passage,
    quiet_settings,
    tampered_copy,
    write_snapshot,
)

TIER = "inprocess"

# Values digested from the snapshot's or the collection's corpus_id: a passage's id is derived
# from its collection's corpus_id, which covers every version the collection holds.
IDENTITY_BOUND = {"corpus_id", "passage_id", "previous_passage_id", "next_passage_id",
                  "request_id", "search_request_id", "read_request_id", "read_token",
                  "result_sha256"}
TOPICS = ("queue", "worker", "config", "logging", "retry", "timeout", "cache", "plugin",
          "schedule", "report")
QUESTIONS = ("How does the engine start jobs?", "engine queue worker",
             "Which timeout does a worker use?", "retry the jobs of a queue")
RAW_QUERIES = ("engine", "engine jobs", "workers", "timeout")


def guide(version: str, sections: int, engine_every: int) -> str:
    """Return a release's guide: `sections` sections, every engine_every-th about the engine."""
    lines = [f"# Guide {version}", "", "Jobs run on workers.", ""]
    for n in range(sections):
        topic = TOPICS[n % len(TOPICS)]
        lines += [f"## {topic.title()} {n}", ""]
        if n % engine_every == 0:
            lines.append(f"The engine starts {topic} jobs; the engine stops them.")
        else:
            lines.append(f"A {topic} setting for jobs" + " and workers" * (n % 4) + ".")
        lines.append("")
    return "\n".join(lines)


def without_identity(value):
    """Return a response body without the values bound to the snapshot's identity."""
    if isinstance(value, dict):
        return {key: without_identity(item) for key, item in value.items()
                if key not in IDENTITY_BOUND}
    if isinstance(value, list):
        return [without_identity(item) for item in value]
    return value


class VersionStatisticsTest(unittest.TestCase):
    """1.0: 8 sections, all about the engine; 2.0: 30 sections, one in ten about it."""

    @classmethod
    def setUpClass(cls):
        base = class_temporary_directory(cls)
        trees = {}
        for version, sections, engine_every in (("1.0", 8, 1), ("2.0", 30, 10)):
            root = os.path.join(base, "src", version)
            os.makedirs(root)
            with open(os.path.join(root, "guide.md"), "w", encoding="utf-8") as handle:
                handle.write(guide(version, sections, engine_every))
            trees[version] = SourceTree(version, root, f"https://docs.example.org/{version}/")
        cls.paths = {}
        for name, versions in (("pair", ("1.0", "2.0")), ("1.0", ("1.0",)), ("2.0", ("2.0",))):
            cls.paths[name] = os.path.join(base, name.replace(".", "_"))
            build_snapshot([trees[v] for v in versions], cls.paths[name], DEFAULT_POLICY,
                           Progress(io.StringIO()))
        cls.apps = {name: create_app(snapshot_path=path, settings=quiet_settings())
                    for name, path in cls.paths.items()}

    @classmethod
    def tearDownClass(cls):
        for app in cls.apps.values():
            app.close()

    def answers(self, snapshot: str, path: str, body: dict) -> dict:
        reply = call(self.apps[snapshot], "POST", path, json.dumps(body).encode("utf-8"))
        self.assertEqual(reply.code, 200, reply.body)
        return reply.json()

    def assert_same_in_pair_and_alone(self, path: str, body: dict) -> dict:
        """Assert a request of body's version answers alike in the pair and alone; return it."""
        alone = self.answers(body["version"], path, body)
        self.assertEqual(without_identity(self.answers("pair", path, body)),
                         without_identity(alone))
        return alone

    def test_search_ranks_a_version_as_its_snapshot_alone(self):
        for version in ("1.0", "2.0"):
            for query, analysis in [(q, "question") for q in QUESTIONS] + \
                    [(q, "raw") for q in RAW_QUERIES]:
                with self.subTest(version=version, query=query, analysis=analysis):
                    body = {"query": query, "version": version, "limit": 10,
                            "analysis": analysis}
                    hits = self.assert_same_in_pair_and_alone("/search", body)["hits"]
                    self.assertTrue(hits)
                    self.assertTrue(all(hit["version"] == version for hit in hits))

    def test_retrieve_runs_a_version_as_its_snapshot_alone(self):
        for version in ("1.0", "2.0"):
            for question in QUESTIONS:
                with self.subTest(version=version, question=question):
                    run = self.assert_same_in_pair_and_alone(
                        "/retrieve", {"question": question, "version": version})
                    self.assertTrue(run["evidence"])

    def test_a_versions_common_and_ubiquitous_words_are_its_own(self):
        pair = load_snapshot(self.paths["pair"]).collections["default"]
        for version in ("1.0", "2.0"):
            alone = load_snapshot(self.paths[version]).collections["default"]
            with self.subTest(version=version):
                self.assertEqual(pair.ubiquitous_terms[version], alone.ubiquitous_terms[version])
                self.assertEqual(pair.common_terms[version], alone.common_terms[version])
        # Most of 1.0's sections say "engine", few of 2.0's: 1.0's question leaves it out,
        # 2.0's keeps it, and it matches anywhere in 2.0 only.
        self.assertIn("engine", pair.ubiquitous_terms["1.0"])
        self.assertNotIn("engine", pair.ubiquitous_terms["2.0"])
        self.assertIn("engine", pair.common_terms["1.0"])
        self.assertNotIn("engine", pair.common_terms["2.0"])

    def test_a_database_without_one_fts_table_per_version_is_refused(self):
        for sql in ("DELETE FROM version_tables WHERE version = '2.0'",
                    "UPDATE version_tables SET fts_table = 'passages' WHERE version = '2.0'"):
            with self.subTest(sql=sql):
                copy = tampered_copy(self, self.paths["pair"], sql)
                with self.assertRaisesRegex(SnapshotError, "FTS table"):
                    load_snapshot(copy)


class JsonVersionStatisticsTest(unittest.TestCase):
    """A JSON snapshot's versions, indexed in memory, are ranked apart too."""

    def test_a_json_snapshots_version_ranks_as_alone(self):
        alone = fixture_document()
        pair = fixture_document()
        # 3.11 holds many more passages that say "file": its document count would be the pair's.
        pair["passages"] = alone["passages"] + [
            dict(one_line_passage(f"file-{n}", f"https://docs.python.org/3.11/f{n}.html",
                                  f"A file note {n} about text in a file."), version="3.11")
            for n in range(12)]
        answers = []
        for document in (pair, alone):
            app = create_app(snapshot_path=write_snapshot(class_temporary_directory(self),
                                                          document), settings=quiet_settings())
            self.addCleanup(app.close)
            reply = call(app, "POST", "/search", json.dumps(
                {"query": "file text", "version": "3.12", "analysis": "raw"}).encode("utf-8"))
            self.assertEqual(reply.code, 200, reply.body)
            answers.append(without_identity(reply.json()))
        self.assertTrue(answers[1]["hits"])
        self.assertEqual(answers[0], answers[1])


if __name__ == "__main__":
    unittest.main()
