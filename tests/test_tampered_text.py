"""Text altered in a built snapshot after its build is never delivered as verified evidence."""

import json
import os
import subprocess
import sys
import unittest

from retrieval import client as rc
from retrieval.core import digests
from retrieval.testing import subprocess_env
from retrieval.wsgi import create_app
from tests.support import (
    ROOT,
    call,
    class_temporary_directory,
    post_json,
    quiet_settings,
    start_server,
    tampered_copy,
)
from tests.test_client import FakeServer, canned, run_ask

TIER = "server"

TEXT = "Shutil copies trees.\n\nThe rmtree function removes a directory tree.\n"
QUESTION = "How does rmtree remove a directory tree?"
TAMPER = "UPDATE passages SET text = text || ' TAMPERED' WHERE text LIKE '%rmtree%'"


def build_cli(directory: str) -> str:
    """Build a one-file snapshot with `python -m retrieval build`; return its directory."""
    source = os.path.join(directory, "src")
    os.makedirs(source)
    with open(os.path.join(source, "shutil.txt"), "w", encoding="utf-8") as handle:
        handle.write(TEXT)
    out = os.path.join(directory, "snapshot")
    subprocess.run([sys.executable, "-m", "retrieval", "build", "--source", f"3.11={source}",
                    "--base-url", "3.11=https://docs.example.org/3.11/", "--out", out],
                   check=True, capture_output=True, env=subprocess_env(), cwd=ROOT, timeout=120)
    return out


class TamperedTextTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.built = build_cli(class_temporary_directory(cls))
        cls.tampered = tampered_copy(cls, cls.built, TAMPER)

    def retrieve(self, snapshot):
        app = create_app(snapshot, settings=quiet_settings())
        self.addCleanup(app.close)
        return post_json(app, {"question": QUESTION, "version": "3.11"})

    def test_the_untouched_snapshot_delivers_the_passage(self):
        reply = self.retrieve(self.built)
        self.assertEqual(reply.code, 200)
        document = json.loads(reply.body)
        self.assertEqual(document["status"], "completed")
        (item,) = [e for e in document["evidence"] if "rmtree" in e["text"]]
        self.assertEqual(document["usage"]["delivered_source_bytes"],
                         sum(len(e["text"].encode()) for e in document["evidence"]))

    def test_retrieve_refuses_the_altered_text_and_charges_the_read(self):
        reply = self.retrieve(self.tampered)
        self.assertEqual(reply.code, 503)
        document = json.loads(reply.body)
        self.assertEqual((document["status"], document["reason"]), ("failed", "retrieval_failed"))
        self.assertNotIn(b"TAMPERED", reply.body)
        (failed,) = [entry for entry in document["trace"] if entry.get("status") == "failed"]
        self.assertEqual((failed["action"]["tool"], failed["reason"]),
                         ("read", "text_digest_mismatch"))
        self.assertNotIn("result", failed)
        # Charged (a step, a read, its reserved bytes), and no byte delivered for it.
        usage = failed["usage_after"]
        self.assertEqual(usage["reserved_source_bytes"],
                         failed["action"]["arguments"]["handle"]["byte_count"])
        self.assertEqual(usage["delivered_source_bytes"], 0)
        self.assertEqual(document["evidence"], [])

    def test_search_refuses_the_altered_text_and_says_why(self):
        app = create_app(self.tampered, settings=quiet_settings())
        self.addCleanup(app.close)
        reply = call(app, "POST", "/search",
                     json.dumps({"query": "rmtree", "version": "3.11"}).encode())
        self.assertEqual(reply.code, 503)
        self.assertNotIn(b"TAMPERED", reply.body)
        error = reply.json()["error"]
        self.assertEqual(error["code"], "search_failed")
        self.assertIn("does not match its digest", error["message"])

    def test_the_client_and_ask_refuse_it_over_a_real_socket(self):
        server = start_server(self, "--snapshot", self.tampered,
                              env=subprocess_env(RETRIEVAL_ACCESS_LOG="false"))
        with rc.RetrievalClient(server.base_url) as client:
            result = client.retrieve(QUESTION, "3.11")
        self.assertEqual(result.status, "failed")
        self.assertEqual(result.evidence, ())
        self.assertNotIn(b"TAMPERED", result.raw)
        done = run_ask(QUESTION, "--version", "3.11", "--url", server.base_url)
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertIn(b"text_digest_mismatch", done.stderr)
        self.assertIn(b"shutil.txt", done.stderr)

    def test_the_client_refuses_evidence_whose_text_does_not_match_its_digests(self):
        # A server that does not check (an older one, or a forger): every digest made over the
        # altered text, so only the text's own byte_count and text_sha256 tell.
        document = json.loads(self.retrieve(self.built).body)
        number = next(n for n, e in enumerate(document["evidence"], 1) if "rmtree" in e["text"])
        for entry in document["trace"]:
            result = entry.get("result")
            if isinstance(result, dict) and "rmtree" in result.get("text", ""):
                self._alter(result)
        document["evidence"][number - 1] = self._alter(document["evidence"][number - 1])
        del document["result_sha256"]
        raw = digests.append_result_sha256(digests.compact_json_text(document).encode())
        fake = FakeServer(self, canned(200, raw))
        with self.assertRaises(rc.IntegrityError) as caught:
            rc.RetrievalClient(fake.base_url).retrieve(QUESTION, "3.11")
        self.assertIn(f"evidence {number} (shutil.txt lines", str(caught.exception))
        self.assertIn("byte_count says", str(caught.exception))
        done = run_ask(QUESTION, "--version", "3.11", "--url", fake.base_url)
        self.assertEqual(done.returncode, 2)
        self.assertIn(f"evidence {number} (shutil.txt lines".encode(), done.stderr)
        self.assertEqual(done.stdout, b"")

    @staticmethod
    def _alter(result: dict) -> dict:
        result["text"] += " TAMPERED"
        rest = {k: v for k, v in result.items() if k != "result_sha256"}
        result["result_sha256"] = digests.read_result_sha256(rest)
        return result


if __name__ == "__main__":
    unittest.main()
