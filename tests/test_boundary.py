"""Real server, real sockets: keys, secure-by-default start-up, overload admission, slow clients."""

import os
import socket
import subprocess
import sys
import threading
import time
import unittest

import requests

from retrieval.hosts import is_loopback
from retrieval.http.auth import add_key
from retrieval.testing import subprocess_env
from tests.support import (
    ROOT,
    WAIT_S,
    ask,
    class_temporary_directory,
    start_server,
    start_slow_server,
    temporary_directory,
    wait_for,
)

TIER = "server"


def comparable(response):
    """Return what two refusals must share: status, headers but Date, and the body bytes."""
    headers = {k: v for k, v in response.headers.items() if k.lower() != "date"}
    return response.status_code, headers, response.content


class AuthOverSocketTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = class_temporary_directory(cls)
        cls.keys_file = os.path.join(cls.tmp, "keys.json")
        cls.secret = add_key(cls.keys_file, "reader", ["default"])
        cls.expired = add_key(cls.keys_file, "retired", ["default"],
                              expires="2000-01-01T00:00:00Z")

    def setUp(self):
        self.server = start_server(self, "--keys-file", self.keys_file)
        self.url = self.server.base_url

    def bearer(self, secret):
        return {"Authorization": f"Bearer {secret}"}

    def test_keys_guard_corpus_retrieve_and_passages_but_not_health(self):
        self.assertEqual(requests.get(self.url + "/health", timeout=WAIT_S).status_code, 200)
        for method, path in (("GET", "/corpus"), ("POST", "/retrieve"),
                             ("GET", "/passages/" + "0" * 64)):
            with self.subTest(path=path):
                missing = requests.request(method, self.url + path, json=ask(), timeout=WAIT_S)
                self.assertEqual(missing.status_code, 401)
                self.assertEqual(missing.json()["error"]["code"], "unauthenticated")
                self.assertEqual(missing.headers["WWW-Authenticate"], "Bearer")
                wrong = requests.request(method, self.url + path, json=ask(), timeout=WAIT_S,
                                         headers=self.bearer("rk_not-a-key"))
                self.assertEqual(wrong.json()["error"]["code"], "invalid_credentials")
                # An expired key and an unknown one cannot be told apart.
                expired = requests.request(method, self.url + path, json=ask(), timeout=WAIT_S,
                                           headers=self.bearer(self.expired))
                self.assertEqual(comparable(expired), comparable(wrong))
        ok = requests.post(self.url + "/retrieve", json=ask(), headers=self.bearer(self.secret),
                           timeout=WAIT_S)
        self.assertEqual((ok.status_code, ok.json()["status"]), (200, "completed"))

    def test_health_shows_no_snapshot_wide_id_with_keys(self):
        # The snapshot-wide id moves whenever any collection changes, readable or not.
        health = requests.get(self.url + "/health", timeout=WAIT_S)
        self.assertEqual(health.json(), {"status": "ok", "mode": "offline-scripted-retrieval"})

    def test_access_log_names_the_key_never_the_secret_or_the_question(self):
        requests.post(self.url + "/retrieve", json=ask(), headers=self.bearer(self.secret),
                      timeout=WAIT_S)
        requests.post(self.url + "/retrieve", json=ask(), headers=self.bearer("rk_guess"),
                      timeout=WAIT_S)
        stderr = self.server.stop().stderr
        self.assertIn('"key_id":"reader"', stderr)
        self.assertIn('"outcome":"invalid_credentials"', stderr)
        for secret_or_question in (self.secret, "rk_guess", ask()["question"]):
            self.assertNotIn(secret_or_question, stderr)


class KeysCommandTest(unittest.TestCase):
    def test_the_printed_secret_opens_a_real_server(self):
        keys_file = os.path.join(temporary_directory(self), "keys.json")
        added = subprocess.run(
            [sys.executable, "-m", "retrieval", "keys", "add", "ops", "--collections", "default",
             "--keys-file", keys_file], capture_output=True, text=True, env=subprocess_env(),
            cwd=ROOT, timeout=WAIT_S, stdin=subprocess.DEVNULL)
        self.assertEqual(added.returncode, 0, added.stderr)
        secret = added.stdout.splitlines()[-1]
        with open(keys_file, encoding="utf-8") as handle:
            self.assertNotIn(secret, handle.read())
        server = start_server(self, "--keys-file", keys_file)
        reply = requests.get(server.base_url + "/corpus", timeout=WAIT_S,
                             headers={"Authorization": f"Bearer {secret}"})
        self.assertEqual(reply.status_code, 200)


class SecureByDefaultTest(unittest.TestCase):
    def serve(self, *args):
        return subprocess.Popen(
            [sys.executable, "-m", "retrieval", "serve", "--port", "0", *args],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            env=subprocess_env(), cwd=ROOT, text=True)

    def test_non_loopback_without_keys_refuses_to_start(self):
        process = self.serve("--host", "0.0.0.0")
        _, stderr = process.communicate(timeout=WAIT_S)
        self.assertEqual(process.returncode, 2)
        self.assertIn("without a keys file", stderr)
        self.assertEqual(len(stderr.strip().splitlines()), 1)

    def test_allow_unauthenticated_is_an_explicit_choice(self):
        process = self.serve("--host", "0.0.0.0", "--allow-unauthenticated")
        first_line = {}

        def read_first_line():
            first_line["text"] = process.stderr.readline()

        reader = threading.Thread(target=read_first_line, daemon=True)
        reader.start()
        reader.join(WAIT_S)
        try:
            self.assertIn("serving corpus", first_line.get("text", ""))
        finally:
            process.terminate()
            process.communicate(timeout=WAIT_S)
        self.assertEqual(process.returncode, 0)

    def test_loopback_names(self):
        for host, expected in (("127.0.0.1", True), ("::1", True), ("localhost", True),
                               ("127.8.9.10", True), ("0.0.0.0", False), ("::", False),
                               ("10.0.0.5", False), ("example.org", False)):
            with self.subTest(host=host):
                self.assertEqual(is_loopback(host), expected)


class OverloadTest(unittest.TestCase):
    """With one worker, admission happens before Waitress's queue, so refusals are immediate.

    The first request's searches wait on a latch this test releases: every assertion made
    before the release is about a moment when that request is provably still running.
    """

    def start(self, max_in_flight):
        # An --app builds its own settings, from the environment.
        return start_slow_server(self, RETRIEVAL_DEADLINE_MS="20000", RETRIEVAL_THREADS="1",
                                 RETRIEVAL_MAX_IN_FLIGHT=str(max_in_flight))

    def post_in_background(self, url, replies):
        def post():
            replies.append(requests.post(url + "/retrieve", json=ask(), timeout=WAIT_S))

        thread = threading.Thread(target=post)
        thread.start()
        self.addCleanup(thread.join, WAIT_S)
        return thread

    def test_the_request_past_max_in_flight_is_refused_at_once(self):
        server, latch = self.start(max_in_flight=1)
        replies = []
        first = self.post_in_background(server.base_url, replies)
        latch.wait_in_flight("the first request to be in flight")
        refused = requests.post(server.base_url + "/retrieve", json=ask(), timeout=WAIT_S)
        self.assertEqual((refused.status_code, refused.json()["error"]["code"],
                          refused.headers["Retry-After"]), (503, "overloaded", "1"))
        # Answered while the first request still holds the only worker, and so are the
        # probes: they never wait behind it.
        self.assertEqual(requests.get(server.base_url + "/health", timeout=WAIT_S).status_code,
                         200)
        self.assertIn("retrieval_in_flight 1",
                      requests.get(server.base_url + "/metrics", timeout=WAIT_S).text)
        self.assertTrue(first.is_alive())
        self.assertEqual(replies, [])
        latch.release()
        first.join(WAIT_S)
        self.assertEqual(replies[0].status_code, 200)
        # The slot comes back once the server has closed the first response, which may be just
        # after its client has read it all.
        wait_for(lambda: "retrieval_in_flight 0" in requests.get(
            server.base_url + "/metrics", timeout=WAIT_S).text, "the slot to come back")
        # The slot came back: the next request runs.
        self.assertEqual(requests.post(server.base_url + "/retrieve", json=ask(),
                                       timeout=WAIT_S).status_code, 200)
        metrics = requests.get(server.base_url + "/metrics", timeout=WAIT_S).text
        self.assertIn('retrieval_admission_refusals_total{reason="overloaded"} 1', metrics)
        self.assertIn("retrieval_in_flight 0", metrics)

    def test_waiting_requests_count_against_the_limit(self):
        server, latch = self.start(max_in_flight=2)
        replies = []
        first = self.post_in_background(server.base_url, replies)
        latch.wait_in_flight("the first request to be in flight")
        # One of these waits for the only worker, so it holds the second slot; the other is
        # refused at once. Which one depends on arrival order, so only the counts are asserted.
        later = [self.post_in_background(server.base_url, replies) for _ in range(2)]
        wait_for(lambda: replies, "a reply while the first request is held")
        # Nothing can complete while the latch holds the only worker: that reply is the refusal.
        self.assertEqual([r.status_code for r in replies], [503])
        latch.release()
        # Every client thread, the first included: the waiting request's reply can reach its
        # thread before the first request's reply reaches the first thread.
        for thread in [first, *later]:
            thread.join(WAIT_S)
        self.assertEqual(sorted(r.status_code for r in replies), [200, 200, 503])


class SlowClientTest(unittest.TestCase):
    def test_a_connection_trickling_its_request_is_closed(self):
        server = start_server(self, env=subprocess_env(RETRIEVAL_CHANNEL_TIMEOUT_S="1"))
        with socket.create_connection(("127.0.0.1", server.port), timeout=WAIT_S) as client:
            client.sendall(b"POST /retrieve HTTP/1.1\r\nHost: localhost\r\n")  # and never the rest
            started = time.monotonic()
            self.assertEqual(client.recv(1024), b"")  # closed by the server, no response
            self.assertLess(time.monotonic() - started, 10)
        self.assertEqual(requests.get(server.base_url + "/health", timeout=WAIT_S).status_code,
                         200)


if __name__ == "__main__":
    unittest.main()
