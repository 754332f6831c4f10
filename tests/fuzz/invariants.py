"""Invariants: what every response must satisfy, whatever was sent."""

import hashlib
import json
import re

from retrieval.core import digests
from retrieval.http.contract import HTTP_STATUS
from retrieval.http.errors import ISSUE_BOUNDS, MAX_ISSUES, MAX_PATH_PART
from retrieval.http.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE

from .cases import Case, Req
from .responses import Response
from .running import Outcome
from .service import (
    DIGEST_HEADER,
    FORBIDDEN,
    FORBIDDEN_NOCASE,
    ISSUE_TYPES,
    RUN_STATUSES,
    STATIC_DIR,
    STATIC_TYPES,
)


def _static_bodies():
    try:
        return {path.read_bytes() for path in STATIC_DIR.iterdir() if path.is_file()}
    except OSError:
        return set()


STATIC_BODIES = _static_bodies()
_HEX64 = re.compile(r"[0-9a-f]{64}")


def forbidden_tokens(body: bytes, request: bytes = b"") -> list:
    """Return the forbidden tokens in body that the request did not itself carry (echoes)."""
    found = [t.decode() for t in FORBIDDEN if t in body and t not in request]
    lowered_body, lowered_request = body.lower(), request.lower()
    found += [t.decode() for t in FORBIDDEN_NOCASE
              if t in lowered_body and t not in lowered_request]
    return found


def _document_kind(value) -> str | None:
    if not isinstance(value, dict):
        return None
    keys = set(value)
    if "schema_version" in keys and "result_sha256" in keys:
        return "retrieve"
    if keys == {"status", "mode", "corpus_id"}:
        return "health"
    if keys == {"default_collection", "collections"}:
        return "corpus"
    if "openapi" in keys and "paths" in keys:
        return "openapi"
    if {"passage_id", "text", "text_sha256"} <= keys:
        return "passage"
    return None


def _route(req: Req | None) -> str | None:
    """The document kind a plain request must get, or None when the target is unusual."""
    if req is None:
        return None
    plain = {b"/health": "health", b"/corpus": "corpus", b"/openapi.json": "openapi",
             b"/retrieve": "retrieve"}
    if req.target in plain:
        return plain[req.target]
    if req.target.startswith(b"/passages/") and _HEX64.fullmatch(req.target[10:].decode(
            "latin-1")):
        return "passage"
    return None


def _check_error_body(value, status, response, problems):
    if not isinstance(value, dict) or set(value) != {"error", "admission"}:
        problems.append(f"error body is not {{error, admission}}: {str(value)[:200]}")
        return
    if value["admission"] != {"accepted": False}:
        problems.append(f"error admission is {value['admission']!r}")
    error = value["error"]
    if not isinstance(error, dict) or not isinstance(error.get("code"), str):
        problems.append(f"error member has no string code: {str(error)[:200]}")
        return
    if not isinstance(error.get("message"), str) or not error["message"]:
        problems.append(f"error member has no message: {str(error)[:200]}")
    code = error["code"]
    if code not in HTTP_STATUS:
        problems.append(f"undocumented error code {code!r}")
        return
    expected = int(HTTP_STATUS[code].split()[0])
    if expected != status:
        problems.append(f"code {code!r} sent with HTTP {status}, documented {expected}")
    if code == "internal_error":
        problems.append("internal_error: the app hit a bug (its traceback is in the server log)")
    if code == "method_not_allowed" and not response.header("allow"):
        problems.append("405 without an Allow header")
    issues = error.get("issues")
    if code == "invalid_request":
        if not isinstance(issues, list) or not 1 <= len(issues) <= MAX_ISSUES:
            problems.append(f"invalid_request issues malformed: {str(issues)[:200]}")
            return
        for issue in issues:
            if (not isinstance(issue, dict) or not {"path", "type", "message"} <= set(issue)
                    or not set(issue) <= {"path", "type", "message", *ISSUE_BOUNDS}
                    or issue["type"] not in ISSUE_TYPES or not isinstance(issue["path"], list)
                    or not all(isinstance(p, str) and len(p) <= MAX_PATH_PART
                               for p in issue["path"])):
                problems.append(f"malformed issue {str(issue)[:200]}")
    elif issues is not None:
        problems.append(f"issues on a {code!r} error")


def _check_run_body(value, raw, status, problems):
    if value.get("schema_version") != 1 or value.get("model_called") is not False:
        problems.append("retrieval result without schema_version 1 / model_called false")
    run_status = value.get("status")
    if status == 200 and run_status not in RUN_STATUSES:
        problems.append(f"HTTP 200 with run status {run_status!r}")
    if status == 503 and run_status != "failed":
        problems.append(f"HTTP 503 with run status {run_status!r}")
    if (value.get("admission") or {}).get("accepted") is not True:
        problems.append("retrieval result not admitted")
    split = digests.split_result_sha256(raw)
    if split is None:
        problems.append("retrieval result does not end with its result_sha256 member")
    else:
        without, claimed = split
        if digests.response_result_sha256(without) != claimed:
            problems.append("result_sha256 does not match the body")


def check_response(response: Response, req: Req | None, request_bytes: bytes) -> list:
    """Return the invariant violations of one response (empty when it is acceptable)."""
    problems = []
    status = response.status
    body = response.body
    bad = forbidden_tokens(body, request_bytes)
    if bad and not (status == 200 and body in STATIC_BODIES):
        problems.append(f"internal detail in the body: {bad}")
    if 100 <= status < 200:
        if status != 100:
            problems.append(f"unexpected interim status {status}")
        return problems
    if status >= 500 and not (status == 503 and response.from_app) and not (
            status == 501 and not response.from_app and _is_waitress_error(response)
            and b"transfer-encoding" in request_bytes.lower()):
        # 501 is Waitress's answer to a transfer coding it does not implement (RFC 9112 6.1
        # requires it); it is the one 5xx allowed, and the summary counts it.
        problems.append(f"HTTP {status}")
    if response.from_app:
        return problems + _check_app_response(response, req)
    # No digest header: Waitress's own answer, a static file, or a 304.
    if status == 304:
        if req is not None and not req.conditional:
            problems.append("304 to a request without If-None-Match")
        if not response.header("etag"):
            problems.append("304 without an ETag")
        return problems
    if status == 200 and response.header("content-security-policy"):
        if response.header("content-type") not in STATIC_TYPES:
            problems.append(f"static response typed {response.header('content-type')!r}")
        if req is not None and req.method not in (b"GET", b"HEAD"):
            problems.append(f"static file served to {req.method!r}")
        if req is not None and req.head:
            if body:
                problems.append("HEAD of a static file carried a body")
        elif STATIC_BODIES and body not in STATIC_BODIES:
            problems.append("static response body is none of the shipped static files")
        return problems
    if 400 <= status < 500 or status == 501:
        if not _is_waitress_error(response):
            problems.append(f"HTTP {status} with neither the body digest header nor the shape "
                            "of a Waitress error page")
        return problems
    if status < 500:
        problems.append(f"HTTP {status} without the body digest header (not a Waitress 4xx, "
                        "static file or 304)")
    return problems


def _is_waitress_error(response) -> bool:
    """Waitress's own error page: plain text ending with its `(generated by IDENT)` tag."""
    return ((response.header("content-type") or "").startswith("text/plain")
            and b"(generated by " in response.body[-200:])


def _check_app_response(response, req):
    problems = []
    status = response.status
    body = response.body
    digest_values = response.all(DIGEST_HEADER)
    if len(digest_values) != 1:
        problems.append(f"{len(digest_values)} digest headers")
    content_type = response.header("content-type")
    metrics = content_type == METRICS_CONTENT_TYPE and status == 200 and (
        req is None or req.target == b"/metrics")
    if content_type != "application/json" and not metrics:
        problems.append(f"app response typed {content_type!r}")
    if req is not None and req.head:
        if body:
            problems.append("HEAD response carried a body")
        return problems
    if hashlib.sha256(body).hexdigest() != digest_values[0]:
        problems.append(f"{DIGEST_HEADER} {digest_values[0]!r} != sha256(body) "
                        f"{hashlib.sha256(body).hexdigest()!r}")
    if metrics:
        if not body.endswith(b"\n") or b"# TYPE retrieval_requests_total counter" not in body:
            problems.append("metrics body is not the Prometheus exposition")
        return problems
    try:
        value = json.loads(body)
    except ValueError as exc:
        problems.append(f"app body is not JSON: {exc}")
        return problems
    kind = _document_kind(value)
    if status >= 400 and not (status == 503 and kind is not None):
        _check_error_body(value, status, response, problems)
        return problems
    if status == 503:
        if kind == "retrieve":
            _check_run_body(value, body, status, problems)
        elif value != {"status": "not_ready"}:
            problems.append(f"503 body is neither a failed run nor not_ready: {str(value)[:200]}")
        return problems
    if status != 200:
        problems.append(f"unexpected app status {status}")
        return problems
    if kind is None:
        problems.append(f"200 body is no documented document: {str(value)[:200]}")
        return problems
    expected = _route(req)
    if expected is not None and expected != kind:
        problems.append(f"{req.method!r} {req.target!r} answered with a {kind} document")
    if kind == "retrieve":
        _check_run_body(value, body, status, problems)
    elif kind == "health" and value.get("status") != "ok":
        problems.append(f"health 200 with status {value.get('status')!r}")
    elif kind == "passage":
        if expected == "passage" and value["passage_id"] != req.target[10:].decode("latin-1"):
            problems.append("passage document for another passage id")
        if hashlib.sha256(value["text"].encode("utf-8")).hexdigest() != value["text_sha256"]:
            problems.append("passage text_sha256 does not match its text")
    return problems


def check_case(case: Case, outcome: Outcome) -> list:
    """Return every violation of a case: transport problems plus per-response invariants."""
    problems = list(outcome.problems)
    if case.mode == "abort":
        return problems
    request_bytes = case.data
    finals = [r for r in outcome.responses if r.status >= 200]
    if case.expect_response and not finals and outcome.end not in ("timeout",):
        problems.append(f"no response to a complete request (connection {outcome.end})")
    index = 0
    for response in outcome.responses:
        req = case.requests[index] if index < len(case.requests) else None
        for problem in check_response(response, req, request_bytes):
            problems.append(f"response {index + 1}: {problem}")
        if response.status >= 200:
            index += 1
    if case.mode == "close" and len(case.requests) > 1 and len(finals) < len(case.requests):
        # Pipelined well-framed requests: all are answered unless the server said it closes.
        last = finals[-1] if finals else None
        if last is None or (last.header("connection") or "").lower() != "close":
            problems.append(f"{len(finals)} of {len(case.requests)} pipelined requests answered, "
                            "and the last answer did not say Connection: close")
    return problems


def classify(response: Response) -> str:
    """A short label for the summary: status plus error code or document kind."""
    if response.from_app:
        try:
            value = json.loads(response.body) if response.body else None
        except ValueError:
            value = None
        if isinstance(value, dict) and isinstance(value.get("error"), dict):
            return f"{response.status} {value['error'].get('code')}"
        kind = _document_kind(value)
        if kind == "retrieve":
            return f"{response.status} {kind}:{value.get('status')}"
        return f"{response.status} {kind or ('app-head' if not response.body else 'app')}"
    if response.header("content-security-policy"):
        return f"{response.status} static"
    if response.status in (100, 304):
        return str(response.status)
    return f"{response.status} waitress"
