"""The scenario table every implementation of this service must reproduce, with its expectations.

Shared by the driver (`run_scenarios.py`) and the tests, so the table exists once.
"""

import json
from dataclasses import dataclass

QUESTION = "Will write_text replace the contents of an existing file?"
OVERSIZE_CHUNKS = 5  # chunks of 1,000 bytes: over the 4,096-byte cap, without a Content-Length


@dataclass(frozen=True)
class Scenario:
    """One request and what its response must show."""

    name: str
    http_status: int
    expect: dict
    payload: dict | None = None
    raw_body: bytes | None = None
    content_type: str = "application/json"
    chunked_oversize: bool = False
    fault_app: bool = False

    def body(self) -> bytes:
        """Return the request body bytes (for the chunked case, what the chunks add up to)."""
        if self.chunked_oversize:
            return b"".join(self.chunks())
        if self.raw_body is not None:
            return self.raw_body
        return json.dumps(self.payload).encode("utf-8")

    def chunks(self):
        """Yield the chunked body piece by piece, so no Content-Length can be computed."""
        for _ in range(OVERSIZE_CHUNKS):
            yield b" " * 1000


def _ask(**fields):
    return {"question": QUESTION, "version": "3.12", **fields}


def _error(code, issues=None):
    # The seed contract fixes code and each issue's path and type; the words beside them
    # (message, limit, pattern, byte_offset) are for people and are not part of it.
    expect = {"error.code": code, "admission.accepted": False}
    if issues is not None:
        expect["error.issues[*].path"] = [issue["path"] for issue in issues]
        expect["error.issues[*].type"] = [issue["type"] for issue in issues]
    return expect


SCENARIOS = (
    Scenario("completed", 200, payload=_ask(), expect={
        "status": "completed", "reason": "configured_context_marker_found", "usage.steps": 4,
        "usage.reserved_source_bytes": 378, "usage.delivered_source_bytes": 378,
        "evidence[*].source_id": ["path-read", "path-write"],
    }),
    Scenario("incomplete", 200, payload=_ask(
        question="How frequently does our cloud provider back up these files?"), expect={
        "status": "incomplete", "reason": "no_refinement_rule", "usage.steps": 2,
        "policy.name": "no-matching-rule",
    }),
    Scenario("empty_eligible", 200, payload=_ask(version="9.99"), expect={
        "status": "incomplete", "reason": "round_limit", "usage.searches": 2, "usage.reads": 0,
        "evidence": [],
    }),
    Scenario("limited", 200, payload=_ask(max_steps=1), expect={
        "status": "limited", "reason": "max_steps", "usage.steps": 1,
        "trace[*].decision": ["executed", "denied"],
        "trace[*].preflight_source_bytes": [None, 154],
    }),
    Scenario("invalid_boolean_limit", 422, payload=_ask(max_steps=True), expect=_error(
        "invalid_request", [{"path": ["body", "max_steps"], "type": "int_type"}])),
    Scenario("extra_field", 422, payload=_ask(fault="search"), expect=_error(
        "invalid_request", [{"path": ["body", "fault"], "type": "extra_forbidden"}])),
    Scenario("invalid_json", 422, raw_body=b'{"question": "Will write_text', expect=_error(
        "invalid_json")),
    Scenario("body_too_large_chunked", 413, chunked_oversize=True, expect=_error(
        "body_too_large")),
    Scenario("unsupported_media", 415, payload=_ask(), content_type="text/plain",
             expect=_error("unsupported_media_type")),
)

TRUSTED_FAULT = Scenario("trusted_controlled_tool_failure", 503, payload=_ask(), fault_app=True,
                         expect={"status": "failed", "reason": "retrieval_failed",
                                 "usage.steps": 1, "usage.searches": 1,
                                 "trace[*].status": ["failed"], "evidence": []})


def _lookup(document, path):
    value = document
    parts = path.split(".")
    for i, part in enumerate(parts):
        if part.endswith("[*]"):
            items = value.get(part[:-3]) if isinstance(value, dict) else None
            rest = ".".join(parts[i + 1:])
            return [_lookup(item, rest) for item in (items or [])]
        value = value.get(part) if isinstance(value, dict) else None
    return value


def expectation_failures(scenario: Scenario, http_status: int, response) -> list:
    """Return a line per way the response differs from the scenario's expectations."""
    failures = []
    if http_status != scenario.http_status:
        failures.append(f"HTTP {http_status}, expected {scenario.http_status}")
    for path, expected in scenario.expect.items():
        actual = _lookup(response, path)
        if actual != expected:
            failures.append(f"{path} = {actual!r}, expected {expected!r}")
    return failures
