"""In process, via wsgiref.validate: rate limits, /metrics, the access log, in-flight admission."""

import io
import json
import os
import unittest

from retrieval.http.access_log import BatchedLineWriter
from retrieval.http.auth import add_key
from retrieval.http.inflight import ADMISSION_KEY
from retrieval.http.metrics import CONTENT_TYPE
from retrieval.scenarios import SCENARIOS
from retrieval.wsgi import create_app
from tests.support import ask, call, quiet_settings, temporary_directory, wait_for
from tests.support.prometheus import parse_exposition

TIER = "inprocess"


def post(app, body, key=None, environ=None):
    environ = dict(environ or {})
    if key is not None:
        environ["HTTP_AUTHORIZATION"] = f"Bearer {key}"
    return call(app, "POST", "/retrieve", json.dumps(body).encode(), environ=environ)


class RateLimitTest(unittest.TestCase):
    def setUp(self):
        keys_file = os.path.join(temporary_directory(self), "keys.json")
        # A bucket of two that refills once a day: the third request in a test is refused.
        self.slow = add_key(keys_file, "slow", ["default"], per_second=1 / 86400, burst=2)
        self.free = add_key(keys_file, "free", ["default"])
        self.app = create_app(settings=quiet_settings(keys_file=keys_file))
        self.addCleanup(self.app.close)

    def test_a_key_past_its_bucket_gets_429_with_retry_after(self):
        self.assertEqual([post(self.app, ask(), self.slow).code for _ in range(2)], [200, 200])
        refused = post(self.app, ask(), self.slow)
        self.assertEqual((refused.code, refused.json()["error"]["code"]), (429, "rate_limited"))
        self.assertGreaterEqual(int(refused.headers["Retry-After"]), 86400 - 1)
        # Other keys have their own buckets; unlimited keys are never refused.
        self.assertEqual([post(self.app, ask(), self.free).code for _ in range(5)], [200] * 5)

    def test_refused_credentials_do_not_spend_tokens(self):
        for _ in range(3):
            self.assertEqual(post(self.app, ask(), "rk_wrong").code, 401)
        self.assertEqual([post(self.app, ask(), self.slow).code for _ in range(2)], [200, 200])


class MetricsTest(unittest.TestCase):
    def setUp(self):
        self.app = create_app(settings=quiet_settings())
        self.addCleanup(self.app.close)

    def test_metrics_parse_and_count_what_happened(self):
        for scenario in SCENARIOS:
            call(self.app, "POST", "/retrieve", scenario.body(),
                 content_type=scenario.content_type)
        call(self.app, "GET", "/nowhere")
        post(self.app, ask(), environ={ADMISSION_KEY: False})  # refused by a server's gate
        reply = call(self.app, "GET", "/metrics")
        self.assertEqual(reply.headers["Content-Type"], CONTENT_TYPE)
        metrics = parse_exposition(reply.body.decode())
        requests = metrics["retrieval_requests_total"]
        ran = [s for s in SCENARIOS if s.http_status == 200]
        self.assertEqual(requests.value(route="/retrieve", status="200", code=""), len(ran))
        self.assertEqual(requests.value(route="/retrieve", status="422", code="invalid_request"), 2)
        self.assertEqual(requests.value(route="/retrieve", status="415",
                                        code="unsupported_media_type"), 1)
        self.assertEqual(requests.value(route="other", status="404", code="not_found"), 1)
        self.assertEqual(requests.value(route="/retrieve", status="503", code="overloaded"), 1)
        runs = metrics["retrieval_runs_total"]
        self.assertEqual(sum(runs.series().values()), len(ran))
        self.assertEqual(runs.value(status="completed"), 1)
        self.assertEqual(metrics["retrieval_admission_refusals_total"].value(
            reason="overloaded"), 1)
        duration = metrics["retrieval_request_duration_seconds"]
        self.assertEqual(duration.value("retrieval_request_duration_seconds_count",
                                        route="/retrieve"), len(SCENARIOS) + 1)
        self.assertEqual(metrics["retrieval_in_flight"].value(), 0)

    def test_routes_are_templates_not_raw_paths(self):
        call(self.app, "GET", "/passages/" + "0" * 64)
        call(self.app, "GET", "/passages/" + "1" * 64)
        metrics = parse_exposition(call(self.app, "GET", "/metrics").body.decode())
        self.assertEqual(metrics["retrieval_requests_total"].value(
            route="/passages/{passage_id}", status="404", code="passage_not_found"), 2)


class InFlightInProcessTest(unittest.TestCase):
    """Under a WSGI server other than `retrieval serve`, the app counts running requests."""

    def test_the_app_gate_refuses_past_max_in_flight(self):
        app = create_app(settings=quiet_settings(max_in_flight=1))
        self.addCleanup(app.close)
        self.assertTrue(app.in_flight.try_enter())  # another request is running
        refused = post(app, ask())
        self.assertEqual((refused.code, refused.json()["error"]["code"],
                          refused.headers["Retry-After"]), (503, "overloaded", "1"))
        app.in_flight.leave()
        self.assertEqual(post(app, ask()).code, 200)
        self.assertEqual(app.in_flight.count, 0)


class AccessLogTest(unittest.TestCase):
    def test_one_json_line_per_request_without_question_or_secret(self):
        keys_file = os.path.join(temporary_directory(self), "keys.json")
        secret = add_key(keys_file, "ci-bot", ["default"])
        lines = []
        app = create_app(settings=quiet_settings(keys_file=keys_file), access_log=lines.append)
        self.addCleanup(app.close)
        post(app, ask(), secret)
        post(app, ask(), "rk_wrong")
        call(app, "GET", "/health")
        call(app, "GET", "/")
        self.assertEqual(len(lines), 4)
        records = [json.loads(line) for line in lines]
        self.assertEqual(list(records[0]), ["time", "route", "status", "outcome", "request_id",
                                            "usage", "duration_ms", "key_id"])
        ok, refused, health, page = records
        self.assertEqual((ok["route"], ok["status"], ok["outcome"], ok["key_id"]),
                         ("/retrieve", 200, "completed", "ci-bot"))
        self.assertEqual(ok["usage"]["steps"], 4)
        self.assertRegex(ok["request_id"], "^[0-9a-f]{64}$")
        self.assertEqual((refused["status"], refused["outcome"], refused["key_id"]),
                         (401, "invalid_credentials", None))
        self.assertEqual((health["outcome"], page["route"], page["status"]), ("ok", "/", 200))
        self.assertTrue(all(record["duration_ms"] >= 0 for record in records))
        text = "\n".join(lines)
        for forbidden in (ask()["question"], secret, "rk_wrong"):
            self.assertNotIn(forbidden, text)


class BatchedLineWriterTest(unittest.TestCase):
    def test_lines_are_written_in_order_in_batches_and_on_close(self):
        stream = io.StringIO()
        writer = BatchedLineWriter(stream, batch_lines=3, delay_s=3600)
        self.addCleanup(writer.close)
        for n in range(4):
            writer(f"line {n}")
        self.assertEqual(stream.getvalue(), "line 0\nline 1\nline 2\n")  # one full batch
        writer.close()
        self.assertEqual(stream.getvalue().splitlines(), [f"line {n}" for n in range(4)])

    def test_the_flusher_writes_a_partial_batch(self):
        stream = io.StringIO()
        writer = BatchedLineWriter(stream, batch_lines=100, delay_s=0.01)
        self.addCleanup(writer.close)
        writer("alone")
        wait_for(lambda: stream.getvalue() == "alone\n", "the background flush")

    def test_a_broken_stream_drops_lines_without_raising(self):
        class Broken(io.StringIO):
            def write(self, text):
                raise BrokenPipeError()

        writer = BatchedLineWriter(Broken(), batch_lines=1, delay_s=3600)
        writer("lost")
        writer.close()


if __name__ == "__main__":
    unittest.main()
