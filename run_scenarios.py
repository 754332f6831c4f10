#!/usr/bin/env python3
"""Drive a real Waitress server over loopback through every scenario and save what happened.

Starts `python -m retrieval serve` (and the fault app in a second process) on sockets bound here,
sends each scenario, records status, parsed and raw body and both digests, stops the servers with
SIGTERM and records their exit status as it is. Exits 1 if anything differs from the scenario
table. Well-formed JSON requests go through `retrieval.client` (one attempt each, no retries);
the cases the client cannot send by design (invalid JSON, a chunked oversize body, another media
type) go through `requests` directly.
"""

import argparse
import hashlib
import json
import sys

try:
    import requests
    import waitress  # noqa: F401  (the servers it starts run on it: checked before they start)
except ImportError as missing:
    if __name__ != "__main__":
        raise
    # Run as a script without the test extra: one line saying what to install, no traceback.
    print(f"run_scenarios.py needs {missing.name}: run pip install '.[test]' from the "
          "checkout", file=sys.stderr)
    sys.exit(2)

from retrieval.check import check_saved_result
from retrieval.client import IntegrityError, RetrievalClient, RetrievalError
from retrieval.http.contract import BODY_DIGEST_HEADER
from retrieval.scenarios import SCENARIOS, TRUSTED_FAULT, expectation_failures
from retrieval.testing import ServerProcess, subprocess_env

EXECUTION_MODE = "actual-loopback-waitress-http-offline-scripted-retrieval"
INTERPRETATION = ("Real local HTTP boundary plus scripted retrieval; no generated answers, "
                  "external deployment, authorization, capacity or quality claim.")
TIMEOUT = 10


def record(scenario, http_status, header_digest, raw) -> dict:
    """Return the saved-result record of one exchange, from the bytes exactly as received."""
    return {
        "scenario": scenario.name,
        "http_status": http_status,
        "response": json.loads(raw),
        "body_sha256_header": header_digest,
        "raw_body_sha256": hashlib.sha256(raw).hexdigest(),
        "raw_response_text": raw.decode("utf-8"),
    }


def via_client(scenario) -> bool:
    """Return True if the client can send this scenario's request as the table defines it."""
    return (scenario.payload is not None and scenario.raw_body is None
            and not scenario.chunked_oversize and scenario.content_type == "application/json")


def send_raw(session, base_url, scenario):
    """Send one scenario's bytes as they are, with `requests`, and return its record."""
    body = scenario.chunks() if scenario.chunked_oversize else scenario.body()
    response = session.post(f"{base_url}/retrieve", data=body, timeout=TIMEOUT,
                            headers={"Content-Type": scenario.content_type})
    return record(scenario, response.status_code, response.headers.get(BODY_DIGEST_HEADER),
                  response.content)


def send(session, base_url, scenario):
    """Send one scenario and return its saved-result record."""
    if not via_client(scenario):
        return send_raw(session, base_url, scenario)
    # No retries: the record is of exactly one exchange, as it happened.
    client = RetrievalClient(base_url, timeout=TIMEOUT, max_retries=0, session=session)
    fields = dict(scenario.payload)
    try:
        result = client.retrieve(fields.pop("question"), fields.pop("version"), **fields)
    except (RetrievalError, IntegrityError) as refused:
        # Error bodies, and bodies that fail verification, are recorded too: the expectations
        # and the checker, not the driver, decide what they mean.
        return record(scenario, refused.http_status, refused.headers.get(BODY_DIGEST_HEADER),
                      refused.raw)
    return record(scenario, result.http_status, result.body_sha256, result.raw)


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
            health = RetrievalClient(server.base_url, timeout=TIMEOUT, max_retries=0,
                                     session=session).health()
            cases = [send(session, server.base_url, scenario) for scenario in SCENARIOS]
        fault_server = ServerProcess(serve_args=["--app", "retrieval.testing:fault_app"], env=env)
        with fault_server:
            trusted_fault = send(session, fault_server.base_url, TRUSTED_FAULT)

    for scenario, case in zip(SCENARIOS + (TRUSTED_FAULT,), cases + [trusted_fault], strict=True):
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
