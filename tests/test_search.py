"""One ranked search (retrieval/http/operations/search.py, POST /search): validation as strict as
/retrieve's, an exact byte budget over a prefix of the ranking, and the search memo shared with
/retrieve."""

import json
import unittest

from retrieval.core.service import RetrievalService
from retrieval.core.snapshot import default_snapshot_path
from retrieval.http.errors import InvalidRequest
from retrieval.http.operations.search import parse_search_request, run_search
from tests.schema import errors as schema_errors
from tests.support import call
from tests.test_collections import serve_two_collections_with_keys

TIER = "inprocess"

QUERY = {"query": "write_text file", "version": "3.12"}


class ParseTest(unittest.TestCase):
    def issues(self, document):
        with self.assertRaises(InvalidRequest) as refused:
            parse_search_request(document, 4096)
        return [(issue["path"][-1], issue["type"]) for issue in refused.exception.issues]

    def test_defaults(self):
        request = parse_search_request(dict(QUERY), 4096)
        self.assertEqual(request.normalized(), {**QUERY, "collection": "default", "limit": 5,
                                                "max_text_bytes": 4096, "analysis": "question"})

    def test_nothing_is_coerced_or_dropped(self):
        self.assertEqual(self.issues(dict(QUERY, limit=0)), [("limit", "greater_than_equal")])
        self.assertEqual(self.issues(dict(QUERY, limit=21)), [("limit", "less_than_equal")])
        self.assertEqual(self.issues(dict(QUERY, limit="5")), [("limit", "int_type")])
        self.assertEqual(self.issues(dict(QUERY, limit=5.0)), [("limit", "int_type")])
        self.assertEqual(self.issues(dict(QUERY, max_text_bytes=4097)),
                         [("max_text_bytes", "less_than_equal")])
        self.assertEqual(self.issues(dict(QUERY, k=3)), [("k", "extra_forbidden")])
        self.assertEqual(self.issues({"version": "3.x"}),
                         [("query", "missing"), ("version", "string_pattern_mismatch")])
        self.assertEqual(self.issues(dict(QUERY, analysis="words")),
                         [("analysis", "string_pattern_mismatch")])
        self.assertEqual(self.issues(dict(QUERY, analysis=None)), [("analysis", "string_type")])


class RunTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.service = RetrievalService.from_path(default_snapshot_path())
        cls.addClassCleanup(cls.service.close)

    def run_with(self, **fields):
        # One term many passages share, so the ranking has several hits.
        document = dict(QUERY, query="file", **fields)
        return run_search(self.service, parse_search_request(document, 1 << 20))

    def test_texts_are_a_prefix_of_the_ranking_within_the_budget(self):
        whole = self.run_with(limit=20)["hits"]
        self.assertGreater(len(whole), 1)
        sizes = [hit["byte_count"] for hit in whole]
        for budget in (0, sizes[0] - 1, sizes[0], sizes[0] + sizes[1] - 1,
                       sizes[0] + sizes[1], sum(sizes)):
            with self.subTest(budget=budget):
                found = self.run_with(limit=20, max_text_bytes=budget)
                with_text = [("text" in hit) for hit in found["hits"]]
                fitting = 0
                while fitting < len(sizes) and sum(sizes[:fitting + 1]) <= budget:
                    fitting += 1
                self.assertEqual(with_text, [True] * fitting + [False] * (len(sizes) - fitting))
                self.assertEqual(found["text_bytes"], sum(sizes[:fitting]))
                self.assertLessEqual(found["text_bytes"], budget)

    def test_limit_caps_the_hits(self):
        self.assertEqual(len(self.run_with(limit=1)["hits"]), 1)

    def test_the_search_is_memoized_with_retrieves(self):
        self.run_with()
        hits = self.service.memo.stats().hits
        self.run_with()
        self.assertGreater(self.service.memo.stats().hits, hits)


if __name__ == "__main__":
    unittest.main()


class SearchRouteTest(unittest.TestCase):
    """POST /search in process: the same operation, its refusals, its keys and its document."""

    @classmethod
    def setUpClass(cls):
        serve_two_collections_with_keys(cls)
        cls.document = call(cls.app, "GET", "/openapi.json").json()

    def post(self, body, key, raw=None):
        return call(self.app, "POST", "/search", raw or json.dumps(body).encode(),
                    environ={"HTTP_AUTHORIZATION": f"Bearer {key}"})

    def test_the_route_answers_what_run_search_does(self):
        reply = self.post(dict(QUERY, max_text_bytes=80), self.public)
        self.assertEqual(reply.code, 200, reply.body)
        body = reply.json()
        self.assertEqual(body["request"], {**QUERY, "collection": "default", "limit": 5,
                                           "max_text_bytes": 80, "analysis": "question"})
        self.assertLessEqual(body["text_bytes"], 80)
        self.assertEqual(body["text_bytes"], sum(len(hit["text"].encode("utf-8"))
                                                 for hit in body["hits"] if "text" in hit))
        self.assertTrue(body["hits"])
        response = self.document["paths"]["/search"]["post"]["responses"]["200"]
        self.assertEqual(schema_errors(response["content"]["application/json"]["schema"], body,
                                       self.document), [])

    def test_mistakes_are_refused_as_on_retrieve(self):
        self.assertEqual(self.post(None, self.public, raw=b'{"query": ').json()["error"]["code"],
                         "invalid_json")
        refused = self.post(dict(QUERY, k=3), self.public)
        self.assertEqual((refused.code, refused.json()["error"]["issues"][0]["type"]),
                         (422, "extra_forbidden"))
        self.assertEqual(call(self.app, "GET", "/search").code, 405)
        self.assertEqual(call(self.app, "POST", "/search", b"{}").code, 401)

    def test_a_hidden_collection_answers_like_a_missing_one(self):
        hidden = self.post(dict(QUERY, collection="internal"), self.public)
        missing = self.post(dict(QUERY, collection="nope"), self.public)
        self.assertEqual(hidden.code, 404)
        self.assertEqual((hidden.status, hidden.headers, hidden.body),
                         (missing.status, missing.headers, missing.body))
        self.assertEqual(self.post(dict(QUERY, collection="internal"), self.staff).code, 200)
