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
        self.assertEqual(stdio["command"], "retrieval")
        args = build_parser().parse_args(stdio["args"])
        self.assertEqual((args.command, args.transport), ("mcp", "stdio"))
        self.assertTrue(servers["retrieval-http"]["url"].endswith("/mcp"))
        for line in blocks("sh", "### Claude Code"):
            if "-- retrieval " in line:
                argv = line.split("-- retrieval ", 1)[1].split()
                self.assertEqual(build_parser().parse_args(argv).command, "mcp")


if __name__ == "__main__":
    unittest.main()
