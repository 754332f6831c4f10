"""Start-up refusals: one line on stderr and exit 2, never a traceback or a silent substitute."""

import os
import socket
import subprocess
import sys
import unittest

from retrieval.http.auth import KeysFileError, KeyStore, RateLimiter, add_key, retry_after_seconds
from retrieval.testing import subprocess_env
from tests.support import ROOT, WAIT_S, temporary_directory

TIER = "server"


def run_retrieval(*argv):
    return subprocess.run([sys.executable, "-m", "retrieval", *argv], capture_output=True,
                          text=True, env=subprocess_env(), cwd=ROOT, timeout=WAIT_S,
                          stdin=subprocess.DEVNULL)


class StartupErrorTest(unittest.TestCase):
    def assertRefused(self, done, words):
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
        self.assertIn(words, done.stderr)

    def test_port_in_use(self):
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            port = taken.getsockname()[1]
            self.assertRefused(run_retrieval("serve", "--port", str(port)),
                               f"cannot listen on 127.0.0.1:{port}")

    def test_port_out_of_range(self):
        for port in ("65536", "99999", "-1"):
            with self.subTest(port=port):
                self.assertRefused(run_retrieval("serve", "--port", port), "setting port")

    def test_rate_limits_whose_wait_cannot_be_said(self):
        keys_file = os.path.join(temporary_directory(self), "keys.json")
        for rate in ("1e-320", "1e-6"):
            with self.subTest(rate=rate):
                self.assertRefused(run_retrieval("keys", "add", "slow", "--collections", "default",
                                                 "--keys-file", keys_file, "--rate-limit", rate),
                                   "below one request a day")
        self.assertFalse(os.path.exists(keys_file))
        with self.assertRaises(KeysFileError):
            add_key(keys_file, "slow", ["default"], per_second=5e-324)
        # The slowest allowed rate still gives a Retry-After in whole seconds.
        add_key(keys_file, "daily", ["default"], per_second=1 / 86400, burst=1)
        key = KeyStore.load(keys_file).keys[0]
        limiter = RateLimiter()
        self.assertEqual(limiter.take(key, 0.0), 0.0)
        self.assertEqual(retry_after_seconds(limiter.take(key, 0.0)), 86400)


if __name__ == "__main__":
    unittest.main()
