"""max_tokens over the wire: the client against a real server, MCP through the official SDK.

The in-process contract is tests/test_tokens.py; here each surface a caller uses passes the
budget on and hands back what the service counted.
"""

import asyncio
import json
import math
import sys
import unittest

from retrieval import client as rc
from retrieval.core.snapshot import default_snapshot_path
from retrieval.scenarios import QUESTION
from retrieval.testing import subprocess_env
from tests.support import ROOT, WAIT_S, require_module, start_server

TIER = "server"


class ClientTokensTest(unittest.TestCase):
    def test_the_client_sends_max_tokens_and_types_what_came_back(self):
        server = start_server(self)
        with rc.RetrievalClient(server.base_url) as client:
            plain = client.retrieve(QUESTION, "3.12")
            result = client.retrieve(QUESTION, "3.12", max_tokens=40)
        self.assertIsNone(plain.limits.max_tokens)
        self.assertIsNone(plain.usage.reserved_tokens)
        first = result.evidence[0].byte_count
        self.assertEqual((result.status, result.reason), ("limited", "max_tokens"))
        self.assertEqual(result.limits.max_tokens, 40)
        self.assertEqual((result.usage.reserved_tokens, result.usage.delivered_tokens),
                         (math.ceil(first / 4),) * 2)
        denied = result.trace[-1]
        self.assertEqual((denied.reason, denied.preflight_tokens),
                         ("max_tokens", math.ceil(denied.preflight_source_bytes / 4)))
        self.assertIn(f"tokens {math.ceil(first / 4)}/40", rc.summarize(result))


class McpTokensTest(unittest.TestCase):
    def setUp(self):
        require_module(self, "mcp", "mcp")

    def session(self, check):
        from mcp import Client
        from mcp.client.stdio import StdioServerParameters

        parameters = StdioServerParameters(
            command=sys.executable, cwd=ROOT, env=subprocess_env(RETRIEVAL_ACCESS_LOG="false"),
            args=["-m", "retrieval", "mcp", "--snapshot", str(default_snapshot_path())])

        async def scenario():
            async with Client(parameters) as client:
                return await check(client)

        return asyncio.run(asyncio.wait_for(scenario(), WAIT_S * 3))

    def test_retrieve_and_search_docs_take_max_tokens(self):
        async def check(client):
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            run = await client.call_tool("retrieve", {"question": QUESTION, "version": "3.12",
                                                      "max_tokens": 40})
            found = await client.call_tool("search_docs", {"query": "file text",
                                                           "version": "3.12", "max_tokens": 40})
            refused = await client.call_tool("retrieve", {"question": QUESTION,
                                                          "version": "3.12", "max_tokens": -1})
            return listed, run, found, refused

        listed, run, found, refused = self.session(check)
        for name in ("retrieve", "search_docs"):
            schema = listed[name].input_schema["properties"]["max_tokens"]
            self.assertEqual((schema["type"], schema["minimum"]), ("integer", 0))
        answer = run.structured_content
        self.assertEqual((answer["status"], answer["reason"]), ("limited", "max_tokens"))
        self.assertEqual(answer["limits"]["max_tokens"], 40)
        first = answer["evidence"][0]["byte_count"]
        self.assertEqual(answer["usage"]["reserved_tokens"], math.ceil(first / 4))
        hits = found.structured_content
        self.assertLessEqual(hits["text_tokens"], 40)
        self.assertEqual(hits["text_tokens"],
                         sum(math.ceil(hit["byte_count"] / 4) for hit in hits["hits"]
                             if "text" in hit))
        self.assertTrue(refused.is_error)
        error = json.loads(refused.content[0].text)["error"]
        self.assertEqual((error["code"], error["issues"][0]["path"]),
                         ("invalid_request", ["max_tokens"]))


if __name__ == "__main__":
    unittest.main()
