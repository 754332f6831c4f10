"""The run: cases in parallel against a live server, with health checks between batches."""

import hashlib
import json
import socket
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from .bodies import QUESTIONS
from .cases import Case, Context, http_request
from .generators import generate_case
from .invariants import check_case, classify
from .reporting import format_failure
from .responses import ProtocolError, parse_all
from .running import Outcome, recv_to_close, run_case
from .service import DEFAULT_TIMEOUT, DIGEST_HEADER, HEALTH_TIMEOUT


def exchange(host, port, request: bytes, timeout=DEFAULT_TIMEOUT):
    """One request, read to close: the first response, or raise ProtocolError / OSError."""
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.settimeout(timeout)
        sock.sendall(request)
        sock.shutdown(socket.SHUT_WR)
        outcome = Outcome()
        data = recv_to_close(sock, outcome)
    if outcome.end != "closed":
        raise ProtocolError(f"connection {outcome.end}")
    method = request.split(b" ", 1)[0]
    responses, problem = parse_all(data, [method])
    if problem or not responses:
        raise ProtocolError(problem or "no response")
    return responses[-1]


def health_problem(host, port, timeout=HEALTH_TIMEOUT) -> str | None:
    """None if GET /health answers 200 {"status":"ok",...} within timeout, else why not."""
    started = time.perf_counter()
    try:
        response = exchange(host, port, b"GET /health HTTP/1.1\r\nHost: localhost\r\n"
                                        b"Connection: close\r\n\r\n", timeout)
    except (OSError, ProtocolError) as exc:
        return f"GET /health failed: {exc}"
    elapsed = time.perf_counter() - started
    if response.status != 200:
        return f"GET /health answered {response.status}"
    try:
        value = json.loads(response.body)
    except ValueError:
        return "GET /health body is not JSON"
    if not isinstance(value, dict) or value.get("status") != "ok":
        return f"GET /health body {response.body[:200]!r}"
    if response.header(DIGEST_HEADER) != hashlib.sha256(response.body).hexdigest():
        return "GET /health digest header does not match"
    if elapsed > timeout:
        return f"GET /health took {elapsed:.2f}s"
    return None


def _get(host, port, path, timeout):
    """GET path on a fresh connection; return the response, or None if none came."""
    request = f"GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode()
    try:
        return exchange(host, port, request, timeout)
    except (OSError, ProtocolError):
        return None


def probe_context(host, port, timeout=DEFAULT_TIMEOUT) -> Context:
    """Learn ETags and real passage ids from the server (deterministic for one build)."""
    ctx = Context()
    responses = {path: _get(host, port, path, timeout) for path in ("/corpus", "/openapi.json")}
    versions = ["3.12"]
    try:
        listed = json.loads(responses["/corpus"].body)["collections"][0]["versions"]
        versions = [v["version"] for v in listed][:2] or versions
    except (AttributeError, ValueError, KeyError, TypeError):
        pass
    found = set()
    for version in versions:
        for question in QUESTIONS[:3]:
            body = json.dumps({"question": question, "version": version}).encode()
            try:
                response = exchange(host, port, http_request(body=body), timeout)
                evidence = json.loads(response.body).get("evidence", [])
                found.update(item["passage_id"] for item in evidence if "passage_id" in item)
            except (OSError, ProtocolError, ValueError, AttributeError, TypeError):
                pass
    ctx.passage_ids = sorted(found)[:8]
    for pid in ctx.passage_ids:
        responses[f"/passages/{pid}"] = _get(host, port, f"/passages/{pid}", timeout)
    for path, response in responses.items():
        if response is not None and response.header("etag"):
            ctx.etags[path] = response.header("etag")
    return ctx


@dataclass
class Failure:
    case: Case
    outcome: Outcome
    problems: list

    def format(self) -> str:
        return format_failure(self.case, self.outcome, self.problems)


@dataclass
class Summary:
    seed: int
    cases: int = 0
    elapsed: float = 0.0
    statuses: Counter = field(default_factory=Counter)
    kinds: Counter = field(default_factory=Counter)
    ends: Counter = field(default_factory=Counter)
    failures: list = field(default_factory=list)  # Failure
    failure_count: int = 0
    health_failures: list = field(default_factory=list)
    slowest: float = 0.0
    known: Counter = field(default_factory=Counter)

    @property
    def ok(self) -> bool:
        return self.failure_count == 0 and not self.health_failures

    def report(self) -> str:
        rate = self.cases / self.elapsed if self.elapsed else 0.0
        lines = [f"fuzz seed={self.seed}: {self.cases} cases in {self.elapsed:.1f}s "
                 f"({rate:.0f} cases/s), slowest case {self.slowest:.2f}s, "
                 f"{self.failure_count} failing case(s), "
                 f"{len(self.health_failures)} health failure(s)"]
        lines.append("responses: " + ", ".join(
            f"{label} x{count}" for label, count in sorted(self.statuses.items())))
        lines.append("connections: " + ", ".join(
            f"{label} x{count}" for label, count in sorted(self.ends.items())))
        lines.append("kinds: " + ", ".join(
            f"{label} x{count}" for label, count in sorted(self.kinds.items())))
        if self.known:
            lines.append("known defects outside the service (not failures): " + ", ".join(
                f"{label} x{count}" for label, count in sorted(self.known.items())))
        lines += self.health_failures
        lines += [failure.format() for failure in self.failures]
        return "\n".join(lines)


class Fuzzer:
    """Run cases [start, start+count) of a seed against host:port on a thread pool."""

    def __init__(self, host, port, seed, ctx=None, workers=8, batch=500,
                 timeout=DEFAULT_TIMEOUT, alive=None, max_failures=20, stop_after=100,
                 log=None):
        self.host, self.port, self.seed = host, port, seed
        self.ctx = ctx if ctx is not None else probe_context(host, port, timeout)
        self.workers, self.batch, self.timeout = workers, batch, timeout
        self.alive = alive
        self.max_failures = max_failures
        # A broken server (a hang costs `timeout` per case) ends the run early instead of late.
        self.stop_after = stop_after
        self.log = log
        self._lock = threading.Lock()

    def one(self, index: int, summary: Summary):
        if summary.failure_count >= self.stop_after:
            return None
        case = generate_case(self.seed, index, self.ctx)
        outcome = run_case(case, self.host, self.port, self.timeout)
        problems = check_case(case, outcome)
        with self._lock:
            summary.cases += 1
            summary.kinds[case.kind.split("/")[0]] += 1
            summary.ends[outcome.end] += 1
            summary.slowest = max(summary.slowest, outcome.elapsed)
            if case.known:
                summary.known[case.known] += 1
            for response in outcome.responses:
                summary.statuses[classify(response)] += 1
            if problems:
                summary.failure_count += 1
                if len(summary.failures) < self.max_failures:
                    summary.failures.append(Failure(case, outcome, problems))
        return problems

    def run(self, count: int, start: int = 0) -> Summary:
        summary = Summary(seed=self.seed)
        started = time.perf_counter()
        with ThreadPoolExecutor(self.workers) as pool:
            for batch_start in range(start, start + count, self.batch):
                indices = range(batch_start, min(start + count, batch_start + self.batch))
                list(pool.map(lambda i: self.one(i, summary), indices))
                problem = health_problem(self.host, self.port)
                if problem is None and self.alive is not None and not self.alive():
                    problem = "server process is no longer running"
                if problem is not None:
                    summary.health_failures.append(
                        f"after cases {indices.start}..{indices.stop - 1}: {problem}")
                    break
                if summary.failure_count >= self.stop_after:
                    summary.health_failures.append(
                        f"stopped after {summary.failure_count} failing cases")
                    break
                if self.log is not None:
                    self.log(f"{indices.stop - start}/{count} cases, "
                             f"{summary.failure_count} failing, "
                             f"{time.perf_counter() - started:.1f}s")
        summary.elapsed = time.perf_counter() - started
        return summary
