"""The I/O loop under `retrieval serve`: idle while a worker serves, and blind to idle connections.

The first collapse this pins (docs/performance.md): a worker sending a response holds its channel's
outbuf_lock with bytes not yet sent; with Waitress's own HTTPChannel.writable() the loop then
finds that channel writable on every pass, select() returns at once, handle_write() cannot take
the lock, and the loop spins, walking every open connection each time. Here that state is made
deterministic: the worker serving a /retrieve parks inside its first flush, holding the lock, as
it does when it loses the GIL inside send(), with 64 idle keep-alive connections open. Meanwhile
another thread hands the GIL back and forth 200 times over a socket pair (as the worker's send()
does), and the test counts passes of the I/O loop: a sleeping loop makes none (bar its timeout),
a spinning one takes the GIL at every handoff. No timing is asserted, only counts.

The second (retrieval/serve/io_loop.py): Waitress's own loop asks every open connection
readable() and writable() on every pass, so a pass cost grew with the connections open. The
installed loop asks only what can have changed: with 64 idle keep-alive connections open,
requests served on another connection ask the idle ones nothing, bar the loop's periodic full
pass.
"""

import json
import logging
import math
import socket
import threading
import time
import types
import unittest

from waitress import wasyncore

from retrieval.serve import io_loop
from retrieval.serve.server import build_server
from retrieval.wsgi import create_app
from tests.support import WAIT_S, quiet_settings, read_response

TIER = "inprocess"

IDLE_CONNECTIONS = 64
REQUESTS = 100
HANDOFFS = 200
# A loop asleep in select() passes once per timeout (1 s) at most; a spinning one passes at
# least once per handoff.
MAX_PASSES = 5


def read_ok_body(sock) -> bytes:
    """Read one response from a blocking socket; fail unless it is a 200; return its body."""
    head, _, body = read_response(sock).partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200 "):
        raise AssertionError(f"unexpected response {head[:80]!r}")
    return body


def hand_over_the_gil(times: int):
    """Bounce one byte between this thread and another over a socket pair, times round trips."""
    ours, theirs = socket.socketpair()
    with ours, theirs:
        def echo():
            for _ in range(times):
                theirs.sendall(theirs.recv(1))

        echoer = threading.Thread(target=echo, daemon=True)
        echoer.start()
        for _ in range(times):
            ours.sendall(b"x")
            ours.recv(1)
        echoer.join(WAIT_S)


class CountedLoop:
    """Run the server's installed I/O loop pass by pass on a thread, counting its passes."""

    def __init__(self, server):
        self._server = server
        self.passes = 0
        self._stop = False
        self._thread = threading.Thread(target=self._run, name="test-io-loop", daemon=True)
        self._thread.start()

    def _run(self):
        # server.asyncore is what Waitress's run() loops on: the installed loop, or without it
        # the wasyncore module itself (whose poll() is Waitress's own pass).
        installed, socket_map = self._server.asyncore, self._server._map
        try:
            while socket_map and not self._stop:
                installed.poll(self._server.adj.asyncore_loop_timeout, socket_map)
                self.passes += 1
        finally:
            getattr(installed, "close", lambda: None)()

    def stop(self):
        self._stop = True
        self._server.pull_trigger()
        self._thread.join(WAIT_S)


def quiet_queue_log(test):
    """Silence Waitress's "Task queue depth" lines for the rest of test."""
    queue_log = logging.getLogger("waitress.queue")
    test.addCleanup(queue_log.setLevel, queue_log.level)
    queue_log.setLevel(logging.ERROR)


def serving(test, wrap_channel=None):
    """Build the server `retrieval serve` runs (channel class wrapped), run its loop; return
    (server, loop, connect)."""
    app = create_app(settings=quiet_settings())
    test.addCleanup(app.close)
    server = build_server(app, quiet_settings(host="127.0.0.1", port=0))
    test.addCleanup(server.close)
    if wrap_channel is not None:
        server.channel_class = wrap_channel(server.channel_class)
    loop = CountedLoop(server)
    test.addCleanup(loop.stop)
    address = (server.effective_host, server.effective_port)

    def connect():
        sock = socket.create_connection(address, timeout=WAIT_S)
        test.addCleanup(sock.close)
        return sock

    return server, loop, connect


class IOLoopTest(unittest.TestCase):
    def test_loop_sleeps_while_a_worker_holds_unsent_output(self):
        quiet_queue_log(self)
        parked, release = threading.Event(), threading.Event()
        self.addCleanup(release.set)

        def parking(installed):
            class ParkingChannel(installed):
                """The installed channel, whose /retrieve worker parks in its first flush."""

                def _flush_some(self, do_close=True):
                    if (self.requests and self.requests[0].path == "/retrieve"
                            and threading.current_thread().name != "test-io-loop"
                            and not parked.is_set()):
                        parked.set()  # outbuf_lock is held: write_soon() called us
                        release.wait(WAIT_S)
                    return super()._flush_some(do_close)
            return ParkingChannel

        server, loop, connect = serving(self, parking)
        idle = [connect() for _ in range(IDLE_CONNECTIONS)]
        probe = connect()
        for sock in idle + [probe]:  # every connection accepted and kept alive
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            read_ok_body(sock)
        body = json.dumps({"question": "Will write_text replace the contents of an existing file?",
                           "version": "3.12"}).encode()
        slow = connect()
        slow.sendall(b"POST /retrieve HTTP/1.1\r\nHost: localhost\r\n"
                     b"Content-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        self.assertTrue(parked.wait(WAIT_S), "the /retrieve worker never flushed")

        # Any event wakes the loop (here its trigger; in production, any other connection).
        server.pull_trigger()
        before = loop.passes
        hand_over_the_gil(HANDOFFS)
        passes = loop.passes - before
        # The loop still serves the other connections meanwhile (the fast lane answers /health).
        probe.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        read_ok_body(probe)

        release.set()
        self.assertIn(b'"status":"completed"', read_ok_body(slow))
        self.assertLessEqual(passes, MAX_PASSES,
                             f"{passes} I/O loop passes during {HANDOFFS} GIL handoffs")

    @unittest.skipUnless(io_loop.AVAILABLE, "the registered-interest loop needs epoll (Linux)")
    def test_requests_on_one_connection_ask_idle_connections_nothing(self):
        quiet_queue_log(self)
        asked = {}  # channel -> readable() calls

        def counting(installed):
            class CountingChannel(installed):
                def readable(self):
                    asked[self] = asked.get(self, 0) + 1
                    return super().readable()
            return CountingChannel

        server, loop, connect = serving(self, counting)
        idle = [connect() for _ in range(IDLE_CONNECTIONS)]
        for sock in idle:  # every connection accepted, served once and kept alive
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            read_ok_body(sock)
        probe = connect()
        probe.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        read_ok_body(probe)
        port = probe.getsockname()[1]
        before = {channel: calls for channel, calls in asked.items() if channel.addr[1] != port}
        started = time.monotonic()
        for _ in range(REQUESTS):
            probe.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            read_ok_body(probe)
        elapsed = time.monotonic() - started
        idle_asks = sum(asked[channel] - calls for channel, calls in before.items())
        # Waitress's loop asks each idle connection at least once a pass, and a request takes
        # one pass or more: REQUESTS * IDLE_CONNECTIONS asks at the least. The installed loop asks
        # them again only on its full pass, once per loop timeout (and after maintenance).
        full_passes = 2 + math.ceil(elapsed / server.adj.asyncore_loop_timeout)
        self.assertEqual(len(before), IDLE_CONNECTIONS)
        self.assertLessEqual(idle_asks, full_passes * IDLE_CONNECTIONS,
                             f"{idle_asks} readable() calls on idle connections over {REQUESTS} "
                             f"requests on another one ({elapsed:.2f} s)")


class Reader(io_loop.TrackedChannel, wasyncore.dispatcher):
    """A connection that counts the reads the loop dispatches to it."""

    def __init__(self, sock, socket_map, loop):
        self.server = types.SimpleNamespace(io_loop=loop)  # what TrackedChannel reports to
        self.reads = 0
        super().__init__(sock, map=socket_map)

    def readable(self):
        return True

    def writable(self):
        return False

    def handle_read(self):
        self.recv(64)
        self.reads += 1


@unittest.skipUnless(io_loop.AVAILABLE, "the registered-interest loop needs epoll (Linux)")
class RegisteredInterestTest(unittest.TestCase):
    """The loop's incremental passes, each poll(0) returning at once; no periodic full pass."""

    def loop(self):
        loop = io_loop.RegisteredInterestLoop(full_pass_s=3600)
        self.addCleanup(loop.close)
        return loop, {}

    def pair(self):
        ours, theirs = socket.socketpair()
        self.addCleanup(ours.close)
        self.addCleanup(theirs.close)
        return ours, theirs

    def test_a_connection_on_the_fd_of_one_just_closed_is_served(self):
        loop, socket_map = self.loop()
        first, _ = self.pair()
        closed = Reader(first, socket_map, loop)
        loop.poll(0, socket_map)  # registered
        fd = closed._fileno
        closed.close()  # out of the map, its socket closed: the fd is free again
        second, peer = self.pair()
        # The lowest free descriptor is reused (POSIX), so the new connection has the old fd.
        self.assertEqual(second.fileno(), fd)
        reader = Reader(second, socket_map, loop)
        peer.sendall(b"x")
        loop.poll(0, socket_map)
        self.assertEqual(reader.reads, 1)
        self.assertEqual(closed.reads, 0)

    def test_a_channel_is_asked_again_after_its_worker_served_it(self):
        loop, socket_map = self.loop()
        ours, peer = self.pair()
        reader = Reader(ours, socket_map, loop)
        reader.readable = lambda: False  # a request is being served: the loop does not read
        loop.poll(0, socket_map)
        peer.sendall(b"x")
        loop.serving(reader)
        loop.poll(0, socket_map)
        self.assertEqual(reader.reads, 0)
        del reader.readable  # the worker is done: readable again, and it says so
        loop.served(reader)
        loop.poll(0, socket_map)
        self.assertEqual(reader.reads, 1)


if __name__ == "__main__":
    unittest.main()
