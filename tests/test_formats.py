"""Unit: the ingest formats are one ordered registry, and the builder reads trees through it."""

import io
import os
import unittest
from unittest import mock

from retrieval.core.ranking import SECTION, IndexFields
from retrieval.ingest import builder, formats, sources
from retrieval.ingest.builder import DEFAULT_POLICY, Progress, SourceTree, build_snapshot
from retrieval.ingest.formats import Format, format_of
from retrieval.ingest.registry import registry
from retrieval.ingest.sources.form import (
    LocalTree,
    SourceError,
    SourceForm,
    SourceOptions,
    tree_form,
)
from retrieval.ingest.tree import read_file
from retrieval.ingest.unit import UnitDraft
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
                         ["sphinx", "html", "llms", "mkdocs", "package", "plain"])

    def test_the_package_format_reads_only_the_trees_a_package_source_names(self):
        package = next(entry for entry in formats.REGISTRY if entry.name == "package")
        self.assertIsNone(package.detect)
        self.assertIs(format_of(self.tree("plain", format="package")), package)
        self.assertNotIn("package", formats.CHOICES)  # not a --format choice
        with self.assertRaisesRegex(ValueError, "comes from a package source"):
            package.read(self.tree("plain", format="package"), Progress(io.StringIO()))

    def test_a_registry_refuses_a_name_given_twice(self):
        entries = (Format("a", None, list), Format("b", None, list), Format("a", None, list))
        with self.assertRaisesRegex(ValueError, "two registry entries are named 'a'"):
            registry(entries, lambda entry: entry.name)
        self.assertEqual(list(registry(entries[:2], lambda entry: entry.name)), ["a", "b"])

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


class ProgressTest(unittest.TestCase):
    def test_a_tree_s_line_counts_its_own_files_and_passages(self):
        # Of a project's many trees, each line counts the tree it names, not the build so far.
        stream = io.StringIO()
        progress = Progress(stream)
        progress.begin_tree()  # as read_passage_contents begins each tree
        progress.files = 3
        progress.tick("a/1.0", force=True)
        progress.passages = 5
        progress.tick("a/1.0", force=True)  # its last line, as every format's read ends
        progress.begin_tree()
        progress.files = 5
        progress.tick("b/2.0", force=True)
        progress.passages = 9
        progress.tick("b/2.0", force=True)
        self.assertEqual([line.rsplit(",", 1)[0] for line in stream.getvalue().splitlines()],
                         ["build: a/1.0: 3 files, 0 passages", "build: a/1.0: 3 files, 5 passages",
                          "build: b/2.0: 2 files, 0 passages", "build: b/2.0: 2 files, 4 passages"])


    def test_each_tree_of_a_build_is_counted_from_its_own_start(self):
        # read_passage_contents begins each tree: the second tree's last line counts its own
        # file and passages, not the first tree's too.
        base = class_temporary_directory(type(self))
        trees = []
        for name, text in (("one", "One\n===\n\nFirst.\n\nTwo\n===\n\nSecond.\n"),
                           ("two", "Three\n=====\n\nThird.\n")):
            write_tree(os.path.join(base, name), {"index.rst": text})
            trees.append(SourceTree("1.0", os.path.join(base, name), BASE, name))
        stream = io.StringIO()
        build_snapshot(trees, os.path.join(base, "snapshot"), DEFAULT_POLICY, Progress(stream))
        lines = [line.rsplit(",", 1)[0] for line in stream.getvalue().splitlines()
                 if line.startswith(("build: one/1.0: ", "build: two/1.0: "))]
        # one: 1 file, 4 passages; two: 1 file, 2 passages (6 in all, the last line says).
        self.assertEqual(lines, ["build: one/1.0: 1 files, 0 passages",
                                 "build: one/1.0: 1 files, 4 passages",
                                 "build: two/1.0: 1 files, 2 passages"])


class UnitDraftTest(unittest.TestCase):
    def test_drafts_of_equal_text_share_their_strings(self):
        # Every draft is held until the snapshot is written, and a build repeats texts and
        # fields (generated modules): equal strings are one object, their values unchanged.
        tree = SourceTree("1.0", "/nowhere", "https://docs.example.invalid/")
        body = "".join(["The color of the marker, as a name or as rgb values."])
        drafts = [UnitDraft.of(tree, f"{name}.py", "0" * 64, f"https://x.invalid/{name}", 1, 2,
                               "".join(["class ColorValidator:\n", '    """', body, '"""']),
                               "ColorValidator", IndexFields.of(
                                   kind=SECTION, in_links=0, noindex=False,
                                   reference_page=True, names="m.ColorValidator",
                                   name="ColorValidator", signature="",
                                   body="".join([body]), code="", context=name))
                  for name in ("a", "b")]
        first, second = (draft.content for draft in drafts)
        self.assertEqual(first["text"], f'class ColorValidator:\n    """{body}"""')
        self.assertIs(first["text"], second["text"])
        self.assertIs(first["fields"]["body"], second["fields"]["body"])
        self.assertEqual(first["fields"]["context"], "a")


class SourceFormsTest(unittest.TestCase):
    """Every --source value is planned and fetched by one registry, whatever its form."""

    def setUp(self):
        self.fetched = []
        self.options = SourceOptions("cache", "work", {"1.0": BASE})

    def first(self, form):
        """Return a patch of the registry with a test-only form tried first."""
        return mock.patch.object(sources, "FORMS", {form.scheme: form, **sources.FORMS})

    def fetch_local(self, requested, options):
        self.fetched.append(requested.value)
        return LocalTree("/trees/" + requested.spec.removeprefix("test:"))

    def test_every_form_of_source_is_one_row_of_one_registry(self):
        self.assertEqual(list(sources.FORMS), ["https://", "http://", "git+", "pypi:", "env:", ""])
        self.assertEqual([scheme for scheme, form in sources.FORMS.items() if not form.labelled],
                         ["pypi:", "env:"])
        self.assertTrue(sources.FORMS["https://"].gives_base_url)

    def test_values_are_told_apart_by_scheme_labelled_or_not(self):
        for value, scheme in (("pypi:attrs==23.1.0", "pypi:"), ("attrs/23.1=pypi:attrs==23.1.0",
                              "pypi:"), ("attrs=env:/venv", "env:"), ("3.11=docs/html", ""),
                              ("3.11=https://docs.example.org/", "https://"),
                              ("1.0=git+https://x/y.git@v1", "git+")):
            with self.subTest(value):
                self.assertIs(sources._requested(value)[0], sources.FORMS[scheme])

    def test_a_new_form_is_one_row_and_its_trees_come_back_as_source_trees(self):
        form = SourceForm("test:", tree_form(self.fetch_local), labelled=True)
        with self.first(form):
            trees = sources.resolve(["lib/1.0=test:one"], SourceOptions(
                "cache", "work", {"lib/1.0": BASE}, max_file_bytes=99))
        self.assertEqual(trees, [SourceTree("1.0", "/trees/one", BASE, "lib", "auto", 99)])
        self.assertEqual(self.fetched, ["lib/1.0=test:one"])

    def test_every_value_is_checked_before_any_is_fetched(self):
        form = SourceForm("test:", tree_form(self.fetch_local), labelled=True)
        refusals = (
            (["1.0=test:one", "2.0=test:two"], "--source 2.0 needs --base-url 2.0=URL"),
            (["1.0=test:one", "test:two"], "--source takes VERSION=VALUE, not 'test:two'"),
            (["1.0=test:one", "1.0=test:two"], "--source 1.0 given twice"),
            (["1.0=test:one", "x/y/1.0=test:two"], "collection 'x/y' must match"),
        )
        with self.first(form):
            for values, message in refusals:
                with self.subTest(values):
                    with self.assertRaisesRegex(SourceError, message):
                        sources.resolve(values, self.options)
        self.assertEqual(self.fetched, [])

    def test_a_base_url_of_no_source_is_refused(self):
        form = SourceForm("test:", tree_form(self.fetch_local), labelled=True)
        options = SourceOptions("cache", "work", {"1.0": BASE, "2.0": BASE})
        with self.first(form):
            with self.assertRaisesRegex(SourceError, "--base-url 2.0: no --source"):
                sources.resolve(["1.0=test:one"], options)
        self.assertEqual(self.fetched, [])


if __name__ == "__main__":
    unittest.main()
