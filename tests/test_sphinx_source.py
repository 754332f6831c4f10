"""A package's Sphinx docs folder read as Sphinx renders it, from its sources alone.

Small hand-written Sphinx projects (a conf.py with `source_suffix = '.txt'`, a root under
`doc/build/`, a local extension adding a crossref type) are read through the package format, and
their units' URLs, anchors and titles checked against the ids Sphinx and docutils give; conf.py
is read, never run; the link rules; docutils' make_id against docutils itself where installed.
"""

import io
import os
import unittest

from retrieval.ingest.formats.package import read_package_contents
from retrieval.ingest.formats.sphinx_docs import (
    page_path,
    published_site,
    sphinx_project,
)
from retrieval.ingest.readers.docutils_ids import make_id, sphinx_id
from retrieval.ingest.readers.rendered import parse_page
from retrieval.ingest.readers.sphinx_conf import CROSSREF, MARKDOWN, RST, read_conf
from retrieval.ingest.readers.sphinx_page import Directives, page_units
from retrieval.ingest.readers.sphinx_source import directives_of, predict_page
from retrieval.ingest.tree import PackageLayout, Progress, SourceTree
from tests.support import require_module, temporary_directory

TIER = "unit"

DOCS = "https://docs.example/demo/"

CONF = '''\
import os, sys
sys.path.append(os.path.abspath("_ext"))
open(os.path.join(os.path.dirname(__file__), "RAN"), "w").write("conf.py was run")
extensions = ["djangodocs", "sphinx.ext.autodoc"]
source_suffix = ".txt"
root_doc = "contents"
exclude_patterns = ["_build", "drafts"]
'''

EXTENSION = '''\
def setup(app):
    app.add_crossref_type(directivename="setting", rolename="setting",
                          indextemplate="pair: %s; setting")
    app.add_object_type("confval", "confval")
    raise RuntimeError("never run")
'''

CONTENTS = '''\
Demo
====

Demo runs jobs. See :ref:`installing` first, then :ref:`installing` again, and
:func:`demo.make_engine`, :setting:`DEMO_SIZE` and :doc:`ref/settings`; `Database
URLs`_ below, and `the docs <https://docs.example/>`_.

.. _installing:

Install
-------

Install it with pip.

Examples
--------

First examples.

Usage
-----

Examples
~~~~~~~~

Second examples, same title.

.. currentmodule:: demo

.. function:: make_engine(size)

   Return an engine of that size.

.. class:: Engine

   An engine.

   .. method:: stop()

      Stop every job.

.. envvar:: DEMO_HOME

   Where demo keeps its state.

.. confval:: retries

   How often a job is retried.

.. _database_urls:

Database URLs
-------------

Where the database is.
'''

SETTINGS = '''\
Settings
========

.. setting:: DEMO_SIZE

``DEMO_SIZE``
-------------

How big an engine is.
'''

GUIDE_MD = '''\
# Guide

Start here.

## Next steps

Then go on.
'''


def write(root: str, files: dict):
    for name, text in files.items():
        path = os.path.join(root, *name.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)


def contents(root: str, docs: str, docs_url: str | None = DOCS) -> list:
    """Return the unit contents of a package tree's docs folder, read by the package format."""
    tree = SourceTree("1.0", root, docs_url or "pypi:demo==1.0/", "demo", "package",
                      package=PackageLayout((), docs, docs_url, "pypi:demo==1.0/"))
    return [draft.content for draft in read_package_contents(tree, Progress(io.StringIO()))]


def package_contents(root: str, modules: tuple = (("demo/__init__.py", "demo"),),
                     progress: Progress | None = None) -> list:
    """Return the unit contents of a package tree of modules with a `docs` folder."""
    tree = SourceTree("1.0", root, DOCS, "demo", "package", package=PackageLayout(
        modules, "docs", DOCS, "pypi:demo==1.0/"))
    return [draft.content for draft in read_package_contents(
        tree, progress or Progress(io.StringIO()))]


def read(root: str, docs: str, docs_url: str | None = DOCS) -> dict:
    """Return {title: unit content} (the last unit of each title)."""
    return {unit["title"]: unit for unit in contents(root, docs, docs_url)}


def index_texts(root: str, page: str) -> dict:
    """Write a `doc` folder of one page, index.rst, and return {its units' fragments ("#id"):
    their quoted text}."""
    write(root, {"doc/conf.py": "", "doc/index.rst": page})
    return {unit["url"].removeprefix(DOCS + "index.html"): unit["text"]
            for unit in contents(root, "doc")}


def in_links_with(root: str, files: dict) -> dict:
    """Write files into the tree and return {title: in-links} of its `doc` folder's units."""
    write(root, files)
    return {title: unit["in_links"] for title, unit in read(root, "doc").items()}


class SphinxProjectTest(unittest.TestCase):

    def setUp(self):
        self.root = temporary_directory(self)
        write(self.root, {
            "doc/build/conf.py": CONF, "doc/build/_ext/djangodocs.py": EXTENSION,
            "doc/build/contents.txt": CONTENTS, "doc/build/ref/settings.txt": SETTINGS,
            "doc/build/drafts/wip.txt": "Draft\n=====\n\nNot published.\n",
            "doc/README.rst": "Outside the Sphinx root\n=======================\n",
            "doc/build/notes.md": "# Notes\n\nNo Markdown parser is configured.\n"})

    def test_the_project_is_found_below_the_docs_folder_and_its_conf_read_never_run(self):
        project = sphinx_project(self.root, "doc")
        self.assertEqual(project.root, "doc/build")
        self.assertEqual(project.conf.source_suffix, {".txt": RST})
        self.assertEqual(project.conf.root_doc, "contents")
        self.assertEqual(project.conf.object_types["setting"], (CROSSREF, "setting"))
        self.assertEqual(project.conf.page_kind("drafts/wip.txt"), None)
        self.assertFalse(os.path.exists(os.path.join(self.root, "doc", "build", "RAN")))

    def test_each_section_and_object_is_one_unit_at_the_id_sphinx_gives_it(self):
        units = read(self.root, "doc")
        where = {title: (unit["url"], unit["source_id"], unit["start_line"])
                 for title, unit in units.items()}
        self.assertEqual(where["Demo"], (DOCS + "contents.html#demo", "doc/build/contents.txt", 1))
        # A label before a section is an extra id inside it: the section keeps its title's id.
        self.assertEqual(where["Install"][0], DOCS + "contents.html#install")
        # The second "Examples" section: docutils' idN, its title's id being taken.
        self.assertEqual([unit["url"] for unit in contents(self.root, "doc")
                          if unit["title"] == "Examples"],
                         [DOCS + "contents.html#examples", DOCS + "contents.html#id1"])
        self.assertEqual(where["demo.make_engine"][0], DOCS + "contents.html#demo.make_engine")
        self.assertEqual(where["demo.Engine.stop"][0], DOCS + "contents.html#demo.Engine.stop")
        self.assertEqual(where["DEMO_HOME"][0], DOCS + "contents.html#envvar-DEMO_HOME")
        self.assertEqual(where["retries"][0], DOCS + "contents.html#confval-retries")
        # A label whose id is the title's: the section is at it (its own id an extra idN).
        self.assertEqual(where["Database URLs"][0], DOCS + "contents.html#database-urls")
        self.assertEqual(where["DEMO_SIZE"], (DOCS + "ref/settings.html#demo-size",
                                             "doc/build/ref/settings.txt", 6))
        # The crossref target is no prose of its section's parent.
        self.assertNotIn(".. setting::", units["Settings"]["text"])
        self.assertIn("How big an engine is.", units["DEMO_SIZE"]["text"])
        # Only the Sphinx root's pages of its source_suffix, not excluded, are pages.
        sources = {unit["source_id"] for unit in units.values()}
        self.assertEqual(sources, {"doc/build/contents.txt", "doc/build/ref/settings.txt"})
        # Each unit quotes its lines exactly.
        lines = CONTENTS.split("\n")
        for unit in units.values():
            if unit["source_id"] == "doc/build/contents.txt":
                self.assertEqual(unit["text"], "\n".join(
                    lines[unit["start_line"] - 1:unit["end_line"]]))

    def test_cross_references_are_the_in_links(self):
        units = read(self.root, "doc")
        in_links = {title: unit["in_links"] for title, unit in units.items()}
        # Sphinx links :ref:`installing` to the label's own id, `#installing`, a span inside
        # `<section id="install">`: the rendered site's reader counts a link by the id it
        # names, the section's unit being at its title's, and so does a docs folder's.
        self.assertEqual(in_links["Install"], 0)
        # `Database URLs`_ names the title, whose id (`database-urls`) the label took first:
        # docutils gave the title's name the next idN, a span in the section, where the link
        # lands (bs4's `Parsing XML`_ is `#id17` on its rendered page).
        self.assertEqual(in_links["Database URLs"], 0)
        self.assertEqual(in_links["demo.make_engine"], 1)
        # :setting:`DEMO_SIZE` lands on its target's id, `#std-setting-DEMO_SIZE`, a span in
        # the section at `#demo-size`, as a :ref: to a label does.
        self.assertEqual(in_links["DEMO_SIZE"], 0)
        self.assertEqual(in_links["Settings"], 1)  # :doc:`ref/settings`
        self.assertEqual(in_links["demo.Engine.stop"], 0)

    def test_a_reference_lands_on_the_id_sphinx_links_it_to(self):
        # :ref:`database_urls` is `#database-urls`, the id its section is rendered at (the
        # label's id being its title's): a link to that section. :ref:`installing` is
        # `#installing`, a span in `<section id="install">`: a link to no unit's id, on the
        # rendered site as here. `Usage notes`_ names a section's title: a link to it; but
        # `Queues`_ names the link to elsewhere first (an explicit name before an implicit one).
        in_links = in_links_with(self.root, {"doc/build/usage.txt": (
            "Usage notes\n===========\n\nSee :ref:`database_urls` and :ref:`installing`, then "
            ":ref:`installing`; `Usage notes`_ and `Queues`_.\n\nQueues\n------\n\n"
            "Jobs wait in `Queues <https://queues.example/>`_.\n")})
        self.assertEqual(in_links["Database URLs"], 1)
        self.assertEqual(in_links["Install"], 0)
        self.assertEqual((in_links["Usage notes"], in_links["Queues"]), (1, 0))
        # A target broken over two lines is one with a space (XRefRole.process_link):
        # Django's `:term:`application\n    namespace``.
        in_links = in_links_with(self.root, {"doc/build/more.txt": (
            "More\n====\n\n.. glossary::\n\n   application namespace\n      A name.\n\n"
            "Find the :term:`application\n   namespace` and :term:`the name <application\n"
            "namespace>`.\n")})
        self.assertEqual(in_links["application namespace"], 2)

    def test_a_crossref_target_above_a_title_whose_id_is_taken_is_where_it_is(self):
        # A crossref type's target (`.. setting:: TIME_ZONE`) is a target node as a label is:
        # above a title whose id an earlier title took (Django's second "TIME_ZONE"), the
        # section is rendered at the target's id, its own idN after it
        # (`<section id="std-setting-TIME_ZONE"><span id="id1">`), and linked there.
        write(self.root, {"doc/build/ref/settings.txt": (
            "Settings\n========\n\nSee :setting:`TIME_ZONE`.\n\n"
            ".. setting:: DATABASE-TIME_ZONE\n\n``TIME_ZONE``\n-------------\n\nOf a database.\n\n"
            ".. setting:: TIME_ZONE\n\n``TIME_ZONE``\n-------------\n\nThe site's.\n")})
        units = [(unit["url"].removeprefix(DOCS + "ref/settings.html"), unit["in_links"])
                 for unit in contents(self.root, "doc")
                 if unit["url"].startswith(DOCS + "ref/settings.html")]
        self.assertEqual(units, [("#settings", 1), ("#time-zone", 0),
                                 ("#std-setting-TIME_ZONE", 1)])

    def test_a_python_reference_as_sphinx_resolves_it(self):
        # Sphinx's refspecific search: `:meth:`~.Engine.stop`` is the first object whose name
        # ends `.Engine.stop` (Django's release notes' `:meth:`~.QuerySet.difference``);
        # `:meth:`!Engine.stop`` is shown unlinked; in the body of `.. method:: Engine.start`
        # (Django's `.. method:: ModelAdmin.change_view`) py:class is `Engine`.
        in_links = in_links_with(self.root, {"doc/build/notes.txt": (
            "Notes\n=====\n\nSee :meth:`~.Engine.stop`, :meth:`.Engine.stop` and "
            ":meth:`!demo.Engine.stop`; :func:`demo.make_engine()`, :func:`the maker "
            "<demo.make_engine()>` and :attr:`demo.make_engine()`.\n\n"
            ".. currentmodule:: demo\n\n.. method:: Engine.start()\n\n   Then :meth:`stop`.\n")})
        self.assertEqual(in_links["demo.Engine.stop"], 3)
        # A target's `()` is skipped (find_obj), whatever its role.
        self.assertEqual(in_links["demo.make_engine"], 4)

    def test_a_name_prefix_is_py_class_until_a_description_in_its_body_ends(self):
        # cryptography's `.. data:: a.b.backend` holding `.. method:: openssl_version_text()`,
        # then more methods: PyObject's before_content makes the data's name prefix py:class,
        # the first method's after_content sets it to the innermost class description's
        # (none): the first method is at #a.b.one, the next at #two. In a class description
        # it falls back to the class's: `c.start`, then `a.Engine.stop`.
        page = predict_page("openssl", "Use\n===\n\n.. data:: a.b.backend\n\n"
                            "    .. method:: one()\n\n        First.\n\n"
                            "    .. method:: two()\n\n.. class:: a.Engine\n\n"
                            "    .. data:: c.port\n\n        .. method:: start()\n\n"
                            "        .. method:: stop()\n\n    .. method:: run()\n",
                            Directives())
        self.assertEqual([obj.ids for obj in page.page.python_objects()],
                         [["a.b.backend"], ["a.b.one"], ["two"], ["a.Engine"],
                          ["a.Engine.c.port"], ["c.start"], ["a.Engine.stop"],
                          ["a.Engine.run"]])

    def test_a_class_of_several_signatures_holds_its_content_under_the_last(self):
        # PyWavelets 1.1's `.. class:: BaseNode(parent, data, node_name)` then
        # `WaveletPacket2D(data, wavelet, ...)` on the next line: the Python domain's
        # before_content takes names[-1], so `.. attribute:: data` is WaveletPacket2D's.
        page = predict_page("ref", "Ref\n===\n\n.. module:: pywt\n\n"
                            ".. class:: BaseNode(parent, data)\n"
                            "           WaveletPacket2D(data, wavelet)\n\n"
                            "    .. attribute:: data\n\n        The data.\n",
                            Directives())
        self.assertEqual([obj.ids for obj in page.page.python_objects()],
                         [["pywt.BaseNode", "pywt.WaveletPacket2D"],
                          ["pywt.WaveletPacket2D.data"]])

    def test_an_option_takes_an_id_for_each_name_and_its_old_lowercased_one(self):
        # Sphinx's Cmdoption: `-T, --no-toc` takes cmdoption-apidoc-T and -no-toc, and the old
        # docutils ids cmdoption-apidoc-t and -no-toc; a later `-t` finds its id taken and is
        # make_id's serial cmdoption-apidoc-0 (sphinx-apidoc's page).
        page = predict_page("apidoc", "Options\n=======\n\n.. program:: apidoc\n\n"
                            ".. option:: -T, --no-toc\n\n   No toc.\n\n"
                            ".. option:: -t, --templatedir=TEMPLATEDIR\n\n   Templates.\n\n"
                            ".. option:: --color[=WHEN]\n\n   Colours.\n",
                            Directives(objects=frozenset({"option"})))
        self.assertEqual([obj.ids for obj in page.page.objects],
                         [["cmdoption-apidoc-T"], ["cmdoption-apidoc-0"],
                          ["cmdoption-apidoc-color"]])

    def test_an_object_type_whose_parse_node_sets_the_program_names_the_options_after_it(self):
        # Django's `app.add_object_type("django-admin", ..., parse_node=parse_django_admin_node)`
        # sets env.ref_context['std:program'] to the command: the plain `.. option::` after
        # `.. django-admin:: test [label ...]` is cmdoption-test-tag; `program:: None` ends it.
        conf = read_conf(
            "extensions = ['djangodocs']\n",
            lambda name: ("def parse_django_admin_node(env, sig, signode):\n"
                          "    command = sig.split(' ')[0]\n"
                          "    env.ref_context['std:program'] = command\n    return command\n\n\n"
                          "def parse_other(env, sig, signode):\n    return sig\n\n\n"
                          "def setup(app):\n"
                          "    app.add_object_type(directivename='django-admin',"
                          " rolename='djadmin', parse_node=parse_django_admin_node)\n"
                          "    app.add_object_type('setting', 'setting', '', parse_other)\n")
            if name == "djangodocs" else None)
        self.assertEqual(conf.program_directives, ("django-admin",))
        page = predict_page("django-admin", "Commands\n========\n\n"
                            ".. django-admin:: test [test_label [test_label ...]]\n\n"
                            "Runs tests.\n\n.. option:: --tag TAGS\n\n   Tagged only.\n\n"
                            ".. program:: None\n\n.. option:: --version\n\n   Its version.\n",
                            directives_of(conf))
        self.assertEqual([obj.ids for obj in page.page.objects],
                         [["django-admin-test"], ["cmdoption-test-tag"], ["cmdoption-version"]])

    def test_a_contents_table_links_the_sections_it_lists(self):
        # docutils' `.. contents::` table links each section it lists, as the rendered page's
        # `<nav class="contents">` does: a `:local:` one its section's subsections, to :depth:.
        in_links = in_links_with(self.root, {"doc/build/faq.txt": (
            "FAQ\n===\n\n.. contents::\n   :local:\n   :depth: 1\n\nJobs\n----\n\n"
            "About jobs.\n\nRetrying\n~~~~~~~~\n\nRetry a job.\n\nEngines\n-------\n\n"
            "About engines.\n")})
        self.assertEqual((in_links["Jobs"], in_links["Engines"]), (1, 1))
        self.assertEqual((in_links["FAQ"], in_links["Retrying"]), (0, 0))  # not listed

    def test_without_a_site_units_link_to_their_files_and_lines(self):
        units = read(self.root, "doc", docs_url=None)
        unit = units["Install"]
        self.assertEqual(unit["url"], "pypi:demo==1.0/doc/build/contents.txt#L"
                                      f"{unit['start_line']}-L{unit['end_line']}")

    def test_markdown_pages_where_a_myst_parser_is_configured(self):
        write(self.root, {"doc/build/conf.py": 'extensions = ["myst_parser"]\n',
                          "doc/build/guide.md": GUIDE_MD})
        self.assertEqual(sphinx_project(self.root, "doc").conf.page_kind("guide.md"), MARKDOWN)
        units = read(self.root, "doc")
        self.assertEqual(units["Next steps"]["url"], DOCS + "guide.html#next-steps")
        self.assertEqual(units["Guide"]["url"], DOCS + "guide.html#guide")

    def test_myst_smartquotes_curl_a_headings_quotes_before_its_id_is_made(self):
        # MyST's smartquotes extension curls quotes as it parses (not in code), so docutils'
        # make_id drops them: structlog's "Don't Integrate" is #dont-integrate.
        page = "# Guide\n\n## Don't Integrate\n\nText.\n\n## The `don't` flag\n\nMore.\n"
        for conf, ids in (("", ("#don-t-integrate", "#the-don-t-flag")),
                          ("myst_enable_extensions = {'deflist', 'smartquotes'}\n",
                           ("#dont-integrate", "#the-don-t-flag"))):
            write(self.root, {"doc/build/conf.py": 'extensions = ["myst_parser"]\n' + conf,
                              "doc/build/guide.md": page})
            units = read(self.root, "doc")
            self.assertEqual(units["Don't Integrate"]["url"], DOCS + "guide.html" + ids[0])
            self.assertEqual(units["The `don't` flag"]["url"], DOCS + "guide.html" + ids[1])

    def test_a_myst_toctree_renders_no_text_of_its_section(self):
        # A fenced toctree is navigation, as reST's: structlog's "API Reference" holding one
        # alone is its title alone, no unit; text beside one is the section's.
        page = ("# Guide\n\nIntro.\n\n## API\n\n```{toctree}\n:maxdepth: 2\n\napi\n```\n\n"
                "## More\n\nSee these.\n\n```{toctree}\napi\n```\n")
        write(self.root, {"doc/build/conf.py": 'extensions = ["myst_parser"]\n',
                          "doc/build/guide.md": page, "doc/build/api.md": "# API\n\nIt.\n"})
        urls = [unit["url"].removeprefix(DOCS + "guide.html") for unit in
                contents(self.root, "doc") if unit["url"].startswith(DOCS + "guide.html")]
        self.assertEqual(urls, ["#guide", "#more"])

    def test_a_myst_target_takes_its_id_before_the_heading_below_it(self):
        # structlog's `(chains)=` over "## Chains": the target's id first, the title's name
        # then takes docutils' next idN and the section is rendered at the target; a later
        # repeated "Examples" is #id2. A target over other text takes its id all the same.
        page = ("# Guide\n\n(chains)=\n\n## Chains\n\nChained.\n\n### Examples\n\nOne.\n\n"
                "(tip)=\nA tip.\n\n(more)=\n\n## More things\n\n### Examples\n\nTwo.\n\n"
                "## Tip\n\nThree.\n")
        write(self.root, {"doc/build/conf.py": 'extensions = ["myst_parser"]\n',
                          "doc/build/guide.md": page})
        urls = [unit["url"].removeprefix(DOCS + "guide.html") for unit in
                contents(self.root, "doc") if unit["url"].startswith(DOCS + "guide.html")]
        self.assertEqual(urls, ["#chains", "#examples", "#id2", "#id3"])


class GeneratedPagesTest(unittest.TestCase):
    """What Sphinx generates beyond the sources: autosummary's stub pages; and which project."""

    def setUp(self):
        self.root = temporary_directory(self)

    def test_an_autosummary_toctree_gives_each_object_a_unit_at_its_stub_page(self):
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\n\n\ndef make_engine(size=8):\n'
                                '    """Return an engine of the given size."""\n\n\n'
                                'class Engine:\n    """Run jobs."""\n',
            "docs/conf.py": "extensions = ['sphinx.ext.autosummary']\n",
            "docs/reference/api.rst": "API\n===\n\n.. currentmodule:: demo\n\n"
                                      ".. autosummary::\n   :toctree: generated/\n\n"
                                      "   make_engine\n   ~demo.Engine\n   missing\n\n"
                                      ".. autosummary::\n\n   make_engine\n"})
        tree = SourceTree("1.0", self.root, DOCS, "demo", "package", package=PackageLayout(
            (("demo/__init__.py", "demo"),), "docs", DOCS, "pypi:demo==1.0/"))
        units = {draft.content["title"]: draft.content["url"]
                 for draft in read_package_contents(tree, Progress(io.StringIO()))}
        self.assertEqual(units["demo.make_engine"],
                         DOCS + "reference/generated/demo.make_engine.html#demo.make_engine")
        self.assertEqual(units["demo.Engine"],
                         DOCS + "reference/generated/demo.Engine.html#demo.Engine")
        self.assertNotIn("demo.missing", units)  # what the source does not define

    def test_a_class_stub_describes_what_its_templates_directives_document(self):
        # autosummary's own class.rst: `.. autoclass::` (with conf.py's
        # autodoc_default_options: pydicom's members) and `.. automethod:: __init__` in it;
        # its exception.rst: `.. autoexception::` alone.
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\n\n\nclass Engine:\n    """Run jobs."""\n\n'
                                '    def __init__(self, size):\n        """Make it."""\n\n'
                                '    def run(self):\n        """Run."""\n\n\n'
                                'class Stalled(Exception):\n    """Stalled."""\n\n'
                                '    def __init__(self):\n        """Make it."""\n',
            "docs/conf.py": "extensions = ['sphinx.ext.autosummary']\n"
                            "autodoc_default_options = {'members': None}\n",
            "docs/api.rst": "API\n===\n\n.. currentmodule:: demo\n\n"
                            ".. autosummary::\n   :toctree: generated/\n\n   Engine\n"
                            "   Stalled\n"})
        urls = [unit["url"].removeprefix(DOCS) for unit in package_contents(self.root)]
        self.assertIn("generated/demo.Engine.html#demo.Engine.__init__", urls)
        self.assertIn("generated/demo.Engine.html#demo.Engine.run", urls)
        self.assertIn("generated/demo.Stalled.html#demo.Stalled", urls)
        self.assertNotIn("generated/demo.Stalled.html#demo.Stalled.__init__", urls)

    def test_the_tables_of_a_class_stubs_template_link_its_members(self):
        # autosummary's own class.rst tables the class's public methods (and attributes): each
        # row a link to the member, once however many tables list the class.
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\n\n\nclass Engine:\n    """Run jobs."""\n\n'
                                '    def run(self):\n        """Run."""\n',
            "docs/conf.py": "extensions = ['sphinx.ext.autosummary']\n"
                            "autodoc_default_options = {'members': None}\n",
            "docs/api.rst": "API\n===\n\n.. currentmodule:: demo\n\n"
                            ".. autosummary::\n   :toctree: generated/\n\n   Engine\n\n"
                            ".. autosummary::\n   :toctree: generated/\n\n   Engine\n"})
        links = {unit["url"].removeprefix(DOCS): unit["in_links"]
                 for unit in package_contents(self.root)}
        self.assertEqual(links["generated/demo.Engine.html#demo.Engine.run"], 1)

    def test_a_module_stub_describes_its_members_where_autodoc_defaults_want_them(self):
        # autosummary's own module.rst writes `.. automodule::`: with conf.py's
        # `'members': None` (pydicom), its functions are described on its stub.
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\n',
            "demo/tools.py": '"""Tools."""\n\n\ndef helper():\n    """Help."""\n',
            "docs/conf.py": "extensions = ['sphinx.ext.autosummary']\n"
                            "autodoc_default_options = {'members': None}\n",
            "docs/api.rst": "API\n===\n\n.. currentmodule:: demo\n\n"
                            ".. autosummary::\n   :toctree: generated/\n\n   tools\n"})
        urls = [unit["url"].removeprefix(DOCS) for unit in package_contents(
            self.root, (("demo/__init__.py", "demo"), ("demo/tools.py", "demo.tools")))]
        self.assertIn("generated/demo.tools.html#module-demo.tools", urls)
        self.assertIn("generated/demo.tools.html#demo.tools.helper", urls)

    def test_the_tables_of_a_module_stub_link_its_public_objects(self):
        # autosummary's own module.rst tables the functions (classes, ...) the module defines.
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\n',
            "demo/tools.py": '"""Tools."""\n\n\ndef helper():\n    """Help."""\n',
            "docs/conf.py": "extensions = ['sphinx.ext.autosummary']\n",
            "docs/api.rst": "API\n===\n\n.. currentmodule:: demo\n\n"
                            ".. autosummary::\n   :toctree: generated/\n\n   tools\n\n"
                            ".. autofunction:: demo.tools.helper\n"})
        links = {unit["url"].removeprefix(DOCS): unit["in_links"] for unit in package_contents(
            self.root, (("demo/__init__.py", "demo"), ("demo/tools.py", "demo.tools")))}
        self.assertEqual(links["api.html#demo.tools.helper"], 1)

    def test_a_myst_pages_eval_rst_and_fenced_autodoc_describe_objects(self):
        # MyST parses an eval-rst block's body as reST and a fenced `{autofunction}` as the
        # directive: the objects are described on the page, in its sections, the module of
        # one block's `.. module::` the next one's (structlog's thread-local.md); a section of
        # nothing else is its title alone, no unit of its own.
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\n\n\ndef start():\n    """Start."""\n\n\n'
                                'def stop():\n    """Stop."""\n',
            "docs/conf.py": "extensions = ['myst_parser', 'sphinx.ext.autodoc']\n",
            "docs/api.md": "# API\n\nThe API.\n\n## Functions\n\n```{eval-rst}\n"
                           ".. module:: demo\n```\n\n```{eval-rst}\n.. autofunction:: start\n"
                           "```\n\n```{autofunction} stop\n```\n\n## About\n\n```{eval-rst}\n"
                           ".. include:: ../notes.rst\n   :parser: rst\n```\n",
            "notes.rst": "Notes\n=====\n\nIt demos.\n"})
        urls = [unit["url"].removeprefix(DOCS) for unit in package_contents(self.root)
                if unit["url"].startswith(DOCS + "api.html")]
        # An eval-rst block describing nothing stays text: what the expansion skipped (an
        # include of another parser's file) is the section's.
        self.assertEqual(urls, ["api.html#api", "api.html#demo.start", "api.html#demo.stop",
                                "api.html#about"])

    def test_a_bare_toctree_writes_stubs_beside_the_page_and_each_entry_links(self):
        # Autosummary's `'toctree' in options`: no value is the page's own directory. Each
        # entry of any table renders as an `:obj:` reference to its object.
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\n\n\ndef start():\n    """Start."""\n',
            "docs/conf.py": "extensions = ['sphinx.ext.autosummary']\n",
            "docs/ref/api.rst": "API\n===\n\n.. currentmodule:: demo\n\n"
                                ".. autosummary::\n   :toctree:\n\n   start\n\n"
                                ".. autosummary::\n\n   start\n"})
        [unit] = [unit for unit in package_contents(self.root) if unit["title"] == "demo.start"]
        self.assertEqual((unit["url"], unit["in_links"]),
                         (DOCS + "ref/demo.start.html#demo.start", 2))

    def test_sphinx_gallery_publishes_each_example_script_as_a_page_of_its_gallery(self):
        # scikit-image 0.19.3: examples_dirs '../examples', gallery_dirs 'auto_examples';
        # a subfolder is a gallery section where it has a README; the docstring is the
        # page's text under its label, a `# %%` or `####...` line starts a text block.
        script = ('"""\n============\nCanny filter\n============\n\nFind edges.\n"""\n\n'
                  'import numpy as np\n\nedges = np.zeros(3)\n\n# %%\n# Thresholds\n'
                  '# ----------\n#\n#   Pick *two*.\nlow, high = 1, 2\n'
                  + "#" * 30 + "\n# Done.\n")
        conf = ("extensions = ['sphinx_gallery.gen_gallery']\n"
                "sphinx_gallery_conf = {'examples_dirs': '../examples',\n"
                "                       'gallery_dirs': 'auto_examples',\n"
                "                       'image_scrapers': scrapers}\n")
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\n',
            "docs/conf.py": conf,
            "docs/index.rst": "Demo\n====\n\nSee :ref:`sphx_glr_auto_examples_edges_plot_canny.py`."
                              "\n",
            "examples/README.txt": "Gallery\n=======\n",
            "examples/edges/README.txt": "Edges\n-----\n",
            "examples/edges/plot_canny.py": script,
            "examples/edges/__init__.py": '"""Not an example."""\n',
            "examples/edges/plot_bare.py": "print(1)\n",
            "examples/edges/plot_broken.py": '"""\nBroken\n======\n"""\n\nif True\n',
            "examples/unlisted/plot_hidden.py": '"""\nHidden\n======\n"""\n'})
        said = io.StringIO()
        units = {unit["url"].removeprefix(DOCS): unit
                 for unit in package_contents(self.root, progress=Progress(said))}
        title = units["auto_examples/edges/plot_canny.html#canny-filter"]
        self.assertEqual((title["source_id"], title["start_line"], title["end_line"]),
                         ("examples/edges/plot_canny.py", 2, 11))
        self.assertIn("    edges = np.zeros(3)", title["text"])
        self.assertIn("edges = np.zeros(3)", title["fields"]["code"])
        # A :ref: to the label lands on its span inside the section, as on the rendered
        # site: no link to the section's unit (test_cross_references_are_the_in_links).
        self.assertEqual(title["in_links"], 0)
        thresholds = units["auto_examples/edges/plot_canny.html#thresholds"]
        self.assertEqual((thresholds["start_line"], thresholds["end_line"]), (14, 20))
        self.assertIn("Pick *two*.", thresholds["text"])
        self.assertIn("low, high = 1, 2", thresholds["fields"]["code"])
        self.assertIn("Done.", thresholds["text"])
        # The gallery's index: its header files' sections, the folder's and each section's.
        self.assertEqual({url for url in units if url.startswith("auto_examples/index")},
                         {"auto_examples/index.html#gallery", "auto_examples/index.html#edges"})
        self.assertEqual(units["auto_examples/index.html#edges"]["source_id"],
                         "examples/edges/README.txt")
        self.assertEqual({url.partition("#")[0] for url in units if "auto_examples" in url},
                         {"auto_examples/edges/plot_canny.html", "auto_examples/index.html"})
        self.assertIn("examples/edges/plot_bare.py: no module docstring", said.getvalue())
        self.assertIn("examples/edges/plot_broken.py: does not parse at line 6", said.getvalue())

    def test_a_gallery_page_leaves_out_ignore_blocks_and_config_comments(self):
        # gen_rst removes each `# sphinx_gallery_start_ignore` ... `end_ignore` block, and,
        # with remove_config_comments (scikit-learn's, matplotlib's conf.py), each
        # `# sphinx_gallery_<option>` comment; a code block left empty has no directive.
        script = ('"""\nDemo\n====\n"""\n\nx = 1\n# sphinx_gallery_thumbnail_number = 2\n'
                  '# sphinx_gallery_start_ignore\nimport warnings\n'
                  '# sphinx_gallery_end_ignore\ny = 2\n\n# %%\n# More\n# ----\n\n'
                  '# sphinx_gallery_defer_figures\n')
        for remove, shown in ((True, "x = 1\ny = 2"),
                              (False, "x = 1\n# sphinx_gallery_thumbnail_number = 2\ny = 2\n"
                                      "# sphinx_gallery_defer_figures")):
            with self.subTest(remove=remove):
                write(self.root, {
                    "demo/__init__.py": '"""Demo."""\n',
                    "docs/conf.py": "extensions = ['sphinx_gallery.gen_gallery']\n"
                                    "sphinx_gallery_conf = "
                                    f"{{'remove_config_comments': {remove}}}\n",
                    "docs/index.rst": "Demo\n====\n",
                    "examples/README.txt": "Gallery\n=======\n",
                    "examples/plot_demo.py": script})
                units = [unit for unit in package_contents(self.root)
                         if unit["source_id"] == "examples/plot_demo.py"]
                code = "\n".join(line.strip() for unit in units
                                 for line in unit["fields"]["code"].split("\n") if line.strip())
                self.assertEqual(code, shown)
                self.assertNotIn("import warnings", " ".join(unit["text"] for unit in units))
                self.assertEqual(sum(".. code-block::" in unit["text"] for unit in units),
                                 1 if remove else 2)

    def test_a_gallery_page_s_docstring_is_read_dedented(self):
        # py_source_parser takes the docstring with ast.get_docstring, which dedents it
        # (inspect.cleandoc): an indented title is the page's title, not a block quote.
        from retrieval.ingest.readers.sphinx_gallery import gallery_page
        script = '"""  Demo\n\t====\n\n\t  Text.\n  """\nx = 1\n'
        page = gallery_page(script, "sphx_glr_demo.py")
        self.assertEqual(page.lines[2:7], ("Demo", "====", "", "  Text.", ""))
        self.assertEqual(page.script_lines[2:7], (1, 2, 3, 4, 5))
        script = '"""\n    Indented title\n    ==============\n\n    Text.\n    """\nx = 1\n'
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\n',
            "docs/conf.py": "extensions = ['sphinx_gallery.gen_gallery']\n",
            "docs/index.rst": "Demo\n====\n",
            "examples/README.txt": "Gallery\n=======\n",
            "examples/plot_demo.py": script})
        [unit] = [unit for unit in package_contents(self.root)
                  if unit["source_id"] == "examples/plot_demo.py"]
        self.assertEqual((unit["url"].removeprefix(DOCS), unit["title"], unit["start_line"]),
                         ("auto_examples/plot_demo.html#indented-title", "Indented title", 2))

    def test_a_gallery_page_reads_windows_line_ends_as_unix_ones(self):
        # parse_source_file's "\r\n" -> "\n" (networkx 3.1's examples/graph/plot_mst.py):
        # no "\r" in the page's code, each line still at its script's line.
        from retrieval.ingest.readers.sphinx_gallery import gallery_page
        page = gallery_page('"""\r\nDemo\r\n====\r\n"""\r\nx = 1\r\n# %%\r\n# Text\r\n',
                            "sphx_glr_demo.py")
        self.assertEqual(page.lines[-7:], (".. code-block:: default", "", "    x = 1", "",
                                           "Text", "", ""))
        self.assertEqual(page.script_lines[-7:], (5, 5, 5, 6, 7, 7, 8))

    def test_a_page_includes_the_copy_of_a_script_written_beside_its_gallery_page(self):
        # scikit-learn 1.3.0's tutorial: `.. literalinclude::
        # ../../auto_examples/exercises/plot_cv_digits.py`, the copy gen_rst writes of
        # examples/exercises/plot_cv_digits.py in the gallery folder; not of an ignored one.
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\n',
            "docs/conf.py": "extensions = ['sphinx_gallery.gen_gallery']\n",
            "docs/tutorial/cv.rst": "CV\n==\n\n.. literalinclude:: "
                                    "../auto_examples/exercises/plot_cv.py\n\n"
                                    ".. literalinclude:: ../auto_examples/exercises/__init__.py\n",
            "examples/README.txt": "Gallery\n=======\n",
            "examples/exercises/README.txt": "Exercises\n---------\n",
            "examples/exercises/__init__.py": "",
            "examples/exercises/plot_cv.py": '"""\nCV\n==\n"""\nscore = cross_val()\n'})
        said = io.StringIO()
        [unit] = [unit for unit in package_contents(self.root, progress=Progress(said))
                  if unit["url"] == DOCS + "tutorial/cv.html#cv"]
        self.assertIn("score = cross_val()", unit["fields"]["code"])
        self.assertNotIn("plot_cv.py: no such file", said.getvalue())
        self.assertIn("exercises/__init__.py: no such file", said.getvalue())

    def test_nbsphinx_publishes_each_notebook_as_a_page_its_headings_at_jupyter_s_ids(self):
        # xarray 2023.01.0's docs/examples/*.ipynb: Markdown cells are text, code cells code,
        # outputs, raw and hidden cells are not read; a heading's id is its educated text
        # with each space a hyphen ("Control the plot’s colorbar"); a unit quotes the span of
        # the file its cells are written on.
        import json
        cells = [
            {"cell_type": "markdown", "metadata": {},
             "source": ["# Toy weather data\n", "\n", "Here is a dataset."]},
            {"cell_type": "code", "execution_count": None, "metadata": {},
             "outputs": [{"output_type": "stream", "text": ["printed only when run\n"]}],
             "source": ["ds = make()\n", "print('```')"]},
            {"cell_type": "raw", "metadata": {}, "source": ["Raw text."]},
            {"cell_type": "markdown", "metadata": {"nbsphinx": "hidden"},
             "source": ["Hidden text."]},
            {"cell_type": "markdown", "metadata": {},
             "source": ["## Control the plot's colorbar\n", "Use `cbar_kwargs`."]}]
        notebook = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4,
                               "nbformat_minor": 4}, indent=1)
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\n',
            "docs/conf.py": "extensions = ['nbsphinx']\n"
                            "exclude_patterns = ['_build', 'drafts']\n",
            "docs/index.rst": "Demo\n====\n",
            "docs/examples/weather.ipynb": notebook,
            "docs/examples/.ipynb_checkpoints/weather-checkpoint.ipynb": notebook,
            "docs/drafts/draft.ipynb": notebook,
            "docs/examples/broken.ipynb": "{not json"})
        said = io.StringIO()
        units = {unit["url"].removeprefix(DOCS): unit
                 for unit in package_contents(self.root, progress=Progress(said))}
        self.assertEqual(sorted(url for url in units if "examples/" in url), [
            "examples/weather.html#Control-the-plot\u2019s-colorbar",
            "examples/weather.html#Toy-weather-data"])
        toy = units["examples/weather.html#Toy-weather-data"]
        lines = notebook.split("\n")
        self.assertEqual(toy["source_id"], "docs/examples/weather.ipynb")
        self.assertEqual(lines[toy["start_line"] - 1].strip(), '"# Toy weather data\\n",')
        self.assertEqual(lines[toy["end_line"] - 1].strip(), '"print(\'```\')"')
        self.assertIn("ds = make()", toy["fields"]["code"])
        self.assertNotIn("printed only", toy["text"])
        text = " ".join(unit["text"] for unit in units.values())
        self.assertNotIn("Raw text.", text)
        self.assertNotIn("Hidden text.", text)
        self.assertIn("docs/examples/broken.ipynb: not a notebook", said.getvalue())

    def test_a_notebook_not_written_line_by_line_is_read_at_its_source_keys_lines(self):
        import json

        from retrieval.ingest.readers.notebooks import notebook_page
        cells = [{"cell_type": "markdown", "metadata": {}, "source": "# Title\nText."},
                 {"cell_type": "code", "metadata": {}, "outputs": [], "source": ["x = 1"]}]
        page = notebook_page(json.dumps({"cells": cells}))
        self.assertEqual(page.lines, ("# Title", "Text.", "", "```python", "x = 1", "```", ""))
        self.assertEqual(set(page.file_lines), {1})
        self.assertIsNone(notebook_page('{"cells": 3}'))

    def test_autosummary_generate_names_the_pages_whose_tables_get_stubs(self):
        # autosummary's process_generate_options: False writes no stub (Sphinx's own docs), a
        # list only those files' (a name without a suffix taken with source_suffix's first).
        files = {"demo/__init__.py": '"""Demo."""\n\n\ndef start():\n    """Start."""\n\n\n'
                                     'def stop():\n    """Stop."""\n',
                 "docs/api.rst": "API\n===\n\n.. currentmodule:: demo\n\n"
                                 ".. autosummary::\n   :toctree: generated/\n\n   start\n",
                 "docs/more.rst": "More\n====\n\n.. currentmodule:: demo\n\n"
                                  ".. autosummary::\n   :toctree: generated/\n\n   stop\n"}
        for generate, stubs in (("False", set()), ("['more']", {"demo.stop"}),
                                ("True", {"demo.start", "demo.stop"})):
            with self.subTest(generate=generate):
                conf = ("extensions = ['sphinx.ext.autosummary']\n"
                        f"autosummary_generate = {generate}\n")
                write(self.root, files | {"docs/conf.py": conf})
                self.assertEqual({unit["title"] for unit in package_contents(self.root)
                                  if "/generated/" in unit["url"]}, stubs)

    def test_the_docstring_a_stub_page_renders_links_from_it(self):
        # autodoc renders each stub's docstring on its page: a reference there is an in-link.
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\n\n\ndef start():\n    """Start."""\n\n\n'
                                'def stop():\n    """Stop what :func:`start` began."""\n',
            "docs/conf.py": "extensions = ['sphinx.ext.autosummary']\n",
            "docs/api.rst": "API\n===\n\n.. currentmodule:: demo\n\n"
                            ".. autosummary::\n   :toctree: generated/\n\n   start\n   stop\n"})
        units = {unit["title"]: unit["in_links"] for unit in package_contents(self.root)}
        # Each of the table's entries links once; start once more, from stop's stub.
        self.assertEqual((units["demo.start"], units["demo.stop"]), (2, 1))

    def test_a_myst_pages_roles_link_as_rest_ones_do(self):
        # attrs' Markdown pages: `{func}`demo.start`` is MyST's `:func:`demo.start``, also in
        # a file a page includes.
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\n\n\ndef start():\n    """Start."""\n',
            "docs/conf.py": "extensions = ['myst_parser', 'sphinx.ext.autodoc']\n",
            "docs/api.rst": "API\n===\n\n.. autofunction:: demo.start\n",
            "docs/guide.md": "# Guide\n\nCall {func}`demo.start`.\n\n```{include} ../LOG.md\n```\n",
            "LOG.md": "## Log\n\nNow {py:func}`~demo.start` is there.\n"})
        units = {unit["title"]: unit["in_links"] for unit in package_contents(self.root)}
        self.assertEqual(units["demo.start"], 2)

    def test_see_also_names_and_the_default_role_link_where_conf_py_has_them_render(self):
        # numpydoc renders a See Also name as an `:obj:` reference (the description after
        # " : " is text); default_role "autolink" makes `` `name` `` one too. Without them,
        # neither links (but the table's entry, once each).
        module = ('"""Demo."""\n\n\ndef start():\n    """Start."""\n\n\n'
                  'def pause():\n    """Pause."""\n\n\n'
                  'def stop():\n    """Stop what `start` began.\n\n    See Also\n'
                  '    --------\n    start, pause : begin; see `start`.\n    """\n')
        api = ("API\n===\n\n.. currentmodule:: demo\n\n"
               ".. autosummary::\n   :toctree: generated/\n\n   start\n   pause\n   stop\n")
        for conf, links in (("extensions = ['sphinx.ext.autosummary']\n", (1, 1)),
                            ("extensions = ['sphinx.ext.autosummary', 'numpydoc']\n", (2, 2)),
                            ("extensions = ['sphinx.ext.autosummary', 'numpydoc']\n"
                             "default_role = 'autolink'\n", (4, 2))):
            write(self.root, {"demo/__init__.py": module, "docs/conf.py": conf,
                              "docs/api.rst": api})
            units = {unit["title"]: unit["in_links"] for unit in package_contents(self.root)}
            self.assertEqual((units["demo.start"], units["demo.pause"]), links, conf)

    def test_a_directive_of_the_projects_own_documents_the_objects_its_argument_names(self):
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\n',
            "demo/filters.py": 'def do_upper(value):\n    """Upper-case a value."""\n\n\n'
                               'def sync_do_join(value):\n    """Join the values."""\n\n\n'
                               '@variant(sync_do_join)\nasync def do_join(value):\n'
                               '    return value\n\n\n'
                               'def do_default(value, default=""):\n'
                               '    """Return a default for an undefined value."""\n\n\n'
                               'FILTERS = {"upper": do_upper, "d": do_default,\n'
                               '           "default": do_default, "abs": abs,\n'
                               '           "join": do_join}\n',
            "demo/nodes.py": 'class Node:\n    """A node of the tree."""\n\n'
                             '    def find(self, kind):\n        """Find the first node."""\n',
            "demo/defaults.py": "from .filters import FILTERS as DEFAULT_FILTERS\n",
            "docs/conf.py": "extensions = ['some_theme']\n",
            "docs/templates.rst": "Templates\n=========\n\n.. py:currentmodule:: demo-filters\n\n"
                                  ".. demo:filters:: demo.defaults.DEFAULT_FILTERS\n\n"
                                  ".. demo:nodes:: demo.nodes.Node\n\n"
                                  ".. demo:nodes:: demo.nodes.Missing\n\n"
                                  ".. literalinclude:: demo.filters\n"})
        tree = SourceTree("1.0", self.root, DOCS, "demo", "package", package=PackageLayout(
            (("demo/__init__.py", "demo"), ("demo/filters.py", "demo.filters"),
             ("demo/nodes.py", "demo.nodes"), ("demo/defaults.py", "demo.defaults")),
            "docs", DOCS, "pypi:demo==1.0/"))
        stream = io.StringIO()
        units = [draft.content for draft in read_package_contents(tree, Progress(stream))]
        urls = [unit["url"].removeprefix(DOCS + "templates.html#") for unit in units
                if unit["url"] != DOCS + "templates.html#templates"]
        # Each function of the mapping once, by its longest key, sorted; a builtin is not the
        # package's; a class of the package documented with its members at its dotted name.
        # The package's docstring, which no page documents, after the pages, at its lines.
        self.assertEqual(urls, ["demo-filters.default", "demo-filters.join",
                                "demo-filters.upper", "demo.nodes.Node",
                                "demo.nodes.Node.find", "pypi:demo==1.0/demo/__init__.py#L1-L1"])
        default = next(unit for unit in units if unit["url"].endswith("#demo-filters.default"))
        # Known by its keys, as the site shows it, not by its Python name.
        self.assertEqual(default["fields"]["names"].split(), ["demo-filters.default",
                                                               "demo-filters.d"])
        self.assertIn("Return a default", default["text"])
        self.assertNotIn("Missing", stream.getvalue())  # none of autodoc's: no skip reported
        # An undocumented function shows the docstring of the one its decorator wraps.
        join = next(unit for unit in units if unit["url"].endswith("#demo-filters.join"))
        self.assertIn("Join the values.", join["text"])

    def test_autodoc_of_an_assignment_shows_the_function_it_is_bound_to(self):
        # sqlalchemy 1.4.46: `.. autofunction:: select` of `select = public_factory(
        # Select._create, ...)`, whose docstring public_factory copies at import time.
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\n\n\nclass Select:\n    """A SELECT."""\n\n'
                                '    @classmethod\n    def _create(cls, *columns):\n'
                                '        """Construct a SELECT."""\n\n\n'
                                'select = public_factory(Select._create, ".select")\n',
            "docs/conf.py": "",
            "docs/api.rst": "API\n===\n\n.. autofunction:: demo.select\n"})
        tree = SourceTree("1.0", self.root, DOCS, "demo", "package", package=PackageLayout(
            (("demo/__init__.py", "demo"),), "docs", DOCS, "pypi:demo==1.0/"))
        units = {draft.content["title"]: draft.content
                 for draft in read_package_contents(tree, Progress(io.StringIO()))}
        select = units["demo.select"]
        self.assertEqual(select["url"], DOCS + "api.html#demo.select")
        self.assertIn("Construct a SELECT.", select["text"])
        self.assertEqual(select["fields"]["names"].split(),
                         ["demo.select", "demo.Select._create"])

    def test_a_class_shows_what_autoclass_content_says(self):
        # pymongo's `autoclass_content = 'init'`: ClassDocumenter shows __init__'s docstring
        # (quoted with the class's lines), else the class's own; ":class-doc-from: class"
        # overrides it. Whether :members: takes a class is its own docstring's: Pool, none.
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\n\n\nclass Op:\n    """An operation."""\n\n'
                                '    def __init__(self, filter):\n        """Create an Op."""\n'
                                '\n\nclass Plain:\n    """Plain."""\n\n\nclass Pool:\n'
                                '    def __init__(self):\n        """Make a pool."""\n',
            "docs/conf.py": "autoclass_content = 'init'\n",
            "docs/api.rst": "API\n===\n\n.. automodule:: demo\n   :members:\n",
            "docs/own.rst": "Own\n===\n\n.. autoclass:: demo.Op\n   :class-doc-from: class\n"
                            "   :noindex:\n"})
        units = {unit["url"].removeprefix(DOCS): unit["text"]
                 for unit in package_contents(self.root)}
        self.assertEqual(units["api.html#demo.Op"], 'class Op:\n    """An operation."""\n\n'
                         '    def __init__(self, filter):\n        """Create an Op."""')
        self.assertEqual(units["api.html#demo.Plain"], 'class Plain:\n    """Plain."""')
        self.assertNotIn("api.html#demo.Pool", units)
        self.assertEqual(units["own.html#own"], 'class Op:\n    """An operation."""')

    def test_with_a_docs_folder_what_it_does_not_describe_is_read_as_defined(self):
        # Without one, Scaffold.route is flask.Flask.route and add_route too
        # (test_package_layouts); with one, its directives say so.
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\nfrom .app import Flask\n',
            "demo/scaffold.py": 'class Scaffold:\n    """Common."""\n\n'
                                '    def route(self, rule):\n        """Register a rule."""\n'
                                '\n    add_route = route\n',
            "demo/app.py": 'from .scaffold import Scaffold\n\n\nclass Flask(Scaffold):\n'
                           '    """The app."""\n',
            "docs/conf.py": "", "docs/index.rst": "Demo\n====\n\nNo API here.\n"})
        tree = SourceTree("1.0", self.root, DOCS, "demo", "package", package=PackageLayout(
            (("demo/__init__.py", "demo"), ("demo/scaffold.py", "demo.scaffold"),
             ("demo/app.py", "demo.app")), "docs", DOCS, "pypi:demo==1.0/"))
        units = {draft.content["title"]: draft.content
                 for draft in read_package_contents(tree, Progress(io.StringIO()))}
        self.assertEqual(units["demo.scaffold.Scaffold.route"]["fields"]["names"].split(),
                         ["demo.scaffold.Scaffold.route"])

    def test_autodoc_options_as_sphinx_reads_them(self):
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\n\n__all__ = ["Row"]\n\n\n'
                                'def _helper():\n    """Help."""\n\n\n'
                                'class Row:\n    """A row."""\n\n\n'
                                'class Cell:\n    """Not in __all__."""\n\n'
                                '    def _asdict(self):\n        """As a dict."""\n\n'
                                '    def _hidden(self):\n        """Hidden."""\n\n'
                                '    def helper(self):\n        """:meta private:"""\n\n'
                                '    def _shown(self):\n        """Shown.\n\n'
                                '        :meta public:\n        """\n\n\n'
                                'class Other:\n    """Documented without an id."""\n',
            "docs/conf.py": "",
            "docs/api.rst": "API\n===\n\n.. automodule:: demo\n   :members:\n"
                            "   :private-members:\n\n"
                            "Cells\n-----\n\n.. autoclass:: demo.Cell\n   :members:\n"
                            "   :private-members: _asdict\n\n"
                            "Again\n-----\n\n.. autoclass:: demo.Other\n   :noindex:\n"})
        tree = SourceTree("1.0", self.root, DOCS, "demo", "package", package=PackageLayout(
            (("demo/__init__.py", "demo"),), "docs", DOCS, "pypi:demo==1.0/"))
        units = [draft.content for draft in read_package_contents(tree, Progress(io.StringIO()))]
        urls = [unit["url"].removeprefix(DOCS + "api.html") for unit in units]
        # A module's __all__ is all :members: takes, :private-members: or not; a listed
        # :private-members: takes those names only, and a docstring's `:meta private:` or
        # `:meta public:` says what is private; a :noindex: description has no id. (The
        # automodule first in "API", its title alone: one unit, at the module's id; "Cells"
        # and "Again", their titles alone on a page autodoc fills, are none: their objects
        # say it all.)
        self.assertEqual(urls, ["#module-demo", "#demo.Row", "#demo.Cell",
                                "#demo.Cell._asdict", "#demo.Cell._shown", "#again"])
        self.assertEqual(units[0]["title"], "API")
        self.assertTrue(units[-1]["noindex"])

    def test_the_last_line_counts_autodoc_directives_and_says_when_none_resolved(self):
        lines, units = [], []
        for named in ("demo", "other"):
            root = temporary_directory(self)
            write(root, {"demo/__init__.py": 'class Node:\n    """A node."""\n',
                         "docs/conf.py": "",
                         "docs/api.rst": f"API\n===\n\n.. autoclass:: {named}.Node\n\n"
                                         f".. autoclass:: {named}.Missing\n"})
            tree = SourceTree("1.0", root, DOCS, "demo", "package", package=PackageLayout(
                (("demo/__init__.py", "demo"),), "docs", DOCS, "pypi:demo==1.0/"))
            stream = io.StringIO()
            progress = Progress(stream)
            units.append(read_package_contents(tree, progress))
            progress.done(1, "c0ffee")
            lines.append(stream.getvalue().splitlines()[-1])
        self.assertRegex(lines[0], r"^build: done: 1 passages from 2 files \(1 skipped\); "
                                   r"1 of 2 autodoc directives resolved in [0-9.]+s; ")
        self.assertRegex(lines[1], r"; 0 of 2 autodoc directives resolved; WARNING: no autodoc "
                                   r"directive resolved in demo/1.0: its API reference is its "
                                   r"docstrings' alone in [0-9.]+s; ")
        # ... which the build still gives: the public objects no page documents, at their lines.
        self.assertEqual([[unit.content["url"] for unit in found
                           if unit.content["title"] == "demo.Node"] for found in units],
                         [[DOCS + "api.html#demo.Node"],
                          ["pypi:demo==1.0/demo/__init__.py#L1-L2"]])

    def test_an_autodoc_directive_with_an_option_it_does_not_take_renders_nothing(self):
        # Sphinx logs an error and renders nothing of it (pytest's `.. autofunction::
        # pytest.raises(...)` with `:with: excinfo` has no id on its page): no description
        # there; the object is one no page documents, linked at its lines in the release.
        # A documenter's option negated (`:no-members:`) is one it takes.
        write(self.root, {"demo/__init__.py": 'def raises(exc):\n    """Assert it raises."""\n'
                                              '\n\nclass Count:\n    """Count rows."""\n',
                          "docs/conf.py": "",
                          "docs/api.rst": "API\n===\n\nText.\n\n.. autofunction:: demo.raises\n"
                                          "   :with: excinfo\n\n.. autoclass:: demo.Count\n"
                                          "   :no-members:\n"})
        stream = io.StringIO()
        units = package_contents(self.root, progress=Progress(stream))
        self.assertEqual([unit["url"] for unit in units],
                         [DOCS + "api.html#api", DOCS + "api.html#demo.Count",
                          "pypi:demo==1.0/demo/__init__.py#L1-L2"])
        self.assertIn("autofunction demo.raises: autodoc takes no option with", stream.getvalue())
        # sphinxcontrib-trio's documenters take `:with:`: its description is rendered.
        write(self.root, {"docs/conf.py": "extensions = ['sphinxcontrib_trio']\n"})
        self.assertIn(DOCS + "api.html#demo.raises",
                      [unit["url"] for unit in package_contents(self.root)])

    def test_autodocsumm_options_are_taken_where_conf_py_loads_it(self):
        # autodocsumm's module, class and exception documenters take `:autosummary:` and its
        # kin (marshmallow's `.. automodule:: marshmallow.fields` with `:autosummary:`): the
        # directive renders its objects, a table of links above them. Without the extension
        # the option is unknown: nothing rendered.
        write(self.root, {"demo/__init__.py": 'class Count:\n    """Count rows."""\n\n'
                                              '    def add(self):\n        """Add one."""\n',
                          "docs/api.rst": "API\n===\n\nText.\n\n.. autoclass:: demo.Count\n"
                                          "   :members:\n   :autosummary:\n"
                                          "   :autosummary-members: add\n"})
        for extensions, described in (("", False), ("extensions = ['autodocsumm']\n", True)):
            write(self.root, {"docs/conf.py": extensions})
            urls = [unit["url"] for unit in package_contents(self.root)]
            self.assertEqual(DOCS + "api.html#demo.Count.add" in urls, described, urls)

    def test_a_member_of_a_modules_instance_of_a_class_is_the_classs_member(self):
        # distributed's `.. autofunction:: distributed.metrics.context_meter.meter` of
        # `context_meter = ContextMeter()`: autodoc's getattr of the instance gives the bound
        # method, described at the directive's name. An instance of a class whose __new__
        # may return anything is not looked into.
        write(self.root, {"demo/__init__.py": 'class Meter:\n    """A meter."""\n\n'
                                              '    def meter(self):\n        """Time it."""\n'
                                              '\n\nclass Odd(Meter):\n'
                                              '    def __new__(cls):\n        return 1\n\n\n'
                                              'context = Meter()\nodd = Odd()\n',
                          "docs/conf.py": "",
                          "docs/api.rst": "API\n===\n\nText.\n\n"
                                          ".. autofunction:: demo.context.meter\n\n"
                                          ".. autofunction:: demo.odd.meter\n"})
        stream = io.StringIO()
        urls = [unit["url"] for unit in package_contents(self.root, progress=Progress(stream))]
        self.assertIn(DOCS + "api.html#demo.context.meter", urls)
        self.assertIn("autofunction demo.odd.meter: the package source defines no such object",
                      stream.getvalue())

    def test_an_autoattribute_of_an_undocumented_instance_attribute_is_described(self):
        # urllib3's `.. autoattribute:: auto_close` in HTTPResponse's autoclass: autodoc's
        # RuntimeInstanceAttributeMixin finds `self.auto_close = ...` of __init__ (a base's
        # too, in a branch too) and describes it without a value; `:undoc-members:` lists no
        # such attribute (only documented ones are the analyzer's attr_docs).
        write(self.root, {"demo/__init__.py": 'class Base:\n    """A base."""\n\n'
                                              '    def __init__(self, headers):\n'
                                              '        if headers:\n'
                                              '            self.headers = headers\n'
                                              '        else:\n'
                                              '            self.headers = {}\n\n\n'
                                              'class Response(Base):\n'
                                              '    """A response."""\n\n'
                                              '    def __init__(self):\n'
                                              '        self.auto_close = True\n'
                                              '        self.size = 0  #: Its size.\n',
                          "docs/conf.py": "",
                          "docs/api.rst": "API\n===\n\nText.\n\n"
                                          ".. autoclass:: demo.Response\n"
                                          "   :members:\n   :undoc-members:\n\n"
                                          "   .. autoattribute:: auto_close\n"
                                          "   .. autoattribute:: headers\n"
                                          "   .. autoattribute:: missing\n"})
        stream = io.StringIO()
        units = package_contents(self.root, progress=Progress(stream))
        self.assertEqual([unit["url"].removeprefix(DOCS) for unit in units
                          if unit["url"].startswith(DOCS)],
                         ["api.html#api", "api.html#demo.Response", "api.html#demo.Response.size",
                          "api.html#demo.Response.auto_close",
                          "api.html#demo.Response.headers"])
        self.assertIn("autoattribute missing: the package source defines no such object",
                      stream.getvalue())

    def test_an_automodule_of_a_package_conf_py_puts_on_sys_path_is_described(self):
        # SQLAlchemy's `.. automodule:: examples.adjacency_list`, importable by doc/build/
        # conf.py's `sys.path.insert(0, os.path.abspath("../.."))`: its docstring is at the
        # module's id, and it is no API of the release (none of its objects is added).
        write(self.root, {"demo/__init__.py": '"""Demo."""\n',
                          "examples/__init__.py": "",
                          "examples/graphs/__init__.py": '"""Directed graphs."""\n\n\n'
                                                         'class Node:\n    """A node."""\n',
                          "docs/api.rst": "Examples\n========\n\n"
                                          ".. automodule:: examples.graphs\n"})
        for conf, described in (("", False), ("import os, sys\n"
                                              "sys.path.insert(0, os.path.abspath('..'))\n",
                                              True)):
            write(self.root, {"docs/conf.py": conf})
            stream = io.StringIO()
            units = package_contents(self.root, progress=Progress(stream))
            urls = [unit["url"] for unit in units]
            self.assertEqual(DOCS + "api.html#module-examples.graphs" in urls, described, urls)
            self.assertFalse(any("Node" in unit["title"] for unit in units))
            self.assertEqual("automodule examples.graphs: the package source defines no such "
                             "object" in stream.getvalue(), not described)

    def test_each_glossary_entry_is_a_unit_at_its_terms_id(self):
        write(self.root, {
            "docs/conf.py": "",
            "docs/index.rst": "Index\n=====\n\nSee :term:`DBAPI` and :term:`unit of work`.\n",
            "docs/glossary.rst": "Glossary\n========\n\nWords.\n\n.. glossary::\n\n"
                                 "    DBAPI\n    pep-249\n        The Python database API.\n\n"
                                 "        Its second paragraph.\n\n"
                                 "    unit of work\n        A pattern that tracks changes.\n\n"
                                 "After the glossary.\n"})
        units = contents(self.root, "docs")
        glossary = [(unit["url"].removeprefix(DOCS), unit["title"], unit["in_links"])
                    for unit in units if unit["source_id"] == "docs/glossary.rst"]
        self.assertEqual(glossary, [("glossary.html#glossary", "Glossary", 0),
                                    ("glossary.html#term-DBAPI", "DBAPI", 1),
                                    ("glossary.html#term-unit-of-work", "unit of work", 1)])
        dbapi = next(unit for unit in units if unit["title"] == "DBAPI")
        self.assertIn("Its second paragraph.", dbapi["text"])
        self.assertNotIn("A pattern", dbapi["text"])
        # What follows the glossary is its section's again.
        section = next(unit for unit in units if unit["title"] == "Glossary")
        self.assertIn("After the glossary.", section["fields"]["body"])

    def test_an_objects_id_is_sphinxs_make_id_of_its_name(self):
        write(self.root, {"_demo/__init__.py": 'class Node:\n    """A node."""\n',
                          "docs/conf.py": "",
                          "docs/api.rst": "API\n===\n\n.. autoclass:: _demo.Node\n"})
        tree = SourceTree("1.0", self.root, DOCS, "demo", "package", package=PackageLayout(
            (("_demo/__init__.py", "_demo"),), "docs", DOCS, "pypi:demo==1.0/"))
        units = [draft.content for draft in read_package_contents(tree, Progress(io.StringIO()))]
        # (The page's "API" renders its title alone: no unit, its object says it all.)
        self.assertEqual([unit["url"] for unit in units], [DOCS + "api.html#demo.Node"])

    def test_a_section_rendering_its_title_alone_is_no_unit_on_a_page_autodoc_fills(self):
        # Sphinx renders "Nodes" as a heading over its object; its objects say it all, as the
        # rendered site's reader reads such a page. A section with prose after its objects
        # ("Edges") and a title-only section of a page without autodoc ("Intro") stay; what
        # precedes the first title renders nothing (`highlight`): no unit. A `.. contents::`
        # table is docutils' HTML5 <nav>, no text of its section (the site's reader skips it).
        write(self.root, {"_demo/__init__.py": 'class Node:\n    """A node."""\n\n\n'
                                               'class Edge:\n    """An edge."""\n',
                          "docs/conf.py": "",
                          "docs/index.rst": "Intro\n=====\n\nPart\n----\n\nText.\n",
                          "docs/api.rst": ".. highlight:: python\n\nAPI\n===\n\n"
                                          ".. _nodes:\n\nNodes\n-----\n\n"
                                          ".. contents::\n   :local:\n\n"
                                          ".. currentmodule:: _demo\n\n.. autoclass:: Node\n\n"
                                          "Edges\n-----\n\n.. autoclass:: _demo.Edge\n\n"
                                          "Edges join nodes.\n"})
        units = package_contents(self.root, (("_demo/__init__.py", "_demo"),))
        self.assertEqual([(unit["url"].removeprefix(DOCS), unit["kind"]) for unit in units],
                         [("api.html#demo.Node", "class"),
                          ("api.html#edges", "section"),
                          ("api.html#demo.Edge", "class"), ("index.html#intro", "section"),
                          ("index.html#part", "section")])
        node = next(unit for unit in units if unit["url"] == DOCS + "api.html#demo.Node")
        self.assertEqual(node["fields"]["context"], "API Nodes")

    def test_a_program_directive_renders_nothing_of_its_section(self):
        # sphinx-autogen's "Options": `.. program::` then options (Sphinx's Program returns no
        # node), on a page with generated text, is its title alone: no unit; its options are.
        write(self.root, {"_demo/__init__.py": 'def make():\n    """Make one."""\n',
                          "docs/conf.py": "",
                          "docs/cli.rst": "CLI\n===\n\n.. autofunction:: _demo.make\n\n"
                                          "Options\n-------\n\n.. program:: demo\n\n"
                                          ".. option:: -o <dir>\n\n   Output.\n"})
        urls = [unit["url"].removeprefix(DOCS) for unit in package_contents(
            self.root, (("_demo/__init__.py", "_demo"),))]
        self.assertIn("cli.html#cmdoption-demo-o", urls)
        self.assertNotIn("cli.html#options", urls)

    def test_a_section_rendering_its_title_alone_is_no_unit_on_a_page_autosummary_fills(self):
        # dask's array-api.rst: "API" over "Top level functions" and its autosummary table.
        # The site's reader reads a page with generated text as its HTML, where "API" is a
        # heading alone; the table's section is a unit.
        write(self.root, {"_demo/__init__.py": 'def make():\n    """Make one."""\n',
                          "docs/conf.py": "extensions = ['sphinx.ext.autosummary']\n",
                          "docs/api.rst": "API\n===\n\n.. currentmodule:: _demo\n\n"
                                          "Functions\n---------\n\n.. autosummary::\n\n"
                                          "   make\n"})
        units = package_contents(self.root, (("_demo/__init__.py", "_demo"),))
        self.assertEqual([unit["url"].removeprefix(DOCS) for unit in units],
                         ["api.html#functions"])

    def test_what_precedes_the_first_title_is_a_unit_only_where_it_renders_text(self):
        # `:orphan:` (page metadata Sphinx takes out), `highlight` and `currentmodule` render
        # nothing above the page's title: no unit of the page without a title. Text there
        # renders, and is one.
        write(self.root, {"doc/conf.py": "",
                          "doc/index.rst": ":orphan:\n\n.. highlight:: console\n\n"
                                           ".. currentmodule:: demo\n\nDemo\n====\n\nText.\n",
                          "doc/other.rst": ":orphan:\n\nRead this first.\n\n"
                                           "Other\n=====\n\nMore.\n"})
        self.assertEqual([(unit["url"].removeprefix(DOCS), unit["text"].split("\n")[0])
                          for unit in contents(self.root, "doc")],
                         [("index.html#demo", "Demo"), ("other.html", ":orphan:"),
                          ("other.html#other", "Other")])

    def test_a_label_above_a_title_directive_labels_the_section_below(self):
        # `.. title::` gives docutils no node: PropagateTargets puts the label on the section,
        # whose title's own id the label took (pydicom's `.. _best_practices:`).
        self.assertEqual(list(index_texts(self.root, ".. _best_practices:\n.. title:: Best\n\n"
                                                     "Best Practices\n==============\n\n"
                                                     "Text.\n")), ["#best-practices"])

    def test_a_title_meta_or_author_directive_renders_nothing_above_the_first_title(self):
        # `.. title::` and `.. meta::` fill the page's head; Sphinx's sectionauthor renders
        # nothing without show_authors (pydicom's old/best_practices.rst); an `rst-class`
        # gives what follows a class (Flask's index.rst: `hide-header`).
        write(self.root, {"doc/conf.py": "",
                          "doc/index.rst": ".. title:: Best Practices\n.. meta::\n"
                                           "   :keywords: dicom\n\n"
                                           ".. rst-class:: hide-header\n\n"
                                           ".. sectionauthor:: Someone\n\nDemo\n====\n\n"
                                           "Text.\n"})
        self.assertEqual([unit["url"].removeprefix(DOCS)
                          for unit in contents(self.root, "doc")], ["index.html#demo"])

    def test_a_suppressed_ipython_block_renders_nothing(self):
        # statsmodels' datasets/index.rst: a currentmodule and an `.. ipython::` block with
        # `:suppress:` above the title (IPython's directive shows neither input nor output);
        # one without it is shown, its section's text.
        write(self.root, {"doc/conf.py": "",
                          "doc/index.rst": ".. currentmodule:: demo\n\n.. ipython:: python\n"
                                           "   :suppress:\n\n   import numpy as np\n\n"
                                           "   np.set_printoptions(suppress=True)\n\n"
                                           "Demo\n====\n\nText.\n",
                          "doc/shown.rst": ".. ipython:: python\n\n   import numpy\n\n"
                                           "Shown\n=====\n\nText.\n"})
        self.assertEqual(sorted(unit["url"].removeprefix(DOCS)
                                for unit in contents(self.root, "doc")),
                         ["index.html#demo", "shown.html", "shown.html#shown"])

    def test_what_renders_nothing_above_a_rendered_pages_title_is_no_unit_either(self):
        # h5py's `.. currentmodule:: h5py` right above `.. _attributes:` and the title: the
        # rendered page shows nothing above its title, nor does the rendered site's build.
        page = parse_page("attr.html", '<div role="main"><section id="attributes"><span '
                          'id="attrs"></span><h1>Attributes</h1><p>Text.</p></section></div>')
        units = page_units(".. currentmodule:: h5py\n.. _attrs:\n\n\nAttributes\n==========\n"
                           "\nText.\n", page)
        self.assertEqual([(unit.anchor, unit.text) for unit in units],
                         [("attributes", "Attributes\n==========\n\nText.")])

    def test_a_source_above_a_title_the_rendered_page_shows_no_text_above_is_no_unit(self):
        # Debian's pandas _sources keep `{{ header }}`, which conf.py's Jinja rendered away,
        # over a suppressed ipython block: the page shows nothing above its title. Where it
        # shows text there, the source's lines are that text's unit.
        source = ("{{ header }}\n\n.. ipython:: python\n\n   import pandas\n\n"
                  "Merging\n=======\n\nText.\n")
        for shown, anchors in (("", ["merging"]), ("<p>import pandas</p>", [None, "merging"])):
            page = parse_page("merging.html", f'<div role="main">{shown}<section id="merging">'
                              '<h1>Merging</h1><p>Text.</p></section></div>')
            self.assertEqual([unit.anchor for unit in page_units(source, page)], anchors)

    def test_a_literal_block_in_a_list_item_ends_at_the_items_text(self):
        # h5py's lowlevel.rst: `- **To the low-level**: ...::`, its code, then `  Although
        # ... :meth:`.AttributeManager.get_id` ...`, the item's next paragraph (indented as
        # its text, not past it): prose, whose reference links.
        self.assertEqual(in_links_with(self.root, {"doc/conf.py": "", "doc/index.rst": (
            "Demo\n====\n\n.. module:: demo\n\n- **Low**: go down\n  like this::\n\n"
            "      x = 1\n\n  Then :meth:`.Thing.run` works.\n\n- Or::\n\n    y = 2\n\n"
            "  and :meth:`.Thing.run` too.\n\n.. class:: Thing\n\n   .. method:: run()\n\n"
            "      Run.\n")})["demo.Thing.run"], 2)

    def test_a_descriptions_typed_fields_link_their_types(self):
        # Sphinx's PyTypedField: h5py's `.. method:: create_virtual_dataset` body has
        # `:param VirtualLayout layout:`, a link to VirtualLayout; `:rtype:` and `:raises:`
        # too. The same line in a section's prose is a field list, no link.
        self.assertEqual(in_links_with(self.root, {"doc/conf.py": "", "doc/index.rst": (
            "Demo\n====\n\n.. module:: demo\n\n.. class:: Layout\n\n   A layout.\n\n"
            ".. function:: make(layout)\n\n   :param Layout layout: the layout.\n"
            "   :rtype: Layout or None\n   :raises ~demo.Layout: never.\n\n"
            ":param Layout layout: prose.\n")})["demo.Layout"], 3)

    def test_a_module_first_in_a_section_is_where_the_section_is(self):
        # Sphinx's MoveModuleTargets: the target of a `.. module::` that is the first thing in
        # a section leads the section's ids (jinja2's `<section id="module-jinja2.ext">`, its
        # title's id and label spans inside); `.. currentmodule::` makes no node between them.
        # One after the section's text (or not in a section) is a span inside it; so is one
        # after a title whose name a label above it has (`.. _aiomysql:` before "aiomysql",
        # sqlalchemy's): docutils reports the duplicate name inside the section first.
        write(self.root, {"doc/conf.py": "", "doc/index.rst": (
            "Demo\n====\n\nSee :mod:`demo.ext` and :mod:`demo.later`.\n\n"
            ".. _writing-extensions:\n\nWriting Extensions\n------------------\n\n"
            ".. module:: demo.ext\n\nExtensions.\n\n"
            "Other\n-----\n\n.. currentmodule:: demo\n\n.. module:: demo.other\n\n"
            "Others.\n\nLater\n-----\n\nText.\n\n.. module:: demo.later\n\nMore.\n\n"
            ".. _aiomysql:\n\naiomysql\n--------\n\n.. module:: demo.aiomysql\n\nDriver.\n")})
        units = contents(self.root, "doc")
        self.assertEqual([(unit["url"].removeprefix(DOCS + "index.html"), unit["in_links"])
                          for unit in units],
                         [("#demo", 0), ("#module-demo.ext", 1), ("#module-demo.other", 0),
                          ("#later", 0), ("#aiomysql", 0)])

    def test_a_description_after_an_autodoc_one_of_its_name_is_at_sphinx_s_idn(self):
        # pexpect's `.. autoclass:: spawn`, then `.. class:: spawn` holding more members:
        # autodoc's description took the id `pexpect.spawn` first (PyObject's make_id, in
        # document order), so the hand-written one is at Sphinx's next `idN`, `id0`; an
        # autodoc description after a hand-written one of its name likewise.
        write(self.root, {
            "demo/__init__.py": 'class Row:\n    """A row."""\n\n\n'
                                'def make():\n    """Make one."""\n',
            "docs/conf.py": "",
            "docs/api.rst": "API\n===\n\n.. currentmodule:: demo\n\n.. autoclass:: Row\n\n"
                            ".. class:: Row\n\n   More of it.\n\n.. function:: make()\n\n"
                            "   By hand.\n\n.. autofunction:: make\n"})
        urls = [unit["url"].removeprefix(DOCS + "api.html")
                for unit in package_contents(self.root)]
        self.assertEqual(urls, ["#demo.Row", "#id0", "#demo.make", "#id1"])

    def test_an_automodule_first_in_a_section_is_that_sections_text(self):
        # autodoc's `.. py:module::` moves as `.. module::` does: "Runtime Inspection API"
        # then `.. automodule:: sqlalchemy.inspection` is `<section id="module-sqlalchemy.
        # inspection">` with the docstring its text, one unit; after the section's own text,
        # the module's target is a span and its docstring more of the section's paragraphs
        # (kombu's automodule after a `.. contents::`): its unit is at the section's id too.
        write(self.root, {
            "demo/__init__.py": '"""Demo does things."""\n',
            "demo/extra.py": '"""Extra things."""\n',
            "docs/conf.py": "",
            "docs/index.rst": "Index\n=====\n\nSee :doc:`api` and :doc:`extra`.\n",
            "docs/api.rst": "API\n===\n\n.. automodule:: demo\n",
            "docs/extra.rst": "Extra\n=====\n\nFirst this.\n\n.. automodule:: demo.extra\n"})
        units = [(unit["url"].removeprefix(DOCS), unit["title"], unit["source_id"],
                  unit["in_links"]) for unit in package_contents(
            self.root, (("demo/__init__.py", "demo"), ("demo/extra.py", "demo.extra")))]
        self.assertEqual(units, [
            ("api.html#module-demo", "API", "demo/__init__.py", 1),
            ("extra.html#extra", "Extra", "docs/extra.rst", 1),
            ("extra.html#extra", "demo.extra", "demo/extra.py", 0),
            ("index.html#index", "Index", "docs/index.rst", 0)])

    def test_an_automodule_in_a_section_rendering_nothing_else_is_that_section(self):
        # sqlalchemy's `.. _aiomysql:` over "aiomysql", then `.. automodule::`: docutils'
        # duplicate name report comes first in the section, so the module's target is a span
        # inside it, its docstring the section's only text: one unit at the section's id,
        # titled as the section is.
        write(self.root, {
            "demo/__init__.py": '"""Demo does things."""\n',
            "docs/conf.py": "",
            "docs/api.rst": "API\n===\n\nText.\n\n.. _the demo:\n\nThe demo\n--------\n\n"
                            ".. automodule:: demo\n"})
        units = [(unit["url"].removeprefix(DOCS), unit["title"], unit["source_id"])
                 for unit in package_contents(self.root)]
        self.assertEqual(units, [("api.html#api", "API", "docs/api.rst"),
                                 ("api.html#the-demo", "The demo", "demo/__init__.py")])

    def test_a_currentmodule_between_a_title_and_its_automodule_leaves_it_the_sections(self):
        # kombu's "Carrot Compatibility - ``kombu.compat``", `.. currentmodule::` (no node),
        # then `.. automodule:: kombu.compat`: one unit at the module's id, titled as the
        # section is.
        write(self.root, {
            "demo/__init__.py": '"""Demo does things."""\n',
            "docs/conf.py": "",
            "docs/api.rst": "Carrot - ``demo``\n=================\n\n.. currentmodule:: demo\n\n"
                            ".. automodule:: demo\n"})
        units = [(unit["url"].removeprefix(DOCS), unit["title"])
                 for unit in package_contents(self.root)]
        self.assertEqual(units, [("api.html#module-demo", "Carrot - demo")])

    def test_what_comes_between_a_title_and_an_automodule_keeps_the_section_at_its_id(self):
        # pymongo's `:mod:`int64` -- Tools ...` over an underline one short: docutils' "Title
        # underline too short." warning is first in the section, so MoveModuleTargets leaves
        # the module's target a span inside; a title starting with a role is text (no
        # `:orphan:`-like field), `.. versionadded::` below it renders text: both are units,
        # the module's at the section's id (its docstring more of the section's text).
        # A module without a docstring renders no description: its section, its title alone
        # on a page autodoc fills, is no unit either.
        write(self.root, {
            "demo/__init__.py": '"""Demo does things."""\n',
            "demo/bare.py": "X = 1\n",
            "docs/conf.py": "",
            "docs/role.rst": ":mod:`demo` -- Demo\n===================\n.. versionadded:: 1.0"
                             "\n\n.. automodule:: demo\n",
            "docs/bare.rst": "Bare\n====\n\n.. automodule:: demo.bare\n"})
        units = [unit["url"].removeprefix(DOCS) for unit in package_contents(
            self.root, (("demo/__init__.py", "demo"), ("demo/bare.py", "demo.bare")))]
        self.assertEqual(units, ["role.html#demo-demo", "role.html#demo-demo"])
        self.assertEqual([predict_page("api", f"Extra module\n{underline}\n\n.. automodule:: "
                                       "demo.extra\n", Directives()).page.sections[0].section_id
                          for underline in ("========", "============")],
                         ["extra-module", "module-demo.extra"])

    def test_an_automodule_first_in_a_title_only_section_is_its_text_where_not_moved(self):
        # "Title underline too short." leaves the module's target a span inside the section
        # (MoveModuleTargets): what the section renders is its title, then the module's
        # description, one unit at the section's id, as the rendered page's section is.
        write(self.root, {
            "demo/__init__.py": '"""Demo does things."""\n',
            "demo/more.py": '"""More things."""\n',
            "demo/top.py": '"""Top things."""\n',
            "docs/conf.py": "",
            "docs/api.rst": "Demo module\n=========\n\n.. automodule:: demo\n",
            "docs/more.rst": "More\n====\n\n.. contents::\n   :local:\n\n"
                             ".. automodule:: demo.more\n",
            "docs/top.rst": ".. currentmodule:: demo.top\n\n.. automodule:: demo.top\n\n"
                            "Later\n=====\n\nText.\n"})
        units = [(unit["url"].removeprefix(DOCS), unit["title"], unit["source_id"])
                 for unit in package_contents(
                     self.root, (("demo/__init__.py", "demo"), ("demo/more.py", "demo.more"),
                                 ("demo/top.py", "demo.top")))]
        # A `.. contents::` first (celery's reference pages) is a <nav>, no text, likewise;
        # above the page's first title (celery.app.amqp), it is the top of the page.
        self.assertEqual(units, [("api.html#demo-module", "Demo module", "demo/__init__.py"),
                                 ("more.html#more", "More", "demo/more.py"),
                                 ("top.html", "demo.top", "demo/top.py"),
                                 ("top.html#later", "Later", "docs/top.rst")])

    def test_a_mod_reference_lands_on_an_automodules_target(self):
        # autodoc's `.. py:module::` is a target as `.. module::` is: pymongo's `:mod:`bson``
        # links to api/bson/index.html#module-bson, where the section its automodule is
        # first in is.
        write(self.root, {
            "demo/__init__.py": '"""Demo does things."""\n',
            "docs/conf.py": "",
            "docs/index.rst": "Index\n=====\n\nSee :mod:`demo`, twice: :mod:`demo`.\n",
            "docs/api.rst": "API\n===\n\n.. automodule:: demo\n"})
        units = {unit["url"].removeprefix(DOCS): unit["in_links"]
                 for unit in package_contents(self.root)}
        self.assertEqual(units["api.html#module-demo"], 2)

    def test_automodule_members_leave_out_a_name_bound_to_another_modules_function(self):
        # autodoc's check_module: without __all__, :members: takes what the module defines;
        # `apply_rescale = apply_modality_lut` (pydicom) is util's function.
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\nfrom demo.util import modality\n\n\n'
                                'def helper():\n    """Help."""\n\n\n'
                                'rescale = modality\n',
            "demo/util.py": '"""Utilities."""\n\n\ndef modality():\n    """Apply."""\n',
            "docs/conf.py": "",
            "docs/index.rst": "API\n===\n\n.. automodule:: demo\n   :members:\n"})
        urls = [unit["url"].removeprefix(DOCS + "index.html") for unit in package_contents(
            self.root, (("demo/__init__.py", "demo"), ("demo/util.py", "demo.util")))]
        self.assertIn("#demo.helper", urls)
        self.assertNotIn("#demo.rescale", urls)

    def test_a_classs_slots_are_its_members_and_a_subclasss_without_slots_of_its_own(self):
        # autodoc's get_class_members takes each name of the class's __slots__ attribute,
        # a base's where it has none (kombu's pyamqp.Message has message.Message's), as the
        # class's own member; a __slots__ dict gives their docstrings, as does a comment.
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\n\n\nclass Base:\n    """A base."""\n\n'
                                '    if True:\n        __slots__ = (\n            "body",\n'
                                '            "_state",\n        )\n\n\n'
                                'class Child(Base):\n    """A child."""\n\n\n'
                                'class Point:\n    """A point."""\n\n'
                                '    __slots__ = {"x": "Across.", "y": None, "z": None}\n\n'
                                '    def __init__(self):\n        self.z = 0  #: How deep.\n',
            "docs/conf.py": "",
            "docs/index.rst": "API\n===\n\n.. autoclass:: demo.Child\n   :members:\n"
                              "   :undoc-members:\n\n.. autoclass:: demo.Point\n"
                              "   :members:\n"})
        urls = [unit["url"].removeprefix(DOCS + "index.html")
                for unit in package_contents(self.root)]
        self.assertIn("#demo.Child.body", urls)
        self.assertNotIn("#demo.Child._state", urls)
        self.assertIn("#demo.Point.x", urls)
        self.assertNotIn("#demo.Point.y", urls)
        self.assertIn("#demo.Point.z", urls)  # its comment documents it (attr_docs)

    def test_a_slot_s_annotation_and_the_string_after_it_document_it(self):
        # werkzeug's LocalProxy: `__slots__ = ("_get_current_object",)`, then
        # `_get_current_object: t.Callable[[], T]` and a string: the analyzer's attr_docs
        # document the slot, listed by :members: as it is.
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\n\n\nclass Proxy:\n    """A proxy."""\n\n'
                                '    __slots__ = ("_get", "_spare")\n\n    _get: object\n'
                                '    """Return the object behind the proxy."""\n',
            "docs/conf.py": "",
            "docs/index.rst": "API\n===\n\n.. autoclass:: demo.Proxy\n"
                              "   :members: _get, _spare\n"})
        units = {unit["url"].removeprefix(DOCS + "index.html"): unit
                 for unit in package_contents(self.root)}
        self.assertIn("#demo.Proxy._get", units)
        self.assertNotIn("#demo.Proxy._spare", units)  # listed, undocumented: not shown

    def test_slots_joined_from_names_the_class_or_module_binds_are_its_members(self):
        # The class body evaluates `__slots__ = _fields + ("event",)` (celery's
        # events.state.Worker): a name looked up in the class body, then the module.
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\n\nSHARED = ["origin"]\n\n\n'
                                'class Worker:\n    """A worker."""\n\n'
                                '    _fields = (\n        "hostname",\n        "pid",\n    )\n'
                                '    if True:\n'
                                '        __slots__ = _fields + ("event",) + SHARED\n',
            "docs/conf.py": "",
            "docs/index.rst": "API\n===\n\n.. autoclass:: demo.Worker\n   :members:\n"
                              "   :undoc-members:\n"})
        urls = [unit["url"].removeprefix(DOCS + "index.html")
                for unit in package_contents(self.root)]
        for name in ("hostname", "pid", "event", "origin"):
            self.assertIn(f"#demo.Worker.{name}", urls)

    def test_an_attributes_entry_below_a_currentmodule_in_its_docstring_is_of_that_module(self):
        # Napoleon's `.. attribute:: type` follows the docstring's `.. currentmodule:: mutagen`:
        # the Python domain names it `mutagen.Picture.type` (mutagen's flac.Picture).
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\n',
            "demo/flac.py": '"""FLAC."""\n\n\nclass Picture:\n    """A picture.\n\n'
                            '    .. currentmodule:: demo\n\n    Attributes:\n'
                            '        kind (int): What it shows.\n    """\n',
            "docs/conf.py": "extensions = ['sphinx.ext.autodoc', 'sphinx.ext.napoleon']\n",
            "docs/index.rst": "API\n===\n\n.. autoclass:: demo.flac.Picture\n   :members:\n"})
        urls = [unit["url"].removeprefix(DOCS + "index.html") for unit in package_contents(
            self.root, (("demo/__init__.py", "demo"), ("demo/flac.py", "demo.flac")))]
        self.assertIn("#demo.flac.Picture", urls)
        self.assertIn("#demo.Picture.kind", urls)

    def test_a_member_directive_a_class_docstring_writes_is_a_member_of_the_class(self):
        # celery's crontab docstring writes `.. attribute:: minute`: rendered in the class's
        # content, the Python domain prefixes the class current there (py:class), without
        # napoleon too; a directive nested deeper is one, its options are no text.
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\n\n\nclass Cron:\n    """A schedule.\n\n'
                                '    .. attribute:: minute\n\n        The minutes.\n\n'
                                '    .. note::\n\n        .. py:method:: due(now)\n'
                                '           :async:\n\n           Whether it is due.\n\n'
                                '    Text after.\n\n    .. class:: Client\n\n'
                                '        .. method:: get(key)\n\n            Get it.\n\n'
                                '    .. attribute:: hour\n\n        The hours.\n\n'
                                '    Written so::\n\n        .. attribute:: shown\n\n'
                                '    .. code-block:: rst\n\n        .. method:: quoted\n'
                                '    """\n',
            "docs/conf.py": "extensions = ['sphinx.ext.autodoc']\n",
            "docs/index.rst": "API\n===\n\n.. autoclass:: demo.Cron\n"})
        units = {unit["url"].removeprefix(DOCS + "index.html"): unit
                 for unit in package_contents(self.root)}
        # One in a `.. class::` it writes is that class's (jinja2's MinimalClientInterface).
        for name in ("minute", "due", "Client", "Client.get", "hour"):
            self.assertIn(f"#demo.Cron.{name}", units)
        # One in a literal block or a code directive's body is text.
        self.assertNotIn("#demo.Cron.shown", units)
        self.assertNotIn("#demo.Cron.quoted", units)
        self.assertIn("Whether it is due.", units["#demo.Cron.due"]["text"])
        self.assertNotIn("Text after", units["#demo.Cron.due"]["text"])

    def test_an_autodoc_directive_in_a_pages_literal_block_is_text(self):
        # Sphinx's autosummary page shows a stub's text "of the form::" with its
        # `.. autofunction::`: docutils reads a literal block's lines as text, no directive;
        # a `.. code-block::`'s body likewise.
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\n\n\ndef start():\n    """Start."""\n\n\n'
                                'def stop():\n    """Stop."""\n',
            "docs/conf.py": "extensions = ['sphinx.ext.autodoc']\n",
            "docs/index.rst": "API\n===\n\nA stub reads::\n\n    .. autofunction:: demo.start\n\n"
                              ".. code-block:: rst\n\n   .. autofunction:: demo.start\n\n"
                              ".. autofunction:: demo.stop\n"})
        urls = [unit["url"] for unit in package_contents(self.root)]
        self.assertIn(DOCS + "index.html#demo.stop", urls)
        self.assertNotIn(DOCS + "index.html#demo.start", urls)

    def test_a_literal_block_ends_with_the_module_docstring_an_automodule_renders(self):
        # kombu's consul transport: its docstring's sections end in a `.. code-block::`, then
        # the page's automodule content (indented) has `.. autoclass:: Transport`: Sphinx
        # parses the docstring apart, so no block of it goes on into the page's lines.
        write(self.root, {
            "demo/__init__.py": '"""Demo.\n\nFeatures\n========\n\nFast.\n\n'
                                'Connection\n==========\n\n.. code-block::\n\n'
                                '    demo://HOST\n"""\n\n\nclass Transport:\n'
                                '    """Carry."""\n',
            "docs/conf.py": "extensions = ['sphinx.ext.autodoc']\n",
            "docs/index.rst": "Demo\n====\n\n.. automodule:: demo\n\n"
                              "    Transport\n    ---------\n\n"
                              "    .. autoclass:: Transport\n"})
        urls = [unit["url"] for unit in package_contents(self.root)]
        self.assertIn(DOCS + "index.html#connection", urls)
        self.assertIn(DOCS + "index.html#demo.Transport", urls)

    def test_autodoc_default_options_are_each_directives_unless_it_negates_them(self):
        # autodoc's process_documenter_options: conf.py's `'members': None` (pydicom) gives
        # each autoclass :members:, but one saying `:no-members:`.
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\n\n\nclass Thing:\n    """A thing."""\n\n'
                                '    def run(self):\n        """Run."""\n\n\n'
                                'class Other:\n    """Another."""\n\n'
                                '    def stop(self):\n        """Stop."""\n',
            "docs/conf.py": "autodoc_default_options = {'members': None, 'x-custom': None}\n",
            "docs/index.rst": "API\n===\n\n.. autoclass:: demo.Thing\n\n"
                              ".. autoclass:: demo.Other\n   :no-members:\n"})
        urls = [unit["url"].removeprefix(DOCS + "index.html")
                for unit in package_contents(self.root)]
        self.assertIn("#demo.Thing.run", urls)
        self.assertIn("#demo.Other", urls)
        self.assertNotIn("#demo.Other.stop", urls)

    def test_a_flag_autodoc_default_options_sets_false_is_on_as_autodoc_reads_it(self):
        # h5netcdf's `{"members": True, "undoc-members": False}` (checked against Sphinx 5.3.0):
        # a flag option's converter, bool_option, returns True whatever it is given, so False
        # turns :undoc-members: on; `members: False` is members_option's None, no members.
        files = {"demo/__init__.py": '"""Demo."""\n\n\nclass Thing:\n    """A thing."""\n\n'
                                     '    def run(self):\n        """Run."""\n\n'
                                     '    def close(self):\n        pass\n',
                 "docs/conf.py": "autodoc_default_options = {'members': True, "
                                 "'undoc-members': False}\n",
                 "docs/index.rst": "API\n===\n\n.. autoclass:: demo.Thing\n"}
        write(self.root, files)
        urls = [unit["url"].removeprefix(DOCS + "index.html")
                for unit in package_contents(self.root)]
        self.assertEqual([url for url in urls if url.startswith("#")],
                         ["#demo.Thing", "#demo.Thing.run", "#demo.Thing.close"])
        write(self.root, {"docs/conf.py": "autodoc_default_options = {'members': False, "
                                          "'undoc-members': False}\n"})
        urls = [unit["url"].removeprefix(DOCS + "index.html")
                for unit in package_contents(self.root)]
        self.assertEqual([url for url in urls if url.startswith("#")], ["#demo.Thing"])

    def test_what_the_docs_leave_out_is_the_package_s_own_documented_objects(self):
        # A class without a docstring whose base has one is API in a build without docs
        # folder (inspect.getdoc gives it that docstring); beside docs that describe the API,
        # the objects they leave out are those documented themselves (jinja2's compiler
        # classes stay out).
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\n',
            "demo/tables.py": 'class Table:\n    """A table."""\n\n    def load(self):\n'
                              '        """Load it."""\n\n\nclass Styles(Table):\n'
                              '    def new_style(self):\n        """Make a style."""\n',
            "docs/conf.py": "",
            "docs/index.rst": "API\n===\n\n.. autoclass:: demo.tables.Table\n"})
        titles = [unit["title"] for unit in package_contents(
            self.root, modules=(("demo/__init__.py", "demo"), ("demo/tables.py", "demo.tables")))]
        self.assertIn("demo.tables.Table", titles)
        self.assertNotIn("demo.tables.Styles", titles)
        self.assertNotIn("demo.tables.Styles.new_style", titles)

    def test_napoleons_attributes_entries_are_described_with_their_class_whatever_members(self):
        # Napoleon makes each entry an `.. attribute::` in the class's docstring: described
        # without :members: (mutagen's OggFLAC.info) and beside a :members: list.
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\n\n\nclass Point:\n    """A point.\n\n'
                                '    Attributes:\n        x (float): Across.\n    """\n\n\n'
                                'class Line:\n    """A line.\n\n    Attributes:\n'
                                '        size (int): How long.\n    """\n\n'
                                '    def draw(self):\n        """Draw."""\n',
            "docs/conf.py": "extensions = ['sphinx.ext.autodoc', 'sphinx.ext.napoleon']\n",
            "docs/index.rst": "API\n===\n\n.. autoclass:: demo.Point\n\n"
                              ".. autoclass:: demo.Line\n   :members: draw\n"})
        urls = [unit["url"].removeprefix(DOCS + "index.html")
                for unit in package_contents(self.root)]
        self.assertEqual(urls[:5], ["#demo.Point", "#demo.Point.x", "#demo.Line",
                                    "#demo.Line.size", "#demo.Line.draw"])

    def test_a_class_saying_it_is_of_another_module_has_no_attribute_docs_of_its_source(self):
        # autodoc's analyzer reads the source of the class's __module__ (mutagen's ID3 says
        # "mutagen.id3"): ID3.PEDANTIC's string in _file.py documents nothing there.
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\nfrom demo._impl import Thing\n',
            "demo/_impl.py": '"""Impl."""\n\n\nclass Thing:\n    """A thing."""\n\n'
                             '    __module__ = "demo"\n\n    FLAG = True\n    """A flag."""\n\n'
                             '    def run(self):\n        """Run."""\n',
            "docs/conf.py": "",
            "docs/index.rst": "API\n===\n\n.. autoclass:: demo.Thing\n   :members:\n"})
        urls = [unit["url"].removeprefix(DOCS + "index.html") for unit in package_contents(
            self.root, (("demo/__init__.py", "demo"), ("demo/_impl.py", "demo._impl")))]
        self.assertIn("#demo.Thing.run", urls)
        self.assertNotIn("#demo.Thing.FLAG", urls)

    def test_a_class_bound_in_a_class_under_its_name_is_described_there_with_its_members(self):
        # autodoc documents `Channel = Channel` in Connection as the class, its members in it
        # (kombu's qpid: `Transport.Connection.Channel.close`).
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\n\n\nclass Channel:\n    """A channel."""\n\n'
                                '    def close(self):\n        """Close."""\n\n\n'
                                'class Connection:\n    """A connection."""\n\n'
                                '    Channel = Channel\n',
            "docs/conf.py": "",
            "docs/index.rst": "API\n===\n\n.. autoclass:: demo.Connection\n   :members:\n"})
        urls = [unit["url"].removeprefix(DOCS + "index.html")
                for unit in package_contents(self.root)]
        self.assertIn("#demo.Connection.Channel", urls)
        self.assertIn("#demo.Connection.Channel.close", urls)

    def test_a_named_tuples_fields_are_documented_by_their_getters(self):
        # typing.NamedTuple makes each field a getter whose __doc__ is "Alias for field number
        # N": autodoc's :members: takes them (pydicom's RawDataElement.VR).
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\nfrom typing import NamedTuple\n\n\n'
                                'class Raw(NamedTuple):\n    """Raw."""\n    tag: int\n'
                                '    VR: str\n',
            "docs/conf.py": "",
            "docs/index.rst": "API\n===\n\n.. autoclass:: demo.Raw\n   :members:\n"})
        units = {unit["url"].removeprefix(DOCS + "index.html"): unit
                 for unit in package_contents(self.root)}
        self.assertIn("#demo.Raw.tag", units)
        self.assertIn("#demo.Raw.VR", units)

    def test_a_namedtuple_call_binds_a_class_documented_with_its_fields(self):
        # collections.namedtuple makes a class whose __doc__ is "Point(x, y)", its fields
        # getters documented "Alias for field number N": automodule's :members: documents the
        # class and its fields (tornado's RequestStartLine); another name binds an alias.
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\nimport collections\nfrom typing import NamedTuple'
                                '\n\nPoint = collections.namedtuple(\n    "Point", ["x", "y"]\n)'
                                '\nPair = NamedTuple("Pair", [("left", int), ("right", int)])'
                                '\nSpan = collections.namedtuple("Span", "start, stop")'
                                '\nOther = collections.namedtuple("Renamed", "a b")\n',
            "docs/conf.py": "",
            "docs/index.rst": "API\n===\n\n.. automodule:: demo\n   :members:\n"})
        units = {unit["url"].removeprefix(DOCS + "index.html"): unit
                 for unit in package_contents(self.root)}
        self.assertEqual((units["#demo.Point"]["kind"], units["#demo.Point"]["fields"]["body"]),
                         ("class", "Point(x, y)"))
        # Each field quotes where the call names it: fields on one line are one passage.
        self.assertEqual(units["#demo.Point.x"]["fields"]["names"], "demo.Point.x demo.Point.y")
        self.assertEqual(units["#demo.Point.x"]["fields"]["body"], "Alias for field number 0")
        self.assertIn("demo.Pair.right", units["#demo.Pair"]["fields"]["names"])
        self.assertIn("demo.Span.stop", units["#demo.Span"]["fields"]["names"])
        self.assertNotIn("#demo.Other", units)

    def test_a_property_made_by_a_call_inherits_its_bases_docstring(self):
        # `delete = property(lambda s: ...)` has no __doc__: getdoc reads the base's `delete`
        # (mutagen's EasyID3.delete, documented by Metadata.delete).
        write(self.root, {
            "demo/__init__.py": '"""Demo."""\n\n\nclass Base:\n    """A base."""\n\n'
                                '    def delete(self):\n        """Delete it."""\n\n\n'
                                'class Easy(Base):\n    """Easy."""\n\n'
                                '    delete = property(lambda s: s.x)\n    size = 3\n',
            "docs/conf.py": "",
            "docs/index.rst": "API\n===\n\n.. autoclass:: demo.Easy\n   :members:\n"})
        urls = [unit["url"].removeprefix(DOCS + "index.html")
                for unit in package_contents(self.root)]
        self.assertIn("#demo.Easy.delete", urls)
        self.assertNotIn("#demo.Easy.size", urls)

    def test_an_automodule_makes_its_module_current_for_what_follows(self):
        # autodoc's `.. py:module:: demo` sets py:module: a `.. data::` in the directive's
        # content, and one after it, is demo's (pymongo's `.. data:: MongoClient` in its
        # automodule is `#pymongo.MongoClient`).
        write(self.root, {
            "demo/__init__.py": '"""Demo does things."""\n',
            "docs/conf.py": "",
            "docs/index.rst": "API\n===\n\n.. automodule:: demo\n\n   .. data:: Client\n\n"
                              "      An alias.\n\n.. data:: LIMIT\n\n   A limit.\n"})
        self.assertEqual([unit["url"].removeprefix(DOCS + "index.html")
                          for unit in package_contents(self.root)],
                         ["#module-demo", "#demo.Client", "#demo.LIMIT"])

    def test_a_section_whose_title_id_is_taken_is_at_the_label_nearest_it(self):
        # Its own id an idN, last of its ids: the labels above it come first, the nearest
        # first (pytest's `.. _`recording warnings`:` and `.. _recwarn:` before "Recording
        # warnings": `<section id="recwarn"><span id="recording-warnings"><span id="id3">`).
        # With its title's id free, the section is at it, its labels spans inside.
        write(self.root, {"doc/conf.py": "", "doc/index.rst": (
            "Demo\n====\n\n.. _`recording warnings`:\n\n.. _recwarn:\n\nRecording warnings\n"
            "------------------\n\nRecorded.\n\n.. _first:\n\n.. _second:\n\nOther\n-----\n\n"
            "Others.\n")})
        self.assertEqual([unit["url"].removeprefix(DOCS + "index.html")
                          for unit in contents(self.root, "doc")],
                         ["#demo", "#recwarn", "#other"])

    def test_an_anonymous_targets_short_form_takes_an_id_as_the_long_one_does(self):
        # docutils' `__ URL` is `.. __: URL`: an anonymous target, given the next idN of the
        # counter a repeated title's id comes from (Django's design philosophies: the second
        # "Loose coupling" is `#id8`, one after), each of several lines of them too; its
        # reference (`text`__) takes none.
        for target, repeated in (("__ https://elsewhere.example/", "#id2"),
                                 ("__ https://one.example/\n__ https://two.example/\n"
                                  ".. _named: https://named.example/", "#id3"),
                                 (".. __: https://elsewhere.example/", "#id2"),
                                 ("Nothing anonymous.", "#id1")):
            root = temporary_directory(self)
            write(root, {"doc/conf.py": "", "doc/index.rst": (
                "Demo\n====\n\nSee `this`__.\n\n" + target + "\n\nUsage\n-----\n\nA.\n\n"
                "More\n----\n\nUsage\n~~~~~\n\nB.\n")})
            self.assertEqual([unit["url"].removeprefix(DOCS + "index.html")
                              for unit in contents(root, "doc")],
                             ["#demo", "#usage", "#more", repeated], target)

    def test_a_title_with_an_inline_literal_like_a_link_target_is_its_sections(self):
        # ``<label>`` in a title is a literal, no `text <target>`: the section is matched with
        # its title's rendering, at its title's id (its label a span inside), and shown so.
        write(self.root, {"doc/conf.py": "", "doc/index.rst": (
            "Demo\n====\n\n.. _configuring-label:\n\n"
            "Configuring ``id`` and ``<label>`` tags\n---------------------------------------\n"
            "\nText.\n")})
        self.assertEqual([(unit["url"].removeprefix(DOCS + "index.html"), unit["title"])
                          for unit in contents(self.root, "doc")][-1],
                         ("#configuring-id-and-label-tags", "Configuring id and <label> tags"))

    def test_a_python_objects_id_as_sphinx_reads_its_signature_and_module(self):
        # An empty `:module:` is no module: the name as written is the full name (Django's
        # `.. data:: django.db.models.signals.post_init` with `:module:`, under `.. module::
        # django.db.models.signals`); a signature py_sig_re does not read (`lookup_name =
        # 'day'`, a colon after the parameters) is shown as written, with no id of its own:
        # linked at its section, as the rendered site's reader links an object without one.
        write(self.root, {"doc/conf.py": "", "doc/index.rst": (
            "Demo\n====\n\n.. module:: demo.signals\n\n"
            ".. data:: demo.signals.post_init\n   :module:\n\n   Sent after.\n\n"
            ".. data:: pre_init\n\n   Sent before.\n\n"
            ".. class:: ExtractDay(expression)\n\n   .. attribute:: lookup_name = 'day'\n\n"
            "      The day.\n\n   .. method:: has_perm(perm):\n\n      Tell.\n")})
        self.assertEqual([unit["url"].removeprefix(DOCS + "index.html")
                          for unit in contents(self.root, "doc")],
                         ["#module-demo.signals", "#demo.signals.post_init",
                          "#demo.signals.pre_init", "#demo.signals.ExtractDay",
                          "#module-demo.signals", "#module-demo.signals"])

    def test_a_signature_goes_on_after_a_backslash_at_its_lines_end(self):
        # Sphinx's get_signatures drops each backslash-newline: h5py's `.. class:: File(name,
        # mode='r', \` over five lines is one signature, at `#h5py.File`; a line without one
        # is a signature of its own.
        write(self.root, {"doc/conf.py": "", "doc/index.rst": (
            "Demo\n====\n\n.. module:: demo\n\n.. class:: File(name, mode='r', \\\n"
            "    driver=None, \\\n    **kwds)\n\n   A file.\n\n"
            ".. function:: one(a)\n              two(b)\n\n   Either.\n")})
        self.assertEqual([unit["url"].removeprefix(DOCS + "index.html")
                          for unit in contents(self.root, "doc")],
                         ["#module-demo", "#demo.File", "#demo.one"])

    def test_a_directive_right_below_a_title_is_read(self):
        # docutils needs no blank line after a title's underline: Django's "Displaying
        # messages" then `.. function:: get_messages(request)` on the next line; a toctree so
        # is no text of its section.
        write(self.root, {"doc/conf.py": "", "doc/other.rst": "Other\n=====\n\nText.\n",
                          "doc/index.rst": (
                              "Demo\n====\n\nDisplaying messages\n-------------------\n"
                              ".. function:: get_messages(request)\n\nReturn them.\n\n"
                              "Releases\n--------\n.. toctree::\n\n   other\n")})
        units = {unit["url"].removeprefix(DOCS): unit["fields"]["body"]
                 for unit in contents(self.root, "doc")}
        self.assertEqual(list(units), ["index.html#demo", "index.html#displaying-messages",
                                       "index.html#get_messages", "index.html#releases",
                                       "other.html#other"])
        self.assertEqual(units["index.html#releases"], "Releases\n--------")

    def test_a_directive_first_in_a_list_item_is_read(self):
        # `* .. attribute:: CASCADE` (Django's on_delete values): the directive is the list
        # item's first element, an object of its own, its text quoted as written.
        units = index_texts(self.root, (
            "Demo\n====\n\n.. currentmodule:: demo\n\nThe values are:\n\n"
            "* .. attribute:: CASCADE\n\n    Cascade deletes.\n\n"
            "* .. attribute:: PROTECT\n\n    Prevent deletion.\n\n"
            "* Not a directive.\n"))
        self.assertEqual(units["#demo.CASCADE"],
                         "* .. attribute:: CASCADE\n\n    Cascade deletes.")
        self.assertEqual(list(units), ["#demo", "#demo.CASCADE", "#demo.PROTECT"])

    def test_a_directive_a_project_derives_from_code_block_has_code_for_its_body(self):
        # Django's `console` (djangodocs.py: `class ConsoleDirective(CodeBlock)`, added by
        # `app.add_directive("console", ConsoleDirective)`) shows its body as code.
        write(self.root, {"doc/conf.py": 'extensions = ["tabs"]\n', "doc/tabs.py": (
            "from sphinx.directives.code import CodeBlock\n\n\nclass Console(CodeBlock):\n"
            "    pass\n\n\nclass Shell(Console):\n    pass\n\n\ndef setup(app):\n"
            "    app.add_directive('console', Console)\n    app.add_directive('shell', Shell)\n"),
            "doc/index.rst": ("Demo\n====\n\nRun:\n\n.. console::\n\n    $ demo run\n\n"
                              ".. shell::\n\n    $ demo stop\n\nDone.\n")})
        [unit] = contents(self.root, "doc")
        self.assertEqual((unit["fields"]["code"], "demo" in unit["fields"]["body"]),
                         ("    $ demo run\n    $ demo stop", False))

    def test_a_directive_argument_the_page_does_not_show_is_no_prose(self):
        # A code block's language and an included file's path are no words of the page; an
        # admonition's title, a version and a module's name (Sphinx's search has it) are.
        write(self.root, {"doc/conf.py": "", "doc/example.py": "print(1)\n", "doc/index.rst": (
            "Demo\n====\n\n.. module:: demo.tools\n\nRun:\n\n.. code-block:: html+jinja\n\n"
            "    {{ run }}\n\n.. literalinclude:: example.py\n\n"
            ".. admonition:: Careful here\n\n    Slowly.\n\n"
            ".. versionadded:: 2.0\n")})
        [unit] = contents(self.root, "doc")
        body = unit["fields"]["body"]
        self.assertEqual(("jinja" in body, "example" in body, "demo.tools" in body,
                          "Careful here" in body, "2.0" in body, unit["fields"]["code"]),
                         (False, False, True, True, True, "    {{ run }}\nprint(1)"))

    def test_a_directive_in_a_literal_block_is_code(self):
        # An example of markup (`::` then `.. function:: make_toast()`) is code, as Sphinx
        # renders it: no object, no section, its lines the text around it.
        write(self.root, {"doc/conf.py": "", "doc/index.rst": (
            "Demo\n====\n\nWrite::\n\n    .. function:: make_toast()\n\n"
            "        Make toast.\n\n    Heading\n    -------\n\nThen build.\n")})
        units = contents(self.root, "doc")
        self.assertEqual([unit["url"].removeprefix(DOCS + "index.html") for unit in units],
                         ["#demo"])
        self.assertIn("make_toast", units[0]["fields"]["code"])

    def test_a_title_is_shown_as_smartquotes_renders_it(self):
        # Sphinx's SmartQuotes (on unless conf.py says `smartquotes = False`): quotes curled,
        # "--" an en dash, "..." an ellipsis, in a title's text, not its literals
        # (sqlalchemy's `<h2>The “CamelCase” datatypes</h2>`); its id is the source text's.
        page = ("Demo\n====\n\nThe \"CamelCase\" types -- ``\"as is\"``...\n"
                "---------------------------------------------\n\nText.\n")
        for conf, shown in (("", "The \u201cCamelCase\u201d types \u2013 \"as is\"\u2026"),
                            ("smartquotes = False\n", 'The "CamelCase" types -- "as is"...')):
            root = temporary_directory(self)
            write(root, {"doc/conf.py": conf, "doc/index.rst": page})
            unit = contents(root, "doc")[-1]
            self.assertEqual((unit["title"], unit["url"]),
                             (shown, DOCS + "index.html#the-camelcase-types-as-is"), conf)

    def test_a_functions_reference_in_a_title_shows_parentheses_as_conf_py_says(self):
        # XRefRole.update_title_and_target: `()` dropped from the title as written, then added
        # back where add_function_parentheses is on (its default).
        page = ("Demo\n====\n\nUsing :func:`quad` and :meth:`run()`\n" + "-" * 36
                + "\n\nText.\n")
        for conf, shown in (("", "Using quad() and run()"),
                            ("add_function_parentheses = False\n", "Using quad and run")):
            root = temporary_directory(self)
            write(root, {"doc/conf.py": conf, "doc/index.rst": page})
            self.assertEqual(contents(root, "doc")[-1]["title"], shown, conf)

    def test_an_extlinks_role_in_a_title_is_its_caption(self):
        # sphinx.ext.extlinks renders `:cve:`2022-28346`` as its caption "CVE-%s" with the
        # target in, a caption without `%s` as a prefix (Sphinx 4 and 5), none as the URL, an
        # explicit title as itself: the section's title and its id are of that text (Django's
        # security archive, `<section id="april-11-2022-cve-2022-28346">`).
        conf = ('extensions = ["sphinx.ext.extlinks"]\nextlinks = {\n'
                '    "cve": ("https://cve.example/%s", "CVE-%s"),\n'
                '    "ticket": ("https://tickets.example/%s", "#"),\n'
                '    "pr": ("https://pr.example/%s", None)}\n')
        page = ("Demo\n====\n\nApril 11, 2022 - :cve:`2022-28346`\n"
                "-----------------------------------\n\nFixed, see :ticket:`31056`.\n\n"
                "Fix :ticket:`31056` and :pr:`7`\n--------------------------------\n\nText.\n\n"
                "Fixed in :cve:`the release <2022-1>`\n------------------------------------\n\n"
                "Text.\n")
        for text, found in (
                (conf, [("#demo", "Demo"),
                        ("#april-11-2022-cve-2022-28346", "April 11, 2022 - CVE-2022-28346"),
                        ("#fix-31056-and-https-pr-example-7",
                         "Fix #31056 and https://pr.example/7"),
                        ("#fixed-in-the-release", "Fixed in the release")]),
                ("", [("#demo", "Demo"), ("#april-11-2022-2022-28346", "April 11, 2022 - "
                                          "2022-28346"),
                      ("#fix-31056-and-7", "Fix 31056 and 7"),
                      ("#fixed-in-the-release", "Fixed in the release")])):
            root = temporary_directory(self)
            write(root, {"doc/conf.py": text, "doc/index.rst": page})
            units = contents(root, "doc")
            self.assertEqual([(unit["url"].removeprefix(DOCS + "index.html"), unit["title"])
                              for unit in units], found, text)
            if text:  # in its text too
                self.assertIn("Fixed, see #31056.", units[1]["fields"]["body"])

    def test_a_titles_literals_and_python_references_as_sphinx_shows_them(self):
        # An inline literal is its text as written (``__len__()``, no `__` read as a link);
        # a Python reference as PyXRefRole renders it: `()` after a function or method, a
        # leading `.` dropped, zzzeeksphinx's module prefix dropped (sqlalchemy's "Rewritten
        # relationship() mechanics"); the id is the title's text as parsed, the prefix in it.
        write(self.root, {
            "doc/conf.py": "extensions = ['zzzeeksphinx']\n"
                           "zzzeeksphinx_module_prefixes = {'_orm': 'demo.orm'}\n",
            "doc/index.rst": "Demo\n====\n\nQuery has no ``__len__()``, why not?\n"
                             "------------------------------------\n\nText.\n\n"
                             "Rewritten :func:`_orm.relationship` and :meth:`.Session.get`\n"
                             + "-" * 61 + "\n\n"
                             "Text.\n"})
        self.assertEqual([(unit["url"].removeprefix(DOCS + "index.html"), unit["title"])
                          for unit in contents(self.root, "doc")],
                         [("#demo", "Demo"),
                          ("#query-has-no-len-why-not", "Query has no __len__(), why not?"),
                          ("#rewritten-orm-relationship-and-session-get",
                           "Rewritten relationship() and Session.get()")])

    def test_a_cross_reference_is_looked_up_under_its_class_too(self):
        # Sphinx's find_obj: a name, then under the current module, then under the current
        # class (py:class), which a class's body sets, and so autodoc's rendering of a class
        # and of its members: jinja2's `:meth:`load_bytecode`` in BytecodeCache's docstring.
        write(self.root, {
            "demo/__init__.py": 'class Cache:\n    """Call :meth:`load` then :meth:`dump`."""\n\n'
                                '    def load(self):\n        """Load; see :meth:`dump`."""\n\n'
                                '    def dump(self):\n        """Dump."""\n',
            "docs/conf.py": "",
            "docs/api.rst": "API\n===\n\n.. autoclass:: demo.Cache\n   :members:\n",
            "docs/guide.rst": "Guide\n=====\n\n.. currentmodule:: demo\n\n"
                              ".. class:: Engine\n\n   Call :meth:`start`.\n\n"
                              "   .. method:: start()\n\n      Start.\n\n"
                              "Outside a class :meth:`start` names nothing.\n"})
        units = {unit["title"]: unit["in_links"] for unit in package_contents(self.root)}
        self.assertEqual((units["demo.Cache.load"], units["demo.Cache.dump"]), (1, 2))
        self.assertEqual(units["demo.Engine.start"], 1)

    def test_an_object_without_a_body_is_described_by_the_text_after_it(self):
        # Django's sources describe an object unindented after its directive: Sphinx renders
        # `<dd></dd>` and the text in the section; the rendered site's reader gives that text,
        # up to the next section or object, to the object too (html_page.py), the section
        # keeping it. An object with a body of its own is its body only.
        units = index_texts(self.root, (
            "Fields\n======\n\n``TimeField``\n-------------\n\n"
            ".. class:: TimeField(**options)\n\nA time of day::\n\n    TimeField()\n\n"
            "It is clean.\n\n.. method:: clean()\n\n   Cleans.\n\nAfter clean.\n\n"
            "``DateField``\n-------------\n\n.. class:: DateField\n\n"
            "   .. attribute:: auto_now\n\n   Now, in the class.\n\nA date.\n"))
        described = ".. class:: TimeField(**options)\n\nA time of day::\n\n    TimeField()" \
                    "\n\nIt is clean."
        self.assertEqual(units, {
            "#fields": "Fields\n======",
            "#timefield": "``TimeField``\n-------------\n\n" + described,
            "#TimeField": described,
            "#clean": ".. method:: clean()\n\n   Cleans.",
            "#datefield": "``DateField``\n-------------",
            "#DateField": ".. class:: DateField\n\n   .. attribute:: auto_now\n\n"
                          "   Now, in the class.",
            "#DateField.auto_now": "   .. attribute:: auto_now\n\n   Now, in the class."})

    def test_show_inheritance_links_each_base_a_class_names(self):
        # autodoc's "Bases: PytestWarning" of `:show-inheritance:` (pytest's warnings), a link
        # to each base the class names (its own bases', not); none without the option.
        write(self.root, {
            "demo/__init__.py": 'class Base:\n    """The base."""\n\n\n'
                                'class Middle(Base):\n    """In between."""\n\n\n'
                                'class Child(Middle):\n    """The child."""\n\n\n'
                                'class Other(Base):\n    """Another."""\n',
            "docs/conf.py": "",
            "docs/api.rst": "API\n===\n\n.. autoclass:: demo.Base\n\n"
                            ".. autoclass:: demo.Middle\n\n"
                            ".. autoclass:: demo.Child\n   :show-inheritance:\n\n"
                            ".. autoclass:: demo.Other\n"})
        links = {unit["title"]: unit["in_links"] for unit in package_contents(self.root)}
        self.assertEqual((links["demo.Base"], links["demo.Middle"]), (0, 1))

    def test_an_autodoc_directive_describes_its_object_as_its_kind(self):
        # autodoc's documenter is the directive's: `autoclass` of an exception is a py:class
        # (pytest's PytestWarning), `autofunction` of an assignment a py:function (sqlalchemy's
        # `delete = public_factory(...)`); a member :members: takes is what it is, a
        # `*property`-decorated one an attribute (sqlalchemy's memoized_property).
        write(self.root, {
            "demo/__init__.py": 'class DemoWarning(UserWarning):\n    """Warned."""\n\n\n'
                                'class Failed(Exception):\n    """Failed."""\n\n\n'
                                'class Table:\n    """A table."""\n\n'
                                '    @util.memoized_property\n    def columns(self):\n'
                                '        """Its columns."""\n\n'
                                '    @HasMemoized.memoized_attribute\n    def c(self):\n'
                                '        """Its columns too."""\n\n'
                                '    def drop(self):\n        """Drop it."""\n\n\n'
                                'def _create(table):\n    """Delete rows."""\n\n\n'
                                'delete = public_factory(_create, ".delete")\n',
            "docs/conf.py": "",
            "docs/api.rst": "API\n===\n\n.. autoclass:: demo.DemoWarning\n\n"
                            ".. autoexception:: demo.Failed\n\n"
                            ".. autoclass:: demo.Table\n   :members:\n\n"
                            ".. autofunction:: demo.delete\n"})
        kinds = {unit["title"]: unit["kind"] for unit in package_contents(self.root)}
        self.assertEqual({name: kinds[name] for name in (
            "demo.DemoWarning", "demo.Failed", "demo.Table", "demo.Table.columns",
            "demo.Table.c", "demo.Table.drop", "demo.delete")},
            {"demo.DemoWarning": "class", "demo.Failed": "exception", "demo.Table": "class",
             "demo.Table.columns": "attribute", "demo.Table.c": "attribute",
             "demo.Table.drop": "method", "demo.delete": "function"})

    def test_of_several_projects_the_one_with_the_most_pages_is_the_documentation(self):
        write(self.root, {"doc/neps/conf.py": "", "doc/neps/index.rst": "NEPs\n====\n",
                          "doc/source/conf.py": "", "doc/source/index.rst": "Index\n=====\n",
                          "doc/source/user/guide.rst": "Guide\n=====\n",
                          "doc/source/reference/api.rst": "API\n===\n"})
        self.assertEqual(sphinx_project(self.root, "doc").root, "doc/source")


class ConfTest(unittest.TestCase):

    def test_source_suffix_in_each_form_and_the_root_document(self):
        self.assertEqual(read_conf("source_suffix = ['.rst', '.txt']\nmaster_doc = 'index'\n")
                         .source_suffix, {".rst": RST, ".txt": RST})
        conf = read_conf("source_suffix = {'.rst': 'restructuredtext', '.md': 'markdown'}\n"
                         "root_doc = 'start'\nhtml_baseurl = 'https://x.example/'\n")
        self.assertEqual((conf.source_suffix, conf.root_doc, conf.html_baseurl),
                         ({".rst": RST, ".md": MARKDOWN}, "start", "https://x.example/"))
        conf = read_conf("extensions = []\nextensions.append('myst_parser')\nfrom x import y\n"
                         "html_baseurl = y\n")
        self.assertEqual((conf.extensions, conf.source_suffix, conf.html_baseurl),
                         (("myst_parser",), {".rst": RST, ".md": MARKDOWN}, None))
        self.assertEqual(read_conf("this is not Python").source_suffix, {".rst": RST})

    def test_a_known_helper_s_settings_taken_whole_give_its_extensions(self):
        # kombu 5.2's conf.py is `globals().update(conf.build_config(..., extra_extensions=
        # ['sphinx.ext.napoleon']))` (sphinx_celery): its extensions, napoleon among them,
        # and the `setting` and `signal` cross-reference types two of them add.
        conf = read_conf("from sphinx_celery import conf\n\nglobals().update("
                         "conf.build_config('kombu', __file__, project='Kombu',\n"
                         "    extra_extensions=['sphinx.ext.napoleon']))\n")
        self.assertEqual(conf.extensions[0], "sphinx.ext.autodoc")
        self.assertEqual(conf.extensions[-1], "sphinx.ext.napoleon")
        self.assertEqual(conf.object_types, {"signal": ("crossref", "signal"),
                                             "setting": ("crossref", "setting")})
        # An unknown helper's settings stay unknown, as any computed value is.
        self.assertEqual(read_conf("from mine import build\nglobals().update(build("
                                   "extra_extensions=['x']))\n").extensions, ())

    def test_the_folders_conf_py_puts_on_sys_path_relative_to_its_own(self):
        # Sphinx runs conf.py in its folder: abspath("../..") is two folders up from it.
        self.assertEqual(read_conf(
            "import os, sys\nsys.path.insert(0, os.path.abspath('../../lib'))\n"
            "sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "
            "'..', 'src')))\nsys.path.append(os.path.join(os.path.dirname(__file__), '_ext'))\n"
            "sys.path.append(os.environ['X'])\nsys.path.insert(0, os.path.abspath('.'))\n")
            .sys_path, ("../../lib", "../src", "_ext", "."))


    def test_sphinx_gallery_s_folders_where_it_is_enabled(self):
        # Its defaults; a list of each, paired; a dict entry assigned after it; nothing
        # where the extension is not enabled.
        enabled = "extensions = ['sphinx_gallery.gen_gallery']\n"
        self.assertEqual(read_conf(enabled).galleries, (("../examples", "auto_examples"),))
        conf = read_conf(enabled + "sphinx_gallery_conf = {'examples_dirs': ['../ex', "
                         "'../tutorials'], 'gallery_dirs': ['gallery', 'tutorials'],\n"
                         "    'reset_modules': (reset,)}\n"
                         "sphinx_gallery_conf['ignore_pattern'] = r'_skip\\.py'\n")
        self.assertEqual((conf.galleries, conf.gallery_ignore),
                         ((("../ex", "gallery"), ("../tutorials", "tutorials")), r"_skip\.py"))
        self.assertEqual(read_conf("sphinx_gallery_conf = {'gallery_dirs': 'g'}\n").galleries,
                         ())
        # Paths built with os.path.join and os.sep, as on a POSIX host (sunpy 5.0.1's
        # `os.path.join('generated', 'gallery')`, astropy's f"..{os.sep}examples").
        conf = read_conf(enabled + "sphinx_gallery_conf = {\n"
                         "    'examples_dirs': [os.path.join('..', 'examples'), "
                         "f'..{os.sep}tutorials'],\n"
                         "    'gallery_dirs': [os.path.join('generated', 'gallery'), 'tut'],\n"
                         "    'ignore_pattern': os.path.join(here, 'x')}\n")
        self.assertEqual((conf.galleries, conf.gallery_ignore), (
            (("../examples", "generated/gallery"), ("../tutorials", "tut")), r"__init__\.py"))
        # Enabled in a `try:` that imports it, `extensions` imported (astropy 5.3.2's conf.py);
        # not by a try that imports nothing, nor where nothing adds it.
        guarded = ("from sphinx_astropy.conf.v1 import extensions\n"
                   "try:\n    import sphinx_gallery\n"
                   "    extensions += ['sphinx_gallery.gen_gallery']\n"
                   "    sphinx_gallery_conf = {'examples_dirs': f'..{os.sep}examples',\n"
                   "                           'gallery_dirs': 'generated/examples'}\n"
                   "except ImportError:\n    sphinx_gallery = None\n")
        self.assertEqual(read_conf(guarded).galleries, (("../examples", "generated/examples"),))
        self.assertEqual(read_conf(guarded.replace("import sphinx_gallery", "pass")).galleries,
                         ())
        self.assertEqual(read_conf(guarded.replace("extensions +=", "other =")).galleries, ())
        # Names bound to literals (MNE's `'examples_dirs': examples_dirs`).
        conf = read_conf(enabled + "examples_dirs = ['../tutorials', '../examples']\n"
                         "gallery_dirs = ['auto_tutorials', 'auto_examples']\n"
                         "sphinx_gallery_conf = {'examples_dirs': examples_dirs,\n"
                         "                       'gallery_dirs': gallery_dirs}\n")
        self.assertEqual(conf.galleries, (("../tutorials", "auto_tutorials"),
                                          ("../examples", "auto_examples")))

        self.assertEqual([read_conf(f"extensions = ['{name}']\n").notebook_ids
                          for name in ("nbsphinx", "myst_nb", "myst_parser")],
                         ["nbsphinx", "sphinx", ""])


class LinksTest(unittest.TestCase):

    def test_the_site_of_this_release_or_none_never_invented(self):
        self.assertEqual(published_site(None, ["https://flask.palletsprojects.com/"], "2.2.2",
                                        "https://mine.example/").url, "https://mine.example/")
        site = published_site(None, ["https://flask.palletsprojects.com/"], "2.2.2", None)
        self.assertEqual((site.url, site.dirhtml, site.note),
                         ("https://flask.palletsprojects.com/en/2.2.x/", True, None))
        self.assertEqual(published_site(None, ["https://docs.sqlalchemy.org"], "1.4.46", None)
                         .url, "https://docs.sqlalchemy.org/en/14/")
        site = published_site(None, ["https://demo.readthedocs.io/en/latest/"], "1.2.3", None)
        self.assertEqual(site.url, "https://demo.readthedocs.io/en/1.2.3/")
        self.assertIn("Read the Docs", site.note)
        for root in ("https://demo.readthedocs.io", "https://demo.readthedocs.io/",
                     "https://demo.readthedocs.io/en/"):  # the default version, not a page
            self.assertEqual(published_site(None, [root], "1.2.3", None).url,
                             "https://demo.readthedocs.io/en/1.2.3/", root)
        self.assertIsNone(published_site(None, ["https://demo.readthedocs.io/api/"], "1.2.3",
                                         None).url)  # a page of some version: not known
        # A URL naming this very release (coverage 7.3.0's Documentation URL) is its site; one
        # naming another release is not.
        self.assertEqual(published_site(None, ["https://demo.readthedocs.io/en/1.2.3/"],
                                        "1.2.3", None).url, "https://demo.readthedocs.io/en/1.2.3/")
        self.assertIsNone(published_site(None, ["https://demo.readthedocs.io/en/1.2.2/"],
                                         "1.2.3", None).url)
        site = published_site(None, ["https://demo.example/docs/", None], "1.0", None)
        self.assertEqual(site.url, None)
        self.assertIn("no versioned link for https://demo.example/docs/", site.note)
        # The note names the flag as both commands take it: the release's label, its URL.
        self.assertIn("give --base-url demo/1.0=URL for the site", published_site(
            None, ["https://demo.example/docs/"], "1.0", None, "demo/1.0").note)
        conf = read_conf("html_baseurl = 'https://demo.example/en/1.0/'\n")
        from retrieval.ingest.formats.sphinx_docs import SphinxProject
        self.assertEqual(published_site(SphinxProject("docs", conf), [], "1.0", None).url,
                         "https://demo.example/en/1.0/")

    def test_page_paths_as_html_and_dirhtml_publish_them(self):
        conf = read_conf("source_suffix = '.txt'\n")
        self.assertEqual(page_path(conf, "ref/settings.txt", False), "ref/settings.html")
        self.assertEqual(page_path(conf, "ref/settings.txt", True), "ref/settings/")
        self.assertEqual(page_path(conf, "ref/index.txt", True), "ref/")
        self.assertEqual(page_path(conf, "index.txt", True), "")


class IdsTest(unittest.TestCase):

    SAMPLES = ("Quickstart", "  Return JSON from Views ", "flask.json.jsonify()", "Ünïcödé Straße",
               "œuvre ø đ ħ", "3 things", "--option", "a_b.c", "", "C++ and C#", "Ελληνικά",
               "x  --  y", "2.2.x", "Über-Änderung: ¿qué?")

    def test_make_id_as_docutils_and_sphinx(self):
        self.assertEqual(make_id("Return JSON from Views"), "return-json-from-views")
        self.assertEqual(make_id("3. Straße"), "strasze")
        self.assertEqual(sphinx_id("std:setting-DEBUG"), "std-setting-DEBUG")
        self.assertEqual(sphinx_id("cmdoption-pytest--k"), "cmdoption-pytest-k")

    def test_make_id_is_docutils_own(self):
        require_module(self, "docutils", "test")
        from docutils.nodes import make_id as docutils_make_id

        for sample in self.SAMPLES + tuple(chr(code) * 2 + "x" for code in range(0x00c0, 0x0250)):
            self.assertEqual(make_id(sample), docutils_make_id(sample), sample)


    def test_smartquotes_are_docutils_own(self):
        require_module(self, "docutils", "test")
        from docutils.utils.smartquotes import educate_tokens

        from retrieval.ingest.readers.smartquotes import educate

        for sample in ("'hi' \"x\"", "a 'b' c", "(\"x\")", "'quoted'", '"a"b', "it's '90s",
                       "--x", "\"'a'\" b", "[']", "x - 'y' ?", "Isn't it -- \"so\"...?",
                       "type_coerce() - a Python-only \"cast\"", "x---y . . . z"):
            theirs = "".join(educate_tokens([("text", sample)], "qDe", "en"))
            self.assertEqual(educate(sample), theirs, sample)

if __name__ == "__main__":
    unittest.main()
