"""The access log: one JSON line per request, formatted by hand, written to a stream in batches.

A line holds the time, route, HTTP status, outcome (terminal status or error code), request_id,
usage, duration and key id: never the question, a body, a header or a secret. Lines are written
in batches (at most BATCH_LINES held, none for longer than BATCH_DELAY_S) because one write per
request is a system call that also hands the GIL to Waitress's I/O thread: 76 -> 82 us per
request in process; batched, the cost is within noise (docs/operating.md).
"""

import atexit
import threading
import time

BATCH_LINES = 64
BATCH_DELAY_S = 0.5

_USAGE_JSON = ('{"steps":%d,"searches":%d,"reads":%d,"reserved_source_bytes":%d,'
               '"delivered_source_bytes":%d}')
_last_second: list = [-1, ""]


def _utc_timestamp() -> str:
    # One strftime per second, not per request.
    now = int(time.time())
    if _last_second[0] != now:
        _last_second[:] = [now, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now))]
    return _last_second[1]


def run_fields(run) -> str:
    """Return the part of a line a run decides (outcome, request_id, usage), without braces.

    A memoized reply keeps it beside its run (retrieval/http/response_memo.py), so a repeated
    question does not format the same fields again.
    """
    u = run.usage
    usage = _USAGE_JSON % (u["steps"], u["searches"], u["reads"], u["reserved_source_bytes"],
                           u["delivered_source_bytes"])
    return f'"outcome":"{run.status}","request_id":"{run.request_id}","usage":{usage}'


def access_log_line(exchange, status: int, duration_s: float) -> str:
    """Return one JSON access-log line for an exchange (route, code, key_id, run, run_fields).

    Formatted by hand because every value comes from a closed alphabet that needs no JSON
    escaping: route templates, error codes and statuses, hex ids, key ids (keys.ID_PATTERN).
    """
    run = exchange.run
    if run is None:
        fields = f'"outcome":"{exchange.code or "ok"}","request_id":null,"usage":null'
    else:
        fields = exchange.run_fields or run_fields(run)
    key_id = "null" if exchange.key_id is None else f'"{exchange.key_id}"'
    return (f'{{"time":"{_utc_timestamp()}","route":"{exchange.route}","status":{status},'
            f'{fields},"duration_ms":{duration_s * 1000:.3f},"key_id":{key_id}}}')


class BatchedLineWriter:
    """Collect lines and write them to a stream in batches, from a background flusher as well.

    A stream that cannot be written (a closed pipe) drops the batch: logging never fails a
    request or stops a shutdown.
    """

    def __init__(self, stream, batch_lines=BATCH_LINES, delay_s=BATCH_DELAY_S):
        self._stream = stream
        self._batch_lines = batch_lines
        self._lines = []
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._flusher = threading.Thread(target=self._flush_every, args=(delay_s,),
                                         name="retrieval-access-log", daemon=True)
        self._flusher.start()
        # Lines still held when the interpreter exits (waitress-serve never closes the app).
        atexit.register(self.flush)

    def __call__(self, line: str):
        with self._lock:
            self._lines.append(line)
            if len(self._lines) >= self._batch_lines:
                self._write_held()

    def flush(self):
        """Write every line held now."""
        with self._lock:
            self._write_held()

    def close(self):
        """Stop the flusher and write what is left."""
        self._stopped.set()
        self._flusher.join()
        self.flush()
        atexit.unregister(self.flush)

    def _flush_every(self, delay_s):
        while not self._stopped.wait(delay_s):
            self.flush()

    def _write_held(self):
        # Called with the lock held, so batches reach the stream in the order of their lines.
        lines, self._lines = self._lines, []
        if not lines:
            return
        try:
            self._stream.write("\n".join(lines) + "\n")
            self._stream.flush()
        except (OSError, ValueError):
            pass
