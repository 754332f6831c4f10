"""docs/integrations.md: its LangChain and LlamaIndex examples run as written, its configs parse."""

import contextlib
import io
import json
import os
import re
import unittest

from retrieval.cli.main import build_parser
from tests.support import ROOT, require_module, start_server

TIER = "server"

DOC = os.path.join(ROOT, "docs", "integrations.md")
DOCUMENTED_URL = "http://127.0.0.1:8765"


def blocks(language: str, after: str = "") -> list:
    """Return the fenced blocks of one language, those after a heading when one is named."""
    with open(DOC, encoding="utf-8") as handle:
        text = handle.read()
    if after:
        text = text.split(after, 1)[1].split("\n## ", 1)[0]
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


class ExamplesTest(unittest.TestCase):
    def run_example(self, heading, module):
        require_module(self, module, heading.lower())
        server = start_server(self)
        (code,) = blocks("python", f"## {heading}")
        self.assertLessEqual(len(code.strip().splitlines()), 10)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(code.replace(DOCUMENTED_URL, server.base_url), DOC, "exec"), {})
        self.assertIn("https://docs.python.org/3.12/library/pathlib.html", printed.getvalue())
        self.assertIn("An existing file is overwritten.", printed.getvalue())

    def test_langchain_example(self):
        self.run_example("LangChain", "langchain_core")

    def test_llamaindex_example(self):
        self.run_example("LlamaIndex", "llama_index.core")

    def test_mcp_json_parses_and_its_commands_are_ours(self):
        (config,) = blocks("json")
        servers = json.loads(config)["mcpServers"]
        stdio = servers["retrieval"]
        # An interpreter by its absolute path, never "retrieval" on a PATH the client may not
        # have (issue 45: what `retrieval mcp-config` prints).
        self.assertTrue(os.path.isabs(stdio["command"]))
        self.assertEqual(stdio["args"][:2], ["-m", "retrieval"])
        args = build_parser().parse_args(stdio["args"][2:])
        self.assertEqual((args.command, args.transport), ("mcp", "stdio"))
        self.assertTrue(servers["retrieval-http"]["url"].endswith("/mcp"))
        commands = [line for block in blocks("sh", "### Wiring a client") for line in
                    block.splitlines() if line.startswith(("retrieval ", "claude mcp add"))]
        self.assertEqual(len(commands), 4)
        for line in commands:
            argv = line.split("-m retrieval ", 1)[1] if "-m retrieval " in line else \
                line[len("retrieval "):] if line.startswith("retrieval ") else None
            if argv is not None:
                self.assertIn(build_parser().parse_args(argv.split("#")[0].split()).command,
                              ("mcp", "mcp-config"))


if __name__ == "__main__":
    unittest.main()
