"""Capacity: /retrieve req/s and p50/p99 against concurrency for one process, gunicorn, HAProxy.

Setups (loopback, the embedded fixture, one Waitress or gunicorn thread per process):
  one           python -m retrieval serve --fd N --threads 1    (what ships: connection_limit
                100, so at c=128 28+ connections wait in the kernel backlog; max_in_flight 32, so
                requests beyond 32 queued get 503 overloaded at once, counted as errors)
  one-open      the same with RETRIEVAL_CONNECTION_LIMIT=256 and --max-in-flight 256: every
                connection served and every request admitted
  waitress4     python -m waitress --listen=127.0.0.1:PORT --threads=4 retrieval.wsgi:app
                (plain waitress-serve with the flag docs/operating.md documents for it)
  gunicorn2     python -m gunicorn -k gthread -w 2 --threads 1 -b fd://N retrieval.wsgi:app
                (no --preload: each worker builds retrieval.wsgi.app on first access)
  haproxy3      deploy/local_cluster.py --port 0 --replicas 3 (HAProxy + 3 x `retrieval serve`)
  haproxy3-mc8  the same with a copy of deploy/haproxy.cfg whose `maxconn` is 8 per replica

Every setup is started first and kept running; then for each concurrency level and repeat, wrk
(`wrk -tT -cC -dDs --latency -s bench/retrieve.lua URL/retrieve`, T = min(2, C)) runs against each
setup in turn, the order reversed on every other repeat so drift on a shared machine does not
favour one setup. Reported: medians over repeats of req/s, p50, p99, and what the server side did
during each run: CPU (utime + stime from /proc, in cores) of the server processes, HAProxy, wrk and
the whole machine (/proc/stat, busy and steal), per thread for a one-process setup (main thread =
Waitress's I/O loop, the other its one worker), and each server process's open fds half-way
through (about the connections it holds).

Then one process is profiled at each --profile-connections level (default 8 and 128): an
unprofiled run (per-thread CPU), a run under `py-spy record -r 500 -d D -f raw --threads
--function` (samples of threads that are running: own-time top functions), and one under the same
with `--gil` (only the thread holding the GIL is sampled: the share of sampled instants at which
the GIL was held at all, and by which thread). py-spy pauses the process for each sample, so
throughput while sampling is lower; it is printed.

    python bench/capacity.py                                    # ~14 min
    python bench/capacity.py --setups one,gunicorn2 --connections 8 --repeats 1 --duration 3 \
        --no-profile
    python bench/capacity.py --profile-only --profile-connections 8
    python bench/capacity.py --json-out /tmp/capacity.json      # every wrk run and profile
    python bench/capacity.py --setups one-open --connections 8,128 --repeats 5 --duration 4 \
        --interleave-levels --no-profile                        # c=128 against c=8, side by side
"""

import argparse
import collections
import json
import os
import platform
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

if __package__:  # python -m bench.capacity
    from bench import common
else:  # python bench/capacity.py
    import common

log = common.log
CLUSTER = os.path.join(common.REPO_ROOT, "deploy", "local_cluster.py")
REQUEST_BODY = json.dumps(
    {"question": "Will write_text replace the contents of an existing file?", "version": "3.12"},
    separators=(",", ":"),
)
CLK_TCK = os.sysconf("SC_CLK_TCK")
LABELS = {
    "one": "one process (`retrieval serve --threads 1`)",
    "one-open": "one process, connection_limit and max_in_flight 256",
    "waitress4": "plain `waitress-serve --threads=4`",
    "gunicorn2": "gunicorn gthread, 2 workers x 1 thread",
    "haproxy3": "HAProxy + 3 replicas (`deploy/local_cluster.py`)",
    "haproxy3-mc8": "HAProxy + 3 replicas, maxconn 8 per replica",
}


# ---- /proc ----------------------------------------------------------------------------------

def proc_ticks(pid, tid=None, split=False):
    """utime + stime of a process (or one of its threads) in clock ticks (or (utime, stime) with
    split); None if it is gone."""
    path = f"/proc/{pid}/stat" if tid is None else f"/proc/{pid}/task/{tid}/stat"
    try:
        with open(path) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    utime, stime = int(fields[11]), int(fields[12])  # fields 14 and 15 of proc_pid_stat(5)
    return (utime, stime) if split else utime + stime


def children(pid):
    """Direct children of pid, by scanning /proc."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == pid:
                out.append(int(entry))
    return out


def machine_ticks():
    """(busy, steal, total) jiffies of all CPUs from /proc/stat; busy = user..softirq."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    return v[0] + v[1] + v[2] + v[5] + v[6], v[7], sum(v)


def thread_ticks(pid):
    """{tid: (utime, stime)} for every thread of pid."""
    out = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        t = proc_ticks(pid, int(tid), split=True)
        if t is not None:
            out[int(tid)] = t
    return out


def fd_count(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None


# ---- setups ---------------------------------------------------------------------------------

def listening_socket():
    """A loopback listening socket for a child to inherit (port known, no race)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((common.HOST, 0))
    sock.listen(1024)
    return sock


class Setup(common.Server):
    """One server setup under test: start(), pid groups for CPU accounting, stop()."""

    def __init__(self, name, log_dir, env):
        super().__init__(name, log_dir)
        self.env = env
        self.command = None
        self.groups = {}

    def start(self, timeout):
        if self.name.startswith("haproxy3"):
            return self._start_cluster(timeout)
        sock = listening_socket()
        fd = sock.fileno()
        self.port = sock.getsockname()[1]
        serve = [sys.executable, "-m", "retrieval", "serve", "--fd", str(fd), "--threads", "1"]
        env = self.env
        if self.name == "one":
            cmd = serve
        elif self.name == "one-open":
            cmd = [*serve, "--max-in-flight", "256"]
            env = dict(env, RETRIEVAL_CONNECTION_LIMIT="256")
        elif self.name == "waitress4":
            # waitress-serve cannot inherit a socket: it binds the port itself, once ours is
            # closed (a small race, like run_ceiling.py's free ports).
            cmd = [sys.executable, "-m", "waitress", f"--listen={common.HOST}:{self.port}",
                   "--threads=4", "retrieval.wsgi:app"]
            sock.close()
        else:
            cmd = [sys.executable, "-m", "gunicorn", "-k", "gthread", "-w", "2", "--threads", "1",
                   "-b", f"fd://{fd}", "--graceful-timeout", "5",
                   *gunicorn_control_socket_args(), "retrieval.wsgi:app"]
        shown = ["N" if a == str(fd) else "fd://N" if a == f"fd://{fd}" else a for a in cmd]
        shown[0] = "python"
        if env is not self.env:
            shown.insert(0, "RETRIEVAL_CONNECTION_LIMIT=256")
        self.command = " ".join(f"'{a}'" if " " in a else a for a in shown)
        try:
            self.launch(cmd, env, pass_fds=() if self.name == "waitress4" else (fd,))
        finally:
            sock.close()  # the child has its own copy
        self._wait_healthy(timeout)
        if self.name == "gunicorn2":
            workers = []
            deadline = time.monotonic() + timeout
            while len(workers) < 2 and time.monotonic() < deadline:
                workers = children(self.proc.pid)
                time.sleep(0.1)
            self.groups = {"gunicorn master": [self.proc.pid], "server": workers}
        else:
            self.groups = {"server": [self.proc.pid]}

    def _start_cluster(self, timeout):
        ready = os.path.join(os.path.dirname(self.log_path), f"{self.name}-ready.json")
        cmd = [sys.executable, CLUSTER, "--port", "0", "--replicas", "3", "--ready-file", ready]
        if self.name == "haproxy3-mc8":
            # The shipped config with the one change: at most 8 requests at once per replica.
            with open(os.path.join(common.REPO_ROOT, "deploy", "haproxy.cfg")) as f:
                text, n = re.subn(r"^(\s*default-server .*\bmaxconn )\d+", r"\g<1>8", f.read(),
                                  flags=re.M)
            if n != 1:
                raise RuntimeError("deploy/haproxy.cfg: no `default-server ... maxconn N` line")
            config = os.path.join(os.path.dirname(self.log_path), "haproxy-maxconn8.cfg")
            with open(config, "w") as f:
                f.write(text)
            cmd += ["--config", config]
        self.command = " ".join(
            os.path.relpath(a, common.REPO_ROOT) if a == CLUSTER else "FILE" if a == ready else
            "COPY_OF_deploy/haproxy.cfg_WITH_maxconn_8" if a.endswith("maxconn8.cfg") else a
            for a in cmd[1:])
        self.launch(cmd, self.env)
        deadline = time.monotonic() + timeout
        while not os.path.exists(ready):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"local-cluster not ready; log tail:\n{self.log_tail()}")
            time.sleep(0.1)
        with open(ready) as f:
            info = json.load(f)
        self.port = info["port"]
        self.groups = {"local-cluster": [self.proc.pid], "haproxy": [info["haproxy_pid"]],
                       "server": [r["pid"] for r in info["replicas"]]}
        self._wait_healthy(timeout)

    def _wait_healthy(self, timeout):
        answer = self.first_answer("/health", time.perf_counter() + timeout, attempt_timeout=2,
                                   interval=0.05)
        if answer is None or answer[0] != 200:
            raise RuntimeError(f"{self.name} not healthy ({answer}); log tail:\n{self.log_tail()}")
        status, body = self.request("POST", "/retrieve", REQUEST_BODY.encode())
        if status != 200:
            raise RuntimeError(f"{self.name}: /retrieve answered {status}: {body[:200]!r}")
        log(f"[{self.name}] up on port {self.port}: {self.command}")

    def ticks(self):
        """{pid: ticks} of every process of every group."""
        return {p: proc_ticks(p) or 0 for pids in self.groups.values() for p in pids}

    def group_cores(self, before, after, wall):
        """{group: cores} and {pid: cores} from two ticks() readings wall seconds apart."""
        per_pid = {p: (after[p] - before[p]) / CLK_TCK / wall for p in before}
        return ({g: sum(per_pid[p] for p in pids) for g, pids in self.groups.items()},
                {str(p): v for p, v in per_pid.items()})

    def stop(self, timeout=40):
        status = super().stop(timeout)
        # local-cluster stops its children itself; make sure none outlived it.
        for pid in [p for g, pids in self.groups.items() if g != "local-cluster" for p in pids]:
            if proc_ticks(pid) is not None and pid != (self.proc.pid if self.proc else None):
                log(f"[{self.name}] pid {pid} still running after stop; SIGKILL")
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        return status


def gunicorn_control_socket_args():
    """Disable gunicorn's control socket where the installed version has one."""
    from gunicorn.config import KNOWN_SETTINGS

    if any(s.name == "control_socket_disable" for s in KNOWN_SETTINGS):
        return ["--no-control-socket"]
    return []


# ---- wrk --------------------------------------------------------------------------------------

def wrk_command(port, connections, duration, timeout_s):
    threads = max(1, min(2, connections))
    return ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration}s", f"--timeout={timeout_s}s",
            "--latency", "-s", os.path.relpath(common.LUA_SCRIPT, common.REPO_ROOT),
            f"http://{common.HOST}:{port}/retrieve"]


def parse_wrk(stdout, stderr, rc):
    for line in stdout.splitlines():
        if line.startswith("WRK_JSON "):
            return json.loads(line[len("WRK_JSON "):])
    raise RuntimeError(f"wrk gave no WRK_JSON line (rc={rc}):\n{stdout}\n{stderr}")


def run_wrk(setup, connections, duration, timeout_s):
    """One wrk pass; its WRK_JSON plus what the server side did meanwhile.

    cores: CPU used during the run, in cores, per pid group, by wrk and by the whole machine
    (busy and steal); threads: per-thread (utime, stime) cores of a one-process setup;
    fds_mid: open fds per server pid half-way through (connections each process holds).
    """
    cmd = wrk_command(setup.port, connections, duration, timeout_s)
    env = dict(os.environ, RETRIEVE_BODY=REQUEST_BODY)
    single = setup.groups["server"][0] if len(setup.groups["server"]) == 1 else None
    before, th0, m0 = setup.ticks(), thread_ticks(single) if single else {}, machine_ticks()
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=common.REPO_ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(duration / 2)
        fds_mid = {str(p): fd_count(p) for p in setup.groups["server"]}
        stdout, stderr = proc.communicate(timeout=duration / 2 + timeout_s + 30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    m1, after, th1 = machine_ticks(), setup.ticks(), thread_ticks(single) if single else {}
    result = parse_wrk(stdout, stderr, proc.returncode)
    result["cores"], result["pid_cores"] = setup.group_cores(before, after, wall)
    result["cores"]["wrk"] = (r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime) / wall
    span = m1[2] - m0[2]
    result["cores"]["machine"] = (m1[0] - m0[0]) / span * os.cpu_count()
    result["cores"]["steal"] = (m1[1] - m0[1]) / span * os.cpu_count()
    result["threads"] = {
        ("main" if tid == single else "worker" if len(th1) == 2 else str(tid)):
            [(th1[tid][i] - th0.get(tid, (0, 0))[i]) / CLK_TCK / wall for i in (0, 1)]
        for tid in th1}
    result["fds_mid"] = fds_mid
    result["command"] = " ".join(cmd)
    return result


def summarize(runs):
    med = statistics.median
    groups = runs[0]["cores"].keys()
    return {
        "rps": med(r["rps"] for r in runs), "rps_min": min(r["rps"] for r in runs),
        "rps_max": max(r["rps"] for r in runs),
        "p50_ms": med(r["p50_us"] for r in runs) / 1000,
        "p99_ms": med(r["p99_us"] for r in runs) / 1000,
        "errors": sum(r["errors"] for r in runs),
        "cores": {g: med(r["cores"][g] for r in runs) for g in groups},
        "threads": {t: [med(r["threads"][t][i] for r in runs) for i in (0, 1)]
                    for t in runs[0]["threads"] if all(t in r["threads"] for r in runs)},
        "fds_mid": runs[len(runs) // 2]["fds_mid"],
    }


def benchmark(setups, levels, repeats, duration, timeout_s, interleave_levels=False):
    """Run wrk per level, repeat and setup; with interleave_levels, levels alternate too.

    Levels one after the other (the default) keep each level's setups side by side in time;
    interleaving puts every level of a repeat side by side, so a ratio between levels (c=128
    against c=8) is measured in one stretch of time rather than minutes apart.
    """
    raw = {s.name: {c: [] for c in levels} for s in setups}
    plan = ([(rep, c) for rep in range(repeats) for c in levels] if interleave_levels
            else [(rep, c) for c in levels for rep in range(repeats)])
    for rep, conns in plan:
        order = setups if rep % 2 == 0 else list(reversed(setups))
        for s in order:
            r = run_wrk(s, conns, duration, timeout_s)
            raw[s.name][conns].append(r)
            log(f"c={conns} rep={rep + 1}/{repeats} {s.name:10s} {r['rps']:8.1f} req/s "
                f"p50={r['p50_us'] / 1000:.2f}ms p99={r['p99_us'] / 1000:.2f}ms "
                f"errors={r['errors']} cores " + " ".join(
                    f"{g}={v:.2f}" for g, v in r["cores"].items()))
    return {s.name: {c: dict(summarize(raw[s.name][c]), runs=raw[s.name][c]) for c in levels}
            for s in setups}


# ---- profile ----------------------------------------------------------------------------------

FRAME = re.compile(r"^(?P<func>.*) \((?P<file>[^()]*?)(?::(?P<line>\d+))?\)$")


def short_frame(frame):
    """`func (path/to/file.py:12)` -> `func (file.py:12)`, paths after site-packages/ or repo."""
    m = FRAME.match(frame)
    if not m:
        return frame
    path = m.group("file")
    for marker in ("site-packages/", common.REPO_ROOT + "/", "lib/python3.11/"):
        if marker in path:
            path = path.split(marker, 1)[1]
            break
    return f"{m.group('func')} ({path}{':' + m.group('line') if m.group('line') else ''})"


def thread_label(name):
    """py-spy's `thread (0x7f..): waitress-0` -> `worker`; MainThread -> `main`."""
    name = name.rsplit(": ", 1)[-1]
    return {"MainThread": "main", "waitress-0": "worker"}.get(name, name)


def summarize_profile(path):
    """Own and inclusive samples per function, and samples per thread, from py-spy raw output."""
    own, inclusive, per_thread = collections.Counter(), collections.Counter(), collections.Counter()
    own_by_thread = collections.defaultdict(collections.Counter)
    total = 0
    with open(path) as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not stack:
                continue
            count = int(count)
            frames = stack.split(";")
            thread = thread_label(frames[0]) if frames[0].startswith("thread ") else "?"
            frames = [short_frame(fr) for fr in frames[1:]]
            per_thread[thread] += count
            total += count
            if frames:
                own[frames[-1]] += count
                own_by_thread[thread][frames[-1]] += count
                for fr in set(frames):
                    inclusive[fr] += count
    return {"total": total, "own": own.most_common(25), "inclusive": inclusive.most_common(25),
            "threads": per_thread.most_common(),
            "own_by_thread": {t: c.most_common(10) for t, c in own_by_thread.items()}}


def py_spy(pid, setup, connections, duration, timeout_s, rate, log_dir, extra):
    """py-spy record over one wrk run; returns (wrk result, profile summary, command)."""
    raw = os.path.join(log_dir, f"pyspy-c{connections}{''.join(extra)}.txt")
    cmd = [shutil.which("py-spy") or "py-spy", "record", "-r", str(rate), "-d", str(duration),
           "-f", "raw", "--threads", "--function", *extra, "-o", raw, "--pid", str(pid)]
    shown = " ".join("py-spy" if a == cmd[0] else "OUT" if a == raw else
                     "PID" if a == str(pid) else a for a in cmd)
    spy_log = raw + ".log"
    with open(spy_log, "wb") as out:
        spy = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            time.sleep(0.5)  # attach before the load starts; the load outlasts the recording
            result = run_wrk(setup, connections, duration + 1, timeout_s)
            spy.wait(timeout=duration + 30)
        finally:
            if spy.poll() is None:
                spy.kill()
                spy.wait()
    with open(spy_log, errors="replace") as f:
        behind = sum(1 for line in f if "behind" in line)
    summary = summarize_profile(raw)
    summary["nominal_ticks"] = rate * duration
    summary["behind_warnings"] = behind
    return result, summary, shown


def profile(log_dir, env, levels, duration, timeout_s, rate):
    """One process at each level: per-thread CPU unprofiled, py-spy active samples, py-spy --gil."""
    setup = Setup("one", log_dir, env)
    out = {}
    try:
        setup.start(60)
        pid = setup.proc.pid
        for conns in levels:
            run_wrk(setup, conns, 2, timeout_s)  # warm-up
            base = run_wrk(setup, conns, duration, timeout_s)
            active_run, active, active_cmd = py_spy(pid, setup, conns, duration, timeout_s, rate,
                                                    log_dir, [])
            gil_run, gil, gil_cmd = py_spy(pid, setup, conns, duration, timeout_s, rate, log_dir,
                                           ["--gil"])
            keep = ("rps", "p50_us", "p99_us", "errors", "cores", "threads")
            out[conns] = {
                "unprofiled": {k: base[k] for k in keep},
                "active_run": {k: active_run[k] for k in keep}, "active": active,
                "active_command": active_cmd,
                "gil_run": {k: gil_run[k] for k in keep}, "gil": gil, "gil_command": gil_cmd,
            }
            log(f"profile c={conns}: unprofiled {base['rps']:.0f} req/s threads "
                f"{base['threads']}; active samples {active['total']}, GIL samples "
                f"{gil['total']} of {gil['nominal_ticks']}")
    finally:
        setup.stop()
    return out


# ---- report -----------------------------------------------------------------------------------

def pct(n, total):
    return f"{n / total:.1%}" if total else "n/a"


def report(setups, levels, results, args, prof):
    print(f"capacity: medians of {args.repeats} x {args.duration} s per level, body "
          f"{REQUEST_BODY}; {os.cpu_count()} CPUs shared by wrk and the servers\n")
    print("Commands (N: an inherited listening socket bound by the harness):")
    for s in setups:
        print(f"  {s.name:10s} {s.command}")
    print(f"  wrk        RETRIEVE_BODY='{REQUEST_BODY}' "
          f"{' '.join(wrk_command('PORT', 8, args.duration, args.wrk_timeout))}"
          "  (-cC for each level; -t1 at c=1)")
    if setups:
        print()
        print("| setup | " + " | ".join(f"c={c} req/s | c={c} p50 / p99 ms" for c in levels)
              + " |")
        print("|---|" + "---:|---:|" * len(levels))
        for s in setups:
            cells = []
            for c in levels:
                r = results[s.name][c]
                err = f" ({r['errors']} errors)" if r["errors"] else ""
                cells.append(f"{r['rps']:.0f}{err} | {r['p50_ms']:.2f} / {r['p99_ms']:.2f}")
            print(f"| {LABELS[s.name]} | " + " | ".join(cells) + " |")
        print("\nCPU during the runs, in cores (medians; the machine has "
              f"{os.cpu_count()}); threads of a one-process setup as user+sys:\n")
        print("| setup | c | req/s min-max | server processes | haproxy | wrk | machine busy "
              "| steal | main thread | worker thread | server fds mid-run |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        for s in setups:
            for c in levels:
                r = results[s.name][c]
                cores, th = r["cores"], r["threads"]
                haproxy = f"{cores['haproxy']:.2f}" if "haproxy" in cores else "-"
                main = "{:.2f}+{:.2f}".format(*th["main"]) if "main" in th else "-"
                worker = "{:.2f}+{:.2f}".format(*th["worker"]) if "worker" in th else "-"
                fds = ",".join(str(v) for v in r["fds_mid"].values())
                print(f"| {s.name} | {c} | {r['rps_min']:.0f}-{r['rps_max']:.0f} "
                      f"| {cores.get('server', 0):.2f} | {haproxy} | {cores['wrk']:.2f} "
                      f"| {cores['machine']:.2f} | {cores['steal']:.2f} | {main} | {worker} "
                      f"| {fds} |")
    for conns, p in (prof or {}).items():
        u, a, g = p["unprofiled"], p["active"], p["gil"]
        th = u["threads"]
        print(f"\nProfile: one process (`retrieval serve --threads 1`) at c={conns}, "
              f"{args.duration} s per run")
        print(f"  unprofiled: {u['rps']:.0f} req/s, p50 {u['p50_us'] / 1000:.2f} ms, "
              f"p99 {u['p99_us'] / 1000:.2f} ms; process {u['cores']['server']:.2f} cores "
              + ", ".join(f"({t} thread {v[0]:.2f} user + {v[1]:.2f} sys)" for t, v in th.items())
              + f"; wrk {u['cores']['wrk']:.2f}; machine busy {u['cores']['machine']:.2f} "
              f"of {os.cpu_count()}")
        print(f"  {p['active_command']}: {p['active_run']['rps']:.0f} req/s while sampling; "
              f"{a['total']} active thread-samples of {a['nominal_ticks']} instants "
              f"({a['total'] / a['nominal_ticks']:.2f} threads running on average): "
              + ", ".join(f"{t} {pct(n, a['total'])}" for t, n in a["threads"]))
        print(f"  {p['gil_command']}: {p['gil_run']['rps']:.0f} req/s while sampling; "
              f"GIL held at {g['total']} of {g['nominal_ticks']} instants "
              f"({pct(g['total'], g['nominal_ticks'])}; "
              + ", ".join(f"{t} {pct(n, g['nominal_ticks'])}" for t, n in g["threads"])
              + f"); py-spy 'behind' warnings: {a['behind_warnings']}/{g['behind_warnings']}")
        print("\n| own % of active samples | function | own % of GIL-held samples |")
        print("|---:|---|---:|")
        gil_own = dict(g["own"])
        for fr, n in a["own"][:15]:
            print(f"| {pct(n, a['total'])} | `{fr}` | {pct(gil_own.get(fr, 0), g['total'])} |")
        print("\n| inclusive % of active samples | function |")
        print("|---:|---|")
        for fr, n in a["inclusive"][:15]:
            print(f"| {pct(n, a['total'])} | `{fr}` |")
        for t, entries in a["own_by_thread"].items():
            total = dict(a["threads"])[t]
            print(f"\n  top own, {t} thread: " + "; ".join(
                f"{fr} {pct(n, total)}" for fr, n in entries[:6]))


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--setups", default="one,one-open,waitress4,gunicorn2,haproxy3",
                   help="comma-separated from: " + ", ".join(LABELS))
    p.add_argument("--connections", default="1,8,32,128")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    p.add_argument("--warmup", type=int, default=2, help="seconds of unrecorded load per setup")
    p.add_argument("--wrk-timeout", type=int, default=5)
    p.add_argument("--startup-timeout", type=float, default=60)
    p.add_argument("--interleave-levels", action="store_true",
                   help="alternate the levels within each repeat (for ratios between levels)")
    p.add_argument("--no-profile", dest="profile", action="store_false")
    p.add_argument("--profile-only", action="store_true")
    p.add_argument("--profile-rate", type=int, default=500, help="py-spy samples/s")
    p.add_argument("--profile-connections", default="8,128",
                   help="levels at which one process is profiled (default 8,128)")
    p.add_argument("--json-out")
    p.add_argument("--keep-logs", action="store_true")
    args = p.parse_args(argv)
    args.setup_names = [s for s in args.setups.split(",") if s]
    unknown = set(args.setup_names) - set(LABELS)
    if unknown:
        p.error(f"unknown setups {sorted(unknown)}")
    args.levels = [int(c) for c in args.connections.split(",") if c]
    args.profile_levels = [int(c) for c in args.profile_connections.split(",") if c]
    return args


def main(argv=None):
    args = parse_args(argv)
    common.require_wrk()
    common.exit_on_sigterm()
    names = [] if args.profile_only else list(args.setup_names)
    if "gunicorn2" in names and shutil.which("gunicorn") is None:
        try:
            import gunicorn  # noqa: F401
        except ImportError:
            sys.exit(f"gunicorn is not installed in {sys.executable}")
    if not os.access(CLUSTER, os.X_OK):
        for name in [n for n in names if n.startswith("haproxy3")]:
            log(f"{CLUSTER} does not exist (yet): skipping {name}")
            names.remove(name)
    if (args.profile or args.profile_only) and shutil.which("py-spy") is None:
        sys.exit("py-spy not found (pip install py-spy), or pass --no-profile")
    log_dir = tempfile.mkdtemp(prefix="bench-capacity-")
    env = common.with_repo_on_path(os.environ)
    setups, results, prof = [], {}, None
    started, loadavg = time.time(), os.getloadavg()
    try:
        for name in names:
            s = Setup(name, log_dir, env)
            setups.append(s)
            s.start(args.startup_timeout)
        for s in setups:
            if args.warmup:
                run_wrk(s, max(args.levels), args.warmup, args.wrk_timeout)
        if setups:
            results = benchmark(setups, args.levels, args.repeats, args.duration, args.wrk_timeout,
                                args.interleave_levels)
    finally:
        for s in reversed(setups):
            s.stop()
    if args.profile or args.profile_only:
        prof = profile(log_dir, env, args.profile_levels, args.duration, args.wrk_timeout,
                       args.profile_rate)
    report(setups, args.levels if setups else [], results, args, prof)
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump({"meta": {"started_unix": started, "loadavg_at_start": loadavg,
                                "python": platform.python_version(), "cpus": os.cpu_count(),
                                "repeats": args.repeats, "duration_s": args.duration,
                                "request_body": REQUEST_BODY,
                                "commands": {s.name: s.command for s in setups}},
                       "results": {n: {str(c): v for c, v in r.items()}
                                   for n, r in results.items()},
                       "profile": {str(c): v for c, v in (prof or {}).items()}}, f, indent=2)
        log(f"wrote {args.json_out}")
    if not args.keep_logs:
        shutil.rmtree(log_dir, ignore_errors=True)
    else:
        log(f"logs in {log_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
