"""`retrieval mcp`, driven by the MCP SDK's own client over stdio and over Streamable HTTP.

Each transport gets one real child process (`python -m retrieval mcp --snapshot ...`) serving a
snapshot of two collections under a keys file; the caller's key reads only `default`. Needs the
`mcp` extra: skipped without it, except in CI (.ci/run installs it), where that is a failure.
"""

import asyncio
import http.client
import json
import os
import subprocess
import sys
import unittest
from contextlib import asynccontextmanager

import requests

from retrieval.core import digests
from retrieval.core.snapshot import load_snapshot
from retrieval.core.verify import verify_passage
from retrieval.http.auth import add_key
from retrieval.http.errors import CollectionNotFound, PassageNotFound, Unauthenticated
from retrieval.testing import subprocess_env
from tests.support import ROOT, WAIT_S, class_temporary_directory, require_module, start_server
from tests.test_collections import snapshot_with

TIER = "server"

QUESTION = "Will write_text replace the contents of an existing file?"
TOOLS = {"search_docs", "read_passage", "list_docs", "retrieve", "resolve_library",
         "diff_versions", "lookup_api"}
# The tools answering in the compact view unless the call says verbose.
VIEWED = {"search_docs", "read_passage", "retrieve"}
VERBOSE = {"verbose": True}
# A JSON snapshot records neither where its documentation came from nor when it was built.
NOT_KNOWN = "default@3.12 · source and build date not known · corpus "
CHILD_ENV = {"RETRIEVAL_ACCESS_LOG": "false"}


def error_text(error) -> str:
    """Return a refusal's text as a tool error carries it: the service's own error body."""
    return json.dumps(error.to_body(), separators=(",", ":"))


def without_provenance(value: dict) -> dict:
    """Return a tool's JSON answer without the provenance it adds to the service's document."""
    return {key: item for key, item in value.items() if key != "provenance"}


def compact_passages(text: str) -> list:
    """Return the (citation, text) of each numbered passage of a compact view, in order."""
    blocks = text.split("\n\n")[1:]
    for number, block in enumerate(blocks, 1):
        assert block.startswith(f"[{number}] "), block
    return [tuple(block.partition(" ")[2].partition("\n")[::2]) for block in blocks]


class McpFixture:
    """A two-collection snapshot, a keys file, and the ids the tests need."""

    @classmethod
    def make_fixture(cls):
        tmp = class_temporary_directory(cls)
        cls.keys_file = os.path.join(tmp, "keys.json")
        cls.public = add_key(cls.keys_file, "public", ["default"])
        cls.snapshot = snapshot_with(tmp, "both")
        snapshot = load_snapshot(cls.snapshot)
        cls.passages = {p.passage_id: p for p in snapshot.passages}
        cls.internal_id = next(p.passage_id for p in snapshot.passages
                               if p.collection == "internal")


class McpSession(McpFixture):
    """The checks both transports must pass; `connect()` yields a connected SDK client."""

    def run_session(self, check):
        async def scenario():
            async with self.connect() as client:
                await check(client)

        asyncio.run(asyncio.wait_for(scenario(), WAIT_S * 3))

    async def call(self, client, name, arguments):
        return await client.call_tool(name, arguments)

    def test_tools_resources_and_refusals(self):
        self.run_session(self._check_everything)

    async def _check_everything(self, client):
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        self.assertEqual(set(listed), TOOLS)
        for tool in listed.values():
            with self.subTest(tool=tool.name):
                self.assertTrue(tool.annotations.read_only_hint)
                self.assertEqual(tool.input_schema["type"], "object")
                self.assertFalse(tool.input_schema["additionalProperties"])
                if tool.name in VIEWED:  # text alone: clients show structured content instead
                    self.assertIsNone(tool.output_schema)
                    self.assertEqual(tool.input_schema["properties"]["verbose"]["default"],
                                     False)
                else:
                    self.assertEqual(tool.output_schema["type"], "object")
        self.assertEqual(listed["search_docs"].input_schema["properties"]["limit"],
                         {"type": "integer", "minimum": 1, "maximum": 20, "default": 5})
        # A version may be left out: the project's pin is read (issue 45).
        self.assertEqual(listed["search_docs"].input_schema["required"], ["query"])

        docs = await self.call(client, "list_docs", {})
        self.assertFalse(docs.is_error)
        self.assertEqual([c["collection"] for c in docs.structured_content["collections"]],
                         ["default"])  # the key's only: internal is not named
        [line] = docs.structured_content["provenance"]
        self.assertTrue(line.startswith(NOT_KNOWN), line)

        found = await self.call(client, "search_docs", {
            "query": "write_text file", "version": "3.12", "limit": 3, **VERBOSE})
        self.assertFalse(found.is_error, found.content)
        hits = found.structured_content["hits"]
        self.assertTrue(0 < len(hits) <= 3)
        for hit in hits:
            passage = self.passages[hit["passage_id"]]
            self.assertEqual(hit["text"], passage.text)  # verbatim, nothing appended
            self.assertEqual(hit["text_sha256"], digests.text_sha256(hit["text"]))
        self.assertEqual(json.loads(found.content[0].text), found.structured_content)
        self.assertTrue(found.structured_content["provenance"].startswith(NOT_KNOWN))

        # The byte budget is exact: the first text fits to the byte, one byte less fits none.
        first = hits[0]["byte_count"]
        exact = await self.call(client, "search_docs", {
            "query": "write_text file", "version": "3.12", "limit": 3, "max_text_bytes": first,
            **VERBOSE})
        self.assertEqual([("text" in hit) for hit in exact.structured_content["hits"]][:1],
                         [True])
        self.assertEqual(exact.structured_content["text_bytes"], first)
        short = await self.call(client, "search_docs", {
            "query": "write_text file", "version": "3.12", "max_text_bytes": first - 1,
            **VERBOSE})
        self.assertEqual(short.structured_content["text_bytes"], 0)
        self.assertFalse(any("text" in hit for hit in short.structured_content["hits"]))

        passage_id = hits[0]["passage_id"]
        read = await self.call(client, "read_passage", {"passage_id": passage_id, **VERBOSE})
        self.assertFalse(read.is_error)
        self.assertEqual(read.structured_content["text"], self.passages[passage_id].text)
        self.assertEqual(read.structured_content["text_sha256"],
                         self.passages[passage_id].text_sha256)

        run = await self.call(client, "retrieve", {"question": QUESTION, "version": "3.12",
                                                   "max_source_bytes": 300, **VERBOSE})
        self.assertFalse(run.is_error, run.content)
        result = run.structured_content
        self.assertIn(result["status"], ("completed", "incomplete", "limited"))
        self.assertLessEqual(result["usage"]["delivered_source_bytes"], 300)
        self.assertEqual(sum(item["byte_count"] for item in result["evidence"]),
                         result["usage"]["delivered_source_bytes"])
        for item in result["evidence"]:
            self.assertEqual(item["text"], self.passages[item["passage_id"]].text)
        self.assertNotIn("trace", result)

        # A malformed call is refused with the service's invalid_request, nothing coerced.
        bad = await self.call(client, "search_docs",
                              {"query": "x", "version": "3.12", "limit": 21})
        self.assertTrue(bad.is_error)
        self.assertEqual(json.loads(bad.content[0].text)["error"]["code"], "invalid_request")

        # Hidden answers exactly like missing: the same error, byte for byte.
        for name, arguments in (
                ("search_docs", {"query": "backup", "version": "3.12"}),
                ("retrieve", {"question": "backup", "version": "3.12"})):
            with self.subTest(tool=name):
                hidden = await self.call(client, name, dict(arguments, collection="internal"))
                missing = await self.call(client, name, dict(arguments, collection="nope"))
                self.assertTrue(hidden.is_error)
                # MCP's own tools and the caller's collections, never an HTTP route (issue 45).
                error = json.loads(hidden.content[0].text)["error"]
                self.assertEqual(error, {"code": CollectionNotFound.code, "message": (
                    "no such collection (or this key may not read it): resolve_library finds "
                    "a library's collection by its name, list_docs lists yours; yours: "
                    "default")})
                self.assertEqual(hidden.model_dump(), missing.model_dump())
        hidden = await self.call(client, "read_passage", {"passage_id": self.internal_id})
        missing = await self.call(client, "read_passage", {"passage_id": "0" * 64})
        self.assertEqual(hidden.content[0].text, error_text(PassageNotFound()))
        self.assertEqual(hidden.model_dump(), missing.model_dump())

        resources = (await client.list_resources()).resources
        self.assertEqual([r.uri for r in resources], ["docs://corpus"])
        templates = (await client.list_resource_templates()).resource_templates
        self.assertEqual([t.uri_template for t in templates], ["docs://passages/{passage_id}"])
        corpus = await client.read_resource("docs://corpus")
        # The resources are the service's documents, as they were: no provenance added.
        self.assertEqual(json.loads(corpus.contents[0].text),
                         without_provenance(docs.structured_content))
        passage = await client.read_resource(f"docs://passages/{passage_id}")
        self.assertEqual(json.loads(passage.contents[0].text),
                         without_provenance(read.structured_content))
        with self.assertRaises(Exception) as refused:
            await client.read_resource(f"docs://passages/{self.internal_id}")
        with self.assertRaises(Exception) as absent:
            await client.read_resource(f"docs://passages/{'0' * 64}")
        self.assertEqual(str(refused.exception), str(absent.exception))


    def test_the_compact_view_is_citations_and_text_and_loses_nothing_verify_needs(self):
        self.run_session(self._check_compact_view)

    async def _check_compact_view(self, client):
        for name, arguments, items in (
                ("search_docs", {"query": "write_text file", "version": "3.12", "limit": 3},
                 "hits"),
                ("retrieve", {"question": QUESTION, "version": "3.12"}, "evidence")):
            with self.subTest(tool=name):
                viewed = await self.call(client, name, arguments)
                verbose = await self.call(client, name, dict(arguments, **VERBOSE))
                self.assertFalse(viewed.is_error, viewed.content)
                # Text alone, so a client shows the model the view, not the JSON.
                self.assertIsNone(viewed.structured_content)
                [content] = viewed.content
                document = verbose.structured_content
                self.assertEqual(content.text.partition("\n")[0], document["provenance"])
                shown = compact_passages(content.text)
                self.assertEqual(len(shown), len(document[items]))
                for (cited, text), item in zip(shown, document[items], strict=True):
                    # Each passage: where it is, and the id every digest is one call away by.
                    self.assertTrue(cited.endswith(" · " + item["passage_id"]), cited)
                    self.assertIn(item.get("url") or f"{item['source_id']}:", cited)
                    self.assertEqual(text, item["text"])  # verbatim
                    self.assertNotIn(item["text_sha256"], content.text)
                    read = await self.call(client, "read_passage",
                                           {"passage_id": cited.rpartition(" · ")[2]})
                    self.assertIsNone(read.structured_content)
                    provenance, read_cited, read_text = read.content[0].text.split("\n", 2)
                    self.assertEqual((provenance, read_text), (document["provenance"], text))
                    self.assertTrue(read_cited.endswith(" · " + item["passage_id"]))
                    full = await self.call(client, "read_passage", {
                        "passage_id": item["passage_id"], **VERBOSE})
                    verify_passage(full.structured_content)  # raises unless it checks
                    self.assertEqual(full.structured_content["text"], text)
        # verbose is true or false, nothing else is taken for it.
        bad = await self.call(client, "retrieve",
                              {"question": QUESTION, "version": "3.12", "verbose": "yes"})
        self.assertTrue(bad.is_error)


class StdioTest(McpSession, unittest.TestCase):
    """The SDK client launches the server as an MCP client application would."""

    @classmethod
    def setUpClass(cls):
        cls.make_fixture()

    def setUp(self):
        require_module(self, "mcp", "mcp")

    @asynccontextmanager
    async def connect(self):
        from mcp import Client
        from mcp.client.stdio import StdioServerParameters

        parameters = StdioServerParameters(
            command=sys.executable, cwd=ROOT, env=subprocess_env(**CHILD_ENV),
            args=["-m", "retrieval", "mcp", "--snapshot", self.snapshot,
                  "--keys-file", self.keys_file, "--api-key", self.public])
        async with Client(parameters) as client:
            yield client


class HttpTest(McpSession, unittest.TestCase):
    """Streamable HTTP on a loopback port; each MCP request's own bearer is the caller."""

    @classmethod
    def setUpClass(cls):
        cls.make_fixture()

    def setUp(self):
        require_module(self, "mcp", "mcp")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "retrieval", "mcp", "--transport", "http", "--port", "0",
             "--snapshot", self.snapshot, "--keys-file", self.keys_file],
            cwd=ROOT, env=subprocess_env(**CHILD_ENV), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.addCleanup(self._stop)
        line = self.process.stderr.readline()  # blocks until the one start-up line (or exit)
        self.assertIn("listening on http://127.0.0.1:", line)
        self.url = line.rsplit(" ", 1)[1].strip()

    def _stop(self):
        self.process.terminate()
        self.assertEqual(self.process.wait(timeout=WAIT_S), 0)
        self.process.stderr.close()

    @asynccontextmanager
    async def connect(self, key=None):
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        http = create_mcp_http_client(headers={"Authorization": f"Bearer {key or self.public}"})
        async with http, Client(streamable_http_client(self.url, http_client=http)) as client:
            yield client

    def test_a_busy_port_is_one_line(self):
        port = self.url.split("//")[1].split("/")[0].rsplit(":", 1)[1]
        done = subprocess.run(
            [sys.executable, "-m", "retrieval", "mcp", "--transport", "http", "--port", port,
             "--snapshot", self.snapshot, "--keys-file", self.keys_file],
            cwd=ROOT, env=subprocess_env(**CHILD_ENV), stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=WAIT_S * 3)
        self.assertEqual((done.returncode, done.stdout), (2, ""))
        self.assertEqual(done.stderr, f"retrieval: cannot listen on 127.0.0.1:{port}: Address "
                                      "already in use\n")

    def test_a_request_without_a_key_gets_the_services_401(self):
        host, port = self.url.split("//")[1].split("/")[0].split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=WAIT_S)
        self.addCleanup(connection.close)
        connection.request("POST", "/mcp", body=b"{}",
                           headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        self.assertEqual(response.status, 401)
        self.assertEqual(json.loads(response.read()), Unauthenticated().to_body())
        self.assertEqual(response.getheader("WWW-Authenticate"), "Bearer")


class FrontingTest(unittest.TestCase):
    """`--url`: the tools answer from a running service, through the verifying client."""

    def setUp(self):
        require_module(self, "mcp", "mcp")
        self.server = start_server(self)

    def test_every_tool_goes_to_the_service(self):
        from mcp import Client
        from mcp.client.stdio import StdioServerParameters

        parameters = StdioServerParameters(
            command=sys.executable, cwd=ROOT, env=subprocess_env(**CHILD_ENV),
            args=["-m", "retrieval", "mcp", "--url", self.server.base_url])
        corpus = requests.get(self.server.base_url + "/corpus", timeout=WAIT_S).json()

        async def check():
            async with Client(parameters) as client:
                docs = await client.call_tool("list_docs", {})
                self.assertEqual(without_provenance(docs.structured_content), corpus)
                run = await client.call_tool("retrieve", {"question": QUESTION, "version": "3.12",
                                                          **VERBOSE})
                self.assertEqual(run.structured_content["status"], "completed")
                # The HTTP API says nothing of where the snapshot's documentation came from.
                self.assertTrue(run.structured_content["provenance"].startswith(NOT_KNOWN))
                passage_id = run.structured_content["evidence"][0]["passage_id"]
                read = await client.call_tool("read_passage", {"passage_id": passage_id,
                                                               **VERBOSE})
                self.assertEqual(read.structured_content["text"],
                                 run.structured_content["evidence"][0]["text"])
                arguments = {"query": "write_text", "version": "3.12"}
                search = await client.call_tool("search_docs", dict(arguments, **VERBOSE))
                self.assertEqual(without_provenance(search.structured_content), requests.post(
                    self.server.base_url + "/search", json=arguments, timeout=WAIT_S).json())
                viewed = await client.call_tool("search_docs", arguments)
                self.assertEqual(viewed.content[0].text.partition("\n")[0],
                                 search.structured_content["provenance"])

        asyncio.run(asyncio.wait_for(check(), WAIT_S * 3))


if __name__ == "__main__":
    unittest.main()
