"""The verifying client: typed results and errors, integrity, safe retries, `retrieval ask`."""

import hashlib
import json
import socket
import subprocess
import sys
import threading
import unittest
from http.server import BaseHTTPRequestHandler, HTTPServer

import requests

from retrieval import client as rc
from retrieval.core import digests
from retrieval.core.service import RetrievalService
from retrieval.core.snapshot import default_snapshot_path
from retrieval.http.contract import HTTP_STATUS
from retrieval.http.exchange import encode_json
from retrieval.http.operations.search import parse_search_request, run_search
from retrieval.scenarios import QUESTION
from retrieval.testing import create_fault_app, subprocess_env
from retrieval.wsgi import create_app
from tests.support import ROOT, ask, call, post_json, quiet_settings, start_server

TIER = "server"

DROP = object()  # a scripted "response": read the request, then close without answering


def canned(status, body, headers=None, digest=True):
    """Return a scripted response; body is bytes or a JSON value, with a correct digest header."""
    raw = body if isinstance(body, bytes) else json.dumps(body, separators=(",", ":")).encode()
    all_headers = {"Content-Type": "application/json"}
    if digest:
        all_headers[rc.BODY_DIGEST_HEADER] = hashlib.sha256(raw).hexdigest()
    all_headers.update(headers or {})
    return status, all_headers, raw


def error_body(code, **extra):
    return {"error": {"code": code, **extra}, "admission": {"accepted": False}}


class FakeServer:
    """An http.server on a free loopback port, in a thread, answering from a script in order."""

    def __init__(self, testcase, *script):
        self.script = list(script)
        self.requests = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                fake.requests.append((self.command, self.path, dict(self.headers),
                                      self.rfile.read(length)))
                # The last scripted response repeats, so "always overloaded" is one entry.
                step = fake.script.pop(0) if len(fake.script) > 1 else fake.script[0]
                if step is DROP:
                    self.close_connection = True
                    return
                status, headers, raw = step
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            do_GET = do_POST = _answer

            def log_message(self, *args):
                pass

        self.httpd = HTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                  daemon=True)
        thread.start()
        testcase.addCleanup(thread.join)
        testcase.addCleanup(self.httpd.server_close)
        testcase.addCleanup(self.httpd.shutdown)


def closed_port_url() -> str:
    """Return a loopback URL nothing listens on (bound, then closed)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return f"http://127.0.0.1:{port}"


def reseal(body_without_member: bytes) -> bytes:
    """Append a result_sha256 that matches edited bytes, as a forger would."""
    return digests.append_result_sha256(body_without_member)


def run_ask(*args):
    """Run `python -m retrieval ask` and return the completed process (bytes output)."""
    return subprocess.run([sys.executable, "-m", "retrieval", "ask", *args], capture_output=True,
                          env=subprocess_env(), cwd=ROOT, timeout=60)


class Bodies:
    """Real response bodies from the app in process, to serve from the fake server."""

    @classmethod
    def setUpClass(cls):
        app = create_app()
        cls.completed = post_json(app, ask()).body
        app.close()
        fault_app = create_fault_app()
        cls.failed = post_json(fault_app, ask()).body
        fault_app.close()


class LiveServerTest(unittest.TestCase):
    def test_completed_result_is_typed_and_verified(self):
        server = start_server(self)
        with rc.RetrievalClient(server.base_url) as client:
            result = client.retrieve(QUESTION, "3.12")
        self.assertIsInstance(result, rc.RetrievalResult)
        self.assertEqual((result.status, result.reason, result.http_status),
                         ("completed", "configured_context_marker_found", 200))
        self.assertEqual(result.usage, rc.Usage(4, 2, 2, 378, 378))
        self.assertEqual(result.limits, rc.Limits(6, 2, 2, 4096))
        self.assertEqual([e.source_id for e in result.evidence], ["path-read", "path-write"])
        self.assertIn("An existing file is overwritten.", result.evidence[1].text)
        self.assertTrue(result.evidence[1].url.endswith("#pathlib.Path.write_text"))
        self.assertEqual(result.evidence[1].start_line, 1)
        self.assertEqual([(t.tool, t.decision, t.status) for t in result.trace],
                         [("search", "executed", "succeeded"),
                          ("read", "executed", "succeeded")] * 2)
        self.assertEqual(result.trace[0].arguments, {"query": "text", "version": "3.12", "k": 2})
        self.assertEqual(result.trace[3].usage_after, result.usage)
        self.assertEqual(result.request_id, digests.request_id(result.corpus_id, result.request))
        self.assertEqual(result.body_sha256, hashlib.sha256(result.raw).hexdigest())
        head, claimed = digests.split_result_sha256(result.raw)
        self.assertEqual(claimed, result.result_sha256)
        self.assertEqual(digests.response_result_sha256(head), claimed)

    def test_limited_result_keeps_the_denied_action(self):
        server = start_server(self)
        result = rc.RetrievalClient(server.base_url).retrieve(QUESTION, "3.12", max_steps=1)
        self.assertEqual((result.status, result.reason), ("limited", "max_steps"))
        self.assertEqual(result.usage.steps, 1)
        self.assertEqual(result.limits.max_steps, 1)
        denied = result.trace[1]
        self.assertEqual((denied.decision, denied.reason, denied.invoked), ("denied", "max_steps",
                                                                             False))
        self.assertIsNone(denied.usage_after)
        self.assertEqual(denied.preflight_source_bytes, 154)

    def test_refusals_are_typed(self):
        server = start_server(self)
        client = rc.RetrievalClient(server.base_url)
        with self.assertRaises(rc.InvalidRequest) as caught:
            client.retrieve(QUESTION, "3.12", max_steps=True)
        self.assertEqual((caught.exception.code, caught.exception.http_status),
                         ("invalid_request", 422))
        self.assertEqual(caught.exception.issues, [{
            "path": ["body", "max_steps"], "type": "int_type",
            "message": "body.max_steps must be an integer (6, not 6.0 or true)"}])
        self.assertEqual(str(caught.exception), "invalid_request (HTTP 422): the request is not "
                         "valid: body.max_steps must be an integer (6, not 6.0 or true)")
        self.assertEqual(hashlib.sha256(caught.exception.raw).hexdigest(),
                         caught.exception.headers[rc.BODY_DIGEST_HEADER])
        # Unknown keywords are sent as they are: this server decides it does not know them.
        with self.assertRaises(rc.InvalidRequest) as caught:
            client.retrieve(QUESTION, "3.12", colour="red")
        self.assertEqual([(i["path"], i["type"]) for i in caught.exception.issues],
                         [(["body", "colour"], "extra_forbidden")])
        with self.assertRaises(rc.CollectionNotFound) as caught:
            client.retrieve(QUESTION, "3.12", collection="docs")
        self.assertEqual(caught.exception.http_status, 404)
        self.assertIn("GET /corpus", caught.exception.message)
        with self.assertRaises(rc.NotFound) as caught:
            rc.RetrievalClient(server.base_url + "/elsewhere").retrieve(QUESTION, "3.12")
        self.assertEqual(caught.exception.http_status, 404)

    def test_health_and_corpus(self):
        server = start_server(self)
        client = rc.RetrievalClient(server.base_url)
        health, corpus = client.health(), client.corpus()
        self.assertEqual(health["status"], "ok")
        self.assertEqual(corpus["default_collection"], "default")
        [collection] = corpus["collections"]
        self.assertEqual(collection["corpus_id"], health["corpus_id"])
        self.assertEqual(collection["versions"], [{"version": "3.12", "passages": 4, "sources": 4}])

    def test_failed_run_is_returned_not_raised(self):
        server = start_server(self, "--app", "retrieval.testing:fault_app")
        sleeps = []
        result = rc.RetrievalClient(server.base_url, sleep=sleeps.append).retrieve(QUESTION, "3.12")
        self.assertEqual((result.status, result.reason, result.http_status),
                         ("failed", "retrieval_failed", 503))
        self.assertEqual(result.usage.steps, 1)
        self.assertEqual([(t.status, t.reason) for t in result.trace], [("failed", "tool_failure")])
        self.assertEqual(result.evidence, ())
        self.assertEqual(sleeps, [])  # a failed run is an answer, not a refusal to retry


class ErrorMappingTest(unittest.TestCase):
    TABLE = (
        ("invalid_request", 422, rc.InvalidRequest), ("invalid_json", 422, rc.InvalidJSON),
        ("body_too_large", 413, rc.BodyTooLarge),
        ("unsupported_media_type", 415, rc.UnsupportedMediaType),
        ("not_found", 404, rc.NotFound), ("method_not_allowed", 405, rc.MethodNotAllowed),
        ("query_not_allowed", 400, rc.QueryNotAllowed),
        ("invalid_content_length", 400, rc.InvalidContentLength),
        ("host_not_allowed", 421, rc.HostNotAllowed),
        ("not_ready", 503, rc.NotReady), ("internal_error", 500, rc.InternalError),
        ("unauthenticated", 401, rc.Unauthenticated),
        ("invalid_credentials", 401, rc.InvalidCredentials),
        ("collection_not_found", 404, rc.CollectionNotFound),
        ("version_not_found", 404, rc.VersionNotFound),
        ("passage_not_found", 404, rc.PassageNotFound), ("rate_limited", 429, rc.RateLimited),
        ("overloaded", 503, rc.Overloaded), ("draining", 503, rc.Draining),
        ("search_failed", 503, rc.SearchFailed), ("teapot", 418, rc.RetrievalError),
        ("diff_unavailable", 409, rc.DiffUnavailable),
    )

    def test_every_contract_code_has_its_own_exception(self):
        self.assertEqual(set(rc.ERROR_CLASSES), set(HTTP_STATUS))
        self.assertEqual({code for code, _, _ in self.TABLE} - {"teapot"}, set(HTTP_STATUS))

    def test_every_code_maps_to_its_exception(self):
        fake = FakeServer(self, *(canned(status, error_body(code))
                                  for code, status, _ in self.TABLE))
        client = rc.RetrievalClient(fake.base_url, max_retries=0)
        for code, status, cls in self.TABLE:
            with self.subTest(code), self.assertRaises(rc.RetrievalError) as caught:
                client.retrieve(QUESTION, "3.12")
            self.assertIs(type(caught.exception), cls)
            self.assertEqual((caught.exception.code, caught.exception.http_status), (code, status))
            self.assertEqual(caught.exception.body, error_body(code))

    def test_error_details(self):
        issues = [{"path": ["body"], "type": "model_attributes_type"}]
        fake = FakeServer(
            self, canned(422, error_body("invalid_request", issues=issues)),
            canned(429, error_body("rate_limited"), {"Retry-After": "5"}),
            canned(405, error_body("method_not_allowed"), {"Allow": "POST"}),
            canned(502, {"unexpected": True}))
        client = rc.RetrievalClient(fake.base_url)
        with self.assertRaises(rc.InvalidRequest) as caught:
            client.retrieve(QUESTION, "3.12")
        self.assertEqual(caught.exception.issues, issues)
        with self.assertRaises(rc.RateLimited) as caught:
            client.retrieve(QUESTION, "3.12")
        self.assertEqual(caught.exception.retry_after, 5)
        with self.assertRaises(rc.MethodNotAllowed) as caught:
            client.retrieve(QUESTION, "3.12")
        self.assertEqual(caught.exception.allowed, ("POST",))
        with self.assertRaises(rc.RetrievalError) as caught:
            client.retrieve(QUESTION, "3.12")
        self.assertIsNone(caught.exception.code)
        self.assertEqual(caught.exception.http_status, 502)

    def test_health_not_ready(self):
        fake = FakeServer(self, canned(503, {"status": "not_ready"}))
        with self.assertRaises(rc.NotReady):
            rc.RetrievalClient(fake.base_url).health()


class IntegrityTest(Bodies, unittest.TestCase):
    def assertRejected(self, step, message, **retrieve):
        fake = FakeServer(self, step)
        with self.assertRaises(rc.IntegrityError) as caught:
            rc.RetrievalClient(fake.base_url).retrieve(QUESTION, "3.12", **retrieve)
        self.assertIn(message, str(caught.exception))
        return caught.exception

    def test_untouched_body_is_accepted(self):
        fake = FakeServer(self, canned(200, self.completed))
        result = rc.RetrievalClient(fake.base_url).retrieve(QUESTION, "3.12")
        self.assertEqual(result.raw, self.completed)

    def test_body_not_matching_its_header(self):
        status, headers, raw = canned(200, self.completed)
        tampered = raw.replace(b"is overwritten", b"is preserved!")
        error = self.assertRejected((status, headers, tampered), "does not match the body")
        self.assertEqual(error.raw, tampered)

    def test_missing_header(self):
        self.assertRejected(canned(200, self.completed, digest=False), "no X-Retrieval-Body-SHA256")
        self.assertRejected(canned(422, error_body("invalid_json"), digest=False),
                            "no X-Retrieval-Body-SHA256")

    def test_body_that_is_not_strict_json(self):
        self.assertRejected(canned(200, b'{"status":"ok","status":"ok"}'), "not strict JSON")

    def test_result_sha256_must_recompute(self):
        edited = self.completed.replace(b"is overwritten", b"is preserved!")
        self.assertRejected(canned(200, edited), "result_sha256 does not recompute")
        head, _ = digests.split_result_sha256(self.completed)
        self.assertRejected(canned(200, head), "run result has no result_sha256")

    def test_read_results_must_recompute(self):
        head, _ = digests.split_result_sha256(self.completed)
        edited = reseal(head.replace(b"is overwritten", b"is preserved!"))
        self.assertRejected(canned(200, edited), "read result 'path-write'")

    def test_request_id_must_recompute(self):
        head, _ = digests.split_result_sha256(self.completed)
        edited = reseal(head.replace(b'"max_steps":6,', b'"max_steps":7,', 1))
        self.assertRejected(canned(200, edited), "request_id does not recompute")

    def test_parts_that_cannot_be_checked_are_refused(self):
        # Every digest resealed: a string among the evidence, a number among the trace entries.
        head, _ = digests.split_result_sha256(self.completed)
        for part, item in ((b"evidence", b'"unverified text"'), (b"trace", b"7")):
            with self.subTest(part):
                edited = reseal(head.replace(b'"%s":[' % part, b'"%s":[%s,' % (part, item), 1))
                self.assertRejected(canned(200, edited),
                                    f"{part.decode()}: an item is not an object")

    def test_result_for_another_request(self):
        # Self-consistent in every digest, but not the answer to what was asked.
        self.assertRejected(canned(200, self.completed), "echoed request field 'max_steps'",
                            max_steps=5)
        fake = FakeServer(self, canned(200, self.completed))
        with self.assertRaises(rc.IntegrityError) as caught:
            rc.RetrievalClient(fake.base_url).retrieve("Another question?", "3.12")
        self.assertIn("echoed request field 'question'", str(caught.exception))


class RetryTest(Bodies, unittest.TestCase):
    def client(self, url, **options):
        sleeps = []
        return rc.RetrievalClient(url, sleep=sleeps.append, **options), sleeps

    def test_overloaded_retried_after_retry_after(self):
        fake = FakeServer(self, canned(503, error_body("overloaded"), {"Retry-After": "2"}),
                          canned(200, self.completed))
        client, sleeps = self.client(fake.base_url)
        result = client.retrieve(QUESTION, "3.12")
        self.assertEqual(result.status, "completed")
        self.assertEqual(sleeps, [2.0])
        self.assertEqual(len(fake.requests), 2)
        self.assertEqual(fake.requests[0][3], fake.requests[1][3])

    def test_retries_exhausted(self):
        fake = FakeServer(self, canned(503, error_body("overloaded"), {"Retry-After": "120"}))
        client, sleeps = self.client(fake.base_url, max_retries=3)
        with self.assertRaises(rc.Overloaded) as caught:
            client.retrieve(QUESTION, "3.12")
        self.assertEqual(caught.exception.retry_after, 120)
        self.assertEqual(sleeps, [30.0, 30.0, 30.0])  # each wait capped
        self.assertEqual(len(fake.requests), 4)

    def test_draining_without_retry_after_backs_off(self):
        fake = FakeServer(self, canned(503, error_body("draining")))
        client, sleeps = self.client(fake.base_url, max_retries=2)
        with self.assertRaises(rc.Draining) as caught:
            client.retrieve(QUESTION, "3.12")
        self.assertIsNone(caught.exception.retry_after)
        self.assertEqual(sleeps, [0.1, 0.2])

    def test_not_retried(self):
        for step, cls in ((canned(429, error_body("rate_limited"), {"Retry-After": "1"}),
                           rc.RateLimited),
                          (canned(503, error_body("not_ready")), rc.NotReady),
                          (canned(500, error_body("internal_error")), rc.InternalError)):
            with self.subTest(cls.__name__):
                fake = FakeServer(self, step)
                client, sleeps = self.client(fake.base_url)
                with self.assertRaises(cls):
                    client.retrieve(QUESTION, "3.12")
                self.assertEqual((sleeps, len(fake.requests)), ([], 1))

    def test_failed_run_is_not_retried(self):
        fake = FakeServer(self, canned(503, self.failed))
        client, sleeps = self.client(fake.base_url)
        self.assertEqual(client.retrieve(QUESTION, "3.12").status, "failed")
        self.assertEqual((sleeps, len(fake.requests)), ([], 1))

    def test_connection_refused_retried_then_raised(self):
        client, sleeps = self.client(closed_port_url(), max_retries=2)
        with self.assertRaises(rc.TransportError) as caught:
            client.retrieve(QUESTION, "3.12")
        self.assertIsInstance(caught.exception.__cause__, requests.ConnectionError)
        self.assertEqual(sleeps, [0.1, 0.2])

    def test_connection_dropped_after_sending_is_not_retried(self):
        # The request reached the server: resending could run it twice.
        fake = FakeServer(self, DROP)
        client, sleeps = self.client(fake.base_url)
        with self.assertRaises(rc.TransportError):
            client.retrieve(QUESTION, "3.12")
        self.assertEqual((sleeps, len(fake.requests)), ([], 1))

    def test_request_fields_and_credentials(self):
        fake = FakeServer(self, canned(200, self.completed))
        client, _ = self.client(fake.base_url + "/", api_key="secret-key")
        client.retrieve(QUESTION, "3.12", max_steps=6, max_reads=None)
        method, path, headers, body = fake.requests[0]
        self.assertEqual((method, path), ("POST", "/retrieve"))
        self.assertEqual(headers["Authorization"], "Bearer secret-key")
        self.assertEqual(headers["Content-Type"], "application/json")
        self.assertEqual(json.loads(body), {"question": QUESTION, "version": "3.12",
                                            "max_steps": 6})


class DescribeActionTest(unittest.TestCase):
    def test_a_search_shows_its_arguments_that_are_not_the_default(self):
        def described(arguments):
            return rc._describe_action(rc.TraceEntry("search", arguments, "executed", True,
                                                     "succeeded", None, None, None))
        base = {"query": "remove tree", "version": "3.11", "k": 10}
        self.assertEqual(described(base), 'search "remove tree" (3.11, k=10)')
        self.assertEqual(described(dict(base, match="any", literals=True)),
                         'search "remove tree" (3.11, k=10, match=any, literals)')
        self.assertEqual(described(dict(base, semantic_query="How do I remove a tree?")),
                         'search "remove tree" (3.11, k=10, embedding "How do I remove a tree?")')


class AskCommandTest(Bodies, unittest.TestCase):
    def test_summary_json_and_exit_codes(self):
        server = start_server(self)
        url = ["--url", server.base_url]
        done = run_ask(QUESTION, "--version", "3.12", *url)
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = done.stdout.decode().splitlines()
        self.assertEqual(lines[0], "status completed (configured_context_marker_found), HTTP 200")
        self.assertEqual(lines[1], "usage steps 4/6, searches 2/2, reads 2/2, "
                                   "source bytes 378/4096 (delivered 378)")
        self.assertIn('  1 search "text" (3.12, k=2) executed succeeded', lines)
        self.assertIn("  4 read path-write lines 1-1 (3.12) executed succeeded", lines)
        hits = lines.index("first search's hits (2)")
        self.assertEqual(lines[hits + 1:hits + 4], ["  1 path-read lines 1-1 (read)",
                                                    "  2 path-write lines 1-1 (read)",
                                                    "evidence (2)"])
        self.assertIn("  2 path-write lines 1-1 "
                      "https://docs.python.org/3.12/library/pathlib.html#pathlib.Path.write_text",
                      lines)
        # Whole passages, wrapped at spaces (no line over 100 columns), nothing cut or rewritten.
        passage = lines[lines.index("  2 path-write lines 1-1 https://docs.python.org/3.12/"
                                    "library/pathlib.html#pathlib.Path.write_text") + 1:
                        lines.index(next(line for line in lines
                                         if line.startswith("request_id ")))]
        self.assertGreater(len(passage), 1)
        self.assertTrue(all(line.startswith("    ") and len(line) <= 100 for line in passage))
        text = json.loads(self.completed)["evidence"][1]["text"]
        self.assertEqual(" ".join(line.strip() for line in passage), text)
        cut = run_ask(QUESTION, "--version", "3.12", "--max-chars", "40", *url)
        self.assertIn(f"    {text[:40]}", cut.stdout.decode().splitlines())
        self.assertIn(f"    [... {len(text) - 40} more characters; --max-chars 0 shows all]",
                      cut.stdout.decode().splitlines())
        self.assertEqual(lines[-1], "verified")
        expected = rc.RetrievalClient(server.base_url).retrieve(QUESTION, "3.12")
        self.assertIn(f"request_id {expected.request_id}", lines)
        self.assertIn(f"corpus_id {expected.corpus_id}", lines)

        done = run_ask(QUESTION, "--version", "3.12", "--json", *url)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout, expected.raw)
        self.assertEqual(hashlib.sha256(done.stdout).hexdigest(), expected.body_sha256)

        done = run_ask(QUESTION, "--version", "3.12", "--max-steps", "1", *url)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("  2 read path-read lines 1-1 (3.12) DENIED max_steps "
                      "(needs 154 source bytes)", done.stdout.decode().splitlines())

        done = run_ask(QUESTION, "--version", "3.12", "--max-steps", "999", *url)
        self.assertEqual(done.returncode, 1)
        self.assertEqual(done.stderr.decode().splitlines(),
                         ["error invalid_request (HTTP 422)",
                          "  body.max_steps must be at most 64 (less_than_equal)"])
        self.assertEqual(done.stdout, b"")

    def test_connection_and_integrity_failures_exit_2(self):
        done = run_ask(QUESTION, "--version", "3.12", "--url", closed_port_url(), "--retries", "0")
        self.assertEqual(done.returncode, 2)
        self.assertIn(b"connection failure", done.stderr)
        status, headers, raw = canned(200, self.completed)
        fake = FakeServer(self, (status, headers, raw.replace(b"overwritten", b"kept as is!")))
        done = run_ask(QUESTION, "--version", "3.12", "--url", fake.base_url)
        self.assertEqual(done.returncode, 2)
        self.assertIn(b"integrity failure", done.stderr)
        self.assertEqual(done.stdout, b"")


class PassageAndSearchTest(unittest.TestCase):
    """passage() and search() verify each text's digest and passage_id, and search's echo."""

    @classmethod
    def setUpClass(cls):
        app = create_app(settings=quiet_settings())
        cls.addClassCleanup(app.close)
        cls.search = {"query": "file", "version": "3.12"}
        service = RetrievalService.from_path(default_snapshot_path())
        cls.addClassCleanup(service.close)
        cls.found = encode_json(run_search(service, parse_search_request(cls.search, 4096)))
        cls.passage_id = json.loads(cls.found)["hits"][0]["passage_id"]
        cls.passage = call(app, "GET", "/passages/" + cls.passage_id).body

    def fake(self, raw):
        return FakeServer(self, canned(200, raw)).base_url

    def test_untouched_answers_are_accepted(self):
        with rc.RetrievalClient(self.fake(self.passage)) as client:
            self.assertEqual(client.passage(self.passage_id)["passage_id"], self.passage_id)
        with rc.RetrievalClient(self.fake(self.found)) as client:
            self.assertTrue(client.search(**self.search)["hits"])

    def test_an_altered_text_or_echo_raises(self):
        cases = (
            ("passage", self.passage.replace(b"file", b"fiel", 1), "text_sha256"),
            ("search", self.found.replace(b"file", b"fiel", 1), "echoed request field"),
            ("search", self.found.replace(b'writes text', b'write text', 1), "text_sha256"),
        )
        for method, raw, message in cases:
            with self.subTest(method=method, message=message):
                client = rc.RetrievalClient(self.fake(raw))
                self.addCleanup(client.close)
                with self.assertRaises(rc.IntegrityError) as caught:
                    if method == "passage":
                        client.passage(self.passage_id)
                    else:
                        client.search(**self.search)
                self.assertIn(message, str(caught.exception))


if __name__ == "__main__":
    unittest.main()
