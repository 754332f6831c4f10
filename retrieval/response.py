"""The bytes of every response body: run results and errors, compact JSON, digests included."""

from .contract import run_status_line
from .core import digests
from .core.service import RunResult
from .core.tools import ToolResult
from .errors import ServiceError

SCHEMA_VERSION = 1
EXECUTION_MODE = "offline-scripted-retrieval-http"
HEALTH_MODE = "offline-scripted-retrieval"

def encode_json(value) -> bytes:
    """Serialize a response body compactly as UTF-8."""
    return digests.compact_json_text(value).encode("utf-8")


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


def encode_error(error: ServiceError) -> bytes:
    """Return the body bytes of a refused request."""
    return encode_json(error.to_body())


def passage_body(corpus_id, passage) -> dict:
    """Return the /passages/{id} body: the passage with its provenance and digests.

    corpus_id is that of the passage's collection, the one its passage_id derives from.
    """
    return {
        "corpus_id": corpus_id,
        "collection": passage.collection,
        "passage_id": passage.passage_id,
        "source_id": passage.source_id,
        "version": passage.version,
        "start_line": passage.start_line,
        "end_line": passage.end_line,
        "url": passage.url,
        "text": passage.text,
        "text_sha256": passage.text_sha256,
        "source_sha256": passage.source_sha256,
        "document_revision": passage.document_revision,
        "byte_count": passage.byte_count,
    }


def corpus_body(collections, default_collection: str | None) -> dict:
    """Return the /corpus body: the caller's collections, each with its id and versions.

    Only the collections the caller may read are listed, and nothing whole-snapshot (such as the
    snapshot's corpus_id, which moves when any collection changes) is included. The default
    collection (what a request naming none reads) is named only if it is one of them: null
    otherwise, and when the snapshot has none.
    """
    collections = list(collections)
    names = [collection.name for collection in collections]
    return {"default_collection": default_collection if default_collection in names else None,
            "collections": [collection.describe() for collection in collections]}


def health_body(corpus_id, draining=False, show_corpus_id=True) -> dict:
    """Return the /health body: ready with the served corpus, draining, or not ready.

    show_corpus_id=False leaves the snapshot-wide id out: it changes whenever any collection
    does, so with keys it would tell anyone that collections they may not read exist and when
    they change.
    """
    if draining:
        return {"status": "draining"}
    if corpus_id is None:
        return {"status": "not_ready"}
    if not show_corpus_id:
        return {"status": "ok", "mode": HEALTH_MODE}
    return {"status": "ok", "mode": HEALTH_MODE, "corpus_id": corpus_id}
