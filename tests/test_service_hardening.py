"""The app in process, against what an attack review found (issue 27): a rebound Host name, a
snapshot rewritten in place, a NUL in a search, and what one key could learn of another's."""

import json
import os
import shutil
import unittest

from retrieval.settings import SettingsError
from retrieval.wsgi import create_app
from tests.support import call, class_temporary_directory, quiet_settings
from tests.support.prometheus import parse_exposition
from tests.test_collections import serve_two_collections_with_keys
from tests.test_served_snapshot import QUESTION, build_verified_and_other, passage_ids

TIER = "inprocess"

SEARCH = {"query": "plain paragraph", "version": "3.11"}
REBOUND = "attacker.example:8765"


def error_code(reply) -> str:
    return reply.json()["error"]["code"]


class HostCheckTest(unittest.TestCase):
    """A keyless service answers only the names it is served under (DNS rebinding)."""

    def app(self, **settings):
        app = create_app(settings=quiet_settings(**settings))
        self.addCleanup(app.close)
        return app

    def test_a_rebound_name_gets_a_json_refusal_on_every_route_and_page(self):
        app = self.app(cors_origins="http://attacker.example:8765")
        rebound = {"HTTP_HOST": REBOUND, "HTTP_ORIGIN": "http://" + REBOUND}
        body = json.dumps({"query": "logging", "version": "3.12"}).encode()
        for method, path in (("POST", "/search"), ("POST", "/retrieve"), ("GET", "/corpus"),
                             ("GET", "/"), ("GET", "/inspector.js"), ("OPTIONS", "/retrieve"),
                             ("GET", "/health"), ("GET", "/nowhere")):
            with self.subTest(method=method, path=path):
                reply = call(app, method, path, body if method == "POST" else b"",
                             environ=rebound)
                self.assertEqual((reply.code, reply.headers["Content-Type"]),
                                 (421, "application/json"))
                self.assertEqual(error_code(reply), "host_not_allowed")

    def test_loopback_names_with_any_port_are_answered(self):
        app = self.app()
        for host in ("localhost", "localhost:8765", "127.0.0.1:8765", "127.0.0.2", "[::1]:80",
                     "[::1]", "LOCALHOST:1"):
            with self.subTest(host=host):
                self.assertEqual(call(app, "GET", "/corpus", environ={"HTTP_HOST": host}).code,
                                 200)
        for host in ("localhost.attacker.example", "127.0.0.1.attacker.example", "10.0.0.1",
                     "attacker.example:80", "localhost:80:80"):
            with self.subTest(host=host):
                self.assertEqual(call(app, "GET", "/corpus", environ={"HTTP_HOST": host}).code,
                                 421)

    def test_the_setting_adds_names_and_any_turns_the_check_off(self):
        app = self.app(allowed_hosts="docs.internal, 10.0.0.5")
        for host, code in (("docs.internal:8765", 200), ("DOCS.internal", 200),
                           ("10.0.0.5:80", 200), ("other.internal", 421)):
            with self.subTest(host=host):
                self.assertEqual(call(app, "GET", "/corpus", environ={"HTTP_HOST": host}).code,
                                 code)
        self.assertEqual(call(self.app(allowed_hosts="*"), "GET", "/corpus",
                              environ={"HTTP_HOST": REBOUND}).code, 200)
        for wrong in ("http://docs.internal", "docs.internal:80", "a b"):
            with self.subTest(wrong=wrong), self.assertRaises(SettingsError):
                quiet_settings(allowed_hosts=wrong)

    def test_with_keys_the_key_is_the_check(self):
        serve_two_collections_with_keys(self)
        reply = call(self.app, "GET", "/corpus", environ={
            "HTTP_HOST": REBOUND, "HTTP_AUTHORIZATION": f"Bearer {self.public}"})
        self.assertEqual(reply.code, 200)


class RewrittenInPlaceTest(unittest.TestCase):
    """`cp` over the served passages.sqlite: no route answers under the verified identity."""

    @classmethod
    def setUpClass(cls):
        build_verified_and_other(cls)

    def test_every_route_refuses_once_the_file_is_rewritten(self):
        served = os.path.join(class_temporary_directory(self), "served")
        shutil.copytree(self.verified, served)
        app = create_app(served, settings=quiet_settings(threads=4, cache_entries=0))
        self.addCleanup(app.close)
        self.assertEqual(call(app, "POST", "/search", json.dumps(SEARCH).encode()).code, 200)
        # The very file, new bytes (what `cp other/passages.sqlite served/` does).
        shutil.copyfile(os.path.join(self.other, "passages.sqlite"),
                        os.path.join(served, "passages.sqlite"))
        requests = [("POST", "/retrieve", json.dumps(QUESTION).encode()),
                    ("POST", "/search", json.dumps(SEARCH).encode()),
                    ("GET", "/corpus", b""), ("GET", "/health", b"")]
        requests += [("GET", "/passages/" + passage_id, b"")
                     for passage_id in passage_ids(self.other) + passage_ids(self.verified)]
        for method, path, body in requests:
            with self.subTest(path=path):
                reply = call(app, method, path, body)
                self.assertEqual(reply.code, 503, reply.body)
                document = reply.json()
                self.assertEqual(document.get("status") or error_code(reply), "not_ready")


class SearchMistakesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.app = create_app(settings=quiet_settings())
        cls.addClassCleanup(cls.app.close)

    def test_a_nul_in_a_query_is_the_callers_mistake_not_a_retryable_failure(self):
        for query in ("a\x00b", "\x00", "logging \x00"):
            with self.subTest(query=query):
                reply = call(self.app, "POST", "/search",
                             json.dumps({"query": query, "version": "3.12"}).encode())
                self.assertEqual(reply.code, 422, reply.body)
                issue = reply.json()["error"]["issues"][0]
                self.assertEqual((issue["path"], issue["type"]),
                                 (["body", "query"], "null_character"))

    def test_a_query_string_is_refused_in_the_routes_own_name(self):
        for path in ("/search", "/retrieve"):
            with self.subTest(path=path):
                reply = call(self.app, "POST", path, b"{}", query="x")
                self.assertEqual((reply.code, error_code(reply)), (400, "query_not_allowed"))
                self.assertTrue(reply.json()["error"]["message"].startswith(
                    f"{path} takes no query string"))


class OneKeyLearnsNothingOfAnotherTest(unittest.TestCase):
    """With keys, nothing one key sees depends on what another asked."""

    def setUp(self):
        serve_two_collections_with_keys(self)

    def post(self, body: bytes, key):
        return call(self.app, "POST", "/retrieve", body,
                    environ={"HTTP_AUTHORIZATION": f"Bearer {key}"})

    def memo_lookups(self) -> dict:
        reply = call(self.app, "GET", "/metrics",
                     environ={"HTTP_AUTHORIZATION": f"Bearer {self.staff}"})
        family = parse_exposition(reply.body.decode())["retrieval_memo_lookups_total"]
        return family.series()

    def test_metrics_need_a_key(self):
        self.assertEqual(call(self.app, "GET", "/metrics").code, 401)
        self.assertEqual(call(self.app, "GET", "/metrics",
                              environ={"HTTP_AUTHORIZATION": f"Bearer {self.public}"}).code, 200)

    def test_a_hidden_collections_memoized_body_is_refused_before_any_memo(self):
        body = json.dumps({"question": "deploy", "version": "3.12",
                           "collection": "internal"}).encode()
        never_asked = self.post(body, self.public)
        self.assertEqual(self.post(body, self.staff).code, 200)  # memoized now
        before = self.memo_lookups()
        refused = self.post(body, self.public)
        self.assertEqual((refused.status, refused.headers, refused.body),
                         (never_asked.status, never_asked.headers, never_asked.body))
        self.assertEqual(self.memo_lookups(), before)


if __name__ == "__main__":
    unittest.main()
