"""Unit: the hand-written Prometheus exposition, checked by a strict parser of the text format."""

import itertools
import sys
import threading
import time
import unittest

from retrieval.core.memo import MemoStats
from retrieval.http.metrics import CONTENT_TYPE, LATENCY_BUCKETS, Metrics
from tests.support.prometheus import ExpositionError, parse_exposition

TIER = "unit"

FAMILIES = (
    ("retrieval_requests_total", "counter"),
    ("retrieval_runs_total", "counter"),
    ("retrieval_request_duration_seconds", "histogram"),
    ("retrieval_in_flight", "gauge"),
    ("retrieval_admission_refusals_total", "counter"),
    ("retrieval_tool_failures_total", "counter"),
    ("retrieval_memo_lookups_total", "counter"),
    ("retrieval_memo_evictions_total", "counter"),
    ("retrieval_memo_entries", "gauge"),
    ("retrieval_memo_bytes", "gauge"),
)
REQUESTS, RUNS, DURATION, IN_FLIGHT, REFUSALS, TOOL_FAILURES = (name for name, _ in FAMILIES[:6])
LE = [repr(float(bound)) for bound in LATENCY_BUCKETS] + ["+Inf"]


def parse(metrics):
    body = metrics.render()
    if not isinstance(body, bytes):
        raise AssertionError(f"render() returned {type(body).__name__}, not bytes")
    return parse_exposition(body.decode("utf-8"))


# --- The parser itself --------------------------------------------------------------------------

VALID = """\
# HELP c_total A counter with a \\\\ and a \\n in its help.
# TYPE c_total counter
c_total{a="x",b="q\\"b\\\\s\\nn"} 3
c_total{a="y",b=""} 0
# an ordinary comment
# TYPE g gauge
# HELP g A gauge.
g -1.5e3
# HELP h A histogram.
# TYPE h histogram
h_bucket{le="0.5"} 1
h_bucket{le="+Inf"} 2
h_sum 0.75
h_count 2
"""


def broken(old, new):
    if old not in VALID:
        raise AssertionError(f"{old!r} is not in VALID")
    return VALID.replace(old, new, 1)


BROKEN = [
    # (what, document, fragment of the expected message)
    ("no final newline", VALID[:-1], "newline"),
    ("blank line", broken("# an ordinary", "\n# an ordinary"), "blank line"),
    ("sample of no family", "x 1\n", "before any TYPE"),
    ("HELP without TYPE", "# HELP x X.\nx 1\n", "before any TYPE"),
    ("counter sample under another name", broken("c_total{a=\"y\"", "c_totals{a=\"y\""),
     "not a sample of c_total"),
    ("counter sample named like a bucket", broken('c_total{a="y"', 'c_total_bucket{a="y"'),
     "not a sample"),
    ("histogram sample with a foreign suffix", broken("h_sum", "h_total"),
     "not a sample of histogram"),
    ("bucket without le", broken('h_bucket{le="0.5"}', 'h_bucket{x="0.5"}'), "le belongs"),
    ("le on _count", broken("h_count 2", 'h_count{le="1"} 2'), "le belongs"),
    ("non-float le", broken('le="0.5"', 'le="half"'), "not a float"),
    ("duplicate series",
     broken('c_total{a="y",b=""} 0', 'c_total{a="y",b=""} 0\nc_total{b="",a="y"} 1'),
     "duplicate series"),
    ("non-float value", broken("g -1.5e3", "g one"), "not a float"),
    ("underscored value", broken("g -1.5e3", "g 1_000"), "not a float"),
    ("hex value", broken("g -1.5e3", "g 0x10"), "not a float"),
    ("lowercase inf", broken("g -1.5e3", "g inf"), "not a float"),
    ("timestamp", broken("g -1.5e3", "g -1.5e3 1700000000000"), "not a float"),
    ("two spaces", broken("g -1.5e3", "g  -1.5e3"), "not a float"),
    ("no value", broken("g -1.5e3", "g"), "one space"),
    ("unquoted label value", broken('a="x"', "a=x"), '=" expected'),
    ("unterminated label value", broken('c_total{a="y",b=""} 0', 'c_total{a="y} 0'),
     "unterminated"),
    ("missing comma", broken('a="x",b=', 'a="x" b='), ", or }"),
    ("trailing comma", broken('c_total{a="y",b=""}', 'c_total{a="y",b="",}'),
     "label name expected"),
    ("duplicate label", broken('a="y",b=""', 'a="y",a=""'), "duplicate label"),
    ("bad label name", broken('a="y"', '1a="y"'), "label name expected"),
    ("reserved label name", broken('a="y"', '__a="y"'), "reserved"),
    ("unknown escape", broken('a="y"', 'a="\\t"'), "invalid escape"),
    ("raw newline in a label value", broken('a="y"', 'a="y\n"'), "unterminated"),
    ("negative counter", broken('c_total{a="y",b=""} 0', 'c_total{a="y",b=""} -1'), "negative"),
    ("unknown type", broken("# TYPE g gauge", "# TYPE g summary"), "unknown type"),
    ("second TYPE", broken("# TYPE g gauge", "# TYPE g gauge\n# TYPE g gauge"), "second TYPE"),
    ("second HELP", broken("# HELP g A gauge.", "# HELP g A gauge.\n# HELP g Again."),
     "second HELP"),
    ("HELP without text", broken("# HELP g A gauge.", "# HELP g"), "needs a metric name"),
    ("TYPE after samples", broken("g -1.5e3", "g -1.5e3\n# TYPE g gauge"), "after the samples"),
    ("family split in two groups", VALID + "# HELP g Again.\n", "not one group"),
    ("bad metric name", broken("# TYPE g gauge", "# TYPE 9g gauge"), "invalid metric name"),
    ("buckets not cumulative", broken('h_bucket{le="0.5"} 1', 'h_bucket{le="0.5"} 3'),
     "not cumulative"),
    ("+Inf bucket differs from _count", broken("h_count 2", "h_count 3"),
     r"\+Inf bucket != _count"),
    ("no +Inf bucket", broken('h_bucket{le="+Inf"} 2', 'h_bucket{le="1.0"} 2'), r"no \+Inf bucket"),
    ("no _sum", broken("h_sum 0.75\n", ""), "_sum and _count"),
    ("buckets out of order", broken('h_bucket{le="0.5"} 1\nh_bucket{le="+Inf"} 2',
                                    'h_bucket{le="+Inf"} 2\nh_bucket{le="0.5"} 2'),
     "out of le order"),
    ("fractional histogram count", broken("h_count 2", "h_count 2.5"), "non-negative integers"),
]


class ParserTest(unittest.TestCase):
    def test_accepts_a_valid_document_and_decodes_escapes(self):
        families = parse_exposition(VALID)
        self.assertEqual([(f.name, f.type) for f in families.values()],
                         [("c_total", "counter"), ("g", "gauge"), ("h", "histogram")])
        self.assertEqual(families["c_total"].help, "A counter with a \\ and a \n in its help.")
        self.assertEqual(families["c_total"].value(a="x", b='q"b\\s\nn'), 3.0)
        self.assertEqual(families["g"].value(), -1500.0)
        self.assertEqual(families["h"].value("h_bucket", le="+Inf"), 2.0)

    def test_rejects_broken_documents(self):
        for what, document, message in BROKEN:
            with self.subTest(what):
                with self.assertRaisesRegex(ExpositionError, message):
                    parse_exposition(document)


# --- The exposition ---------------------------------------------------------------------------

class RenderTest(unittest.TestCase):
    def test_constants(self):
        self.assertEqual(CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")
        self.assertEqual(LATENCY_BUCKETS, (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                           0.25, 0.5, 1.0, 2.5))

    def test_fresh_metrics_declare_every_family_in_order(self):
        body = Metrics().render()
        self.assertIsInstance(body, bytes)
        self.assertTrue(body.endswith(b"\n"))
        families = parse_exposition(body.decode("utf-8"))
        self.assertEqual([(f.name, f.type) for f in families.values()], list(FAMILIES))
        for family in families.values():
            with self.subTest(family.name):
                self.assertTrue(family.help)
                expected = [(IN_FLIGHT, {}, 0.0)] if family.name == IN_FLIGHT else []
                self.assertEqual(family.samples, expected)

    def test_exact_text_of_a_small_exposition(self):
        metrics = Metrics(in_flight=lambda: 1)
        metrics.record_request("/health", 200, "", 0.0021, "completed")
        metrics.record_refusal("overloaded")
        metrics.record_tool_failures(["deadline_exceeded"])
        lines = metrics.render().decode("utf-8").split("\n")
        samples = [line for line in lines if not line.startswith("#")]
        buckets = [f'retrieval_request_duration_seconds_bucket{{route="/health",le="{le}"}} '
                   f'{0 if le in ("0.0005", "0.001") else 1}' for le in LE]
        self.assertEqual(samples, [
            'retrieval_requests_total{route="/health",status="200",code=""} 1',
            'retrieval_runs_total{status="completed"} 1',
            *buckets,
            'retrieval_request_duration_seconds_sum{route="/health"} 0.0021',
            'retrieval_request_duration_seconds_count{route="/health"} 1',
            "retrieval_in_flight 1",
            'retrieval_admission_refusals_total{reason="overloaded"} 1',
            'retrieval_tool_failures_total{reason="deadline_exceeded"} 1',
            "",  # the final newline
        ])
        types = [line for line in lines if line.startswith("# TYPE ")]
        self.assertEqual(types, [f"# TYPE {name} {kind}" for name, kind in FAMILIES])

    def test_memo_counters_are_read_at_render_time(self):
        stats = {"response": MemoStats(entries=2, bytes=300, max_entries=8, max_bytes=1000,
                                       hits=5, misses=3, evictions=1),
                 "result": MemoStats(entries=4, bytes=90, max_entries=8, max_bytes=1000,
                                     hits=7, misses=4, evictions=0)}
        text = Metrics(memos=lambda: stats).render().decode("utf-8")
        parse_exposition(text)
        samples = [line for line in text.split("\n") if line.startswith("retrieval_memo")]
        self.assertEqual(samples, [
            'retrieval_memo_lookups_total{memo="response",outcome="hit"} 5',
            'retrieval_memo_lookups_total{memo="response",outcome="miss"} 3',
            'retrieval_memo_lookups_total{memo="result",outcome="hit"} 7',
            'retrieval_memo_lookups_total{memo="result",outcome="miss"} 4',
            'retrieval_memo_evictions_total{memo="response"} 1',
            'retrieval_memo_evictions_total{memo="result"} 0',
            'retrieval_memo_entries{memo="response"} 2',
            'retrieval_memo_entries{memo="result"} 4',
            'retrieval_memo_bytes{memo="response"} 300',
            'retrieval_memo_bytes{memo="result"} 90',
        ])

    def test_recorded_mix_is_counted_exactly(self):
        metrics = Metrics(in_flight=lambda: 4)
        requests = [  # route, status, code, duration, the run's status when one ran
            ("/retrieve", 200, "", 0.0021, "completed"),
            ("/retrieve", 200, "", 0.03, "limited"),
            ("/retrieve", 422, "invalid_request", 0.0004, None),
            ("/retrieve", 503, "overloaded", 0.0001, None),
            ("/passages/{id}", 404, "passage_not_found", 0.002, None),
            ("/health", 200, "", 0.0003, None),
            ("/retrieve", 200, "", 4.0, "completed"),
        ]
        for request in requests:
            metrics.record_request(*request)
        for reason in ("overloaded", "rate_limited", "overloaded", "unauthenticated"):
            metrics.record_refusal(reason)
        metrics.record_tool_failures(["deadline_exceeded", "deadline_exceeded"])
        metrics.record_tool_failures(iter(["io_error"]))
        metrics.record_tool_failures([])

        families = parse(metrics)
        self.assertEqual(families[REQUESTS].series(), {
            ("/health", "200", ""): 1,
            ("/passages/{id}", "404", "passage_not_found"): 1,
            ("/retrieve", "200", ""): 3,
            ("/retrieve", "422", "invalid_request"): 1,
            ("/retrieve", "503", "overloaded"): 1,
        })
        self.assertEqual(families[RUNS].series(), {("completed",): 2, ("limited",): 1})
        self.assertEqual(families[REFUSALS].series(),
                         {("overloaded",): 2, ("rate_limited",): 1, ("unauthenticated",): 1})
        self.assertEqual(families[TOOL_FAILURES].series(),
                         {("deadline_exceeded",): 2, ("io_error",): 1})
        self.assertEqual(families[IN_FLIGHT].value(), 4)

        histogram = families[DURATION]
        for route in ("/retrieve", "/passages/{id}", "/health"):
            with self.subTest(route):
                durations = [d for r, _, _, d, _ in requests if r == route]
                buckets = [histogram.value(DURATION + "_bucket", route=route, le=le) for le in LE]
                expected = [sum(d <= bound for d in durations) for bound in LATENCY_BUCKETS]
                self.assertEqual(buckets, expected + [len(durations)])
                self.assertEqual(buckets, sorted(buckets))  # cumulative, so monotone
                count = histogram.value(DURATION + "_count", route=route)
                self.assertEqual(count, buckets[-1])
                self.assertEqual(count, len(durations))
                self.assertAlmostEqual(histogram.value(DURATION + "_sum", route=route),
                                       sum(durations), places=12)
        # The /retrieve series in detail: 0.0001 and 0.0004 fall under 0.0005; 4.0 only under +Inf.
        self.assertEqual(histogram.series(DURATION + "_bucket")[("/retrieve", "0.0005")], 2)
        self.assertEqual(histogram.series(DURATION + "_bucket")[("/retrieve", "2.5")], 4)
        self.assertEqual(histogram.series(DURATION + "_bucket")[("/retrieve", "+Inf")], 5)

    def test_a_duration_equal_to_a_bound_falls_in_that_bucket(self):
        metrics = Metrics()
        for bound in LATENCY_BUCKETS:
            metrics.record_request("/retrieve", 200, "", bound)
        histogram = parse(metrics)[DURATION]
        buckets = [histogram.value(DURATION + "_bucket", route="/retrieve", le=le) for le in LE]
        self.assertEqual(buckets, list(range(1, len(LATENCY_BUCKETS) + 1)) + [len(LATENCY_BUCKETS)])

    def test_negative_and_nan_durations_are_observed_as_zero(self):
        metrics = Metrics()
        metrics.record_request("/retrieve", 200, "", -0.5)
        metrics.record_request("/retrieve", 200, "", float("nan"))
        histogram = parse(metrics)[DURATION]
        self.assertEqual(histogram.value(DURATION + "_sum", route="/retrieve"), 0.0)
        self.assertEqual(histogram.value(DURATION + "_bucket", route="/retrieve", le="0.0005"), 2)

    def test_numbers_are_formatted_as_specified(self):
        metrics = Metrics(in_flight=lambda: 2.5)
        metrics.record_request("/a", 200, "", 0.1)
        metrics.record_request("/a", 200, "", 0.2)
        metrics.record_request("/b", 200, "", float("inf"))
        text = metrics.render().decode("utf-8")
        self.assertIn('retrieval_request_duration_seconds_sum{route="/a"} '
                      '0.30000000000000004\n', text)
        self.assertIn('retrieval_request_duration_seconds_sum{route="/b"} +Inf\n', text)
        self.assertIn('retrieval_request_duration_seconds_bucket{route="/b",le="+Inf"} 1\n', text)
        self.assertIn('retrieval_request_duration_seconds_bucket{route="/b",le="2.5"} 0\n', text)
        self.assertIn('retrieval_request_duration_seconds_bucket{route="/a",le="1.0"} 2\n', text)
        self.assertIn('retrieval_requests_total{route="/a",status="200",code=""} 2\n', text)
        self.assertIn("retrieval_in_flight 2.5\n", text)
        self.assertEqual(parse_exposition(text)[IN_FLIGHT].value(), 2.5)

    def test_in_flight_is_read_at_render_time(self):
        current = [3]
        metrics = Metrics(in_flight=lambda: current[0])
        self.assertEqual(parse(metrics)[IN_FLIGHT].value(), 3)
        current[0] = 7
        self.assertEqual(parse(metrics)[IN_FLIGHT].value(), 7)

    def test_label_values_are_escaped_and_round_trip(self):
        route = 'a"b\\c\nd'
        reason = "\\n is not a newline"
        metrics = Metrics()
        metrics.record_request(route, 200, "", 0.001)
        metrics.record_tool_failures([reason])
        text = metrics.render().decode("utf-8")
        self.assertIn('route="a\\"b\\\\c\\nd"', text)
        families = parse_exposition(text)
        self.assertEqual(families[REQUESTS].series(), {(route, "200", ""): 1})
        self.assertEqual(families[DURATION].value(DURATION + "_count", route=route), 1)
        self.assertEqual(families[TOOL_FAILURES].series(), {(reason,): 1})

    def test_output_is_sorted_whatever_the_recording_order(self):
        events = [("/retrieve", 422, "invalid_request"), ("/health", 200, ""),
                  ("/retrieve", 200, ""), ("/passages/{id}", 404, "passage_not_found")]
        renders = []
        for order in (events, events[::-1]):
            metrics = Metrics()
            for route, status, code in order:
                metrics.record_request(route, status, code, 0.01)
            for reason in (["b", "a", "c"] if order is events else ["c", "a", "b"]):
                metrics.record_refusal(reason)
            renders.append(metrics.render())
        self.assertEqual(renders[0], renders[1])
        families = parse_exposition(renders[0].decode("utf-8"))
        keys = [tuple(labels.values()) for _, labels, _ in families[REQUESTS].samples]
        self.assertEqual(keys, sorted(keys))
        self.assertEqual(keys[0], ("/health", "200", ""))
        routes = [labels["route"] for _, labels, _ in families[DURATION].samples]
        self.assertEqual(routes, sorted(routes))
        self.assertEqual(list(families[REFUSALS].series()), [("a",), ("b",), ("c",)])

    def test_an_int_and_a_str_status_make_one_series(self):
        metrics = Metrics()
        metrics.record_request("/retrieve", 200, "", 0.001)
        metrics.record_request("/retrieve", "200", "", 0.001)
        self.assertEqual(parse(metrics)[REQUESTS].series(), {("/retrieve", "200", ""): 2})

    def test_an_empty_tool_failure_list_records_nothing(self):
        metrics = Metrics()
        metrics.record_tool_failures([])
        metrics.record_tool_failures(iter(()))
        self.assertEqual(parse(metrics)[TOOL_FAILURES].samples, [])
        metrics.record_tool_failures(r for r in ["x"])
        self.assertEqual(parse(metrics)[TOOL_FAILURES].series(), {("x",): 1})


class SwitchingStr(str):
    """A str whose hash at times hands the GIL to another thread, in the middle of a dict update.

    With the GIL, `counts[key] += 1` on plain str keys happens to be atomic (no thread switch can
    occur between its read and its write); a free-threaded build gives no such guarantee. `+=`
    hashes the key again for the write, so a switch here opens the read-write window: without the
    lock, updates really are lost and the test below fails. One hash in 32 keeps the test about a
    second.
    """

    calls = itertools.count()
    every = 32

    def __hash__(self):
        if next(self.calls) % self.every == 0:
            # Give up the GIL: another thread runs now, in the middle of the dict update.
            time.sleep(0)
        return str.__hash__(self)


class AlwaysSwitchingStr(SwitchingStr):
    every = 1


class ConcurrencyTest(unittest.TestCase):
    THREADS = 8
    CALLS = 1000

    def setUp(self):
        # Switch threads as often as the interpreter allows, to widen every race window.
        self.addCleanup(sys.setswitchinterval, sys.getswitchinterval())
        sys.setswitchinterval(1e-6)

    def test_threads_creating_the_same_series_at_once_lose_nothing(self):
        # A new label set makes the dict build a row and store it; two threads doing that for the
        # same key at the same moment would each store their own row, and one row would be lost.
        metrics = Metrics()
        routes = [f"/fresh/{n}" for n in range(100)]
        start = threading.Barrier(self.THREADS, timeout=60)

        def record():
            start.wait()
            for route in routes:
                metrics.record_request(AlwaysSwitchingStr(route), 200, "", 0.001)

        threads = [threading.Thread(target=record) for _ in range(self.THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        families = parse(metrics)
        self.assertEqual(families[REQUESTS].series(),
                         {(route, "200", ""): self.THREADS for route in routes})
        self.assertEqual(families[DURATION].series(DURATION + "_count"),
                         {(route,): self.THREADS for route in routes})

    def test_concurrent_records_are_all_counted(self):
        metrics = Metrics()
        start = threading.Barrier(self.THREADS + 1, timeout=60)
        done = threading.Event()
        scrapes, failures = [], []

        def record(index):
            shared, own = SwitchingStr("/retrieve"), SwitchingStr(f"/route/{index}")
            start.wait()
            for call in range(self.CALLS):
                # 2**-4 seconds: exactly representable, so the sum is exact too.
                metrics.record_request(shared, 200 if call % 2 else 422,
                                       "" if call % 2 else "invalid_request", 0.0625)
                metrics.record_request(own, 200, "", 0.0625, SwitchingStr("completed"))
                metrics.record_refusal(SwitchingStr("overloaded"))
                metrics.record_tool_failures([SwitchingStr("deadline_exceeded"), own])

        def scrape():
            start.wait()
            while not done.is_set():
                try:
                    families = parse(metrics)
                    # Every scrape is a consistent cut: each request is either wholly in it (in the
                    # counter, the histogram count and the sum) or not at all.
                    total = sum(v for (route, _, _), v in families[REQUESTS].series().items()
                                if route == "/retrieve")
                    histogram = families[DURATION]
                    count = histogram.series(DURATION + "_count").get(("/retrieve",), 0)
                    seconds = histogram.series(DURATION + "_sum").get(("/retrieve",), 0.0)
                    if not (total == count and seconds == count * 0.0625):
                        failures.append((total, count, seconds))
                    # Each thread counts a request on its own route, then a tool failure named after
                    # that route: a consistent cut across families sees at most one more request.
                    own_requests = families[REQUESTS].series()
                    for (reason,), failed in families[TOOL_FAILURES].series().items():
                        if reason.startswith("/route/"):
                            answered = own_requests.get((reason, "200", ""), 0)
                            if answered - failed not in (0, 1):
                                failures.append((reason, answered, failed))
                    scrapes.append(total)
                except Exception as error:  # reported below, not lost in the thread
                    failures.append(error)

        threads = [threading.Thread(target=record, args=(i,)) for i in range(self.THREADS)]
        scraper = threading.Thread(target=scrape)
        for thread in threads + [scraper]:
            thread.start()
        for thread in threads:
            thread.join()
        done.set()
        scraper.join()

        self.assertEqual(failures, [])
        self.assertTrue(scrapes)
        families = parse(metrics)
        half = self.THREADS * self.CALLS // 2
        expected = {("/retrieve", "200", ""): half, ("/retrieve", "422", "invalid_request"): half}
        expected.update({(f"/route/{i}", "200", ""): self.CALLS for i in range(self.THREADS)})
        self.assertEqual(families[REQUESTS].series(), expected)
        total = self.THREADS * self.CALLS
        self.assertEqual(families[RUNS].series(), {("completed",): total})
        self.assertEqual(families[REFUSALS].series(), {("overloaded",): total})
        expected = {(f"/route/{i}",): self.CALLS for i in range(self.THREADS)}
        expected[("deadline_exceeded",)] = total
        self.assertEqual(families[TOOL_FAILURES].series(), expected)
        histogram = families[DURATION]
        self.assertEqual(histogram.value(DURATION + "_count", route="/retrieve"),
                         self.THREADS * self.CALLS)
        self.assertEqual(histogram.value(DURATION + "_sum", route="/retrieve"),
                         self.THREADS * self.CALLS * 0.0625)
        self.assertEqual(histogram.value(DURATION + "_bucket", route="/retrieve", le="0.1"),
                         self.THREADS * self.CALLS)
        self.assertEqual(histogram.value(DURATION + "_bucket", route="/retrieve", le="0.05"), 0)


if __name__ == "__main__":
    unittest.main()
