"""Packaging: one version source and one embedded fixture, as installed by pyproject.toml."""

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


if __name__ == "__main__":
    unittest.main()
