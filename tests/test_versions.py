"""Versions and collections as people write them: refused with what there is, X.Y resolved."""

import asyncio
import json
import os
import subprocess
import sys
import unittest

from retrieval import client as rc
from retrieval.core import digests
from retrieval.testing import subprocess_env
from retrieval.wsgi import create_app
from tests.support import (
    ROOT,
    WAIT_S,
    call,
    class_temporary_directory,
    quiet_settings,
    require_module,
    start_server,
)
from tests.test_client import run_ask

TIER = "server"

BASE = "https://docs.example.org/"
TREES = {
    "python/3.11": "Shutil\n\nThe rmtree function removes a directory tree in Python 3.11.\n",
    "requests/2.28.1": "Requests 2.28.1\n\nThe request function sends a request (2.28.1).\n",
    "requests/2.28.2": "Requests 2.28.2\n\nThe request function sends a request (2.28.2).\n",
}


def build(root: str, name: str, labels, *extra) -> str:
    """Build the trees of labels with `python -m retrieval build`; return the directory."""
    argv = []
    for label in labels:
        source = os.path.join(root, "src", label.replace("/", "-"))
        if not os.path.isdir(source):
            os.makedirs(source)
            with open(os.path.join(source, "page.txt"), "w", encoding="utf-8") as handle:
                handle.write(TREES[label])
        argv += ["--source", f"{label}={source}", "--base-url", f"{label}={BASE}{label}/"]
    out = os.path.join(root, name)
    subprocess.run([sys.executable, "-m", "retrieval", "build", *argv, "--out", out, *extra],
                   check=True, capture_output=True, env=subprocess_env(), cwd=ROOT, timeout=120)
    return out


def post(app, path, **body):
    return call(app, "POST", path, json.dumps(body).encode())


class VersionsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        root = class_temporary_directory(cls)
        cls.both = build(root, "both", TREES)
        cls.python = build(root, "python", ["python/3.11"])
        cls.defaulted = build(root, "defaulted", TREES, "--default-collection", "python")
        cls.apps = {}
        for name in ("both", "python", "defaulted"):
            cls.apps[name] = create_app(getattr(cls, name), settings=quiet_settings())
            cls.addClassCleanup(cls.apps[name].close)

    def test_a_version_the_collection_lacks_is_refused_with_the_versions_it_has(self):
        for path, field in (("/retrieve", "question"), ("/search", "query")):
            with self.subTest(path=path):
                reply = post(self.apps["python"], path, **{field: "rmtree"}, version="3.12")
                self.assertEqual(reply.code, 404)
                error = reply.json()["error"]
                self.assertEqual((error["code"], error["versions"]), ("version_not_found",
                                                                      ["3.11"]))
                self.assertEqual(error["message"],
                                 "collection python has no version 3.12: it has 3.11")
                reply = post(self.apps["both"], path, **{field: "request"}, version="2.29",
                             collection="requests")
                self.assertEqual(reply.json()["error"]["versions"], ["2.28.1", "2.28.2"])

    def test_an_x_y_is_served_as_its_highest_release_and_the_reply_says_so(self):
        reply = post(self.apps["both"], "/retrieve", question="What does request send?",
                     version="2.28", collection="requests")
        self.assertEqual(reply.code, 200)
        result = reply.json()
        self.assertEqual(result["request"]["version"], "2.28")
        self.assertEqual(result["request"]["served_version"], "2.28.2")
        self.assertEqual(result["request_id"],
                         digests.request_id(result["corpus_id"], result["request"]))
        self.assertEqual({e["version"] for e in result["evidence"]}, {"2.28.2"})
        self.assertEqual(result["trace"][0]["action"]["arguments"]["version"], "2.28.2")
        exact = post(self.apps["both"], "/retrieve", question="What does request send?",
                     version="2.28.2", collection="requests").json()
        self.assertNotIn("served_version", exact["request"])
        self.assertNotEqual(exact["request_id"], result["request_id"])
        found = post(self.apps["both"], "/search", query="request", version="2.28",
                     collection="requests").json()
        self.assertEqual(found["request"]["served_version"], "2.28.2")
        self.assertEqual({hit["version"] for hit in found["hits"]}, {"2.28.2"})

    def test_one_collection_is_served_without_naming_it(self):
        reply = post(self.apps["python"], "/retrieve", question="rmtree", version="3.11")
        self.assertEqual(reply.code, 200)
        self.assertEqual(reply.json()["request"]["collection"], "python")
        corpus = call(self.apps["python"], "GET", "/corpus").json()
        self.assertEqual(corpus["default_collection"], "python")

    def test_several_collections_without_a_default_name_them_when_refusing(self):
        corpus = call(self.apps["both"], "GET", "/corpus").json()
        self.assertIsNone(corpus["default_collection"])
        for path, field in (("/retrieve", "question"), ("/search", "query")):
            with self.subTest(path=path):
                reply = post(self.apps["both"], path, **{field: "rmtree"}, version="3.11")
                self.assertEqual(reply.code, 404)
                error = reply.json()["error"]
                self.assertEqual(error["code"], "collection_not_found")
                self.assertIn("no default", error["message"])
                self.assertIn("yours: python, requests", error["message"])

    def test_a_declared_default_is_served_and_listed(self):
        corpus = call(self.apps["defaulted"], "GET", "/corpus").json()
        self.assertEqual(corpus["default_collection"], "python")
        reply = post(self.apps["defaulted"], "/retrieve", question="rmtree", version="3.11")
        self.assertEqual(reply.code, 200)
        self.assertEqual(reply.json()["request"]["collection"], "python")

    def test_a_default_no_source_builds_is_refused_before_the_build(self):
        root = class_temporary_directory(self)
        done = subprocess.run(
            [sys.executable, "-m", "retrieval", "build", "--source", f"3.11={root}",
             "--base-url", f"3.11={BASE}", "--out", os.path.join(root, "out"),
             "--default-collection", "python"],
            capture_output=True, text=True, env=subprocess_env(), cwd=ROOT, timeout=60)
        self.assertEqual((done.returncode, done.stdout), (2, ""))
        self.assertEqual(done.stderr, "retrieval: --default-collection python: no --source "
                                      "builds it (the collections: default)\n")

    def test_the_client_and_ask_say_which_versions_there_are(self):
        server = start_server(self, "--snapshot", self.both,
                              env=subprocess_env(RETRIEVAL_ACCESS_LOG="false"))
        with rc.RetrievalClient(server.base_url) as client:
            with self.assertRaises(rc.VersionNotFound) as caught:
                client.retrieve("rmtree", "3.12", collection="python")
            self.assertEqual(caught.exception.versions, ["3.11"])
            with self.assertRaises(rc.VersionNotFound):
                client.search("rmtree", "3.12", collection="python")
            result = client.retrieve("What does request send?", "2.28", collection="requests")
            self.assertEqual(result.request["served_version"], "2.28.2")
        done = run_ask("rmtree", "--version", "3.12", "--collection", "python",
                       "--url", server.base_url)
        self.assertEqual(done.returncode, 1)
        self.assertIn(b"has no version 3.12: it has 3.11", done.stderr)
        done = run_ask("What does request send?", "--version", "2.28", "--collection", "requests",
                       "--url", server.base_url)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn(b"version 2.28 served as 2.28.2", done.stdout)
        lines = done.stdout.decode().splitlines()
        hits = lines.index("first search's hits (1)")
        # Both paragraphs are the one unit of a page without headings (one url and title): the
        # search gives it one place, and the run reads it whole, in line order
        # (docs/api.md#whole-units).
        self.assertEqual(lines[hits + 1],
                         f"  1 page.txt lines 3-3 {BASE}requests/2.28.2/page.html (read)")
        evidence = lines.index("evidence (2)")
        self.assertEqual(lines[evidence + 1:evidence + 4:2], [
            f"  1 page.txt lines 1-1 {BASE}requests/2.28.2/page.html",
            f"  2 page.txt lines 3-3 {BASE}requests/2.28.2/page.html"])


    def test_mcp_search_docs_refuses_it_as_a_tool_error(self):
        require_module(self, "mcp", "mcp")
        from mcp import Client
        from mcp.client.stdio import StdioServerParameters

        async def scenario():
            parameters = StdioServerParameters(
                command=sys.executable, cwd=ROOT, env=subprocess_env(RETRIEVAL_ACCESS_LOG="false"),
                args=["-m", "retrieval", "mcp", "--snapshot", self.python])
            async with Client(parameters) as client:
                return await client.call_tool("search_docs", {"query": "rmtree", "version": "3.12"})

        found = asyncio.run(asyncio.wait_for(scenario(), WAIT_S * 3))
        self.assertTrue(found.is_error)
        error = json.loads(found.content[0].text)["error"]
        self.assertEqual((error["code"], error["versions"]), ("version_not_found", ["3.11"]))

    def test_langchain_raises_instead_of_returning_nothing(self):
        require_module(self, "langchain_core", "langchain")
        from retrieval.integrations.langchain import RetrievalRetriever

        server = start_server(self, "--snapshot", self.python,
                              env=subprocess_env(RETRIEVAL_ACCESS_LOG="false"))
        with self.assertRaises(rc.VersionNotFound):
            RetrievalRetriever(url=server.base_url, version="3.12").invoke("rmtree")
        self.assertTrue(RetrievalRetriever(url=server.base_url, version="3.11").invoke("rmtree"))


    def test_llamaindex_scores_are_higher_better_whatever_the_native_sign(self):
        require_module(self, "llama_index.core", "llamaindex")
        from llama_index.core.postprocessor import SimilarityPostprocessor

        from retrieval.integrations.llamaindex import RetrievalRetriever

        root = class_temporary_directory(self)
        os.makedirs(os.path.join(root, "src"))
        with open(os.path.join(root, "src", "shutil.md"), "w", encoding="utf-8") as handle:
            handle.write("# Trees\n\nCopy a tree.\n\n## Removing\n\nRemove a tree.\n")
        subprocess.run([sys.executable, "-m", "retrieval", "build", "--source",
                        f"3.11={root}/src", "--base-url", f"3.11={BASE}", "--out", f"{root}/out"],
                       check=True, capture_output=True, env=subprocess_env(), cwd=ROOT,
                       timeout=120)
        server = start_server(self, "--snapshot", f"{root}/out",
                              env=subprocess_env(RETRIEVAL_ACCESS_LOG="false"))
        nodes = RetrievalRetriever(server.base_url, version="3.11").retrieve("a tree")
        self.assertEqual(len(nodes), 2)
        # Native scores of a built snapshot subtract priors: lower is better, whatever the sign.
        self.assertEqual([n.score for n in nodes], [1 / n.node.metadata["rank"] for n in nodes])
        self.assertEqual(sorted(nodes, key=lambda n: -n.score), nodes)
        kept = SimilarityPostprocessor(similarity_cutoff=0.0).postprocess_nodes(nodes)
        self.assertEqual(len(kept), len(nodes))
        with self.assertRaises(rc.VersionNotFound):
            RetrievalRetriever(server.base_url, version="3.12").retrieve("rmtree")


if __name__ == "__main__":
    unittest.main()
