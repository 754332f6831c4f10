"""Shared harness pieces for the bench scripts: logging, server subprocesses, wrk runs."""

import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(BENCH_DIR)
LUA_SCRIPT = os.path.join(BENCH_DIR, "retrieve.lua")
HOST = "127.0.0.1"


def log(msg):
    """Progress to stderr so stdout stays the report alone."""
    print(msg, file=sys.stderr, flush=True)


def with_repo_on_path(env):
    """A copy of env with the repo root first on PYTHONPATH."""
    # So `retrieval` and `bench` import the same way under waitress, gunicorn and
    # `retrieval serve`, whichever of them puts the cwd on sys.path.
    env = dict(env)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (REPO_ROOT, env.get("PYTHONPATH")) if p)
    return env


def require_wrk():
    """Exit with an install hint if wrk is not on PATH."""
    if not shutil.which("wrk"):
        sys.exit("wrk not found: apt-get install -y wrk")


def exit_on_sigterm():
    """Turn SIGTERM into SystemExit so `finally` blocks stop the servers."""
    # Default SIGTERM kills Python without running `finally`, which would leave servers
    # (own sessions, so nothing else reaps them) running and temp files on disk.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))


class Server:
    """One server subprocess with its own log file; always stop() it in a finally."""

    def __init__(self, name, log_dir):
        self.name = name
        self.log_path = os.path.join(log_dir, f"{name}.log")
        self.proc = None
        self.port = None
        self.started = None  # perf_counter() just before Popen

    def url(self, path):
        """Absolute URL of path on the running server."""
        return f"http://{HOST}:{self.port}{path}"

    def launch(self, cmd, env, pass_fds=()):
        """Popen cmd from the repo root in its own session, output appended to the log."""
        # Output goes to a file, never a PIPE: nobody drains a pipe during a run, and
        # Waitress warns on most requests once the queue backs up, so a full pipe would
        # stall the server mid-benchmark.
        with open(self.log_path, "ab") as logf:
            self.started = time.perf_counter()
            self.proc = subprocess.Popen(
                cmd, cwd=REPO_ROOT, env=env, stdin=subprocess.DEVNULL,
                stdout=logf, stderr=subprocess.STDOUT, pass_fds=pass_fds,
                # Own process group: stop() can signal gunicorn's workers too, and a
                # terminal Ctrl-C reaches only the harness.
                start_new_session=True)

    def request(self, method, path, body=None, timeout=30):
        """One request on a new connection; return (status, body bytes)."""
        conn = http.client.HTTPConnection(HOST, self.port, timeout=timeout)
        try:
            headers = {"Content-Type": "application/json"} if body is not None else {}
            conn.request(method, path, body=body, headers=headers)
            resp = conn.getresponse()
            return resp.status, resp.read()
        finally:
            conn.close()

    def first_answer(self, path, deadline, attempt_timeout, interval=0.0):
        """GET path until any HTTP answer: (status, body), or None once exited or past deadline."""
        while True:
            remaining = deadline - time.perf_counter()
            if remaining <= 0 or self.proc.poll() is not None:
                return None
            try:
                # Short per-attempt timeout so a server that died mid-start is noticed.
                return self.request("GET", path, timeout=min(attempt_timeout, remaining))
            except (OSError, http.client.HTTPException):
                # Refused, reset or timed out: not up yet.
                if interval:
                    time.sleep(interval)

    def stop(self, timeout=10):
        """SIGTERM the process group, wait, then SIGKILL; return the exit code; safe twice."""
        if self.proc is None or self.proc.poll() is not None:
            return None if self.proc is None else self.proc.returncode
        for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5)):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                return self.proc.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                log(f"[{self.name}] did not exit after {sig.name}")
        return self.proc.poll()

    def log_tail(self, lines=20):
        """Last lines of the server log, for error messages."""
        try:
            with open(self.log_path, "rb") as f:
                return b"".join(f.readlines()[-lines:]).decode(errors="replace")
        except OSError:
            return ""


def run_wrk(url, body, duration, connections=8, threads=2, timeout_s=5):
    """One wrk pass with bench/retrieve.lua POSTing body; return the parsed WRK_JSON dict."""
    # wrk refuses fewer connections than threads, so c=1 needs t=1.
    threads = max(1, min(threads, connections))
    cmd = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration}s",
           f"--timeout={timeout_s}s", "--latency", "-s", LUA_SCRIPT, url]
    # Bounded: wrk ends after `duration`, but a wedged server must not hang the harness.
    out = subprocess.run(cmd, env=dict(os.environ, RETRIEVE_BODY=body), capture_output=True,
                         text=True, timeout=duration + timeout_s + 30)
    for line in out.stdout.splitlines():
        if line.startswith("WRK_JSON "):
            return json.loads(line[len("WRK_JSON "):])
    raise RuntimeError(f"wrk gave no WRK_JSON line (rc={out.returncode}):\n"
                       f"{out.stdout}\n{out.stderr}")
