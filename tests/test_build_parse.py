"""Unit: documentation sources become exact, anchored paragraphs."""

import os
import tempfile
import unittest

from retrieval.ingest.readers.blocks import MAX_PASSAGE_BYTES, Paragraph
from retrieval.ingest.readers.markdown import markdown_sections
from retrieval.ingest.readers.text import page_url, parse_source
from retrieval.ingest.tree import decode_source, iter_source_files, source_kind

TIER = "unit"

P = Paragraph

# A pathlib-like page: line numbers matter, so the expected values below cite them.
PATHLIB_RST = """\
.. _pathlib-module:

:mod:`!pathlib` --- Object-oriented filesystem paths
====================================================

.. module:: pathlib
   :synopsis: Object-oriented filesystem paths

.. versionadded:: 3.4

.. index:: single: path; operations
   pair: module; pathlib

--------------

This module offers classes representing filesystem paths.

.. toctree::
   :maxdepth: 1

   pathlib-examples

.. This comment is not documentation.

   Neither is this indented part of it.

.. _pathlib-concrete-paths:

Concrete paths
--------------

.. class:: Path(*pathsegments)

   A subclass of PurePath that can make system calls.

   .. method:: write_text(data, encoding=None)

      Open the file in text mode, write *data* to it, and close the file.

   .. method:: Path.read_text(encoding=None)

      Return the decoded contents of the file.

   Back in the class body.

.. function:: is_hidden(path)

   Tell whether *path* names a hidden file.

After the function body.

.. _Closing_Remarks:

A paragraph under the label.

.. index:: single: glob

Other notes
===========

Last words.
"""


class RstTest(unittest.TestCase):
    def test_pathlib_page(self):
        title = ":mod:`!pathlib` --- Object-oriented filesystem paths\n" + "=" * 52
        self.assertEqual(parse_source("library/pathlib.rst.txt", PATHLIB_RST), [
            # The label right above the title names the section (lines 1, 3-4).
            P(3, 4, title, "pathlib-module"),
            P(6, 7, ".. module:: pathlib\n   :synopsis: Object-oriented filesystem paths",
              "module-pathlib"),
            P(9, 9, ".. versionadded:: 3.4", "module-pathlib"),
            # 11-12 index, 14 transition, 18-21 toctree with its body, 23-25 comment: dropped.
            P(16, 16, "This module offers classes representing filesystem paths.",
              "module-pathlib"),
            P(29, 30, "Concrete paths\n--------------", "pathlib-concrete-paths"),
            P(32, 32, ".. class:: Path(*pathsegments)", "pathlib.Path"),
            P(34, 34, "   A subclass of PurePath that can make system calls.", "pathlib.Path"),
            P(36, 36, "   .. method:: write_text(data, encoding=None)",
              "pathlib.Path.write_text"),
            P(38, 38, "      Open the file in text mode, write *data* to it, and close the file.",
              "pathlib.Path.write_text"),
            P(40, 40, "   .. method:: Path.read_text(encoding=None)", "pathlib.Path.read_text"),
            P(42, 42, "      Return the decoded contents of the file.", "pathlib.Path.read_text"),
            P(44, 44, "   Back in the class body.", "pathlib.Path"),
            P(46, 46, ".. function:: is_hidden(path)", "pathlib.is_hidden"),
            P(48, 48, "   Tell whether *path* names a hidden file.", "pathlib.is_hidden"),
            # The function body ended: back to the label in force before the class.
            P(50, 50, "After the function body.", "pathlib-concrete-paths"),
            # A label alone names what follows, normalized as docutils does.
            P(54, 54, "A paragraph under the label.", "closing-remarks"),
            P(58, 59, "Other notes\n===========", "other-notes"),
            P(61, 61, "Last words.", "other-notes"),
        ])

    def test_stacked_labels_and_a_label_without_blank_line(self):
        source = ".. _first:\n.. _second:\nText right below.\n"
        self.assertEqual(parse_source("a.rst", source), [P(3, 3, "Text right below.", "second")])

    def test_external_targets_and_substitutions(self):
        source = (".. _Python: https://www.python.org/\n\nSee Python_.\n\n"
                  ".. |today| replace:: now\n\n.. [1] A footnote.\n")
        self.assertEqual(parse_source("a.rst", source), [
            P(3, 3, "See Python_.", None),
            P(5, 5, ".. |today| replace:: now", None),
            P(7, 7, ".. [1] A footnote.", None),
        ])

    def test_empty_comment_owns_no_body(self):
        source = "..\n\n   A block quote.\n\n.. comment\n   body\n\nText.\n"
        self.assertEqual(parse_source("a.rst", source), [
            P(3, 3, "   A block quote.", None),
            P(8, 8, "Text.", None),
        ])

    def test_overline_title_and_repeated_section(self):
        source = "=======\nExample\n=======\n\nOne.\n\nExample\n-------\n\nTwo.\n"
        self.assertEqual(parse_source("a.rst", source), [
            P(1, 3, "=======\nExample\n=======", "example"),
            P(5, 5, "One.", "example"),
            # docutils numbers a repeated id from a document-wide counter: no guessable anchor.
            P(7, 8, "Example\n-------", None),
            P(10, 10, "Two.", None),
        ])

    def test_section_id_comes_from_the_title_text_without_role_names(self):
        source = "The :class:`Path` class\n=======================\n\nText.\n"
        self.assertEqual([p.anchor for p in parse_source("a.rst", source)],
                         ["the-path-class", "the-path-class"])

    def test_currentmodule_noindex_and_qualified_names(self):
        source = """\
.. currentmodule:: os.path

.. function:: os.path.join(a, *p)

.. function:: exists(path)
   :no-index:

   Same as above.

.. class:: Outer

   .. class:: Inner

      .. attribute:: value

   .. py:method:: Outer.run()

.. function:: walk(top)
   :module: os
"""
        anchors = [(p.start_line, p.anchor) for p in parse_source("a.rst", source)]
        self.assertEqual(anchors, [
            (1, None),  # currentmodule sets the module, not an anchor
            (3, "os.path.join"),  # already qualified: not os.path.os.path.join
            (5, None), (8, None),  # no-index: Sphinx makes no id
            (10, "os.path.Outer"),
            (12, "os.path.Outer.Inner"),
            (14, "os.path.Outer.Inner.value"),
            (16, "os.path.Outer.run"),
            (18, "os.walk"),
        ])

    def test_comment_at_column_zero_ends_a_class_body(self):
        source = ".. class:: C\n\n   Body.\n\n.. a comment\n\nAfter.\n"
        self.assertEqual([(p.start_line, p.anchor) for p in parse_source("a.rst", source)],
                         [(1, "C"), (3, "C"), (7, None)])

    def test_crlf_is_kept_byte_exact(self):
        source = ".. _crlf-label:\r\n\r\nTitle\r\n=====\r\n\r\nBody line\r\nsecond\r\n"
        self.assertEqual(parse_source("a.rst", source), [
            P(3, 4, "Title\r\n=====\r", "crlf-label"),
            P(6, 7, "Body line\r\nsecond\r", "crlf-label"),
        ])


MARKDOWN = """\
---
title: front matter is not text
---
# Pathlib Guide

Intro text.
## Writing files

```python
p.write_text("x")

# not a heading
```

## Writing files

Again.

### Writing files
~~~
## inside tilde
~~~
After the fence.

## What's new in `pathlib` 3.12?

Text.

## See [the docs](https://docs.python.org/) #
## A heading with nothing of its own
### Ünïcode -- and  spaces

Last.
"""


class MarkdownTest(unittest.TestCase):
    """One passage per heading's own text: heading and content up to the next heading."""

    def test_sections_duplicates_fences_and_front_matter(self):
        self.assertEqual(parse_source("guide/pathlib.md", MARKDOWN), [
            P(4, 6, "# Pathlib Guide\n\nIntro text.", "pathlib-guide"),
            P(7, 13, '## Writing files\n\n```python\np.write_text("x")\n\n# not a heading\n```',
              "writing-files"),
            P(15, 17, "## Writing files\n\nAgain.", "writing-files-1"),
            P(19, 23, "### Writing files\n~~~\n## inside tilde\n~~~\nAfter the fence.",
              "writing-files-2"),
            P(25, 27, "## What's new in `pathlib` 3.12?\n\nText.", "whats-new-in-pathlib-312"),
            P(31, 33, "### Ünïcode -- and  spaces\n\nLast.", "ünïcode----and--spaces"),
        ])

    def test_mkdocs_slugs(self):
        sections = markdown_sections(MARKDOWN.split("\n"), "mkdocs")
        self.assertEqual([section.anchor for section in sections], [
            "pathlib-guide", "writing-files", "writing-files_1", "writing-files_2",
            "whats-new-in-pathlib-312", "unicode-and-spaces"])
        self.assertEqual(sections[-1].path, ("Pathlib Guide", "A heading with nothing of its own",
                                             "Ünïcode -- and  spaces"))

    def test_an_attr_list_id_names_the_mkdocs_anchor(self):
        sections = markdown_sections(
            ["## Install it {#install .big}", "", "Run pip.", "## Install it", "", "Again."],
            "mkdocs+attr_list")
        self.assertEqual([(s.heading, s.anchor) for s in sections],
                         [("Install it", "install"), ("Install it", "install-it")])
        without = markdown_sections(["## Install it {#install .big}", "", "Run pip."], "mkdocs")
        self.assertEqual(without[0].anchor, "install-it-install-big")  # as MkDocs 1.4 renders

    def test_a_myst_target_or_comment_renders_nothing_of_a_section(self):
        # attrs' how-does-it-work.md opens with `(how)=`, a label of its title: no text before
        # it; a heading with a `%` comment alone below it is a heading alone.
        sections = markdown_sections(["(how)=", "", "# How?", "", "% a comment", "",
                                      "## Boilerplate", "", "Text."], "sphinx")
        self.assertEqual([section.heading for section in sections], ["Boilerplate"])
        # Elsewhere (GitHub) they are text.
        self.assertEqual(len(markdown_sections(["(how)=", "", "# How?"])), 1)

    def test_setext_headings(self):
        source = "Goat\n====\n\nIntro.\n\nFeeding\n-------\nHay.\n\n- a list\n---\n"
        self.assertEqual(parse_source("a.md", source), [
            P(1, 4, "Goat\n====\n\nIntro.", "goat"),
            P(6, 11, "Feeding\n-------\nHay.\n\n- a list\n---", "feeding"),
        ])
        self.assertEqual([s.path for s in markdown_sections(source.split("\n"))],
                         [("Goat",), ("Goat", "Feeding")])

    def test_a_heading_alone_is_no_passage(self):
        self.assertEqual(parse_source("a.md", "# One\n## Two\n\n### Three\n"), [])

    def test_unclosed_fence_runs_to_the_end(self):
        self.assertEqual(parse_source("a.md", "```\na\n\n# b\n\n"),
                         [P(1, 4, "```\na\n\n# b", None)])

    def test_a_fence_is_never_cut_when_it_fits(self):
        prose, code = "p" * 1200, "c" * 1200
        source = f"# Code\n\n{prose}\n\n```\n{code}\n```\n\nAfter.\n"
        self.assertEqual(parse_source("a.md", source), [
            P(1, 3, f"# Code\n\n{prose}", "code"),
            P(5, 9, f"```\n{code}\n```\n\nAfter.", "code"),
        ])

    def test_long_fence_is_cut_on_lines_with_its_heading(self):
        body = "x" * 1000
        source = f"# Code\n\n```\n{body}\n{body}\n{body}\n```\n"
        self.assertEqual(parse_source("a.md", source), [
            P(1, 5, f"# Code\n\n```\n{body}\n{body}", "code"),
            P(6, 7, f"{body}\n```", "code"),
        ])
        self.assertTrue(all(len(p.text.encode()) <= MAX_PASSAGE_BYTES
                            for p in parse_source("a.md", source)))

    def test_crlf_heading(self):
        self.assertEqual(parse_source("a.md", "# Hi there\r\ntext\r\n"), [
            P(1, 2, "# Hi there\r\ntext\r", "hi-there"),
        ])


class TextTest(unittest.TestCase):
    def test_paragraphs_have_no_anchor_and_markup_is_just_text(self):
        source = "First para\nline two\n\n  \t\n# not a heading\n.. _not-a-label:\n"
        self.assertEqual(parse_source("notes.txt", source), [
            P(1, 2, "First para\nline two", None),
            P(5, 6, "# not a heading\n.. _not-a-label:", None),
        ])

    def test_empty_source_has_no_paragraphs(self):
        self.assertEqual(parse_source("a.txt", ""), [])
        self.assertEqual(parse_source("a.rst", "\n \n"), [])


class SplitTest(unittest.TestCase):
    def test_limit(self):
        self.assertEqual(MAX_PASSAGE_BYTES, 2048)

    def test_greedy_split_on_line_boundaries(self):
        line = "a" * 1000
        self.assertEqual(parse_source("a.txt", f"{line}\n{line}\n{line}"), [
            P(1, 2, f"{line}\n{line}", None),
            P(3, 3, line, None),
        ])

    def test_exactly_the_limit_is_one_piece(self):
        source = "a" * 1023 + "\n" + "b" * 1024  # 1023 + 1 + 1024 = 2048 bytes
        self.assertEqual(parse_source("a.txt", source), [P(1, 2, source, None)])
        longer = "a" * 1024 + "\n" + "b" * 1024
        self.assertEqual([(p.start_line, p.end_line) for p in parse_source("a.txt", longer)],
                         [(1, 1), (2, 2)])

    def test_size_is_counted_in_utf8_bytes(self):
        line = "é" * 700  # 1400 bytes, 700 characters
        self.assertEqual([(p.start_line, p.end_line) for p in
                          parse_source("a.txt", f"{line}\n{line}")], [(1, 1), (2, 2)])

    def test_a_line_over_the_limit_is_its_own_piece_and_is_never_cut(self):
        long_line = "z" * 3000
        self.assertEqual(parse_source("a.txt", f"head\n{long_line}\ntail\n"), [
            P(1, 1, "head", None),
            P(2, 2, long_line, None),
            P(3, 3, "tail", None),
        ])

    def test_pieces_keep_the_anchor(self):
        line = "w" * 1500
        source = f"Title\n=====\n\n{line}\n{line}\n"
        self.assertEqual(parse_source("a.rst", source), [
            P(1, 2, "Title\n=====", "title"),
            P(4, 4, line, "title"),
            P(5, 5, line, "title"),
        ])


class NamesTest(unittest.TestCase):
    BASE = "https://docs.python.org/3.12/"

    def test_source_kind(self):
        self.assertEqual(source_kind("library/pathlib.rst.txt"), "rst")
        self.assertEqual(source_kind("library/pathlib.rst"), "rst")
        self.assertEqual(source_kind("guide.md"), "markdown")
        self.assertEqual(source_kind("notes.txt"), "text")
        self.assertIsNone(source_kind("conf.py"))
        self.assertIsNone(source_kind("pathlib.rst.bak"))

    def test_page_url(self):
        self.assertEqual(page_url(self.BASE, "library/pathlib.rst.txt"),
                         "https://docs.python.org/3.12/library/pathlib.html")
        self.assertEqual(page_url(self.BASE, "library/pathlib.rst"),
                         "https://docs.python.org/3.12/library/pathlib.html")
        self.assertEqual(page_url(self.BASE, "guide/intro.md"),
                         "https://docs.python.org/3.12/guide/intro.html")
        self.assertEqual(page_url(self.BASE, "a/b/c/notes.txt"),
                         "https://docs.python.org/3.12/a/b/c/notes.html")
        self.assertEqual(page_url(self.BASE, "whatsnew/3.12.rst.txt"),
                         "https://docs.python.org/3.12/whatsnew/3.12.html")
        self.assertEqual(page_url(self.BASE, "index.rst"),
                         "https://docs.python.org/3.12/index.html")

    def test_page_url_refuses_bad_input(self):
        with self.assertRaises(ValueError):
            page_url(self.BASE, "conf.py")
        with self.assertRaises(ValueError):
            page_url("https://docs.python.org/3.12", "index.rst")

    def test_parse_source_refuses_unsupported_files(self):
        with self.assertRaises(ValueError):
            parse_source("conf.py", "x = 1\n")


class FilesTest(unittest.TestCase):
    def test_iter_source_files_sorts_and_skips(self):
        with tempfile.TemporaryDirectory() as root:
            names = ["b.rst", "a.md", "a/z.txt", "a/x.rst.txt", "a/.cache/q.rst", ".hidden/h.rst",
                     "img.png", "conf.py", ".#b.rst", "c/d/deep.md"]
            for name in names:
                path = os.path.join(root, *name.split("/"))
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as handle:
                    handle.write(b"x\n")
            found = list(iter_source_files(root))
        expected = ["a.md", "a/x.rst.txt", "a/z.txt", "b.rst", "c/d/deep.md"]
        self.assertEqual([relative for relative, _ in found], expected)
        self.assertEqual([absolute for _, absolute in found],
                         [os.path.join(root, *name.split("/")) for name in expected])

    def test_decode_source(self):
        self.assertEqual(decode_source(b"caf\xc3\xa9\r\n"), "café\r\n")
        self.assertEqual(decode_source(b"\xef\xbb\xbfx"), "\ufeffx")  # nothing is stripped
        with self.assertRaises(UnicodeDecodeError):
            decode_source(b"ok\n\xff\n")
        with self.assertRaises(UnicodeDecodeError):
            decode_source(b"\xed\xa0\x80")  # an encoded surrogate is not UTF-8


if __name__ == "__main__":
    unittest.main()
