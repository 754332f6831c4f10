"""Citation look-up and content-addressed caching of /passages and /corpus."""

import hashlib
import json
import unittest

from retrieval.core.snapshot import default_snapshot_path, load_snapshot
from retrieval.wsgi import create_app
from tests.support import call, quiet_settings

TIER = "inprocess"


class PassageLookupTest(unittest.TestCase):
    def setUp(self):
        self.app = create_app(settings=quiet_settings())
        self.addCleanup(self.app.close)
        self.passage = load_snapshot(default_snapshot_path()).passages[1]

    def test_returns_the_passage_with_provenance_and_digests(self):
        reply = call(self.app, "GET", f"/passages/{self.passage.passage_id}")
        self.assertEqual(reply.code, 200)
        body = reply.json()
        self.assertEqual(body["text"], self.passage.text)
        self.assertEqual((body["version"], body["start_line"], body["end_line"]), ("3.12", 1, 1))
        self.assertEqual(body["url"], self.passage.url)
        self.assertEqual(body["text_sha256"], hashlib.sha256(body["text"].encode()).hexdigest())
        self.assertEqual(body["corpus_id"], self.app.corpus_id)

    def test_unknown_or_malformed_ids_are_passage_not_found(self):
        for passage_id in ("0" * 64, "abc", self.passage.passage_id.upper(), "", "x" * 200,
                           self.passage.passage_id + "/extra"):
            with self.subTest(passage_id=passage_id[:20]):
                reply = call(self.app, "GET", f"/passages/{passage_id}")
                self.assertEqual(reply.code, 404)
                self.assertEqual(reply.json()["error"]["code"], "passage_not_found")
                self.assertNotIn("ETag", reply.headers)
        self.assertEqual(call(self.app, "POST", f"/passages/{self.passage.passage_id}",
                              b"{}").code, 405)

    def test_etag_is_the_body_digest_and_passages_are_immutable(self):
        reply = call(self.app, "GET", f"/passages/{self.passage.passage_id}")
        digest = hashlib.sha256(reply.body).hexdigest()
        self.assertEqual(reply.headers["ETag"], f'"{digest}"')
        self.assertEqual(reply.headers["Cache-Control"], "public, max-age=31536000, immutable")
        corpus = call(self.app, "GET", "/corpus")
        self.assertEqual(corpus.headers["ETag"], f'"{hashlib.sha256(corpus.body).hexdigest()}"')
        self.assertEqual(corpus.headers["Cache-Control"], "no-cache")
        self.assertNotIn("ETag", call(self.app, "GET", "/health").headers)

    def test_if_none_match_answers_304(self):
        for path in (f"/passages/{self.passage.passage_id}", "/corpus"):
            etag = call(self.app, "GET", path).headers["ETag"]
            for header in (etag, "W/" + etag, f'"other", {etag}', "*"):
                with self.subTest(path=path, header=header):
                    reply = call(self.app, "GET", path, environ={"HTTP_IF_NONE_MATCH": header})
                    self.assertEqual((reply.code, reply.body), (304, b""))
                    self.assertEqual(reply.headers["ETag"], etag)
            stale = call(self.app, "GET", path, environ={"HTTP_IF_NONE_MATCH": '"stale"'})
            self.assertEqual(stale.code, 200)
            head = call(self.app, "HEAD", path)
            self.assertEqual((head.code, head.body, head.headers["ETag"]), (200, b"", etag))

    def test_cited_evidence_resolves(self):
        body = json.dumps({"question": "Will write_text replace the contents of an existing file?",
                           "version": "3.12"}).encode()
        for item in json.loads(call(self.app, "POST", "/retrieve", body).body)["evidence"]:
            passage = call(self.app, "GET", f"/passages/{item['passage_id']}").json()
            self.assertEqual((passage["text"], passage["text_sha256"], passage["url"]),
                             (item["text"], item["text_sha256"], item["url"]))


if __name__ == "__main__":
    unittest.main()
