"""Soak: one `retrieval serve --threads 1` under a steady open-loop request rate for N minutes.

Checks, each a PASS/FAIL line; the exit status is 1 if any fails:
  * no errors: every response has its scenario's HTTP status (200 for the four kinds sent), no
    connection error, no timeout;
  * identical bytes: for each request kind, every X-Retrieval-Body-SHA256 equals the first one seen,
    and equals the SHA-256 of the body actually received;
  * RSS (VmRSS) at the end within --rss-growth (10 %) of RSS after the warm-up;
  * open file descriptors (/proc/PID/fd) and threads (Threads in /proc/PID/status) at the end no
    more than after the warm-up;
  * the generator kept up: every scheduled request was sent and answered within --grace-s of the
    end of the run;
  * the server stopped on SIGTERM with status 0, logged "shutdown complete" and no traceback.

Open loop: request i (0, 1, 2, ...) is due at t0 + i / rate, whatever happened to earlier ones.
--clients threads share the schedule round-robin (thread j sends i = j, j + n, j + 2n, ...), each on
its own keep-alive connection. A thread whose previous request is still out sends the next one as
soon as it can; that delay is recorded as lateness (sent - due). Latency is sent -> last body byte.
Kinds rotate with i: completed, limited, incomplete, empty_eligible (bodies from
retrieval/scenarios.py).

    python bench/soak.py                       # 10 minutes at 300 req/s
    python bench/soak.py --minutes 1           # quick check (warm-up shortened to 30 s)
    python bench/soak.py --rate 500 --clients 8 --json-out /tmp/soak.json
"""

import argparse
import array
import hashlib
import http.client
import json
import math
import os
import platform
import sys
import threading
import time

if __package__:  # python -m bench.soak
    from bench import common
else:  # python bench/soak.py
    import common

sys.path.insert(0, common.REPO_ROOT)
from retrieval.http.contract import BODY_DIGEST_HEADER  # noqa: E402
from retrieval.scenarios import SCENARIOS, expectation_failures  # noqa: E402
from retrieval.testing import ServerProcess, ServerStartError, subprocess_env  # noqa: E402

log = common.log
KINDS = ("completed", "limited", "incomplete", "empty_eligible")
MAX_EXAMPLES = 10  # error / mismatch messages kept per category
CLK_TCK = os.sysconf("SC_CLK_TCK")


def nearest_rank(sorted_values, q):
    """The q-th percentile (0-100) by nearest rank of an already sorted sequence."""
    if not sorted_values:
        return float("nan")
    return sorted_values[max(0, math.ceil(q / 100 * len(sorted_values)) - 1)]


def read_status(pid):
    """VmRSS and VmHWM (kB) and Threads from /proc/PID/status, and the count of /proc/PID/fd."""
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM", "Threads"):
                fields[key] = int(value.split()[0])
    with open(f"/proc/{pid}/stat") as f:
        stat = f.read().rsplit(")", 1)[1].split()
    with open("/proc/stat") as f:
        cpu = [int(x) for x in f.readline().split()[1:]]
    return {"rss_kb": fields["VmRSS"], "hwm_kb": fields["VmHWM"], "threads": fields["Threads"],
            "fds": len(os.listdir(f"/proc/{pid}/fd")),
            # Cumulative CPU seconds: the server's (utime + stime), and the machine's busy time
            # (user..softirq) and steal time (taken by the hypervisor for other guests).
            "server_cpu_s": (int(stat[11]) + int(stat[12])) / CLK_TCK,
            "machine_busy_s": sum(cpu[i] for i in (0, 1, 2, 5, 6)) / CLK_TCK,
            "machine_steal_s": cpu[7] / CLK_TCK if len(cpu) > 7 else 0.0,
            "loadavg1": os.getloadavg()[0]}


class Kinds:
    """The request mix: body, content type and expected status per kind, and the digest check."""

    def __init__(self):
        by_name = {s.name: s for s in SCENARIOS}
        self.scenarios = [by_name[k] for k in KINDS]
        self.bodies = [s.body() for s in self.scenarios]
        self._lock = threading.Lock()
        self.first_digest = [None] * len(KINDS)
        self.mismatches = [0] * len(KINDS)
        self.examples = []

    def check_digest(self, kind, header, body):
        """Record a body whose digest differs from its header or from the kind's first digest."""
        actual = hashlib.sha256(body).hexdigest()
        with self._lock:
            if self.first_digest[kind] is None and header == actual:
                self.first_digest[kind] = header
            if header != actual or header != self.first_digest[kind]:
                self.mismatches[kind] += 1
                if len(self.examples) < MAX_EXAMPLES:
                    self.examples.append(f"{KINDS[kind]}: header {header} body {actual} "
                                         f"first {self.first_digest[kind]}")


class Client(threading.Thread):
    """One open-loop sender: requests index, index + n, index + 2n ... of the shared schedule."""

    def __init__(self, index, args, port, kinds, t0, end, give_up):
        super().__init__(name=f"soak-client-{index}", daemon=True)
        self.index, self.n, self.rate = index, args.clients, args.rate
        self.timeout = args.request_timeout
        self.port, self.kinds = port, kinds
        self.t0, self.end, self.give_up = t0, end, give_up
        self.conn = None
        self.stop = threading.Event()
        # Per request: due offset from t0 (s), lateness (s), latency (s), kind; compact arrays.
        self.due = array.array("d")
        self.late = array.array("d")
        self.latency = array.array("d")
        self.kind = array.array("b")
        self.errors = 0
        self.reconnects = 0
        self.error_examples = []
        self.scheduled = 0  # due before `end`
        self.unsent = 0     # due before `end` but not sent by `give_up`

    def run(self):
        seq = self.index
        while True:
            due = self.t0 + seq / self.rate
            if due >= self.end:
                break
            self.scheduled += 1
            now = time.perf_counter()
            if now >= self.give_up or self.stop.is_set():
                self.unsent += 1
                seq += self.n
                continue
            if due > now:
                time.sleep(due - now)
            self._one(seq, due)
            seq += self.n

    def _one(self, seq, due):
        kind = seq % len(KINDS)
        scenario = self.kinds.scenarios[kind]
        error = None
        sent = time.perf_counter()
        try:
            if self.conn is None:
                if self.due:  # not this thread's first connection
                    self.reconnects += 1
                self.conn = http.client.HTTPConnection(common.HOST, self.port,
                                                       timeout=self.timeout)
            self.conn.request("POST", "/retrieve", body=self.kinds.bodies[kind],
                              headers={"Content-Type": scenario.content_type})
            response = self.conn.getresponse()
            body = response.read()
            done = time.perf_counter()
            if response.status != scenario.http_status:
                error = f"{scenario.name}: HTTP {response.status} {body[:200]!r}"
            else:
                self.kinds.check_digest(kind, response.getheader(BODY_DIGEST_HEADER), body)
            if response.will_close:
                self.conn.close()
                self.conn = None
        except (OSError, http.client.HTTPException) as exc:
            done = time.perf_counter()
            error = f"{scenario.name}: {type(exc).__name__}: {exc}"
            if self.conn is not None:
                self.conn.close()
            self.conn = None
        if error is not None:
            self.errors += 1
            if len(self.error_examples) < MAX_EXAMPLES:
                self.error_examples.append(f"t={sent - self.t0:.1f}s {error}")
        self.due.append(due - self.t0)
        self.late.append(sent - due)
        self.latency.append(done - sent)
        self.kind.append(kind)

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def preflight(port, kinds):
    """One request of each kind, checked against the scenario table, before the clock starts."""
    problems = []
    for scenario, body in zip(kinds.scenarios, kinds.bodies, strict=True):
        conn = http.client.HTTPConnection(common.HOST, port, timeout=10)
        try:
            conn.request("POST", "/retrieve", body=body,
                         headers={"Content-Type": scenario.content_type})
            response = conn.getresponse()
            data = response.read()
        finally:
            conn.close()
        failures = expectation_failures(scenario, response.status, json.loads(data))
        problems += [f"{scenario.name}: {f}" for f in failures]
        log(f"preflight {scenario.name}: HTTP {response.status}, {len(data)} B"
            + (f" -- {failures}" if failures else ""))
    return problems


def bucket_rows(clients, samples, bucket_s, duration_s):
    """Per bucket of due time: requests, latency and lateness percentiles, last resource sample."""
    nb = max(1, math.ceil(duration_s / bucket_s))
    lat = [[] for _ in range(nb)]
    late = [[] for _ in range(nb)]
    for c in clients:
        for d, lt, lc in zip(c.due, c.late, c.latency, strict=True):
            b = min(nb - 1, int(d // bucket_s))
            lat[b].append(lc)
            late[b].append(lt)
    rows = []
    for b in range(nb):
        lat[b].sort()
        late[b].sort()
        edge = min((b + 1) * bucket_s, duration_s)
        # Resources: the last sample taken at or before the bucket's end (and its start, for CPU).
        sample = first = None
        for s in samples:
            if s["t"] <= edge + 0.5:
                sample = s
            if first is None and s["t"] >= b * bucket_s - 0.5:
                first = s
        cpu = {}
        if sample is not None and first is not None and sample["t"] > first["t"]:
            span = sample["t"] - first["t"]
            cpu = {k[:-2] + "_cores": (sample[k] - first[k]) / span
                   for k in ("server_cpu_s", "machine_busy_s", "machine_steal_s")}
        rows.append({
            "bucket": b + 1, "from_s": b * bucket_s, "to_s": edge, "requests": len(lat[b]),
            "rps": len(lat[b]) / (edge - b * bucket_s) if edge > b * bucket_s else 0.0,
            "p50_ms": nearest_rank(lat[b], 50) * 1000, "p99_ms": nearest_rank(lat[b], 99) * 1000,
            "max_ms": (lat[b][-1] if lat[b] else float("nan")) * 1000,
            "late_p99_ms": nearest_rank(late[b], 99) * 1000,
            "late_max_ms": (late[b][-1] if late[b] else float("nan")) * 1000,
            "sample": sample, **cpu,
        })
    return rows


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--minutes", type=float, default=10, help="length of the run (default 10)")
    p.add_argument("--rate", type=float, default=300, help="target requests/s (default 300)")
    p.add_argument("--clients", type=int, default=8,
                   help="sender threads, one keep-alive connection each (default 8)")
    p.add_argument("--warmup-s", type=float, default=60,
                   help="baseline resources are read this long after the start (default 60; "
                        "halved run length if the run is shorter than twice this)")
    p.add_argument("--rss-growth", type=float, default=0.10,
                   help="largest allowed RSS growth after warm-up, as a fraction (default 0.10)")
    p.add_argument("--bucket-s", type=float, default=60, help="latency table row length (60)")
    p.add_argument("--sample-s", type=float, default=5, help="resource sampling interval (5)")
    p.add_argument("--request-timeout", type=float, default=10)
    p.add_argument("--grace-s", type=float, default=30,
                   help="how long after the end a late sender may keep sending (default 30)")
    p.add_argument("--threads", type=int, default=1, help="server Waitress threads (default 1)")
    p.add_argument("--json-out", help="write every number (not per-request data) here")
    args = p.parse_args(argv)
    if args.minutes <= 0 or args.rate <= 0 or args.clients < 1:
        p.error("--minutes, --rate and --clients must be positive")
    args.duration_s = args.minutes * 60
    args.warmup_s = min(args.warmup_s, args.duration_s / 2)
    return args


def main(argv=None):
    args = parse_args(argv)
    common.exit_on_sigterm()
    kinds = Kinds()
    serve_args = ["--threads", str(args.threads)]
    server = ServerProcess(serve_args=serve_args, env=subprocess_env(), cwd=common.REPO_ROOT,
                           stop_timeout=30)
    clients, samples = [], []
    checks = []  # (name, ok, detail)
    lifecycle = None
    try:
        try:
            server.start()
        except ServerStartError as exc:
            log(f"server did not start: {exc}")
            return 2
        pid = server.process.pid
        log(f"server pid {pid} on {server.base_url}: "
            f"python -m retrieval serve --fd <loopback socket> {' '.join(serve_args)}")
        problems = preflight(server.port, kinds)
        if problems:
            log("preflight failed:\n  " + "\n  ".join(problems))
            return 2

        t0 = time.perf_counter() + 0.2
        end = t0 + args.duration_s
        give_up = end + args.grace_s
        clients = [Client(i, args, server.port, kinds, t0, end, give_up)
                   for i in range(args.clients)]
        log(f"soak: {args.rate:g} req/s for {args.duration_s:g} s, {args.clients} clients, "
            f"warm-up {args.warmup_s:g} s")
        for c in clients:
            c.start()

        warm = None
        next_sample = t0
        while True:
            now = time.perf_counter()
            wait = min(next_sample, t0 + args.warmup_s if warm is None else end, end) - now
            if wait > 0:
                time.sleep(wait)
            now = time.perf_counter()
            if server.process.poll() is not None:
                raise RuntimeError(f"server exited during the soak: {server.process.returncode}")
            if now >= next_sample or now >= end or (warm is None and now >= t0 + args.warmup_s):
                sample = dict(read_status(pid), t=now - t0)
                samples.append(sample)
                if warm is None and now >= t0 + args.warmup_s:
                    warm = sample
                    log(f"warm-up sample at {sample['t']:.1f}s: {sample}")
                if now >= next_sample:
                    sent = sum(len(c.due) for c in clients)
                    errors = sum(c.errors for c in clients)
                    if int(sample["t"]) % 60 < args.sample_s:
                        log(f"t={sample['t']:.0f}s sent={sent} errors={errors} "
                            f"rss={sample['rss_kb']} kB fds={sample['fds']} "
                            f"threads={sample['threads']}")
                    next_sample += args.sample_s
            if now >= end:
                break
        # The end sample: taken at `end`, while every client still holds its connection.
        final = samples[-1]
        log(f"end sample at {final['t']:.1f}s: {final}")
        for c in clients:
            c.join(timeout=max(0.0, give_up - time.perf_counter()) + args.request_timeout + 5)
            if c.is_alive():
                c.stop.set()
                c.join(timeout=args.request_timeout + 5)
        for c in clients:
            c.close()
    finally:
        for c in clients:
            c.stop.set()
        lifecycle = server.stop()

    # ---- checks ----
    errors = sum(c.errors for c in clients)
    examples = [e for c in clients for e in c.error_examples][:MAX_EXAMPLES]
    checks.append(("no errors (HTTP status, connection, timeout)", errors == 0,
                   f"{errors} errors" + (": " + "; ".join(examples) if examples else "")))
    mism = sum(kinds.mismatches)
    checks.append(("identical body per kind (header = first seen = sha256(body))",
                   mism == 0 and all(kinds.first_digest),
                   f"{mism} mismatches; " + ", ".join(
                       f"{k} {d[:12] if d else None}"
                       for k, d in zip(KINDS, kinds.first_digest, strict=True))
                   + ("; " + "; ".join(kinds.examples) if kinds.examples else "")))
    growth = final["rss_kb"] / warm["rss_kb"] - 1
    checks.append((f"RSS growth after warm-up <= {args.rss_growth:.0%}", growth <= args.rss_growth,
                   f"{warm['rss_kb']} -> {final['rss_kb']} kB ({growth:+.1%}); "
                   f"VmHWM {final['hwm_kb']} kB"))
    checks.append(("open fds not growing", final["fds"] <= warm["fds"],
                   f"{warm['fds']} -> {final['fds']}"))
    checks.append(("threads not growing", final["threads"] <= warm["threads"],
                   f"{warm['threads']} -> {final['threads']}"))
    scheduled = sum(c.scheduled for c in clients)
    sent = sum(len(c.due) for c in clients)
    unsent = sum(c.unsent for c in clients)
    checks.append(("generator kept up (every scheduled request sent)",
                   unsent == 0 and sent == scheduled,
                   f"{sent} of {scheduled} sent ({sent / args.duration_s:.1f} req/s), "
                   f"{unsent} unsent, {sum(c.reconnects for c in clients)} reconnects"))
    traceback_logged = "Traceback" in lifecycle.stderr
    checks.append(("server stopped cleanly (exit 0, shutdown complete, no traceback)",
                   lifecycle.shutdown_exit_status == 0 and lifecycle.shutdown_complete_observed
                   and not traceback_logged and not lifecycle.killed,
                   f"exit {lifecycle.shutdown_exit_status}, complete "
                   f"{lifecycle.shutdown_complete_observed}, traceback {traceback_logged}, "
                   f"killed {lifecycle.killed}"))

    rows = bucket_rows(clients, samples, args.bucket_s, args.duration_s)
    all_lat = sorted(x for c in clients for x in c.latency)
    all_late = sorted(x for c in clients for x in c.late)
    ok = all(c[1] for c in checks)

    # ---- report ----
    print(f"soak: python -m retrieval serve --threads {args.threads}; {args.rate:g} req/s "
          f"open loop, {args.clients} keep-alive clients, {args.duration_s:g} s, kinds "
          f"{'/'.join(KINDS)}; warm-up {args.warmup_s:g} s\n")
    print("| bucket | s | requests | req/s | p50 ms | p99 ms | max ms | lateness p99 / max ms "
          "| RSS MB | fds | threads | CPU cores: server / machine busy / steal | load1 |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        s = r["sample"] or {}
        print(f"| {r['bucket']} | {r['from_s']:g}-{r['to_s']:g} | {r['requests']} "
              f"| {r['rps']:.1f} | {r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {r['max_ms']:.1f} "
              f"| {r['late_p99_ms']:.2f} / {r['late_max_ms']:.1f} "
              f"| {s.get('rss_kb', 0) / 1024:.1f} | {s.get('fds', '')} | {s.get('threads', '')} "
              f"| {r.get('server_cpu_cores', math.nan):.2f} / "
              f"{r.get('machine_busy_cores', math.nan):.2f} / "
              f"{r.get('machine_steal_cores', math.nan):.2f} "
              f"| {s.get('loadavg1', math.nan):.2f} |")
    print(f"| all | 0-{args.duration_s:g} | {len(all_lat)} | {len(all_lat) / args.duration_s:.1f} "
          f"| {nearest_rank(all_lat, 50) * 1000:.2f} | {nearest_rank(all_lat, 99) * 1000:.2f} "
          f"| {all_lat[-1] * 1000 if all_lat else float('nan'):.1f} "
          f"| {nearest_rank(all_late, 99) * 1000:.2f} / "
          f"{all_late[-1] * 1000 if all_late else float('nan'):.1f} | | | | | |")
    print()
    print("| check | result | detail |")
    print("|---|---|---|")
    for name, passed, detail in checks:
        print(f"| {name} | {'PASS' if passed else 'FAIL'} | {detail} |")
    print(f"\n{'PASS' if ok else 'FAIL'}")

    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump({
                "meta": {"rate": args.rate, "clients": args.clients,
                         "duration_s": args.duration_s, "warmup_s": args.warmup_s,
                         "server_command": lifecycle.command, "python": platform.python_version(),
                         "cpus": os.cpu_count(), "loadavg_at_end": os.getloadavg(),
                         "digests": dict(zip(KINDS, kinds.first_digest, strict=True))},
                "checks": [{"name": n, "pass": p, "detail": d} for n, p, d in checks],
                "buckets": rows, "samples": samples, "warm": warm, "final": final,
                "overall": {"requests": len(all_lat),
                            "p50_ms": nearest_rank(all_lat, 50) * 1000,
                            "p99_ms": nearest_rank(all_lat, 99) * 1000,
                            "late_p99_ms": nearest_rank(all_late, 99) * 1000},
            }, f, indent=2)
        log(f"wrote {args.json_out}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
