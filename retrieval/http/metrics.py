"""Process metrics in the Prometheus text exposition format, version 0.0.4, written by hand.

Why by hand: the format is a few line shapes (`# HELP`, `# TYPE`, `name{label="value"} number`),
this module needs three kinds of family (counter, gauge, histogram) and nothing else, and the
service has a single runtime dependency that it keeps. A client library would bring registries,
collectors, multiprocess modes and its own global state for the sake of six families.

Cardinality is bounded by the caller, not here: `route` is a route template chosen by the app
("/passages/{id}", never the raw path), `code` is one of the closed set of error codes (or "" for a
success), run statuses, refusal reasons and tool failure reasons are closed sets too. Nothing from a
request body or a URL may become a label value, or the series would grow without bound.

Cost: `record_request` runs on every request, so it does one `bisect` (outside the lock), one lock
acquisition, one dict lookup and two list increments (and a run's count, when the request reports
one). A request is kept once, in a per-(route, status, code) row of histogram buckets plus a sum;
the request counter is the total of that row and the route's histogram is the sum of its rows, both
computed by `render`, so the two can never disagree. Labels are kept as the raw values they arrive
as and only turned into text by `render`, which copies the state under the same lock and formats
outside it.
"""

import threading
from bisect import bisect_left
from collections import defaultdict

__all__ = ["CONTENT_TYPE", "LATENCY_BUCKETS", "Metrics"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

# Upper bounds of the request latency histogram, in seconds; the +Inf bucket is implied.
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)

# Family name, type and HELP text, in rendering order.
_REQUESTS = ("retrieval_requests_total", "counter",
             "HTTP requests answered, by route template, HTTP status and error code "
             "(empty on success).")
_RUNS = ("retrieval_runs_total", "counter",
         "Retrieval runs finished, by terminal status.")
_DURATION = ("retrieval_request_duration_seconds", "histogram",
             "Time from receiving a request to having its response ready, by route template.")
_IN_FLIGHT = ("retrieval_in_flight", "gauge",
              "Requests being handled right now.")
_REFUSALS = ("retrieval_admission_refusals_total", "counter",
             "Requests refused before any work was admitted, by reason.")
_TOOL_FAILURES = ("retrieval_tool_failures_total", "counter",
                  "Tool calls that failed, by reason.")
# Memos: "response" holds whole /retrieve replies, "request" validated bodies (the index in front
# of it), "result" search and read results.
_MEMO_LOOKUPS = ("retrieval_memo_lookups_total", "counter",
                 "Memo lookups, by memo (response, request, result) and outcome (hit, miss).")
_MEMO_EVICTIONS = ("retrieval_memo_evictions_total", "counter",
                   "Values evicted from a memo to stay within its caps, by memo.")
_MEMO_ENTRIES = ("retrieval_memo_entries", "gauge", "Values a memo holds, by memo.")
_MEMO_BYTES = ("retrieval_memo_bytes", "gauge",
               "Size of what a memo holds (response, request: body bytes; result: characters), "
               "by memo.")


def _no_requests_in_flight():
    return 0


def _no_memos():
    return {}


def _escape_label_value(value):
    """A label value as the format wants it: backslash, double quote and newline escaped."""
    return str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _escape_help(text):
    """HELP text escapes backslash and newline (not the double quote)."""
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def _format_float(value):
    """Shortest round-tripping float text (`repr`) with the format's spellings of the non-finite."""
    if value != value:
        return "NaN"
    if value == float("inf"):
        return "+Inf"
    if value == float("-inf"):
        return "-Inf"
    return repr(float(value))


def _format_number(value):
    """Integers as integers, anything else as a float."""
    if isinstance(value, int):
        return str(int(value))  # int() so that bool and IntEnum print as digits
    return _format_float(float(value))


def _status_label(status):
    return str(int(status)) if isinstance(status, int) else str(status)


def _labels(names, values):
    return ",".join(f'{name}="{_escape_label_value(value)}"'
                    for name, value in zip(names, values, strict=True))


def _header(lines, family):
    name, kind, help_text = family
    lines.append(f"# HELP {name} {_escape_help(help_text)}")
    lines.append(f"# TYPE {name} {kind}")
    return name


def _counter(lines, family, label_name, counts):
    """One counter family with a single label; `counts` maps the raw label value to its count."""
    name = _header(lines, family)
    merged = defaultdict(int)
    for value, count in counts.items():
        merged[str(value)] += count
    for value in sorted(merged):
        lines.append(f'{name}{{{label_name}="{_escape_label_value(value)}"}} {merged[value]}')


class Metrics:
    """The service's counters, latency histogram and in-flight gauge; thread-safe."""

    def __init__(self, in_flight=_no_requests_in_flight, memos=_no_memos):
        # in_flight: called (outside the lock) at every render; its value is the gauge.
        # memos: called likewise; a dict of memo name -> MemoStats (retrieval/core/memo.py).
        self._in_flight = in_flight
        self._memos = memos
        self._lock = threading.Lock()
        self._bounds = tuple(float(bound) for bound in LATENCY_BUCKETS)
        self._le = tuple(_format_float(bound) for bound in self._bounds) + ("+Inf",)
        bucket_slots = len(self._bounds) + 1  # one per bound, then the +Inf overflow
        # (route, status, code) ->
        #     [non-cumulative count per bucket ..., +Inf overflow, sum of seconds]
        self._requests = defaultdict(lambda: [0] * bucket_slots + [0.0])
        self._runs = defaultdict(int)  # status -> count
        self._refusals = defaultdict(int)  # reason -> count
        self._tool_failures = defaultdict(int)  # reason -> count

    def record_request(self, route, status, code, duration_s, run_status=None):
        """Count one answered request and observe its duration (seconds) in the route's histogram.

        A negative or NaN duration (a clock bug, not a fast request) is observed as 0.0 so that it
        cannot poison the histogram's sum. run_status, when given, counts the run the request
        reports (completed, incomplete, limited, failed), under the same lock acquisition.
        """
        if not duration_s >= 0.0:
            duration_s = 0.0
        # Prometheus buckets are `le` (upper bound inclusive): the first bound >= duration.
        slot = bisect_left(self._bounds, duration_s)
        key = (route, status, code)
        lock = self._lock
        lock.acquire()  # not `with`: acquire/try/finally costs ~75 ns less per call on CPython 3.11
        try:
            row = self._requests[key]
            row[slot] += 1
            row[-1] += duration_s
            if run_status is not None:
                self._runs[run_status] += 1
        finally:
            lock.release()

    def record_refusal(self, reason):
        """Count one request refused at admission (overloaded, rate_limited, draining, ...)."""
        with self._lock:
            self._refusals[reason] += 1

    def record_tool_failures(self, reasons):
        """Count each failure reason in `reasons` (any iterable; an empty one records nothing)."""
        reasons = tuple(reasons)
        if not reasons:
            return
        with self._lock:
            counts = self._tool_failures
            for reason in reasons:
                counts[reason] += 1

    def render(self):
        """The whole exposition as UTF-8 bytes: every family, samples sorted by label values."""
        with self._lock:
            requests = {key: list(row) for key, row in self._requests.items()}
            runs = dict(self._runs)
            refusals = dict(self._refusals)
            tool_failures = dict(self._tool_failures)
        in_flight = self._in_flight()
        memos = self._memos()

        lines = []

        # Keyed by label text, so that 200 and "200" cannot make two series with the same labels.
        counts = defaultdict(int)
        histograms = {}
        for (route, status, code), row in requests.items():
            route = str(route)
            counts[(route, _status_label(status), str(code))] += sum(row[:-1])
            into = histograms.get(route)
            histograms[route] = (row if into is None
                                 else [a + b for a, b in zip(into, row, strict=True)])

        name = _header(lines, _REQUESTS)
        for values in sorted(counts):
            lines.append(f"{name}{{{_labels(('route', 'status', 'code'), values)}}} "
                         f"{counts[values]}")

        _counter(lines, _RUNS, "status", runs)

        name = _header(lines, _DURATION)
        for route in sorted(histograms):
            histogram = histograms[route]
            route_label = f'route="{_escape_label_value(route)}"'
            cumulative = 0
            for le, count in zip(self._le, histogram[:-1], strict=True):
                cumulative += count
                lines.append(f'{name}_bucket{{{route_label},le="{le}"}} {cumulative}')
            lines.append(f"{name}_sum{{{route_label}}} {_format_float(histogram[-1])}")
            lines.append(f"{name}_count{{{route_label}}} {cumulative}")

        name = _header(lines, _IN_FLIGHT)
        lines.append(f"{name} {_format_number(in_flight)}")

        _counter(lines, _REFUSALS, "reason", refusals)
        _counter(lines, _TOOL_FAILURES, "reason", tool_failures)

        name = _header(lines, _MEMO_LOOKUPS)
        for memo in sorted(memos):
            stats = memos[memo]
            for outcome, count in (("hit", stats.hits), ("miss", stats.misses)):
                lines.append(f'{name}{{{_labels(("memo", "outcome"), (memo, outcome))}}} {count}')
        for family, field in ((_MEMO_EVICTIONS, "evictions"), (_MEMO_ENTRIES, "entries"),
                              (_MEMO_BYTES, "bytes")):
            name = _header(lines, family)
            for memo in sorted(memos):
                lines.append(f'{name}{{memo="{_escape_label_value(memo)}"}} '
                             f'{getattr(memos[memo], field)}')

        lines.append("")
        return "\n".join(lines).encode("utf-8")
