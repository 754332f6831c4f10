"""The client against a hostile service: its timeout bounds the whole attempt, its memory the body.

A raw loopback server (a thread) answers one request with a head, then trickles, stalls or
floods the body. Each call runs in a thread joined with a generous limit: the old client, whose
timeout bounded each wait for bytes rather than the call and which read a body whole before
checking it, is still in the call then, and the test fails instead of hanging.
"""

import hashlib
import socket
import threading
import unittest

from retrieval import client as rc
from retrieval.scenarios import QUESTION

TIER = "server"

# How long a call may still be running when the test looks: far above the client timeouts used
# here (0.5 s), so only a call the timeout does not bound is still running.
JOIN_S = 30


class HostileServer:
    """Accept connections on loopback; answer each request head with respond(conn, stop)."""

    def __init__(self, testcase, respond):
        self.stop = threading.Event()
        self.sent = 0  # body bytes sent, across connections
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.base_url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self._respond = respond
        thread = threading.Thread(target=self._serve, daemon=True)
        thread.start()
        testcase.addCleanup(thread.join, JOIN_S)
        testcase.addCleanup(self._listener.close)
        testcase.addCleanup(self.stop.set)

    def _serve(self):
        self._listener.settimeout(0.05)
        while not self.stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except (TimeoutError, OSError):
                continue
            with conn:
                head = b""
                while b"\r\n\r\n" not in head:
                    data = conn.recv(65536)
                    if not data:
                        break
                    head += data
                try:
                    self._respond(self, conn)
                except OSError:
                    pass  # the client gave up and closed: what the tests want

    def send(self, conn, data: bytes):
        conn.sendall(data)
        self.sent += len(data)


def head(length=None, digest="0" * 64, chunked=False, status="200 OK") -> bytes:
    """Return a response head: the digest header (a wrong one by default), a length or chunks."""
    lines = [f"HTTP/1.1 {status}", "Content-Type: application/json"]
    if digest is not None:
        lines.append(f"{rc.BODY_DIGEST_HEADER}: {digest}")
    if length is not None:
        lines.append(f"Content-Length: {length}")
    if chunked:
        lines.append("Transfer-Encoding: chunked")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii")


class BoundedCallTest(unittest.TestCase):
    def call(self, server, **options):
        """Run one retrieve in a thread; return the exception it raised (None if it returned)."""
        outcome = {}

        def run():
            client = rc.RetrievalClient(server.base_url, max_retries=0, **options)
            try:
                client.retrieve(QUESTION, "3.12")
            except Exception as exc:  # noqa: BLE001 - the test inspects what it was
                outcome["error"] = exc
            finally:
                client.close()

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        thread.join(JOIN_S)
        self.assertFalse(thread.is_alive(), "the call outlived its timeout")
        return outcome.get("error")

    def test_a_trickled_body_is_cut_at_the_timeout(self):
        def trickle(server, conn):
            server.send(conn, head(length=10_000))
            while not server.stop.wait(0.05):  # 20 bytes a second: 500 s for the whole body
                server.send(conn, b" ")

        server = HostileServer(self, trickle)
        error = self.call(server, timeout=0.5)
        self.assertIsInstance(error, rc.TransportError)
        self.assertLess(server.sent, 10_000)

    def assert_refused_before_the_rest(self, sent: bytes, message: str):
        """Send a head and the start of a body, then stall: the client must refuse at once."""
        def stall(server, conn):
            server.send(conn, sent)
            server.stop.wait(JOIN_S)  # the rest never comes

        error = self.call(HostileServer(self, stall), timeout=5)
        self.assertIsInstance(error, rc.IntegrityError)
        self.assertIn(message, str(error))

    def test_a_body_over_the_cap_by_its_length_is_not_read(self):
        self.assert_refused_before_the_rest(head(length=300_000_000) + b" " * 65536,
                                            "a body of 300000000 bytes is over max_body_bytes")

    def test_a_chunked_body_is_cut_at_the_cap(self):
        def flood(server, conn):
            server.send(conn, head(chunked=True))
            chunk = b"%x\r\n%s\r\n" % (65536, b" " * 65536)
            for _ in range(256):  # 16 MiB, then a stall: a client that reads on times out
                server.send(conn, chunk)
            server.stop.wait(JOIN_S)

        server = HostileServer(self, flood)
        error = self.call(server, timeout=5, max_body_bytes=1_000_000)
        self.assertIsInstance(error, rc.IntegrityError)
        self.assertIn("body over max_body_bytes (1000000)", str(error))

    def test_a_reply_without_a_digest_is_refused_before_its_body(self):
        self.assert_refused_before_the_rest(head(length=1_000_000, digest=None) + b"{",
                                            "no X-Retrieval-Body-SHA256 header (body not read)")

    def test_a_whole_reply_within_the_timeout_is_read(self):
        def prompt(server, conn):
            body = b'{"error":{"code":"not_found"}}'
            server.send(conn, head(length=len(body), digest=hashlib.sha256(body).hexdigest(),
                                   status="404 Not Found") + body)

        error = self.call(HostileServer(self, prompt), timeout=5)
        self.assertIsInstance(error, rc.NotFound)


if __name__ == "__main__":
    unittest.main()
