"""Permission-aware search: collections ranked on their own, hidden exactly like missing ones."""

import json
import os
import unittest
from unittest import mock

from retrieval.core import database
from retrieval.http.auth import add_key
from retrieval.scenarios import SCENARIOS
from retrieval.wsgi import create_app
from tests.support import (
    ask,
    call,
    class_temporary_directory,
    fixture_document,
    one_line_passage,
    quiet_settings,
    write_snapshot,
)

TIER = "inprocess"

# Runbooks that share the fixture's terms ("text", "overwritten"): if BM25 statistics leaked
# between collections, these would move the default collection's scores.
RUNBOOK_TEXTS = (
    "Nightly backups copy every text file; an overwritten text file is restored from backup.",
    "To restore overwritten text, open the backup console and pick the last snapshot.",
    "Text exports are overwritten each night, so copy them elsewhere first.",
    "The text of incident notes is overwritten only by the on-call lead.",
)


def runbook(index, text):
    """Return one passage of the internal collection (digests are filled by sealing)."""
    return one_line_passage(f"runbook-{index}", f"https://runbooks.example/{index}", text,
                            collection="internal")


def snapshot_with(directory, name, default=True, runbooks=RUNBOOK_TEXTS):
    """Write a snapshot of the fixture's passages (or none) plus these runbooks; return its path."""
    document = fixture_document()
    document["passages"] = (document["passages"] if default else []) + [
        runbook(i, text) for i, text in enumerate(runbooks)]
    os.makedirs(os.path.join(directory, name))
    return write_snapshot(os.path.join(directory, name), document)


class CollectionsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = class_temporary_directory(cls)
        cls.both = cls.app_for(snapshot_with(cls._tmp, "both"))

    @classmethod
    def app_for(cls, path, **settings):
        app = create_app(snapshot_path=path, settings=quiet_settings(**settings))
        cls.addClassCleanup(app.close)
        return app

    def post(self, app, body, key=None):
        environ = {"HTTP_AUTHORIZATION": f"Bearer {key}"} if key else {}
        return call(app, "POST", "/retrieve", json.dumps(body).encode(), environ=environ)

    def test_default_collection_bytes_do_not_depend_on_other_collections(self):
        fixture_only = self.app_for(None)
        more = self.app_for(snapshot_with(self._tmp, "more", runbooks=RUNBOOK_TEXTS * 3))
        fewer = self.app_for(snapshot_with(self._tmp, "fewer", runbooks=RUNBOOK_TEXTS[:1]))
        self.assertEqual(len({app.corpus_id for app in (fixture_only, self.both, more, fewer)}), 4)
        for scenario in SCENARIOS:
            with self.subTest(scenario.name):
                bodies = {call(app, "POST", "/retrieve", scenario.body()).body
                          for app in (fixture_only, self.both, more, fewer)}
                self.assertEqual(len(bodies), 1)

    def test_a_collection_is_ranked_as_if_it_were_alone(self):
        alone = self.app_for(snapshot_with(self._tmp, "alone", default=False))
        body = ask(collection="internal")
        reply = self.post(self.both, body)
        self.assertEqual(reply.code, 200)
        self.assertEqual(reply.body, self.post(alone, body).body)
        result = reply.json()
        self.assertEqual(result["request"]["collection"], "internal")
        self.assertTrue(result["evidence"])
        self.assertTrue(all(e["source_id"].startswith("runbook-") for e in result["evidence"]))
        listed = {c["collection"]: c
                  for c in call(self.both, "GET", "/corpus").json()["collections"]}
        self.assertEqual(result["corpus_id"], listed["internal"]["corpus_id"])
        self.assertNotEqual(result["request_id"], self.post(self.both, ask()).json()["request_id"])
        # A snapshot of one collection serves it to requests that name none (issue 26).
        unnamed = self.post(alone, ask())
        self.assertEqual(unnamed.code, 200)
        self.assertEqual(unnamed.json()["request"]["collection"], "internal")
        self.assertEqual(unnamed.json()["request_id"], self.post(alone, body).json()["request_id"])

    def test_collection_names_are_validated(self):
        # A name as people write it (Internal) reads its collection (issue 45): see test_names.
        for value, issue in (("inter nal", "string_pattern_mismatch"), ("-internal",
                                                                       "string_pattern_mismatch"),
                             ("", "string_pattern_mismatch"),
                             ("x" * 65, "string_pattern_mismatch"), (["internal"], "string_type"),
                             (None, "string_type")):
            with self.subTest(value=value):
                reply = self.post(self.both, ask(collection=value))
                self.assertEqual(reply.code, 422)
                self.assertEqual([(i["path"], i["type"]) for i in reply.json()["error"]["issues"]],
                                 [(["body", "collection"], issue)])


def serve_two_collections_with_keys(cls):
    """Give a test class an app over "default" and "internal", and two keys: public reads
    "default" only, staff reads both (cls.app, cls.public, cls.staff)."""
    tmp = class_temporary_directory(cls)
    keys_file = os.path.join(tmp, "keys.json")
    cls.public = add_key(keys_file, "public", ["default"])
    cls.staff = add_key(keys_file, "staff", ["default", "internal"])
    cls.app = create_app(snapshot_path=snapshot_with(tmp, "both"),
                         settings=quiet_settings(keys_file=keys_file))
    cls.addClassCleanup(cls.app.close)


class HiddenCollectionsTest(unittest.TestCase):
    """With keys, a collection the key may not read is indistinguishable from a missing one."""

    @classmethod
    def setUpClass(cls):
        serve_two_collections_with_keys(cls)

    def get(self, path, key):
        return call(self.app, "GET", path, environ={"HTTP_AUTHORIZATION": f"Bearer {key}"})

    def post(self, body, key):
        return call(self.app, "POST", "/retrieve", json.dumps(body).encode(),
                    environ={"HTTP_AUTHORIZATION": f"Bearer {key}"})

    def assertSameAnswer(self, first, second):
        self.assertEqual((first.status, first.headers, first.body),
                         (second.status, second.headers, second.body))

    def test_hidden_and_missing_collections_get_identical_responses(self):
        hidden = self.post(ask(collection="internal"), self.public)
        missing = self.post(ask(collection="nope"), self.public)
        self.assertEqual(hidden.code, 404)
        self.assertEqual(hidden.json()["error"]["code"], "collection_not_found")
        self.assertSameAnswer(hidden, missing)
        self.assertSameAnswer(missing, self.post(ask(collection="nope"), self.staff))
        self.assertEqual(self.post(ask(collection="internal"), self.staff).code, 200)

    def test_a_memoized_answer_is_never_given_to_a_key_that_may_not_read_it(self):
        staff_view = self.post(ask(collection="internal"), self.staff)
        self.assertEqual(self.post(ask(collection="internal"), self.staff).body, staff_view.body)
        self.assertSameAnswer(self.post(ask(collection="internal"), self.public),
                              self.post(ask(collection="nope"), self.public))

    def test_corpus_lists_only_the_keys_collections(self):
        def names(key):
            return [c["collection"] for c in self.get("/corpus", key).json()["collections"]]

        self.assertEqual(names(self.public), ["default"])
        self.assertEqual(names(self.staff), ["default", "internal"])
        self.assertEqual(self.get("/corpus", self.public).headers["Cache-Control"],
                         "private, no-cache")

    def test_hidden_passages_look_missing(self):
        staff_view = self.post(ask(collection="internal"), self.staff).json()
        passage_id = staff_view["evidence"][0]["passage_id"]
        self.assertEqual(self.get(f"/passages/{passage_id}", self.staff).json()["collection"],
                         "internal")
        hidden = self.get(f"/passages/{passage_id}", self.public)
        self.assertEqual(hidden.code, 404)
        self.assertSameAnswer(hidden, self.get(f"/passages/{'0' * 64}", self.public))
        served = self.get(f"/passages/{passage_id}", self.staff)
        self.assertEqual(served.headers["Cache-Control"], "private, max-age=31536000, immutable")


    def test_hidden_and_missing_passages_cost_the_same_work(self):
        # Response time must not tell them apart: each reads, decodes and builds one row.
        passage_id = self.post(ask(collection="internal"), self.staff).json()[
            "evidence"][0]["passage_id"]
        built = {}
        for name, wanted in (("hidden", passage_id), ("missing", "0" * 64)):
            with mock.patch.object(database, "passage_from_row",
                                   wraps=database.passage_from_row) as build:
                self.assertEqual(self.get(f"/passages/{wanted}", self.public).code, 404)
            built[name] = build.call_count
        self.assertEqual(built, {"hidden": 1, "missing": 1})


if __name__ == "__main__":
    unittest.main()
