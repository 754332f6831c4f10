"""The CI-sized fuzz run: thousands of mutated and generated requests on raw sockets to a real
Waitress server, every response held to the invariants; plus the checks that the fuzzer can fail.

The long run is `python bench/fuzz.py --requests N --seed S`; a failing case from either replays
alone with `python bench/fuzz.py --replay SEED:INDEX`.
"""

import hashlib
import json
import socket
import sys
import threading
import time
import unittest

from tests import fuzz
from tests.support import ask, read_response, start_server

TIER = "server"

SEED = 20250101
CASES = 10000
WORKERS = 8
# Lines a healthy server never logs, however bad the requests it was sent.
LOG_ALARMS = ("Traceback", "Exception while serving", "Unexpected exception")


class FuzzRealServerTest(unittest.TestCase):
    def test_fuzz_cases_keep_every_invariant(self):
        server = start_server(self)
        alive = lambda: server.process.poll() is None  # noqa: E731
        started = time.perf_counter()
        fuzzer = fuzz.Fuzzer("127.0.0.1", server.port, SEED, workers=WORKERS, batch=500,
                                alive=alive)
        summary = fuzzer.run(CASES)
        elapsed = time.perf_counter() - started
        print(f"\n{summary.report().splitlines()[0]} (with context probe: {elapsed:.1f}s)",
              file=sys.stderr)
        self.assertTrue(summary.ok, summary.report())
        self.assertEqual(summary.cases, CASES)
        # Still healthy at the end, and the process never went away.
        self.assertIsNone(fuzz.health_problem("127.0.0.1", server.port))
        self.assertTrue(alive())
        # The run reached what it claims to exercise (a generator that silently stopped
        # producing a kind of request would otherwise go unnoticed).
        self.assertEqual(set(summary.kinds), {"abort", "body", "conditional", "framing",
                                              "garbage", "headers", "keepalive", "line", "media"})
        for label in ("200 retrieve:completed", "200 retrieve:limited", "200 health",
                      "200 passage", "200 static", "304", "400 query_not_allowed",
                      "404 not_found", "404 passage_not_found", "405 method_not_allowed",
                      "413 body_too_large", "415 unsupported_media_type", "422 invalid_json",
                      "422 invalid_request", "400 waitress", "413 waitress", "431 waitress"):
            self.assertIn(label, summary.statuses, f"no {label!r} response in the run")
        self.assertGreater(summary.ends["sent"], 0, "no mid-request aborts")
        self.assertGreater(summary.ends["kept"], 0, "no keep-alive sequences")
        # A clean shutdown after all that, and nothing alarming in the server's log.
        lifecycle = server.stop()
        self.assertEqual(lifecycle.shutdown_exit_status, 0, lifecycle.stderr[-2000:])
        alarms = [line for line in lifecycle.stderr.splitlines()
                  if any(alarm in line for alarm in LOG_ALARMS)]
        self.assertEqual(alarms, [], lifecycle.stderr[-4000:])


class ExpectContinueTest(unittest.TestCase):
    """A bodiless request with `Expect: 100-continue` is complete: it gets its final response.

    Waitress 3.0.2 alone sends `100 Continue` and then waits for a body the request says does
    not exist (until its channel timeout); retrieval/serve/server.py's channel serves it instead.
    """

    def test_expect_100_continue_without_a_body_gets_a_final_response(self):
        server = start_server(self)
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\nExpect: 100-continue\r\n"
                         b"Connection: close\r\n\r\n")
            sock.settimeout(1.0)
            data = b""
            try:
                while True:
                    chunk = sock.recv(65536)
                    if not chunk:
                        break
                    data += chunk
            except TimeoutError:
                pass
        responses, _ = fuzz.parse_all(data, [b"GET"])
        self.assertEqual([r.status for r in responses], [200], data)

    def test_on_a_kept_alive_connection_and_with_a_body(self):
        server = start_server(self)
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
            # Bodiless, kept alive (as HAProxy sends it): the final answer, no 100 before it.
            sock.sendall(b"POST /retrieve HTTP/1.1\r\nHost: localhost\r\nExpect: 100-continue\r\n"
                         b"Content-Type: application/json\r\nContent-Length: 0\r\n\r\n")
            first = read_response(sock)
            self.assertIn(b"invalid_json", first)
            # With a body: 100 Continue first, then the body is read and answered.
            body = json.dumps(ask()).encode()
            sock.sendall(b"POST /retrieve HTTP/1.1\r\nHost: localhost\r\nExpect: 100-continue\r\n"
                         b"Content-Type: application/json\r\nContent-Length: "
                         + str(len(body)).encode() + b"\r\n\r\n")
            self.assertEqual(sock.recv(25), b"HTTP/1.1 100 Continue\r\n\r\n")
            sock.sendall(body)
            self.assertTrue(read_response(sock).startswith(b"HTTP/1.1 200 "))


def _response(status, body, headers=None, digest="auto"):
    """A synthetic parsed response."""
    header_list = [("content-type", "application/json"), ("content-length", str(len(body)))]
    if digest == "auto":
        header_list.append((fuzz.DIGEST_HEADER, hashlib.sha256(body).hexdigest()))
    elif digest is not None:
        header_list.append((fuzz.DIGEST_HEADER, digest))
    header_list += headers or []
    return fuzz.Response("1.1", status, "X", header_list, body)


def _error(code, **words):
    error = {"code": code, "message": "words", **words}
    return json.dumps({"error": error, "admission": {"accepted": False}},
                      separators=(",", ":")).encode()


WAITRESS_400 = (b"Bad Request\r\n\r\nContent-Length is invalid\r\n\r\n"
                b"(generated by retrieval)")
POST = fuzz.Req(b"POST", b"/retrieve")


class CheckerRejectsBadResponsesTest(unittest.TestCase):
    """The invariant checker itself: it must pass good responses and reject bad ones."""

    def check(self, response, req=POST):
        return fuzz.check_response(response, req, b"POST /retrieve HTTP/1.1\r\n\r\n{}")

    def test_good_responses_pass(self):
        self.assertEqual(self.check(_response(422, _error("invalid_json"))), [])
        self.assertEqual(self.check(_response(405, _error("method_not_allowed"),
                                              [("allow", "POST")])), [])
        waitress = _response(400, WAITRESS_400, [("content-type", "text/plain; charset=utf-8")],
                             digest=None)
        waitress.headers = [h for h in waitress.headers if h != ("content-type",
                                                                  "application/json")]
        self.assertEqual(self.check(waitress), [])

    def test_a_500_is_rejected(self):
        problems = self.check(_response(500, _error("internal_error")))
        self.assertTrue(any("HTTP 500" in p for p in problems), problems)
        self.assertTrue(any("internal_error" in p for p in problems), problems)
        plain = _response(500, b"Internal Server Error\r\n\r\n(generated by retrieval)",
                          digest=None)
        self.assertTrue(any("HTTP 500" in p for p in self.check(plain)))

    def test_a_traceback_body_is_rejected(self):
        body = (b"Bad Request\r\n\r\nTraceback (most recent call last):\n  File \"/x/wsgi.py\", "
                b"line 1\nValueError: boom\r\n\r\n(generated by retrieval)")
        problems = self.check(_response(400, body, digest=None))
        self.assertTrue(any("internal detail" in p for p in problems), problems)
        leak = _response(422, json.dumps({"error": {"code": "invalid_json", "detail":
                                                    "sqlite3.OperationalError: x"}, "admission":
                                          {"accepted": False}}).encode())
        self.assertTrue(any("internal detail" in p for p in self.check(leak)))

    def test_a_wrong_digest_is_rejected(self):
        problems = self.check(_response(422, _error("invalid_json"), digest="0" * 64))
        self.assertTrue(any("sha256(body)" in p for p in problems), problems)

    def test_shape_code_and_status_mismatches_are_rejected(self):
        self.assertTrue(self.check(_response(400, _error("invalid_json"))))  # wrong status
        self.assertTrue(self.check(_response(418, _error("teapot"))))  # undocumented code
        self.assertTrue(self.check(_response(422, _error("invalid_json", message=""))))
        self.assertTrue(self.check(_response(422, b'{"error":"invalid_json"}')))
        self.assertTrue(self.check(_response(422, b"not json")))
        self.assertTrue(self.check(_response(405, _error("method_not_allowed"))))  # no Allow
        self.assertTrue(self.check(_response(200, b'{"ok":true}')))  # no documented document
        self.assertTrue(self.check(_response(200, b"{}", digest=None)))  # digest-less 200
        self.assertTrue(self.check(_response(302, b"", digest=None)))
        self.assertTrue(self.check(_response(304, b"", digest=None)))  # unconditional request

    def test_transport_failures_are_rejected(self):
        self.assertTrue(fuzz.parse_all(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
                                          [b"GET"])[1])
        self.assertTrue(fuzz.parse_all(b"garbage\r\n\r\n", [b"GET"])[1])


class _CannedServer:
    """A loopback listener that answers every connection with fixed bytes (or nothing)."""

    def __init__(self, testcase, reply, hold=False):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.reply, self.hold = reply, hold
        self.held = []
        threading.Thread(target=self.serve, daemon=True).start()
        testcase.addCleanup(self.close)

    def serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            conn.recv(65536)
            if self.hold:
                self.held.append(conn)  # never answers, never closes
                continue
            conn.sendall(self.reply)
            conn.close()

    def close(self):
        self.sock.close()
        for conn in self.held:
            conn.close()


class RunnerCatchesBadServersTest(unittest.TestCase):
    """End to end through sockets: a bad server makes the fuzzer report failures."""

    def run_against(self, server, timeout=5.0):
        ctx = fuzz.Context()
        case = fuzz.generate_case(SEED, 0, ctx)
        case.steps, case.mode, case.expect_response = [fuzz.http_request(body=b"{}")], \
            "close", True
        case.requests = [POST]
        outcome = fuzz.run_case(case, "127.0.0.1", server.port, timeout)
        return fuzz.check_case(case, outcome)

    def test_a_500_from_the_server_is_a_failure(self):
        body = _error("internal_error")
        reply = (b"HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\nX-Retrieval-Body-SHA256: %s\r\n\r\n"
                 % (len(body), hashlib.sha256(body).hexdigest().encode())) + body
        problems = self.run_against(_CannedServer(self, reply))
        self.assertTrue(any("HTTP 500" in p for p in problems), problems)

    def test_a_server_that_never_answers_is_a_hang(self):
        started = time.perf_counter()
        problems = self.run_against(_CannedServer(self, b"", hold=True), timeout=0.5)
        self.assertTrue(any(p.startswith("hang") for p in problems), problems)
        self.assertLess(time.perf_counter() - started, 3)

    def test_a_server_that_closes_without_answering_is_a_failure(self):
        problems = self.run_against(_CannedServer(self, b""))
        self.assertTrue(any("no response" in p for p in problems), problems)


class DeterminismTest(unittest.TestCase):
    def test_a_case_is_a_function_of_seed_and_index(self):
        ctx = fuzz.Context(passage_ids=["a" * 64], etags={"/corpus": '"' + "b" * 64 + '"'})
        first = [fuzz.generate_case(7, i, ctx) for i in range(300)]
        again = [fuzz.generate_case(7, i, ctx) for i in reversed(range(300))][::-1]
        self.assertEqual([c.steps for c in first], [c.steps for c in again])
        other = [fuzz.generate_case(8, i, ctx) for i in range(300)]
        self.assertNotEqual([c.steps for c in first], [c.steps for c in other])
        self.assertGreater(len({c.data for c in first}), 250)  # mostly distinct cases


if __name__ == "__main__":
    unittest.main()
