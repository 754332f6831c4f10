"""Slow readers against one `retrieval serve`: is /health still answered, and what does RSS do?

The attack of issue 27 (item 7): --readers connections each set a 4 KB receive buffer, send one
burst of --pipelined `GET /inspector.js`, then read 4 KB every --read-every-s seconds, and
reconnect when the server closes them. Meanwhile /health is probed every 2 s (3 s timeout) and the
server's VmRSS sampled. One line: probes answered, and peak RSS.

    python bench/slow_readers.py                      # 98 readers x 264 requests, 40 s
    python bench/slow_readers.py --seconds 90
"""

import argparse
import os
import socket
import sys
import threading
import time

import requests

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from retrieval.testing import ServerProcess, subprocess_env  # noqa: E402

PAGE = b"GET /inspector.js HTTP/1.1\r\nHost: localhost\r\n\r\n"


def read_slowly(port, pipelined, read_every_s, stop):
    """Hold one slow reader open until stop is set, reconnecting whenever it is closed."""
    while not stop.is_set():
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.settimeout(10)
        try:
            sock.connect(("127.0.0.1", port))
            sock.sendall(PAGE * pipelined)
            while not stop.is_set() and sock.recv(4096):
                stop.wait(read_every_s)  # the attack's pace
        except OSError:
            pass
        finally:
            sock.close()


def rss_kib(pid) -> int:
    """Return a process's VmRSS in KiB."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS"))


def main(argv=None) -> int:
    """Run the attack for --seconds and print what /health and RSS did."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--readers", type=int, default=98)
    parser.add_argument("--pipelined", type=int, default=264)
    parser.add_argument("--read-every-s", type=float, default=5.0)
    parser.add_argument("--seconds", type=float, default=40.0)
    args = parser.parse_args(argv)
    server = ServerProcess(env=subprocess_env(RETRIEVAL_ACCESS_LOG="false")).start()
    stop = threading.Event()
    readers = [threading.Thread(target=read_slowly, daemon=True,
                                args=(server.port, args.pipelined, args.read_every_s, stop))
               for _ in range(args.readers)]
    try:
        for reader in readers:
            reader.start()
        answered = probes = peak = 0
        end = time.monotonic() + args.seconds
        while time.monotonic() < end:
            probes += 1
            try:
                answered += requests.get(server.base_url + "/health", timeout=3).ok
            except requests.RequestException:
                pass
            peak = max(peak, rss_kib(server.process.pid))
            stop.wait(2)  # the probe's pace
    finally:
        stop.set()
        server.stop()
    print(f"readers {args.readers} x {args.pipelined} pipelined: /health answered {answered} of "
          f"{probes} probes, peak RSS {peak / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
