"""`retrieval mcp --transport http` against what an attack review found (issue 27): a default key
acting for callers without one, sessions one key could exhaust or share, the Host check switched
off on a loopback address other than 127.0.0.1. Real child processes, raw HTTP on loopback."""

import http.client
import json
import os
import socket
import subprocess
import sys
import unittest

from retrieval.http.auth import add_key
from retrieval.testing import subprocess_env
from tests.support import ROOT, WAIT_S, class_temporary_directory, require_module, start_server
from tests.test_collections import snapshot_with

TIER = "server"

CHILD_ENV = {"RETRIEVAL_ACCESS_LOG": "false"}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "test", "version": "1"}}}
LIST_TOOLS = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}


def start_mcp_http(testcase, *args, **env) -> tuple:
    """Start `retrieval mcp --transport http --port 0 ARGS` with env set; return (host, port)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "retrieval", "mcp", "--transport", "http", "--port", "0", *args],
        cwd=ROOT, env=subprocess_env(**CHILD_ENV, **env), stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    def stop():
        process.terminate()
        testcase.assertEqual(process.wait(timeout=WAIT_S), 0)
        process.stderr.close()

    testcase.addCleanup(stop)
    testcase.mcp_process = process
    line = process.stderr.readline()  # blocks until the one start-up line (or exit)
    testcase.assertIn("listening on http://", line)
    address = line.rsplit(" ", 1)[1].strip().split("//")[1].split("/")[0]
    host, _, port = address.rpartition(":")
    return host, int(port)


def post_mcp(address, message, authorization=None, host_header=None, session=None):
    """POST one JSON-RPC message to /mcp; return (status, headers, body bytes)."""
    connection = http.client.HTTPConnection(*address, timeout=WAIT_S)
    try:
        headers = {"Content-Type": "application/json",
                   "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": "2025-06-18"}
        if authorization is not None:
            headers["Authorization"] = authorization
        if host_header is not None:
            headers["Host"] = host_header
        if session is not None:
            headers["Mcp-Session-Id"] = session
        connection.request("POST", "/mcp", body=json.dumps(message).encode(), headers=headers)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


class McpHttpTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tmp = class_temporary_directory(cls)
        cls.keys_file = os.path.join(tmp, "keys.json")
        cls.public = add_key(cls.keys_file, "public", ["default"])
        cls.staff = add_key(cls.keys_file, "staff", ["default", "internal"])
        cls.snapshot = snapshot_with(tmp, "both")

    def setUp(self):
        require_module(self, "mcp", "mcp")

    def test_a_default_key_is_refused_over_http(self):
        # It would be the caller of every request that brings no bearer of its own.
        done = subprocess.run(
            [sys.executable, "-m", "retrieval", "mcp", "--transport", "http", "--port", "0",
             "--url", "http://127.0.0.1:9", "--api-key", self.staff],
            cwd=ROOT, env=subprocess_env(**CHILD_ENV), capture_output=True, text=True,
            timeout=WAIT_S)
        self.assertEqual(done.returncode, 2)
        self.assertEqual(len(done.stderr.splitlines()), 1, done.stderr)
        self.assertIn("--api-key is for --transport stdio", done.stderr)

    def test_fronting_a_keyed_service_a_request_without_a_valid_bearer_gets_401_first(self):
        service = start_server(self, "--snapshot", self.snapshot, env=subprocess_env(
            RETRIEVAL_KEYS_FILE=self.keys_file, **CHILD_ENV))
        address = start_mcp_http(self, "--url", service.base_url)
        for authorization in (None, "Bearer not-a-key"):
            with self.subTest(authorization=authorization):
                status, headers, body = post_mcp(address, INITIALIZE, authorization)
                self.assertEqual(status, 401, body)
                self.assertEqual(headers["www-authenticate"][:6], "Bearer")
                self.assertIn(json.loads(body)["error"]["code"],
                              ("unauthenticated", "invalid_credentials"))
        status, _, body = post_mcp(address, INITIALIZE, f"Bearer {self.public}")
        self.assertEqual(status, 200, body)

    def test_distinct_bearers_cost_no_socket_each(self):
        service = start_server(self, "--snapshot", self.snapshot, env=subprocess_env(
            RETRIEVAL_KEYS_FILE=self.keys_file, **CHILD_ENV))
        address = start_mcp_http(self, "--url", service.base_url)
        descriptors = os.path.join("/proc", str(self.mcp_process.pid), "fd")
        if not os.path.isdir(descriptors):
            self.skipTest("needs /proc")
        call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": {"name": "list_docs", "arguments": {}}}
        self.assertEqual(post_mcp(address, call, f"Bearer {self.public}")[0], 200)
        before = len(os.listdir(descriptors))
        for number in range(40):
            status, _, body = post_mcp(address, call, f"Bearer random-{number}")
            self.assertEqual(status, 401, body)
        self.assertEqual(post_mcp(address, call, f"Bearer {self.staff}")[0], 200)
        # One pooled session for every bearer (before: a client and a socket for each, kept).
        self.assertLess(len(os.listdir(descriptors)), before + 10)

    def test_no_session_outlives_its_request(self):
        address = start_mcp_http(self, "--snapshot", self.snapshot, "--keys-file", self.keys_file)
        # Stateless: nothing one key opens is held for it, so nothing fills up or is shared.
        status, headers, body = post_mcp(address, INITIALIZE, f"Bearer {self.public}")
        self.assertEqual(status, 200, body)
        self.assertNotIn("mcp-session-id", headers)
        # Any request stands alone: listing tools needs no session opened before.
        status, headers, body = post_mcp(address, LIST_TOOLS, f"Bearer {self.staff}")
        self.assertEqual(status, 200, body)
        self.assertIn(b"search_docs", body)

    def test_the_host_check_holds_on_every_loopback_address(self):
        # 127.0.0.2 is loopback, so it is served without keys; the SDK checked only 127.0.0.1.
        address = start_mcp_http(self, "--snapshot", self.snapshot, "--host", "127.0.0.2")
        status, _, body = post_mcp(address, INITIALIZE, host_header="attacker.example:8766")
        self.assertEqual(status, 421, body)
        status, _, body = post_mcp(address, INITIALIZE, host_header=f"127.0.0.2:{address[1]}")
        self.assertEqual(status, 200, body)

    def test_a_request_that_never_arrives_in_full_is_closed(self):
        # uvicorn served a half-sent head forever: 120 of them held every slot.
        address = start_mcp_http(self, "--snapshot", self.snapshot,
                                 RETRIEVAL_REQUEST_HEADER_TIMEOUT_S="1",
                                 RETRIEVAL_REQUEST_BODY_TIMEOUT_S="1")
        silent = socket.create_connection(address, timeout=WAIT_S)
        half = socket.create_connection(address, timeout=WAIT_S)
        body = socket.create_connection(address, timeout=WAIT_S)
        for sock in (silent, half, body):
            self.addCleanup(sock.close)
        half.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        body.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{")
        for sock in (silent, half, body):
            self.assertEqual(sock.recv(1024), b"")  # closed by the server, not by the timeout
        # A whole request is answered as before.
        status, _, body_bytes = post_mcp(address, INITIALIZE)
        self.assertEqual(status, 200, body_bytes)


if __name__ == "__main__":
    unittest.main()
