"""Fuzz a real retrieval server with mutated and generated requests over raw sockets.

    python bench/fuzz.py --requests 20000 --seed 7                 # starts its own server
    python bench/fuzz.py --requests 5000 --seed 7 --url http://127.0.0.1:8765
    python bench/fuzz.py --replay 7:1234 [--url http://127.0.0.1:8765]

Every case is rebuilt from (seed, index) alone (the `tests/fuzz/` package holds the generators
and the invariants), so a failure printed by a long run can be replayed by itself. Without --url
the server is `python -m retrieval serve --fd FD` on a loopback socket bound here; its log is
checked for tracebacks when it stops, and its exit is checked too.

Prints a summary (cases, response statuses seen, rate, failures with their exact bytes) on stdout
and progress on stderr; exits 1 on any invariant violation, 0 otherwise.
"""

import argparse
import os
import sys
import time
from urllib.parse import urlsplit

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if REPO_ROOT not in sys.path:  # `python bench/fuzz.py` puts bench/ itself on sys.path
    sys.path.insert(0, REPO_ROOT)

from retrieval.testing import ServerProcess, subprocess_env  # noqa: E402
from tests import fuzz  # noqa: E402

# Lines a healthy server never writes to its log, however bad the requests it was sent.
LOG_ALARMS = ("Traceback", "Exception while serving", "Unexpected exception")


def log(message):
    print(message, file=sys.stderr, flush=True)


def parse_url(url):
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        raise SystemExit(f"--url must be http://HOST:PORT, not {url!r}")
    return parts.hostname, parts.port or 80


def parse_replay(text):
    seed, sep, index = text.partition(":")
    if not sep or not seed.lstrip("-").isdigit() or not index.isdigit():
        raise SystemExit(f"--replay takes SEED:INDEX, not {text!r}")
    return int(seed), int(index)


def replay(host, port, seed, index, timeout) -> int:
    """Rebuild one case, print its exact bytes, send it, print what came back and the verdict."""
    ctx = fuzz.probe_context(host, port, timeout)
    case = fuzz.generate_case(seed, index, ctx)
    print(f"case {case.label} kind={case.kind} mode={case.mode} "
          f"expect_response={case.expect_response} rst={case.rst}"
          + (f" known={case.known}" if case.known else ""))
    for number, step in enumerate(case.steps, 1):
        print(f"request step {number} ({len(step)} bytes): {fuzz.excerpt(step, 20000)}")
    outcome = fuzz.run_case(case, host, port, timeout)
    problems = fuzz.check_case(case, outcome)
    print(f"connection: {outcome.end} after {outcome.elapsed:.3f}s")
    for number, response in enumerate(outcome.responses, 1):
        print(f"response {number}: {response.describe(4000)}")
    if not outcome.responses and outcome.received:
        print(f"received: {fuzz.excerpt(outcome.received, 4000)}")
    health = fuzz.health_problem(host, port)
    if health:
        problems.append(health)
    for problem in problems:
        print(f"VIOLATION: {problem}")
    print("ok" if not problems else f"{len(problems)} violation(s)")
    return 1 if problems else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=10000, help="number of cases (10000)")
    parser.add_argument("--seed", type=int, default=0, help="run seed (0)")
    parser.add_argument("--start", type=int, default=0, help="first case index (0)")
    parser.add_argument("--url", help="fuzz this server instead of starting one")
    parser.add_argument("--replay", metavar="SEED:INDEX", help="run one case and show it all")
    parser.add_argument("--workers", type=int, default=8, help="concurrent connections (8)")
    parser.add_argument("--batch", type=int, default=500,
                        help="cases between /health checks (500)")
    parser.add_argument("--timeout", type=float, default=fuzz.DEFAULT_TIMEOUT,
                        help="seconds a server may take to answer or close (5)")
    parser.add_argument("--max-failures", type=int, default=20,
                        help="failing cases printed in full (20)")
    parser.add_argument("--serve-arg", action="append", default=[], metavar="ARG",
                        help="passed on to `retrieval serve` when no --url is given, e.g. "
                             "--serve-arg=--threads=4 --serve-arg=--snapshot=DIR (repeatable)")
    args = parser.parse_args(argv)

    server = None
    if args.url:
        host, port = parse_url(args.url)
    else:
        server = ServerProcess(serve_args=args.serve_arg, env=subprocess_env(), cwd=REPO_ROOT)
        server.start()
        host, port = "127.0.0.1", server.port
        log(f"started {' '.join(server.lifecycle.command)} on {server.base_url}")
    problems = []
    try:
        if args.replay:
            seed, index = parse_replay(args.replay)
            status = replay(host, port, seed, index, args.timeout)
        else:
            alive = (lambda: server.process.poll() is None) if server else None
            fuzzer = fuzz.Fuzzer(host, port, args.seed, workers=args.workers, batch=args.batch,
                                    timeout=args.timeout, alive=alive,
                                    max_failures=args.max_failures, log=log)
            started = time.perf_counter()
            summary = fuzzer.run(args.requests, start=args.start)
            log(f"done in {time.perf_counter() - started:.1f}s")
            status = None
    finally:
        if server is not None:
            lifecycle = server.stop()
            if lifecycle.killed:
                problems.append("the server ignored SIGTERM and had to be killed")
            elif lifecycle.shutdown_exit_status != 0:
                problems.append(f"the server exited {lifecycle.shutdown_exit_status}")
            alarms = [line for line in lifecycle.stderr.splitlines()
                      if any(alarm in line for alarm in LOG_ALARMS)]
            if alarms:
                problems.append("the server log has alarms:\n    " + "\n    ".join(alarms[:20])
                                + "\n  log tail:\n" + lifecycle.stderr[-4000:])
    if status is not None:  # replay
        for problem in problems:
            print(f"VIOLATION: {problem}")
        return status or (1 if problems else 0)
    print(summary.report())
    for problem in problems:
        print(f"SERVER: {problem}")
    return 0 if summary.ok and not problems else 1


if __name__ == "__main__":
    sys.exit(main())
