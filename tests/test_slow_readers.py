"""Real server, raw sockets: readers that take their responses too slowly, connections that pipeline
a burst of requests, idlers that reconnect the moment they are closed, and one client address
taking every in-flight slot (issue 27, items 7, 8 and 9).

Each test sets its deadlines small (a second) and the others long (60 s), so what frees the slots
is the protection under test; every wait is bounded by WAIT_S, and nothing sleeps to wait.
"""

import json
import socket
import threading
import unittest

import requests

from tests.support import WAIT_S, ask, read_response, start_slow_server, wait_for
from tests.support.prometheus import parse_exposition
from tests.test_hostile_clients import SLOTS, limited_server, post, status_and_code

TIER = "server"

PAGE = b"GET /inspector.js HTTP/1.1\r\nHost: localhost\r\n\r\n"
HEALTH = b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n"
LONG = {"keepalive_timeout_s": 60, "request_header_timeout_s": 60}


def slow_reader(port, pipelined: int) -> socket.socket:
    """Connect with a 4 KB receive buffer, send one burst of page requests, read nothing."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(WAIT_S)
    sock.connect(("127.0.0.1", port))
    sock.sendall(PAGE * pipelined)
    return sock


def closed_by_server(sock) -> bool:
    """Drain what the server sent; return True once it has closed the connection."""
    try:
        while True:
            chunk = sock.recv(1 << 20)
            if not chunk:
                return True
    except ConnectionError:
        return True


def answers(sock, until: int) -> int:
    """Read responses until `until` have come or the server closes; return how many came."""
    received = b""
    while received.count(b"HTTP/1.1 200") < until:
        chunk = sock.recv(65536)
        if not chunk:
            break
        received += chunk
    return received.count(b"HTTP/1.1 200")


class SlowReaderTest(unittest.TestCase):
    def test_readers_below_the_send_floor_are_closed_and_health_is_answered(self):
        server = limited_server(self, send_grace_s=1, send_floor_bytes_s=1_000_000, **LONG)
        readers = [slow_reader(server.port, 40) for _ in range(SLOTS)]
        for sock in readers:
            self.addCleanup(sock.close)
        # Every slot is taken by a reader whose 1.4 MB of responses wait; none is idle.
        reply = requests.get(server.base_url + "/health", timeout=WAIT_S)
        self.assertEqual(reply.status_code, 200)
        for sock in readers:
            self.assertTrue(closed_by_server(sock))

    def test_a_burst_of_pipelined_requests_gets_the_cap_then_the_connection_closes(self):
        server = limited_server(self, max_pipelined_requests=4)
        with socket.create_connection(("127.0.0.1", server.port), timeout=WAIT_S) as sock:
            sock.sendall(HEALTH * 20)
            self.assertEqual(answers(sock, until=20), 4)  # then the server closed it
        # Within the cap, pipelining is served as before and the connection stays open.
        with socket.create_connection(("127.0.0.1", server.port), timeout=WAIT_S) as sock:
            sock.sendall(HEALTH * 4)
            self.assertEqual(answers(sock, until=4), 4)
            sock.sendall(HEALTH)
            self.assertEqual(answers(sock, until=1), 1)


class Reconnecting:
    """Connections that send nothing and reconnect the moment the server closes them."""

    def __init__(self, port, count):
        self.port = port
        self.reconnects = 0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._sockets = []
        self._threads = [threading.Thread(target=self._hold, daemon=True) for _ in range(count)]
        for thread in self._threads:
            thread.start()

    def _hold(self):
        while not self._stop.is_set():
            try:
                sock = socket.create_connection(("127.0.0.1", self.port), timeout=WAIT_S)
            except OSError:
                return
            with self._lock:
                self._sockets.append(sock)
            try:
                sock.recv(1)  # returns when the server closes it (or the test does)
            except OSError:
                pass
            finally:
                sock.close()
            with self._lock:
                self.reconnects += 1

    def close(self):
        self._stop.set()
        with self._lock:
            for sock in self._sockets:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        for thread in self._threads:
            thread.join(WAIT_S)


class ReconnectingIdlersTest(unittest.TestCase):
    def test_a_new_client_gets_a_slot_from_the_longest_waiting_idler(self):
        server = limited_server(self, **LONG)
        idlers = Reconnecting(server.port, SLOTS)
        self.addCleanup(idlers.close)
        wait_for(lambda: len(idlers._sockets) >= SLOTS, "the idlers to hold every slot")
        for _ in range(5):
            reply = requests.get(server.base_url + "/health", timeout=WAIT_S,
                                 headers={"Connection": "close"})
            self.assertEqual(reply.status_code, 200)
        self.assertGreaterEqual(idlers.reconnects, 1)


def post_retrieve(port, source="127.0.0.1") -> tuple:
    """POST the standard question from a source address; return (status, error code or None)."""
    body = json.dumps(ask()).encode()
    with socket.create_connection(("127.0.0.1", port), timeout=WAIT_S,
                                  source_address=(source, 0)) as sock:
        sock.sendall(post(b"/retrieve", body))
        return status_and_code(read_response(sock))


class PeerShareTest(unittest.TestCase):
    def test_one_client_address_cannot_take_every_slot(self):
        # The cheap expensive queries, looped by a few clients, took every slot.
        server, latch = start_slow_server(self, RETRIEVAL_MAX_IN_FLIGHT="4",
                                          RETRIEVAL_MAX_IN_FLIGHT_PER_PEER="1",
                                          RETRIEVAL_DEADLINE_MS="20000")
        results = []
        first = threading.Thread(target=lambda: results.append(post_retrieve(server.port)))
        first.start()
        self.addCleanup(first.join, WAIT_S)
        latch.wait_in_flight("the first request to be in flight")
        self.assertEqual(post_retrieve(server.port), (503, "overloaded"))  # at once
        other = threading.Thread(
            target=lambda: results.append(post_retrieve(server.port, "127.0.0.2")))
        other.start()
        self.addCleanup(other.join, WAIT_S)
        wait_for(lambda: in_flight(server) == 2, "the other address's request to be admitted")
        latch.release()
        first.join(WAIT_S)
        other.join(WAIT_S)
        self.assertEqual(results, [(200, None), (200, None)])


def in_flight(server) -> float:
    text = requests.get(server.base_url + "/metrics", timeout=WAIT_S).text
    return parse_exposition(text)["retrieval_in_flight"].value()


if __name__ == "__main__":
    unittest.main()
