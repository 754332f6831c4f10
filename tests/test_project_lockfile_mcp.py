"""A lockfile of 20 pins, built by `retrieval project` and asked over MCP through the official SDK.

Twenty tiny distributions, generated here: fourteen on a find-links folder pip reads (ten
sdists, four pure wheels; PIP_NO_INDEX, PIP_CONFIG_FILE=/dev/null: no index, no network) and six
installed in a site-packages the command reads as the environment (--env), none on the index.
The requirements file spells their names as people do and pins PEP 440 versions of every kind.
The command and the MCP server run as a user runs them, in child processes; the agent's side is
the SDK's stdio client: every pin resolves by its name as written and by its import name, and a
search naming the collection alone is served at the pinned version and finds that pin's function.
"""

import json
import os
import sys
import unittest

from retrieval.testing import subprocess_env
from tests.package_fixtures import write_sdist, write_site_packages, write_wheel
from tests.support import ROOT, class_temporary_directory, require_module
from tests.test_cli import run
from tests.test_mcp_project import CHILD_ENV, mcp_session

TIER = "server"

WORDS = ("amber", "birch", "cedar", "dahlia", "ember", "fennel", "garnet", "hazel", "indigo",
         "juniper", "kelp", "lilac", "maple", "nutmeg", "olive", "pepper", "quartz", "russet",
         "sorrel", "thistle")
VERSIONS = ("1.0", "2.3.1", "0.9.2", "2024.8.30", "1.0.post1", "3.0.0rc1", "4.12.3", "0.1",
            "10.2", "2.5.0b1")
PYPI_SDISTS, PYPI_WHEELS = 10, 4  # the rest are installed only


def spelled(n: int) -> str:
    """The distribution's name as the requirements file writes it (PEP 503 normalises it)."""
    return ("Tiny_Lib.{:02d}", "tiny-lib-{:02d}", "TINY-LIB_{:02d}", "tiny.lib.{:02d}")[n % 4] \
        .format(n)


def module(n: int) -> str:
    word = WORDS[n]
    return (f'"""Tiny library {n}: the {word} helpers."""\n\n\n'
            f"def frobnicate_{word}(value):\n"
            f'    """Return value treated with {word}, as tiny library {n} does."""\n'
            f"    return value\n")


class LockfileOverMCPTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        base = class_temporary_directory(cls)
        links = os.path.join(base, "links")
        os.makedirs(links)
        installed = {}
        for n in range(20):
            dist, version = f"tiny-lib-{n:02d}", VERSIONS[n % len(VERSIONS)]
            files = {f"tinymod{n:02d}/__init__.py": module(n)}
            if n < PYPI_SDISTS:
                write_sdist(links, dist, version, files)
            elif n < PYPI_SDISTS + PYPI_WHEELS:
                write_wheel(links, dist, version, files)
            else:
                installed[dist] = (version, files)
        env = write_site_packages(os.path.join(base, "venv", "site"), installed)
        project = os.path.join(base, "app")
        os.makedirs(project)
        with open(os.path.join(project, "requirements.txt"), "w", encoding="utf-8") as out:
            out.write("# the app's pins\n" + "".join(
                f"{spelled(n)}=={VERSIONS[n % len(VERSIONS)]}\n" for n in range(20)))
        cls.snapshot = os.path.join(base, "snapshot")
        cls.built = run(
            [sys.executable, "-m", "retrieval", "project", project, "--out", cls.snapshot,
             "--env", env, "--fetch-cache", os.path.join(base, "cache"), "--lexical"],
            env=subprocess_env(PIP_CONFIG_FILE=os.devnull, PIP_NO_INDEX="1",
                               PIP_FIND_LINKS=links, HOME=os.path.join(base, "home")))

    def setUp(self):
        require_module(self, "mcp", "mcp")
        self.assertEqual(self.built.returncode, 0, self.built.stderr)

    def test_every_pin_is_built_from_its_source(self):
        last_rows = self.built.stdout.splitlines()[-2]
        self.assertTrue(last_rows.startswith("20 of 20 built"), self.built.stdout)
        with open(os.path.join(self.snapshot, "project.json"), encoding="utf-8") as document:
            pins = json.load(document)["pins"]
        self.assertEqual([(pin["name"], pin["version"]) for pin in pins],
                         [(f"tiny-lib-{n:02d}", VERSIONS[n % len(VERSIONS)]) for n in range(20)])
        self.assertEqual([pin["source"] for pin in pins],
                         ["pypi"] * (PYPI_SDISTS + PYPI_WHEELS)
                         + ["env"] * (20 - PYPI_SDISTS - PYPI_WHEELS))

    def test_each_pin_resolves_and_is_served_at_its_version_over_mcp(self):
        async def check(client):
            docs = (await client.call_tool("list_docs", {})).structured_content
            answers = []
            for n in range(20):
                by_name = await client.call_tool("resolve_library", {"name": spelled(n)})
                by_import = await client.call_tool("resolve_library",
                                                   {"name": f"tinymod{n:02d}"})
                found = await client.call_tool("search_docs", {"query": f"{WORDS[n]} value",
                                                               "collection": spelled(n),
                                                               "verbose": True})
                answers.append((by_name, by_import, found))
            return docs, answers

        from mcp.client.stdio import StdioServerParameters

        docs, answers = mcp_session(StdioServerParameters(
            command=sys.executable, cwd=ROOT, env=subprocess_env(**CHILD_ENV),
            args=["-m", "retrieval", "mcp", "--snapshot", self.snapshot]), check)
        self.assertEqual([(pin["name"], pin["version"]) for pin in docs["project"]["pins"]],
                         [(f"tiny-lib-{n:02d}", VERSIONS[n % len(VERSIONS)]) for n in range(20)])
        for n, (by_name, by_import, found) in enumerate(answers):
            collection, version = f"tiny-lib-{n:02d}", VERSIONS[n % len(VERSIONS)]
            for result in (by_name, by_import):
                self.assertFalse(result.is_error, result)
                answer = result.structured_content
                self.assertEqual((answer["collection"], answer["version"], answer["pinned"]),
                                 (collection, version, True))
            self.assertFalse(found.is_error, found)
            request = found.structured_content["request"]
            # The collection read is echoed where the call named it otherwise.
            self.assertEqual((request.get("served_collection", request["collection"]),
                              request["served_version"], request["pinned"]),
                             (collection, version, True))
            self.assertEqual("served_collection" in request, spelled(n) != collection)
            hits = found.structured_content["hits"]
            self.assertEqual({hit["version"] for hit in hits}, {version})
            self.assertIn(f"frobnicate_{WORDS[n]}", hits[0]["title"], hits)


if __name__ == "__main__":
    unittest.main()
