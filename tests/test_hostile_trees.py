"""A documentation tree is untrusted input: links out of it, special files, bombs, hostile HTML.

Each tree kind (plain, llms.txt, Sphinx with `_sources`, rendered HTML) is built with a link to
a secret outside it; nothing outside the tree's real path may become a passage, and each link is
skipped and reported. The command-line cases run `python -m retrieval build` as a child process
with a timeout far above what the fixed builder needs (a FIFO used to hang it forever, hostile
HTML to take minutes), so a regression fails instead of hanging the suite.
"""

import io
import os
import random
import re
import sqlite3
import subprocess
import sys
import tracemalloc
import unittest
import zlib

from retrieval.ingest.builder import DEFAULT_POLICY, Progress, SourceTree, build_snapshot
from retrieval.ingest.readers.html_page import page_units
from retrieval.ingest.readers.rendered import MAX_SECTION_DEPTH, parse_page, scan
from retrieval.testing import subprocess_env
from tests.support import ROOT, temporary_directory
from tests.test_html_ingest import API_HTML, API_SOURCE, GUIDE_HTML, write_tree

TIER = "server"

BASE = "https://docs.example.org/pkg/1.2/"
SECRET = "TOP-SECRET-OUTSIDE-THE-TREE"
INVENTORY_HEAD = (b"# Sphinx inventory version 2\n# Project: pkg\n# Version: 1.2\n"
                  b"# The remainder of this file is compressed using zlib.\n")
# A child build that the fixed builder finishes in well under a second; a timeout, not a speed
# target: it only turns a hang or a quadratic blow-up into a failure.
CHILD_TIMEOUT_S = 60


def passages_text(out: str) -> str:
    """Return every built passage's text and URL, joined."""
    conn = sqlite3.connect(os.path.join(out, "passages.sqlite"))
    try:
        return "\n".join(f"{url} {text}" for url, text in
                         conn.execute("SELECT url, text FROM passages"))
    finally:
        conn.close()


def build(test, root: str, **tree_options) -> tuple:
    """Build one tree in process; return (its passages' text, the progress lines)."""
    progress = io.StringIO()
    out = os.path.join(temporary_directory(test), "snapshot")
    build_snapshot([SourceTree("1.2", root, BASE, **tree_options)], out, DEFAULT_POLICY,
                   Progress(progress))
    return passages_text(out), progress.getvalue()


def run_build(test, root: str, *options) -> subprocess.CompletedProcess:
    """Run `python -m retrieval build` on one tree as a child process."""
    out = os.path.join(temporary_directory(test), "snapshot")
    return subprocess.run(
        [sys.executable, "-m", "retrieval", "build", "--source", f"1.2={root}",
         "--base-url", f"1.2={BASE}", "--out", out, *options],
        capture_output=True, text=True, env=subprocess_env(), cwd=ROOT, timeout=CHILD_TIMEOUT_S)


class LinksOutOfTheTreeTest(unittest.TestCase):
    """Every tree kind: a link out of the tree is never followed; one inside still is."""

    def setUp(self):
        base = temporary_directory(self)
        self.outside = os.path.join(base, "outside")
        write_tree(self.outside, {"SECRET.md": f"# Secret\n\n{SECRET}\n",
                                  "secret.html": GUIDE_HTML.replace("Greeting people", SECRET),
                                  "secret.rst.txt": f"Secret\n======\n\n{SECRET}\n"})
        self.root = os.path.join(base, "tree")

    def link(self, relative: str, target: str):
        path = os.path.join(self.root, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.symlink(target, path)

    def assert_refused(self, text, progress, *names):
        self.assertNotIn(SECRET, text)
        for name in names:
            self.assertIn(f"build: skipped 1.2/{name}: a link out of the tree (not followed)",
                          progress)

    def test_a_plain_tree(self):
        write_tree(self.root, {"guide.md": "# Guide\n\nGreeting people.\n",
                               "inner/page.md": "# Inner\n\nA page linked from inside.\n"})
        self.link("leak.md", "../outside/SECRET.md")
        self.link("host.txt", os.path.join(self.outside, "SECRET.md"))  # absolute
        self.link("alias.md", "inner/page.md")  # stays inside: read
        self.link("gone.md", "inner/missing.md")  # it aborted the build
        text, progress = build(self, self.root)
        self.assert_refused(text, progress, "leak.md", "host.txt")
        self.assertIn("build: skipped 1.2/gone.md: cannot read: No such file or directory",
                      progress)
        self.assertIn(BASE + "alias.html#inner # Inner\n\nA page linked from inside.", text)

    def test_an_llms_txt_index_and_the_page_it_links(self):
        write_tree(self.root, {"llms.txt": "# pkg\n\n## Docs\n\n- [Guide](guide.md)\n"
                                           "- [Secret](secret.md)\n",
                               "guide.md": "# Guide\n\nGreeting people.\n"})
        self.link("secret.md", os.path.join(self.outside, "SECRET.md"))
        text, progress = build(self, self.root)
        self.assert_refused(text, progress, "secret.md")
        self.assertIn("Greeting people.", text)

    def test_an_llms_txt_that_is_itself_a_link_out(self):
        write_tree(self.root, {"llms-full.txt": "# Guide\n\nGreeting people.\n"})
        self.link("llms.txt", os.path.join(self.outside, "SECRET.md"))
        with self.assertRaisesRegex(Exception, "no passages"):
            build(self, self.root)

    def test_a_sphinx_site_its_sources_pages_and_inventory(self):
        write_tree(self.root, {"index.html": GUIDE_HTML, "_sources/index.rst.txt": API_SOURCE})
        self.link("_sources/x.rst.txt", os.path.join(self.outside, "secret.rst.txt"))
        write_tree(self.root, {"y.html": GUIDE_HTML})
        self.link("_sources/y.rst.txt", os.path.join(self.outside, "secret.rst.txt"))
        write_tree(self.root, {"_sources/z.rst.txt": "Z\n=\n\nA page of its own.\n"})
        self.link("z.html", os.path.join(self.outside, "secret.html"))
        self.link("objects.inv", "/etc/hostname")
        text, progress = build(self, self.root)
        self.assert_refused(text, progress, "x.rst.txt", "y.rst.txt", "z.html", "objects.inv")

    def test_a_rendered_site(self):
        write_tree(self.root, {"index.html": GUIDE_HTML})
        self.link("secret.html", os.path.join(self.outside, "secret.html"))
        self.link("api/leak.html", "../../outside/secret.html")
        text, progress = build(self, self.root, format="html")
        self.assert_refused(text, progress, "secret.html", "api/leak.html")
        self.assertIn("Greeting people", text)

    def test_a_tree_that_is_a_link_is_read_where_it_leads(self):
        write_tree(self.outside, {"docs/guide.md": "# Guide\n\nGreeting people.\n"})
        os.symlink(os.path.join(self.outside, "docs"), self.root)
        text, _ = build(self, self.root)
        self.assertIn("Greeting people.", text)


class SpecialAndLargeFilesTest(unittest.TestCase):
    """Only regular files are read, each up to the size cap; names are checked and escaped."""

    def test_a_file_over_the_cap_is_skipped_and_reported(self):
        root = temporary_directory(self)
        write_tree(root, {"guide.md": "# Guide\n\nGreeting people.\n",
                          "huge.md": "# Huge\n\n" + "word " * 400 + "\n"})
        text, progress = build(self, root, max_file_bytes=1000)
        self.assertIn("build: skipped 1.2/huge.md: larger than the 1000-byte cap "
                      "(--max-file-bytes)", progress)
        self.assertNotIn("word word", text)
        self.assertIn("Greeting people.", text)

    def test_a_name_that_is_not_utf8_is_skipped_and_shown_escaped(self):
        root = temporary_directory(self)
        write_tree(root, {"guide.md": "# Guide\n\nGreeting people.\n"})
        with open(os.path.join(os.fsencode(root), b"caf\xe9\x1b[31m.md"), "wb") as handle:
            handle.write(b"# Latin\n\nA page whose name is Latin-1.\n")
        with open(os.path.join(root, "red\x1b[31m.md"), "w", encoding="utf-8") as handle:
            handle.write("# Red\n\nA page whose name holds an escape.\n")
        text, progress = build(self, root)
        self.assertIn("build: skipped 1.2/caf\\xe9\\x1b[31m.md: its name is not UTF-8\n", progress)
        self.assertNotIn("\x1b", progress)
        self.assertNotIn("Latin-1", text)
        self.assertIn("A page whose name holds an escape.", text)  # a UTF-8 name is read

    def test_a_fifo_is_skipped_not_waited_on(self):
        root = temporary_directory(self)
        write_tree(root, {"guide.md": "# Guide\n\nGreeting people.\n"})
        os.mkfifo(os.path.join(root, "pipe.md"))
        done = run_build(self, root)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("build: skipped 1.2/pipe.md: not a regular file", done.stderr)

    def test_the_cap_is_a_build_option(self):
        root = temporary_directory(self)
        write_tree(root, {"guide.md": "# Guide\n\nGreeting people.\n",
                          "big.md": "# Big\n\n" + "x" * 200 + "\n"})
        done = run_build(self, root, "--max-file-bytes", "100")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("build: skipped 1.2/big.md: larger than the 100-byte cap", done.stderr)
        refused = run_build(self, root, "--max-file-bytes", "0")
        self.assertEqual((refused.returncode, refused.stderr.count("\n")), (2, 1), refused.stderr)
        self.assertIn("--max-file-bytes 0 must be at least 1", refused.stderr)


class InventoryBombTest(unittest.TestCase):
    """An objects.inv that inflates past the cap is refused in one line, never inflated whole."""

    def test_a_zlib_bomb_is_refused_with_bounded_memory(self):
        root = temporary_directory(self)
        write_tree(root, {"index.html": GUIDE_HTML})
        # 32 MiB of one byte compress to 32 KB (the attack used 510 KB for 1 GB).
        bomb = zlib.compress(b"x" * (32 * 1024 * 1024), 9)
        with open(os.path.join(root, "objects.inv"), "wb") as handle:
            handle.write(INVENTORY_HEAD + bomb)
        tracemalloc.start()
        try:
            text, progress = build(self, root, max_file_bytes=1024 * 1024)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        self.assertIn("build: skipped 1.2/objects.inv: its compressed part inflates past the "
                      "1048576-byte cap (--max-file-bytes)\n", progress)
        self.assertIn("Greeting people", text)  # the build goes on without it
        self.assertLess(peak, 8 * 1024 * 1024)  # before: the whole 32 MiB, and more


def old_scan(text):
    """The tag scanner as it was (one regex): the reference the linear one must agree with (a
    comment's text as its raw member, which the readers look at for hidden prose)."""
    pattern = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>"
                         r"|<!--(.*?)-->", re.S)
    position = 0
    for match in pattern.finditer(text):
        tag = match.group(2)
        yield (position, match.start(), bool(match.group(1)),
               None if tag is None else tag.lower(),
               match.group(4) if tag is None else match.group(3))
        position = match.end()


class HostileHtmlTest(unittest.TestCase):
    """The tag scanner is linear in a page's size; nested sections cost linear memory."""

    def test_the_scanner_reads_what_the_old_regex_read(self):
        pieces = ["<", ">", '"', "'", "a", "/", "!", "-", " ", "=", "<a", "<!--", "-->", "</b",
                  "x\n", "<A", '<p class="x<y">', "'<'"]
        rng = random.Random(27)
        for _ in range(20000):
            text = "".join(rng.choice(pieces) for _ in range(rng.randrange(40)))
            self.assertEqual(list(scan(text)), list(old_scan(text)), text)
        for text in (API_HTML, GUIDE_HTML):
            self.assertEqual(list(scan(text)), list(old_scan(text)))

    def test_unterminated_tags_and_comments_are_read_in_linear_time(self):
        # 16 KB of each took the old scanner about 20 s; 25 times more takes the fixed builder
        # under a second. Built as a rendered site in a child, so the old code times out.
        root = temporary_directory(self)
        body = "<a" * 200_000 + "<!--" * 100_000 + '<a "' * 100_000
        write_tree(root, {"index.html": GUIDE_HTML, "hostile.html": GUIDE_HTML.replace(
            "</div></body>", body + "</div></body>")})
        done = run_build(self, root, "--format", "html")
        self.assertEqual(done.returncode, 0, done.stderr)

    def test_nested_sections_take_linear_memory(self):
        depth = 3000
        page = ('<html><body><div role="main">'
                + "".join(f'<section id="s{i}"><h2>Heading {i}</h2><p>Text {i}.</p>'
                          for i in range(depth))
                + "</section>" * depth + "</div></body></html>")
        tracemalloc.start()
        try:
            units = page_units(page)
            rendered = parse_page("page.html", page)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        self.assertLessEqual(max(unit.context.count("Heading") for unit in units),
                             MAX_SECTION_DEPTH + 1)
        self.assertEqual(len(rendered.sections), depth)
        self.assertEqual(max(len(found.path) for found in rendered.sections), MAX_SECTION_DEPTH)
        self.assertIn("Text 2999.", units[-1].body)  # deeper text still counts
        self.assertLess(peak, 16 * 1024 * 1024)  # before: 96 MB at this depth; now 1.5 MB


if __name__ == "__main__":
    unittest.main()
