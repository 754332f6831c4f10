"""Version notes as data, and absence said: a name one version lacks is never another's passage.

Two versions of one library's Sphinx site, written here: 1.0 documents `greet` (changed in 1.0)
and `old_greet` (deprecated in 1.0) in its reST source; 2.0 drops `old_greet`, adds `new_greet`
(new in 2.0) and a page read from its rendered HTML (a MyST source) whose `shout` is deprecated.
Everything is asked through the WSGI app in process (wsgiref.validate); the notes' extraction
from each markup is checked on its own strings too.
"""

import io
import json
import os
import unittest

from retrieval.core import digests
from retrieval.core.snapshot_directory import verify_snapshot_directory
from retrieval.core.verify import verify_passage, verify_run_result
from retrieval.ingest.builder import Progress, SourceTree, build_snapshot, default_policy
from retrieval.ingest.version_notes import rendered_notes, rst_notes
from retrieval.wsgi import create_app
from tests.support import call, class_temporary_directory, quiet_settings, tampered_copy
from tests.test_html_ingest import write_tree
from tests.test_sphinx_build import obj, page, section

TIER = "inprocess"

BASE = "https://docs.example.org/pkg/{}/"
GREET_RST = """\
.. function:: greet(name)

   Say hello to *name*.

   .. versionchanged:: 1.0
      The *name* may be empty.
"""
GREET_HTML = obj("function", [("pkg.greet", "pkg.", "greet", "name")], (
    "<p>Say hello to <em>name</em>.</p>\n<div class=\"versionchanged\">\n<p><span class=\""
    "versionmodified changed\">Changed in version 1.0: </span>The <em>name</em> may be empty."
    "</p>\n</div>\n"))
SOURCES = {
    "1.0": "API\n===\n\n.. module:: pkg\n\n" + GREET_RST + """
.. function:: old_greet(name)

   Say hello the old way.

   .. deprecated:: 1.0
      Use :func:`greet` instead.
""",
    "2.0": "API\n===\n\n.. module:: pkg\n\n" + GREET_RST + """
.. function:: new_greet(name)

   Say hello the new way.

   .. versionadded:: 2.0
""",
}
PAGES = {
    "1.0": page(section("module-pkg", 1, "API", GREET_HTML + obj(
        "function", [("pkg.old_greet", "pkg.", "old_greet", "name")],
        "<p>Say hello the old way.</p>\n<div class=\"deprecated\"><p><span class=\""
        "versionmodified deprecated\">Deprecated since version 1.0: </span>Use greet instead."
        "</p></div>\n"))),
    "2.0": page(section("module-pkg", 1, "API", GREET_HTML + obj(
        "function", [("pkg.new_greet", "pkg.", "new_greet", "name")],
        "<p>Say hello the new way.</p>\n<div class=\"versionadded\"><p><span class=\""
        "versionmodified added\">New in version 2.0.</span></p></div>\n"))),
}
# Read from its rendered page: its source is MyST Markdown.
SHOUT_HTML = page(section("shouting", 1, "Shouting", obj(
    "function", [("pkg.shout", "pkg.", "shout", "text")],
    "<p>Say it loudly.</p>\n<div class=\"deprecated-removed\"><p><span class=\"versionmodified"
    "\">Deprecated since version 2.0, will be removed in version 3.0: </span>Use "
    "<code>greet</code> in capitals.</p></div>\n")))


# Units enough that a note's words are rare ones, as in any real site (the ranking's common
# words match only in names and summaries).
TOPICS = range(12)


def post(app, path, **body):
    return call(app, "POST", path, json.dumps(body).encode("utf-8"))


def build_versions(root: str) -> str:
    """Build both versions' sites under root as collection pkg; return the snapshot directory."""
    trees = []
    for version in SOURCES:
        site = os.path.join(root, version)
        files = {"index.html": page(section("index", 1, "Index", "<p>pkg</p>" + "".join(
                     section(f"topic-{n}", 2, f"Topic {n}", f"<p>Words about topic {n}.</p>")
                     for n in TOPICS))),
                 "_sources/index.rst.txt": "Index\n=====\n\npkg\n" + "".join(
                     f"\nTopic {n}\n-------\n\nWords about topic {n}.\n" for n in TOPICS),
                 "api.html": PAGES[version], "_sources/api.rst.txt": SOURCES[version]}
        if version == "2.0":
            files |= {"shout.html": SHOUT_HTML, "_sources/shout.md.txt": "# Shouting\n"}
        write_tree(site, files)
        trees.append(SourceTree(version, site, BASE.format(version), "pkg"))
    out = os.path.join(root, "snapshot")
    build_snapshot(trees, out, default_policy("fitted"), Progress(io.StringIO()))
    return out


class ExtractionTest(unittest.TestCase):
    def test_rst_directives_and_numpydoc_sections(self):
        self.assertEqual([(n.kind, n.version, n.text) for n in rst_notes(
            ".. versionadded:: 3.2\n\n.. versionchanged:: 3.3\n   Added *x*.\n   Twice.\n\n"
            ".. deprecated-removed:: 3.4 3.6 Use h.\n\nAfter.\n\n"
            "    Deprecated\n    ----------\n    Since 1.5, use g.\n\n    Parameters\n"
            "    ----------\n")], [
            ("since", "3.2", ""), ("changed", "3.3", "Added *x*. Twice."),
            ("deprecated", "3.4", "Use h."), ("deprecated", "1.5", "Since 1.5, use g.")])

    def test_rendered_labels_open_a_paragraph(self):
        self.assertEqual([(n.kind, n.version, n.text) for n in rendered_notes(
            "f(x)\n\nNew in version 3.2.\n\nChanged in version 3.3: Added g.\n\n"
            "Added in version 3.13.\n\nRemoved in version 4.0: Gone.\n\n"
            "Code that says New in version 9 inside a sentence.")], [
            ("since", "3.2", ""), ("changed", "3.3", "Added g."), ("since", "3.13", ""),
            ("removed", "4.0", "Gone.")])


class VersionNotesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = build_versions(class_temporary_directory(cls))
        cls.app = create_app(cls.out, settings=quiet_settings())

    @classmethod
    def tearDownClass(cls):
        cls.app.close()

    def search(self, query, version, analysis="question"):
        reply = post(self.app, "/search", query=query, version=version, collection="pkg",
                     analysis=analysis)
        self.assertEqual(reply.code, 200, reply.body)
        return reply.json()

    def hit(self, document, url):
        return next(hit for hit in document["hits"] if hit["url"] == url)

    def test_hits_carry_their_units_notes_and_only_theirs(self):
        found = self.search("greet", "1.0")
        greet = self.hit(found, BASE.format("1.0") + "api.html#pkg.greet")
        self.assertEqual(greet["changed"], [{"version": "1.0", "text": "The *name* may be empty."}])
        old = self.hit(found, BASE.format("1.0") + "api.html#pkg.old_greet")
        self.assertEqual(old["deprecated"],
                         [{"version": "1.0", "text": "Use :func:`greet` instead."}])
        self.assertNotIn("since", greet)
        self.assertNotIn("changed", old)
        # In the documented place: after the hit's own fields, before its score.
        self.assertEqual(list(old)[-3:], ["deprecated", "score", "text"])
        index = self.hit(self.search("pkg", "1.0"), BASE.format("1.0") + "index.html#index")
        self.assertFalse({"since", "changed", "deprecated", "removed"} & set(index))

    def test_a_rendered_page_gives_its_notes_too(self):
        shout = self.hit(self.search("shout", "2.0"),
                         BASE.format("2.0") + "shout.html#pkg.shout")
        self.assertEqual(shout["deprecated"],
                         [{"version": "2.0", "text": "Use greet in capitals."}])

    def test_a_question_about_deprecation_finds_the_deprecated_unit(self):
        # The source's prose never says "deprecated" (the directive's marker is no prose): the
        # label Sphinx renders for it is indexed with it.
        found = self.search("deprecated since 1.0", "1.0", analysis="raw")
        self.assertEqual([hit["url"] for hit in found["hits"]],
                         [BASE.format("1.0") + "api.html#pkg.old_greet"])

    def test_evidence_and_passages_carry_the_notes_and_their_digests_cover_them(self):
        reply = post(self.app, "/retrieve", question="old_greet", version="1.0",
                     collection="pkg")
        self.assertEqual(reply.code, 200, reply.body)
        document = reply.json()
        verify_run_result(reply.body, document, {"question": "old_greet", "version": "1.0",
                                                 "collection": "pkg"})
        old = next(item for item in document["evidence"] if item["url"].endswith("old_greet"))
        self.assertEqual(old["deprecated"][0]["version"], "1.0")
        claimed = old.pop("result_sha256")
        self.assertEqual(digests.read_result_sha256(old), claimed)
        body = call(self.app, "GET", f"/passages/{old['passage_id']}").json()
        self.assertEqual(body["deprecated"], old["deprecated"])

    def test_the_notes_are_bound_into_corpus_id(self):
        self.assertEqual(verify_snapshot_directory(self.out), [])
        tampered = tampered_copy(self, self.out, "UPDATE passage_notes SET version = '0.9'")
        self.assertTrue(any(problem.startswith("corpus_id") for problem in
                            verify_snapshot_directory(tampered)))

    def test_a_name_the_version_lacks_is_said_with_the_versions_that_have_it(self):
        found = self.search("old_greet", "2.0")
        self.assertTrue(all(hit["version"] == "2.0" for hit in found["hits"]))
        absent = found["not_in_version"]
        self.assertEqual((absent["name"], absent["versions"]), ("old_greet", ["1.0"]))
        self.assertEqual([(hit["url"], hit["version"]) for hit in absent["hits"]],
                         [(BASE.format("1.0") + "api.html#pkg.old_greet", "1.0")])
        for hit in absent["hits"]:
            verify_passage(dict(hit, corpus_id=found["corpus_id"]))
        self.assertEqual(self.search("pkg.new_greet", "1.0")["not_in_version"]["versions"],
                         ["2.0"])
        # Held by the version asked, or by none: nothing said.
        self.assertNotIn("not_in_version", self.search("greet", "2.0"))
        self.assertNotIn("not_in_version", self.search("nowhere_at_all", "2.0"))

    def test_search_says_not_in_version_exactly_when_lookup_does(self):
        # /search checks the asked version alone first and looks across versions only for a
        # name it does not document: the same answer as a lookup, for every kind of name (bare,
        # dotted, a dotted suffix, in both versions, in one, in none).
        names = ("greet", "pkg.greet", "old_greet", "pkg.old_greet", "new_greet",
                 "pkg.new_greet", "shout", "pkg.shout", "nowhere_at_all", "pkg")
        for name in names:
            for version in ("1.0", "2.0"):
                with self.subTest(name=name, version=version):
                    looked = post(self.app, "/lookup", name=name, version=version,
                                  collection="pkg").json()
                    searched = self.search(name, version)
                    if looked["status"] == "not_in_version":
                        self.assertEqual(searched["not_in_version"]["versions"],
                                         looked["not_in_version"]["versions"])
                    else:
                        self.assertNotIn("not_in_version", searched)
                    self.assertTrue(all(hit["version"] == version for hit in searched["hits"]))

    def test_search_for_a_name_says_what_the_version_documents_of_it_first(self):
        # What /lookup says first, /search says first too (before its hits, whatever they rank).
        for name, version, kinds in (("old_greet", "1.0", ["deprecated"]),
                                     ("pkg.greet", "2.0", ["changed"]),
                                     ("shout", "2.0", ["deprecated"])):
            with self.subTest(name=name):
                searched = self.search(name, version)
                looked = post(self.app, "/lookup", name=name, version=version,
                              collection="pkg").json()
                self.assertEqual([note["kind"] for note in searched["notes"]], kinds)
                self.assertEqual(searched["notes"], looked["notes"])
                self.assertEqual(list(searched).index("notes") + 1, list(searched).index("hits"))
        # A name without such notes (new in 2.0 is no warning), one the version lacks, and a
        # question that is no API name: no notes.
        for query, version in (("new_greet", "2.0"), ("old_greet", "2.0"),
                               ("how do I greet someone", "1.0")):
            self.assertNotIn("notes", self.search(query, version))

    def test_lookup_says_deprecation_first_and_absence_with_passages(self):
        deprecated = post(self.app, "/lookup", name="old_greet", version="1.0",
                          collection="pkg").json()
        self.assertEqual(list(deprecated)[:5],
                         ["corpus_id", "request", "status", "notes", "hits"])
        self.assertEqual((deprecated["status"], deprecated["notes"][0]["kind"],
                          deprecated["notes"][0]["version"]), ("deprecated", "deprecated", "1.0"))
        self.assertEqual(deprecated["notes"][0]["passage_id"],
                         deprecated["hits"][0]["passage_id"])
        changed = post(self.app, "/lookup", name="pkg.greet", version="2.0",
                       collection="pkg").json()
        self.assertEqual((changed["status"], [n["kind"] for n in changed["notes"]]),
                         ("found", ["changed"]))
        absent = post(self.app, "/lookup", name="old_greet", version="2.0",
                      collection="pkg").json()
        self.assertEqual((absent["status"], absent["hits"]), ("not_in_version", []))
        self.assertEqual(absent["not_in_version"]["versions"], ["1.0"])
        elsewhere = absent["not_in_version"]["hits"][0]
        self.assertEqual(elsewhere["version"], "1.0")
        self.assertIn("Say hello the old way.", elsewhere["text"])
        verify_passage(dict(elsewhere, corpus_id=absent["corpus_id"]))
        self.assertEqual(absent["text_bytes"], len(elsewhere["text"].encode()))
        nowhere = post(self.app, "/lookup", name="nowhere", version="2.0", collection="pkg")
        self.assertEqual(nowhere.json()["status"], "not_found")

    def test_lookup_refuses_what_it_cannot_answer(self):
        unknown = post(self.app, "/lookup", name="greet", version="3.0", collection="pkg")
        self.assertEqual((unknown.code, unknown.json()["error"]["code"]),
                         (404, "version_not_found"))
        self.assertEqual(unknown.json()["error"]["versions"], ["1.0", "2.0"])
        for body in ({"name": "two words"}, {"name": "greet", "extra": 1},
                     {"name": "greet", "limit": 0}):
            refused = post(self.app, "/lookup", version="1.0", collection="pkg", **body)
            self.assertEqual((refused.code, refused.json()["error"]["code"]),
                             (422, "invalid_request"), body)
        # /search's token budget is no field of a lookup's (its texts are bounded in bytes).
        refused = post(self.app, "/lookup", name="greet", version="1.0", collection="pkg",
                       max_tokens=100)
        self.assertEqual((refused.code, [(issue["path"], issue["type"]) for issue in
                                         refused.json()["error"]["issues"]]),
                         (422, [(["body", "max_tokens"], "extra_forbidden")]))

    def test_the_openapi_document_describes_lookup(self):
        document = call(self.app, "GET", "/openapi.json").json()
        self.assertIn("/lookup", document["paths"])
        schema = document["components"]["schemas"]["LookupResponse"]
        self.assertEqual(schema["properties"]["status"]["enum"],
                         ["found", "deprecated", "not_in_version", "not_found"])


if __name__ == "__main__":
    unittest.main()
