"""MCP over a project's snapshot: resolve_library, the pins, errors in MCP's terms.

Each server is a real child started as an MCP client application starts it, driven by the
official SDK's stdio client.
"""

import asyncio
import json
import re
import sys
import unittest

from retrieval.testing import subprocess_env
from tests.support import ROOT, WAIT_S, class_temporary_directory, require_module
from tests.test_project_serving import BASE, build_project_snapshot

TIER = "server"

CHILD_ENV = {"RETRIEVAL_ACCESS_LOG": "false"}
TOOLS = {"search_docs", "read_passage", "list_docs", "retrieve", "resolve_library",
         "diff_versions", "lookup_api"}


def mcp_session(parameters, check):
    """Run check(client) in an SDK client session with the server these parameters start."""
    from mcp import Client

    async def scenario():
        async with Client(parameters) as client:
            return await check(client)

    return asyncio.run(asyncio.wait_for(scenario(), WAIT_S * 3))


def error_of(result) -> dict:
    assert result.is_error, result
    return json.loads(result.content[0].text)["error"]


class ProjectToolsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = class_temporary_directory(cls)
        cls.plain, cls.snapshot = build_project_snapshot(cls.root)

    def setUp(self):
        require_module(self, "mcp", "mcp")

    def session(self, snapshot, check):
        from mcp.client.stdio import StdioServerParameters

        return mcp_session(StdioServerParameters(
            command=sys.executable, cwd=ROOT, env=subprocess_env(**CHILD_ENV),
            args=["-m", "retrieval", "mcp", "--snapshot", snapshot]), check)

    def test_resolve_library_list_docs_and_the_pin_by_default(self):
        async def check(client):
            listed = {tool.name for tool in (await client.list_tools()).tools}
            self.assertEqual(listed, TOOLS)
            resolved = {}
            for name in ("Flask", "bs4", "yaml", "sklearn", "SQLAlchemy", "left_out", "lib"):
                result = await client.call_tool("resolve_library", {"name": name})
                resolved[name] = result
            docs = (await client.call_tool("list_docs", {})).structured_content
            found = await client.call_tool("search_docs", {"query": "route", "collection": "Flask",
                                                           "verbose": True})
            run = await client.call_tool("retrieve", {"question": "fit", "collection": "sklearn",
                                                      "verbose": True})
            viewed = await client.call_tool("retrieve", {"question": "fit",
                                                         "collection": "sklearn"})
            return resolved, docs, found, run, viewed

        resolved, docs, found, run, viewed = self.session(self.snapshot, check)
        flask = resolved["Flask"].structured_content
        self.assertEqual((flask["collection"], flask["version"], flask["versions"],
                          flask["pinned"]), ("flask", "2.2.2", ["2.2.2", "2.3.0"], True))
        self.assertEqual((flask["pin"]["source"], flask["pin"]["units"]), ("pypi", 2))
        for name, collection, version in (("bs4", "beautifulsoup4", "4.12.3"),
                                          ("yaml", "pyyaml", "6.0.1"),
                                          ("sklearn", "scikit-learn", "1.5.1")):
            answer = resolved[name].structured_content
            self.assertEqual((answer["collection"], answer["version"]), (collection, version))
        # Pinned, but nothing was built for it: answered, never passed over.
        left_out = resolved["left_out"].structured_content
        self.assertEqual((left_out["collection"], left_out["version"], left_out["pinned"]),
                         (None, None, True))
        self.assertEqual(left_out["pin"]["missing"], "no sdist, no repository, no site")
        # Held but not pinned: no version to read by default.
        lib = resolved["lib"].structured_content
        self.assertEqual((lib["version"], lib["pinned"], lib["versions"]),
                         (None, False, ["1.0.post1", "2.5.0b1"]))
        error = error_of(resolved["SQLAlchemy"])
        self.assertEqual(error["code"], "collection_not_found")
        self.assertIn("list_docs lists yours; yours: beautifulsoup4, certifi, flask",
                      error["message"])
        self.assertEqual([pin["name"] for pin in docs["project"]["pins"]][:2],
                         ["flask", "beautifulsoup4"])
        request = found.structured_content["request"]
        self.assertEqual((request["served_collection"], request["served_version"],
                          request["pinned"]), ("flask", "2.2.2", True))
        self.assertEqual({hit["version"] for hit in found.structured_content["hits"]}, {"2.2.2"})
        self.assertEqual({item["version"] for item in run.structured_content["evidence"]},
                         {"1.5.1"})
        # One provenance line per result: the version served, where from, when built, the id.
        line = run.structured_content["provenance"]
        self.assertRegex(line, r"^scikit-learn@1\.5\.1 · source not recorded, pages at "
                               + re.escape(BASE) + r"scikit-learn/1\.5\.1/ · "
                               r"built \d{4}-\d\d-\d\d · corpus [0-9a-f]{12}$")
        self.assertTrue(run.structured_content["corpus_id"].startswith(line[-12:]))
        self.assertEqual(viewed.content[0].text.partition("\n")[0], line)
        self.assertIn(line, docs["provenance"])
        # resolve_library: one line per version held.
        self.assertEqual([held.partition(" ")[0] for held in
                          resolved["sklearn"].structured_content["provenance"]],
                         ["scikit-learn@1.5.0", "scikit-learn@1.5.1", "scikit-learn@1.6.0rc1"])
        self.assertIn(line, resolved["sklearn"].structured_content["provenance"])
        self.assertEqual(left_out["provenance"], [])  # nothing built, nothing to say

    def test_every_error_names_mcp_tools_and_your_collections_never_a_route(self):
        async def check(client):
            return [await client.call_tool(name, arguments) for name, arguments in (
                ("search_docs", {"query": "route", "collection": "django", "version": "4.2"}),
                ("retrieve", {"question": "route", "version": "2.2.2"}),
                ("search_docs", {"query": "route", "collection": "flask", "version": "9.9"}),
                ("search_docs", {"query": "spin", "collection": "lib"}),
                ("search_docs", {"query": "spin", "collection": "lib", "version": "latest"}),
                ("resolve_library", {"name": "django"}))]

        missing, unnamed, version, unpinned, malformed, unresolved = self.session(
            self.snapshot, check)
        yours = "yours: beautifulsoup4, certifi, flask, lib, pyyaml, scikit-learn"
        for result in (missing, unnamed, version, unpinned, malformed, unresolved):
            message = error_of(result)["message"]
            self.assertNotIn("GET", message)
            self.assertNotIn("POST", message)
            self.assertNotIn("/corpus", message)
            self.assertNotIn("body.", message)
        self.assertEqual(error_of(missing)["message"], (
            "no such collection (or this key may not read it): resolve_library finds a "
            f"library's collection by its name, list_docs lists yours; {yours}"))
        self.assertEqual(error_of(unnamed)["message"], (
            "the call names no collection, and this snapshot has several and no default: pass "
            f"collection (resolve_library finds a library's); {yours}"))
        self.assertEqual(error_of(version)["versions"], ["2.2.2", "2.3.0"])
        self.assertIn("resolve_library and list_docs say", error_of(version)["message"])
        self.assertEqual(error_of(unpinned)["issues"][0]["path"], ["version"])
        self.assertIn("version is required (this collection has no pinned version",
                      error_of(unpinned)["message"])
        self.assertTrue(error_of(malformed)["message"].startswith(
            "the call is not valid: version must match ^"))
        self.assertIn(yours, error_of(unresolved)["message"])

    def test_without_a_project_resolve_library_reads_the_collections(self):
        async def check(client):
            return (await client.call_tool("resolve_library", {"name": "Scikit_Learn"}),
                    await client.call_tool("resolve_library", {"name": "certifi"}),
                    await client.call_tool("resolve_library", {"name": "sklearn"}),
                    (await client.call_tool("list_docs", {})).structured_content)

        scikit, certifi, alias, docs = self.session(self.plain, check)
        self.assertEqual((scikit.structured_content["collection"],
                          scikit.structured_content["version"]), ("scikit-learn", None))
        self.assertEqual(certifi.structured_content["version"], "2024.8.30")  # the only one
        self.assertEqual(error_of(alias)["code"], "collection_not_found")
        self.assertNotIn("project", docs)


if __name__ == "__main__":
    unittest.main()
