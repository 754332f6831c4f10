"""`retrieval mcp-config`: each client's config, printed and written, starts the server.

Checked by starting the server exactly as the config says (its command, args and env alone,
from another directory, without the venv on PATH) and listing its tools through the official
SDK's stdio client.
"""

import json
import os
import subprocess
import sys
import tomllib
import unittest

from retrieval.testing import subprocess_env
from tests.support import class_temporary_directory, require_module
from tests.test_mcp_project import CHILD_ENV, TOOLS, mcp_session
from tests.test_project_serving import build_project_snapshot

TIER = "server"

# A PATH without the venv: the config must not need it.
BARE_PATH = "/usr/bin:/bin"


def stdio(entry: dict, cwd: str):
    """Return the SDK's parameters for a config's server entry: its command, args and env only."""
    from mcp.client.stdio import StdioServerParameters

    env = {"PATH": BARE_PATH, "HOME": os.environ.get("HOME", "/"), **CHILD_ENV,
           **entry.get("env", {})}
    return StdioServerParameters(command=entry["command"], args=entry["args"], env=env, cwd=cwd)


class McpConfigTest(unittest.TestCase):
    """Each client's config, printed and written, starts a server the SDK lists tools of."""

    @classmethod
    def setUpClass(cls):
        cls.root = class_temporary_directory(cls)
        _, cls.snapshot = build_project_snapshot(cls.root)

    def setUp(self):
        require_module(self, "mcp", "mcp")

    def mcp_config(self, *args, cwd, **env):
        done = subprocess.run(
            [sys.executable, "-m", "retrieval", "mcp-config", *args],
            cwd=cwd, env=subprocess_env(**env), capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr)
        return done

    def entry_of(self, client: str, text: str) -> dict:
        if client == "codex":
            return tomllib.loads(text)["mcp_servers"]["retrieval"]
        document = json.loads(text)
        entry = document["servers" if client == "vscode" else "mcpServers"]["retrieval"]
        if client == "vscode":
            self.assertEqual(entry.pop("type"), "stdio")
        return entry

    def started(self, entry: dict, cwd: str) -> dict:
        async def check(client):
            tools = {tool.name for tool in (await client.list_tools()).tools}
            flask = await client.call_tool("resolve_library", {"name": "Flask"})
            return tools, flask.structured_content

        tools, flask = mcp_session(stdio(entry, cwd), check)
        self.assertEqual(tools, TOOLS)
        return flask

    def test_the_printed_config_starts_the_server(self):
        elsewhere = os.path.join(self.root, "elsewhere")
        os.makedirs(elsewhere)
        for client in ("claude-code", "cursor", "vscode", "codex"):
            with self.subTest(client=client):
                relative = os.path.relpath(self.snapshot, elsewhere)
                printed = self.mcp_config("--client", client, "--snapshot", relative,
                                          cwd=elsewhere).stdout
                entry = self.entry_of(client, printed)
                self.assertTrue(os.path.isabs(entry["command"]))
                self.assertEqual(entry["args"], ["-m", "retrieval", "mcp", "--snapshot",
                                                 os.path.abspath(self.snapshot)])
                flask = self.started(entry, cwd=self.root)
                self.assertEqual((flask["collection"], flask["version"]), ("flask", "2.2.2"))

    def test_write_merges_into_the_clients_file(self):
        project = os.path.join(self.root, "project-dir")
        codex_home = os.path.join(self.root, "codex-home")
        os.makedirs(os.path.join(project, ".vscode"))
        os.makedirs(codex_home)
        other_json = {"servers": {"other": {"type": "stdio", "command": "other"}}}
        with open(os.path.join(project, ".vscode", "mcp.json"), "w", encoding="utf-8") as handle:
            json.dump(other_json, handle)
        with open(os.path.join(codex_home, "config.toml"), "w", encoding="utf-8") as handle:
            handle.write('model = "o3"\n\n[mcp_servers.retrieval]\ncommand = "retrieval"\n'
                         '\n[mcp_servers.retrieval.env]\nX = "1"\n\n[mcp_servers.other]\n'
                         'command = "other"\n')
        files = {"claude-code": ".mcp.json", "cursor": os.path.join(".cursor", "mcp.json"),
                 "vscode": os.path.join(".vscode", "mcp.json"),
                 "codex": os.path.join(codex_home, "config.toml")}
        for client, name in files.items():
            with self.subTest(client=client):
                for _ in range(2):  # written twice: still one entry
                    done = self.mcp_config("--client", client, "--snapshot", self.snapshot,
                                           "--write", cwd=project, CODEX_HOME=codex_home)
                    self.assertEqual(done.stdout, "")
                path = os.path.join(project, name)
                self.assertIn(f"wrote the retrieval server to {path}", done.stderr)
                with open(path, encoding="utf-8") as handle:
                    text = handle.read()
                self.assertEqual(self.entry_of(client, text)["command"], sys.executable)
                flask = self.started(self.entry_of(client, text), cwd=project)
                self.assertEqual(flask["version"], "2.2.2")
        with open(files["codex"], encoding="utf-8") as handle:
            codex = tomllib.loads(handle.read())
        self.assertEqual((codex["model"], codex["mcp_servers"]["other"]["command"]),
                         ("o3", "other"))
        self.assertNotIn("X", codex["mcp_servers"]["retrieval"].get("env", {}))
        with open(os.path.join(project, ".vscode", "mcp.json"), encoding="utf-8") as handle:
            self.assertEqual(json.load(handle)["servers"]["other"], other_json["servers"]["other"])

    def test_a_path_that_is_no_snapshot_is_refused_in_one_line(self):
        done = subprocess.run(
            [sys.executable, "-m", "retrieval", "mcp-config", "--client", "cursor", "--snapshot",
             os.path.join(self.root, "nope")], cwd=self.root, env=subprocess_env(),
            capture_output=True, text=True, timeout=60)
        self.assertEqual((done.returncode, done.stdout), (2, ""))
        self.assertTrue(done.stderr.startswith("retrieval: --snapshot "), done.stderr)
        self.assertEqual(done.stderr.count("\n"), 1)



if __name__ == "__main__":
    unittest.main()
