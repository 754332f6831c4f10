"""Real server: Waitress in a subprocess on a loopback port, bytes on the wire."""

import hashlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import unittest

import requests

from retrieval.http.contract import BODY_DIGEST_HEADER
from retrieval.scenarios import SCENARIOS, TRUSTED_FAULT, expectation_failures
from retrieval.testing import subprocess_env
from tests.support import (
    ROOT,
    WAIT_S,
    ask,
    fixture_document,
    start_server,
    temporary_directory,
    write_snapshot,
)

TIER = "server"


def raw_exchange(port, request: bytes) -> bytes:
    """Send raw bytes on a fresh connection and return everything until the server closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=WAIT_S) as conn:
        conn.sendall(request)
        conn.shutdown(socket.SHUT_WR)
        chunks = []
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)


def split_response(raw: bytes):
    """Return (status code, lower-cased headers, body) of one raw HTTP/1.1 response."""
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), {k.lower(): v for k, v in headers.items()}, body


def chunked(body: bytes, size: int) -> bytes:
    out = b""
    for start in range(0, len(body), size):
        piece = body[start:start + size]
        out += b"%x\r\n" % len(piece) + piece + b"\r\n"
    return out + b"0\r\n\r\n"


class ScenarioOverHTTPTest(unittest.TestCase):
    def test_every_scenario_over_real_http(self):
        server = start_server(self)
        for scenario in SCENARIOS:
            with self.subTest(scenario.name):
                body = scenario.chunks() if scenario.chunked_oversize else scenario.body()
                reply = requests.post(server.base_url + "/retrieve", data=body, timeout=WAIT_S,
                                      headers={"Content-Type": scenario.content_type})
                self.assertEqual(
                    expectation_failures(scenario, reply.status_code, reply.json()), [])
                self.assertEqual(reply.headers[BODY_DIGEST_HEADER],
                                 hashlib.sha256(reply.content).hexdigest())

    def test_fault_app_over_real_http(self):
        server = start_server(self, "--app", "retrieval.testing:fault_app")
        reply = requests.post(server.base_url + "/retrieve", data=TRUSTED_FAULT.body(),
                              headers={"Content-Type": "application/json"}, timeout=WAIT_S)
        self.assertEqual(expectation_failures(TRUSTED_FAULT, reply.status_code, reply.json()), [])
        self.assertTrue(requests.get(server.base_url + "/health", timeout=WAIT_S).ok)


class WireBytesTest(unittest.TestCase):
    def setUp(self):
        self.server = start_server(self)

    def post_raw(self, headers: str, body: bytes):
        request = ("POST /retrieve HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
                   + headers + "\r\n").encode() + body
        return split_response(raw_exchange(self.server.port, request))

    def test_chunked_body_over_the_cap_is_a_json_413(self):
        status, headers, body = self.post_raw(
            "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n",
            chunked(b" " * 5000, 1000))
        self.assertEqual(status, 413)
        self.assertEqual(json.loads(body), {"error": {
            "code": "body_too_large", "message": "the body is over the limit of 4096 bytes"},
            "admission": {"accepted": False}})
        self.assertEqual(headers["x-retrieval-body-sha256"], hashlib.sha256(body).hexdigest())

    def test_chunked_valid_body_is_served(self):
        payload = json.dumps(ask()).encode()
        status, _, body = self.post_raw(
            "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n",
            chunked(payload, 7))
        self.assertEqual((status, json.loads(body)["status"]), (200, "completed"))

    def test_declared_length_over_the_cap_is_a_json_413(self):
        status, _, body = self.post_raw(
            "Content-Type: application/json\r\nContent-Length: 5000\r\n", b" " * 5000)
        self.assertEqual((status, json.loads(body)["error"]["code"]), (413, "body_too_large"))

    def test_waitress_own_cap_stops_huge_bodies(self):
        # The documented exception: at or above 64 KiB Waitress answers before the app runs.
        status, headers, _ = self.post_raw(
            "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n",
            chunked(b" " * 70000, 8192))
        self.assertEqual(status, 413)
        self.assertNotIn("x-retrieval-body-sha256", headers)

    def test_head_sends_no_body_bytes(self):
        with socket.create_connection(("127.0.0.1", self.server.port), timeout=WAIT_S) as conn:
            conn.sendall(b"HEAD /health HTTP/1.1\r\nHost: localhost\r\n\r\n"
                         b"GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            received = b""
            while True:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                received += chunk
        head_part, _, rest = received.partition(b"\r\n\r\n")
        self.assertIn(b"Content-Length: 130", head_part)
        self.assertTrue(rest.startswith(b"HTTP/1.1 200"), rest[:40])

    def test_identical_requests_give_identical_bytes_across_processes(self):
        first = requests.post(self.server.base_url + "/retrieve", json=ask(), timeout=WAIT_S)
        other = start_server(self)
        second = requests.post(other.base_url + "/retrieve", json=ask(), timeout=WAIT_S)
        self.assertEqual(first.content, second.content)

    def test_sigterm_and_sigint_close_the_app_and_exit_zero(self):
        other = start_server(self)
        for server, signum in ((self.server, signal.SIGTERM), (other, signal.SIGINT)):
            with self.subTest(signal=signum.name):
                lifecycle = server.stop(signum)
                self.assertEqual(lifecycle.shutdown_exit_status, 0)
                self.assertTrue(lifecycle.shutdown_complete_observed)
                self.assertFalse(lifecycle.killed)

    def test_concurrent_requests_get_identical_bytes(self):
        expected = requests.post(self.server.base_url + "/retrieve", json=ask(), timeout=WAIT_S)
        limited = requests.post(self.server.base_url + "/retrieve", json=ask(max_steps=1),
                                timeout=WAIT_S)
        bodies = []

        def client(payload):
            with requests.Session() as session:
                for _ in range(10):
                    reply = session.post(self.server.base_url + "/retrieve", json=payload,
                                         timeout=WAIT_S)
                    bodies.append((payload.get("max_steps"), reply.content))

        threads = [threading.Thread(target=client, args=(ask(max_steps=1) if i % 2 else ask(),))
                   for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(WAIT_S * 2)
        self.assertEqual(len(bodies), 80)
        for max_steps, body in bodies:
            self.assertEqual(body, limited.content if max_steps == 1 else expected.content)


class StartupTest(unittest.TestCase):
    def serve_refused(self, *args, env=None):
        completed = subprocess.run(
            [sys.executable, "-m", "retrieval", "serve", "--port", "0", *args],
            env=env or subprocess_env(), cwd=ROOT, capture_output=True, text=True,
            timeout=WAIT_S, stdin=subprocess.DEVNULL)
        self.assertNotEqual(completed.returncode, 0)
        lines = completed.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, completed.stderr)
        return lines[0]

    def test_refuses_a_missing_edited_or_unexpected_snapshot(self):
        directory = temporary_directory(self)
        self.assertIn("cannot read", self.serve_refused("--snapshot", directory + "/none.json"))
        document = fixture_document()
        document["passages"][0]["text"] = "edited"
        edited = write_snapshot(directory, document, seal=False)
        self.assertIn("text_sha256", self.serve_refused("--snapshot", edited))
        self.assertIn("not the expected", self.serve_refused("--expect-corpus-id", "a" * 64))
        truncated = os.path.join(directory, "truncated.json")
        with open(edited, "rb") as source, open(truncated, "wb") as out:
            out.write(source.read()[:300])
        self.assertIn("not strict JSON", self.serve_refused("--snapshot", truncated))

    def test_refuses_unknown_settings(self):
        line = self.serve_refused(env=subprocess_env(RETRIEVAL_THREAD="8"))
        self.assertIn("unknown setting RETRIEVAL_THREAD", line)


class WaitressServeTest(unittest.TestCase):
    """`waitress-serve retrieval.wsgi:app` works from any directory, on port 0."""

    def start(self, env):
        # The console script, not `python -m waitress`, which exits 0 even when the app fails.
        script = os.path.join(os.path.dirname(sys.executable), "waitress-serve")
        command = [script] if os.path.exists(script) else [
            sys.executable, "-c", "import sys; from waitress.runner import run; sys.exit(run())"]
        process = subprocess.Popen(
            command + ["--listen=127.0.0.1:0", "retrieval.wsgi:app"],
            env=env, cwd=temporary_directory(self), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        lines = []
        found = threading.Event()

        def read_stderr():
            for line in process.stderr:
                lines.append(line)
                if "Serving on" in line:
                    found.set()
            found.set()

        reader = threading.Thread(target=read_stderr, daemon=True)
        reader.start()

        def stop():
            process.terminate()
            try:
                process.wait(WAIT_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
                self.fail("waitress-serve had to be killed")
            finally:
                reader.join(WAIT_S)
                process.stderr.close()

        self.addCleanup(stop)
        self.assertTrue(found.wait(WAIT_S), "no output from waitress-serve")
        return process, lines

    def test_serves_the_embedded_snapshot(self):
        process, lines = self.start(subprocess_env())
        match = re.search(r"Serving on http://127\.0\.0\.1:(\d+)", "".join(lines))
        self.assertIsNotNone(match, lines)
        reply = requests.post(f"http://127.0.0.1:{match.group(1)}/retrieve", json=ask(),
                              timeout=WAIT_S)
        self.assertEqual(reply.json()["status"], "completed")

    def test_pinned_identity_mismatch_refuses_to_start(self):
        process, lines = self.start(subprocess_env(RETRIEVAL_EXPECT_CORPUS_ID="b" * 64))
        self.assertNotEqual(process.wait(WAIT_S), 0)
        self.assertIn("is not the expected", "".join(lines))

    def test_snapshot_override(self):
        directory = temporary_directory(self)
        document = fixture_document()
        document["passages"] = document["passages"][:2]
        path = write_snapshot(directory, document)
        process, lines = self.start(subprocess_env(RETRIEVAL_SNAPSHOT=path))
        port = re.search(r"Serving on http://127\.0\.0\.1:(\d+)", "".join(lines)).group(1)
        health = requests.get(f"http://127.0.0.1:{port}/health", timeout=WAIT_S).json()
        with open(path, encoding="utf-8") as handle:
            self.assertEqual(health["corpus_id"], json.load(handle)["corpus_id"])


if __name__ == "__main__":
    unittest.main()
