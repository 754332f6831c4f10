"""The OpenAPI 3.1 document of every route, generated from the same constants the code enforces.

Routes, the digest header, error codes and their statuses, run statuses and allowances come from
contract.py; bounds and patterns of the request from validation.py and the operations, which
apply them. So the document cannot drift from the behaviour; tests validate real responses
against it.
"""

from .. import __version__
from ..core.admission import Limits
from ..core.diff import CHANGES
from ..core.fields import (
    CUT_FIELDS,
    FLAGGED_FIELDS,
    HANDLE_FIELDS,
    HIT_FIELDS,
    NAMED_FIELDS,
    PASSAGE_BODY_FIELDS,
    READ_FIELDS,
)
from ..core.lookup import FIRST_KINDS, NOT_IN_VERSION, STATUSES
from ..core.query import MAX_NAME_CHARS, MAX_QUERY_TERMS
from ..core.searches import MATCH_ALL, MATCH_ANY
from ..core.snapshot import MAX_SEARCH_K, READ_BEST
from ..core.tokens import BYTES_PER_TOKEN
from .contract import (
    ALLOWANCES,
    DEFAULT_LIMITS,
    DENIAL_REASONS,
    HTTP_STATUS,
    ROUTES,
    RUN_STATUSES,
    TOKEN_ALLOWANCE,
)
from .errors import MAX_ISSUES, MAX_PATH_PART
from .operations import diff
from .operations.lookup import NAME_REGEX
from .operations.search import (
    ANALYSES,
    DEFAULT_LIMIT,
    DEFAULT_MAX_TEXT_BYTES,
    MAX_LIMIT,
    MIN_LIMIT,
)
from .schema import HEX64, closed, field_schema, note_schemas, ref
from .validation import COLLECTION_REGEX, ISSUE_TYPES, MAX_QUESTION_CHARS, VERSION_REGEX

_INT0 = {"type": "integer", "minimum": 0}
# Echoed only where what was served is not what was asked (core/service.echoed_names).
SERVED = {
    "served_collection": {"type": "string", "description": (
        "The collection read, when the request named it otherwise: by its distribution's name "
        "in another spelling (Flask, SQLAlchemy) or by a pinned import name (bs4, yaml).")},
    "served_version": {"type": "string", "description": (
        "The version searched: the held version of another spelling of it (v2.2.2, 2.5.0-beta.1),"
        " the highest final or post X.Y.* release of the X.Y asked for, or the project's pin.")},
    "pinned": {"const": True, "description": (
        "The request named no version, and served_version is the one the snapshot's project "
        "pins for the collection (GET /corpus lists the pins).")}}
# A request's version and collection, on /retrieve and /search alike.
VERSION_FIELD = {"type": "string", "pattern": VERSION_REGEX, "maxLength": 64, "description": (
    "A PEP 440 version in any spelling: 3.12, 3.2.25, v2.2.2, 2024.8.30, 2.5.0b1, 1.0.post1, "
    "1.0.dev0. Served exactly: the version held of the same normal form, else, for an X.Y "
    "alone, the highest final or post X.Y.* release held (never a pre- or dev release, which "
    "are served only by name), echoed as request.served_version. Of a built snapshot, any other "
    "version is refused with 404 version_not_found (error.versions lists those held). Optional "
    "only where the snapshot pins versions (a project build): a request naming none is served "
    "the collection's pin, echoed as served_version with pinned: true (no pin: 422 missing).")}
COLLECTION_FIELD = {"type": "string", "pattern": COLLECTION_REGEX, "description": (
    "A collection's name, its distribution's name in any spelling (PEP 503: Flask, "
    "SQLAlchemy, zope.interface), or an import name the snapshot's project pins (bs4, yaml, "
    "sklearn); the collection read is echoed as served_collection when it is named otherwise. "
    "Default: the snapshot's default collection (GET /corpus names it): its only one, the one "
    "it was built with as default, else the one named default; for a key, as if the snapshot "
    "held only the collections it may read. Refused with 404 "
    "collection_not_found when it does not exist or the key may not read it, and when none is "
    "named and the caller has no default (the message then names the caller's collections).")}
# What a request echoes of them, in this order.
ECHOED_NAMES = {"version": {"type": "string"}, "collection": {"type": "string"}, **SERVED}
# The pins of a snapshot built for a project (core/project.py), as GET /corpus lists them.
_COUNT_OR_NULL = {"type": ["integer", "null"], "minimum": 0}
PIN = {"type": "object", "additionalProperties": False, "required": [
    "name", "version", "collection", "import_names", "source", "units", "api_objects",
    "guide_sections", "missing"], "properties": {
    "name": {"type": "string", "description": "The distribution, PEP 503's normal form."},
    "version": {"type": ["string", "null"], "description": (
        "The exact version pinned; null: not pinned (then nothing was built).")},
    "collection": {"type": ["string", "null"], "description": "null: nothing was built."},
    "import_names": {"type": "array", "items": {"type": "string"}},
    "source": {"type": ["string", "null"]}, "units": _COUNT_OR_NULL,
    "api_objects": _COUNT_OR_NULL, "guide_sections": _COUNT_OR_NULL,
    "missing": {"type": ["string", "null"]}}}


def _diff_schemas(version: list) -> dict:
    """Return POST /diff's request and response schemas (operations/diff.py)."""
    # Its passage as a hit: flags only where it has some (FLAGGED_FIELDS), as on every hit.
    cited = closed({name: field_schema(name) for name in HIT_FIELDS},
                   [name for name in HIT_FIELDS if name not in FLAGGED_FIELDS])
    named = {"name": {"type": "string"}, "kind": {"type": "string"}}
    both = {**named, "old": cited, "new": cited}
    entries = {
        "added": closed({**named, "new": cited}), "removed": closed({**named, "old": cited}),
        "renamed": closed({**both, "new_name": {"type": "string"}}),
        "signature_changed": closed(
            {**both, "old_signature": {"type": "string"}, "new_signature": {"type": "string"},
             "parameters": closed({
                 **{side: {"type": "array", "items": {"type": "string"}}
                    for side in ("added", "removed", "changed", "annotation_changed")},
                 "returns_changed": {"type": "boolean"}},
                 ) | {"description": (
                     "The parameters added, removed, changed (in kind or default) and whose "
                     "annotation changed, by name, and whether the return annotation changed; "
                     "present only where both signatures are Python signatures.")}},
            [*both, "old_signature", "new_signature"]),
        "deprecated": closed({**both, "note": {"type": "string", "description": (
            "The new version's deprecation note, as its text says it.")}}),
    }
    names = {"type": "array", "maxItems": diff.MAX_NAMES, "items": {
        "type": "string", "pattern": diff.NAME_REGEX, "maxLength": diff.MAX_NAME_CHARS}}
    limit = {"type": "integer", "minimum": 0, "maximum": diff.MAX_LIMIT,
             "default": diff.DEFAULT_LIMIT}
    return {
        "DiffRequest": {
            "type": "object", "additionalProperties": False,
            "required": ["to_version", *version],
            "properties": {
                "version": dict(VERSION_FIELD, description=(
                    "The version upgraded from, read as /search reads its version (a request "
                    "naming none, where the snapshot pins one, diffs from the pin).")),
                "to_version": dict(VERSION_FIELD, description=(
                    "The version upgraded to: one the collection holds (as version).")),
                "collection": COLLECTION_FIELD,
                "names": dict(names, description=(
                    "Only the changes to these dotted names and what lies under them "
                    "(flask.Flask keeps flask.Flask.run), by any of an object's names.")),
                "limit": dict(limit, description=(
                    "At most this many changes of each kind are listed; counts are whole.")),
            },
        },
        "DiffResponse": closed({
            "corpus_id": HEX64,
            "request": closed({**ECHOED_NAMES, "to_version": {"type": "string"},
                               "served_to_version": {"type": "string"}, "names": names,
                               "limit": _INT0}, ["collection", "to_version", "limit"]),
            "old_version": {"type": "string"}, "new_version": {"type": "string"},
            "counts": closed({kind: _INT0 for kind in CHANGES}),
            "changes": closed({kind: {"type": "array", "items": entries[kind]}
                               for kind in CHANGES}),
        }),
    }


def _schemas(maxima: Limits, max_body_bytes: int, pins: bool) -> dict:
    # A snapshot that pins versions (project.json) serves a request naming none at the pin.
    version = [] if pins else ["version"]
    counts = {field: dict(_INT0, maximum=getattr(maxima, field),
                          default=getattr(DEFAULT_LIMITS, field)) for field in ALLOWANCES}
    # No default: a request without it is not counted in tokens, and nothing mentions them.
    tokens = {TOKEN_ALLOWANCE: dict(_INT0, maximum=maxima.max_tokens, description=(
        f"A budget in estimated tokens: ceil(bytes / {BYTES_PER_TOKEN}) of each text's UTF-8 "
        "bytes. Optional; sent, it is echoed and counted (usage, trace) beside the bytes."))}
    usage_names = ("steps", "searches", "reads", "reserved_source_bytes",
                   "delivered_source_bytes")
    usage = closed({name: _INT0 for name in usage_names + ("reserved_tokens", "delivered_tokens")},
                   list(usage_names))
    handle_fields = {name: field_schema(name) for name in HANDLE_FIELDS}
    # Built snapshots' units also carry their version notes, where they have some.
    named = {name: field_schema(name) for name in NAMED_FIELDS} | note_schemas()
    flagged = {name: dict(field_schema(name), description=(
        "Present only where the passage's text addresses an AI, tells its reader to ignore "
        "instructions, hides text or pipes a download into a shell (docs/api.md, Flags): "
        "the text itself is verbatim.")) for name in FLAGGED_FIELDS}
    read_fields = {name: field_schema(name) for name in READ_FIELDS}
    hit = {**{name: handle_fields[name] for name in HIT_FIELDS if name in handle_fields},
           **named, **flagged}
    hit_required = [name for name in HIT_FIELDS if name in handle_fields]
    names_list = {"type": "array", "items": {"type": "string"}}
    # What the version asked documents of a name's removal, deprecation or changes (a lookup's,
    # and a /search's whose query is an API name): core/lookup.Lookup.first_notes.
    first_notes = {"type": "array", "items": closed({
        "kind": {"enum": list(FIRST_KINDS)}, "version": {"type": "string"},
        "text": {"type": "string"}, "passage_id": HEX64}), "description": (
        "Only when the query is an API name the version asked documents as removed, "
        "deprecated or changed: those notes first, each with the passage that says it.")}
    cut = {name: field_schema(name) for name in CUT_FIELDS}
    search_arguments = {"query": {"type": "string"}, "version": {"type": "string"},
                        "k": {"type": "integer", "minimum": 0}, "match": {"enum": ["any"]},
                        "literals": {"const": True}, "semantic_query": {"type": "string"},
                        "name": {"type": "string"}}
    action = {"oneOf": [
        closed({"tool": {"const": "search"},
                 "arguments": closed(search_arguments, ["query", "version", "k"])}),
        closed({"tool": {"const": "read"}, "arguments": closed({"handle": ref("ReadHandle")})}),
    ]}
    return {
        "RetrieveRequest": {
            "type": "object", "additionalProperties": False,
            "required": ["question", *version],
            "description": f"At most {max_body_bytes} bytes of strict JSON (no duplicate keys, "
                           "NaN, lone surrogates or BOM). Integers only: true and 6.0 are refused.",
            "properties": {
                "question": {"type": "string", "minLength": 1, "maxLength": MAX_QUESTION_CHARS,
                             "description": "Not blank; echoed exactly as sent."},
                "version": VERSION_FIELD, "collection": COLLECTION_FIELD,
                **counts, **tokens,
            },
        },
        "SearchRequest": {
            "type": "object", "additionalProperties": False, "required": ["query", *version],
            "description": f"At most {max_body_bytes} bytes of strict JSON, as RetrieveRequest.",
            "properties": {
                "query": {"type": "string", "minLength": 1, "maxLength": MAX_QUESTION_CHARS,
                          "description": "Not blank: a question, or words (see analysis; "
                                         f"raw: at most {MAX_QUERY_TERMS} distinct words, a word "
                                         "given twice is searched once)."},
                "version": VERSION_FIELD, "collection": COLLECTION_FIELD,
                "limit": {"type": "integer", "minimum": MIN_LIMIT, "maximum": MAX_LIMIT,
                          "default": DEFAULT_LIMIT},
                "max_text_bytes": dict(_INT0, maximum=maxima.max_source_bytes,
                                       default=DEFAULT_MAX_TEXT_BYTES, description=(
                    "The hits' texts never total more; the first that does not fit ends "
                    "them, so texts are given for a prefix of the ranking.")),
                **tokens,
                "analysis": {"enum": list(ANALYSES), "default": ANALYSES[0], "description": (
                    "question: the query analysed and ranked as /retrieve's first search "
                    "(stop words and literals left out, any word matching); raw: its words "
                    "as written, every one required.")},
            },
        },
        "SearchResponse": closed({
            "corpus_id": HEX64, "search_request_id": HEX64, "text_bytes": _INT0,
            "text_tokens": _INT0,
            "request": closed({"query": {"type": "string"}, **ECHOED_NAMES,
                                "limit": _INT0, "max_text_bytes": _INT0, TOKEN_ALLOWANCE: _INT0,
                                "analysis": {"enum": list(ANALYSES)}},
                               ["query", "collection", "limit", "max_text_bytes", "analysis"]),
            "searched": closed({"query": {"type": "string"},
                                 "match": {"enum": [MATCH_ALL, MATCH_ANY]},
                                 "literals": {"const": True},
                                 "semantic_query": {"type": "string"},
                                 "name": {"type": "string"}}, ["query", "match"]),
            "notes": first_notes,
            "hits": {"type": "array", "items": closed({
                **hit, "score": {"type": "number"}, "text": {"type": "string"}, **cut,
            }, hit_required + ["score"])},
            NOT_IN_VERSION: closed({
                "name": {"type": "string"}, "versions": names_list,
                "hits": {"type": "array", "items": closed(hit, hit_required)}}) | {
                "description": "Only when the query is an API name no unit of the version asked "
                               "names, and units of the collection's other versions do: those "
                               "versions, and their units' hits (no text), each under its own "
                               "version."},
        }, ["corpus_id", "search_request_id", "text_bytes", "request", "searched", "hits"]),
        "LookupRequest": {
            "type": "object", "additionalProperties": False, "required": ["name", *version],
            "description": f"At most {max_body_bytes} bytes of strict JSON, as RetrieveRequest.",
            "properties": {
                "name": {"type": "string", "pattern": NAME_REGEX, "maxLength": MAX_NAME_CHARS,
                         "description": "A dotted or bare API name (os.path.join, "
                                        "DataFrame.append, removeprefix)."},
                "version": VERSION_FIELD, "collection": COLLECTION_FIELD,
                "limit": {"type": "integer", "minimum": MIN_LIMIT, "maximum": MAX_LIMIT,
                          "default": DEFAULT_LIMIT, "description": "The most units per version."},
                "max_text_bytes": dict(_INT0, maximum=maxima.max_source_bytes,
                                       default=DEFAULT_MAX_TEXT_BYTES),
            },
        },
        "LookupResponse": closed({
            "corpus_id": HEX64, "text_bytes": _INT0,
            "request": closed({"name": {"type": "string"}, **ECHOED_NAMES,
                                "limit": _INT0, "max_text_bytes": _INT0},
                               ["name", "collection", "limit", "max_text_bytes"]),
            "status": {"enum": list(STATUSES)},
            "notes": first_notes,
            "hits": {"type": "array", "items": closed(
                {**hit, "text": {"type": "string"}}, hit_required)},
            NOT_IN_VERSION: closed({
                "versions": names_list, "hits": {"type": "array", "items": closed(
                    {**hit, "text": {"type": "string"}}, hit_required)}}),
        }, ["corpus_id", "text_bytes", "request", "status", "hits"]),
        **_diff_schemas(version),
        "Limits": closed({field: _INT0 for field in ALLOWANCES + (TOKEN_ALLOWANCE,)},
                         list(ALLOWANCES)),
        "Usage": usage,
        # Hits of built snapshots also name their unit's url and title (the fixture's do not).
        "ReadHandle": closed({**handle_fields, **named, **flagged}, list(handle_fields)),
        # A piece of a unit the build cut also says where the unit goes on (CUT_FIELDS).
        "ReadResult": closed({**handle_fields, **named, **flagged, **read_fields, **cut},
                              list(handle_fields) + list(read_fields)),
        "SearchResult": closed({
            "corpus_id": HEX64, "search_request_id": HEX64, **search_arguments,
            "results": {"type": "array", "items": ref("ReadHandle")},
        }, ["corpus_id", "search_request_id", "query", "version", "k", "results"]),
        "TraceEntry": {"oneOf": [
            closed({"action": action, "decision": {"const": "executed"},
                     "invoked": {"const": True}, "reserved_source_bytes": _INT0,
                     "reserved_tokens": _INT0, "status": {"const": "succeeded"},
                     "result": {"oneOf": [ref("SearchResult"), ref("ReadResult")]},
                     "usage_after": ref("Usage")},
                    ["action", "decision", "invoked", "reserved_source_bytes", "status",
                     "result", "usage_after"]),
            closed({"action": action, "decision": {"const": "executed"},
                     "invoked": {"const": True}, "reserved_source_bytes": _INT0,
                     "reserved_tokens": _INT0, "status": {"const": "failed"},
                     "reason": {"type": "string"}, "usage_after": ref("Usage")},
                    ["action", "decision", "invoked", "reserved_source_bytes", "status",
                     "reason", "usage_after"]),
            closed({"action": action, "decision": {"const": "denied"},
                     "reason": {"enum": list(DENIAL_REASONS)},
                     "invoked": {"const": False}, "preflight_source_bytes": _INT0,
                     "preflight_tokens": _INT0},
                    ["action", "decision", "reason", "invoked"]),
        ]},
        "Policy": closed({
            "name": {"type": "string"}, "initial_query": {"type": "string"},
            "refinement_query": {"type": ["string", "null"]},
            "required_marker": {"type": ["string", "null"]},
            "max_rounds": {"type": "integer", "minimum": 1},
            "kind": {"enum": ["question_terms"]},
            # Shown only where a rule departs from the defaults (2, "first").
            "search_k": {"type": "integer", "minimum": 1, "maximum": MAX_SEARCH_K},
            "reads": {"enum": [READ_BEST]},
            "ubiquitous_share": {"type": "number", "exclusiveMinimum": 0, "maximum": 1,
                                 "description": "initial_query leaves out the words more than "
                                                "this share of the collection's units hold."},
        }, ["name", "initial_query", "refinement_query", "required_marker", "max_rounds"]),
        "RetrieveResponse": closed({
            "schema_version": {"const": 1},
            "execution_mode": {"const": "offline-scripted-retrieval-http"},
            "model_called": {"const": False},
            "request_id": HEX64, "corpus_id": HEX64,
            "request": closed({"question": {"type": "string"}, **ECHOED_NAMES,
                                **{field: _INT0 for field in ALLOWANCES},
                                TOKEN_ALLOWANCE: _INT0},
                               ["question", "collection", *ALLOWANCES]),
            "status": {"enum": list(RUN_STATUSES)},
            "reason": {"type": "string"},
            "admission": closed({"accepted": {"const": True}, "limits": ref("Limits")}),
            "usage": ref("Usage"),
            "trace": {"type": "array", "items": ref("TraceEntry")},
            "evidence": {"type": "array", "items": ref("ReadResult")},
            "policy": ref("Policy"),
            "result_sha256": dict(HEX64, description=(
                "Tagged SHA-256 of the exact body bytes with this final member removed.")),
        }),
        "Error": closed({
            "error": closed({
                "code": {"enum": sorted(HTTP_STATUS),
                         "description": "Stable: branch on this (and on issues' path and type)."},
                "message": {"type": "string",
                            "description": "For a person reading it; the wording may change."},
                "byte_offset": dict(_INT0, description=(
                    "invalid_json: the byte of the body where the problem was found.")),
                "versions": {"type": "array", "items": {"type": "string"}, "description": (
                    "version_not_found: the versions the collection holds.")},
                "issues": {"type": "array", "maxItems": MAX_ISSUES, "items": closed({
                    "path": {"type": "array", "items": {"type": "string",
                                                        "maxLength": MAX_PATH_PART}},
                    "type": {"enum": list(ISSUE_TYPES)},
                    "limit": {"type": "integer", "description": (
                        "The bound the value broke (string_too_long, greater_than_equal, "
                        "less_than_equal).")},
                    "pattern": {"type": "string", "description": (
                        "The pattern the value does not match (string_pattern_mismatch).")},
                    "message": {"type": "string"},
                }, ["path", "type", "message"])},
            }, ["code", "message"]),
            "admission": closed({"accepted": {"const": False}}),
        }),
        "Health": {"oneOf": [
            closed({"status": {"const": "ok"}, "mode": {"const": "offline-scripted-retrieval"},
                     "corpus_id": HEX64}),
            # With a keys file: no snapshot-wide id (it would reveal other collections' changes).
            closed({"status": {"const": "ok"}, "mode": {"const": "offline-scripted-retrieval"}}),
            closed({"status": {"enum": ["not_ready", "draining"]}}),
        ]},
        "Corpus": closed({
            "default_collection": {"type": ["string", "null"], "description": (
                "What a request naming no collection reads: the snapshot's default if the "
                "caller may read it, else the caller's only collection; else null.")},
            "collections": {"type": "array", "items": closed({
                "collection": {"type": "string"}, "corpus_id": HEX64,
                "versions": {"type": "array", "items": closed({
                    "version": {"type": "string"}, "passages": _INT0, "sources": _INT0})}})},
            "project": dict(closed({
                "project": {"type": "string"}, "lockfile": {"type": ["string", "null"]},
                "pins": {"type": "array", "items": PIN}}), description=(
                "Only of a snapshot built for a project (project.json): what it pins, each pin "
                "of a collection the caller may not read left out.")),
        }, ["default_collection", "collections"]),
        "Passage": closed({**{name: field_schema(name) for name in PASSAGE_BODY_FIELDS},
                           **note_schemas(), **flagged}, list(PASSAGE_BODY_FIELDS)),
    }


# The Inspector's page: served by static.py, not by an operation, but documented like one.
PAGE_OPERATION = {"summary": "The Retrieval Inspector page", "responses": {
    "200": {"description": "HTML", "content": {"text/html": {}}}}}


def openapi_document(maxima: Limits, max_body_bytes: int, operations: dict,
                     pins: bool = False) -> dict:
    """Return the OpenAPI 3.1 document for this app's settings and snapshot (pins: it pins
    versions, so a request may name none).

    operations: each route's OpenAPI operation by route path, as its operation declares it
    (retrieval/http/operations/); the Inspector's page is added here.
    """
    operations = {**operations, "/": PAGE_OPERATION}
    return {
        "openapi": "3.1.0",
        "info": {"title": "retrieval", "version": __version__,
                 "description": "Budgeted, verifiable documentation retrieval. No model is "
                                "called and no answer is generated."},
        # The contract's documented routes, in its order; a HEAD twin of GET is implied.
        "paths": {route.path: {route.methods[0].lower(): operations[route.path]}
                  for route in ROUTES if route.documented},
        "components": {
            "schemas": _schemas(maxima, max_body_bytes, pins),
            # Required only when the server has a keys file; /health and this document stay
            # open.
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }
