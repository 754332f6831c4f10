"""Built snapshots: the builder, serving a directory, /corpus, question-terms policy, the memo."""

import contextlib
import dataclasses
import hashlib
import io
import json
import os
import shutil
import sqlite3
import tempfile
import unittest

import requests

from retrieval.cli.main import main as retrieval_main
from retrieval.core import database
from retrieval.core.index import SnapshotIndex
from retrieval.core.searches import SearchCall
from retrieval.core.snapshot import SnapshotError, load_snapshot, parse_snapshot, seal_snapshot
from retrieval.core.snapshot_directory import verify_snapshot_directory
from retrieval.ingest.builder import DEFAULT_POLICY, Progress, SourceTree, build_snapshot
from retrieval.wsgi import create_app
from tests.support import call, fixture_document, quiet_settings, start_server, temporary_directory

TIER = "server"

RST = """\
Paths
=====

.. module:: pathlib

.. _intro:

Intro text about paths.

.. class:: Path(*segments)

   A concrete path.

   .. method:: write_text(data)

      Write *data*. An existing file is overwritten.

.. toctree::

   other
"""

MARKDOWN = """\
# Release notes

Version {version} adds write_text examples.

## Details

More detail here.
"""

PLAIN = "First paragraph\nof plain text.\n\nSecond one.\n"


def write_tree(root, version):
    """Write one documentation version in every supported format, plus one unreadable file."""
    files = {
        "library/pathlib.rst.txt": RST,
        "notes.md": MARKDOWN.format(version=version),
        "plain.txt": PLAIN,
    }
    for relative, text in files.items():
        path = os.path.join(root, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    with open(os.path.join(root, "broken.txt"), "wb") as handle:
        handle.write(b"valid start \xff\xfe then garbage\n")


class BuiltCorpusTest(unittest.TestCase):
    """Two versions, built once for the class."""

    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        base = cls._tmp.name
        cls.trees = []
        for version in ("3.11", "3.12"):
            root = os.path.join(base, "src", version)
            write_tree(root, version)
            cls.trees.append(SourceTree(version, root, f"https://docs.example.org/{version}/"))
        cls.out = os.path.join(base, "snapshot")
        cls.log = io.StringIO()
        cls.manifest = build_snapshot(cls.trees, cls.out, DEFAULT_POLICY, Progress(cls.log))

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def passages(self):
        conn = sqlite3.connect(os.path.join(self.out, "passages.sqlite"))
        try:
            return conn.execute(
                "SELECT version, source_id, start_line, end_line, url, text FROM passages "
                "ORDER BY id").fetchall()
        finally:
            conn.close()

    def test_paragraphs_lines_and_clickable_urls(self):
        rows = [row for row in self.passages() if row[0] == "3.11"]
        by_text = {row[5]: row for row in rows}
        page = "https://docs.example.org/3.11/library/pathlib.html"
        self.assertEqual(by_text["Intro text about paths."][2:5], (8, 8, page + "#intro"))
        self.assertEqual(by_text["      Write *data*. An existing file is overwritten."][2:5],
                         (16, 16, page + "#pathlib.Path.write_text"))
        self.assertEqual(by_text["   A concrete path."][2:5], (12, 12, page + "#pathlib.Path"))
        self.assertEqual(by_text["# Release notes\n\nVersion 3.11 adds write_text examples."][2:5],
                         (1, 3, "https://docs.example.org/3.11/notes.html#release-notes"))
        self.assertEqual(by_text["## Details\n\nMore detail here."][4],
                         "https://docs.example.org/3.11/notes.html#details")
        self.assertEqual(by_text["First paragraph\nof plain text."][2:5],
                         (1, 2, "https://docs.example.org/3.11/plain.html"))
        self.assertFalse(any("toctree" in row[5] or row[5].strip() == "other" for row in rows))
        self.assertFalse(any(row[5].startswith(".. _intro") for row in rows))

    def test_unreadable_file_is_reported_and_skipped_whole(self):
        self.assertIn("skipped 3.11/broken.txt: not UTF-8", self.log.getvalue())
        self.assertFalse(any(row[1] == "broken.txt" for row in self.passages()))
        self.assertIn("build: done:", self.log.getvalue())

    def test_manifest_lists_versions_and_source_digests(self):
        [collection] = self.manifest["collections"]
        self.assertEqual(collection["collection"], "default")
        self.assertEqual(collection["corpus_id"], self.manifest["corpus_id"])
        versions = {v["version"]: v for v in collection["versions"]}
        self.assertEqual(sorted(versions), ["3.11", "3.12"])
        self.assertEqual(versions["3.11"]["sources"], 3)
        source = next(s for s in self.manifest["sources"]
                      if s["version"] == "3.12" and s["source_id"] == "notes.md")
        expected = hashlib.sha256(MARKDOWN.format(version="3.12").encode()).hexdigest()
        self.assertEqual(source["sha256"], expected)
        self.assertEqual(self.manifest["policy"], DEFAULT_POLICY)

    def test_rebuilding_gives_the_same_manifest(self):
        again = os.path.join(temporary_directory(self), "again")
        manifest = build_snapshot(self.trees, again, DEFAULT_POLICY, Progress(io.StringIO()))
        self.assertEqual(manifest, self.manifest)
        with open(os.path.join(self.out, "manifest.json"), "rb") as a, \
                open(os.path.join(again, "manifest.json"), "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_served_versions_are_exact(self):
        app = create_app(snapshot_path=self.out, settings=quiet_settings())
        self.addCleanup(app.close)
        [served] = json.loads(call(app, "GET", "/corpus").body)["collections"]
        [built] = self.manifest["collections"]
        self.assertEqual(served["corpus_id"], self.manifest["corpus_id"])
        self.assertEqual([(v["version"], v["passages"]) for v in served["versions"]],
                         [(v["version"], v["passages"]) for v in built["versions"]])
        for version in ("3.11", "3.12"):
            body = json.dumps({"question": "What does write_text do with an existing file?",
                               "version": version}).encode()
            reply = json.loads(call(app, "POST", "/retrieve", body).body)
            self.assertEqual(reply["policy"]["kind"], "question_terms")
            self.assertEqual(reply["policy"]["initial_query"], "write_text existing file")
            self.assertEqual(reply["trace"][0]["action"]["arguments"]["match"], "any")
            self.assertTrue(reply["evidence"])
            self.assertTrue(all(e["version"] == version for e in reply["evidence"]))
            self.assertTrue(all(f"/{version}/" in e["url"] for e in reply["evidence"]))

    def test_question_text_cannot_inject_fts_syntax(self):
        app = create_app(snapshot_path=self.out, settings=quiet_settings())
        self.addCleanup(app.close)
        hostile = ['write_text" OR "x', "NEAR(write_text existing)", "write* -file :text",
                   "(existing) AND ^file", 'paths"', "OR", "NOT paths", "text:paths"]
        for question in hostile:
            with self.subTest(question=question):
                body = json.dumps({"question": question, "version": "3.11"}).encode()
                reply = json.loads(call(app, "POST", "/retrieve", body).body)
                self.assertEqual(reply["trace"][0]["status"], "succeeded")
                query = reply["trace"][0]["action"]["arguments"]["query"]
                self.assertRegex(query, r"^[\w ]*$")
                self.assertNotIn("OR", query.split())

    def test_memo_changes_no_byte(self):
        cached = create_app(snapshot_path=self.out, settings=quiet_settings())
        uncached = create_app(snapshot_path=self.out,
                              settings=quiet_settings(cache_entries=0))
        self.addCleanup(cached.close)
        self.addCleanup(uncached.close)
        for question in ("write_text existing file", "plain text paragraph", "release notes"):
            # Same question with another budget: another reply (response memo), the same search
            # and read results (result memo).
            for limits in ({}, {"max_steps": 63}):
                body = json.dumps({"question": question, "version": "3.12", **limits}).encode()
                first = call(cached, "POST", "/retrieve", body).body
                self.assertEqual(call(cached, "POST", "/retrieve", body).body, first)
                self.assertEqual(call(uncached, "POST", "/retrieve", body).body, first)
        self.assertGreater(cached.result_memo_stats().entries, 0)
        self.assertGreater(cached.result_memo_stats().hits, 0)
        self.assertEqual(uncached.result_memo_stats().entries, 0)

    def test_verify_accepts_and_catches_edits(self):
        self.assertEqual(verify_snapshot_directory(self.out), [])
        copy = os.path.join(temporary_directory(self), "copy")
        shutil.copytree(self.out, copy)
        conn = sqlite3.connect(os.path.join(copy, "passages.sqlite"))
        conn.execute("UPDATE passages SET text = 'forged' WHERE id = 1")
        conn.commit()
        conn.close()
        problems = verify_snapshot_directory(copy)
        self.assertTrue(any(p.startswith("corpus_id") for p in problems), problems)
        self.assertTrue(any("text_sha256" in p for p in problems), problems)

    def test_manifest_database_mismatch_is_refused(self):
        edits = {
            "corpus_id": lambda m: m.update(corpus_id="0" * 64),
            "passages per source": lambda m: m["sources"][0].update(passages=99),
            "collection 'default'": lambda m: m["collections"][0]["versions"][0].update(passages=1),
            "fields": lambda m: m.pop("policy"),
        }
        for fragment, edit in edits.items():
            with self.subTest(fragment):
                copy = os.path.join(temporary_directory(self), "copy")
                shutil.copytree(self.out, copy)
                manifest = json.loads(json.dumps(self.manifest))
                edit(manifest)
                with open(os.path.join(copy, "manifest.json"), "w") as handle:
                    json.dump(manifest, handle)
                with self.assertRaisesRegex(SnapshotError, fragment):
                    load_snapshot(copy)
        missing = os.path.join(temporary_directory(self), "missing")
        shutil.copytree(self.out, missing)
        os.remove(os.path.join(missing, "passages.sqlite"))
        with self.assertRaisesRegex(SnapshotError, "database missing"):
            load_snapshot(missing)

    def test_served_from_a_directory_over_http(self):
        server = start_server(self, "--snapshot", self.out)
        corpus = requests.get(server.base_url + "/corpus", timeout=20).json()
        self.assertEqual(corpus["collections"][0]["corpus_id"], self.manifest["corpus_id"])
        lifecycle = server.stop()
        self.assertIn("retrieval: result cache", lifecycle.stderr)


class VersionRangeTest(unittest.TestCase):
    def test_interleaved_json_versions_are_grouped_and_filtered(self):
        document = fixture_document()
        older = [dict(p, version="3.11", url=p["url"].replace("3.12", "3.11"))
                 for p in document["passages"]]
        document["passages"] = [item for pair in zip(older, document["passages"], strict=True)
                                for item in pair]
        snapshot = parse_snapshot(seal_snapshot(document))
        index = SnapshotIndex(snapshot)
        self.addCleanup(index.close)
        for version in ("3.11", "3.12"):
            ranked = index.collection("default").rank(SearchCall("text", version, 4))
            self.assertEqual([p.source_id for p, _ in ranked], ["path-read", "path-write"])
            self.assertTrue(all(p.version == version for p, _ in ranked))

    def test_a_database_with_interleaved_versions_is_refused(self):
        path = os.path.join(temporary_directory(self), "mixed.sqlite")
        snapshot = parse_snapshot(seal_snapshot(fixture_document()))
        conn = sqlite3.connect(path)
        database.create(conn, snapshot.passages, {"corpus_id": snapshot.corpus_id},
                        {"default": snapshot.corpus_id})
        conn.execute("UPDATE passages SET version = '3.11' WHERE id = 2")
        conn.commit()
        conn.close()
        with self.assertRaisesRegex(SnapshotError, "not contiguous"):
            SnapshotIndex(dataclasses.replace(snapshot, passages=(), database_path=path))


class BuildCommandTest(unittest.TestCase):
    def run_cli(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = retrieval_main(list(argv))
        return code, out.getvalue(), err.getvalue()

    def test_build_command_and_its_refusals(self):
        root = temporary_directory(self)
        write_tree(os.path.join(root, "src"), "3.11")
        out = os.path.join(root, "snap")
        code, stdout, _ = self.run_cli("build", "--source", f"3.11={root}/src", "--base-url",
                                       "3.11=https://d.example/3.11/", "--out", out)
        self.assertEqual(code, 0)
        self.assertEqual(stdout.strip(), load_snapshot(out).corpus_id)
        self.assertEqual(self.run_cli("verify", out)[0], 0)
        refusals = [
            ("--source", f"3.11={root}/src", "--base-url", "3.12=https://d.example/", "--out", out),
            ("--source", f"3.x={root}/src", "--base-url", "3.x=https://d.example/", "--out", out),
            ("--source", f"3.11={root}/src", "--base-url", "3.11=https://no-slash", "--out", out),
        ]
        for argv in refusals:
            with self.subTest(argv=argv):
                code, _, stderr = self.run_cli("build", *argv)
                self.assertEqual(code, 2)
                self.assertEqual(len(stderr.strip().splitlines()), 1, stderr)

    def test_built_collections_are_identified_and_ranked_apart(self):
        root = temporary_directory(self)
        write_tree(os.path.join(root, "docs"), "3.12")
        write_tree(os.path.join(root, "runbooks"), "3.12")
        out = os.path.join(root, "snap")
        code, _, stderr = self.run_cli(
            "build", "--source", f"3.12={root}/docs", "--source", f"internal/3.12={root}/runbooks",
            "--base-url", "3.12=https://d.example/3.12/",
            "--base-url", "internal/3.12=https://runbooks.example/", "--out", out)
        self.assertEqual(code, 0, stderr)
        self.assertEqual(self.run_cli("verify", out)[0], 0)
        alone = os.path.join(root, "alone")
        self.assertEqual(self.run_cli("build", "--source", f"3.12={root}/docs", "--base-url",
                                      "3.12=https://d.example/3.12/", "--out", alone)[0], 0)
        with open(os.path.join(out, "manifest.json"), encoding="utf-8") as handle:
            collections = json.load(handle)["collections"]
        self.assertEqual([c["collection"] for c in collections], ["default", "internal"])
        # The default collection is the same corpus whether or not the runbooks sit beside it.
        self.assertEqual(collections[0]["corpus_id"], load_snapshot(alone).corpus_id)
        self.assertNotEqual(collections[1]["corpus_id"], collections[0]["corpus_id"])
        body = json.dumps({"question": "What does write_text do?", "version": "3.12"}).encode()
        replies = []
        for path in (out, alone):
            app = create_app(snapshot_path=path, settings=quiet_settings())
            self.addCleanup(app.close)
            replies.append(call(app, "POST", "/retrieve", body).body)
        self.assertEqual(replies[0], replies[1])
        self.assertEqual(self.run_cli("build", "--source", f"Bad/3.12={root}/docs", "--base-url",
                                      "Bad/3.12=https://d.example/", "--out", out)[0], 2)


if __name__ == "__main__":
    unittest.main()
