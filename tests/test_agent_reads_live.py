"""What an agent reads, over the wire: max_tokens and whole units through the client against a
real server and through MCP with the official SDK.

The in-process contracts are tests/test_tokens.py and tests/test_whole_units.py; here each surface
a caller uses passes the budget on and hands back what the service counted and where a cut unit
goes on.
"""

import asyncio
import json
import math
import sys
import unittest

from retrieval import client as rc
from retrieval.core.snapshot import default_snapshot_path
from retrieval.integrations import RetrievalSettings, retrieve_passages
from retrieval.scenarios import QUESTION
from retrieval.testing import subprocess_env
from tests.support import ROOT, WAIT_S, require_module, start_server
from tests.test_whole_units import HERD_URL, build_herd
from tests.test_whole_units import QUESTION as HERD_QUESTION

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
        # The framework adapters pass their allowances on as they are.
        passages = retrieve_passages(RetrievalSettings(server.base_url, version="3.12",
                                                       allowances={"max_tokens": 40}), QUESTION)
        self.assertEqual([p.text for p in passages], [result.evidence[0].text])


def mcp_session(snapshot, check):
    """Run check(client) in an SDK client session with `retrieval mcp` on snapshot over stdio."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    parameters = StdioServerParameters(
        command=sys.executable, cwd=ROOT, env=subprocess_env(RETRIEVAL_ACCESS_LOG="false"),
        args=["-m", "retrieval", "mcp", "--snapshot", str(snapshot)])

    async def scenario():
        async with Client(parameters) as client:
            return await check(client)

    return asyncio.run(asyncio.wait_for(scenario(), WAIT_S * 3))


class McpTokensTest(unittest.TestCase):
    def setUp(self):
        require_module(self, "mcp", "mcp")

    def session(self, check):
        return mcp_session(default_snapshot_path(), check)

    def test_retrieve_and_search_docs_take_max_tokens(self):
        async def check(client):
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            run = await client.call_tool("retrieve", {"question": QUESTION, "version": "3.12",
                                                      "max_tokens": 40, "verbose": True})
            found = await client.call_tool("search_docs", {"query": "file text",
                                                           "version": "3.12", "max_tokens": 40,
                                                           "verbose": True})
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


class McpWholeUnitsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.snapshot = build_herd(cls)

    def setUp(self):
        require_module(self, "mcp", "mcp")

    def test_retrieve_gives_the_cut_unit_whole_or_says_where_it_goes_on(self):
        async def check(client):
            whole = await client.call_tool("retrieve", {"question": HERD_QUESTION,
                                                        "version": "1.0", "verbose": True})
            cut = await client.call_tool("retrieve", {"question": HERD_QUESTION,
                                                      "version": "1.0",
                                                      "max_source_bytes": 2048, "verbose": True})
            viewed = await client.call_tool("retrieve", {"question": HERD_QUESTION,
                                                         "version": "1.0",
                                                         "max_source_bytes": 2048})
            evidence = cut.structured_content["evidence"]
            rest = await client.call_tool("read_passage", {
                "passage_id": evidence[0]["next_passage_id"], "verbose": True})
            return whole.structured_content, evidence, rest.structured_content, viewed

        whole, evidence, rest, viewed = mcp_session(self.snapshot, check)
        # The compact view says where the cut piece goes on, and by which handle.
        self.assertIn(f" · cut: continues at line 15, read_passage "
                      f"{evidence[0]['next_passage_id']}\n", viewed.content[0].text)
        pieces = [item for item in whole["evidence"] if item["url"] == HERD_URL]
        self.assertEqual([(p["start_line"], p["truncated"]) for p in pieces],
                         [(5, True), (15, True)])
        self.assertEqual(pieces[0]["next_passage_id"], pieces[1]["passage_id"])
        self.assertEqual((evidence[0]["url"], evidence[0]["truncated"],
                          evidence[0]["next_start_line"]), (HERD_URL, True, 15))
        self.assertEqual((rest["passage_id"], rest["start_line"], rest["text"]),
                         (pieces[1]["passage_id"], 15, pieces[1]["text"]))


if __name__ == "__main__":
    unittest.main()
