"""Built from a published Sphinx site: units, anchors that land, fielded ranking, reading policy.

The site is written here, small and by hand, in the shapes Sphinx 5 publishes (`<section>`,
`<dl class="py function">`, `<dt class="sig sig-object py" id=...>`, `_sources/*.rst.txt`,
objects.inv). The expectations are exact: they pin the ranking rules, not a benchmark figure.
"""

import contextlib
import dataclasses
import gzip
import io
import json
import math
import os
import re
import shutil
import sqlite3
import unittest
import zlib

from retrieval.cli.main import main as retrieval_main
from retrieval.core.ranking import FIELDS, MODEL_FEATURES, IndexFields, is_release_notes
from retrieval.core.snapshot import SnapshotError, load_snapshot, policy_ranking
from retrieval.core.snapshot_directory import MANIFEST, verify_snapshot_directory
from retrieval.ingest.builder import (
    DEFAULT_POLICY,
    Progress,
    SourceTree,
    build_snapshot,
    default_policy,
)
from retrieval.ingest.verify import dead_urls
from retrieval.wsgi import create_app
from tests.schema import errors as schema_errors
from tests.support import (
    call,
    class_temporary_directory,
    post_json,
    quiet_settings,
    tampered_copy,
    temporary_directory,
)

TIER = "inprocess"

BASE = "https://docs.example.org/3.11/"

SHUTIL_RST = """\
:mod:`shutil` --- High-level file operations
============================================

.. module:: shutil
   :synopsis: High-level file operations.

The :mod:`shutil` module offers operations on files and collections of files.

.. function:: rmtree(path, ignore_errors=False)

   Delete an entire directory tree; *path* must point to a directory.

.. function:: copytree(src, dst)

   Recursively copy an entire directory tree rooted at *src* to *dst*. Every member keeps
   its permission bits.

   Example::

      copytree(source, destination, ignore=ignore_patterns('*.pyc', 'tmp*'))

.. class:: Archive(name)

   An archive of files.

   .. method:: extract(path)

      Extract every member of the archive to *path*.
"""

BINASCII_RST = """\
:mod:`binascii` --- Convert between binary and ASCII
====================================================

.. module:: binascii

.. function:: a2b_hex(hexstr)
              unhexlify(hexstr)

   Return the binary data represented by the hexadecimal string *hexstr*.

.. function:: rmtree(path)
   :noindex:

   Delete an entire directory tree; *path* must point to a directory.
"""

DATETIME_RST = """\
:mod:`datetime` --- Basic date and time types
=============================================

.. module:: datetime

datetime Objects
----------------

.. class:: datetime(year, month, day)

   A date and a time.

   .. classmethod:: now(tz=None)

      Return the current local date and time.
"""

WHATSNEW_RST = """\
What's New In Python 3.11
=========================

Improved Modules
----------------

:func:`shutil.rmtree` can now remove a directory tree faster. To remove a directory tree,
delete an entire directory tree with :func:`shutil.rmtree`.
"""

FAQ_RST = """\
Library FAQ
===========

How do I remove a directory tree?
---------------------------------

Use :func:`shutil.rmtree` to delete an entire directory tree.
"""


def section(section_id, level, title, inner):
    return (f'<section id="{section_id}">\n<h{level}>{title}<a class="headerlink" '
            f'href="#{section_id}" title="Permalink to this heading">¶</a></h{level}>\n'
            f'{inner}\n</section>\n')


def obj(kind, signatures, inner, domain="py"):
    """A documented object: signatures are (id or None, prename, name, parameters or None)."""
    dts = "".join(
        f'<dt class="sig sig-object {domain}"'
        f'{f" id={chr(34)}{sig_id}{chr(34)}" if sig_id else ""}>'
        f'<span class="sig-prename descclassname"><span class="pre">{prename}</span></span>'
        f'<span class="sig-name descname"><span class="pre">{name}</span></span>'
        + ("" if params is None else
           f'<span class="sig-paren">(</span>{params}<span class="sig-paren">)</span>')
        + "</dt>\n"
        for sig_id, prename, name, params in signatures)
    return f'<dl class="{domain} {kind}">\n{dts}<dd>{inner}</dd></dl>\n'


def link(href, text):
    return f'<a class="reference internal" href="{href}"><code>{text}</code></a>'


def page(body):
    # The sidebar's links are navigation: they must not count as cross-references.
    sidebar = ('<div class="sphinxsidebar">' + link("library/shutil.html#shutil.copytree", "x")
               * 20 + "</div>")
    return (f'<!DOCTYPE html><html><head><title>t</title></head><body>{sidebar}'
            f'<div class="body" role="main">{body}</div></body></html>\n')


RMTREE = link("../library/shutil.html#shutil.rmtree", "shutil.rmtree()")
PAGES = {
    "library/shutil.html": page(section("module-shutil", 1,
                                        "shutil — High-level file operations", (
        "<p>The shutil module offers operations on files and collections of files.</p>"
        + obj("function", [("shutil.rmtree", "shutil.", "rmtree", "path, ignore_errors=False")],
              "<p>Delete an entire directory tree.</p>")
        + obj("function", [("shutil.copytree", "shutil.", "copytree", "src, dst")],
              "<p>Recursively copy.</p><pre>copytree(source, destination)</pre>")
        + obj("class", [("shutil.Archive", "shutil.", "Archive", "name")],
              "<p>An archive.</p>" + obj("method", [("shutil.Archive.extract", "", "extract",
                                                     "path")], "<p>Extract.</p>"))))),
    "library/binascii.html": page(section("module-binascii", 1,
                                          "binascii — Convert between binary and ASCII", (
        obj("function", [("binascii.a2b_hex", "binascii.", "a2b_hex", "hexstr"),
                         ("binascii.unhexlify", "binascii.", "unhexlify", "hexstr")],
            "<p>Return the binary data.</p>")
        + obj("function", [(None, "binascii.", "rmtree", "path")], "<p>Delete.</p>")))),
    # Sphinx anchors a member of the class datetime of the module datetime by its full name.
    "library/datetime.html": page(section("module-datetime", 1,
                                          "datetime — Basic date and time types", section(
        "datetime-objects", 2, "datetime Objects",
        obj("class", [("datetime.datetime", "datetime.", "datetime", "year, month, day")],
            "<p>A date and a time.</p>" + obj("method", [("datetime.datetime.now", "", "now",
                                                          "tz=None")], "<p>Now.</p>"))))),
    "whatsnew/3.11.html": page(section("what-s-new-in-python-3-11", 1, "What’s New In Python 3.11",
                                       section("improved-modules", 2, "Improved Modules",
                                               f"<p>{RMTREE} {RMTREE}</p>"))),
    "faq/library.html": page(section("library-faq", 1, "Library FAQ", section(
        "how-do-i-remove-a-directory-tree", 2, "How do I remove a directory tree?",
        f"<p>Use {RMTREE}.</p>"
        # A table of contents is navigation too.
        f'<div class="toctree-wrapper compound"><ul><li class="toctree-l1">{RMTREE}</li>'
        "</ul></div>"))),
}
SOURCES = {"library/shutil.rst.txt": SHUTIL_RST, "library/binascii.rst.txt": BINASCII_RST,
           "library/datetime.rst.txt": DATETIME_RST, "whatsnew/3.11.rst.txt": WHATSNEW_RST,
           "faq/library.rst.txt": FAQ_RST}
INVENTORY = [("shutil.rmtree", "py:function", "library/shutil.html#$"),
             ("shutil.copytree", "py:function", "library/shutil.html#$"),
             ("shutil.Archive", "py:class", "library/shutil.html#$"),
             ("shutil.Archive.extract", "py:method", "library/shutil.html#$"),
             ("binascii.a2b_hex", "py:function", "library/binascii.html#$"),
             ("binascii.unhexlify", "py:function", "library/binascii.html#$"),
             ("datetime.datetime", "py:class", "library/datetime.html#$"),
             ("datetime.datetime.now", "py:method", "library/datetime.html#$"),
             ("library-faq", "std:label", "faq/library.html#$")]


def ranking_facts(snapshot, title) -> IndexFields:
    """Return a built unit's ranking facts, by its title."""
    conn = sqlite3.connect(os.path.join(snapshot, "passages.sqlite"))
    try:
        kind, in_links, noindex, reference, *texts = conn.execute(
            f"SELECT i.kind, i.in_links, i.noindex, i.reference_page, "
            f"{', '.join('x.' + name for name in FIELDS)} FROM passages p "
            "JOIN passage_facts i ON i.id = p.id JOIN passage_fields x ON x.id = p.id "
            "WHERE p.title = ?", (title,)).fetchone()
    finally:
        conn.close()
    return IndexFields(kind, in_links, bool(noindex), bool(reference), *texts)


def write_site(root, pages=PAGES, sources=SOURCES, inventory=INVENTORY):
    """Write the rendered pages, their _sources and objects.inv under root."""
    for relative, text in pages.items():
        path = os.path.join(root, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    for relative, text in sources.items():
        path = os.path.join(root, "_sources", relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    lines = "".join(f"{name} {role} 1 {uri} -\n" for name, role, uri in inventory)
    with open(os.path.join(root, "objects.inv"), "wb") as handle:
        handle.write(b"# Sphinx inventory version 2\n# Project: Example\n# Version: 3.11\n"
                     b"# The remainder of this file is compressed using zlib.\n"
                     + zlib.compress(lines.encode("utf-8")))


def build_site(base, name="snapshot", policy=None, **options) -> tuple:
    """Write the site under base/html and build it into base/name; return both paths.

    policy: the default policy with the fielded ranking unless given."""
    site = os.path.join(base, "html")
    if not os.path.isdir(site):
        write_site(site)
    out = os.path.join(base, name)
    build_snapshot([SourceTree("3.11", site, BASE)], out, policy or default_policy("fielded"),
                   Progress(io.StringIO()), **options)
    return site, out


class SphinxSiteTest(unittest.TestCase):
    """The site above, built once for the class with the fielded ranking, served in process.

    Its ranking tests are the fielded score's (`build --ranking fielded`); FittedRankingTest
    asks the same site with the default policy's model.
    """

    POLICY = default_policy("fielded")

    @classmethod
    def setUpClass(cls):
        cls.site, cls.out = build_site(class_temporary_directory(cls), policy=cls.POLICY)
        cls.app = create_app(snapshot_path=cls.out, settings=quiet_settings())
        cls.addClassCleanup(cls.app.close)

    def units(self):
        conn = sqlite3.connect(os.path.join(self.out, "passages.sqlite"))
        try:
            return {row[0]: row[1:] for row in conn.execute(
                "SELECT p.title, p.url, p.start_line, p.end_line, p.text, i.kind, i.in_links, "
                "x.names, i.reference_page, x.code FROM passages p "
                "JOIN passage_facts i ON i.id = p.id JOIN passage_fields x ON x.id = p.id")}
        finally:
            conn.close()

    def retrieve(self, question, **allowances):
        reply = post_json(self.app, {"question": question, "version": "3.11", **allowances})
        self.assertEqual(reply.code, 200, reply.body)
        return reply.json()

    def first_search(self, question):
        result = self.retrieve(question)
        return [(hit["title"], hit["url"][len(BASE):])
                for hit in result["trace"][0]["result"]["results"]]

    # -- units and anchors ------------------------------------------------------------------

    def test_one_unit_per_object_with_its_own_lines(self):
        units = self.units()
        url, start, end, text, kind, in_links, names, reference, code = units["shutil.rmtree"]
        self.assertEqual((url, start, end, kind), (BASE + "library/shutil.html#shutil.rmtree",
                                                   9, 11, "function"))
        self.assertEqual(text, "\n".join(SHUTIL_RST.split("\n")[8:11]))
        # Links in main content: the release notes twice, the FAQ once; sidebars and tables
        # of contents do not count.
        self.assertEqual(in_links, 3)
        self.assertTrue(reference)
        # A class's unit stops where its first member starts; the member is a unit of its own.
        self.assertEqual(units["shutil.Archive"][3], ".. class:: Archive(name)\n\n"
                                                     "   An archive of files.")
        self.assertEqual(units["shutil.Archive.extract"][0],
                         BASE + "library/shutil.html#shutil.Archive.extract")
        # Code is indexed apart from prose.
        self.assertIn("ignore_patterns", units["shutil.copytree"][8])

    def test_anchors_are_the_rendered_ids(self):
        units = self.units()
        # A later signature is an alias: the unit is anchored at the first, named by both.
        self.assertEqual(units["binascii.a2b_hex"][0],
                         BASE + "library/binascii.html#binascii.a2b_hex")
        self.assertEqual(units["binascii.a2b_hex"][6], "binascii.a2b_hex binascii.unhexlify")
        # Module and class of one name: the id Sphinx wrote, not "datetime.now".
        self.assertEqual(units["datetime.datetime.now"][0],
                         BASE + "library/datetime.html#datetime.datetime.now")
        # A :noindex: duplicate has no id of its own: it points at its section.
        self.assertEqual(units["binascii.rmtree"][0],
                         BASE + "library/binascii.html#module-binascii")
        self.assertEqual(units["How do I remove a directory tree?"][0],
                         BASE + "faq/library.html#how-do-i-remove-a-directory-tree")
        self.assertEqual(dead_urls(self.out, self.site), [])

    def test_reference_pages_come_from_the_inventory(self):
        units = self.units()
        self.assertTrue(units["datetime Objects"][7])
        self.assertFalse(units["How do I remove a directory tree?"][7])
        self.assertFalse(units["Improved Modules"][7])

    def test_priors_follow_the_policy(self):
        conn = sqlite3.connect(os.path.join(self.out, "passages.sqlite"))
        try:
            priors = dict(conn.execute(
                "SELECT p.title, i.prior FROM passages p JOIN passage_facts i ON i.id = p.id"))
        finally:
            conn.close()
        expected = {
            "shutil.rmtree": 3 * math.log(1 + 3) + 2,  # 3 in-links, a function
            "shutil.Archive": -1,  # a class
            "shutil.Archive.extract": 1,  # a method
            "binascii.rmtree": 2 - 2,  # a function, but a :noindex: duplicate
            "How do I remove a directory tree?": -5 - 12,  # a section, not a reference page
            "datetime Objects": -5,  # a section of a reference page
        }
        for title, prior in expected.items():
            self.assertAlmostEqual(priors[title], prior, places=9, msg=title)

    def test_the_in_link_prior_is_capped(self):
        ranking = policy_ranking(DEFAULT_POLICY)
        facts = dataclasses.replace(ranking_facts(self.out, "shutil.rmtree"), in_links=10_000)
        self.assertEqual(ranking.prior(facts), ranking.in_links_cap + ranking.kind["function"])
        self.assertLess(ranking.in_links_cap, ranking.in_links * math.log1p(10_000))

    def test_verify_recomputes_and_checks_rendered_urls(self):
        self.assertEqual(verify_snapshot_directory(self.out), [])
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(retrieval_main(["verify", self.out, "--rendered", self.site]), 0)
        moved = os.path.join(os.path.dirname(self.site), "moved")
        shutil.copytree(self.site, moved)
        os.remove(os.path.join(moved, "faq", "library.html"))
        with contextlib.redirect_stdout(out):
            self.assertEqual(retrieval_main(["verify", self.out, "--rendered", moved]), 1)
        self.assertIn("dead URL " + BASE + "faq/library.html#how-do-i-remove", out.getvalue())

    def test_a_page_installed_gzipped_is_on_the_site(self):
        # Debian installs large pages as PAGE.html.gz: the page is published, compressed.
        moved = os.path.join(os.path.dirname(self.site), "gzipped")
        shutil.copytree(self.site, moved)
        page = os.path.join(moved, "faq", "library.html")
        with open(page, "rb") as plain, gzip.open(page + ".gz", "wb") as packed:
            packed.write(plain.read())
        os.remove(page)
        self.assertEqual(dead_urls(self.out, moved), [])
        with open(page + ".gz", "wb") as packed:  # not gzip: the page cannot be read
            packed.write(b"<html>not compressed</html>")
        self.assertIn(f"dead URL {BASE}faq/library.html#how-do-i-remove",
                      "\n".join(dead_urls(self.out, moved)))

    # -- ranking ----------------------------------------------------------------------------

    def test_the_api_object_outranks_notes_faq_and_duplicates(self):
        ranked = self.first_search("How do I remove a directory tree?")
        self.assertEqual(ranked[0], ("shutil.rmtree", "library/shutil.html#shutil.rmtree"))
        titles = [title for title, _ in ranked]
        # The :noindex: copy (same words, no links) below; release notes and the FAQ after it.
        self.assertLess(titles.index("binascii.rmtree"), titles.index("Improved Modules"))
        self.assertLess(titles.index("shutil.rmtree"), titles.index("binascii.rmtree"))
        self.assertLess(titles.index("binascii.rmtree"),
                        titles.index("How do I remove a directory tree?"))

    def test_common_words_match_only_in_names_signatures_and_first_sentences(self):
        common = load_snapshot(self.out).collections["default"].common_terms["3.11"]
        restricted = policy_ranking(DEFAULT_POLICY).common_terms.fields
        conn = sqlite3.connect(os.path.join(self.out, "passages.sqlite"))
        try:
            units = conn.execute(f"SELECT p.url, {', '.join('x.' + f for f in FIELDS)} "
                                 "FROM passages p JOIN passage_fields x ON x.id = p.id").fetchall()
        finally:
            conn.close()

        def holds(texts, word):
            return word in re.findall(r"\w+", " ".join(texts).casefold())

        def where(word):
            """Return (urls with the word in restricted fields, urls with it only elsewhere)."""
            named, prose = set(), set()
            for url, *texts in units:
                fields = dict(zip(FIELDS, texts, strict=True))
                if holds([fields[f] for f in restricted], word):
                    named.add(url)
                elif holds(texts, word):
                    prose.add(url)
            return named, prose

        # A word over the share that some units hold in their names or first sentence, and
        # others only in their prose or code: only the first kind is found.
        word = next(w for w in sorted(common) if all(where(w)))
        named, prose = where(word)
        # Raw: the word itself reaches the index (a question's analysis drops stop words).
        reply = call(self.app, "POST", "/search", json.dumps(
            {"query": word, "version": "3.11", "limit": 20, "analysis": "raw"}).encode("utf-8"))
        self.assertEqual(reply.code, 200, reply.body)
        found = {hit["url"] for hit in reply.json()["hits"]}
        self.assertEqual(found, named)
        self.assertTrue(prose)
        # A word under the share matches in every field, prose included.
        words = sorted(set(re.findall(r"\w+", " ".join(" ".join(u[1:]) for u in units).casefold())))
        rare = next(w for w in words if w not in common and where(w)[1])
        reply = call(self.app, "POST", "/search", json.dumps(
            {"query": rare, "version": "3.11", "limit": 20, "analysis": "raw"}).encode("utf-8"))
        self.assertEqual({hit["url"] for hit in reply.json()["hits"]}, set().union(*where(rare)))

    def test_the_common_terms_section_is_checked(self):
        for value, message in (
                ({"share": 0, "fields": ["names"]}, "share: must be above 0 and at most 1"),
                ({"share": 0.2, "fields": []}, "fields: must be distinct names among"),
                ({"share": 0.2, "fields": ["names", "title"]}, "fields: must be distinct names"),
                ({"share": 0.2, "fields": ["name", "name"]}, "fields: must be distinct names"),
                ({"share": 0.2}, "must have exactly the fields 'fields' and 'share'")):
            policy = json.loads(json.dumps(DEFAULT_POLICY))
            policy["ranking"]["common_terms"] = value
            with self.subTest(value=value), self.assertRaisesRegex(
                    SnapshotError, "^policy.ranking.common_terms" + re.escape(
                        "" if message.startswith("must") else ".") + ".*" + message):
                policy_ranking(policy)

    def test_verify_recomputes_the_common_words(self):
        copy = tampered_copy(self, self.out, "DELETE FROM collection_common_terms WHERE term = "
                             "(SELECT min(term) FROM collection_common_terms)")
        self.assertEqual(verify_snapshot_directory(copy),
                         ["collection default 3.11: its common words do not recompute"])

    def test_names_weigh_more_than_prose(self):
        self.assertEqual(self.first_search("unhexlify")[0][0], "binascii.a2b_hex")
        self.assertEqual(self.first_search("extract")[0][0], "shutil.Archive.extract")

    def test_what_an_object_does_weighs_more_than_the_rest_of_its_prose(self):
        # `member` opens Archive.extract's description (a method) and is in copytree's second
        # sentence (a function, a prior one point higher): the first sentence decides.
        self.assertEqual(ranking_facts(self.out, "shutil.copytree").summary,
                         "Recursively copy an entire directory tree rooted at *src* to *dst*.")
        self.assertEqual(self.first_search("member")[:2],
                         [("shutil.Archive.extract", "library/shutil.html#shutil.Archive.extract"),
                          ("shutil.copytree", "library/shutil.html#shutil.copytree")])

    def test_quoted_literals_are_not_searched(self):
        result = self.retrieve("extract the archive `copytree` to 'tree' 42")
        self.assertEqual(result["trace"][0]["action"]["arguments"]["query"], "extract archive")
        self.assertEqual(result["evidence"][0]["title"], "shutil.Archive.extract")

    def test_a_long_question_spends_its_words_on_what_a_search_can_match(self):
        # Seventeen names of the asker's own, which no unit holds, before what is asked: the
        # query's sixteen places go to the words some unit of the version holds.
        own = " ".join(f"qzv{n}" for n in range(17))
        question = f"With {own}, remove a directory tree"
        query = self.retrieve(question)["trace"][0]["action"]["arguments"]["query"]
        self.assertEqual(query, "remove directory tree")
        reply = call(self.app, "POST", "/search", json.dumps(
            {"query": question, "version": "3.11"}).encode())
        self.assertEqual(reply.json()["searched"]["query"], query)
        # At most sixteen words, nothing is left out for matching nothing: the query is the
        # question's, as a reader of the trace expects.
        short = self.retrieve("remove qzv1 directory tree")
        self.assertEqual(short["trace"][0]["action"]["arguments"]["query"],
                         "remove qzv1 directory tree")

    # -- the reading policy -------------------------------------------------------------------

    def test_reads_the_best_distinct_matches_the_allowances_permit(self):
        result = self.retrieve("How do I remove a directory tree?")
        self.assertEqual((result["status"], result["reason"]), ("completed", "best_matches_read"))
        search = result["trace"][0]
        self.assertEqual(search["action"]["arguments"]["k"], 10)
        self.assertEqual(result["usage"]["reads"], 2)  # the default max_reads
        urls = [passage["url"] for passage in result["evidence"]]
        self.assertEqual(urls[0], BASE + "library/shutil.html#shutil.rmtree")
        self.assertEqual(len(set(urls)), len(urls))
        larger = self.retrieve("How do I remove a directory tree?", max_steps=16, max_reads=8,
                               max_source_bytes=65536)
        self.assertEqual(larger["usage"]["reads"],
                         len({hit["url"] for hit in larger["trace"][0]["result"]["results"]}))
        self.assertNotIn("denied", json.dumps(larger["trace"]))

    def test_responses_of_a_built_snapshot_follow_the_openapi_document(self):
        document = json.loads(call(self.app, "GET", "/openapi.json").body)
        schema = document["paths"]["/retrieve"]["post"]["responses"]["200"]["content"][
            "application/json"]["schema"]
        result = self.retrieve("How do I remove a directory tree?")
        self.assertIn("title", result["evidence"][0])
        self.assertEqual(schema_errors(schema, result, document), [])

    def test_a_question_without_matches_says_so(self):
        result = self.retrieve("zyxxy quux")
        self.assertEqual((result["status"], result["reason"]),
                         ("incomplete", "no_matching_passages"))
        self.assertEqual(result["evidence"], [])

    def test_no_read_affordable_ends_with_the_denial(self):
        result = self.retrieve("How do I remove a directory tree?", max_source_bytes=10)
        self.assertEqual((result["status"], result["reason"]), ("limited", "max_source_bytes"))

    # -- snapshot format ----------------------------------------------------------------------

    def test_a_directory_of_an_older_schema_is_refused_with_the_fix(self):
        old = os.path.join(os.path.dirname(self.out), "old")
        shutil.copytree(self.out, old)
        with open(os.path.join(old, MANIFEST), encoding="utf-8") as handle:
            manifest = json.load(handle)
        manifest["schema_version"] = 1
        with open(os.path.join(old, MANIFEST), "w", encoding="utf-8") as handle:
            json.dump(manifest, handle)
        with self.assertRaisesRegex(SnapshotError, "rebuild it with `retrieval build`"):
            load_snapshot(old)

    def test_build_never_rewrites_an_existing_snapshot(self):
        with self.assertRaisesRegex(SnapshotError, "already holds a snapshot"):
            build_snapshot([SourceTree("3.11", self.site, BASE)], self.out, DEFAULT_POLICY,
                           Progress(io.StringIO()))


# A page whose objects a directive of the project's own generates (Jinja's templates page:
# `.. jinja:filters::` lists the filters' docstrings): the source has no lines for them.
FILTERS_RST = """\
Templates
=========

A filter changes a variable. :func:`upper` is one, written inline here.

.. function:: upper(s)

   Convert a value to uppercase.

List of Builtin Filters
-----------------------

.. jinja:filters:: jinja2.defaults.DEFAULT_FILTERS

.. envvar:: JINJA_CACHE_DIR

   Where compiled templates are kept between runs.
"""
FILTERS_HTML = page(section("templates", 1, "Templates", (
    "<p>A filter changes a variable.</p>"
    + obj("function", [("jinja-filters.upper", "jinja-filters.", "upper", "s")],
          "<p>Convert a value to uppercase.</p>")
    + section("list-of-builtin-filters", 2, "List of Builtin Filters", (
        obj("function", [("jinja-filters.truncate", "jinja-filters.", "truncate",
                          "s, length=255")],
            "<p>Return a truncated copy of the string, ending in an ellipsis.</p>")
        + obj("function", [("jinja-filters.count", "jinja-filters.", "count", "s"),
                           ("jinja-filters.length", "jinja-filters.", "length", "s")],
              "<p>Return the number of items in a sequence.</p>")
        # A standard-domain object (an environment variable): the reST reader knows only
        # Python's directives, so its text too is the rendered page's.
        + obj("envvar", [("envvar-JINJA_CACHE_DIR", "", "JINJA_CACHE_DIR", None)],
              "<p>Where compiled templates are kept between runs.</p>", domain="std"))))))


# A page written in MyST Markdown (or a notebook): Sphinx publishes its source too, which the
# reST reader cannot read.
CACHING_MD = """\
# Caching

Compiled templates are kept in memory between renders.
"""
CACHING_HTML = page(section("caching", 1, "Caching",
                            "<p>Compiled templates are kept in memory between renders.</p>"))


class SourceTitleMatchingTest(unittest.TestCase):
    """A source title is anchored at the section Sphinx rendered for it, whatever Sphinx
    showed in place of its markup."""

    def urls(self, source, rendered) -> dict:
        """Build one page from its source and rendered HTML; return each unit's URL by the
        first line of its text."""
        base = temporary_directory(self)
        site = os.path.join(base, "html")
        write_site(site, {"tutorial.html": rendered}, {"tutorial.rst.txt": source}, [])
        out = os.path.join(base, "snapshot")
        build_snapshot([SourceTree("3.11", site, BASE)], out, progress=Progress(io.StringIO()))
        conn = sqlite3.connect(os.path.join(out, "passages.sqlite"))
        try:
            return {text.splitlines()[0]: url[len(BASE):] for url, text in conn.execute(
                "SELECT url, text FROM passages")}
        finally:
            conn.close()

    def test_a_title_with_a_shortened_role_target_gets_its_sections_id(self):
        # Sphinx shows :meth:`~a.b.find_one` as find_one(): the title is matched by that.
        title = "Getting a Document With :meth:`~pymongo.collection.Collection.find_one`"
        urls = self.urls(
            f"Tutorial\n========\n\nIntro.\n\n{title}\n{'-' * len(title)}\n\n"
            "The most basic query returns a single document.\n",
            page(section("tutorial", 1, "Tutorial", "<p>Intro.</p>" + section(
                "getting-a-document-with-find-one", 2,
                "Getting a Document With " + link("api.html#pymongo.Collection.find_one",
                                                  "find_one()"),
                "<p>The most basic query returns a single document.</p>"))))
        self.assertEqual(urls[title], "tutorial.html#getting-a-document-with-find-one")
        self.assertEqual(urls["Tutorial"], "tutorial.html#tutorial")

    def test_a_numbered_sections_number_is_not_its_title(self):
        # A `:numbered:` toctree prefixes each rendered heading with its number ("3.1. "); a
        # module's section is anchored by the module's id, which no title's words give.
        number = '<span class="section-number">{}</span>'
        title = ":mod:`shelve` --- Object persistence"
        urls = self.urls(
            f"API Reference\n=============\n\nIntro.\n\n{title}\n{'-' * len(title)}\n\n"
            "A shelf is a persistent dictionary.\n",
            page(section("api-reference", 1, number.format("3. ") + "API Reference",
                         "<p>Intro.</p>" + section(
                             "module-shelve", 2, number.format("3.1. ") + "shelve — Object "
                             "persistence", "<p>A shelf is a persistent dictionary.</p>"))))
        self.assertEqual(urls[title], "tutorial.html#module-shelve")
        self.assertEqual(urls["API Reference"], "tutorial.html#api-reference")


class GeneratedObjectsTest(unittest.TestCase):
    """Objects with no lines in a page's reST source, and pages whose source is not reST, are
    read from the rendered page."""

    @classmethod
    def setUpClass(cls):
        base = class_temporary_directory(cls)
        cls.site, cls.out = os.path.join(base, "html"), os.path.join(base, "snapshot")
        write_site(cls.site, {"templates.html": FILTERS_HTML, "guide/caching.html": CACHING_HTML},
                   {"templates.rst.txt": FILTERS_RST, "guide/caching.md.txt": CACHING_MD},
                   [("jinja-filters.upper", "py:function", "templates.html#$")])
        build_snapshot([SourceTree("3.1", cls.site, BASE)], cls.out, DEFAULT_POLICY,
                       Progress(io.StringIO()))

    def units(self) -> dict:
        conn = sqlite3.connect(os.path.join(self.out, "passages.sqlite"))
        try:
            return {url[len(BASE):]: (source_id, start, end, text)
                    for url, source_id, start, end, text in conn.execute(
                        "SELECT url, source_id, start_line, end_line, text FROM passages "
                        "ORDER BY id")}
        finally:
            conn.close()

    def test_a_generated_object_is_a_unit_quoted_from_the_rendered_page(self):
        units = self.units()
        source_id, start, end, text = units["templates.html#jinja-filters.truncate"]
        self.assertEqual(source_id, "templates.html")
        with open(os.path.join(self.site, "templates.html"), encoding="utf-8") as handle:
            lines = handle.read().split("\n")
        # Its text as the page shows it, its lines the page's lines that hold it.
        self.assertEqual(text, "jinja-filters.truncate(s, length=255)\n\n"
                               "Return a truncated copy of the string, ending in an ellipsis.")
        self.assertIn('id="jinja-filters.truncate"', "\n".join(lines[start - 1:end]))
        # One unit per object, at its first id; the later one is an alias, not a unit.
        self.assertIn("templates.html#jinja-filters.count", units)
        self.assertNotIn("templates.html#jinja-filters.length", units)
        self.assertEqual(dead_urls(self.out, self.site), [])

    def test_what_the_source_has_stays_quoted_from_the_source(self):
        units = self.units()
        # The object with source lines, and the sections around the generated ones.
        self.assertEqual(units["templates.html#jinja-filters.upper"][0],
                         "_sources/templates.rst.txt")
        self.assertEqual(units["templates.html#list-of-builtin-filters"][0],
                         "_sources/templates.rst.txt")
        self.assertEqual(sorted(units), [
            "guide/caching.html#caching", "templates.html#envvar-JINJA_CACHE_DIR",
            "templates.html#jinja-filters.count", "templates.html#jinja-filters.truncate",
            "templates.html#jinja-filters.upper", "templates.html#list-of-builtin-filters",
            "templates.html#templates"])
        # The page's own units first, then what only the rendered page has.
        self.assertEqual([url for url in units if units[url][0] == "templates.html"],
                         ["templates.html#jinja-filters.truncate",
                          "templates.html#jinja-filters.count",
                          "templates.html#envvar-JINJA_CACHE_DIR"])

    def test_a_page_whose_source_is_not_rest_is_read_from_the_page(self):
        source_id, start, end, text = self.units()["guide/caching.html#caching"]
        self.assertEqual(source_id, "guide/caching.html")
        self.assertEqual(text, "Caching\n\nCompiled templates are kept in memory between renders.")
        with open(os.path.join(self.site, "guide", "caching.html"), encoding="utf-8") as handle:
            lines = handle.read().split("\n")
        self.assertIn('id="caching"', "\n".join(lines[start - 1:end]))

    def test_a_standard_domain_object_is_a_documented_value(self):
        facts = ranking_facts(self.out, "JINJA_CACHE_DIR")
        self.assertEqual((facts.kind, facts.names), ("data", "JINJA_CACHE_DIR"))
        self.assertEqual(self.units()["templates.html#envvar-JINJA_CACHE_DIR"][3],
                         "JINJA_CACHE_DIR\n\nWhere compiled templates are kept between runs.")

    def test_a_question_finds_the_generated_filter(self):
        app = create_app(snapshot_path=self.out, settings=quiet_settings())
        self.addCleanup(app.close)
        reply = post_json(app, {"question": "cut a long string and end it with an ellipsis",
                                "version": "3.1"})
        self.assertEqual(reply.code, 200, reply.body)
        urls = [hit["url"][len(BASE):] for hit in reply.json()["trace"][0]["result"]["results"]]
        self.assertEqual(urls[0], "templates.html#jinja-filters.truncate")


class FittedRankingTest(unittest.TestCase):
    """The same site built with the default policy: the fitted model re-sorts the candidates."""

    @classmethod
    def setUpClass(cls):
        cls.base = class_temporary_directory(cls)
        cls.site, cls.out = build_site(cls.base, policy=DEFAULT_POLICY)
        cls.app = create_app(snapshot_path=cls.out, settings=quiet_settings())
        cls.addClassCleanup(cls.app.close)

    def first_search(self, question):
        reply = post_json(self.app, {"question": question, "version": "3.11"})
        self.assertEqual(reply.code, 200, reply.body)
        return [(hit["title"], hit["url"][len(BASE):], hit["native_score"])
                for hit in reply.json()["trace"][0]["result"]["results"]]

    def test_a_how_to_question_reaches_its_guide_and_the_object(self):
        titles = [title for title, _, _ in self.first_search("How do I remove a directory tree?")]
        # The FAQ entry that answers it, which the fielded priors put last, and the object.
        self.assertEqual(set(titles[:2]), {"How do I remove a directory tree?", "shutil.rmtree"})
        # The :noindex: copy and the release notes stay below the object.
        self.assertLess(titles.index("shutil.rmtree"), titles.index("binascii.rmtree"))
        self.assertLess(titles.index("shutil.rmtree"), titles.index("Improved Modules"))

    def test_a_name_lookup_reaches_the_object(self):
        self.assertEqual(self.first_search("shutil rmtree")[0][:2],
                         ("shutil.rmtree", "library/shutil.html#shutil.rmtree"))

    def test_scores_are_the_models_in_rank_order(self):
        ranked = self.first_search("remove a directory tree")
        scores = [score for _, _, score in ranked]
        self.assertEqual(scores, sorted(scores))
        model = policy_ranking(DEFAULT_POLICY).model
        self.assertEqual(model.candidates, 100)
        self.assertEqual(len(model.weights), len(MODEL_FEATURES))

    def test_the_weights_are_bound_into_corpus_id(self):
        policy = json.loads(json.dumps(DEFAULT_POLICY))
        policy["ranking"]["model"]["weights"]["release_notes"] += 1
        _, other = build_site(self.base, "reweighted", policy=policy)
        self.assertNotEqual(load_snapshot(other).corpus_id, load_snapshot(self.out).corpus_id)
        _, fielded = build_site(self.base, "fielded")
        self.assertNotEqual(load_snapshot(fielded).corpus_id, load_snapshot(self.out).corpus_id)

    def test_the_model_section_is_checked(self):
        weights = dict(DEFAULT_POLICY["ranking"]["model"]["weights"])
        missing = {name: value for name, value in weights.items() if name != "plain_rank"}
        for value, message in (
                ({"candidates": 0, "weights": weights}, "candidates"),
                ({"candidates": 10, "weights": missing}, "weights: must weigh exactly"),
                ({"candidates": 10, "weights": dict(weights, extra=1)}, "weights: must weigh"),
                ({"candidates": 10, "weights": dict(weights, noindex="1")}, "weights.noindex"),
                ({"candidates": 10, "weights": dict(weights, dense="1")}, "weights.dense"),
                ({"candidates": 10, "weights": dict(weights, literals_noindex="1")},
                 "weights.literals_noindex"),
                ({"candidates": 10, "weights": dict(weights, literals_extra=1)},
                 "weights: must weigh"),
                ({"weights": weights}, "must have exactly the fields candidates, weights")):
            policy = json.loads(json.dumps(DEFAULT_POLICY))
            policy["ranking"]["model"] = value
            with self.subTest(value=value), self.assertRaisesRegex(
                    SnapshotError, "^policy.ranking.model.*" + message):
                policy_ranking(policy)

    def test_page_candidates_counts_the_searchs_candidates_on_each_hits_page(self):
        policy = json.loads(json.dumps(DEFAULT_POLICY))
        # Only the feature counts: every hit scores -ln(1 + its page's candidates).
        policy["ranking"]["model"]["weights"] = dict.fromkeys(
            (name for name in MODEL_FEATURES if name != "dense"), 0) | {"page_candidates": 1}
        _, out = build_site(self.base, "pages", policy=policy)
        app = create_app(snapshot_path=out, settings=quiet_settings())
        self.addCleanup(app.close)
        reply = call(app, "POST", "/search", json.dumps(
            {"query": "directory tree", "version": "3.11", "limit": 20}).encode())
        self.assertEqual(reply.code, 200, reply.body)
        hits = reply.json()["hits"]
        pages = [hit["url"].partition("#")[0] for hit in hits]
        # Fewer hits than the limit: every candidate is shown, so each page's count is exact.
        self.assertLess(len(hits), 20)
        self.assertGreater(len(set(pages)), 1)
        for hit, page in zip(hits, pages, strict=True):
            self.assertAlmostEqual(hit["score"], -math.log1p(pages.count(page)),
                                   places=12, msg=hit["url"])
        # The page most of them share comes first.
        self.assertEqual(pages.count(pages[0]), max(map(pages.count, pages)))

    def test_dense_may_be_left_out_of_the_weights_and_is_then_zero(self):
        model = DEFAULT_POLICY["ranking"]["model"]
        self.assertNotIn("dense", model["weights"])
        parsed = policy_ranking(DEFAULT_POLICY).model
        self.assertEqual(parsed.weights[MODEL_FEATURES.index("dense")], 0)
        self.assertFalse(parsed.weighs_dense)
        policy = json.loads(json.dumps(DEFAULT_POLICY))
        policy["ranking"]["model"]["weights"]["dense"] = 2.5
        parsed = policy_ranking(policy).model
        self.assertEqual(parsed.weights[MODEL_FEATURES.index("dense")], 2.5)
        self.assertTrue(parsed.weighs_dense)

    def test_a_question_quoting_literals_says_so_and_only_then_its_literal_weights_count(self):
        policy = json.loads(json.dumps(DEFAULT_POLICY))
        # A guide page ranks far lower for a question that quotes a literal value.
        policy["ranking"]["model"]["weights"]["literals_non_reference_page"] = -50
        _, out = build_site(self.base, "literals", policy=policy)
        app = create_app(snapshot_path=out, settings=quiet_settings())
        self.addCleanup(app.close)

        def first(application, question):
            search = post_json(application, {"question": question, "version": "3.11"}).json()[
                "trace"][0]
            return search["action"]["arguments"], [
                hit["title"] for hit in search["result"]["results"]], search["result"]

        plain = "How do I remove a directory tree?"
        quoting = "How do I remove the directory tree `build`?"
        arguments, titles, _ = first(app, plain)
        self.assertNotIn("literals", arguments)
        self.assertEqual(titles, [title for title, _, _ in self.first_search(plain)])
        self.assertIn("How do I remove a directory tree?", titles[:2])
        arguments, titles, result = first(app, quoting)
        self.assertEqual((arguments["query"], arguments["literals"]),
                         ("remove directory tree", True))
        self.assertTrue(result["literals"])
        # The FAQ entry (a page that documents no object) now comes after every object.
        objects = [title for title in titles if "." in title]
        self.assertEqual(titles[:len(objects)], objects)
        self.assertIn("How do I remove a directory tree?", titles)
        # The same query without literals is another search, with another id.
        _, _, unmarked = first(app, "How do I remove the directory tree?")
        self.assertNotEqual(unmarked["search_request_id"], result["search_request_id"])
        # POST /search reads the question alike and says what it searched.
        reply = call(app, "POST", "/search", json.dumps(
            {"query": quoting, "version": "3.11", "limit": 10}).encode())
        self.assertEqual(reply.code, 200, reply.body)
        self.assertEqual(reply.json()["searched"],
                         {"query": "remove directory tree", "match": "any", "literals": True})
        self.assertEqual([hit["title"] for hit in reply.json()["hits"]], titles)

    def test_release_notes_pages_are_told_by_their_path(self):
        for url, expected in (("https://x.org/3.11/whatsnew/3.11.html#improved-modules", True),
                              ("https://x.org/en/changelog.html", True),
                              ("file:///usr/share/doc/x/html/changes/index.html#v1", True),
                              ("https://x.org/en/3.2/releases/3.2.1.html#bugfixes", True),
                              ("https://x.org/en/announce/release-7.2.0.html", True),
                              ("https://x.org/community/3.14-announcement/#django-versions", True),
                              ("https://x.org/whats_new_3_0.html#features", True),
                              ("https://numpy.org/doc/1.25/release/1.25.0-notes.html#x", True),
                              ("pypi:numpy==1.25.0/doc/source/release/1.25.0-notes.rst#L1", True),
                              ("https://x.org/dev/release.html#making-a-release", False),
                              ("https://x.org/dev/howto-release/index.html", False),
                              ("https://x.org/intro/whatsnext.html", False),
                              ("https://x.org/internals/howto-release-django.html", False),
                              ("https://x.org/3.11/library/shutil.html#shutil.rmtree", False),
                              ("https://x.org/newsletters/howto.html", False),
                              ("https://changelog.example.org/guide.html", False)):
            with self.subTest(url=url):
                self.assertEqual(is_release_notes(url), expected)

    def test_search_reads_a_question_as_retrieve_does(self):
        question = "How do I remove a directory tree?"
        run = post_json(self.app, {"question": question, "version": "3.11"}).json()
        first = run["trace"][0]
        reply = call(self.app, "POST", "/search", json.dumps(
            {"query": question, "version": "3.11", "limit": 10}).encode())
        self.assertEqual(reply.code, 200, reply.body)
        found = reply.json()
        self.assertEqual(found["searched"], {"query": first["action"]["arguments"]["query"],
                                             "match": first["action"]["arguments"]["match"]})
        self.assertEqual([hit["passage_id"] for hit in found["hits"]],
                         [hit["passage_id"] for hit in first["result"]["results"]])
        # Asked for explicitly, the raw form requires every word as written: stop words too.
        raw = call(self.app, "POST", "/search", json.dumps(
            {"query": question, "version": "3.11", "analysis": "raw"}).encode()).json()
        self.assertEqual(raw["searched"], {"query": question, "match": "all"})
        self.assertEqual([hit["title"] for hit in raw["hits"]],
                         ["How do I remove a directory tree?"])  # the one holding "do" and "i"
        self.assertGreater(len(found["hits"]), 2)

    def test_build_ranking_option_chooses_the_fielded_score(self):
        out = os.path.join(self.base, "cli-fielded")
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            code = retrieval_main(["build", "--source", f"3.11={self.site}", "--base-url",
                                   f"3.11={BASE}", "--ranking", "fielded", "--out", out])
        self.assertEqual(code, 0)
        _, fielded = build_site(self.base, "fielded-again")
        self.assertEqual(load_snapshot(out).corpus_id, load_snapshot(fielded).corpus_id)
        self.assertIsNone(load_snapshot(out).ranking.model)


if __name__ == "__main__":
    unittest.main()
