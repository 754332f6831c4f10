"""Browser callers: CORS for allowlisted origins only, in process and over a real socket."""

import json
import socket
import unittest

from retrieval.settings import SettingsError, load_settings
from retrieval.testing import subprocess_env
from retrieval.wsgi import create_app
from tests.support import ask, call, start_server

TIER = "server"

ALLOWED = "https://app.example"


class CorsTest(unittest.TestCase):
    def app(self, origins):
        app = create_app(settings=load_settings(environ={}, overrides={"cors_origins": origins}))
        self.addCleanup(app.close)
        return app

    def test_off_by_default(self):
        app = self.app("")
        reply = call(app, "POST", "/retrieve", json.dumps(ask()).encode(),
                     environ={"HTTP_ORIGIN": ALLOWED})
        self.assertFalse({"Access-Control-Allow-Origin", "Vary"} & set(reply.headers))
        self.assertEqual(call(app, "OPTIONS", "/retrieve", environ={"HTTP_ORIGIN": ALLOWED}).code,
                         405)

    def test_allowed_origin_reads_the_digest_header(self):
        app = self.app(f"{ALLOWED}, https://other.example:8443")
        reply = call(app, "POST", "/retrieve", json.dumps(ask()).encode(),
                     environ={"HTTP_ORIGIN": ALLOWED})
        self.assertEqual(reply.headers["Access-Control-Allow-Origin"], ALLOWED)
        self.assertEqual(reply.headers["Vary"], "Origin")
        self.assertIn("X-Retrieval-Body-SHA256", reply.headers["Access-Control-Expose-Headers"])

    def test_not_modified_keeps_the_cors_headers(self):
        app = self.app(ALLOWED)
        for origin in (ALLOWED, "https://evil.example"):
            with self.subTest(origin=origin):
                full = call(app, "GET", "/openapi.json", environ={"HTTP_ORIGIN": origin})
                revalidated = call(app, "GET", "/openapi.json", environ={
                    "HTTP_ORIGIN": origin, "HTTP_IF_NONE_MATCH": full.headers["ETag"]})
                self.assertEqual(revalidated.status, "304 Not Modified")
                self.assertEqual(revalidated.headers["Vary"], "Origin")
                self.assertEqual(revalidated.headers.get("Access-Control-Allow-Origin"),
                                 full.headers.get("Access-Control-Allow-Origin"))

    def test_disallowed_origins_get_no_cors_headers(self):
        app = self.app(ALLOWED)
        for origin in ("https://evil.example", "https://app.example.evil", "null", ALLOWED + "/"):
            with self.subTest(origin=origin):
                reply = call(app, "GET", "/health", environ={"HTTP_ORIGIN": origin})
                self.assertNotIn("Access-Control-Allow-Origin", reply.headers)
                self.assertEqual(reply.headers["Vary"], "Origin")
                pre = call(app, "OPTIONS", "/retrieve", environ={
                    "HTTP_ORIGIN": origin, "HTTP_ACCESS_CONTROL_REQUEST_METHOD": "POST"})
                self.assertEqual(pre.code, 204)
                self.assertFalse([h for h in pre.headers if h.startswith("Access-Control-")])

    def test_preflight_for_an_allowed_origin(self):
        app = self.app(ALLOWED)
        reply = call(app, "OPTIONS", "/retrieve", environ={
            "HTTP_ORIGIN": ALLOWED, "HTTP_ACCESS_CONTROL_REQUEST_METHOD": "POST",
            "HTTP_ACCESS_CONTROL_REQUEST_HEADERS": "content-type, authorization"})
        self.assertEqual((reply.code, reply.body), (204, b""))
        self.assertEqual(reply.headers["Access-Control-Allow-Origin"], ALLOWED)
        self.assertEqual(reply.headers["Access-Control-Allow-Methods"], "POST")
        self.assertEqual(reply.headers["Access-Control-Allow-Headers"],
                         "Content-Type, Authorization")
        self.assertEqual(reply.headers["Access-Control-Max-Age"], "600")
        self.assertEqual(reply.headers["Vary"], "Origin")
        self.assertEqual(call(app, "OPTIONS", "/nope", environ={"HTTP_ORIGIN": ALLOWED}).code, 404)

    def test_origins_must_be_origins(self):
        for value in ("app.example", "https://app.example/path", "ftp://x", "*"):
            with self.subTest(value=value):
                with self.assertRaisesRegex(SettingsError, "cors_origins"):
                    load_settings(environ={}, overrides={"cors_origins": value})

    def test_preflight_over_a_real_socket(self):
        server = start_server(self, env=subprocess_env(RETRIEVAL_CORS_ORIGINS=ALLOWED))
        with socket.create_connection(("127.0.0.1", server.port), timeout=20) as conn:
            conn.sendall(b"OPTIONS /retrieve HTTP/1.1\r\nHost: localhost\r\nOrigin: "
                         + ALLOWED.encode()
                         + b"\r\nAccess-Control-Request-Method: POST\r\n"
                         b"Access-Control-Request-Headers: content-type\r\n"
                         b"Connection: close\r\n\r\n")
            raw = b""
            while chunk := conn.recv(65536):
                raw += chunk
        head = raw.split(b"\r\n\r\n", 1)[0].decode("latin-1")
        self.assertTrue(head.startswith("HTTP/1.1 204"), head)
        self.assertIn(f"Access-Control-Allow-Origin: {ALLOWED}", head)
        self.assertIn("Access-Control-Allow-Methods: POST", head)


if __name__ == "__main__":
    unittest.main()
