"""In-process WSGI: every rule of the HTTP boundary, each call checked by wsgiref.validate."""

import hashlib
import io
import json
import unittest

from retrieval.core import digests
from retrieval.core.tools import RetrievalTools
from retrieval.http import errors
from retrieval.http.contract import BODY_DIGEST_HEADER
from retrieval.http.errors import HTTP_STATUS, MAX_ISSUES
from retrieval.http.exchange import is_json_media_type
from retrieval.http.validation import VERSION_REGEX
from retrieval.scenarios import QUESTION
from retrieval.testing import CountingToolFactory, FailingTools
from retrieval.wsgi import create_app
from tests.support import UnreadableInput, ask, call, quiet_settings

TIER = "inprocess"


class AppTestCase(unittest.TestCase):
    def setUp(self):
        self.factory = CountingToolFactory()
        self.app = create_app(tool_factory=self.factory, settings=quiet_settings())
        self.addCleanup(self.app.close)

    def call(self, *args, **kwargs):
        """Call the app in process, noting how many tool instances the call created."""
        before = len(self.factory.created)
        reply = call(self.app, *args, **kwargs)
        reply.tools_created = len(self.factory.created) - before
        return reply

    def post(self, payload, **kwargs):
        body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        return self.call("POST", "/retrieve", body, **kwargs)

    def assertError(self, reply, http_status, code, issues=None):
        """Check the stable part of an error body (code, issues' path and type) and its words."""
        self.assertEqual(reply.code, http_status, reply.body)
        body = reply.json()
        self.assertEqual(list(body), ["error", "admission"])
        self.assertEqual(body["admission"], {"accepted": False})
        error = body["error"]
        self.assertEqual(error["code"], code)
        self.assertIsInstance(error["message"], str)
        self.assertTrue(error["message"])
        if issues is None:
            self.assertNotIn("issues", error)
        else:
            self.assertEqual([{"path": i["path"], "type": i["type"]} for i in error["issues"]],
                             issues)
            for issue in error["issues"]:
                self.assertTrue(issue["message"].startswith(".".join(issue["path"]) + " "))
        if hasattr(reply, "tools_created"):
            self.assertEqual(reply.tools_created, 0, "a refused request created tools")

    def assertIssues(self, payload, *issues):
        reply = self.post(payload)
        self.assertError(reply, 422, "invalid_request",
                         [{"path": list(path), "type": kind} for path, kind in issues])


class ErrorShapeTest(AppTestCase):
    def test_error_body_shape_and_headers_are_pinned(self):
        reply = self.post(ask(max_steps=True, extra=1))
        self.assertEqual(reply.status, "422 Unprocessable Content")
        # The seed shape plus, since the errors-that-explain issue, a message per error and issue.
        self.assertEqual(reply.body, (
            b'{"error":{"code":"invalid_request","message":"the request is not valid: '
            b'body.max_steps must be an integer (6, not 6.0 or true); body.extra is not a field '
            b'of this request","issues":['
            b'{"path":["body","max_steps"],"type":"int_type",'
            b'"message":"body.max_steps must be an integer (6, not 6.0 or true)"},'
            b'{"path":["body","extra"],"type":"extra_forbidden",'
            b'"message":"body.extra is not a field of this request"}]},'
            b'"admission":{"accepted":false}}'))
        self.assertEqual(reply.headers["Content-Type"], "application/json")
        self.assertEqual(reply.headers["Content-Length"], str(len(reply.body)))
        self.assertEqual(reply.headers[BODY_DIGEST_HEADER], hashlib.sha256(reply.body).hexdigest())

    def test_every_error_code_has_a_message(self):
        arguments = {errors.MethodNotAllowed: (("POST",),), errors.BodyTooLarge: (4096,),
                     errors.InvalidJSON: ("expecting value at byte 0", 0),
                     errors.InvalidRequest: ([{"path": ["body"], "type": "missing"}],),
                     errors.RateLimited: (3,), errors.QueryNotAllowed: ("/retrieve",),
                     errors.VersionNotFound: ("python", "3.12", ["3.11"])}
        classes = [cls for cls in vars(errors).values() if isinstance(cls, type)
                   and issubclass(cls, errors.ServiceError) and cls is not errors.ServiceError]
        self.assertEqual(sorted({cls.code for cls in classes}), sorted(HTTP_STATUS))
        for cls in classes:
            with self.subTest(code=cls.code):
                body = cls(*arguments.get(cls, ())).to_body()
                self.assertEqual(list(body["error"])[:2], ["code", "message"])
                self.assertTrue(body["error"]["message"].strip())

    def test_every_status_line_is_well_formed(self):
        for code, status in HTTP_STATUS.items():
            number, _, phrase = status.partition(" ")
            self.assertTrue(number.isdigit() and phrase, code)


class RoutingTest(AppTestCase):
    def test_health(self):
        reply = self.call("GET", "/health")
        self.assertEqual(reply.code, 200)
        self.assertEqual(reply.json(), {"status": "ok", "mode": "offline-scripted-retrieval",
                                        "corpus_id": self.app.corpus_id})

    def test_head_health_has_headers_and_no_body(self):
        get, head = self.call("GET", "/health"), self.call("HEAD", "/health")
        self.assertEqual((head.code, head.body), (200, b""))
        self.assertEqual(head.headers["Content-Length"], str(len(get.body)))
        self.assertEqual(head.headers[BODY_DIGEST_HEADER], get.headers[BODY_DIGEST_HEADER])

    def test_unknown_path_and_wrong_method(self):
        self.assertError(self.call("GET", "/nope"), 404, "not_found")
        self.assertError(self.call("GET", "/retrieve/"), 404, "not_found")
        reply = self.call("GET", "/retrieve")
        self.assertError(reply, 405, "method_not_allowed")
        self.assertEqual(reply.headers["Allow"], "POST")
        reply = self.call("DELETE", "/health")
        self.assertError(reply, 405, "method_not_allowed")
        self.assertEqual(reply.headers["Allow"], "GET, HEAD")

    def test_query_string_on_retrieve_is_refused_not_ignored(self):
        reply = self.call("POST", "/retrieve", json.dumps(ask()).encode(), query="version=3.11")
        self.assertError(reply, 400, "query_not_allowed")

    def test_closed_app_is_not_ready(self):
        self.app.close()
        reply = self.call("GET", "/health")
        self.assertEqual((reply.code, reply.json()), (503, {"status": "not_ready"}))
        self.assertError(self.post(ask()), 503, "not_ready")


class BodyBoundaryTest(AppTestCase):
    def test_media_type_is_checked_first_without_reading(self):
        for content_type in ("text/plain", "application/jsonx", "application/x-www-form-urlencoded",
                             "", "application/json; charset=latin-1", None):
            with self.subTest(content_type=content_type):
                reply = self.call("POST", "/retrieve", UnreadableInput(),
                             content_type=content_type, content_length="99999")
                self.assertError(reply, 415, "unsupported_media_type")

    def test_media_type_allows_case_and_parameters(self):
        for content_type in ("Application/JSON", "application/json; charset=utf-8",
                             'application/json;charset="UTF-8"', "application/json ; foo=bar"):
            self.assertTrue(is_json_media_type(content_type), content_type)
            reply = self.call("POST", "/retrieve", json.dumps(ask()).encode(),
                         content_type=content_type)
            self.assertEqual(reply.code, 200)

    def test_declared_length_over_the_cap_is_refused_unread(self):
        reply = self.call("POST", "/retrieve", UnreadableInput(), content_length="4097")
        self.assertError(reply, 413, "body_too_large")

    def test_body_at_the_cap_is_read(self):
        body = json.dumps(ask()).encode()
        body += b" " * (4096 - len(body))
        self.assertEqual(self.call("POST", "/retrieve", body).code, 200)
        self.assertError(self.call("POST", "/retrieve", body + b" "), 413, "body_too_large")

    def test_undeclared_body_is_cut_off_after_cap_plus_one(self):
        class CountingInput(io.BytesIO):
            def read(self, size=-1):
                self.asked = getattr(self, "asked", 0) + size
                return super().read(size)

        stream = CountingInput(b" " * 100_000)
        reply = self.call("POST", "/retrieve", stream, content_length=None,
                     environ={"wsgi.input_terminated": True})
        self.assertError(reply, 413, "body_too_large")
        self.assertLessEqual(stream.tell(), 4097)

        body = json.dumps(ask()).encode()
        reply = self.call("POST", "/retrieve", io.BytesIO(body), content_length=None,
                     environ={"HTTP_TRANSFER_ENCODING": "chunked"})
        self.assertEqual(reply.code, 200)

    def test_a_body_arriving_in_short_reads_is_read_whole(self):
        class TrickleInput(io.BytesIO):
            def read(self, size=-1):  # at most 7 bytes a read, as a socket-backed stream may
                return super().read(min(size, 7))

        body = json.dumps(ask()).encode()
        reply = self.call("POST", "/retrieve", TrickleInput(body), content_length=str(len(body)))
        self.assertEqual(reply.code, 200)
        reply = self.call("POST", "/retrieve", TrickleInput(body), content_length=None,
                          environ={"HTTP_TRANSFER_ENCODING": "chunked"})
        self.assertEqual(reply.code, 200)

    def test_malformed_content_length(self):
        for length in ("12abc", "-1", "٣", " 5"):
            reply = self.call("POST", "/retrieve", UnreadableInput(), content_length=length,
                              validate=False)
            self.assertError(reply, 400, "invalid_content_length")

    def test_invalid_json_categories(self):
        valid = json.dumps(ask())
        bodies = {
            "invalid utf-8": b'{"question": "\xff", "version": "3.12"}',
            "bom": b"\xef\xbb\xbf" + valid.encode(),
            "duplicate key": b'{"question": "a", "question": "b", "version": "3.12"}',
            "nested duplicate": b'{"question": "a", "version": "3.12", "x": {"k": 1, "k": 2}}',
            "nan": valid[:-1].encode() + b', "max_steps": NaN}',
            "infinity": valid[:-1].encode() + b', "max_steps": Infinity}',
            "-infinity": valid[:-1].encode() + b', "max_steps": -Infinity}',
            "lone surrogate": b'{"question": "\\ud800", "version": "3.12"}',
            "deep nesting": b'{"question": ' + b"[" * 1000 + b"]" * 1000 + b"}",
            "huge float": valid[:-1].encode() + b', "max_steps": 1e999}',
            "trailing garbage": valid.encode() + b" x",
            "empty": b"",
            "truncated": valid[:20].encode(),
        }
        for name, body in bodies.items():
            with self.subTest(name):
                self.assertError(self.call("POST", "/retrieve", body), 422, "invalid_json")


class ValidationTest(AppTestCase):
    def test_body_must_be_an_object(self):
        for payload in ([], "text", 1, None):
            self.assertIssues(payload, (["body"], "model_attributes_type"))

    def test_missing_and_wrongly_typed_strings(self):
        self.assertIssues({}, (["body", "question"], "missing"), (["body", "version"], "missing"))
        self.assertIssues({"question": 1, "version": None},
                          (["body", "question"], "string_type"),
                          (["body", "version"], "string_type"))

    def test_question_length(self):
        for blank in ("", "   ", "\n\t"):
            self.assertIssues(ask(question=blank), (["body", "question"], "string_too_short"))
        self.assertIssues(ask(question="é" * 1001), (["body", "question"], "string_too_long"))
        self.assertEqual(self.post(ask(question="é" * 1000)).code, 200)

    def test_version_pattern(self):
        for version in ("3.12.", "3.12\n", "٣.١٢", " 3.12", "", "latest", "3.x", "1..2",
                        "3.1234567890"):
            with self.subTest(version=version):
                self.assertIssues(ask(version=version),
                                  (["body", "version"], "string_pattern_mismatch"))
        # X.Y and X.Y.Z (issue 14: Django 3.2.25, pandas 1.5.3) are both versions, and so is
        # any PEP 440 spelling (issue 45: calendar versions, pre-, post- and dev releases, v).
        for version in ("0.0", "123.456", "3.12", "3.2.25", "1.5.3", "3", "3.12.1.4", "v3.12",
                        "2024.8.30", "2.5.0b1", "1.0.post1", "1.0.dev0", "3-12"):
            self.assertEqual(self.post(ask(version=version)).code, 200)
        # Of the fixture (a JSON snapshot, which declares no versions), another spelling of a
        # version it holds is served as held, and said so; any other is searched as its normal
        # form (3-12 is PEP 440's 3.post12).
        self.assertEqual(self.post(ask(version="v3.12")).json()["request"]["served_version"],
                         "3.12")
        self.assertEqual(self.post(ask(version="3-12")).json()["request"]["served_version"],
                         "3.post12")

    def test_counts_must_be_true_integers_in_range(self):
        for field in ("max_steps", "max_searches", "max_reads", "max_source_bytes"):
            for value, issue in ((True, "int_type"), (False, "int_type"), (6.0, "int_type"),
                                 ("6", "int_type"), (None, "int_type"), ([6], "int_type"),
                                 (-1, "greater_than_equal"), (10 ** 30, "less_than_equal")):
                with self.subTest(field=field, value=value):
                    self.assertIssues(ask(**{field: value}), (["body", field], issue))

    def test_minus_zero_is_not_how_a_count_is_written(self):
        # Accepted as 0, `-0` and `0` would be two byte strings of one request (one request_id).
        for field in ("max_steps", "max_searches", "max_reads", "max_source_bytes"):
            with self.subTest(field=field):
                body = json.dumps(ask()).encode()[:-1] + f', "{field}": -0}}'.encode()
                self.assertError(call(self.app, "POST", "/retrieve", body), 422,
                                 "invalid_request", [{"path": ["body", field], "type": "int_type"}])
        self.assertEqual(self.post(ask(max_steps=0)).code, 200)

    def test_server_maxima_are_inclusive(self):
        reply = self.post(ask(max_steps=64, max_searches=32, max_reads=32,
                                        max_source_bytes=1048576))
        self.assertEqual(reply.code, 200)
        self.assertIssues(ask(max_steps=65), (["body", "max_steps"], "less_than_equal"))
        self.assertEqual(self.post(ask(max_steps=0)).json()["reason"], "max_steps")

    def test_issue_order_and_bounds(self):
        payload = {"zeta": 1, "max_reads": -1, "question": "", "alpha": 2}
        self.assertIssues(payload, (["body", "question"], "string_too_short"),
                          (["body", "version"], "missing"),
                          (["body", "max_reads"], "greater_than_equal"),
                          (["body", "zeta"], "extra_forbidden"),
                          (["body", "alpha"], "extra_forbidden"))
        many = {f"field{i:02}" + "x" * 100: i for i in range(20)}
        reply = self.post(many)
        issues = reply.json()["error"]["issues"]
        self.assertEqual(len(issues), MAX_ISSUES)
        self.assertEqual(issues[2]["path"], ["body", ("field00" + "x" * 100)[:64]])


class MountedTest(AppTestCase):
    """Under a prefix (SCRIPT_NAME) the routes are the same; the bare prefix goes to its page."""

    def test_bare_mount_point_redirects_to_the_inspector(self):
        reply = self.call("GET", "", environ={"SCRIPT_NAME": "/rag"})
        self.assertEqual((reply.code, reply.headers["Location"], reply.body), (308, "/rag/", b""))
        page = self.call("GET", "/", environ={"SCRIPT_NAME": "/rag"})
        self.assertEqual(page.code, 200)
        self.assertIn(b'src="inspector.js"', page.body)
        self.assertEqual(self.post(ask(), environ={"SCRIPT_NAME": "/rag"}).code, 200)


class ExplainingErrorsTest(AppTestCase):
    """Each error says in words what was wrong, and each issue the bound or pattern it broke."""

    def issue(self, payload):
        issues = self.post(payload).json()["error"]["issues"]
        self.assertEqual(len(issues), 1, issues)
        return issues[0]

    def test_issues_carry_the_bound_they_broke(self):
        self.assertEqual(self.issue(ask(max_steps=100)), {
            "path": ["body", "max_steps"], "type": "less_than_equal", "limit": 64,
            "message": "body.max_steps must be at most 64"})
        self.assertEqual(self.issue(ask(max_source_bytes=-1))["limit"], 0)
        self.assertEqual(self.issue(ask(question="x" * 1001))["limit"], 1000)
        self.assertIn("at most 1000 characters", self.issue(ask(question="x" * 1001))["message"])

    def test_pattern_mismatches_show_the_pattern(self):
        version = self.issue(ask(version="latest"))
        self.assertEqual(version["pattern"], VERSION_REGEX)  # PEP 440's grammar (core/names.py)
        self.assertIn(version["pattern"], version["message"])
        collection = self.issue(ask(collection="Docs!"))
        self.assertEqual(collection["pattern"], "^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$")
        self.assertEqual(self.issue(ask(version=3)), {
            "path": ["body", "version"], "type": "string_type",
            "message": "body.version must be a string"})

    def test_invalid_json_says_where_and_what_was_expected(self):
        cases = [
            (b'{"question": "q", "version": "3.12", "question": "x"}', 37,
             'duplicate key "question"'),
            (b'{"question": "Will write_text', 13, "unterminated string"),
            (b'{"question": "q" "version": "3.12"}', 17, "expecting ',' delimiter"),
            (b'{"question": "q"} x', 18, "unexpected data after the JSON value"),
            (b'{"q": "\xc3\xa9", "a": \xff}', 17, "invalid UTF-8"),
            # Offsets count bytes, not characters: the e-acute before the problem is two.
            (b'{"q": "\xc3\xa9" "a": 1}', 11, "expecting ',' delimiter"),
            (b"", 0, "empty document"),
        ]
        for body, offset, words in cases:
            with self.subTest(body=body):
                reply = self.call("POST", "/retrieve", body)
                self.assertError(reply, 422, "invalid_json")
                error = reply.json()["error"]
                self.assertEqual(error["byte_offset"], offset)
                self.assertIn(words, error["message"])
                self.assertIn(f"at byte {offset}", error["message"])

    def test_refusals_name_what_to_send(self):
        media = self.call("POST", "/retrieve", b"{}", content_type="text/plain").json()
        self.assertIn("application/json", media["error"]["message"])
        large = self.call("POST", "/retrieve", b" " * 5000).json()
        self.assertIn("4096 bytes", large["error"]["message"])
        method = self.call("GET", "/retrieve").json()
        self.assertIn("POST", method["error"]["message"])
        too_many = self.post(ask(max_steps=100)).json()["error"]["message"]
        self.assertEqual(too_many, "the request is not valid: body.max_steps must be at most 64")


class RetrieveResponseTest(AppTestCase):
    def test_success_body_layout_and_digests(self):
        reply = self.post(ask())
        self.assertEqual(reply.code, 200)
        body = reply.json()
        self.assertEqual(list(body), [
            "schema_version", "execution_mode", "model_called", "request_id", "corpus_id",
            "request", "status", "reason", "admission", "usage", "trace", "evidence", "policy",
            "result_sha256"])
        self.assertEqual(list(body["request"].items()), [
            ("question", QUESTION), ("version", "3.12"), ("collection", "default"),
            ("max_steps", 6), ("max_searches", 2), ("max_reads", 2), ("max_source_bytes", 4096)])
        self.assertEqual(body["admission"], {"accepted": True, "limits": {
            "max_steps": 6, "max_searches": 2, "max_reads": 2, "max_source_bytes": 4096}})
        self.assertEqual(body["request_id"], digests.request_id(body["corpus_id"], body["request"]))
        member = b',"result_sha256":"' + body["result_sha256"].encode() + b'"}'
        self.assertTrue(reply.body.endswith(member))
        without = reply.body[:-len(member)] + b"}"
        self.assertEqual(body["result_sha256"], digests.response_result_sha256(without))
        self.assertEqual(digests.split_result_sha256(reply.body), (without, body["result_sha256"]))
        self.assertEqual(reply.headers[BODY_DIGEST_HEADER], hashlib.sha256(reply.body).hexdigest())
        self.assertNotIn(b" ", reply.body.replace(QUESTION.encode(), b"").split(b'"text"')[0])
        self.assertEqual((len(self.factory.created), self.factory.open_count), (1, 0))

    def test_same_request_same_bytes_and_defaults_fill_request_id(self):
        first = self.post(ask())
        explicit = self.post(ask(max_steps=6, max_searches=2, max_reads=2,
                                           max_source_bytes=4096))
        self.assertEqual(first.body, explicit.body)
        other = create_app(settings=quiet_settings())
        self.addCleanup(other.close)
        self.assertEqual(call(other, "POST", "/retrieve", json.dumps(ask()).encode()).body,
                         first.body)
        self.assertNotEqual(self.post(ask(max_steps=7)).json()["request_id"],
                            first.json()["request_id"])

    def test_body_is_exactly_the_compact_serialization_of_itself(self):
        # Tool results are spliced in from per-process caches; whatever the question holds, the
        # bytes must be those a plain compact json.dumps of the same document gives.
        for question in ("write_text \\udfff \"quoted\" \u0000 \u2028", "\U0001F600 existing file",
                         "backups \\u0000"):
            for limits in ({}, {"max_steps": 1}, {"max_source_bytes": 200}):
                with self.subTest(question=question, limits=limits):
                    reply = self.post(ask(question=question, **limits))
                    document = json.loads(reply.body)
                    self.assertEqual(reply.body, json.dumps(
                        document, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
                    self.assertEqual(document["request"]["question"], question)

    def test_non_ascii_is_sent_as_utf8(self):
        reply = self.post(ask(question="Écrire write_text — ok?"))
        self.assertIn("Écrire write_text — ok?".encode(), reply.body)

    def test_tool_failure_is_503_failed_with_charge_kept(self):
        factory = CountingToolFactory(FailingTools, fail_at=3)
        app = create_app(tool_factory=factory, settings=quiet_settings())
        self.addCleanup(app.close)
        reply = call(app, "POST", "/retrieve", json.dumps(ask()).encode())
        self.assertEqual(reply.code, 503)
        body = reply.json()
        self.assertEqual((body["status"], body["reason"]), ("failed", "retrieval_failed"))
        self.assertEqual(body["usage"]["searches"], 2)
        self.assertEqual([e["source_id"] for e in body["evidence"]], ["path-read"])
        self.assertNotIn(b"Traceback", reply.body)
        self.assertEqual(factory.open_count, 0)

    def test_unexpected_exception_is_a_bare_500_logged_to_wsgi_errors(self):
        class BrokenTools(RetrievalTools):
            def search(self, search):
                raise RuntimeError("secret internal detail")

        factory = CountingToolFactory(BrokenTools)
        app = create_app(tool_factory=factory, settings=quiet_settings())
        self.addCleanup(app.close)
        errors = io.StringIO()
        reply = call(app, "POST", "/retrieve", json.dumps(ask()).encode(),
                     environ={"wsgi.errors": errors})
        self.assertEqual(reply.code, 500)
        self.assertEqual(reply.json(), {"error": {
            "code": "internal_error",
            "message": "internal error: the server's log has the details"},
            "admission": {"accepted": False}})
        self.assertIn("secret internal detail", errors.getvalue())
        self.assertNotIn(b"secret", reply.body)
        self.assertEqual(factory.open_count, 0)


if __name__ == "__main__":
    unittest.main()
