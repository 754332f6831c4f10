#!/usr/bin/env python3
"""Run N `retrieval serve` replicas behind HAProxy on loopback, in the foreground.

    deploy/local_cluster.py [--port 8765] [--replicas 3] [--snapshot PATH] [--ready-file PATH]

Every listening socket (each replica's, HAProxy's frontend and stats page) is bound here and
handed to the child (`retrieval serve --fd N`, HAProxy `bind fd@N`), so ports are known before
anything starts and nothing else can take them. This process keeps no copy of a replica's
socket: once a replica exits its port refuses connections at once, which HAProxy retries
elsewhere (a copy kept open here would instead accept connections nobody ever answers).

Ready means: every replica answers GET /health 200 directly, all of them serve the same
corpus_id, HAProxy reports every server UP, and GET /health through the frontend answers 200.
Then the addresses and pids are printed (and written as JSON to --ready-file).

Each child's output goes to a log file in a temporary work directory and is copied here
prefixed with its name ([r1], [haproxy]); the directory is removed after a clean stop and kept
(its path printed) otherwise.

Children run in their own sessions, so a Ctrl-C reaches only this process, which then stops
them in order: HAProxy first (soft stop: no new connections, requests in flight finish), then
every replica with SIGTERM (each drains and exits 0). They also get SIGTERM if this process
dies without cleaning up (Linux parent-death signal). Exit status: 0 if everything stopped on
its own with status 0, 1 otherwise (something failed to start, exited non-zero, or had to be
killed).

While running, a replica that exits is reported on stdout as
    local-cluster: replica r2 (pid 1234) exited with status 0
and is not restarted (HAProxy keeps it DOWN; the others carry the load).
"""

import argparse
import ctypes
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_CONFIG = os.path.join(HERE, "haproxy.cfg")
BACKEND = "replicas"
SERVER_LINE = re.compile(r"^(\s*)server\s+r1\s.*$", re.M)
ANY_SERVER_LINE = re.compile(r"^\s*server\s+r\d+\s.*\n?", re.M)
HAPROXY_HARD_STOP_S = 10.0  # hard-stop-after in haproxy.cfg
POLL_S = 0.05


class ClusterError(RuntimeError):
    """The cluster could not be started."""


def log(message):
    print(f"local-cluster: {message}", file=sys.stderr, flush=True)


def say(message):
    print(f"local-cluster: {message}", flush=True)


# --- children -----------------------------------------------------------------------------------

try:
    _prctl = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):  # not Linux: no parent-death signal, cleanup relies on us
    _prctl = None
_PR_SET_PDEATHSIG = 1


def _child_setup():
    # Runs in the child between fork and exec: ask the kernel to SIGTERM it if we die.
    if _prctl is not None:
        _prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM))


class Child:
    """One child process. Its stdout and stderr go to NAME.log in the work directory.

    A file, not a pipe: if this process dies, a pipe's reader would go with it and the child's
    next log line would fail (a draining replica would stop in the middle of its drain); a file
    stays writable, and its tail is still there to read afterwards.
    """

    def __init__(self, name, command, env, log_dir, pass_fds=()):
        self.name = name
        self.command = command
        self.returncode = None
        self.killed = False
        self.reported = False
        self.log_path = os.path.join(log_dir, f"{name}.log")
        with open(self.log_path, "ab") as log_file:
            self.process = subprocess.Popen(
                command, env=env, pass_fds=pass_fds, stdin=subprocess.DEVNULL,
                stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True,
                preexec_fn=_child_setup)
        self.pid = self.process.pid
        self.tail = []  # the last lines, for error messages
        self._reader = open(self.log_path, "rb")
        self._partial = b""

    def copy_output(self, final=False):
        """Print the child's new complete lines (and a last partial one if final), prefixed."""
        data = self._partial + self._reader.read()
        lines = data.split(b"\n")
        self._partial = lines.pop()
        if final and self._partial:
            lines.append(self._partial)
            self._partial = b""
        for raw in lines:
            line = raw.decode("utf-8", errors="replace")
            self.tail = (self.tail + [line])[-40:]
            print(f"[{self.name}] {line}", file=sys.stderr, flush=True)

    def close_log(self):
        self._reader.close()

    def poll(self):
        if self.returncode is None:
            self.returncode = self.process.poll()
        return self.returncode

    def signal(self, signum):
        if self.poll() is None:
            try:
                self.process.send_signal(signum)
            except ProcessLookupError:
                pass

    def wait(self, timeout):
        """Wait up to timeout; kill (and remember it) if the child is still running."""
        try:
            self.returncode = self.process.wait(timeout=max(0.0, timeout))
        except subprocess.TimeoutExpired:
            self.killed = True
            self.process.kill()
            self.returncode = self.process.wait()
        return self.returncode


class OutputCopier:
    """Copy every child's log to our stderr as it grows, from one background thread."""

    def __init__(self):
        self.children = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="output", daemon=True)
        self._thread.start()

    def add(self, child):
        with self._lock:
            self.children.append(child)

    def copy(self, final=False):
        with self._lock:
            for child in self.children:
                child.copy_output(final)

    def _run(self):
        while not self._stop.wait(0.1):
            self.copy()

    def close(self):
        self._stop.set()
        self._thread.join(timeout=2)
        self.copy(final=True)
        for child in self.children:
            child.close_log()


def bind_loopback(port):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError as exc:
        sock.close()
        raise ClusterError(f"cannot bind 127.0.0.1:{port}: {exc}") from None
    sock.listen(512)
    return sock


def find_haproxy(explicit):
    for candidate in ([explicit] if explicit else
                      [shutil.which("haproxy"), "/usr/sbin/haproxy", "/usr/local/sbin/haproxy"]):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise ClusterError("haproxy not found (apt-get install -y haproxy, or pass --haproxy PATH)")


def replica_env():
    env = dict(os.environ)
    if os.path.isfile(os.path.join(ROOT, "retrieval", "__init__.py")):
        # Run this checkout's package, installed or not.
        env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH")
                                    else "")
    return env


def serve_flags(python, env):
    """Return the set of `retrieval serve` flags this checkout supports."""
    try:
        out = subprocess.run([python, "-m", "retrieval", "serve", "--help"], env=env,
                             stdin=subprocess.DEVNULL, capture_output=True, timeout=30,
                             check=False).stdout.decode("utf-8", errors="replace")
    except subprocess.TimeoutExpired:
        raise ClusterError("`retrieval serve --help` did not answer within 30 s") from None
    return set(re.findall(r"--[a-z][a-z0-9-]*", out))


def render_config(path, replicas, directory):
    """Return a config path with `replicas` server lines (the shipped file itself for 3)."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    lines = ANY_SERVER_LINE.findall(text)
    first = SERVER_LINE.search(text)
    if first is None:
        raise ClusterError(f"{path}: no `server r1 ...` line to replicate")
    if replicas == len(lines):
        return path
    template = first.group(0)
    servers = "".join(
        re.sub(r"RETRIEVAL_REPLICA_1\b", f"RETRIEVAL_REPLICA_{i}",
               re.sub(r"\br1\b", f"r{i}", template)) + "\n"
        for i in range(1, replicas + 1))
    start = text.index(lines[0])
    text = ANY_SERVER_LINE.sub("", text[:start]) + servers + ANY_SERVER_LINE.sub("", text[start:])
    rendered = os.path.join(directory, "haproxy.cfg")
    with open(rendered, "w", encoding="utf-8") as handle:
        handle.write(text)
    return rendered


# --- readiness ----------------------------------------------------------------------------------

def http_get(port, path, timeout):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    except OSError:
        return None, b""
    finally:
        conn.close()


def show_stat(socket_path, timeout=2.0):
    """Return {server name: row dict} of the backend from HAProxy's `show stat`."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(socket_path)
        sock.sendall(b"show stat\n")
        chunks = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    lines = b"".join(chunks).decode("utf-8", errors="replace").splitlines()
    header = lines[0].lstrip("# ").split(",")
    rows = {}
    for line in lines[1:]:
        row = dict(zip(header, line.split(","), strict=False))
        if row.get("pxname") == BACKEND and row.get("svname") not in ("BACKEND", "FRONTEND"):
            rows[row["svname"]] = row
    return rows


class Cluster:
    def __init__(self, args):
        self.args = args
        self.replicas = []
        self.haproxy = None
        self.stop_requested = threading.Event()
        self.workdir = tempfile.mkdtemp(prefix="retrieval-cluster-")
        self.stats_socket = os.path.join(self.workdir, "haproxy.sock")
        self.output = OutputCopier()
        self.drain_delay_s = None
        self.shutdown_grace_s = None

    # -- start --

    def start(self):
        args = self.args
        haproxy = find_haproxy(args.haproxy)
        python = sys.executable
        env = replica_env()
        flags = serve_flags(python, env)
        serve_args = []
        if args.snapshot:
            serve_args += ["--snapshot", args.snapshot]
        if args.threads is not None:
            serve_args += ["--threads", str(args.threads)]
        if "--drain-delay-s" in flags:
            self.drain_delay_s = args.drain_delay_s
            serve_args += ["--drain-delay-s", str(args.drain_delay_s)]
        else:
            log("this `retrieval serve` has no --drain-delay-s: replicas stop at once on SIGTERM")
        if "--shutdown-grace-s" in flags and args.shutdown_grace_s is not None:
            serve_args += ["--shutdown-grace-s", str(args.shutdown_grace_s)]
        self.shutdown_grace_s = args.shutdown_grace_s
        if self.shutdown_grace_s is None:  # the replicas' own setting; only sizes our stop wait
            try:
                self.shutdown_grace_s = float(os.environ.get("RETRIEVAL_SHUTDOWN_GRACE_S") or 10)
            except ValueError:
                self.shutdown_grace_s = 10.0

        frontend = bind_loopback(args.port)
        stats = bind_loopback(args.stats_port)
        self.port = frontend.getsockname()[1]
        self.stats_port = stats.getsockname()[1]
        hap_env = dict(os.environ)
        hap_env.update(RETRIEVAL_LB_BIND=f"fd@{frontend.fileno()}",
                       RETRIEVAL_LB_STATS_BIND=f"fd@{stats.fileno()}",
                       RETRIEVAL_LB_STATS_SOCKET=self.stats_socket)
        try:
            for index in range(1, args.replicas + 1):
                listener = bind_loopback(0)
                port = listener.getsockname()[1]
                try:
                    child = Child(f"r{index}", [python, "-m", "retrieval", "serve", "--fd",
                                                str(listener.fileno()), *serve_args],
                                  env, self.workdir, pass_fds=(listener.fileno(),))
                finally:
                    listener.close()  # the replica has its own copy; see the module docstring
                child.port = port
                self.replicas.append(child)
                self.output.add(child)
                hap_env[f"RETRIEVAL_REPLICA_{index}"] = f"127.0.0.1:{port}"
            self.config = render_config(args.config, args.replicas, self.workdir)
            self.haproxy = Child("haproxy", [haproxy, "-db", "-f", self.config], hap_env,
                                 self.workdir, pass_fds=(frontend.fileno(), stats.fileno()))
            self.output.add(self.haproxy)
        finally:
            frontend.close()
            stats.close()
        self.wait_ready()

    def _check_alive(self):
        for child in [*self.replicas, self.haproxy]:
            if child.poll() is not None:
                self.output.copy(final=True)
                raise ClusterError(f"{child.name} exited with status {child.returncode} while "
                                   f"starting:\n  " + "\n  ".join(child.tail[-15:]))

    def wait_ready(self):
        deadline = time.monotonic() + self.args.ready_timeout
        pending = list(self.replicas)
        corpus_ids = {}
        stage = "replicas /health"
        while True:
            if self.stop_requested.is_set():
                raise ClusterError("stopped while starting")
            self._check_alive()
            if time.monotonic() > deadline:
                raise ClusterError(f"not ready within {self.args.ready_timeout} s "
                                   f"(waiting for {stage})")
            if pending:
                for child in list(pending):
                    status, body = http_get(child.port, "/health", timeout=1.0)
                    if status == 200:
                        corpus_ids[child.name] = json.loads(body).get("corpus_id")
                        pending.remove(child)
                if not pending and len(set(corpus_ids.values())) != 1:
                    raise ClusterError(f"replicas serve different corpora: {corpus_ids}")
                self.corpus_id = next(iter(corpus_ids.values()), None)
                stage = "HAProxy to mark every server UP"
            elif stage.startswith("HAProxy"):
                try:
                    rows = show_stat(self.stats_socket)
                except OSError:
                    rows = {}
                if len(rows) == len(self.replicas) and all(
                        row.get("status") == "UP" for row in rows.values()):
                    stage = "GET /health through the frontend"
                    continue
            else:
                status, _ = http_get(self.port, "/health", timeout=1.0)
                if status == 200:
                    return
            self.stop_requested.wait(POLL_S)

    def describe(self) -> dict:
        return {
            "frontend": f"http://127.0.0.1:{self.port}",
            "port": self.port,
            "stats_url": f"http://127.0.0.1:{self.stats_port}/",
            "stats_socket": self.stats_socket,
            "backend": BACKEND,
            "haproxy_pid": self.haproxy.pid,
            "config": self.config,
            "corpus_id": self.corpus_id,
            "drain_delay_s": self.drain_delay_s,
            "shutdown_grace_s": self.shutdown_grace_s,
            "replicas": [{"name": c.name, "url": f"http://127.0.0.1:{c.port}", "port": c.port,
                          "pid": c.pid} for c in self.replicas],
        }

    def announce(self):
        info = self.describe()
        say(f"frontend {info['frontend']}  (HAProxy pid {info['haproxy_pid']})")
        for replica in info["replicas"]:
            say(f"replica {replica['name']} {replica['url']}  pid {replica['pid']}")
        say(f"stats page {info['stats_url']}  runtime API {info['stats_socket']}")
        say(f"corpus_id {info['corpus_id']}")
        if self.args.ready_file:
            tmp = self.args.ready_file + ".tmp"
            with open(tmp, "w", encoding="utf-8") as handle:
                json.dump(info, handle, indent=2)
            os.replace(tmp, self.args.ready_file)  # appears whole or not at all
        say("ready (Ctrl-C to stop)")

    # -- run --

    def watch(self):
        """Report replicas that exit; return when asked to stop or when HAProxy exits."""
        while not self.stop_requested.wait(0.1):
            self._report_exits()
            if self.haproxy.poll() is not None:
                say(f"haproxy (pid {self.haproxy.pid}) exited with status "
                    f"{self.haproxy.returncode}")
                return False
        return True

    def _report_exits(self):
        for child in self.replicas:
            if child.poll() is not None and not child.reported:
                child.reported = True
                say(f"replica {child.name} (pid {child.pid}) exited with status "
                    f"{child.returncode}")

    # -- stop --

    def stop(self) -> bool:
        """Stop HAProxy, then the replicas; return True if all stopped cleanly with status 0."""
        clean = True
        if self.haproxy is not None:
            # Soft stop: stop accepting, let requests in flight finish (bounded by hard-stop-after).
            self.haproxy.signal(signal.SIGUSR1)
            status = self.haproxy.wait(HAPROXY_HARD_STOP_S + 5)
            if not self.haproxy.reported:
                say(f"haproxy (pid {self.haproxy.pid}) exited with status {status}"
                    + (" (killed)" if self.haproxy.killed else ""))
            clean &= status == 0 and not self.haproxy.killed
        for child in self.replicas:
            child.signal(signal.SIGTERM)
        budget = (self.drain_delay_s or 0) + (self.shutdown_grace_s or 10) + 5
        deadline = time.monotonic() + budget
        for child in self.replicas:
            status = child.wait(deadline - time.monotonic())
            if not child.reported:
                child.reported = True
                say(f"replica {child.name} (pid {child.pid}) exited with status {status}"
                    + (" (killed)" if child.killed else ""))
            clean &= status == 0 and not child.killed
        self.output.close()
        if self.args.ready_file and os.path.exists(self.args.ready_file):
            os.unlink(self.args.ready_file)
        if clean:
            shutil.rmtree(self.workdir, ignore_errors=True)
            say("stopped")
        else:
            say(f"stopped (not cleanly); logs kept in {self.workdir}")
        return clean


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="local-cluster", description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=8765,
                        help="frontend port on 127.0.0.1 (default 8765; 0: any free port)")
    parser.add_argument("--replicas", type=int, default=3, help="number of replicas (default 3)")
    parser.add_argument("--snapshot", help="snapshot every replica serves (default: embedded)")
    parser.add_argument("--threads", type=int, help="Waitress threads per replica")
    parser.add_argument("--drain-delay-s", type=float, default=1.5,
                        help="replicas answer /health 503 this long after SIGTERM before "
                             "stopping; must exceed HAProxy's inter + timeout check (default 1.5)")
    parser.add_argument("--shutdown-grace-s", type=float,
                        help="replicas' longest wait for requests in flight (default: theirs)")
    parser.add_argument("--stats-port", type=int, default=0,
                        help="HAProxy stats page port (default: any free port)")
    parser.add_argument("--ready-file", help="write the cluster's addresses and pids here as "
                                             "JSON once ready (removed on stop)")
    parser.add_argument("--ready-timeout", type=float, default=30.0,
                        help="seconds to wait for readiness (default 30)")
    parser.add_argument("--haproxy", help="haproxy executable (default: from PATH or /usr/sbin)")
    parser.add_argument("--config", default=DEFAULT_CONFIG, help="HAProxy configuration template")
    args = parser.parse_args(argv)
    if args.replicas < 1:
        parser.error("--replicas must be at least 1")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    cluster = Cluster(args)

    def request_stop(signum, frame):
        cluster.stop_requested.set()

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGHUP, request_stop)
    ok = True
    try:
        cluster.start()
        cluster.announce()
        ok = cluster.watch()
    except ClusterError as exc:
        log(f"error: {exc}")
        ok = False
    finally:
        ok = cluster.stop() and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
