"""Measure /retrieve throughput against a constant-body ceiling on the same server config."""

import argparse
import importlib.util
import json
import os
import platform
import shutil
import socket
import statistics
import sys
import tempfile
import time

if __package__:  # python -m bench.run_ceiling
    from bench import common
else:  # python bench/run_ceiling.py, which puts bench/ itself on sys.path
    import common

log = common.log
CONSTANT_APP = "bench.constant_app:app"

# Single source of truth for the payload: passed to wrk via RETRIEVE_BODY so the
# size probe and the load test send byte-identical requests.
REQUEST_BODY = json.dumps(
    {"question": "Will write_text replace the contents of an existing file?", "version": "3.12"},
    separators=(",", ":"),
)


def free_port():
    """Return a port that was free a moment ago (small race accepted; startup retries)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_command(kind, app, port, threads, extra_args):
    """Build the argv for one server; both servers get exactly the same flags."""
    # sys.executable -m ... rather than the console script so both servers run
    # on the interpreter that runs this harness (no pyenv shim ambiguity).
    if kind == "waitress":
        return [sys.executable, "-m", "waitress", f"--listen=127.0.0.1:{port}",
                f"--threads={threads}", *extra_args, app]
    if kind == "retrieval":
        # What ships: `retrieval serve`, with its body cap and logging, serving either app.
        return [sys.executable, "-m", "retrieval", "serve", "--host", "127.0.0.1",
                "--port", str(port), "--threads", str(threads), "--app", app, *extra_args]
    # Short graceful timeout: gunicorn's default 30 s would dominate shutdown.
    return [sys.executable, "-m", "gunicorn", "-k", "gthread", "-w", "1",
            "--threads", str(threads), "-b", f"127.0.0.1:{port}",
            "--graceful-timeout", "5", *gunicorn_control_socket_args(), *extra_args, app]


def gunicorn_control_socket_args():
    """Disable gunicorn's control socket where the installed version has one."""
    # gunicorn >= 25 binds ~/.gunicorn/gunicorn.ctl by default: our two masters
    # would fight over that one path, and it writes outside the repo.
    from gunicorn.config import KNOWN_SETTINGS  # only imported for --server gunicorn

    if any(s.name == "control_socket_disable" for s in KNOWN_SETTINGS):
        return ["--no-control-socket"]
    return []


class Server(common.Server):
    """A waitress, retrieval or gunicorn server on a free port, started with retries."""

    def __init__(self, name, kind, app, threads, extra_args, env, log_dir):
        super().__init__(name, log_dir)
        self.kind, self.app = kind, app
        self.threads, self.extra_args, self.env = threads, extra_args, env

    def start(self, health_path, timeout, attempts=3):
        """Start and wait until health_path answers 200; retry on a lost port race."""
        for attempt in range(1, attempts + 1):
            self.port = free_port()
            cmd = server_command(self.kind, self.app, self.port, self.threads, self.extra_args)
            log(f"[{self.name}] starting: {' '.join(cmd)}")
            self.launch(cmd, self.env)
            if self._wait_healthy(health_path, timeout):
                return
            self.stop()
            log(f"[{self.name}] attempt {attempt} failed; log tail:\n{self.log_tail()}")
        raise RuntimeError(f"{self.name} did not become healthy; see {self.log_path}")

    def _wait_healthy(self, path, timeout):
        """Poll until 200 or deadline; give up early if the process died."""
        deadline = time.perf_counter() + timeout
        while True:
            answer = self.first_answer(path, deadline, attempt_timeout=2, interval=0.1)
            if answer is None:
                return False
            if answer[0] == 200:
                return True
            # Any other status may come from a server still starting up: ask again.
            time.sleep(0.1)


def fetch_retrieve(server):
    """POST the benchmark request once; return the response body bytes."""
    status, body = server.request("POST", "/retrieve", REQUEST_BODY.encode())
    if status != 200:
        raise RuntimeError(f"/retrieve returned HTTP {status}")
    return body


def run_wrk(server, connections, duration, wrk_threads, wrk_timeout):
    """Run one wrk pass of REQUEST_BODY against the server's /retrieve."""
    return common.run_wrk(server.url("/retrieve"), REQUEST_BODY, duration,
                          connections=connections, threads=wrk_threads, timeout_s=wrk_timeout)


def summarize(runs):
    """Medians over repeats of one server at one concurrency level."""
    return {
        "rps_median": statistics.median(r["rps"] for r in runs),
        "rps_min": min(r["rps"] for r in runs),
        "rps_max": max(r["rps"] for r in runs),
        "p50_ms_median": statistics.median(r["p50_us"] for r in runs) / 1000,
        "p99_ms_median": statistics.median(r["p99_us"] for r in runs) / 1000,
        "errors_total": sum(r["errors"] for r in runs),
    }


def benchmark(servers, levels, repeats, duration, wrk_threads, wrk_timeout):
    """Alternate real/ceiling runs per level and repeat; return per-level results."""
    results = []
    for conns in levels:
        raw = {s.name: [] for s in servers}
        for rep in range(repeats):
            # Flip the order every repeat (ABBA) so slow drift on a shared
            # machine does not systematically favour whichever runs first.
            order = servers if rep % 2 == 0 else list(reversed(servers))
            for s in order:
                r = run_wrk(s, conns, duration, wrk_threads, wrk_timeout)
                raw[s.name].append(r)
                log(f"c={conns} rep={rep + 1}/{repeats} {s.name:9s} "
                    f"{r['rps']:9.1f} req/s  p50={r['p50_us'] / 1000:.2f}ms "
                    f"p99={r['p99_us'] / 1000:.2f}ms errors={r['errors']}")
        real, ceil = (summarize(raw[s.name]) for s in servers)
        # Paired per-repeat ratios show the spread that the ratio of medians hides.
        paired = [a["rps"] / b["rps"]
                  for a, b in zip(raw["retrieve"], raw["ceiling"], strict=True) if b["rps"]]
        results.append({
            "connections": conns,
            "retrieve": real,
            "ceiling": ceil,
            "ratio": real["rps_median"] / ceil["rps_median"] if ceil["rps_median"] else None,
            "paired_ratios": paired,
            "runs": raw,
        })
    return results


def markdown_table(results):
    """Render per-level results as a markdown table."""
    lines = [
        "| conns | retrieve req/s | ceiling req/s | ratio | retrieve p50 ms | retrieve p99 ms "
        "| ceiling p50 ms | ceiling p99 ms | errors (r/c) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for res in results:
        r, c = res["retrieve"], res["ceiling"]
        ratio = f"{res['ratio']:.3f}" if res["ratio"] is not None else "n/a"
        lines.append(
            f"| {res['connections']} | {r['rps_median']:.0f} | {c['rps_median']:.0f} | {ratio} "
            f"| {r['p50_ms_median']:.2f} | {r['p99_ms_median']:.2f} "
            f"| {c['p50_ms_median']:.2f} | {c['p99_ms_median']:.2f} "
            f"| {r['errors_total']}/{c['errors_total']} |")
    return "\n".join(lines)


def parse_args(argv=None):
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--app", default="retrieval.wsgi:app", help="MODULE:ATTR of the real app")
    p.add_argument("--server", choices=("waitress", "retrieval", "gunicorn"), default="waitress")
    p.add_argument("--threads", type=int, default=4, help="server worker threads")
    p.add_argument("--connections", default="8", help="comma-separated wrk concurrency levels")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    p.add_argument("--warmup", type=int, default=2,
                   help="seconds of unrecorded wrk load per server")
    p.add_argument("--wrk-threads", type=int, default=2)
    p.add_argument("--wrk-timeout", type=int, default=5,
                   help="wrk --timeout; slower responses count as timeout errors")
    p.add_argument("--server-arg", action="append", default=[],
                   help="extra flag for BOTH servers, e.g. --server-arg=--connection-limit=200")
    p.add_argument("--startup-timeout", type=float, default=60)
    p.add_argument("--json-out", help="write full results (incl. every run) here")
    p.add_argument("--keep-logs", action="store_true",
                   help="keep server logs after a successful run (always kept on failure)")
    args = p.parse_args(argv)
    try:
        args.levels = [int(x) for x in args.connections.split(",") if x.strip()]
    except ValueError:
        p.error(f"--connections must be comma-separated integers, not {args.connections!r}")
    if not args.levels or min(args.levels) < 1 or args.repeats < 1 or args.duration < 1:
        p.error("--connections, --repeats and --duration must be positive")
    return args


def check_tools(server):
    """Fail fast, before starting anything, if a required tool is missing."""
    common.require_wrk()
    # `retrieval serve` is this repository's own package, importable from the repo root.
    if server != "retrieval" and importlib.util.find_spec(server) is None:
        sys.exit(f"{server} is not installed in {sys.executable}")


def main(argv=None):
    """Start both servers, benchmark, report, and always stop the servers."""
    args = parse_args(argv)
    check_tools(args.server)
    common.exit_on_sigterm()
    log_dir = tempfile.mkdtemp(prefix="bench-ceiling-")
    base_env = common.with_repo_on_path(os.environ)

    real = Server("retrieve", args.server, args.app, args.threads, args.server_arg,
                  base_env, log_dir)
    ceiling = None
    try:
        real.start("/health", args.startup_timeout)
        body_bytes = len(fetch_retrieve(real))
        log(f"real /retrieve response: {body_bytes} bytes")

        ceiling = Server("ceiling", args.server, CONSTANT_APP, args.threads, args.server_arg,
                         dict(base_env, CONSTANT_BODY_BYTES=str(body_bytes)), log_dir)
        ceiling.start("/health", args.startup_timeout)
        ceiling_bytes = len(fetch_retrieve(ceiling))
        if ceiling_bytes != body_bytes:
            raise RuntimeError(f"ceiling body {ceiling_bytes} B != real body {body_bytes} B")

        servers = [real, ceiling]
        if args.warmup > 0:
            # Warm lazily built indexes / caches so repeat 1 is not an outlier.
            for s in servers:
                run_wrk(s, max(args.levels), args.warmup, args.wrk_threads, args.wrk_timeout)

        started, loadavg = time.time(), os.getloadavg()
        results = benchmark(servers, args.levels, args.repeats, args.duration,
                            args.wrk_threads, args.wrk_timeout)
    finally:
        for s in (ceiling, real):
            if s is not None:
                s.stop()
    # Only reached on success; Waitress's per-request queue warnings make
    # these logs tens of MB over a long run, so do not leave them by default.
    if not args.keep_logs:
        shutil.rmtree(log_dir, ignore_errors=True)

    meta = {
        "app": args.app, "server": args.server, "threads": args.threads,
        "server_args": args.server_arg, "repeats": args.repeats, "duration_s": args.duration,
        "wrk_threads": args.wrk_threads, "wrk_timeout_s": args.wrk_timeout,
        "body_bytes": body_bytes, "request_body": REQUEST_BODY,
        "python": platform.python_version(), "cpus": os.cpu_count(),
        "loadavg_at_start": loadavg, "started_unix": started,
        "server_logs": log_dir if args.keep_logs else None,
    }
    print(f"server={args.server} threads={args.threads} app={args.app} body={body_bytes}B "
          f"duration={args.duration}s repeats={args.repeats} (medians)\n")
    print(markdown_table(results))
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump({"meta": meta, "results": results}, f, indent=2)
        log(f"wrote {args.json_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
