"""Unit: the ingest formats are one ordered registry, and the builder reads trees through it."""

import io
import os
import unittest
from unittest import mock

from retrieval.core.ranking import SECTION, IndexFields
from retrieval.ingest import builder, formats, sources
from retrieval.ingest.builder import DEFAULT_POLICY, Progress, SourceTree, build_snapshot
from retrieval.ingest.formats import Format, format_of
from retrieval.ingest.tree import UnitDraft, read_file
from tests.support import class_temporary_directory
from tests.test_html_ingest import built_passages, write_tree

TIER = "unit"

BASE = "https://docs.example.org/1.0/"
# One tree of each kind, each holding what its format's detect looks for and nothing earlier
# formats look for.
TREES = {
    "sphinx": {"index.html": "<html><body>Index</body></html>\n",
               "_sources/index.rst.txt": "Index\n=====\n\nText.\n"},
    "html": {"index.html": '<html><head><meta name="generator" content="mkdocs-1.5.3">'
                           "</head><body>Index</body></html>\n"},
    "llms": {"llms.txt": "# Project\n\n## Docs\n\n- [Guide](guide.md)\n",
             "guide.md": "# Guide\n\nText.\n"},
    "mkdocs": {"mkdocs.yml": "site_name: Project\n", "docs/index.md": "# Project\n\nText.\n"},
    "plain": {"guide.rst": "Guide\n=====\n\nText.\n"},
}
QUOTES = "QUOTES.txt"  # the mark of the test-only format's trees


def read_quotes(tree: SourceTree, progress: Progress) -> list:
    """Read the test-only format: its one file, quoted whole as one unit."""
    text, sha256 = read_file(tree, QUOTES, progress)
    facts = IndexFields.of(kind=SECTION, in_links=0, noindex=False, reference_page=True,
                           names="", name="", signature="", body=text, code="", context=QUOTES)
    return [UnitDraft.of(tree, QUOTES, sha256, tree.base_url + "quotes", 1, text.count("\n"),
                         text.rstrip("\n"), "Quotes", facts)]


QUOTES_FORMAT = Format("quotes", lambda root: os.path.isfile(os.path.join(root, QUOTES)),
                       read_quotes)


class RegistryTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.base = class_temporary_directory(cls)
        for name, files in TREES.items():
            write_tree(os.path.join(cls.base, name), files)

    def tree(self, name, **options) -> SourceTree:
        return SourceTree("1.0", os.path.join(self.base, name), BASE, **options)

    def test_the_formats_are_tried_in_the_documented_order(self):
        self.assertEqual([entry.name for entry in formats.REGISTRY],
                         ["sphinx", "html", "llms", "mkdocs", "plain"])

    def test_each_tree_is_read_by_its_own_format(self):
        for name in TREES:
            with self.subTest(name):
                entry = next(entry for entry in formats.REGISTRY if entry.name == name)
                self.assertTrue(entry.detect(self.tree(name).root))
                self.assertIs(format_of(self.tree(name)), entry)

    def test_a_sphinx_site_is_also_a_rendered_site_and_any_tree_a_plain_one(self):
        # Why the order matters: a later format's detect holds for the earlier kinds too.
        html = next(entry for entry in formats.REGISTRY if entry.name == "html")
        plain = formats.REGISTRY[-1]
        site = self.tree("sphinx").root
        write_tree(site, {"objects.inv": ""})
        self.addCleanup(os.remove, os.path.join(site, "objects.inv"))
        self.assertTrue(html.detect(site))
        self.assertTrue(all(plain.detect(self.tree(name).root) for name in TREES))

    def test_format_choices_are_auto_and_the_formats_that_may_be_named(self):
        self.assertEqual(builder.FORMATS, ("auto", "html"))
        self.assertEqual(formats.CHOICES, builder.FORMATS)
        self.assertEqual(format_of(self.tree("sphinx", format="html")).name, "html")

    def test_the_builder_reads_a_tree_with_a_format_added_to_the_registry(self):
        root = os.path.join(self.base, "quoted")
        write_tree(root, {QUOTES: "Evidence, quoted whole.\n", "guide.rst": "Not read.\n"})
        out = os.path.join(self.base, "snapshot")
        with mock.patch.object(formats, "REGISTRY", (QUOTES_FORMAT, *formats.REGISTRY)):
            build_snapshot([SourceTree("1.0", root, BASE)], out, DEFAULT_POLICY,
                           Progress(io.StringIO()))
        self.assertEqual(list(built_passages(out).items()), [
            (BASE + "quotes", (QUOTES, mock.ANY, 1, 1, "Evidence, quoted whole.",
                               "Quotes", SECTION))])


class SourceFormsTest(unittest.TestCase):
    def test_every_form_of_source_is_one_entry_of_one_registry(self):
        self.assertEqual(list(sources.FETCHERS), ["https://", "http://", "git+", "pypi:", "env:"])
        self.assertEqual([scheme for scheme, fetcher in sources.FETCHERS.items()
                          if isinstance(fetcher, sources.PackageFetcher)], ["pypi:", "env:"])

    def test_package_forms_are_told_from_trees_labelled_or_not(self):
        self.assertEqual(sources.scheme_of("pypi:attrs==23.1.0"), "pypi:")
        self.assertEqual(sources.scheme_of("attrs/23.1=pypi:attrs==23.1.0"), "pypi:")
        self.assertEqual(sources.scheme_of("attrs=env:/venv"), "env:")
        for tree in ("3.11=docs/html", "https://docs.example.org/", "git+https://x/y.git@v1"):
            with self.subTest(tree):
                self.assertIsNone(sources.scheme_of(tree))
        self.assertTrue(sources.is_local("docs/html"))
        self.assertFalse(sources.is_local("git+https://x/y.git@v1"))
        self.assertTrue(sources.gives_base_url("https://docs.example.org/"))


if __name__ == "__main__":
    unittest.main()
