"""A build that meets bad input: the same lines under several names are one passage."""

import os
import sqlite3
import sys
import unittest

from retrieval.core.ranking import SECTION, IndexFields
from retrieval.core.snapshot_directory import write_snapshot_directory
from retrieval.ingest.builder import DEFAULT_POLICY, SourceTree
from retrieval.ingest.unit import UnitDraft
from tests.package_fixtures import write_site_packages
from tests.support import temporary_directory
from tests.test_cli import run

TIER = "server"

CHAINED = '''\
"""Statements and what they do."""


class Statement:
    """One statement."""

    isdelete = isinsert = isupdate = False
    """True if this statement is that kind of statement."""
'''

def names_of(out: str) -> dict:
    """Return {title: (names, bare names)} of a built snapshot's passages."""
    conn = sqlite3.connect(os.path.join(out, "passages.sqlite"))
    try:
        return {title: (names, name) for title, names, name in conn.execute(
            "SELECT p.title, x.names, x.name FROM passages p "
            "JOIN passage_fields x ON x.id = p.id")}
    finally:
        conn.close()


def draft(names: str) -> UnitDraft:
    """Return the draft of lines 1-2 of page.rst under names."""
    return UnitDraft.of(
        SourceTree("1.0", "/nowhere", "https://docs.example/"), "page.rst", "0" * 64,
        "https://docs.example/page.html", 1, 2, "a = b = 1\n", names.split()[0],
        IndexFields.of(kind=SECTION, in_links=0, noindex=False, reference_page=False,
                       names=names, name=names, signature="", body="", code="", context=""))


class SamePassageTest(unittest.TestCase):
    def test_the_writer_refuses_one_passage_given_twice_naming_its_source(self):
        out = os.path.join(temporary_directory(self), "snapshot")
        with self.assertRaisesRegex(ValueError, r"^default/1\.0 page\.rst lines 1-2: given "
                                                r"twice"):
            write_snapshot_directory(out, [draft("a").content, draft("b").content],
                                     DEFAULT_POLICY, {("default", "1.0"): "https://x/"})


class BadPackagesTest(unittest.TestCase):

    def setUp(self):
        self.root = temporary_directory(self)
        self.venv = os.path.join(self.root, "venv")
        write_site_packages(os.path.join(self.venv, "lib", "python3.11", "site-packages"), {
            "good": ("1.0", {"good.py": '"""Good things."""\n\n\ndef spin():\n'
                                        '    """Spin once."""\n'}),
            "bad": ("2.0", {"bad.py": '"""Bad things."""\n'}),
            "chained": ("1.4.46", {"chained.py": CHAINED})})

    def out(self) -> str:
        return os.path.join(temporary_directory(self), "snapshot")

    def test_lines_documented_under_several_names_are_one_passage_with_those_names(self):
        out = self.out()
        done = run([sys.executable, "-m", "retrieval", "build", "--out", out,
                    "--source", f"chained=env:{self.venv}"])
        self.assertEqual(done.returncode, 0, done.stderr)
        names = names_of(out)
        self.assertEqual(names["chained.Statement.isdelete"], (
            "chained.Statement.isdelete chained.Statement.isinsert chained.Statement.isupdate",
            "isdelete isinsert isupdate"))
        self.assertNotIn("chained.Statement.isinsert", names)
        verified = run([sys.executable, "-m", "retrieval", "verify", out])
        self.assertEqual(verified.stdout.splitlines()[-1], "verified", verified.stdout)


if __name__ == "__main__":
    unittest.main()
