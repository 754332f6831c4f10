"""A snapshot replaced or deleted under a running server: only the verified one is ever served."""

import io
import json
import os
import shutil
import sqlite3
import threading
import unittest

import requests

from retrieval.core.snapshot import load_snapshot
from retrieval.ingest.builder import DEFAULT_POLICY, Progress, SourceTree, build_snapshot
from retrieval.testing import subprocess_env
from retrieval.wsgi import create_app
from tests.support import (
    WAIT_S,
    call,
    class_temporary_directory,
    post_json,
    quiet_settings,
    start_server,
)

TIER = "server"

QUESTION = {"question": "plain paragraph text", "version": "3.11"}


def build(directory, text):
    """Build a one-version snapshot whose one source file holds text; return its directory."""
    source = os.path.join(directory, "src")
    os.makedirs(source)
    with open(os.path.join(source, "plain.txt"), "w", encoding="utf-8") as handle:
        handle.write(text)
    out = os.path.join(directory, "snapshot")
    build_snapshot([SourceTree("3.11", source, "https://docs.example.org/3.11/")], out,
                   DEFAULT_POLICY, Progress(io.StringIO()))
    return out


def passage_ids(directory):
    conn = sqlite3.connect(os.path.join(directory, "passages.sqlite"))
    try:
        return [row[0] for row in conn.execute("SELECT passage_id FROM passages ORDER BY id")]
    finally:
        conn.close()


def build_verified_and_other(cls):
    """Give a test class two built snapshots: cls.verified (served) and cls.other (its stand-in)."""
    tmp = class_temporary_directory(cls)
    cls.verified = build(os.path.join(tmp, "a"), "First paragraph\nof plain text.\n\n"
                                                 "Second plain paragraph.\n")
    cls.other = build(os.path.join(tmp, "b"), "Another plain paragraph\nof other text.\n")


class ReplacedSnapshotTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        build_verified_and_other(cls)
        cls.corpus_id = load_snapshot(cls.verified).corpus_id
        assert cls.corpus_id != load_snapshot(cls.other).corpus_id
        # What the verified snapshot answers, computed in process from an untouched copy.
        app = create_app(cls.verified, settings=quiet_settings())
        try:
            cls.expected = {("POST", "/retrieve"): post_json(app, QUESTION).body}
            for passage_id in passage_ids(cls.verified):
                path = "/passages/" + passage_id
                cls.expected["GET", path] = call(app, "GET", path).body
        finally:
            app.close()

    def serve(self, threads):
        served = os.path.join(class_temporary_directory(self), "served")
        shutil.copytree(self.verified, served)
        server = start_server(self, "--snapshot", served, env=subprocess_env(
            RETRIEVAL_THREADS=str(threads), RETRIEVAL_ACCESS_LOG="false"))
        return served, server

    def assert_only_the_verified_snapshot(self, server, rounds=3):
        failures = []

        def ask_everything():
            for (method, path), body in self.expected.items():
                reply = requests.request(method, server.base_url + path, json=QUESTION,
                                         timeout=WAIT_S)
                if (reply.status_code, reply.content) != (200, body):
                    failures.append((path, reply.status_code, reply.content[:200]))

        threads = [threading.Thread(target=ask_everything) for _ in range(rounds)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(WAIT_S)
        self.assertEqual(failures, [])
        health = requests.get(server.base_url + "/health", timeout=WAIT_S)
        self.assertEqual((health.status_code, health.json().get("corpus_id")),
                         (200, self.corpus_id))

    def replace(self, served):
        # A rebuild beside the served directory, renamed over it file by file.
        for name in ("passages.sqlite", "manifest.json"):
            shutil.copy(os.path.join(self.other, name), os.path.join(served, name + ".new"))
            os.replace(os.path.join(served, name + ".new"), os.path.join(served, name))

    def test_replaced_before_any_request(self):
        for threads in (1, 4):
            with self.subTest(threads=threads):
                served, server = self.serve(threads)
                self.replace(served)
                self.assert_only_the_verified_snapshot(server)

    def test_replaced_after_some_requests(self):
        served, server = self.serve(4)
        self.assertEqual(requests.post(server.base_url + "/retrieve", json=QUESTION,
                                       timeout=WAIT_S).content,
                         self.expected["POST", "/retrieve"])
        self.replace(served)
        self.assert_only_the_verified_snapshot(server, rounds=6)

    def test_deleted(self):
        for threads in (1, 4):
            with self.subTest(threads=threads):
                served, server = self.serve(threads)
                os.remove(os.path.join(served, "passages.sqlite"))
                self.assert_only_the_verified_snapshot(server)

    def test_a_thread_beyond_the_opened_connections_gets_not_ready(self):
        served = os.path.join(class_temporary_directory(self), "served")
        shutil.copytree(self.verified, served)
        app = create_app(served, settings=quiet_settings(threads=1))
        self.addCleanup(app.close)
        self.assertEqual(post_json(app, QUESTION).body, self.expected["POST", "/retrieve"])
        os.remove(os.path.join(served, "passages.sqlite"))
        replies = []
        # Another question: the verified answers are memoized and would need no connection.
        unasked = dict(QUESTION, question="second paragraph")
        thread = threading.Thread(target=lambda: replies.append(post_json(app, unasked)))
        thread.start()
        thread.join(WAIT_S)
        self.assertEqual((replies[0].status, json.loads(replies[0].body)["error"]["code"]),
                         ("503 Service Unavailable", "not_ready"))
        # The thread that holds a connection still answers from the verified file.
        self.assertEqual(post_json(app, QUESTION).body, self.expected["POST", "/retrieve"])

    def test_health_stops_saying_ok_when_the_verified_file_is_rewritten(self):
        served, server = self.serve(1)
        with open(os.path.join(served, "passages.sqlite"), "r+b") as handle:
            handle.seek(0, os.SEEK_END)
            handle.write(b"\0" * 4096)  # the very file, other bytes
        health = requests.get(server.base_url + "/health", timeout=WAIT_S)
        self.assertEqual((health.status_code, health.json()["status"]), (503, "not_ready"))


if __name__ == "__main__":
    unittest.main()
