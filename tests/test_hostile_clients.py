"""Real server, raw sockets: clients that trickle, idle, or send what a server must not guess at."""

import json
import socket
import threading
import time
import unittest

import requests

from retrieval.testing import ServerProcess, subprocess_env
from tests.support import (
    ROOT,
    WAIT_S,
    ask,
    read_response,
    start_server,
    start_slow_server,
    wait_for,
)

TIER = "server"

# Connections Waitress accepts at connection_limit 8: it counts its listener and its trigger.
SLOTS = 6


def limited_server(testcase, **settings):
    """Start a server with connection_limit 8 and the given RETRIEVAL_* settings."""
    env = subprocess_env(RETRIEVAL_CONNECTION_LIMIT="8", RETRIEVAL_CHANNEL_TIMEOUT_S="60",
                         **{f"RETRIEVAL_{name.upper()}": str(value)
                            for name, value in settings.items()})
    return start_server(testcase, env=env)


class Trickle:
    """Connections that each send one more byte every interval until the server closes them."""

    def __init__(self, port, count, head=b"GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ",
                 interval=0.2):
        self.sockets = [socket.create_connection(("127.0.0.1", port), timeout=WAIT_S)
                        for _ in range(count)]
        self.closed_after = {}
        self._head, self._interval = head, interval
        self._stop = threading.Event()
        self._started = time.monotonic()
        self.sent = 0
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.is_set() and len(self.closed_after) < len(self.sockets):
            for index, sock in enumerate(self.sockets):
                if index in self.closed_after:
                    continue
                position = min(self.sent, len(self._head))
                try:
                    sock.sendall(self._head[position:position + 1] or b"a")
                except OSError:
                    self.closed_after[index] = time.monotonic() - self._started
            self.sent += 1
            self._stop.wait(self._interval)  # the attack's pace, not a wait for the server

    def close(self):
        self._stop.set()
        self._thread.join(WAIT_S)
        for sock in self.sockets:
            sock.close()


class SlowClientTest(unittest.TestCase):
    def health_while(self, attackers) -> float:
        self.addCleanup(attackers.close)
        started = time.monotonic()
        reply = requests.get(self.server.base_url + "/health", timeout=WAIT_S)
        self.assertEqual(reply.status_code, 200)
        return time.monotonic() - started

    def test_tricklers_filling_every_slot_are_closed_at_the_head_deadline(self):
        # Waitress's channel_timeout (60 s here) never fires: every byte resets it.
        self.server = limited_server(self, request_header_timeout_s=1, keepalive_timeout_s=60)
        attackers = Trickle(self.server.port, SLOTS)
        wait_for(lambda: attackers.sent >= 3, "the tricklers to be connected")
        self.health_while(attackers)
        wait_for(lambda: len(attackers.closed_after) == SLOTS, "the tricklers to be closed")

    def test_a_trickled_body_is_closed_at_the_body_deadline(self):
        self.server = limited_server(self, request_body_timeout_s=1, keepalive_timeout_s=60)
        head = (b"POST /retrieve HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                b"Content-Length: 4000\r\n\r\n")
        attackers = Trickle(self.server.port, SLOTS, head=head + b" " * 4000, interval=0.05)
        wait_for(lambda: attackers.sent >= len(head) + 3, "the bodies to be under way")
        self.health_while(attackers)
        wait_for(lambda: len(attackers.closed_after) == SLOTS, "the tricklers to be closed")

    def test_idle_keep_alive_connections_are_closed(self):
        self.server = limited_server(self, keepalive_timeout_s=1)
        idle = []
        for _ in range(SLOTS):
            sock = socket.create_connection(("127.0.0.1", self.server.port), timeout=WAIT_S)
            self.addCleanup(sock.close)
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            self.assertTrue(read_response(sock).startswith(b"HTTP/1.1 200"))
            idle.append(sock)
        started = time.monotonic()
        reply = requests.get(self.server.base_url + "/health", timeout=WAIT_S)
        self.assertEqual(reply.status_code, 200)
        self.assertLess(time.monotonic() - started, WAIT_S)
        for sock in idle:
            self.assertEqual(sock.recv(1024), b"")  # closed by the server


def raw_exchange(port, request: bytes) -> bytes:
    """Send raw request bytes on a new connection; return the first response's bytes."""
    with socket.create_connection(("127.0.0.1", port), timeout=WAIT_S) as sock:
        sock.sendall(request)
        return read_response(sock)


def status_and_code(response: bytes):
    """Return (status, error code or None) of a raw JSON response."""
    head, _, body = response.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    try:
        return status, json.loads(body)["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return status, None


def post(path: bytes, body: bytes) -> bytes:
    return (b"POST " + path + b" HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n"
            + body)


class RouteSpellingTest(unittest.TestCase):
    """One normalisation decides the route for admission, fast lane, metrics and dispatch."""

    def test_each_spelling_under_a_saturated_gate(self):
        # The first request holds the only slot until the latch is released, after every check.
        server, latch = start_slow_server(self, RETRIEVAL_DEADLINE_MS="20000",
                                          RETRIEVAL_THREADS="1", RETRIEVAL_MAX_IN_FLIGHT="1")
        body = json.dumps(ask()).encode()
        first = threading.Thread(target=raw_exchange, args=(server.port, post(b"/retrieve", body)))
        first.start()
        self.addCleanup(first.join, WAIT_S)
        latch.wait_in_flight("the first request to be in flight")
        expected = {
            b"//retrieve": (503, "overloaded"),
            b"///retrieve": (503, "overloaded"),
            b"/%72etrieve": (503, "overloaded"),
            b"/%2Fretrieve": (503, "overloaded"),
            b"/retrieve?": (503, "overloaded"),
            b"/retrieve/": (404, "not_found"),
            b"/./retrieve": (404, "not_found"),
            b"/retrieve%20": (404, "not_found"),
        }
        for path, answer in expected.items():
            with self.subTest(path=path):
                self.assertEqual(status_and_code(raw_exchange(server.port, post(path, body))),
                                 answer)
        for path in (b"//health", b"/%68ealth"):
            with self.subTest(path=path):
                reply = raw_exchange(server.port, b"GET " + path + b" HTTP/1.1\r\n"
                                     b"Host: localhost\r\nConnection: close\r\n\r\n")
                self.assertEqual(status_and_code(reply), (200, None))
        self.assertTrue(first.is_alive())  # all of it answered while the only slot was taken
        metrics = requests.get(server.base_url + "/metrics", timeout=WAIT_S).text
        self.assertIn('retrieval_admission_refusals_total{reason="overloaded"} 5', metrics)
        latch.release()


class FramingTest(unittest.TestCase):
    """Requests whose framing a proxy could read otherwise are refused, and nothing is echoed."""

    @classmethod
    def setUpClass(cls):
        cls.server = ServerProcess(env=subprocess_env(), cwd=ROOT).start()
        cls.addClassCleanup(cls.server.stop)

    def exchange_to_close(self, request: bytes) -> bytes:
        with socket.create_connection(("127.0.0.1", self.server.port), timeout=WAIT_S) as sock:
            sock.sendall(request)
            response = read_response(sock)
            # A keep-alive request after it: a connection left open would answer it.
            try:
                sock.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
                rest = sock.recv(65536)
            except ConnectionError:
                rest = b""
        self.assertEqual(rest, b"", "the connection stayed open after the refusal")
        return response

    def test_ambiguous_framing_is_refused_and_closed(self):
        body = json.dumps(ask()).encode()
        chunked = hex(len(body))[2:].encode() + b"\r\n" + body + b"\r\n0\r\n\r\n"
        cases = {
            "HTTP/1.0 with chunked": b"POST /retrieve HTTP/1.0\r\nHost: localhost\r\nConnection: "
                                     b"keep-alive\r\nContent-Type: application/json\r\n"
                                     b"Transfer-Encoding: chunked\r\n\r\n" + chunked,
            "Content-Length and chunked": b"POST /retrieve HTTP/1.1\r\nHost: localhost\r\n"
                                          b"Content-Type: application/json\r\nContent-Length: "
                                          + str(len(chunked)).encode()
                                          + b"\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked,
            "chunked and Content-Length": b"POST /retrieve HTTP/1.1\r\nHost: localhost\r\n"
                                          b"Content-Type: application/json\r\nTransfer-Encoding: "
                                          b"chunked\r\nContent-Length: 5\r\n\r\n" + chunked,
        }
        for name, request in cases.items():
            with self.subTest(name):
                self.assertIn(b" 400 Bad Request\r\n", self.exchange_to_close(request)[:30])

    def test_malformed_head_is_not_echoed(self):
        for head in (b"GET /health HTTP/1.1\r\nHost: localhost\r\nX-Secret-Marker: a\rb\r\n\r\n",
                     b"GET /health HTTP/1.1\r\n X-Secret-Marker: folded\r\n\r\n",
                     b"secret-marker /health HTTP/1.1\r\nHost: localhost\r\n\r\n"):
            with self.subTest(head=head):
                response = self.exchange_to_close(head)
                self.assertIn(b" 400 Bad Request\r\n", response[:30])
                self.assertNotIn(b"marker", response.lower())


if __name__ == "__main__":
    unittest.main()
