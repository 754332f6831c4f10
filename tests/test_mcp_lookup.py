"""MCP's lookup_api and its version notes, through the official SDK over stdio.

The two-version library of tests/test_version_notes.py, served by a real `retrieval mcp` child
as an MCP client application starts it.
"""

import sys
import unittest

from retrieval.testing import subprocess_env
from tests.support import ROOT, class_temporary_directory, require_module
from tests.test_mcp_project import CHILD_ENV, mcp_session
from tests.test_version_notes import build_versions

TIER = "server"


class LookupApiTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.snapshot = build_versions(class_temporary_directory(cls))

    def setUp(self):
        require_module(self, "mcp", "mcp")

    def test_lookup_api_says_deprecation_first_and_absence_with_the_versions(self):
        from mcp.client.stdio import StdioServerParameters

        async def check(client):
            answers = {}
            for name, version in (("old_greet", "1.0"), ("old_greet", "2.0"),
                                  ("nowhere", "2.0")):
                answers[name, version] = await client.call_tool("lookup_api", {
                    "name": name, "collection": "pkg", "version": version})
            answers["search"] = await client.call_tool("search_docs", {
                "query": "greet", "collection": "pkg", "version": "1.0", "verbose": True})
            answers["viewed"] = await client.call_tool("search_docs", {
                "query": "greet", "collection": "pkg", "version": "1.0"})
            answers["absent"] = await client.call_tool("search_docs", {
                "query": "old_greet", "collection": "pkg", "version": "2.0"})
            answers["noted"] = await client.call_tool("search_docs", {
                "query": "old_greet", "collection": "pkg", "version": "1.0"})
            answers["missing"] = await client.call_tool("lookup_api", {
                "name": "greet", "collection": "pkg", "version": "9.9"})
            return answers

        answers = mcp_session(StdioServerParameters(
            command=sys.executable, cwd=ROOT, env=subprocess_env(**CHILD_ENV),
            args=["-m", "retrieval", "mcp", "--snapshot", self.snapshot]), check)
        deprecated = answers["old_greet", "1.0"].structured_content
        self.assertEqual(list(deprecated)[2:4], ["status", "notes"])
        self.assertEqual((deprecated["status"], deprecated["notes"][0]["version"]),
                         ("deprecated", "1.0"))
        absent = answers["old_greet", "2.0"].structured_content
        self.assertEqual((absent["status"], absent["hits"], absent["not_in_version"]["versions"]),
                         ("not_in_version", [], ["1.0"]))
        self.assertEqual({hit["version"] for hit in absent["not_in_version"]["hits"]}, {"1.0"})
        self.assertEqual(answers["nowhere", "2.0"].structured_content["status"], "not_found")
        hits = answers["search"].structured_content["hits"]
        self.assertIn({"version": "1.0", "text": "The *name* may be empty."},
                      next(hit for hit in hits if hit["url"].endswith("#pkg.greet"))["changed"])
        # The compact view cites a passage's notes and says what the version does not document.
        greet = next(line for line in answers["viewed"].content[0].text.splitlines()
                     if line.startswith("[") and "#pkg.greet " in line)
        self.assertIn("changed 1.0", greet)
        self.assertIn("old_greet is not documented in this version; documented in 1.0",
                      answers["absent"].content[0].text)
        # A search for a name the version documents as deprecated says so first.
        noted = answers["noted"].content[0].text.splitlines()
        self.assertEqual(noted[1], "this version documents it as deprecated 1.0: Use "
                         f":func:`greet` instead. ({deprecated['notes'][0]['passage_id']})")
        self.assertIn(" · ", deprecated["provenance"])
        self.assertTrue(answers["missing"].is_error)
        self.assertIn("version_not_found", answers["missing"].content[0].text)


if __name__ == "__main__":
    unittest.main()
