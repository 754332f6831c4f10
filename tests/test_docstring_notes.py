"""Version notes read from docstrings: a package built with `retrieval build --source env:...`.

A class's lines hold its methods' docstrings too: each object gets the notes of its own
docstring only (`.. versionadded::`, `.. deprecated::`, a numpydoc-style Deprecated section).
"""

import json
import os
import subprocess
import sys
import unittest

from retrieval.client import RetrievalClient
from retrieval.integrations import RetrievalSettings, retrieve_passages
from retrieval.testing import subprocess_env
from retrieval.wsgi import create_app
from tests.package_fixtures import write_site_packages
from tests.support import ROOT, call, class_temporary_directory, quiet_settings, start_server

TIER = "server"

CORE = '''"""Core."""


class Engine:
    """An engine.

    .. versionadded:: 1.1
    """

    def stop(self):
        """Stop it.

        .. deprecated:: 1.2
            Use halt.
        """


def old():
    """Old function.

    Deprecated
    ----------
    Since 1.0, use new.
    """
'''
INIT = '"""Demo."""\nfrom .core import Engine, old\n\n__all__ = ["Engine", "old"]\n'


class DocstringNotesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        root = class_temporary_directory(cls)
        write_site_packages(os.path.join(root, "venv", "lib", "python3.11", "site-packages"),
                            {"demo": ("1.2", {"demo/__init__.py": INIT, "demo/core.py": CORE})})
        cls.out = os.path.join(root, "snapshot")
        subprocess.run([sys.executable, "-m", "retrieval", "build", "--source",
                        f"env:{root}/venv", "--out", cls.out], check=True, capture_output=True,
                       env=subprocess_env(), cwd=ROOT, timeout=120)

    def test_each_object_carries_its_own_docstrings_notes(self):
        app = create_app(self.out, settings=quiet_settings())
        try:
            answers = {name: call(app, "POST", "/lookup", json.dumps(
                {"name": name, "version": "1.2", "collection": "demo"}).encode()).json()
                for name in ("Engine", "Engine.stop", "old")}
        finally:
            app.close()
        engine = answers["Engine"]["hits"][0]
        self.assertEqual((answers["Engine"]["status"], engine["since"]),
                         ("found", [{"version": "1.1", "text": ""}]))
        self.assertNotIn("deprecated", engine)  # its method's, not its own
        self.assertEqual((answers["Engine.stop"]["status"], answers["Engine.stop"]["notes"]),
                         ("deprecated", [{"kind": "deprecated", "version": "1.2",
                                          "text": "Use halt.", "passage_id":
                                          answers["Engine.stop"]["hits"][0]["passage_id"]}]))
        self.assertEqual(answers["old"]["hits"][0]["deprecated"],
                         [{"version": "1.0", "text": "Since 1.0, use new."}])

    def test_the_client_and_the_adapters_carry_a_passages_notes(self):
        server = start_server(self, "--snapshot", self.out)
        result = RetrievalClient(server.base_url).retrieve(
            "old function deprecated", "1.2", collection="demo", max_reads=1)
        [item] = result.evidence
        self.assertEqual((item.title, item.deprecated),
                         ("demo.old", [{"version": "1.0", "text": "Since 1.0, use new."}]))
        self.assertIsNone(item.since)
        [passage] = retrieve_passages(RetrievalSettings(server.base_url, "1.2", "demo",
                                                        allowances={"max_reads": 1}),
                                      "old function deprecated")
        self.assertEqual(passage.metadata["deprecated"], item.deprecated)
        self.assertEqual(passage.metadata["title"], "demo.old")
        self.assertNotIn("since", passage.metadata)  # only what the passage has


if __name__ == "__main__":
    unittest.main()
