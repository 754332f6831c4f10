"""Re-verify a result saved by `run_scenarios.py`, from its raw bytes up.

What passes here is consistent: each saved body matches its digest header, the parsed copy matches
the raw bytes number types included, and every digest inside recomputes. It proves nothing about
which server produced the bytes: the digests authenticate no one.
"""

from .core import digests
from .core.strict_json import StrictJSONError, loads_strict
from .core.verify import run_result_problems


def case_problems(case) -> list:
    """Return the reasons one saved case is not self-consistent (empty when it is)."""
    if not isinstance(case, dict):
        return ["case is not an object"]
    raw_text = case.get("raw_response_text")
    if not isinstance(raw_text, str):
        return ["raw_response_text missing"]
    raw = raw_text.encode("utf-8")
    raw_digest = digests.sha256_hex(raw)
    problems = []
    if case.get("body_sha256_header") != raw_digest:
        problems.append("X-Retrieval-Body-SHA256 header does not match the raw body")
    if case.get("raw_body_sha256") != raw_digest:
        problems.append("raw_body_sha256 does not match the raw body")
    try:
        parsed_raw = loads_strict(raw)
    except StrictJSONError as exc:
        return problems + [f"raw body is not strict JSON: {exc}"]
    response = case.get("response")
    # Canonical bytes, not ==: Python's equality would accept 6.0 for 6 or true for 1.
    if digests.canonical_json(response) != digests.canonical_json(parsed_raw):
        problems.append("parsed response differs from the raw body")
    # Error bodies carry no result_sha256: the raw digest above is all there is to check.
    if not isinstance(parsed_raw, dict) or "result_sha256" not in parsed_raw:
        return problems
    return problems + run_result_problems(raw, parsed_raw)


def check_saved_result(document) -> list:
    """Return one line per rejected case of a saved result; empty means accepted."""
    if not isinstance(document, dict) or not isinstance(document.get("cases"), list):
        return ["saved result: no cases"]
    cases = list(document["cases"])
    if "trusted_fault" in document:
        cases.append(document["trusted_fault"])
    lines = []
    for case in cases:
        name = case.get("scenario", "?") if isinstance(case, dict) else "?"
        problems = case_problems(case)
        if problems:
            lines.append(f"{name}: rejected: {'; '.join(problems)}")
    return lines
