"""max_tokens, the budget in estimated tokens, through /retrieve and /search in process.

A token is ceil(bytes / 4) of a text's UTF-8 (retrieval/core/tokens.py). A request without
max_tokens must be the request it was before the field existed: same echo, same request_id, same
bytes (tests/test_golden.py pins those); one with it is echoed, reserved like source bytes, and
counted beside them.
"""

import json
import math
import unittest

from retrieval.core import digests
from retrieval.scenarios import QUESTION
from retrieval.wsgi import create_app
from tests.schema import errors as schema_errors
from tests.support import call, quiet_settings

TIER = "inprocess"

BASE = {"question": QUESTION, "version": "3.12"}


def tokens(byte_count: int) -> int:
    """The documented estimate, written out independently of the code under test."""
    return math.ceil(byte_count / 4)


class TokenBudgetTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.app = create_app(settings=quiet_settings(max_tokens_limit=5000))

    @classmethod
    def tearDownClass(cls):
        cls.app.close()

    def retrieve(self, **fields):
        reply = call(self.app, "POST", "/retrieve", json.dumps(dict(BASE, **fields)).encode())
        return reply, json.loads(reply.body)

    def test_a_request_without_max_tokens_mentions_no_tokens(self):
        reply, document = self.retrieve()
        self.assertEqual(reply.code, 200)
        self.assertNotIn(b"token", reply.body.replace(b"read_token", b""))
        self.assertEqual(list(document["request"]), ["question", "version", "collection",
                                                     "max_steps", "max_searches", "max_reads",
                                                     "max_source_bytes"])

    def test_tokens_are_echoed_reserved_and_counted_beside_the_bytes(self):
        plain = self.retrieve()[1]
        reply, document = self.retrieve(max_tokens=1000)
        self.assertEqual(reply.code, 200)
        self.assertEqual(document["request"], dict(plain["request"], max_tokens=1000))
        self.assertEqual(document["admission"]["limits"],
                         dict(plain["admission"]["limits"], max_tokens=1000))
        # Bound into the id: another request, another id, checkable as before.
        self.assertNotEqual(document["request_id"], plain["request_id"])
        self.assertEqual(document["request_id"],
                         digests.request_id(document["corpus_id"], document["request"]))
        # The same run, counted in tokens too.
        self.assertEqual((document["status"], document["reason"]),
                         (plain["status"], plain["reason"]))
        self.assertEqual(document["evidence"], plain["evidence"])
        reads = [item["byte_count"] for item in document["evidence"]]
        delivered = [len(item["text"].encode("utf-8")) for item in document["evidence"]]
        self.assertEqual(document["usage"], dict(
            plain["usage"], reserved_tokens=sum(map(tokens, reads)),
            delivered_tokens=sum(map(tokens, delivered))))
        reserved = [(entry["action"]["tool"], entry["reserved_tokens"])
                    for entry in document["trace"]]
        self.assertEqual(reserved, [("search", 0), ("read", tokens(reads[0])),
                                    ("search", 0), ("read", tokens(reads[1]))])

    def test_a_read_the_tokens_cannot_pay_for_is_denied_and_traced(self):
        plain = self.retrieve()[1]
        first = plain["evidence"][0]["byte_count"]
        # Enough bytes for everything, tokens for the first read and not one more.
        reply, document = self.retrieve(max_tokens=tokens(first))
        self.assertEqual(reply.code, 200)
        self.assertEqual((document["status"], document["reason"]), ("limited", "max_tokens"))
        self.assertEqual(len(document["evidence"]), 1)
        denied = document["trace"][-1]
        self.assertEqual((denied["decision"], denied["reason"], denied["invoked"]),
                         ("denied", "max_tokens", False))
        second = denied["action"]["arguments"]["handle"]["byte_count"]
        self.assertEqual((denied["preflight_source_bytes"], denied["preflight_tokens"]),
                         (second, tokens(second)))
        self.assertEqual(document["usage"]["reserved_tokens"], tokens(first))
        # The bytes would have paid for it: the denial is the tokens', not max_source_bytes'.
        self.assertLessEqual(first + second, document["request"]["max_source_bytes"])

    def test_zero_tokens_reads_nothing(self):
        document = self.retrieve(max_tokens=0)[1]
        self.assertEqual((document["status"], document["reason"], document["evidence"]),
                         ("limited", "max_tokens", []))

    def test_invalid_values_are_refused_with_a_located_issue(self):
        for value, issue in ((-1, {"type": "greater_than_equal", "limit": 0}),
                             (5001, {"type": "less_than_equal", "limit": 5000}),
                             (1.0, {"type": "int_type"}), (True, {"type": "int_type"}),
                             ("100", {"type": "int_type"}), (None, {"type": "int_type"})):
            for path, body in (("/retrieve", BASE),
                               ("/search", {"query": "write text", "version": "3.12"})):
                with self.subTest(value=value, path=path):
                    reply = call(self.app, "POST", path,
                                 json.dumps(dict(body, max_tokens=value)).encode())
                    self.assertEqual(reply.code, 422)
                    error = json.loads(reply.body)["error"]
                    self.assertEqual(error["code"], "invalid_request")
                    self.assertEqual([{k: v for k, v in i.items() if k != "message"}
                                      for i in error["issues"]],
                                     [{"path": ["body", "max_tokens"], **issue}])

    def test_search_texts_fit_the_tokens_and_the_reply_counts_them(self):
        body = {"query": "file text", "version": "3.12", "limit": 5}
        plain = call(self.app, "POST", "/search", json.dumps(body).encode()).json()
        self.assertNotIn("text_tokens", plain)
        self.assertNotIn("max_tokens", plain["request"])
        with_text = [hit for hit in plain["hits"] if "text" in hit]
        self.assertGreaterEqual(len(with_text), 2)
        budget = tokens(with_text[0]["byte_count"])  # the first text and no more
        found = call(self.app, "POST", "/search",
                     json.dumps(dict(body, max_tokens=budget)).encode()).json()
        self.assertEqual(found["request"]["max_tokens"], budget)
        self.assertEqual([hit.get("text") for hit in found["hits"]],
                         [with_text[0]["text"]] + [None] * (len(found["hits"]) - 1))
        self.assertEqual((found["text_bytes"], found["text_tokens"]),
                         (with_text[0]["byte_count"], budget))

    def test_responses_with_tokens_are_the_documented_shape(self):
        document = call(self.app, "GET", "/openapi.json").json()
        schemas = document["components"]["schemas"]
        self.assertEqual(schemas["RetrieveRequest"]["properties"]["max_tokens"]["maximum"], 5000)
        retrieve = document["paths"]["/retrieve"]["post"]["responses"]["200"]["content"][
            "application/json"]["schema"]
        search = document["paths"]["/search"]["post"]["responses"]["200"]["content"][
            "application/json"]["schema"]
        for max_tokens in (1000, 40, 0):
            with self.subTest(max_tokens=max_tokens):
                self.assertEqual(schema_errors(retrieve, self.retrieve(max_tokens=max_tokens)[1],
                                               document), [])
                found = call(self.app, "POST", "/search", json.dumps(
                    {"query": "file text", "version": "3.12", "max_tokens": max_tokens}).encode())
                self.assertEqual(schema_errors(search, found.json(), document), [])
        self.assertNotEqual(schema_errors(schemas["RetrieveRequest"],
                                          dict(BASE, max_tokens=5001), document), [])


if __name__ == "__main__":
    unittest.main()
