#!/usr/bin/env python3
"""Drive a real Waitress server over loopback through every scenario and save what happened.

Starts `python -m retrieval serve` (and the fault app in a second process) on sockets bound here,
sends each scenario with `requests`, records status, parsed and raw body and both digests, stops
the servers with SIGTERM and records their exit status as it is. Exits 1 if anything differs
from the scenario table.
"""

import argparse
import hashlib
import json
import sys

import requests

from retrieval.check import check_saved_result
from retrieval.scenarios import SCENARIOS, TRUSTED_FAULT, expectation_failures
from retrieval.testing import ServerProcess, subprocess_env
from retrieval.wsgi import BODY_DIGEST_HEADER

EXECUTION_MODE = "actual-loopback-waitress-http-offline-scripted-retrieval"
INTERPRETATION = ("Real local HTTP boundary plus scripted retrieval; no generated answers, "
                  "external deployment, authorization, capacity or quality claim.")
TIMEOUT = 10


def send(session, base_url, scenario):
    """Send one scenario and return its saved-result record."""
    body = scenario.chunks() if scenario.chunked_oversize else scenario.body()
    response = session.post(f"{base_url}/retrieve", data=body, timeout=TIMEOUT,
                            headers={"Content-Type": scenario.content_type})
    raw = response.content
    return {
        "scenario": scenario.name,
        "http_status": response.status_code,
        "response": json.loads(raw),
        "body_sha256_header": response.headers.get(BODY_DIGEST_HEADER),
        "raw_body_sha256": hashlib.sha256(raw).hexdigest(),
        "raw_response_text": raw.decode("utf-8"),
    }


def lifecycle_problems(name, lifecycle) -> list:
    """Return what went wrong in one server's start and stop."""
    problems = []
    if not lifecycle.startup_observed:
        problems.append(f"{name}: startup not observed")
    if lifecycle.killed:
        problems.append(f"{name}: did not stop on SIGTERM and was killed")
    if lifecycle.shutdown_exit_status != 0:
        problems.append(f"{name}: exit status {lifecycle.shutdown_exit_status}")
    if not lifecycle.shutdown_complete_observed:
        problems.append(f"{name}: shutdown completion not observed")
    if not lifecycle.server_process_reaped:
        problems.append(f"{name}: process not reaped")
    return problems


def run() -> tuple:
    """Run every scenario against real servers; return the saved result and the problems."""
    env = subprocess_env()
    problems = []
    with requests.Session() as session:
        server = ServerProcess(env=env)
        with server:
            health = session.get(f"{server.base_url}/health", timeout=TIMEOUT).json()
            cases = [send(session, server.base_url, scenario) for scenario in SCENARIOS]
        fault_server = ServerProcess(serve_args=["--app", "retrieval.testing:fault_app"], env=env)
        with fault_server:
            trusted_fault = send(session, fault_server.base_url, TRUSTED_FAULT)

    for scenario, case in zip(SCENARIOS + (TRUSTED_FAULT,), cases + [trusted_fault]):
        for failure in expectation_failures(scenario, case["http_status"], case["response"]):
            problems.append(f"{scenario.name}: {failure}")
    problems += lifecycle_problems("server", server.lifecycle)
    problems += lifecycle_problems("fault server", fault_server.lifecycle)
    result = {
        "execution_mode": EXECUTION_MODE,
        "model_called": False,
        "health": health,
        "cases": cases,
        "trusted_fault": trusted_fault,
        "lifecycle": server.lifecycle.as_dict(),
        "fault_lifecycle": fault_server.lifecycle.as_dict(),
        "interpretation": INTERPRETATION,
    }
    problems += check_saved_result(result)
    return result, problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default="result.json", help="where to save the result")
    args = parser.parse_args(argv)
    result, problems = run()
    with open(args.output, "w", encoding="utf-8") as out:
        json.dump(result, out, indent=2, ensure_ascii=False)
        out.write("\n")
    for case in result["cases"] + [result["trusted_fault"]]:
        status = case["response"].get("status") or case["response"]["error"]["code"]
        print(f"{case['scenario']:32} HTTP {case['http_status']}  {status}")
    for problem in problems:
        print(f"FAIL {problem}")
    print(f"saved {args.output}: {'ok' if not problems else f'{len(problems)} problem(s)'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
