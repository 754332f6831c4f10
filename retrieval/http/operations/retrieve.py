"""POST /retrieve: the body parsed (or known), the memoized reply or a core run, the bytes.

Reads top to bottom: admitted (ready, draining, in-flight) -> key -> rate -> media type -> body
bytes -> a body already validated (the request memo) or strict JSON -> validated request ->
collection and version -> the memoized reply, or a run under the deadline -> response bytes.
"""

from ...core import digests
from ...core.admission import Limits
from ...core.service import RetrieveRequest, RunResult
from ...core.snapshot import DEFAULT_COLLECTION
from ...core.tools import ToolResult
from ..access_log import run_fields
from ..contract import (
    ALLOWANCES,
    DEFAULT_LIMITS,
    HTTP_STATUS,
    RETRIEVE,
    TOKEN_ALLOWANCE,
    UNAVAILABLE,
    run_status_line,
)
from ..errors import InvalidRequest
from ..exchange import Exchange, Reply
from ..response_memo import KnownRequest, MemoizedRun
from ..schema import BEARER, error_responses, error_schema, ref, request_body, response
from ..state import verified
from ..validation import body_issue, common_issues, count_issue, decode_body
from . import BodyOperation

SCHEMA_VERSION = 1
EXECUTION_MODE = "offline-scripted-retrieval-http"
KNOWN_FIELDS = ("question", "version", "collection") + ALLOWANCES + (TOKEN_ALLOWANCE,)


def parse_retrieve_request(body: bytes, maxima: Limits,
                           default_collection: str | None = DEFAULT_COLLECTION,
                           pins: bool = False) -> RetrieveRequest:
    """Decode and validate a /retrieve body against the server's maximum allowances (pins: a
    body may name no version, validation.common_issues)."""
    document = decode_body(body)
    issues, collection = common_issues(document, "question", default_collection, pins)

    def check(field, issue):
        issues.extend(body_issue(field, issue))

    counts = {}
    for field in ALLOWANCES:
        value = document.get(field, getattr(DEFAULT_LIMITS, field))
        check(field, count_issue(value, getattr(maxima, field)))
        counts[field] = value
    # max_tokens has no default: left out, the request is the one it was before it existed.
    if TOKEN_ALLOWANCE in document:
        counts[TOKEN_ALLOWANCE] = document[TOKEN_ALLOWANCE]
        check(TOKEN_ALLOWANCE, count_issue(counts[TOKEN_ALLOWANCE],
                                           getattr(maxima, TOKEN_ALLOWANCE)))
    for field in document:
        if field not in KNOWN_FIELDS:
            check(field, {"type": "extra_forbidden"})
    if issues:
        raise InvalidRequest(issues)
    return RetrieveRequest(question=document["question"], version=document.get("version"),
                           collection=collection, limits=Limits(**counts))


# Stands in for a tool result while the rest of a body is serialized. A lone surrogate cannot occur
# in any string a body carries (strict JSON refuses them in requests and snapshots alike), so the
# serialized slot is unambiguous.
_SLOT = "\udfff"
_SLOT_TEXT = digests.compact_json_text(_SLOT)


def _splice_tool_results(body: dict) -> str:
    """Serialize a run body, each tool result's text computed once per process and spliced in.

    Tool results are most of a body's bytes, and they are shared and immutable; only the trace
    entries and usage around them differ from request to request. They occur in exactly three
    places: a trace entry's `result`, a read action's `handle`, and `evidence`.
    """
    fragments = []

    def slot(result):
        if type(result) is not ToolResult:
            return result
        fragments.append(result.encoded)
        return _SLOT

    trace = []
    for entry in body["trace"]:
        entry = dict(entry)
        arguments = entry["action"]["arguments"]
        if "handle" in arguments:
            handle = slot(arguments["handle"])
            entry["action"] = dict(entry["action"], arguments=dict(arguments, handle=handle))
        if "result" in entry:
            entry["result"] = slot(entry["result"])
        trace.append(entry)
    evidence = [slot(item) for item in body["evidence"]]
    pieces = digests.compact_json_text(dict(body, trace=trace, evidence=evidence)).split(_SLOT_TEXT)
    spliced = [pieces[0]]
    for fragment, piece in zip(fragments, pieces[1:], strict=True):
        spliced.append(fragment)
        spliced.append(piece)
    return "".join(spliced)


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
    serialized = _splice_tool_results(run_result_body(result)).encode("utf-8")
    body = digests.append_result_sha256(serialized)
    return run_status_line(result.status), body


class Retrieve(BodyOperation):
    """POST /retrieve."""

    route = RETRIEVE

    def run(self, service, exchange: Exchange, key, body: bytes, started: float) -> Reply:
        state = self.state
        memos = state.memos
        # A key that may not read every collection is checked before any memo is consulted:
        # a memoized body of a hidden collection would otherwise answer faster (and count a hit
        # on /metrics), telling the key that somebody asked it, so that it exists.
        known, memoized = memos.find(body) if state.reads_all(key) else (None, None)
        if known:
            request = known.request  # resolved when it was first parsed
            state.check_readable(key, request.search_collection)
        else:
            request = state.resolved(key, parse_retrieve_request(
                body, state.maxima, state.default_for(key), state.pins))
        if known is None:
            known = KnownRequest(request, service.request_id(request), len(body))
            memos.requests.put(body, known)
            # Another spelling of the same request may have left its reply.
            memoized = memos.responses.get(known.request_id)
        if memoized is None:
            result = service.retrieve(request, started + state.deadline_s, known.request_id)
            verified(service)  # never memoize, nor send, what a rewritten file gave
            status, payload = encode_run_result(result)
            memoized = MemoizedRun(Reply(status, payload), result, run_fields(result))
            memos.responses.put(known.request_id, memoized)
        exchange.run = memoized.run
        exchange.run_fields = memoized.run_fields
        return memoized.reply

    @staticmethod
    def openapi() -> dict:
        """Return this route's OpenAPI operation."""
        return {
            "summary": "Run the scripted retrieval policy under explicit allowances",
            "security": BEARER,
            "requestBody": request_body("RetrieveRequest"),
            "responses": {
                "200": response(ref("RetrieveResponse"), "completed, incomplete or limited"),
                **error_responses(),
                "503": response({"oneOf": [ref("RetrieveResponse"), error_schema(
                    [c for c, s in HTTP_STATUS.items() if s == UNAVAILABLE])]},
                    "A run whose tool failed (status failed), or the app is not ready"),
            },
        }
