"""The bytes of every response body: run results and errors, compact JSON, digests included."""

import json

from .core import digests
from .core.service import RunResult
from .errors import ServiceError

SCHEMA_VERSION = 1
EXECUTION_MODE = "offline-scripted-retrieval-http"
HEALTH_MODE = "offline-scripted-retrieval"
# A run that failed in a tool is reported in full, but with a status that tells proxies and
# clients it may succeed on retry; every other terminal status is a successful retrieval.
RUN_HTTP_STATUS = {"failed": "503 Service Unavailable"}
OK = "200 OK"

_compact = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def encode_json(value) -> bytes:
    """Serialize a response body compactly as UTF-8."""
    return _compact.encode(value).encode("utf-8")


def run_result_body(result: RunResult) -> dict:
    """Lay out a run result in the documented key order, without result_sha256."""
    return {
        "schema_version": SCHEMA_VERSION,
        "execution_mode": EXECUTION_MODE,
        "model_called": False,
        "request_id": result.request_id,
        "corpus_id": result.corpus_id,
        "request": result.request,
        "status": result.status,
        "reason": result.reason,
        "admission": {"accepted": True, "limits": result.limits},
        "usage": result.usage,
        "trace": result.trace,
        "evidence": result.evidence,
        "policy": result.policy,
    }


def encode_run_result(result: RunResult):
    """Return the HTTP status line and body bytes of a run result, result_sha256 last."""
    body = digests.append_result_sha256(encode_json(run_result_body(result)))
    return RUN_HTTP_STATUS.get(result.status, OK), body


def encode_error(error: ServiceError) -> bytes:
    """Return the body bytes of a refused request."""
    return encode_json(error.to_body())


def health_body(corpus_id) -> dict:
    """Return the /health body: ready with the served corpus, or not ready."""
    if corpus_id is None:
        return {"status": "not_ready"}
    return {"status": "ok", "mode": HEALTH_MODE, "corpus_id": corpus_id}
