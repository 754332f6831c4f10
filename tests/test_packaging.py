"""Packaging: one version source and one embedded fixture, as installed by pyproject.toml."""

import ast
import importlib.metadata
import os
import unittest

import retrieval
from retrieval.core.snapshot import default_snapshot_path
from tests.support import ROOT

TIER = "unit"


class PackagingTest(unittest.TestCase):
    def test_installed_distribution_reports_the_package_version(self):
        self.assertEqual(importlib.metadata.version("retrieval"), retrieval.__version__)

    def test_embedded_fixture_is_package_data_and_the_top_level_file_is_the_same(self):
        path = default_snapshot_path()
        self.assertEqual(str(path.parent), os.path.dirname(os.path.realpath(retrieval.__file__)))
        with open(path, "rb") as package, open(os.path.join(ROOT, "snapshot.json"), "rb") as top:
            self.assertEqual(package.read(), top.read())

    def test_no_module_needs_more_than_the_python_floor(self):
        # requires-python is >=3.11, and Debian 12's Python is 3.11.2: extractall's and
        # extract's filter= keyword came in 3.11.4 (tests/test_package_sources.py used it).
        later = []
        for folder in ("retrieval", "tests"):
            for directory, _, names in os.walk(os.path.join(ROOT, folder)):
                for name in (name for name in names if name.endswith(".py")):
                    path = os.path.join(directory, name)
                    with open(path, encoding="utf-8") as source:
                        tree = ast.parse(source.read(), path)
                    later.extend(
                        f"{os.path.relpath(path, ROOT)}:{node.lineno}" for node in ast.walk(tree)
                        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                        and node.func.attr in ("extractall", "extract")
                        and any(keyword.arg == "filter" for keyword in node.keywords))
        self.assertEqual(later, [])


if __name__ == "__main__":
    unittest.main()
