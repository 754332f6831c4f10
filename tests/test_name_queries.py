"""A question that is an API name as a whole, or mentions a dotted one: the unit documenting
that name ranks first.

One Sphinx site, written here: its API page documents `pkg.Engine.flush` in one short sentence,
and a guide says "flush" in every paragraph, so the ranking alone puts the guide's sections first.
Asked as a name (`pkg.Engine.flush`, or bare `flush`), /search and /retrieve's first search give
the method's unit first and say the name they read (`searched.name`, the trace's `name`); a
question that is no name and mentions none, and a raw search, rank as before; a question that
mentions a dotted name in its prose (not in a quoted span, the asker's data) gives that name's
unit first too. Everything through the WSGI app in process (wsgiref.validate), but RuleTest,
which asks the question-terms rule itself what its first search is: the name it reads, and of
a question longer than the query's sixteen places, which of its words take them.
"""

import io
import json
import os
import unittest

from retrieval.core.rules import QUESTION_TERMS, Rule
from retrieval.ingest.builder import Progress, SourceTree, build_snapshot, default_policy
from retrieval.wsgi import create_app
from tests.support import call, class_temporary_directory, quiet_settings
from tests.test_html_ingest import write_tree
from tests.test_sphinx_build import obj, page, section

TIER = "inprocess"

BASE = "https://docs.example.org/pkg/1.0/"
FLUSH = BASE + "api.html#pkg.Engine.flush"
API_RST = """\
API
===

.. module:: pkg

.. class:: Engine()

   A database engine.

   .. method:: flush()

      Write pending rows.
"""
API_HTML = page(section("module-pkg", 1, "API", obj(
    "class", [("pkg.Engine", "pkg.", "Engine", "")], "<p>A database engine.</p>" + obj(
        "method", [("pkg.Engine.flush", "", "flush", "")], "<p>Write pending rows.</p>"))))
# Sections that say flush more often than the method's one line does.
TOPICS = range(6)
GUIDE_RST = "Guide\n=====\n\n" + "".join(
    f"\nFlushing {n}\n----------\n\nFlush the rows, then flush again: a flush of topic {n} "
    "flushes what the last flush left.\n" for n in TOPICS)
GUIDE_HTML = page(section("guide", 1, "Guide", "".join(
    section(f"flushing-{n}", 2, f"Flushing {n}",
            f"<p>Flush the rows, then flush again: a flush of topic {n} flushes what the last "
            "flush left.</p>") for n in TOPICS)))


def post(app, path, **body):
    return call(app, "POST", path, json.dumps(body).encode("utf-8"))


class NameFirstTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        root = class_temporary_directory(cls)
        site = os.path.join(root, "site")
        write_tree(site, {"index.html": page(section("index", 1, "Index", "<p>pkg</p>")),
                          "_sources/index.rst.txt": "Index\n=====\n\npkg\n",
                          "api.html": API_HTML, "_sources/api.rst.txt": API_RST,
                          "guide.html": GUIDE_HTML, "_sources/guide.rst.txt": GUIDE_RST})
        out = os.path.join(root, "snapshot")
        build_snapshot([SourceTree("1.0", site, BASE, "pkg")], out, default_policy("fitted"),
                       Progress(io.StringIO()))
        cls.app = create_app(out, settings=quiet_settings())

    @classmethod
    def tearDownClass(cls):
        cls.app.close()

    def search(self, query, analysis="question"):
        reply = post(self.app, "/search", query=query, version="1.0", collection="pkg",
                     limit=10, analysis=analysis)
        self.assertEqual(reply.code, 200, reply.body)
        return reply.json()

    def urls(self, found):
        return [hit["url"] for hit in found["hits"]]

    def test_the_ranking_alone_puts_the_method_below_the_guide(self):
        # What the name changes: a raw search of the same word ranks by its words alone.
        urls = self.urls(self.search("flush", analysis="raw"))
        self.assertIn(FLUSH, urls)
        self.assertNotEqual(urls[0], FLUSH)

    def test_a_dotted_or_bare_name_gives_its_unit_first(self):
        for name in ("pkg.Engine.flush", "Engine.flush", "flush", " flush "):
            with self.subTest(name):
                found = self.search(name)
                self.assertEqual(self.urls(found)[0], FLUSH)
                self.assertEqual(found["searched"]["name"], name.strip())

    def test_the_others_keep_the_rankings_order(self):
        ranked = self.urls(self.search("flush", analysis="raw"))
        named = self.urls(self.search("flush"))
        self.assertEqual(named, [FLUSH] + [url for url in ranked if url != FLUSH])

    def test_a_question_that_is_no_name_ranks_as_before(self):
        found = self.search("flush?")
        self.assertNotIn("name", found["searched"])
        self.assertEqual(self.urls(found), self.urls(self.search("flush", analysis="raw")))

    def test_a_name_nothing_documents_changes_nothing(self):
        found = self.search("flushing")
        self.assertEqual(found["searched"]["name"], "flushing")
        self.assertNotIn(FLUSH, self.urls(found)[:1])

    def test_a_dotted_name_the_question_mentions_gives_its_unit_first(self):
        question = "when should I call Engine.flush on the rows of topic 3?"
        found = self.search(question)
        self.assertEqual(found["searched"]["name"], "Engine.flush")
        self.assertEqual(self.urls(found)[0], FLUSH)
        # The same words without the name: the ranking alone puts the guide first.
        alone = self.search(found["searched"]["query"])
        self.assertNotIn("name", alone["searched"])
        self.assertNotEqual(self.urls(alone)[0], FLUSH)
        # Quoted, the name is the asker's data: no name is read.
        self.assertNotIn("name", self.search(
            "when should I call `Engine.flush` on the rows of topic 3?")["searched"])

    def test_retrieve_first_search_carries_the_name(self):
        reply = post(self.app, "/retrieve", question="pkg.Engine.flush", version="1.0",
                     collection="pkg")
        self.assertEqual(reply.code, 200, reply.body)
        first = next(step for step in reply.json()["trace"]
                     if step["action"]["tool"] == "search")
        self.assertEqual(first["action"]["arguments"]["name"], "pkg.Engine.flush")
        self.assertEqual(first["result"]["results"][0]["url"], FLUSH)


class RuleTest(unittest.TestCase):

    RULE = Rule("fallback", (), None, None, None, 1, kind=QUESTION_TERMS)

    def test_a_whole_name_or_the_first_dotted_name_mentioned(self):
        self.assertEqual(self.RULE.for_question("pytest.approx").question_name,
                         "pytest.approx")
        self.assertEqual(self.RULE.for_question("pytest.approx").first_search("1").name,
                         "pytest.approx")
        self.assertEqual(self.RULE.for_question(
            "how do I use pytest.approx, or math.isclose?").question_name, "pytest.approx")
        for question in ("approx()", "a.b.", "", "how do I use approx, e.g. twice?",
                         "compare `df.col` to 'file.txt'", "see https://docs.example.org/x",
                         "mail me at me@example.org"):
            with self.subTest(question):
                self.assertIsNone(self.RULE.for_question(question).question_name)

    def test_a_long_questions_places_go_to_words_a_search_can_match(self):
        # 19 usable words: one ubiquitous, four of the asker's own (no unit holds them), 14
        # held; the 16 places go to the held ones, the others asked only until they are filled.
        own = [f"own{n}" for n in range(4)]
        held = [f"w{n}" for n in range(14)]
        question = " ".join(["django", *own, *held])
        asked = []

        def holds(word):
            asked.append(word)
            return not word.startswith("own")
        rule = self.RULE.for_question(question, frozenset({"django"}), holds=holds)
        self.assertEqual(rule.first_query, " ".join(held))
        self.assertEqual(asked, own + held)
        # Without an index to ask, the ubiquitous word still takes no place.
        self.assertEqual(self.RULE.for_question(question, frozenset({"django"})).first_query,
                         " ".join((own + held)[:16]))
        # Twenty held words: the index is asked until sixteen are found.
        asked.clear()
        many = [f"x{n}" for n in range(20)]
        self.assertEqual(self.RULE.for_question(" ".join(many), holds=holds).first_query,
                         " ".join(many[:16]))
        self.assertEqual(asked, many[:16])
        # At most sixteen usable words: the query is the question's, nothing is asked.
        asked.clear()
        self.assertEqual(self.RULE.for_question("django own1 w1", frozenset({"django"}),
                                                holds=holds).first_query, "own1 w1")
        self.assertEqual(asked, [])

    def test_a_fixed_rule_reads_no_name(self):
        fixed = Rule("fixed", ("x",), "x", None, None, 1)
        self.assertIsNone(fixed.for_question("pytest.approx").first_search("1").name)
