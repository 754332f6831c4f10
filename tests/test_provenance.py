"""Where a snapshot's documentation came from and when it was built, from the build to MCP.

A `retrieval build` run in this process writes provenance.json; `retrieval verify` says what it
records; `retrieval mcp`'s tools, driven by the official SDK's client connected to the server in
process, put it in one line on every result.
"""

import asyncio
import contextlib
import io
import json
import os
import re
import shutil
import unittest

from retrieval.cli.main import main as retrieval_main
from retrieval.core.snapshot import SnapshotError, load_snapshot
from tests.support import WAIT_S, quiet_settings, require_module, temporary_directory

TIER = "inprocess"

BASE = "https://docs.example.org/goat/"
PAGE = "Goat\n====\n\nThe herd grazes on the hill every morning.\n"


def run_cli(*args) -> tuple:
    """Return (exit code, stdout) of `retrieval ARGS` run in this process."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = retrieval_main(list(args))
    return code, out.getvalue()


def mcp_answers(snapshot: str, calls: list) -> list:
    """Return the results of (tool, arguments) calls, made through the SDK's client."""
    from mcp import Client

    from retrieval.mcp.backends import LocalBackend
    from retrieval.mcp.server import RetrievalMCP

    backend = LocalBackend(quiet_settings(snapshot=snapshot))

    async def scenario():
        async with Client(RetrievalMCP(backend).server) as client:
            return [await client.call_tool(name, arguments) for name, arguments in calls]

    try:
        return asyncio.run(asyncio.wait_for(scenario(), WAIT_S * 3))
    finally:
        backend.close()


class ProvenanceTest(unittest.TestCase):
    def build(self) -> tuple:
        """Build one local tree; return (snapshot directory, the tree's absolute path)."""
        root = temporary_directory(self)
        tree = os.path.join(root, "tree")
        os.makedirs(tree)
        with open(os.path.join(tree, "herd.txt"), "w", encoding="utf-8") as handle:
            handle.write(PAGE)
        out = os.path.join(root, "snapshot")
        code, _ = run_cli("build", "--source", f"goat/1.0={tree}", "--base-url",
                          f"goat/1.0={BASE}", "--out", out)
        self.assertEqual(code, 0)
        return out, os.path.abspath(tree)

    def test_a_build_records_its_source_and_time_and_mcp_says_them_in_one_line(self):
        require_module(self, "mcp", "mcp")
        out, tree = self.build()
        with open(os.path.join(out, "provenance.json"), encoding="utf-8") as handle:
            recorded = json.load(handle)
        self.assertEqual(recorded["goat/1.0"], {"kind": "path", "path": tree})
        self.assertRegex(recorded["built_at"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        code, printed = run_cli("verify", out)
        self.assertEqual(code, 0)
        self.assertEqual(printed.splitlines(), [
            f"provenance: built {recorded['built_at']}",
            f"provenance: goat/1.0: directory {tree}", "verified"])

        corpus_id = load_snapshot(out).corpus_id
        line = (f"goat@1.0 · directory {tree} · built {recorded['built_at'][:10]} · "
                f"corpus {corpus_id[:12]}")
        asked = {"collection": "goat", "version": "1.0"}
        run, search, verbose, docs, resolved = mcp_answers(out, [
            ("retrieve", dict(asked, question="where does the herd graze")),
            ("search_docs", dict(asked, query="herd")),
            ("search_docs", dict(asked, query="herd", verbose=True)),
            ("list_docs", {}), ("resolve_library", {"name": "goat"})])
        passage_id = verbose.structured_content["hits"][0]["passage_id"]
        [read] = mcp_answers(out, [("read_passage", {"passage_id": passage_id})])
        for result in (run, search, read):
            self.assertEqual(result.content[0].text.partition("\n")[0], line)
        self.assertEqual(verbose.structured_content["provenance"], line)
        self.assertEqual(docs.structured_content["provenance"], [line])
        self.assertEqual(resolved.structured_content["provenance"], [line])
        # A citation names the page as published, then the handle.
        self.assertIn(f" · {BASE}herd.html · {passage_id}\n", run.content[0].text)

    def test_what_an_older_build_recorded_still_reads_and_a_bad_file_is_refused(self):
        require_module(self, "mcp", "mcp")
        out, _ = self.build()
        path = os.path.join(out, "provenance.json")
        # An older build: a git checkout's entry, no build time.
        with open(path, "w", encoding="utf-8") as handle:
            json.dump({"goat/1.0": {"kind": "git", "url": "https://git.example.org/goat",
                                    "ref": "v1.0", "commit": "ab" * 20, "path": "docs"}},
                      handle)
        [found] = mcp_answers(out, [("search_docs", {"query": "herd", "collection": "goat",
                                                     "version": "1.0"})])
        self.assertRegex(found.content[0].text.partition("\n")[0], "^" + re.escape(
            "goat@1.0 · git https://git.example.org/goat @v1.0 commit abababababab docs/ · "
            "build date not recorded · corpus ") + "[0-9a-f]{12}$")
        # None at all (a build before any was written): where its pages are published.
        os.remove(path)
        [found] = mcp_answers(out, [("search_docs", {"query": "herd", "collection": "goat",
                                                     "version": "1.0"})])
        self.assertIn(f"goat@1.0 · source not recorded, pages at {BASE} · build date not "
                      "recorded", found.content[0].text)
        # What is shown to callers is refused when it is not an object of entries.
        bad = os.path.join(temporary_directory(self), "bad")
        shutil.copytree(out, bad)
        with open(os.path.join(bad, "provenance.json"), "w", encoding="utf-8") as handle:
            handle.write('{"goat/1.0": "a string"}')
        with self.assertRaisesRegex(SnapshotError, "provenance.json: not an object of entries"):
            load_snapshot(bad)


if __name__ == "__main__":
    unittest.main()
