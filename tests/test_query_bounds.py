"""A cheap /search cannot cost the whole deadline: repeated terms are searched once, and a query
of more distinct terms than MAX_QUERY_TERMS is refused before any search.

No wall clock: what the index was asked shows in the scores (bm25 sums over a query's phrases).
"""

import json
import tempfile
import unittest

from retrieval.core.query import MAX_QUERY_TERMS, bounded_query, distinct_terms
from retrieval.testing import CountingToolFactory
from retrieval.wsgi import create_app
from tests.support import call, quiet_settings, write_snapshot
from tests.test_deadline import PASSAGES, POLICY, passage

TIER = "inprocess"

TERM = "a"  # in every passage: the issue's 500 copies fit in a query


def every_passage_has_the_term() -> dict:
    return {"passages": [passage(i, f"{TERM} t passage number {i}") for i in range(PASSAGES)],
            "policy": POLICY}


class PureTest(unittest.TestCase):
    def test_terms_are_kept_once_in_first_seen_order(self):
        self.assertEqual(distinct_terms(" b  a b\ta a "), ["b", "a"])
        self.assertEqual(bounded_query("x* x* y"), "x* y")
        self.assertEqual(bounded_query("   "), "")


class CheapQueryTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tmp = tempfile.TemporaryDirectory()
        cls.addClassCleanup(tmp.cleanup)
        cls.tools = CountingToolFactory()
        cls.app = create_app(snapshot_path=write_snapshot(tmp.name, every_passage_has_the_term()),
                             tool_factory=cls.tools, settings=quiet_settings(cache_entries=0))
        cls.addClassCleanup(cls.app.close)

    def search(self, query, analysis="raw"):
        # Raw: the words as sent reach the index (a question's analysis keeps at most 16).
        body = json.dumps({"query": query, "version": "3.12", "limit": 20,
                           "analysis": analysis}).encode()
        return call(self.app, "POST", "/search", body)

    def ranking(self, query) -> list:
        reply = self.search(query)
        self.assertEqual(reply.code, 200, reply.body)
        self.assertEqual(reply.json()["request"]["query"], query)  # echoed as sent
        return [(hit["passage_id"], hit["score"]) for hit in reply.json()["hits"]]

    def test_five_hundred_copies_of_a_term_are_searched_as_one(self):
        # Searched copy by copy, the 500 phrases cost 170 times the one term's time on a
        # 2,000-passage snapshot (most of it inside FTS5, where the deadline's progress handler
        # is not called), and bm25 summed the term 500 times over: the score tells which ran.
        single = self.ranking(TERM)
        self.assertEqual(len(single), 20)
        self.assertEqual(self.ranking(" ".join([TERM] * 500)), single)

    def test_a_term_spelled_with_an_operator_is_one_term_too(self):
        self.assertEqual(self.ranking(" ".join([TERM + "*"] * 333)), self.ranking(TERM + "*"))

    def test_more_distinct_terms_than_the_cap_are_refused_before_any_search(self):
        words = [f"w{i}" for i in range(MAX_QUERY_TERMS + 1)]
        self.assertEqual(self.search(" ".join(words[:-1])).code, 200)
        created = len(self.tools.created)
        refused = self.search(" ".join(words))
        self.assertEqual(refused.code, 422, refused.body)
        issue = refused.json()["error"]["issues"][0]
        self.assertEqual((issue["path"], issue["type"], issue["limit"]),
                         (["body", "query"], "too_many_terms", MAX_QUERY_TERMS))
        self.assertEqual(len(self.tools.created), created)  # no tool instance, no search
        # Repeats do not count against the cap.
        self.assertEqual(self.search(" ".join(words[:-1] * 3)).code, 200)
        # Read as a question, the query keeps at most 16 of its words: nothing to refuse.
        asked = self.search(" ".join(words), analysis="question")
        self.assertEqual(asked.code, 200, asked.body)
        self.assertEqual(len(asked.json()["searched"]["query"].split()), 16)


if __name__ == "__main__":
    unittest.main()
