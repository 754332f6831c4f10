"""Corpus scale: build the full Python 3.11 docs snapshot and compare serving it with the fixture.

One run builds the snapshot (timed with /usr/bin/time -v), then for each scenario (the embedded
4-passage fixture, the full corpus) starts `python -m retrieval serve --threads 1` and measures
ready time, a repeated-question wrk load, 1,000 distinct questions sent one at a time to a fresh
server, and the server's peak RSS. Medians over --runs are checked against fixed targets.
"""

import argparse
import http.client
import json
import math
import os
import platform
import random
import re
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter

if __package__:  # python -m bench.corpus_scale
    from bench import common
else:  # python bench/corpus_scale.py, which puts bench/ itself on sys.path
    import common

log = common.log
BENCH_DIR, REPO_ROOT = common.BENCH_DIR, common.REPO_ROOT
POLICY = os.path.join(BENCH_DIR, "policy-python-docs.json")
FIXTURE = os.path.join(REPO_ROOT, "snapshot.json")
DEFAULT_SOURCE = "/usr/share/doc/python3.11/html"
BASE_URL = "https://docs.python.org/3.11/"
TIME = "/usr/bin/time"
QUESTION = "Will write_text replace the contents of an existing file?"
DISTINCT_COUNT = 1000
DISTINCT_SEED = 20261129

# name, --snapshot argument (None: the embedded fixture), what each request names. The full corpus
# holds only 3.11 and the fixture only 3.12, so each scenario asks for the version it has; with
# --collection the full scenario asks that collection of a --snapshot-dir at --version.
FIXTURE_SCENARIO = ("fixture", None, {"version": "3.12"})

# A reST section title: a text line underlined (optionally also overlined) with a run of one
# punctuation character. The parser keeps a heading and its underline in one passage.
_ADORNMENT = re.compile(r"([=\-~^*#\"'`+.:_])\1{2,}[ \t\r]*")


def body_for(question, target):
    """The compact JSON request body for one question; target: its version (and collection)."""
    return json.dumps({"question": question, **target}, separators=(",", ":"))


def percentile(sorted_values, pct):
    """Nearest-rank percentile of an already sorted list."""
    rank = max(1, math.ceil(pct / 100 * len(sorted_values)))
    return sorted_values[rank - 1]


def parse_time_v(path):
    """Return wall seconds, peak RSS (kB) and exit status from a /usr/bin/time -v report."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", text)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    status = re.search(r"Exit status: (\d+)", text)
    seconds = None
    if wall:
        seconds = 0.0
        for part in wall.group(1).split(":"):  # h:mm:ss or m:ss.ss
            seconds = seconds * 60 + float(part)
    return {"wall_s": seconds, "max_rss_kb": int(rss.group(1)) if rss else None,
            "exit_status": int(status.group(1)) if status else None}


def child_env():
    """The environment for child processes: repo on the path, no RETRIEVAL_* overrides."""
    # A RETRIEVAL_SNAPSHOT left in the shell would silently swap the fixture for something else.
    return common.with_repo_on_path(
        {k: v for k, v in os.environ.items() if not k.startswith("RETRIEVAL_")})


def build(source, out_dir, timeout):
    """Build the 3.11 snapshot into out_dir under /usr/bin/time -v; return its measures."""
    with tempfile.NamedTemporaryFile(prefix="corpus-scale-time-", suffix=".txt",
                                     delete=False) as f:
        time_report = f.name
    cmd = [TIME, "-v", "-o", time_report, sys.executable, "-m", "retrieval", "build",
           "--source", f"3.11={source}", "--base-url", f"3.11={BASE_URL}",
           "--policy", POLICY, "--out", out_dir]
    log(f"build: {' '.join(cmd)}")
    started = time.perf_counter()
    try:
        # stderr passes through: the builder's own progress lines are the progress report.
        out = subprocess.run(cmd, cwd=REPO_ROOT, env=child_env(), stdout=subprocess.PIPE,
                             text=True, timeout=timeout)
        elapsed = time.perf_counter() - started
        measured = parse_time_v(time_report)
    finally:
        os.unlink(time_report)
    if out.returncode != 0:
        raise RuntimeError(f"build failed with exit status {out.returncode}")
    with open(os.path.join(out_dir, "manifest.json"), encoding="utf-8") as f:
        corpus_id = json.load(f)["corpus_id"]
    return {"wall_s": measured["wall_s"], "harness_wall_s": elapsed,
            "peak_rss_mb": measured["max_rss_kb"] / 1024, "corpus_id": corpus_id,
            "stdout": out.stdout.strip()}


def corpus_facts(db_path):
    """Passage count, text bytes and database size of a built snapshot."""
    conn = sqlite3.connect(f"file:{db_path}?mode=ro&immutable=1", uri=True)
    try:
        passages, text_bytes = conn.execute(
            "SELECT count(*), sum(byte_count) FROM passages").fetchone()
    finally:
        conn.close()
    return {"passages": passages, "text_bytes": text_bytes,
            "db_bytes": os.path.getsize(db_path)}


def heading_questions(db_path, count=DISTINCT_COUNT, seed=DISTINCT_SEED):
    """Draw `count` distinct section titles from the corpus, deterministically."""
    conn = sqlite3.connect(f"file:{db_path}?mode=ro&immutable=1", uri=True)
    titles = set()
    try:
        for (text,) in conn.execute("SELECT text FROM passages ORDER BY id"):
            lines = text.split("\n")
            if len(lines) >= 2 and _ADORNMENT.fullmatch(lines[1]):
                title = lines[0]
            elif (len(lines) >= 3 and _ADORNMENT.fullmatch(lines[0])
                  and _ADORNMENT.fullmatch(lines[2])):
                title = lines[1]
            else:
                continue
            title = title.strip()
            # The service refuses blank and over-long questions; those would measure refusals.
            if title and len(title) <= 1000 and not _ADORNMENT.fullmatch(title):
                titles.add(title)
    finally:
        conn.close()
    # Sorted before sampling so the draw does not depend on passage or set iteration order.
    ordered = sorted(titles)
    if len(ordered) < count:
        raise RuntimeError(f"only {len(ordered)} section titles in {db_path}, need {count}")
    return random.Random(seed).sample(ordered, count)


def title_questions(db_path, collection, count=DISTINCT_COUNT, seed=DISTINCT_SEED):
    """Draw `count` distinct unit titles of one collection (sections and objects) deterministically.

    A page read from its HTML has no reST adornment to find headings by; its units' titles are
    the section headings and object names a reader would look for.
    """
    conn = sqlite3.connect(f"file:{db_path}?mode=ro&immutable=1", uri=True)
    try:
        titles = sorted({title for (title,) in conn.execute(
            "SELECT title FROM passages WHERE collection = ?", (collection,))
            if title.strip() and len(title) <= 1000})
    finally:
        conn.close()
    if len(titles) < count:
        raise RuntimeError(f"only {len(titles)} titles in {collection}, need {count}")
    return random.Random(seed).sample(titles, count)


class Server(common.Server):
    """One `python -m retrieval serve` process on a socket bound here; always stop() it."""

    def __init__(self, name, snapshot, log_dir):
        super().__init__(name, log_dir)
        self.snapshot = snapshot
        self.ready_s = None
        self.corpus_id = None

    def start(self, timeout):
        """Start the server and return seconds from Popen to the first 200 on /health."""
        # The harness binds and hands the listening socket over (--fd): no port race, and a
        # health check sent before the server is up waits in the backlog instead of being
        # refused, so the first 200 marks readiness without any polling interval.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.bind((common.HOST, 0))
            sock.listen(128)
            self.port = sock.getsockname()[1]
            cmd = [sys.executable, "-m", "retrieval", "serve", "--threads", "1",
                   "--fd", str(sock.fileno())]
            if self.snapshot is not None:
                cmd += ["--snapshot", self.snapshot]
            self.launch(cmd, child_env(), pass_fds=(sock.fileno(),))
        finally:
            sock.close()
        answer = self.first_answer("/health", self.started + timeout, attempt_timeout=1.0)
        if answer is None:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name}: exited with {self.proc.returncode} before "
                                   f"ready\n{self.log_tail()}")
            raise RuntimeError(f"{self.name}: no 200 on /health within {timeout}s\n"
                               f"{self.log_tail()}")
        status, body = answer
        if status != 200:
            raise RuntimeError(f"{self.name}: /health answered {status}: {body[:200]!r}")
        self.ready_s = time.perf_counter() - self.started
        self.corpus_id = json.loads(body)["corpus_id"]
        return self.ready_s

    def peak_rss_mb(self):
        """The process's peak resident set size so far (VmHWM), in MB."""
        # Read from the live server just before it is stopped: the python process itself
        # (no wrapper), and nothing about its shutdown path can change the number.
        with open(f"/proc/{self.proc.pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        raise RuntimeError("no VmHWM in /proc status")


def run_wrk(server, body, duration):
    """One wrk pass of the repeated question (-t2 -c8); return the parsed WRK_JSON dict."""
    return common.run_wrk(server.url("/retrieve"), body, duration)


def response_status(status, data):
    """The response's terminal `status` (or the HTTP error code) for the distribution."""
    if status != 200:
        return f"http_{status}"
    return json.loads(data)["status"]


def repeated_workload(server, body, duration, warmup):
    """Check one response, warm up, then one recorded wrk pass."""
    status, data = server.request("POST", "/retrieve", body)
    if status != 200:
        raise RuntimeError(f"{server.name}: /retrieve answered HTTP {status}: {data[:300]!r}")
    if warmup > 0:
        # Unrecorded, as in run_ceiling.py: the first requests fill the memo and the page cache.
        run_wrk(server, body, warmup)
    result = run_wrk(server, body, duration)
    result["response_bytes"] = len(data)
    result["response_status"] = response_status(status, data)
    return result


def distinct_workload(server, questions, target, deadline_s):
    """Send each question once, sequentially on one keep-alive connection; time each."""
    latencies, statuses, slow = [], Counter(), []
    reconnects = 0
    deadline = time.perf_counter() + deadline_s
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    headers = {"Content-Type": "application/json"}
    try:
        for question in questions:
            if time.perf_counter() > deadline:
                raise RuntimeError(f"{server.name}: distinct workload over {deadline_s}s after "
                                   f"{len(latencies)} questions")
            body = body_for(question, target)
            started = time.perf_counter()
            try:
                conn.request("POST", "/retrieve", body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
            except (ConnectionError, http.client.RemoteDisconnected):
                # A dropped keep-alive connection is counted and the question retried once;
                # its time includes the reconnect, which is what a client would see.
                reconnects += 1
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
                conn.request("POST", "/retrieve", body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
            elapsed = time.perf_counter() - started
            latencies.append(elapsed)
            statuses[response_status(resp.status, data)] += 1
            slow.append((elapsed, question))
    finally:
        conn.close()
    ordered = sorted(latencies)
    slow.sort(reverse=True)
    return {
        "count": len(latencies),
        "p50_ms": percentile(ordered, 50) * 1000,
        "p99_ms": percentile(ordered, 99) * 1000,
        "max_ms": ordered[-1] * 1000,
        "mean_ms": statistics.fmean(ordered) * 1000,
        "statuses": dict(sorted(statuses.items())),
        "reconnects": reconnects,
        "slowest": [{"ms": round(s * 1000, 2), "question": q} for s, q in slow[:10]],
        # In question order (meta.distinct_questions), so any question's latency can be found.
        "latencies_ms": [round(s * 1000, 3) for s in latencies],
    }


def measure_scenario(name, snapshot, target, questions, args, log_dir, run):
    """One run of one scenario: a server for the repeated load, a fresh one for distinct."""
    result = {"ready_s": [], "peak_rss_mb": {}, "exit_codes": {}}
    body = body_for(args.question if name == "full" else QUESTION, target)
    for workload in ("repeated", "distinct"):
        # A fresh server per workload: the distinct questions must meet a cold memo.
        server = Server(f"{name}-{workload}-run{run}", snapshot, log_dir)
        try:
            ready = server.start(args.startup_timeout)
            result["ready_s"].append(ready)
            result["corpus_id"] = server.corpus_id
            if workload == "repeated":
                result["repeated"] = repeated_workload(server, body, args.duration, args.warmup)
                r = result["repeated"]
                log(f"[{server.name}] ready {ready * 1000:.0f} ms; {r['rps']:.0f} req/s "
                    f"p50 {r['p50_us'] / 1000:.2f} ms p99 {r['p99_us'] / 1000:.2f} ms "
                    f"errors {r['errors']}")
            else:
                result["distinct"] = distinct_workload(server, questions, target,
                                                       args.distinct_timeout)
                d = result["distinct"]
                log(f"[{server.name}] ready {ready * 1000:.0f} ms; distinct p50 "
                    f"{d['p50_ms']:.2f} ms p99 {d['p99_ms']:.2f} ms max {d['max_ms']:.1f} ms "
                    f"{d['statuses']}")
            result["peak_rss_mb"][workload] = server.peak_rss_mb()
        finally:
            result["exit_codes"][workload] = server.stop()
    return result


def summarize(runs):
    """Medians over runs of one scenario."""
    med = statistics.median
    return {
        "ready_ms": med(s for r in runs for s in r["ready_s"]) * 1000,
        "peak_rss_mb": med(max(r["peak_rss_mb"].values()) for r in runs),
        "peak_rss_repeated_mb": med(r["peak_rss_mb"]["repeated"] for r in runs),
        "peak_rss_distinct_mb": med(r["peak_rss_mb"]["distinct"] for r in runs),
        "repeated_rps": med(r["repeated"]["rps"] for r in runs),
        "repeated_p50_ms": med(r["repeated"]["p50_us"] for r in runs) / 1000,
        "repeated_p99_ms": med(r["repeated"]["p99_us"] for r in runs) / 1000,
        "repeated_errors": sum(r["repeated"]["errors"] for r in runs),
        "response_bytes": runs[0]["repeated"]["response_bytes"],
        "response_status": runs[0]["repeated"]["response_status"],
        "distinct_p50_ms": med(r["distinct"]["p50_ms"] for r in runs),
        "distinct_p99_ms": med(r["distinct"]["p99_ms"] for r in runs),
        "distinct_max_ms": med(r["distinct"]["max_ms"] for r in runs),
        "distinct_statuses": runs[-1]["distinct"]["statuses"],
    }


def verdicts(fixture, full, build_result):
    """(measure, value text, target text, PASS/MISS) rows for the report."""
    rows = []

    def add(measure, value, fmt, target, ok):
        rows.append((measure, fmt.format(value), target, "PASS" if ok else "MISS"))

    ratio = full["repeated_rps"] / fixture["repeated_rps"]
    add("repeated throughput full / fixture", ratio, "{:.2f}", ">= 0.8", ratio >= 0.8)
    ratio = full["repeated_p50_ms"] / fixture["repeated_p50_ms"]
    add("repeated p50 full / fixture", ratio, "{:.2f}", "<= 1.3", ratio <= 1.3)
    value = full["distinct_p99_ms"]
    add("distinct p99 on full (ms)", value, "{:.2f}", "<= 25", value <= 25)
    ratio = full["ready_ms"] / fixture["ready_ms"]
    add("ready time full / fixture", ratio, "{:.2f}", "<= 3", ratio <= 3)
    delta = full["peak_rss_mb"] - fixture["peak_rss_mb"]
    add("peak RSS full - fixture (MB)", delta, "{:.1f}", "<= 100", delta <= 100)
    if build_result is None:
        rows.append(("build time (s)", "not built (--snapshot-dir)", "< 60", "n/a"))
    else:
        value = build_result["wall_s"]
        add("build time (s)", value, "{:.1f}", "< 60", value < 60)
    return rows


def report(summaries, rows, build_result, facts, slowest, args):
    """The markdown report on stdout."""
    fx, fu = summaries["fixture"], summaries["full"]
    print(f"corpus: {facts['passages']} passages, {facts['text_bytes'] / 1e6:.1f} MB text, "
          f"{facts['db_bytes'] / 1e6:.1f} MB passages.sqlite; runs={args.runs} "
          f"duration={args.duration}s (medians)")
    if build_result is not None:
        print(f"build: {build_result['wall_s']:.1f} s wall, peak RSS "
              f"{build_result['peak_rss_mb']:.0f} MB")
    print()
    print("| scenario | ready ms | peak RSS MB (repeated / distinct) | repeated req/s "
          "| repeated p50 / p99 ms | response | distinct p50 / p99 / max ms | distinct statuses |")
    print("|---|---:|---:|---:|---:|---|---:|---|")
    for name, s in (("fixture", fx), ("full", fu)):
        statuses = ", ".join(f"{k} {v}" for k, v in s["distinct_statuses"].items())
        print(f"| {name} | {s['ready_ms']:.0f} | {s['peak_rss_repeated_mb']:.1f} / "
              f"{s['peak_rss_distinct_mb']:.1f} | {s['repeated_rps']:.0f} "
              f"| {s['repeated_p50_ms']:.2f} / {s['repeated_p99_ms']:.2f} "
              f"| {s['response_status']}, {s['response_bytes']} B "
              f"| {s['distinct_p50_ms']:.2f} / {s['distinct_p99_ms']:.2f} / "
              f"{s['distinct_max_ms']:.1f} | {statuses} |")
    print()
    print("| measure | value | target | result |")
    print("|---|---:|---|---|")
    for measure, value, target, verdict in rows:
        print(f"| {measure} | {value} | {target} | {verdict} |")
    print()
    # Where the distinct tail comes from: the slowest questions of the last full run.
    print("slowest distinct questions on full (last run):")
    for entry in slowest[:5]:
        print(f"  {entry['ms']:7.2f} ms  {entry['question']}")


def parse_args(argv=None):
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3, help="repeats; medians are reported")
    p.add_argument("--duration", type=int, default=15, help="seconds per recorded wrk pass")
    p.add_argument("--warmup", type=int, default=2, help="seconds of unrecorded wrk load")
    p.add_argument("--out", help="build the snapshot here and keep it (default: a temp dir)")
    p.add_argument("--snapshot-dir", help="reuse this built snapshot directory; skip the build")
    p.add_argument("--source", default=DEFAULT_SOURCE,
                   help="the published 3.11 HTML root (with _sources and objects.inv) "
                        "to build from")
    p.add_argument("--json-out", help="write every raw number here")
    p.add_argument("--collection", help="serve this collection of a --snapshot-dir (a library "
                   "built by bench/libraries.py); distinct questions are its unit titles")
    p.add_argument("--version", default="3.11", help="the version the full scenario asks for")
    p.add_argument("--question", default=QUESTION, help="the repeated workload's question")
    p.add_argument("--startup-timeout", type=float, default=60)
    p.add_argument("--build-timeout", type=float, default=600)
    p.add_argument("--distinct-timeout", type=float, default=300,
                   help="bound on one pass of the 1,000 distinct questions")
    args = p.parse_args(argv)
    if args.runs < 1 or args.duration < 1 or args.warmup < 0:
        p.error("--runs and --duration must be positive, --warmup not negative")
    if args.out and args.snapshot_dir:
        p.error("--out builds a snapshot, --snapshot-dir reuses one: give at most one")
    if args.collection and not args.snapshot_dir:
        p.error("--collection serves a collection of a built --snapshot-dir")
    return args


def check_tools(args):
    """Fail fast, before building or starting anything, if a required tool is missing."""
    common.require_wrk()
    if not os.access(TIME, os.X_OK):
        sys.exit(f"{TIME} not found: apt-get install -y time")
    if args.snapshot_dir:
        if not os.path.isfile(os.path.join(args.snapshot_dir, "passages.sqlite")):
            sys.exit(f"{args.snapshot_dir} holds no passages.sqlite")
    elif not os.path.isdir(args.source):
        sys.exit(f"{args.source} not found: apt-get install -y python3.11-doc")


def main(argv=None):
    """Build, measure both scenarios --runs times, report; always stop servers and clean up."""
    args = parse_args(argv)
    check_tools(args)
    common.exit_on_sigterm()
    log_dir = tempfile.mkdtemp(prefix="corpus-scale-logs-")
    temp_snapshot = None
    ok = False
    try:
        build_result = None
        if args.snapshot_dir:
            snapshot_dir = os.path.abspath(args.snapshot_dir)
        else:
            if args.out:
                snapshot_dir = os.path.abspath(args.out)
            else:
                snapshot_dir = temp_snapshot = tempfile.mkdtemp(prefix="corpus-scale-snapshot-")
            build_result = build(args.source, snapshot_dir, args.build_timeout)
            log(f"build: {build_result['wall_s']:.1f} s, peak RSS "
                f"{build_result['peak_rss_mb']:.0f} MB")
        db_path = os.path.join(snapshot_dir, "passages.sqlite")
        facts = corpus_facts(db_path)
        questions = (title_questions(db_path, args.collection) if args.collection
                     else heading_questions(db_path))
        started, loadavg = time.time(), os.getloadavg()

        full = {"version": args.version} | (
            {"collection": args.collection} if args.collection else {})
        scenarios = (FIXTURE_SCENARIO, ("full", "BUILT", full))
        raw = {name: [] for name, _, _ in scenarios}
        for run in range(1, args.runs + 1):
            # Alternate the order every run (ABBA) so drift on a shared machine does not
            # systematically favour whichever scenario runs first.
            order = scenarios if run % 2 else tuple(reversed(scenarios))
            for name, snapshot, target in order:
                snapshot = snapshot_dir if snapshot == "BUILT" else snapshot
                raw[name].append(measure_scenario(name, snapshot, target, questions, args,
                                                  log_dir, run))
        ok = True
    finally:
        if temp_snapshot is not None:
            shutil.rmtree(temp_snapshot, ignore_errors=True)
        # Logs are only worth keeping when something failed.
        if ok:
            shutil.rmtree(log_dir, ignore_errors=True)
        else:
            log(f"server logs kept in {log_dir}")

    summaries = {name: summarize(runs) for name, runs in raw.items()}
    rows = verdicts(summaries["fixture"], summaries["full"], build_result)
    report(summaries, rows, build_result, facts, raw["full"][-1]["distinct"]["slowest"], args)
    if args.json_out:
        meta = {
            "runs": args.runs, "duration_s": args.duration, "warmup_s": args.warmup,
            "source": None if args.snapshot_dir else args.source, "snapshot_dir": snapshot_dir,
            "snapshot_kept": temp_snapshot is None, "question": args.question,
            "target": full,
            "distinct_seed": DISTINCT_SEED, "distinct_questions": questions,
            "python": platform.python_version(), "cpus": os.cpu_count(),
            "loadavg_at_start": loadavg, "loadavg_at_end": os.getloadavg(),
            "started_unix": started, "rss_method": "VmHWM of the server process before SIGTERM",
        }
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump({"meta": meta, "build": build_result, "corpus": facts,
                       "summaries": summaries,
                       "verdicts": [dict(zip(("measure", "value", "target", "result"), r,
                                             strict=True))
                                    for r in rows],
                       "runs": raw}, f, indent=2)
        log(f"wrote {args.json_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
