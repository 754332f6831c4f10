"""A build that meets bad input, a full disk or Ctrl-C: what cannot be read is skipped and
counted, the rest is built; a build that stops says one line and leaves nothing behind."""

import errno
import os
import resource
import signal
import sqlite3
import subprocess
import sys
import unittest
from unittest import mock

from retrieval.core import snapshot_directory
from retrieval.core.ranking import SECTION, IndexFields
from retrieval.core.snapshot_directory import write_snapshot_directory
from retrieval.ingest.builder import DEFAULT_POLICY, SourceTree
from retrieval.ingest.unit import UnitDraft
from retrieval.testing import subprocess_env
from tests.package_fixtures import write_site_packages
from tests.support import ROOT, class_temporary_directory, temporary_directory, wait_for
from tests.test_cli import one_line_refusal, run

TIER = "server"

CHAINED = '''\
"""Statements and what they do."""


class Statement:
    """One statement."""

    isdelete = isinsert = isupdate = False
    """True if this statement is that kind of statement."""
'''

# `python -c`: the build with the package format's module reader replaced by one that raises
# argv[1] (a Python expression) for the distribution `bad`, as a bad package or a bug would.
RAISING_READER = '''\
import sys
from unittest import mock

import retrieval.ingest.formats.package as package

real = package.read_package


def reading(root, modules, *caps):
    if any(path.startswith("bad") for path, _ in modules):
        raise eval(sys.argv[1])
    return real(root, modules, *caps)


mock.patch.object(package, "read_package", reading).start()
from retrieval.cli.main import main

sys.exit(main(sys.argv[2:]))
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


def collections_of(out: str) -> list:
    conn = sqlite3.connect(os.path.join(out, "passages.sqlite"))
    try:
        return [row[0] for row in conn.execute(
            "SELECT DISTINCT collection FROM passages ORDER BY collection")]
    finally:
        conn.close()


def progress_then_error(testcase, done) -> str:
    """Assert a refused build: exit 2, no traceback, progress lines then one error; return it."""
    testcase.assertEqual(done.returncode, 2, done.stderr)
    testcase.assertNotIn("Traceback", done.stderr)
    *progress, last = done.stderr.splitlines()
    testcase.assertTrue(all(line.startswith("build: ") for line in progress), done.stderr)
    testcase.assertTrue(last.startswith("retrieval: "), done.stderr)
    return last


def draft(names: str, line: int = 1) -> UnitDraft:
    """Return the draft of lines line..line+1 of page.rst under names."""
    return UnitDraft.of(
        SourceTree("1.0", "/nowhere", "https://docs.example/"), "page.rst", "0" * 64,
        "https://docs.example/page.html", line, line + 1, f"a = b = {line}\n", names.split()[0],
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

    def build_raising(self, error: str, *sources):
        out = self.out()
        command = [sys.executable, "-c", RAISING_READER, error, "build", "--out", out]
        for source in sources:
            command += ["--source", source]
        return run(command), out

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

    def test_a_package_that_cannot_be_read_is_skipped_by_name_and_counted(self):
        for error, reason in (("RecursionError('maximum recursion depth exceeded')",
                               "nested too deeply to read"),
                              ("MemoryError()", "too large to read in memory"),
                              ("UnicodeDecodeError('utf-8', b'\\xff', 0, 1, 'invalid start byte')",
                               "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff"),
                              ("PermissionError(13, 'Permission denied', 'bad.py')",
                               "cannot read bad.py: Permission denied")):
            with self.subTest(error=error):
                done, out = self.build_raising(error, f"bad,good=env:{self.venv}")
                self.assertEqual(done.returncode, 0, done.stderr)
                lines = done.stderr.splitlines()
                self.assertIn(f"build: skipped bad/2.0: {reason}", done.stderr)
                self.assertRegex(lines[-1], r"^build: done: 2 passages from 1 files "
                                            r"\(0 skipped\); 1 tree skipped \(bad/2\.0\) in ")
                self.assertEqual(collections_of(out), ["good"])

    def test_a_build_whose_every_tree_cannot_be_read_is_refused_in_one_line(self):
        done, out = self.build_raising("RecursionError()", f"bad=env:{self.venv}")
        self.assertEqual(one_line_refusal(self, done),
                         "retrieval: bad/2.0: cannot be read: nested too deeply to read")
        self.assertFalse(os.path.exists(out))
        venv = os.path.join(self.root, "bad-only")
        write_site_packages(os.path.join(venv, "lib", "python3.11", "site-packages"), {
            "bad": ("2.0", {"bad.py": '"""Bad."""\n'}),
            "bad-too": ("3.0", {"bad_too.py": '"""Bad too."""\n'})})
        done, out = self.build_raising("MemoryError()", f"env:{venv}")
        self.assertEqual(progress_then_error(self, done),
                         "retrieval: every tree was skipped (bad/2.0, bad-too/3.0): nothing "
                         "to build")
        self.assertFalse(os.path.exists(out))

    def test_a_bug_in_a_reader_stops_the_build_with_its_traceback_naming_the_package(self):
        done, _ = self.build_raising("KeyError('a bug')", f"env:{self.venv}")
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertIn("Traceback (most recent call last)", done.stderr)
        self.assertIn("KeyError: 'a bug'\nretrieval build: while reading bad/2.0 "
                      "(format package)\n", done.stderr)

    def test_a_distribution_whose_metadata_has_no_version_is_skipped(self):
        site = os.path.join(self.venv, "lib", "python3.11", "site-packages")
        with open(os.path.join(site, "bad-2.0.dist-info", "METADATA"), "w",
                  encoding="utf-8") as metadata:
            metadata.write("Metadata-Version: 2.1\nName: bad\n")
        out = self.out()
        done = run([sys.executable, "-m", "retrieval", "build", "--out", out,
                    "--source", f"bad,good=env:{self.venv}"])
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("build: skipped bad None: its version is not", done.stderr)
        self.assertEqual(collections_of(out), ["good"])

    def test_a_package_source_that_cannot_be_fetched_is_skipped_when_others_are_built(self):
        empty = temporary_directory(self)
        out = self.out()
        done = run([sys.executable, "-m", "retrieval", "build", "--out", out,
                    "--source", f"good=env:{self.venv}", "--source", f"env:{empty}"])
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn(f"build: skipped env:{empty}: not a virtual environment or "
                      "site-packages directory", done.stderr)
        self.assertIn(f"; 1 tree skipped (env:{empty}) in ", done.stderr.splitlines()[-1])
        self.assertEqual(collections_of(out), ["good"])
        # Alone, or with every other value failing too, it stops the build in one line.
        done = run([sys.executable, "-m", "retrieval", "build", "--out", out + "-2",
                    "--source", f"env:{empty}", "--source", f"env:{empty}/x"])
        self.assertRegex(one_line_refusal(self, done),
                         f"^retrieval: env:{empty}: not a virtual environment .* \\(and 1 more "
                         r"--source value cannot be fetched\)$")



def write_large_tree(root: str, pages: int) -> None:
    """Write a Markdown tree of pages x 200 sections (one passage each)."""
    os.makedirs(root)
    for page in range(pages):
        with open(os.path.join(root, f"page{page:03}.md"), "w", encoding="utf-8") as out:
            out.write(f"# Page {page}\n\n")
            for section in range(200):
                out.write(f"## Section {page}-{section}\n\nParagraph {section} of page {page} "
                          f"is about frob{page * 1000 + section} and zap{section * 7 + page}.\n\n")


def restore_sigint():
    """In the child: SIGINT as a terminal would deliver it, whatever the test runner ignores."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class StoppedBuildTest(unittest.TestCase):
    """A build stopped by a full disk, Ctrl-C or an error: one line, nothing left behind."""

    @classmethod
    def setUpClass(cls):
        cls.tree = os.path.join(class_temporary_directory(cls), "tree")
        write_large_tree(cls.tree, 100)  # 20,000 passages: writing them takes seconds

    def setUp(self):
        self.tmp = temporary_directory(self)  # the build's TMPDIR: its own folders go there
        self.out = os.path.join(temporary_directory(self), "snapshot")

    def command(self):
        return [sys.executable, "-m", "retrieval", "build", "--source", f"1.0={self.tree}",
                "--base-url", "1.0=https://docs.example/", "--out", self.out]

    def assert_nothing_left(self):
        self.assertFalse(os.path.exists(self.out), os.listdir(os.path.dirname(self.out)))
        self.assertEqual(os.listdir(self.tmp), [])

    def stopped_by(self, signum) -> tuple:
        """Run the build, send it signum while its database is written; return (the exit
        status, stdout, stderr's last line) once it has stopped."""
        child = subprocess.Popen(self.command(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, env=subprocess_env(TMPDIR=self.tmp), cwd=ROOT,
                                 preexec_fn=restore_sigint)
        try:
            # In progress: its first line said, then its database being written.
            self.assertTrue(child.stderr.readline().startswith("build: 1.0: "))
            partial = os.path.join(self.out, "passages.sqlite.partial")
            wait_for(lambda: os.path.exists(partial), "the build to write its database")
            self.assertEqual(len(os.listdir(self.tmp)), 1)  # its retrieval-build-* folder
            child.send_signal(signum)
            stdout, stderr = child.communicate(timeout=60)
        finally:
            if child.poll() is None:
                child.kill()
                child.communicate()
        *progress, last = stderr.splitlines()
        self.assertTrue(all(line.startswith("build: 1.0: ") for line in progress), stderr)
        return child.returncode, stdout, last

    def test_ctrl_c_says_one_line_exits_130_and_leaves_nothing(self):
        self.assertEqual(self.stopped_by(signal.SIGINT), (130, "", "retrieval: interrupted"))
        self.assert_nothing_left()

    def test_sigterm_says_one_line_exits_143_and_leaves_nothing(self):
        # `timeout`, a cancelled CI job: unwound as Ctrl-C is, not ended where it stood.
        self.assertEqual(self.stopped_by(signal.SIGTERM), (143, "", "retrieval: terminated"))
        self.assert_nothing_left()

    def test_a_full_disk_says_one_line_exits_2_and_leaves_nothing(self):
        def small_files():  # in the child: a file grows to 256 KiB at most (EFBIG past it)
            resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 1024, 256 * 1024))

        done = subprocess.run(self.command(), capture_output=True, text=True, timeout=60,
                              env=subprocess_env(TMPDIR=self.tmp), cwd=ROOT,
                              preexec_fn=small_files)
        last = progress_then_error(self, done)
        self.assertRegex(last, f"^retrieval: --out {self.out}: cannot write the snapshot: "
                               "disk I/O error$")
        self.assert_nothing_left()

    def test_the_writer_says_a_full_disk_as_the_os_does_and_removes_what_it_wrote(self):
        real = snapshot_directory.database.create

        def full(conn, *args):  # SQLite's own "database or disk is full", a few pages in
            conn.execute("PRAGMA max_page_count = 8")
            return real(conn, *args)

        contents = [draft(f"n{line}", line).content for line in range(1, 2000)]
        with mock.patch.object(snapshot_directory.database, "create", full), \
                self.assertRaises(OSError) as raised:
            write_snapshot_directory(self.out, contents, DEFAULT_POLICY,
                                     {("default", "1.0"): "https://x/"})
        self.assertEqual((raised.exception.errno, raised.exception.strerror),
                         (errno.ENOSPC, "No space left on device"))
        self.assertFalse(os.path.exists(self.out))
        # Stopped after its database is in place: that is removed too, and --out built into.
        os.makedirs(self.out)
        with mock.patch.object(snapshot_directory, "manifest_for",
                               side_effect=OSError(errno.ENOSPC, "No space left on device")), \
                self.assertRaises(OSError):
            write_snapshot_directory(self.out, contents, DEFAULT_POLICY,
                                     {("default", "1.0"): "https://x/"})
        self.assertEqual(os.listdir(self.out), [])
        write_snapshot_directory(self.out, contents, DEFAULT_POLICY,
                                 {("default", "1.0"): "https://x/"})
        self.assertEqual(sorted(os.listdir(self.out)),
                         ["manifest.json", "passages.sqlite", "provenance.json"])


if __name__ == "__main__":
    unittest.main()
