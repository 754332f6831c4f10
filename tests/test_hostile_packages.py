"""Hostile packages: a release or an installed environment whose Python files attack the builder.

Each case makes its package here (a wheel in a find-links folder, a site-packages with dist-info
and RECORD) and builds it through `python -m retrieval build` in a child process (build() of
test_hostile_sources): what cannot be read is skipped with one line and counted, what is read is
read in time linear in its size, and the rest of the build goes on. No case asserts a wall-clock
time: the child's timeout only turns a hang (or the minutes a quadratic reader took) into a failure.
"""

import os
import sqlite3
import unittest

from retrieval.ingest.formats.package import MAX_NAMES
from retrieval.ingest.readers.docstrings import parse_module
from retrieval.ingest.tree import MAX_MODULE_BYTES
from tests.package_fixtures import write_sdist, write_site_packages, write_wheel
from tests.support import temporary_directory
from tests.test_hostile_sources import SECRET, build, snapshot_text

TIER = "server"

GOOD = '"""Good things."""\n\n\ndef graze():\n    """Graze the field."""\n'
PIP_OFFLINE = {"PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1"}


def site_packages(test, distributions: dict) -> tuple:
    """Write a virtual environment of {dist: (version, {path: text})}; return (it, site)."""
    venv = temporary_directory(test)
    site = os.path.join(venv, "lib", "python3.11", "site-packages")
    return venv, write_site_packages(site, distributions)


def collections(out: str) -> set:
    """Return the collections a built snapshot holds passages of."""
    conn = sqlite3.connect(os.path.join(out, "passages.sqlite"))
    try:
        return {row[0] for row in conn.execute("SELECT DISTINCT collection FROM passages")}
    finally:
        conn.close()


def chained_module(n: int) -> str:
    """Return a module with n `#:` lines over an assignment of n targets, n statements on one
    line documented by a `#:` after them, and n `self.` targets under n `#:` lines."""
    return ('"""Hostile."""\n' + "#: Goats graze.\n" * n
            + " = ".join(f"a{i}" for i in range(n)) + " = 1\n"
            + "; ".join(f"b{i} = 1" for i in range(n)) + "  #: Sheep graze.\n"
            + "class Herd:\n    def __init__(self):\n" + "        #: Cows graze.\n" * n
            + "        " + " = ".join(f"self.c{i}" for i in range(n)) + " = 1\n")


class ModuleCapTest(unittest.TestCase):
    """A module is parsed whole (about 500 bytes of memory per byte for a crafted one): one
    over the cap is skipped with one line and counted, and the package's others are read."""

    def test_a_module_over_the_cap_in_a_small_wheel(self):
        links = temporary_directory(self)
        huge = "x = 1\n" * (MAX_MODULE_BYTES // 6 + 1)  # deflated, a few KB of a wheel
        write_wheel(links, "evil", "1.0", {"evil/__init__.py": GOOD, "evil/huge.py": huge})
        code, err, out = build(self, ("", "pypi:evil==1.0"),
                               env={**PIP_OFFLINE, "PIP_FIND_LINKS": links})
        self.assertEqual(code, 0, err)
        self.assertIn(f"build: skipped evil/1.0/evil/huge.py: larger than the "
                      f"{MAX_MODULE_BYTES}-byte cap (on Python modules)\n", err)
        self.assertRegex(err, r"build: done: 2 passages from 1 files \(1 skipped\)")
        self.assertIn("Graze the field.", snapshot_text(out))

    def test_max_file_bytes_lowers_it(self):
        venv, _ = site_packages(self, {"evil": ("1.0", {
            "evil/__init__.py": GOOD, "evil/big.py": '"""Big."""\n' + "x = 1\n" * 1000})})
        code, err, out = build(self, ("", f"env:{venv}"), extra=["--max-file-bytes", "4096"])
        self.assertEqual(code, 0, err)
        self.assertIn("build: skipped evil/1.0/evil/big.py: larger than the 4096-byte cap "
                      "(--max-file-bytes)\n", err)
        self.assertIn("Graze the field.", snapshot_text(out))


class EnvironmentContainedTest(unittest.TestCase):
    """An installed environment is read as a tree is: nothing through a link out of its
    site-packages, only regular files, each up to its cap; one bad file skips that file (one
    bad metadata file, that distribution), never the build."""

    def test_links_out_and_special_files(self):
        outside = temporary_directory(self)
        with open(os.path.join(outside, "secret.py"), "w", encoding="utf-8") as handle:
            handle.write(f'"""{SECRET}"""\n')
        with open(os.path.join(outside, "METADATA"), "w", encoding="utf-8") as handle:
            handle.write("Metadata-Version: 2.1\nName: leaked\nVersion: 1.0\n")
        venv, site = site_packages(self, {
            "evil": ("1.0", {"evil/__init__.py": GOOD, "evil/leak.py": "", "evil/inner.py": "",
                             "evil/pipe.py": "", "evil/gone.py": "",
                             "shared/inner.py": '"""Inner things."""\n'}),
            "leaked": ("1.0", {"leaked.py": '"""Leaked."""\n'}),
            "stuck": ("1.0", {"stuck.py": '"""Stuck."""\n'})})
        os.remove(os.path.join(site, "evil", "leak.py"))
        os.symlink(os.path.join(outside, "secret.py"), os.path.join(site, "evil", "leak.py"))
        os.remove(os.path.join(site, "evil", "inner.py"))  # a link inside: still read
        os.symlink(os.path.join("..", "shared", "inner.py"),
                   os.path.join(site, "evil", "inner.py"))
        os.remove(os.path.join(site, "leaked-1.0.dist-info", "METADATA"))
        os.symlink(os.path.join(outside, "METADATA"),
                   os.path.join(site, "leaked-1.0.dist-info", "METADATA"))
        os.remove(os.path.join(site, "stuck-1.0.dist-info", "RECORD"))
        os.mkfifo(os.path.join(site, "stuck-1.0.dist-info", "RECORD"))  # read: waits forever
        os.remove(os.path.join(site, "evil", "pipe.py"))
        os.mkfifo(os.path.join(site, "evil", "pipe.py"))
        os.remove(os.path.join(site, "evil", "gone.py"))  # in RECORD, not installed
        code, err, out = build(self, ("", f"env:{venv}"))
        self.assertEqual(code, 0, err)
        self.assertIn("build: skipped evil/1.0/evil/leak.py: a link out of the tree "
                      "(not followed)\n", err)
        self.assertIn("build: skipped leaked-1.0.dist-info/METADATA: a link out of the tree "
                      "(not followed)\n", err)
        self.assertIn("build: skipped stuck-1.0.dist-info/RECORD: not a regular file\n", err)
        self.assertIn("build: skipped evil/1.0/evil/pipe.py: not a regular file\n", err)
        self.assertIn("build: evil 1.0: 1 module(s) its file list names are not installed, left "
                      "out: evil/gone.py\n", err)
        text = snapshot_text(out)
        self.assertNotIn(SECRET, text)
        self.assertIn("Graze the field.", text)
        self.assertIn("Inner things.", text)
        self.assertEqual(collections(out), {"evil"})


class EnvironmentNamesTest(unittest.TestCase):
    """A distribution whose name no collection may have is skipped with one line; the others
    are built (it stopped the whole build)."""

    def test_names_that_are_no_collection_names(self):
        long_name = "x" * 70
        venv, _ = site_packages(self, {
            "good": ("1.0", {"good.py": GOOD}),
            "_private": ("1.0", {"private.py": '"""Private."""\n'}),
            long_name: ("1.0", {"long.py": '"""Long."""\n'})})
        code, err, out = build(self, ("", f"env:{venv}"))
        self.assertEqual(code, 0, err)
        self.assertIn("build: skipped -private 1.0: collection '-private' must match ", err)
        self.assertIn(f"build: skipped {long_name} 1.0: collection '{long_name}' must match ",
                      err)
        self.assertEqual(collections(out), {"good"})


class DocCommentsTest(unittest.TestCase):
    """`#:` comments are read once per module, each assignment target looking its own up (read
    once per target, 1,000 targets under 1,000 comment lines took 20 s; 4,000, minutes)."""

    def test_every_target_is_documented_by_its_comments(self):
        module = parse_module("herd", "herd.py", chained_module(50).encode())
        lines = {obj.name: (obj.start_line, obj.end_line, obj.docstring)
                 for obj in module.objects.values()}
        goats = "\n".join(["Goats graze."] * 50)
        for i in (0, 49):
            self.assertEqual(lines[f"herd.a{i}"], (2, 52, goats))
            self.assertEqual(lines[f"herd.b{i}"], (53, 53, "Sheep graze."))
            self.assertEqual(lines[f"herd.Herd.c{i}"][2], "\n".join(["Cows graze."] * 50))
        self.assertEqual(module.objects["Herd"].members,
                         ("__init__", *(f"c{i}" for i in range(50))))

    def assert_chained_passages(self, out: str, n: int):
        conn = sqlite3.connect(os.path.join(out, "passages.sqlite"))
        try:
            rows = conn.execute("SELECT p.start_line, p.end_line, x.names FROM passages p "
                                "JOIN passage_fields x ON x.id = p.id "
                                "WHERE p.title = 'herd.a0' ORDER BY p.start_line").fetchall()
        finally:
            conn.close()
        # One passage per piece of the lines the targets quote, found by the first names.
        self.assertEqual((rows[0][0], rows[-1][1]), (2, n + 2))
        for _, _, names in rows:
            self.assertEqual(names.split(), [f"herd.a{i}" for i in range(MAX_NAMES)])

    def test_a_module_of_thousands_of_targets_builds(self):
        n = 4000
        venv, _ = site_packages(self, {"herd": ("1.0", {"herd.py": chained_module(n)})})
        code, err, out = build(self, ("", f"env:{venv}"))
        self.assertEqual(code, 0, err)
        self.assert_chained_passages(out, n)

    def test_automodule_members_of_thousands_of_targets_builds(self):
        n = 4000
        links = temporary_directory(self)
        write_sdist(links, "herd", "1.0", {
            "herd/__init__.py": chained_module(n), "docs/conf.py": "project = 'herd'\n",
            "docs/index.rst": "Herd\n====\n\n.. automodule:: herd\n   :members:\n"})
        code, err, out = build(self, ("", "pypi:herd==1.0"),
                               env={**PIP_OFFLINE, "PIP_FIND_LINKS": links})
        self.assertEqual(code, 0, err)
        self.assert_chained_passages(out, n)


if __name__ == "__main__":
    unittest.main()
