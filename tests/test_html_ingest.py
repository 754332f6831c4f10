"""Built from rendered HTML: a Sphinx page whose source is autodoc stubs is read from its HTML.

The site is written here in the shapes Sphinx publishes for an autodoc-generated API page (the
`_sources` copy holds only `.. autofunction::` lines, the words are in the rendered page), beside
a hand-written page whose reST source still holds the text. Expectations are exact.
"""

import contextlib
import copy
import hashlib
import io
import os
import sqlite3
import unittest

from retrieval.cli.main import main as retrieval_main
from retrieval.core.snapshot import SnapshotError, load_snapshot, parse_policy
from retrieval.core.snapshot_directory import verify_snapshot_directory
from retrieval.ingest.builder import DEFAULT_POLICY, Progress, SourceTree, build_snapshot
from retrieval.ingest.verify import dead_urls
from retrieval.wsgi import create_app
from tests.support import class_temporary_directory, post_json, quiet_settings, tampered_copy
from tests.test_sphinx_build import obj, ranking_facts, section

TIER = "inprocess"

BASE = "https://docs.example.org/pkg/1.2/"
NOISE = ("SIDEBAR-NOISE", "FOOTER-NOISE", "SCRIPT-NOISE", "SEARCH-NOISE", "PAGER-NOISE",
         "TOC-NOISE", "¶")

API_SOURCE = """\
API
===

.. module:: pkg

.. autofunction:: greet

.. autoclass:: Greeter
   :members:
"""

GUIDE_SOURCE = """\
Guide
=====

Greeting people is the whole point of pkg.
"""

GREET = obj("function", [("pkg.greet", "pkg.", "greet", "name, loud=False")],
            '<p>Say hello to <em>name</em>,\nloudly if asked.</p>\n'
            '<div class="highlight"><pre><span class="n">greet</span>(<span>"Ada"</span>)\n'
            'Hello, Ada\n</pre></div>\n'
            '<dl class="field-list simple"><dt>Parameters</dt><dd><p><strong>loud</strong> '
            '– shout the greeting.</p></dd></dl>\n')
GREETER = obj("class", [("pkg.Greeter", "pkg.", "Greeter", "style")],
              "<p>Greets many people in one style.</p>\n"
              + obj("method", [("pkg.Greeter.wave", "", "wave", "times=1")],
                    "<p>Wave at everyone present.</p>"))
API_HTML = (
    '<!DOCTYPE html>\n<html><head><title>API</title>\n'
    '<script>var SCRIPT = "SCRIPT-NOISE";</script></head>\n<body>\n'
    '<div class="sphinxsidebar"><p>SIDEBAR-NOISE</p>'
    '<form class="search"><input name="q"> SEARCH-NOISE</form></div>\n'
    '<div class="body" role="main">\n'
    # The book theme's table of contents of the page sits inside the main content (dask's),
    # above the page's first section: "Contents" over a <nav>.
    + '<div class="d-none d-md-block col-md-2 bd-toc show"><div class="tocsection onthispage">'
    '<i class="fas fa-list"></i> TOC-NOISE</div><nav id="bd-toc-nav"><ul><li>'
    '<a href="#module-pkg">API</a></li></ul></nav></div>\n'
    + section("module-pkg", 1, "API", "<p>The public API of pkg.</p>\n" + GREET + GREETER)
    # The pydata theme's pager sits inside the main content.
    + "<div class='prev-next-area'><a href='guide.html'>PAGER-NOISE</a></div>\n"
    + '</div>\n<div class="footer">FOOTER-NOISE</div>\n</body></html>\n')
GUIDE_HTML = ('<!DOCTYPE html>\n<html><body><div class="body" role="main">\n'
              + section("guide", 1, "Guide", "<p>Greeting people is the whole point of pkg.</p>")
              + "</div></body></html>\n")

# Django's and pytest's sources describe many objects after the directive, unindented, so the
# rendered object is empty (`<dd></dd>`) and its description follows it in the section.
QUERIES_HTML = (
    '<!DOCTYPE html>\n<html><body><div class="body" role="main">\n'
    + section("queryset-api", 1, "QuerySet API", (
        section("filter", 2, "filter()", (
            obj("method", [("QuerySet.filter", "QuerySet.", "filter", "**kwargs")], "")
            + "<p>Returns a new QuerySet of the rows that match.</p>\n"
            + '<div class="versionadded"><p>New in version 2.0.</p></div>\n'))
        + section("counting", 2, "Counting", (
            obj("method", [("QuerySet.count", "QuerySet.", "count", "")],
                "<p>Counts the rows.</p>")
            + "<p>Counting reads no row.</p>\n"))
        + section("nothing", 2, "Nothing", (
            obj("method", [("QuerySet.none", "QuerySet.", "none", "")], "")
            + obj("method", [("QuerySet.all", "QuerySet.", "all", "")], "<p>Every row.</p>")
            + "<p>Both return a QuerySet.</p>\n"))))
    + "</div></body></html>\n")
# A source the reST reader cannot read (MyST Markdown): the page is read from its HTML.
QUERIES_SOURCE = "# QuerySet API\n"


def built_passages(out: str) -> dict:
    """Return url -> (source_id, source_sha256, start, end, text, title, kind) of a build."""
    conn = sqlite3.connect(os.path.join(out, "passages.sqlite"))
    try:
        return {row[0]: row[1:] for row in conn.execute(
            "SELECT p.url, p.source_id, p.source_sha256, p.start_line, p.end_line, p.text, "
            "p.title, i.kind FROM passages p JOIN passage_facts i ON i.id = p.id")}
    finally:
        conn.close()


def line_of(text: str, needle: str) -> int:
    """Return the 1-based line of text where needle first occurs."""
    return text[:text.index(needle)].count("\n") + 1


def write_tree(root: str, files: dict):
    """Write {path below root: text} under root."""
    for relative, text in files.items():
        path = os.path.join(root, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)


class BuiltSiteTest(unittest.TestCase):
    """A tree the test writes (FILES), built once for the class at VERSION."""

    FILES: dict = {}
    VERSION = "1.2"

    @classmethod
    def setUpClass(cls):
        base = class_temporary_directory(cls)
        cls.site = os.path.join(base, "html")
        write_tree(cls.site, cls.FILES)
        cls.out = os.path.join(base, "snapshot")
        build_snapshot([SourceTree(cls.VERSION, cls.site, BASE)], cls.out, DEFAULT_POLICY,
                       Progress(io.StringIO()))

    def passages(self) -> dict:
        return built_passages(self.out)

    def assert_texts(self, expected: dict):
        """Assert the text of each unit, by its URL below BASE."""
        passages = self.passages()
        self.assertEqual({url: passages[BASE + url][4] for url in expected}, expected)


class AutodocHtmlTest(BuiltSiteTest):
    """The site above, built once for the class."""

    # index.html and _sources/ beside it: what makes a tree a published Sphinx site.
    FILES = {"index.html": GUIDE_HTML, "api.html": API_HTML, "guide.html": GUIDE_HTML,
             "_sources/api.rst.txt": API_SOURCE, "_sources/guide.rst.txt": GUIDE_SOURCE}

    def test_an_autodoc_object_is_its_rendered_text_with_html_provenance(self):
        passage = self.passages()[BASE + "api.html#pkg.greet"]
        source_id, sha256, start, end, text, title, kind = passage
        self.assertEqual(source_id, "api.html")
        self.assertEqual(sha256, hashlib.sha256(API_HTML.encode("utf-8")).hexdigest())
        self.assertEqual((title, kind), ("pkg.greet", "function"))
        self.assertEqual(text, 'pkg.greet(name, loud=False)\n\n'
                               'Say hello to name, loudly if asked.\n\n'
                               'greet("Ada")\nHello, Ada\n\n'
                               'Parameters\n\nloud – shout the greeting.')
        self.assertEqual(start, line_of(API_HTML, '<dl class="py function">'))
        self.assertEqual(end, line_of(API_HTML, "– shout the greeting."))

    def test_nested_members_are_units_of_their_own(self):
        passages = self.passages()
        greeter = passages[BASE + "api.html#pkg.Greeter"]
        wave = passages[BASE + "api.html#pkg.Greeter.wave"]
        self.assertEqual(greeter[4], "pkg.Greeter(style)\n\nGreets many people in one style.")
        self.assertEqual((wave[4], wave[5], wave[6]),
                         ("wave(times=1)\n\nWave at everyone present.", "pkg.Greeter.wave",
                          "method"))

    def test_only_the_main_content_is_read(self):
        texts = "\n".join(row[4] for row in self.passages().values())
        for noise in NOISE:
            self.assertNotIn(noise, texts)

    def test_a_page_whose_source_holds_the_text_is_still_quoted_from_the_source(self):
        source_id, _, start, end, text, _, _ = self.passages()[BASE + "guide.html#guide"]
        self.assertEqual((source_id, start, end), ("_sources/guide.rst.txt", 1, 4))
        self.assertEqual(text, GUIDE_SOURCE.rstrip("\n"))

    def test_every_url_lands_on_the_rendered_site(self):
        self.assertEqual(dead_urls(self.out, self.site), [])

    def test_words_nearly_every_unit_holds_are_left_out_of_the_query(self):
        # Five units: "pkg" and "api" are in more than half of them (names, page title).
        self.assertTrue({"pkg", "api"} <= load_snapshot(self.out)
                        .collections["default"].ubiquitous_terms[self.VERSION])
        app = create_app(snapshot_path=self.out, settings=quiet_settings())
        self.addCleanup(app.close)

        def query(question):
            reply = post_json(app, {"question": question, "version": "1.2"})
            return reply.json()["policy"]["initial_query"]

        self.assertEqual(query("How does pkg wave at everyone?"), "wave everyone")
        self.assertEqual(query("pkg api"), "pkg api")  # nothing else would remain: kept

    def test_the_ubiquitous_share_is_a_number_above_0_and_at_most_1(self):
        for share, message in ((True, "must be a finite number"),
                               ("0.5", "must be a finite number"),
                               (0, "must be above 0 and at most 1"),
                               (1.5, "must be above 0 and at most 1")):
            policy = copy.deepcopy(DEFAULT_POLICY)
            policy["fallback"]["ubiquitous_share"] = share
            with self.subTest(share=share), self.assertRaisesRegex(
                    SnapshotError, f"^policy.fallback.ubiquitous_share: {message}$"):
                parse_policy(policy)

    def test_verify_recomputes_the_ubiquitous_words(self):
        copy = tampered_copy(self, self.out, "DELETE FROM collection_terms WHERE term = 'pkg'")
        self.assertEqual(verify_snapshot_directory(copy),
                         ["collection default 1.2: its ubiquitous words do not recompute"])

    def test_a_page_that_is_not_utf8_is_reported_and_skipped_whole(self):
        site = os.path.join(class_temporary_directory(self), "html")
        write_tree(site, {"index.html": GUIDE_HTML, "api.html": API_HTML,
                          "_sources/api.rst.txt": API_SOURCE,
                          "_sources/latin.rst.txt": API_SOURCE})
        with open(os.path.join(site, "latin.html"), "wb") as handle:
            handle.write(API_HTML.replace("Say hello", "Salut, café").encode("latin-1",
                                                                                "replace"))
        progress = io.StringIO()
        out = os.path.join(os.path.dirname(site), "snapshot")
        build_snapshot([SourceTree("1.2", site, BASE)], out, DEFAULT_POLICY, Progress(progress))
        self.assertIn("skipped 1.2/latin.html: not UTF-8", progress.getvalue())
        self.assertFalse([url for url in built_passages(out) if "latin.html" in url])

    def test_a_question_is_answered_with_the_api_text(self):
        app = create_app(snapshot_path=self.out, settings=quiet_settings())
        self.addCleanup(app.close)
        reply = post_json(app, {"question": "how do I wave at everyone?", "version": "1.2"})
        self.assertEqual(reply.code, 200, reply.body)
        evidence = reply.json()["evidence"]
        self.assertEqual(evidence[0]["url"], BASE + "api.html#pkg.Greeter.wave")
        self.assertIn("Wave at everyone present.", evidence[0]["text"])


class IncludingPageTest(BuiltSiteTest):
    """A page whose source includes a file Sphinx does not copy to _sources (werkzeug's
    `.. include:: ../CHANGES.rst`): its text and sections exist only in the HTML."""

    FILES = {"index.html": GUIDE_HTML, "_sources/index.rst.txt": GUIDE_SOURCE,
             "changes.html": ('<!DOCTYPE html>\n<html><body><div class="body" role="main">\n'
                              + section("changes", 1, "Changes", section(
                                  "version-1-2", 2, "Version 1.2", "<p>Waves twice.</p>"))
                              + "</div></body></html>\n"),
             "_sources/changes.rst.txt": "Changes\n=======\n\n.. include:: ../CHANGES.rst\n",
             "notes.html": ('<!DOCTYPE html>\n<html><body><div class="body" role="main">\n'
                            + section("notes", 1, "Notes", section(
                                "version-1-1", 2, "Version 1.1", "<p>Waves once.</p>"))
                            + "</div></body></html>\n"),
             "_sources/notes.rst.txt": "Notes\n=====\n\n.. include:: v1.rst\n",
             "v1.html": ('<!DOCTYPE html>\n<html><body><div class="body" role="main">\n'
                         + section("version-1-1", 1, "Version 1.1", "<p>Waves once.</p>")
                         + "</div></body></html>\n"),
             "_sources/v1.rst.txt": "Version 1.1\n===========\n\nWaves once.\n",
             "examples.html": ('<!DOCTYPE html>\n<html><body><div class="body" role="main">\n'
                               + section("users", 1, "Users", "<p>Many.</p>")
                               + "</div></body></html>\n"),
             "_sources/examples.rst.txt": ":tocdepth: 2\n\n.. _examples:\n\n"
                                          ".. include:: ../EXAMPLES\n"}

    def test_its_sections_are_read_from_its_html(self):
        passages = self.passages()
        passage = passages[BASE + "changes.html#version-1-2"]
        self.assertEqual((passage[0], passage[4]), ("changes.html", "Version 1.2\n\nWaves twice."))
        # A file it includes that is a page of its own (pydicom's release notes) is read
        # there, from its source, as a `pypi:` build places its lines.
        self.assertIn(BASE + "v1.html#version-1-1", passages)
        self.assertNotIn(BASE + "notes.html#version-1-1", passages)

    def test_a_source_above_its_title_of_such_an_include_alone_is_no_unit(self):
        # Sphinx's examples.rst: a field, a label and the include render no text of their own.
        passages = self.passages()
        self.assertIn(BASE + "examples.html#users", passages)
        self.assertNotIn(BASE + "examples.html", passages)


class UndescribedObjectTest(BuiltSiteTest):
    """Objects whose description follows them (QUERIES_HTML), on a page read from its HTML."""

    FILES = {"index.html": GUIDE_HTML, "queries.html": QUERIES_HTML,
             "_sources/queries.md.txt": QUERIES_SOURCE}

    def test_an_empty_object_is_described_by_the_text_that_follows_it(self):
        passages = self.passages()
        source_id, _, start, end, text, _, kind = passages[BASE + "queries.html#QuerySet.filter"]
        self.assertEqual((source_id, kind), ("queries.html", "method"))
        self.assertEqual(text, "QuerySet.filter(**kwargs)\n\n"
                               "Returns a new QuerySet of the rows that match.\n\n"
                               "New in version 2.0.")
        self.assertEqual((start, end), (line_of(QUERIES_HTML, '<dl class="py method">'),
                                        line_of(QUERIES_HTML, "New in version 2.0.")))
        # Its section keeps the text: a reader may land on either place.
        self.assertEqual(passages[BASE + "queries.html#filter"][4],
                         "filter()\n\nReturns a new QuerySet of the rows that match.\n\n"
                         "New in version 2.0.")

    def test_a_described_object_leaves_the_text_after_it_to_its_section(self):
        self.assert_texts({
            "queries.html#QuerySet.count": "QuerySet.count()\n\nCounts the rows.",
            "queries.html#counting": "Counting\n\nCounting reads no row.",
            # An empty object that another object follows has no description to take.
            "queries.html#QuerySet.none": "QuerySet.none()",
            "queries.html#nothing": "Nothing\n\nBoth return a QuerySet."})


def glossary(entries, classes="glossary"):
    """A glossary as Sphinx renders it: entries are ([(term id, term)], description HTML)."""
    return f'<dl class="{classes}">\n' + "".join(
        "".join(f'<dt id="{term_id}">{term}<a class="headerlink" href="#{term_id}" '
                f'title="Permalink to this term">¶</a></dt>' for term_id, term in terms)
        + f"<dd>{description}</dd>\n" for terms, description in entries) + "</dl>\n"


GLOSSARY_SOURCE = """\
Glossary
========

.. glossary::

   hashable
      An object is hashable if its hash value never changes.

   iterable
   iterables
      An object able to return its members one at a time.

      Example
         A list.
"""
GLOSSARY_HTML = (
    '<!DOCTYPE html>\n<html><body><div class="body" role="main">\n'
    + section("glossary", 1, "Glossary", glossary([
        ([("term-hashable", "hashable")],
         "<p>An object is hashable if its hash value never changes.</p>"),
        ([("term-iterable", "iterable"), ("term-iterables", "iterables")],
         "<p>An object able to return its members one at a time.</p>\n"
         '<dl class="simple"><dt>Example</dt><dd><p>A list.</p></dd></dl>')]))
    + "</div></body></html>\n")
# Older Sphinx (Django's docs) writes `glossary docutils`; a page read from its HTML.
TERMS_HTML = (
    '<!DOCTYPE html>\n<html><body><div class="body" role="main">\n'
    + section("terms", 1, "Terms", "<p>Words used here.</p>\n" + glossary([
        ([("term-widget", "widget")], "<p>A thing on the screen.</p>")], "glossary docutils")
        + "<p>See also the guide.</p>\n")
    + "</div></body></html>\n")
LOOPING_HTML = ('<!DOCTYPE html>\n<html><body><div class="body" role="main">\n'
                + section("looping", 1, "Looping", "<p>Loop over any "
                          '<a class="reference internal" href="glossary.html#term-iterables">'
                          "iterable</a> with a for statement.</p>")
                + "</div></body></html>\n")


class GlossaryTest(BuiltSiteTest):
    """Glossary entries, each a unit of its own at its term's id: from a reST page's rendered
    twin (the source's glossary directive has no ids) and from a page read from its HTML."""

    FILES = {"index.html": GUIDE_HTML, "glossary.html": GLOSSARY_HTML,
             "_sources/glossary.rst.txt": GLOSSARY_SOURCE, "terms.html": TERMS_HTML,
             "_sources/terms.md.txt": "# Terms\n", "looping.html": LOOPING_HTML,
             "_sources/looping.rst.txt": "Looping\n=======\n\nLoop over any iterable.\n"}

    def test_each_entry_is_a_section_at_its_terms_id(self):
        passages = self.passages()
        source_id, _, start, end, text, title, kind = passages[BASE + "glossary.html#term-hashable"]
        self.assertEqual((source_id, title, kind), ("glossary.html", "hashable", "section"))
        self.assertEqual(text, "hashable\n\nAn object is hashable if its hash value never changes.")
        self.assertEqual((start, end), (line_of(GLOSSARY_HTML, 'id="term-hashable"'),
                                        line_of(GLOSSARY_HTML, "never changes.")))
        self.assert_texts({
            # A term and its synonym are one entry, at the first term's id.
            "glossary.html#term-iterable": "iterable\n\niterables\n\n"
                                           "An object able to return its members one at a time."
                                           "\n\nExample\n\nA list.",
            "terms.html#term-widget": "widget\n\nA thing on the screen.",
            # The page's own text around the glossary stays its section's.
            "terms.html#terms": "Terms\n\nWords used here.\n\nSee also the guide."})
        self.assertNotIn(BASE + "glossary.html#term-iterables", passages)
        # The reST page's section is still quoted from its source.
        self.assertEqual(passages[BASE + "glossary.html#glossary"][0],
                         "_sources/glossary.rst.txt")
        self.assertEqual(dead_urls(self.out, self.site), [])

    def test_a_link_to_a_synonym_counts_for_its_entry(self):
        self.assertEqual(ranking_facts(self.out, "iterable").in_links, 1)

    def test_a_question_about_a_term_finds_its_entry(self):
        app = create_app(snapshot_path=self.out, settings=quiet_settings())
        self.addCleanup(app.close)
        reply = post_json(app, {"question": "What does hashable mean?", "version": self.VERSION})
        self.assertEqual(reply.code, 200, reply.body)
        results = reply.json()["trace"][0]["result"]["results"]
        self.assertEqual(results[0]["url"], BASE + "glossary.html#term-hashable")


MKDOCS_HEAD = ('<!DOCTYPE html>\n<html><head><meta name="generator" content="mkdocs-1.5.3, '
               'mkdocs-material-9.4.6">\n<title>pkg</title></head>\n<body>\n'
               '<nav class="md-nav">SIDEBAR-NOISE</nav>\n'
               '<div class="md-sidebar"><p>SIDEBAR-NOISE</p></div>\n'
               '<article class="md-content__inner md-typeset">\n')
MKDOCS_TAIL = '</article>\n<footer class="md-footer">FOOTER-NOISE</footer>\n</body></html>\n'


def heading(level, anchor, text, classes=""):
    """A heading as Python-Markdown's toc extension writes it, with its permalink."""
    return (f'<h{level} id="{anchor}"{f" class={chr(34)}{classes}{chr(34)}" if classes else ""}>'
            f'{text}<a class="headerlink" href="#{anchor}" title="Permanent link">¶</a>'
            f'</h{level}>\n')


def doc_object(kind, level, anchor, signature, inner):
    """A documented object as mkdocstrings renders it."""
    return (f'<div class="doc doc-object doc-{kind}">\n'
            + heading(level, anchor, f'<code>{signature}</code>', "doc doc-heading")
            + f'<div class="doc doc-contents ">\n{inner}</div>\n</div>\n')


MKDOCS_INDEX = (MKDOCS_HEAD + heading(1, "pkg", "pkg")
                + "<p>pkg greets people.</p>\n" + heading(2, "installing", "Installing")
                + "<p>Install it with pip.</p>\n<pre><code>pip install pkg\n</code></pre>\n"
                + heading(2, "greeting-loudly", "Greeting loudly")
                + "<p>Pass loud to shout.</p>\n" + MKDOCS_TAIL)
MKDOCS_API = (MKDOCS_HEAD + heading(1, "api", "API")
              + doc_object("function", 2, "pkg.greet", "greet(name, loud=False)",
                           "<p>Say hello to <em>name</em>.</p>\n")
              + doc_object("class", 2, "pkg.Greeter", "Greeter(style)",
                           "<p>Greets many people.</p>\n<div class=\"doc doc-children\">\n"
                           + doc_object("function", 3, "pkg.Greeter.wave", "wave(times=1)",
                                        "<p>Wave at everyone present.</p>\n")
                           + "</div>\n")
              + MKDOCS_TAIL)


class MkDocsHtmlTest(BuiltSiteTest):
    """An MkDocs site (Material theme, mkdocstrings), detected by its generator tag."""

    FILES = {"index.html": MKDOCS_INDEX, "api/index.html": MKDOCS_API,
             "404.html": MKDOCS_HEAD + "<p>Not found</p>" + MKDOCS_TAIL,
             "search.html": MKDOCS_HEAD + "<p>Search results</p>" + MKDOCS_TAIL,
             # A documentation page that a generator's own page is named like, below the root.
             "guide/search.html": MKDOCS_HEAD + heading(1, "full-text-search", "Full text search")
             + "<p>Rank rows by how well they match a query.</p>\n" + MKDOCS_TAIL}
    VERSION = "1.2.3"  # a version as the library writes it: X.Y.Z

    def test_a_three_part_version_is_built_and_served(self):
        app = create_app(snapshot_path=self.out, settings=quiet_settings())
        self.addCleanup(app.close)
        reply = post_json(app, {"question": "How do I install it with pip?", "version": "1.2.3"})
        self.assertEqual(reply.code, 200, reply.body)
        self.assertEqual(reply.json()["evidence"][0]["url"], BASE + "index.html#installing")

    def test_headings_with_ids_are_sections(self):
        self.assert_texts({
            "index.html#installing": "Installing\n\nInstall it with pip.\n\npip install pkg",
            "index.html#greeting-loudly": "Greeting loudly\n\nPass loud to shout.",
            "index.html#pkg": "pkg\n\npkg greets people."})

    def test_mkdocstrings_objects_are_units_with_their_heading_ids(self):
        passages = self.passages()
        greet = passages[BASE + "api/index.html#pkg.greet"]
        self.assertEqual((greet[0], greet[4], greet[5], greet[6]),
                         ("api/index.html", "greet(name, loud=False)\n\nSay hello to name.",
                          "pkg.greet", "function"))
        wave = passages[BASE + "api/index.html#pkg.Greeter.wave"]
        self.assertEqual((wave[4], wave[6]), ("wave(times=1)\n\nWave at everyone present.",
                                              "method"))
        self.assertEqual(passages[BASE + "api/index.html#pkg.Greeter"][4],
                         "Greeter(style)\n\nGreets many people.")

    def test_only_documentation_pages_and_their_main_content_are_read(self):
        passages = self.passages()
        self.assertFalse([url for url in passages if url in (BASE + "404.html",
                                                             BASE + "search.html")])
        self.assertEqual(passages[BASE + "guide/search.html#full-text-search"][4],
                         "Full text search\n\nRank rows by how well they match a query.")
        texts = "\n".join(row[4] for row in passages.values())
        for noise in NOISE:
            self.assertNotIn(noise, texts)

    def test_every_url_lands_on_the_rendered_site(self):
        self.assertEqual(dead_urls(self.out, self.site), [])

    def test_verify_checks_each_named_version_against_its_own_tree(self):
        def verify(*rendered):
            with contextlib.redirect_stdout(io.StringIO()) as out:
                code = retrieval_main(["verify", self.out] + [
                    arg for root in rendered for arg in ("--rendered", root)])
            return code, out.getvalue().splitlines()[-1]

        self.assertEqual(verify(f"1.2.3={self.site}"), (0, "verified"))
        elsewhere = os.path.join(self.site, "api")  # a tree without these pages
        self.assertEqual(verify(f"default/1.2.3={elsewhere}")[0], 1)
        self.assertEqual(verify(f"1.2.3={self.site}", f"9.9={self.site}"),
                         (1, "rejected: 1 problem(s)"))  # no such version: said, not ignored


class OpenStackThemedSphinxTest(BuiltSiteTest):
    """A Sphinx site in openstackdocstheme (every OpenStack project's, ~100 Debian doc
    packages): its main content is `<div class="docs-body">`, without `role="main"`, and an
    autodoc page is read from its HTML."""

    FILES = {"index.html": (
        '<!DOCTYPE html>\n<html><head><title>API</title></head><body>\n'
        '<div class="docs-sidebar">SIDEBAR-NOISE</div>\n'
        '<div class="row"><div class="col-lg-12"><div class="docs-body">\n'
        + section("module-pkg", 1, "API", GREET) + "</div></div></div>\n"
        '<footer>FOOTER-NOISE</footer></body></html>\n'),
        "_sources/index.rst.txt": ".. automodule:: pkg\n   :members:\n"}

    def test_its_autodoc_page_is_read_from_the_main_content(self):
        passages = self.passages()
        self.assertIn(BASE + "index.html#pkg.greet", passages)
        self.assertNotIn("NOISE", "\n".join(row[4] for row in passages.values()))


class OlderSphinxCustomThemeTest(BuiltSiteTest):
    """A page of Sphinx 3 (django-mptt 0.13's Debian site), whose signatures are a
    description's <dt id> with <code> name parts, in a theme that keeps the basic theme's
    `<div class="body">` without `role="main"` (gevent's): each object at its own id."""

    FILES = {"index.html": (
        '<!DOCTYPE html>\n<html><head><title>API</title></head><body>\n'
        '<div class="sidebar"><div class="bodywrapper">SIDEBAR-NOISE</div></div>\n'
        '<div class="documentwrapper"><div class="body">\n'
        '<div class="section" id="module-pkg"><h1>API</h1>\n'
        '<dl class="py function">\n<dt id="pkg.greet">\n'
        '<code class="sig-prename descclassname"><span class="pre">pkg.</span></code>'
        '<code class="sig-name descname"><span class="pre">greet</span></code>'
        '<span class="sig-paren">(</span><em class="sig-param">name</em>'
        '<span class="sig-paren">)</span></dt>\n'
        '<dd><p>Say hello to <em>name</em>.</p>\n'
        '<dl class="field-list simple"><dt>Parameters</dt><dd><p>name – who.</p></dd></dl>\n'
        '</dd></dl>\n</div>\n</div></div>\n'
        '<div class="col3 right"><div class="body"><div class="sphinxsidebar">SIDEBAR-NOISE'
        '</div></div></div>\n'
        '<footer>FOOTER-NOISE</footer></body></html>\n'),
        "_sources/index.rst.txt": ".. autofunction:: pkg.greet\n",
        # Sphinx 2 and before: a description's <dl> named by its directive alone (webassets
        # 0.12's Debian site); repoze.sphinx.autointerface's `py interface` (BTrees').
        "old.html": (
            '<!DOCTYPE html>\n<html><head><title>Old</title></head><body>\n'
            '<div class="body" role="main"><div class="section" id="old"><h1>Old</h1>\n'
            '<dl class="function">\n<dt id="pkg.wave">\n<code class="descclassname">pkg.'
            '</code><code class="descname">wave</code><span class="sig-paren">(</span>'
            '<span class="sig-paren">)</span></dt>\n<dd><p>Wave at people.</p></dd></dl>\n'
            '<dl class="py interface">\n<dt class="sig sig-object py" id="pkg.IGreeter">'
            '<span class="sig-prename descclassname">pkg.</span>'
            '<span class="sig-name descname">IGreeter</span></dt>\n'
            '<dd><p>What greets.</p></dd></dl>\n</div></div></body></html>\n'),
        "_sources/old.rst.txt": ".. autofunction:: pkg.wave\n"}

    def test_each_object_is_read_at_its_own_id_from_the_main_content(self):
        passages = self.passages()
        self.assertIn(BASE + "index.html#pkg.greet", passages)
        self.assertTrue(passages[BASE + "old.html#pkg.wave"][4].startswith(
            "pkg.wave()\n\nWave at people."))
        self.assertIn(BASE + "old.html#pkg.IGreeter", passages)
        self.assertTrue(passages[BASE + "index.html#pkg.greet"][4].startswith(
            "pkg.greet(name)\n\nSay hello to name."))
        self.assertNotIn("NOISE", "\n".join(row[4] for row in passages.values()))


class ThemedMkDocsHtmlTest(BuiltSiteTest):
    """An MkDocs site whose theme writes no generator tag and marks its content by id alone
    (Django REST framework's), detected by the search index MkDocs writes."""

    FILES = {"index.html": ('<!DOCTYPE html>\n<html><head><title>pkg</title></head><body>\n'
                            '<div class="navbar">SIDEBAR-NOISE</div>\n'
                            '<div id="main-content" class="span9">\n'
                            + heading(1, "pkg", "pkg") + "<p>pkg greets people.</p>\n"
                            + heading(2, "installing", "Installing")
                            + "<p>Install it with pip.</p>\n</div>\n"
                            '<footer>FOOTER-NOISE</footer></body></html>\n'),
             "search/search_index.json": '{"docs": []}'}

    def test_it_is_read_as_a_rendered_site(self):
        passages = self.passages()
        self.assertEqual(passages[BASE + "index.html#installing"][4],
                         "Installing\n\nInstall it with pip.")
        self.assertNotIn("NOISE", "\n".join(row[4] for row in passages.values()))


LLMS_INDEX = """\
# pkg

> pkg greets people, loudly if asked.

## Docs

- [Quickstart](https://docs.example.org/pkg/1.2/quickstart.md): install and first greeting
- [Reference](reference.md)
- [Elsewhere](https://other.example.com/page.md): not in this tree

## Optional

- [History](history.md): how pkg came to be
"""
QUICKSTART = "# Quickstart\n\nInstall pkg with pip.\n\n## First greeting\n\nCall greet(name).\n"
REFERENCE = "# Reference\n\n## greet\n\ngreet(name, loud=False) says hello.\n"
HISTORY = "# History\n\npkg began as a greeting card.\n"
UNLINKED = "# Draft\n\nNot listed in llms.txt.\n"
LLMS_FULL = QUICKSTART + "\n" + REFERENCE


class LlmsTxtTest(unittest.TestCase):
    """An llms.txt directory (the index and the pages it links) and an llms-full.txt file."""

    @classmethod
    def setUpClass(cls):
        base = class_temporary_directory(cls)
        site = os.path.join(base, "llms")
        write_tree(site, {"llms.txt": LLMS_INDEX, "quickstart.md": QUICKSTART,
                          "reference.md": REFERENCE, "history.md": HISTORY, "draft.md": UNLINKED,
                          "full/llms-full.txt": LLMS_FULL})
        cls.progress = io.StringIO()
        cls.out = os.path.join(base, "snapshot")
        build_snapshot([SourceTree("1.2", site, BASE, "pkg"),
                        SourceTree("1.2", os.path.join(site, "full", "llms-full.txt"),
                                   BASE + "full/", "pkgfull")],
                       cls.out, DEFAULT_POLICY, Progress(cls.progress))

    def test_the_index_and_the_pages_it_links_are_read(self):
        passages = built_passages(self.out)
        self.assertEqual(passages[BASE + "quickstart.md#first-greeting"][4],
                         "## First greeting\n\nCall greet(name).")
        self.assertEqual(passages[BASE + "reference.md#greet"][4],
                         "## greet\n\ngreet(name, loud=False) says hello.")
        self.assertEqual(passages[BASE + "history.md#history"][4],
                         "# History\n\npkg began as a greeting card.")
        self.assertIn(BASE + "llms.txt#pkg", passages)
        self.assertFalse([url for url in passages if "draft.md" in url])
        self.assertIn("skipped pkg/1.2/https://other.example.com/page.md: linked page not in "
                      "the tree",
                      self.progress.getvalue())

    def test_llms_full_is_one_markdown_document(self):
        passages = built_passages(self.out)
        text = passages[BASE + "full/llms-full.txt#first-greeting"]
        self.assertEqual((text[0], text[2], text[3], text[4]),
                         ("llms-full.txt", 5, 7, "## First greeting\n\nCall greet(name)."))
        self.assertEqual(passages[BASE + "full/llms-full.txt#greet"][4],
                         "## greet\n\ngreet(name, loud=False) says hello.")


if __name__ == "__main__":
    unittest.main()
