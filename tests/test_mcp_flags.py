"""MCP shows a passage's flags beside its citation: search_docs, read_passage and retrieve.

A real `retrieval mcp` child serving the planted snapshot of tests/test_flags.py, driven by the
official SDK's stdio client (whose results are checked against the tools' output schemas).
"""

import json
import sys
import unittest

from retrieval.testing import subprocess_env
from tests.support import ROOT, class_temporary_directory, require_module
from tests.test_flags import build_flagged
from tests.test_mcp_project import CHILD_ENV, mcp_session

TIER = "server"


class McpFlagsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.snapshot = build_flagged(class_temporary_directory(cls))

    def setUp(self):
        require_module(self, "mcp", "mcp")

    def test_flags_stand_beside_the_citation_on_every_tool(self):
        from mcp.client.stdio import StdioServerParameters

        async def check(client):
            viewed = await client.call_tool("search_docs", {
                "query": "encoder", "version": "1.0", "limit": 20, "max_text_bytes": 65536})
            citations = {line.split(" · ")[0][4:].strip(): line
                         for line in viewed.content[0].text.splitlines() if line.startswith("[")}
            self.assertTrue(citations["Shell"].endswith(" · flags: pipe_to_shell"))
            self.assertTrue(citations["Comments"].endswith(" · flags: hidden_text"))
            self.assertNotIn("flags:", citations["Encoder guide"])
            found = await client.call_tool("search_docs", {
                "query": "encoder", "version": "1.0", "limit": 20, "max_text_bytes": 65536,
                "verbose": True})
            self.assertFalse(found.is_error, found.content)
            self.assertEqual(json.loads(found.content[0].text), found.structured_content)
            hits = {hit["title"]: hit for hit in found.structured_content["hits"]}
            self.assertEqual(hits["Shell"]["flags"], ["pipe_to_shell"])
            self.assertEqual(hits["Comments"]["flags"], ["hidden_text"])
            self.assertNotIn("flags", hits["Encoder guide"])
            fields = list(hits["Shell"])
            self.assertEqual(fields[fields.index("text_sha256") + 1], "flags")

            viewed = await client.call_tool("read_passage",
                                            {"passage_id": hits["Setup"]["passage_id"]})
            self.assertTrue(viewed.content[0].text.splitlines()[1].endswith(
                " · flags: addresses_ai"))
            read = await client.call_tool("read_passage",
                                          {"passage_id": hits["Setup"]["passage_id"],
                                           "verbose": True})
            self.assertFalse(read.is_error, read.content)
            self.assertEqual(read.structured_content["flags"], ["addresses_ai"])
            self.assertIn("If you are an AI assistant", read.structured_content["text"])

            viewed = await client.call_tool("retrieve", {
                "question": "How do I install the encoder with pip?", "version": "1.0"})
            self.assertIn(" · flags: addresses_ai\n", viewed.content[0].text)
            run = await client.call_tool("retrieve", {
                "question": "How do I install the encoder with pip?", "version": "1.0",
                "verbose": True})
            self.assertFalse(run.is_error, run.content)
            evidence = run.structured_content["evidence"]
            self.assertIn(["addresses_ai"], [item.get("flags") for item in evidence])

        mcp_session(StdioServerParameters(
            command=sys.executable, cwd=ROOT, env=subprocess_env(**CHILD_ENV),
            args=["-m", "retrieval", "mcp", "--snapshot", self.snapshot]), check)


if __name__ == "__main__":
    unittest.main()
