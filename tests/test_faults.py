"""Faults: tool failures at each position, broken snapshots, vanishing clients, SIGTERM mid-work."""

import json
import signal
import socket
import struct
import subprocess
import sys
import threading
import unittest

import requests

from retrieval.testing import CountingToolFactory, FailingTools, subprocess_env
from retrieval.wsgi import create_app
from tests.support import (
    WAIT_S,
    ask,
    call,
    quiet_settings,
    start_server,
    start_slow_server,
    wait_for,
)

TIER = "server"


class ToolFailureAtEachPositionTest(unittest.TestCase):
    # Action order of the completed scenario: search, read, search, read.
    EXPECTED = {
        1: ("search", [], {"steps": 1, "searches": 1, "reads": 0, "reserved_source_bytes": 0,
                           "delivered_source_bytes": 0}),
        2: ("read", [], {"steps": 2, "searches": 1, "reads": 1, "reserved_source_bytes": 154,
                         "delivered_source_bytes": 0}),
        3: ("search", ["path-read"], {"steps": 3, "searches": 2, "reads": 1,
                                      "reserved_source_bytes": 154,
                                      "delivered_source_bytes": 154}),
        4: ("read", ["path-read"], {"steps": 4, "searches": 2, "reads": 2,
                                    "reserved_source_bytes": 378,
                                    "delivered_source_bytes": 154}),
    }

    def test_failure_is_503_failed_charged_with_evidence_kept_and_tools_closed(self):
        for position, (tool, evidence, usage) in self.EXPECTED.items():
            with self.subTest(position=position):
                factory = CountingToolFactory(FailingTools, fail_at=position)
                app = create_app(tool_factory=factory, settings=quiet_settings())
                self.addCleanup(app.close)
                reply = call(app, "POST", "/retrieve", json.dumps(ask()).encode())
                body = reply.json()
                self.assertEqual(reply.code, 503)
                self.assertEqual((body["status"], body["reason"]), ("failed", "retrieval_failed"))
                last = body["trace"][-1]
                self.assertEqual(len(body["trace"]), position)
                self.assertEqual((last["action"]["tool"], last["invoked"], last["status"],
                                  last["reason"]), (tool, True, "failed", "tool_failure"))
                self.assertEqual(last["usage_after"], usage)
                self.assertEqual(body["usage"], usage)
                self.assertEqual([e["source_id"] for e in body["evidence"]], evidence)
                self.assertEqual((len(factory.created), factory.open_count), (1, 0))


class VanishingClientTest(unittest.TestCase):
    def setUp(self):
        self.server = start_server(self)

    def assertHealthy(self):
        self.assertEqual(requests.get(self.server.base_url + "/health", timeout=WAIT_S).status_code,
                         200)
        reply = requests.post(self.server.base_url + "/retrieve", json=ask(), timeout=WAIT_S)
        self.assertEqual(reply.json()["status"], "completed")

    def test_disconnect_mid_body(self):
        for _ in range(20):
            with socket.create_connection(("127.0.0.1", self.server.port), timeout=WAIT_S) as s:
                s.sendall(b"POST /retrieve HTTP/1.1\r\nHost: localhost\r\n"
                          b"Content-Type: application/json"
                          b"\r\nContent-Length: 1000\r\n\r\n{\"question\": \"half")
        self.assertHealthy()

    def test_disconnect_mid_response(self):
        payload = json.dumps(ask()).encode()
        for _ in range(20):
            s = socket.create_connection(("127.0.0.1", self.server.port), timeout=WAIT_S)
            # Abort with RST after reading a few bytes of the ~10 KB answer.
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            s.sendall(b"POST /retrieve HTTP/1.1\r\nHost: localhost\r\n"
                      b"Content-Type: application/json\r\n"
                      b"Content-Length: %d\r\n\r\n" % len(payload) + payload)
            self.assertTrue(s.recv(16).startswith(b"HTTP/1.1 200"))
            s.close()
        self.assertHealthy()


class DrainTest(unittest.TestCase):
    def test_sigterm_drains_an_in_flight_request_then_exits_zero(self):
        # The searches wait on a latch released only after the checks below, so the drain is
        # still under way while they run; the deadline must not be what ends this run.
        server, latch = start_slow_server(self, "--drain-delay-s", "3",
                                          RETRIEVAL_DEADLINE_MS="20000")
        outcome = {}

        def in_flight_request():
            outcome["reply"] = requests.post(server.base_url + "/retrieve", json=ask(),
                                             timeout=WAIT_S)

        client = threading.Thread(target=in_flight_request)
        client.start()
        latch.wait_in_flight()
        server.process.send_signal(signal.SIGTERM)
        wait_for(lambda: requests.get(server.base_url + "/health", timeout=WAIT_S).json()
                 == {"status": "draining"}, "/health to report draining")
        refused = requests.post(server.base_url + "/retrieve", json=ask(), timeout=WAIT_S)
        self.assertEqual((refused.status_code, refused.json()["error"]["code"],
                          refused.headers["Retry-After"]), (503, "draining", "1"))
        self.assertTrue(client.is_alive())
        latch.release()
        client.join(WAIT_S)
        self.assertEqual(outcome["reply"].status_code, 200)
        self.assertEqual(outcome["reply"].json()["status"], "completed")
        wait_for(lambda: server.process.poll() is not None, "the server to exit by itself")
        lifecycle = server.stop()
        self.assertEqual(lifecycle.shutdown_exit_status, 0)
        self.assertIn("retrieval: draining", lifecycle.stderr)
        self.assertIn("0 connection(s) still busy", lifecycle.stderr)

    def test_requests_admitted_before_sigterm_finish(self):
        server, latch = start_slow_server(self, RETRIEVAL_DEADLINE_MS="20000",
                                          RETRIEVAL_THREADS="1")
        replies = []

        def post():
            replies.append(requests.post(server.base_url + "/retrieve", json=ask(),
                                         timeout=WAIT_S))

        clients = [threading.Thread(target=post) for _ in range(2)]
        clients[0].start()
        latch.wait_in_flight("the first request to run")
        clients[1].start()  # admitted, waiting for the only worker
        wait_for(lambda: "retrieval_in_flight 2" in requests.get(
            server.base_url + "/metrics", timeout=WAIT_S).text, "the second to be admitted")
        server.process.send_signal(signal.SIGTERM)
        wait_for(lambda: requests.get(server.base_url + "/health", timeout=WAIT_S).json()
                 == {"status": "draining"}, "/health to report draining")
        refused = requests.post(server.base_url + "/retrieve", json=ask(), timeout=WAIT_S)
        self.assertEqual((refused.status_code, refused.json()["error"]["code"]),
                         (503, "draining"))
        self.assertTrue(clients[1].is_alive())  # refused at once, not behind the queue
        latch.release()
        for client in clients:
            client.join(WAIT_S)
        self.assertEqual([(r.status_code, r.json().get("status")) for r in replies],
                         [(200, "completed"), (200, "completed")])
        wait_for(lambda: server.process.poll() is not None, "the server to exit by itself")
        self.assertEqual(server.stop().shutdown_exit_status, 0)

    def test_drain_survives_a_closed_stderr(self):
        # A supervisor that died leaves stderr a pipe nobody reads: the drain must still finish.
        listener = socket.create_server(("127.0.0.1", 0))
        self.addCleanup(listener.close)
        process = subprocess.Popen(
            [sys.executable, "-m", "retrieval", "serve", "--fd", str(listener.fileno())],
            pass_fds=(listener.fileno(),), env=subprocess_env(), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.addCleanup(lambda: process.poll() is None and process.kill())
        port = listener.getsockname()[1]
        wait_for(lambda: requests.get(f"http://127.0.0.1:{port}/health", timeout=WAIT_S).ok,
                 "readiness")
        process.stderr.close()
        process.send_signal(signal.SIGTERM)
        self.assertEqual(process.wait(WAIT_S), 0)

    def test_sigterm_during_load(self):
        server = start_server(self)
        statuses, errors = [], []
        stop = threading.Event()

        def client():
            with requests.Session() as session:
                while not stop.is_set():
                    try:
                        reply = session.post(server.base_url + "/retrieve", json=ask(),
                                             timeout=WAIT_S)
                        statuses.append((reply.status_code, reply.json().get("status")
                                         or reply.json()["error"]["code"]))
                        if reply.status_code == 503:
                            return  # as a load balancer would: this replica is going away
                    except requests.ConnectionError as exc:
                        errors.append(exc)  # after the listener closed: expected, not a reply
                        return

        threads = [threading.Thread(target=client) for _ in range(4)]
        for thread in threads:
            thread.start()
        wait_for(lambda: len(statuses) >= 50, "load to start")
        server.process.send_signal(signal.SIGTERM)
        wait_for(lambda: server.process.poll() is not None, "the server to exit by itself")
        stop.set()
        for thread in threads:
            thread.join(WAIT_S)
        lifecycle = server.stop()
        self.assertEqual(lifecycle.shutdown_exit_status, 0)
        self.assertTrue(set(statuses) <= {(200, "completed"), (503, "draining")}, set(statuses))


if __name__ == "__main__":
    unittest.main()
