"""A Sphinx page's `.. include::` and `.. literalinclude::`, read as Sphinx renders them.

Small hand-written release trees are read through the package format: an included file's
sections are units of the including page, at the ids docutils gives them there (checked against
docutils itself where it is installed), each quoted byte-exact from the file its lines are in;
the include's options; which files are pages; the bounds (outside the tree, circular, depth).
"""

import io
import os
import unittest

from retrieval.ingest.formats.package import read_package_contents
from retrieval.ingest.formats.sphinx_include import MAX_DEPTH
from retrieval.ingest.tree import PackageLayout, Progress, SourceTree
from tests.support import require_module, temporary_directory
from tests.test_sphinx_source import write

TIER = "unit"

DOCS = "https://docs.example/demo/1.0/"

CONF = 'exclude_patterns = ["*_include.rst"]\n'

# The page: its own "Examples" first, so the included file's is docutils' next idN; a label in
# the included file, linked from another page.
CHANGES_PAGE = """\
Changes
=======

Examples
--------

The page's own examples.

.. include:: ../CHANGES.rst

After the inclusion
-------------------

The page goes on.
"""

CHANGES = """\
Version 1.0
-----------

Released today.

.. _examples-of-1:

Examples
--------

Examples of version 1.0.

Version 0.9
-----------

Released before.
"""

GUIDE = """\
Guide
=====

.. include:: _nav_include.rst

.. include:: snippets.rst.inc
   :start-after: .. start-here
   :end-before: .. stop-here

See :ref:`examples-of-1`.

Example code
------------

.. literalinclude:: ../examples/demo.py
   :start-after: import os
   :lines: 2-3

.. include:: ../examples/demo.py
   :literal:
"""

NAV = """\
.. topic:: Navigation

   Previous and next pages.
"""

SNIPPETS = """\
Not this.

.. start-here

Snippet section
---------------

The part between the markers.

.. stop-here

Nor this.
"""

DEMO_PY = """\
import os

def frobnicate_widgets(count):
    return os.sep * count

def never_shown():
    pass
"""


# The docutils settings Sphinx reads a page with (sphinx.environment's default_settings) that
# bear on ids: no document title taken out of the sections, docutils' `idN` for a taken id.
SPHINX_SETTINGS = {"doctitle_xform": False, "auto_id_prefix": "id", "report_level": 5}


def units(root: str, progress_out: io.StringIO | None = None, modules: tuple = ()) -> list:
    """Return the unit contents of a release tree's docs folder, read by the package format."""
    tree = SourceTree("1.0", root, DOCS, "demo", "package",
                      package=PackageLayout(modules, "docs", DOCS, "pypi:demo==1.0/"))
    progress = Progress(progress_out if progress_out is not None else io.StringIO())
    return [draft.content for draft in read_package_contents(tree, progress)]


def placed(found: list, page: str) -> list:
    """Return (url, source_id, title) of each unit of found on a page, in order."""
    return [(unit["url"], unit["source_id"], unit["title"]) for unit in found
            if unit["url"].startswith(page)]


def anchors(found: list, page: str) -> list:
    """Return the `#id` (or "" for the page alone) of each unit of found on a page, in order."""
    return [url.removeprefix(page) for url, _, _ in placed(found, page)]


def assert_quoted(test: unittest.TestCase, root: str, found: list):
    """Assert that each unit quotes exactly the lines of the file it names."""
    for unit in found:
        with open(os.path.join(root, *unit["source_id"].split("/")), encoding="utf-8") as source:
            lines = source.read().split("\n")
        test.assertEqual(unit["text"], "\n".join(
            lines[unit["start_line"] - 1:unit["end_line"]]), unit["url"])


class IncludeTest(unittest.TestCase):

    def setUp(self):
        self.root = temporary_directory(self)
        write(self.root, {"docs/conf.py": CONF, "docs/changes.rst": CHANGES_PAGE,
                          "CHANGES.rst": CHANGES, "docs/guide.rst": GUIDE,
                          "docs/_nav_include.rst": NAV, "docs/snippets.rst.inc": SNIPPETS,
                          "examples/demo.py": DEMO_PY})

    def test_an_included_files_sections_are_the_including_pages_at_its_ids(self):
        page = DOCS + "changes.html"
        self.assertEqual(placed(units(self.root), page), [
            (page + "#changes", "docs/changes.rst", "Changes"),
            (page + "#examples", "docs/changes.rst", "Examples"),
            (page + "#version-1-0", "CHANGES.rst", "Version 1.0"),
            # Its title's id taken on the page: docutils' next idN, the page's numbering; the
            # label above it is the id Sphinx renders the section at (`<section
            # id="examples-of-1"><span id="id1">`, as Debian's SQLAlchemy and pytest pages do).
            (page + "#examples-of-1", "CHANGES.rst", "Examples"),
            (page + "#version-0-9", "CHANGES.rst", "Version 0.9"),
            (page + "#after-the-inclusion", "docs/changes.rst", "After the inclusion")])

    def test_the_ids_are_the_ones_docutils_gives(self):
        require_module(self, "docutils", "test")
        from docutils.core import publish_doctree
        from docutils.nodes import section

        with open(os.path.join(self.root, "docs", "changes.rst"), encoding="utf-8") as page:
            tree = publish_doctree(page.read(), source_path=os.path.join(
                self.root, "docs", "changes.rst"), settings_overrides=SPHINX_SETTINGS)
        # docutils lists a repeated title's idN first, Sphinx's pages the label's: each is
        # one of the section's ids docutils gives.
        rendered = [node["ids"] for node in tree.findall(section)]
        ours = [unit["url"].rpartition("#")[2] for unit in units(self.root)
                if unit["url"].startswith(DOCS + "changes.html")]
        self.assertEqual(len(ours), len(rendered))
        for anchor, ids in zip(ours, rendered, strict=True):
            self.assertIn(anchor, ids)
        self.assertIn("id1", rendered[3])

    def test_each_unit_quotes_the_lines_of_the_file_they_are_in(self):
        assert_quoted(self, self.root, units(self.root))
        # The page's own section ends its quoted lines where the inclusion starts.
        examples = next(unit for unit in units(self.root)
                        if unit["url"] == DOCS + "changes.html#examples")
        self.assertEqual((examples["start_line"], examples["end_line"]), (4, 7))

    def test_a_label_in_an_included_file_lands_on_the_including_page(self):
        unit = next(unit for unit in units(self.root)
                    if unit["url"] == DOCS + "changes.html#examples-of-1")
        self.assertEqual(unit["in_links"], 1)  # guide.rst's :ref:`examples-of-1`

    def test_start_after_and_end_before_and_which_files_are_pages(self):
        found = units(self.root)
        snippet = next(unit for unit in found if unit["title"] == "Snippet section")
        self.assertEqual((snippet["url"], snippet["source_id"]),
                         (DOCS + "guide.html#snippet-section", "docs/snippets.rst.inc"))
        self.assertNotIn("Nor this", snippet["text"])
        texts = " ".join(unit["fields"]["body"] for unit in found)
        self.assertNotIn("Not this", texts)
        self.assertNotIn("Nor this", texts)
        self.assertIn("Previous and next pages.", texts)  # the excluded file, included
        # Neither the excluded file, nor one of another suffix, nor one outside the Sphinx
        # root is a page of its own: each is published where it is included only.
        pages = {unit["url"].partition("#")[0] for unit in found}
        self.assertEqual(pages, {DOCS + "changes.html", DOCS + "guide.html"})

    def test_a_file_included_that_is_a_page_too_keeps_its_units_at_its_own_page(self):
        write(self.root, {"docs/index.rst": "Index\n=====\n\n.. include:: intro.rst\n",
                          "docs/intro.rst": "Intro\n-----\n\nRead me first.\n"})
        where = [(unit["url"], unit["source_id"]) for unit in units(self.root)
                 if "Read me first." in unit["text"]]
        self.assertEqual(where, [(DOCS + "intro.html#intro", "docs/intro.rst")])

    def test_a_literal_includes_code_is_indexed_with_the_unit_it_is_in(self):
        section = next(unit for unit in units(self.root) if unit["title"] == "Example code")
        self.assertEqual(section["source_id"], "docs/guide.rst")
        self.assertIn(".. literalinclude:: ../examples/demo.py", section["text"])
        code = section["fields"]["code"]
        # Sphinx's order: :start-after: first, then :lines: of what is left.
        self.assertIn("def frobnicate_widgets(count):\n    return os.sep * count", code)
        self.assertIn("def never_shown", code)  # the :literal: include shows the whole file
        self.assertEqual(code.count("frobnicate_widgets"), 2)

    def test_a_literalinclude_s_pyobject_shows_that_definition(self):
        # trio's and pyramid's `.. literalinclude:: x.py` with `:pyobject: Class.method`:
        # Sphinx's ModuleAnalyzer tags, decorators on, the last of a name, a function's own
        # definitions none; then :lines: of what is left.
        write(self.root, {
            "docs/conf.py": "",
            "docs/code.rst": ("Code\n====\n\n.. literalinclude:: ../lib.py\n"
                              "   :pyobject: Engine.run\n\n"
                              ".. literalinclude:: ../lib.py\n   :pyobject: helper\n"
                              "   :lines: 2-\n\n"
                              ".. literalinclude:: ../lib.py\n   :pyobject: helper.inner\n"),
            "lib.py": ("class Engine:\n    @staticmethod\n    def run():\n"
                       "        return 'engine-runs'\n\n\n"
                       "def helper():\n    return 'first-helper'\n\n\n"
                       "@decorated\ndef helper():\n    def inner():\n        pass\n"
                       "    return 'second-helper'\n")})
        said = io.StringIO()
        [code] = [unit["fields"]["code"] for unit in units(self.root, said)
                  if unit["title"] == "Code"]
        self.assertIn("@staticmethod\n    def run():\n        return 'engine-runs'", code)
        self.assertIn("def helper():\n    def inner():", code)  # :lines: 2- of the second
        self.assertNotIn("@decorated", code)
        self.assertNotIn("first-helper", code)
        self.assertIn("no object 'helper.inner'", said.getvalue())

    def test_a_myst_pages_include_directive_renders_the_file_in_the_page(self):
        # attrs 22.2.0's docs/changelog.md: MyST's fenced `{include}` of ../CHANGELOG.md, its
        # options YAML (quoted or not); the file's sections are the page's, each unit quoted
        # from the file its lines are in, up to where the page's own lines take over.
        write(self.root, {
            "docs/conf.py": 'extensions = ["myst_parser"]\n',
            "docs/log.md": ("```{include} ../LOG.md\n:end-before: 'Upcoming'\n```\n\n"
                            "Page text.\n\n```{include} ../LOG.md\n"
                            ":start-after: notes start -->\n```\n"),
            "LOG.md": ("# Log\n\nIntro.\n\nUpcoming changes: elsewhere.\n\n"
                       "<!-- notes start -->\n\n## 1.0\n\nFirst.\n")})
        found = units(self.root)
        page = DOCS + "log.html"
        self.assertEqual([(url.removeprefix(page), source) for url, source, _ in
                          placed(found, page)],
                         [("#log", "LOG.md"), ("#id1", "LOG.md")])
        assert_quoted(self, self.root, [unit for unit in found
                                        if unit["url"].startswith(page)])

    def test_a_myst_pages_include_parsed_by_myst_is_read_in_the_page(self):
        # structlog's license.md: `{include} ../README.md` with `:parser: myst_parser.sphinx_`,
        # MyST's own: the file's sections are the page's; so are they where an eval-rst block
        # holds such an include alone (its index.md). Another parser's is not read.
        write(self.root, {
            "docs/conf.py": 'extensions = ["myst_parser"]\n',
            "docs/credits.md": ("# Credits\n\nThanks.\n\n```{include} ../README.md\n"
                                ":parser: myst_parser.sphinx_\n:start-after: \"## Credits\"\n"
                                "```\n\n```{include} ../notes.txt\n:parser: rst\n```\n"),
            "docs/index.md": ("# Index\n\nHello.\n\n```{eval-rst}\n.. include:: ../README.md\n"
                              "   :parser: myst_parser.sphinx_\n   :start-after: # Demo\n"
                              "   :end-before: <!-- end -->\n\n```\n"),
            "README.md": ("# Demo\n\n## Sponsors\n\nThe sponsors.\n\n<!-- end -->\n\n"
                          "## Credits\n\n### People\n\nThe people.\n"),
            "notes.txt": "Notes\n=====\n\nNot read.\n"})
        found = units(self.root)
        page = DOCS + "credits.html"
        self.assertEqual([(url.removeprefix(page), source) for url, source, _ in
                          placed(found, page)],
                         [("#credits", "docs/credits.md"), ("#people", "README.md")])
        index = DOCS + "index.html"
        self.assertEqual([(url.removeprefix(index), source) for url, source, _ in
                          placed(found, index)],
                         [("#index", "docs/index.md"), ("#sponsors", "README.md")])
        assert_quoted(self, self.root, found)

    def test_an_include_outside_the_tree_circular_or_too_deep_is_reported_not_read(self):
        outside = temporary_directory(self)
        write(outside, {"secret.rst": "Secret\n======\n\nNot of the release.\n"})
        os.symlink(os.path.join(outside, "secret.rst"), os.path.join(self.root, "docs",
                                                                     "linked.inc"))
        depth = MAX_DEPTH + 2
        chain = {f"docs/chain{i}.inc": f"Level {i}\n{'-' * (6 + len(str(i)))}\n\n"
                 f".. include:: chain{i + 1}.inc\n" for i in range(depth)}
        write(self.root, chain | {
            "docs/chain0.inc": "Chain\n=====\n\n.. include:: chain1.inc\n",
            "docs/bounds.rst": "Bounds\n======\n\n"
                               f".. include:: ../../{os.path.basename(outside)}/secret.rst\n\n"
                               ".. include:: linked.inc\n\n.. include:: loop.inc\n\n"
                               ".. include:: chain0.inc\n",
            "docs/loop.inc": "Loop\n----\n\n.. include:: loop.inc\n"})
        said = io.StringIO()
        found = units(self.root, said)
        texts = " ".join(unit["text"] for unit in found)
        self.assertNotIn("Not of the release", texts)
        self.assertEqual(sum(unit["title"] == "Loop" for unit in found), 1)
        self.assertIn(f"Level {MAX_DEPTH - 1}", texts)  # the {MAX_DEPTH}th inclusion
        self.assertNotIn(f"Level {MAX_DEPTH}", texts)
        lines = said.getvalue()
        self.assertIn("docs/bounds.rst:4: include ../../", lines)
        self.assertIn("outside the release's tree", lines)
        self.assertIn("docs/bounds.rst:6: include linked.inc: a link out of the tree", lines)
        self.assertIn("docs/loop.inc:4: include loop.inc: a circular inclusion", lines)
        self.assertIn(f"nested deeper than {MAX_DEPTH}", lines)


if __name__ == "__main__":
    unittest.main()


# A dialect page as SQLAlchemy writes one: the page names the module, its docstring holds the
# sections (a repeated "Unicode" under a label among them), the page goes on after it.
DIALECT_PAGE = """\
.. _sqlite_toplevel:

SQLite
======

.. automodule:: demo.dialect

Unicode
-------

The page's own Unicode notes.

Data Types
----------

Types of the dialect.
"""

DIALECT_PY = '''\
# demo/dialect.py
r"""
.. note:: the dialect's own directive.

The dialect's introduction.

Threading
---------

Using a memory database in several threads.

.. _dialect_unicode:

Unicode
-------

Unicode of the driver.

"""


def connect():
    """Connect, as in :ref:`dialect_unicode`."""
'''


class AutomoduleTest(unittest.TestCase):

    def setUp(self):
        self.root = temporary_directory(self)
        write(self.root, {"docs/conf.py": "", "docs/dialect.rst": DIALECT_PAGE,
                          "demo/__init__.py": "", "demo/dialect.py": DIALECT_PY})
        self.found = units(self.root, modules=(("demo/__init__.py", "demo"),
                                               ("demo/dialect.py", "demo.dialect")))

    def test_a_module_docstrings_sections_are_the_pages_at_the_ids_docutils_gives(self):
        page = DOCS + "dialect.html"
        self.assertEqual(placed(self.found, page), [
            # What precedes the docstring's first section describes the module; the automodule
            # first in "SQLite" puts that section at the module's id (Sphinx's
            # MoveModuleTargets: sqlalchemy's `<section id="module-sqlalchemy.dialects.sqlite.
            # base">`), its title alone in the page: one unit, the section's.
            (page + "#module-demo.dialect", "demo/dialect.py", "SQLite"),
            (page + "#threading", "demo/dialect.py", "Threading"),
            (page + "#unicode", "demo/dialect.py", "Unicode"),
            # The page's own "Unicode" repeats the title: docutils' next idN.
            (page + "#id1", "docs/dialect.rst", "Unicode"),
            (page + "#data-types", "docs/dialect.rst", "Data Types")])
        intro = next(unit for unit in self.found if unit["url"] == page + "#module-demo.dialect")
        self.assertIn("The dialect's introduction.", intro["text"])
        self.assertNotIn("Threading", intro["text"])

    def test_each_unit_quotes_the_lines_of_the_file_they_are_in(self):
        assert_quoted(self, self.root, self.found)

    def test_a_label_in_the_docstring_is_a_label_of_the_page(self):
        # `.. _unicode:` takes the title's id: the section is rendered at it, and a :ref: to
        # the label links the section (a label of another id links a span inside it).
        write(self.root, {"docs/index.rst": "Index\n=====\n\nSee :ref:`unicode`.\n",
                          "demo/dialect.py": DIALECT_PY.replace("dialect_unicode", "unicode")})
        found = units(self.root, modules=(("demo/dialect.py", "demo.dialect"),))
        unicode = next(unit for unit in found if unit["url"] == DOCS + "dialect.html#unicode")
        self.assertEqual(unicode["in_links"], 1)

    def test_a_docstrings_titles_nest_below_the_section_its_automodule_is_in(self):
        # Sphinx parses the docstring apart (nested_parse_with_titles): its adornments start
        # afresh, its first one ("=", the page's top one) a level below "SQLite"; the page's
        # own "Notes" after it is SQLite's sibling again.
        page = ("Dialects\n========\n\nSQLite\n------\n\n.. automodule:: demo.lite\n\n"
                "Notes\n-----\n\nThe page's notes.\n")
        docstring = ('"""The lite dialect.\n\nDriver\n======\n\nThe driver.\n\n'
                     'Connecting\n----------\n\nConnect to a file.\n"""\n')
        write(self.root, {"docs/lite.rst": page, "demo/lite.py": docstring})
        found = units(self.root, modules=(("demo/lite.py", "demo.lite"),))
        context = {unit["title"]: unit["fields"]["context"] for unit in found
                   if unit["url"].startswith(DOCS + "lite.html")}
        self.assertEqual(context["Driver"], "Dialects SQLite Driver")
        self.assertEqual(context["Connecting"], "Dialects SQLite Driver Connecting")
        self.assertEqual(context["Notes"], "Dialects Notes")

    def test_a_docstring_whose_quotes_stand_alone_above_its_title_renders_the_title(self):
        # `"""` on its own line, the title on the next: the docstring's first line is the
        # title, a section of the page; the autoclass in it documents the module's class at
        # its id, not as an object no page describes.
        page = "API\n===\n\nTags\n----\n\nThe tags.\n\n.. automodule:: demo.tag\n"
        docstring = ('"""\nTagged\n~~~~~~\n\nA compact form.\n\n'
                     '.. autoclass:: Tag\n    :members:\n"""\n\n\nclass Tag:\n'
                     '    """A tag."""\n\n    def check(self):\n        """Check it."""\n')
        write(self.root, {"docs/api.rst": page, "demo/tag.py": docstring})
        found = units(self.root, modules=(("demo/tag.py", "demo.tag"),))
        api = DOCS + "api.html"
        self.assertEqual(anchors(found, api),
                         ["#tags", "#tagged", "#demo.tag.Tag", "#demo.tag.Tag.check"])
        tagged = next(unit for unit in found if unit["url"] == api + "#tagged")
        self.assertEqual(tagged["title"], "Tagged")
        self.assertNotIn('"""', tagged["text"])

    def test_an_indented_docstrings_titles_are_titles_below_its_margin(self):
        # autodoc dedents a docstring by its margin (prepare_docstring): pint's `"""` over
        # "    pint.compat" and "    ~~~~~~~~~~~" renders a section #pint-compat.
        page = "API\n===\n\n.. automodule:: demo.tag\n"
        docstring = ('"""\n    demo.tag\n    ~~~~~~~~\n\n    Tags things.\n\n'
                     '    Usage\n    -----\n\n    Use it.\n    """\n')
        write(self.root, {"docs/api.rst": page, "demo/tag.py": docstring})
        found = units(self.root, modules=(("demo/tag.py", "demo.tag"),))
        api = DOCS + "api.html"
        self.assertEqual([(url.removeprefix(api), title) for url, _, title in placed(found, api)],
                         [("#demo-tag", "demo.tag"), ("#usage", "Usage")])
        assert_quoted(self, self.root, found)

    def test_a_docstring_sections_field_list_is_its_text(self):
        # pint's "pint.babel" over `:copyright:` and `:license:` alone: a field list parsed
        # apart renders (no page metadata is taken out of a docstring), so the section is a
        # unit, not a title alone.
        page = "API\n===\n\n.. automodule:: demo.tag\n\n.. automodule:: demo.other\n"
        header = '"""\n    demo.{0}\n    ~~~~~~~~~~\n\n    :copyright: 2016 by Us.\n    """\n'
        write(self.root, {"docs/api.rst": page, "demo/tag.py": header.format("tag"),
                          "demo/other.py": header.format("other")})
        found = units(self.root, modules=(("demo/tag.py", "demo.tag"),
                                          ("demo/other.py", "demo.other")))
        api = DOCS + "api.html"
        self.assertEqual(anchors(found, api),
                         ["#demo-tag", "#demo-other"])

    def test_a_title_in_an_automodules_content_is_a_section_of_the_page(self):
        # ModuleDocumenter's titles_allowed: autodoc parses the docstring and the directive's
        # content as one, with titles (tornado's "Common protocols" inside `.. automodule::
        # tornado.auth`): a section of the page, its text and objects its own.
        page = ("API\n===\n\n.. automodule:: demo.tag\n\n   Protocols\n   ---------\n\n"
                "   These classes tag.\n\n   .. autoclass:: Tag\n\n   Helpers\n"
                "   -------\n\n   .. autofunction:: tag\n")
        code = ('"""Tags."""\n\n\nclass Tag:\n    """A tag."""\n\n\n'
                'def tag():\n    """Tag it."""\n')
        write(self.root, {"docs/api.rst": page, "demo/tag.py": code})
        found = units(self.root, modules=(("demo/tag.py", "demo.tag"),))
        api = DOCS + "api.html"
        self.assertEqual(anchors(found, api),
                         ["#module-demo.tag", "#protocols", "#demo.tag.Tag", "#demo.tag.tag"])
        protocols = next(unit for unit in found if unit["url"] == api + "#protocols")
        self.assertIn("These classes tag.", protocols["text"])
        assert_quoted(self, self.root, found)

    def test_a_docstring_assigned_to_doc_renders_its_first_title_too(self):
        # pyparsing's `__doc__ = """` after its licence comment, the title on the next line.
        page = "API\n===\n\nTags\n----\n\nThe tags.\n\n.. automodule:: demo.tag\n"
        docstring = ('# Licence.\n\n__doc__ = """\nTagged\n~~~~~~\n\nA compact form.\n\n'
                     'Usage\n~~~~~\n\nUse it.\n"""\n')
        write(self.root, {"docs/api.rst": page, "demo/tag.py": docstring})
        found = units(self.root, modules=(("demo/tag.py", "demo.tag"),))
        api = DOCS + "api.html"
        self.assertEqual(anchors(found, api),
                         ["#tags", "#tagged", "#usage"])

    def test_a_napoleon_section_header_in_a_docstring_is_no_title_where_napoleon_reads_it(self):
        # celery.bin.multi's `Examples` over `========`: napoleon's _is_section_header takes it
        # for its Examples section (a rubric), no section; without napoleon it is a title.
        page = "API\n===\n\n.. automodule:: demo.tag\n"
        docstring = '"""Tags.\n\nExamples\n========\n\nTag it.\n"""\n'
        write(self.root, {"docs/api.rst": page, "demo/tag.py": docstring})
        api = DOCS + "api.html"
        for extensions, ids in (("['sphinx.ext.napoleon']", ["#module-demo.tag"]),
                                ("[]", ["#module-demo.tag", "#examples"])):
            write(self.root, {"docs/conf.py": f"extensions = {extensions}\n"})
            found = units(self.root, modules=(("demo/tag.py", "demo.tag"),))
            self.assertEqual(anchors(found, api), ids)

    def test_a_repeated_title_under_a_label_is_at_the_labels_id(self):
        labelled = ".. _page_unicode:\n\nUnicode\n-------\n\nThe page's"
        write(self.root, {"docs/dialect.rst": DIALECT_PAGE.replace(
            "Unicode\n-------\n\nThe page's", labelled)})
        found = units(self.root, modules=(("demo/dialect.py", "demo.dialect"),))
        titled = [unit["url"].rpartition("#")[2] for unit in found if unit["title"] == "Unicode"]
        self.assertEqual(titled, ["unicode", "page-unicode"])

    def test_the_docstrings_autodoc_renders_link_from_their_page(self):
        # connect's docstring, rendered on the page, has a :ref: to the docstring's label.
        write(self.root, {"docs/api.rst": "API\n===\n\n.. autofunction:: demo.dialect.connect\n",
                          "demo/dialect.py": DIALECT_PY.replace("dialect_unicode", "unicode")})
        found = units(self.root, modules=(("demo/dialect.py", "demo.dialect"),))
        unicode = next(unit for unit in found if unit["url"] == DOCS + "dialect.html#unicode")
        self.assertEqual(unicode["in_links"], 1)

    def test_shorthand_prefixes_of_references_are_expanded_where_zzzeeksphinx_is_used(self):
        api = "API\n===\n\nSee :func:`_d.connect`.\n\n.. autofunction:: demo.dialect.connect\n"
        prefixes = 'zzzeeksphinx_module_prefixes = {"_d": "demo.dialect"}\n'
        for extensions, expected in (('["zzzeeksphinx"]', 1), ("[]", 0)):
            write(self.root, {"docs/api.rst": api,
                              "docs/conf.py": f"extensions = {extensions}\n{prefixes}"})
            found = units(self.root, modules=(("demo/dialect.py", "demo.dialect"),))
            connect = next(unit for unit in found if unit["title"] == "demo.dialect.connect")
            self.assertEqual(connect["in_links"], expected, extensions)
