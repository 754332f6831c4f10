"""Real server, raw sockets: clients that trickle, idle, or send requests a server must not guess at."""

import socket
import threading
import time
import unittest

import requests

from retrieval.testing import subprocess_env
from tests.support import DEADLINE, start_server, wait_for

# Connections Waitress accepts at connection_limit 8: it counts its listener and its trigger.
SLOTS = 6


def limited_server(testcase, **settings):
    """Start a server with connection_limit 8 and the given RETRIEVAL_* settings."""
    env = subprocess_env(RETRIEVAL_CONNECTION_LIMIT="8", RETRIEVAL_CHANNEL_TIMEOUT_S="60",
                         **{f"RETRIEVAL_{name.upper()}": str(value)
                            for name, value in settings.items()})
    return start_server(testcase, env=env)


def read_response(sock) -> bytes:
    """Read one response with a Content-Length from a raw socket; return its bytes."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


class Trickle:
    """Connections that each send one more byte every interval until the server closes them."""

    def __init__(self, port, count, head=b"GET /health HTTP/1.1\r\nHost: t\r\nX-Slow: ",
                 interval=0.2):
        self.sockets = [socket.create_connection(("127.0.0.1", port), timeout=DEADLINE)
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
        self._thread.join(DEADLINE)
        for sock in self.sockets:
            sock.close()


class SlowClientTest(unittest.TestCase):
    def health_while(self, attackers) -> float:
        self.addCleanup(attackers.close)
        started = time.monotonic()
        reply = requests.get(self.server.base_url + "/health", timeout=DEADLINE)
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
        head = (b"POST /retrieve HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                b"Content-Length: 4000\r\n\r\n")
        attackers = Trickle(self.server.port, SLOTS, head=head + b" " * 4000, interval=0.05)
        wait_for(lambda: attackers.sent >= len(head) + 3, "the bodies to be under way")
        self.health_while(attackers)
        wait_for(lambda: len(attackers.closed_after) == SLOTS, "the tricklers to be closed")

    def test_idle_keep_alive_connections_are_closed(self):
        self.server = limited_server(self, keepalive_timeout_s=1)
        idle = []
        for _ in range(SLOTS):
            sock = socket.create_connection(("127.0.0.1", self.server.port), timeout=DEADLINE)
            self.addCleanup(sock.close)
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
            self.assertTrue(read_response(sock).startswith(b"HTTP/1.1 200"))
            idle.append(sock)
        started = time.monotonic()
        reply = requests.get(self.server.base_url + "/health", timeout=DEADLINE)
        self.assertEqual(reply.status_code, 200)
        self.assertLess(time.monotonic() - started, DEADLINE)
        for sock in idle:
            self.assertEqual(sock.recv(1024), b"")  # closed by the server


if __name__ == "__main__":
    unittest.main()
