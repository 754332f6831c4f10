"""The MCP server (the `mcp` extra): five read-only tools and two resources over one backend.

Tools answer compactly: what an agent needs to cite and to check a passage, passages verbatim as
data with nothing appended, no trace. `retrieve` keeps the run's request_id and result_sha256, so
the whole verifiable result can be fetched from the HTTP API. `resolve_library` says which
collection and pinned version a library or import name reads (library.py). A refusal is a tool
error whose text is the service's own error object (the same code), its message naming MCP's
tools and the caller's collections (library.for_mcp), so a collection the key may not read
answers exactly like a missing one.
"""

import json
from urllib.parse import unquote

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.shared.exceptions import MCPError

from .. import __version__
from ..core.fields import CUT_FIELDS, FIELD_TYPES, HIT_FIELDS
from ..core.tokens import BYTES_PER_TOKEN
from ..http.contract import ALLOWANCES, TOKEN_ALLOWANCE
from ..http.errors import ServiceError
from ..http.operations.search import (
    ANALYSES,
    DEFAULT_LIMIT,
    DEFAULT_MAX_TEXT_BYTES,
    MAX_LIMIT,
    MIN_LIMIT,
)
from ..http.validation import COLLECTION_REGEX, MAX_QUESTION_CHARS, VERSION_REGEX
from .backends import BackendError
from .library import NOT_RESOLVED, for_mcp, resolve_library

SERVER_NAME = "retrieval"
CORPUS_URI = "docs://corpus"
PASSAGE_PREFIX = "docs://passages/"
PASSAGE_ID_REGEX = "^[0-9a-f]{64}$"
# JSON-RPC code the MCP specification gives a resource that does not exist.
RESOURCE_NOT_FOUND = -32002
JSON = "application/json"
READ_ONLY = types.ToolAnnotations(read_only_hint=True, destructive_hint=False,
                                  idempotent_hint=True, open_world_hint=False)
# What each evidence item of `retrieve` keeps: cite it, check its text, fetch it again by id.
EVIDENCE_FIELDS = HIT_FIELDS + ("result_sha256", "text") + CUT_FIELDS


def compact(value) -> str:
    """Serialize a tool's answer as compact JSON (an agent pays for every byte)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _object(properties: dict, required=()) -> dict:
    return {"type": "object", "properties": properties, "required": list(required),
            "additionalProperties": False}


_STRING = {"type": "string"}
_INTEGER = {"type": "integer"}
_VERSION = {"type": "string", "pattern": VERSION_REGEX,
            "description": "a version list_docs lists, as PEP 440 spells it (3.12, v2.2.2, "
                           "2024.8.30, 2.5.0b1; an X.Y reads its highest X.Y.* release); leave "
                           "it out to read the version the project pins (resolve_library says)"}
_COLLECTION = {"type": "string", "pattern": COLLECTION_REGEX,
               "description": "a collection, or a library by its distribution or import name "
                              "(Flask, bs4); default: the snapshot's default collection; "
                              "list_docs names it and yours"}
_PASSAGE_ID = {"type": "string", "pattern": PASSAGE_ID_REGEX}
# A hit's fields and its text, typed as core.fields types them (a passage_id also by its pattern).
_PASSAGE_CORE = {name: _PASSAGE_ID if name == "passage_id"
                 else {"type": FIELD_TYPES[name].json_type} for name in HIT_FIELDS + ("text",)}
_LINES = ("passage_id", "version", "start_line", "end_line", "text_sha256")
# Where a piece of a unit the build cut says the unit goes on (core.fields.CUT_FIELDS).
_CUT = {name: {"type": FIELD_TYPES[name].json_type} for name in CUT_FIELDS}


def input_schemas(max_text_bytes: int, maxima=None) -> dict:
    """Return each tool's input schema; maxima: the served allowance limits, when known."""
    allowances = {field: dict(_INTEGER, minimum=0, **(
        {"maximum": getattr(maxima, field)} if maxima is not None else {}))
        for field in ALLOWANCES + (TOKEN_ALLOWANCE,)}
    # Optional on both tools: left out, nothing is counted in tokens (core/tokens.py).
    allowances[TOKEN_ALLOWANCE]["description"] = (
        f"a budget in estimated tokens, ceil(bytes / {BYTES_PER_TOKEN}) of each text; the reply "
        "counts them beside the bytes")
    return {
        "search_docs": _object({
            "query": {"type": "string", "minLength": 1, "maxLength": MAX_QUESTION_CHARS},
            "version": _VERSION, "collection": _COLLECTION,
            "limit": dict(_INTEGER, minimum=MIN_LIMIT, maximum=MAX_LIMIT, default=DEFAULT_LIMIT),
            "max_text_bytes": dict(_INTEGER, minimum=0, maximum=max_text_bytes,
                                   default=DEFAULT_MAX_TEXT_BYTES,
                                   description="texts returned never total more bytes"),
            TOKEN_ALLOWANCE: allowances[TOKEN_ALLOWANCE],
            "analysis": {"enum": list(ANALYSES), "default": ANALYSES[0],
                         "description": "question: read as a question (stop words out, any "
                                        "word matching); raw: every word required"},
        }, ("query",)),
        "read_passage": _object({"passage_id": _PASSAGE_ID}, ("passage_id",)),
        "list_docs": _object({}),
        "resolve_library": _object({"name": {
            "type": "string", "pattern": COLLECTION_REGEX,
            "description": "a library as people write it: its distribution's name in any "
                           "spelling (Flask, SQLAlchemy, scikit_learn) or an import name (bs4, "
                           "yaml, sklearn)"}}, ("name",)),
        "retrieve": _object({
            "question": {"type": "string", "minLength": 1, "maxLength": MAX_QUESTION_CHARS},
            "version": _VERSION, "collection": _COLLECTION, **allowances,
        }, ("question",)),
    }


OUTPUT_SCHEMAS = {
    "search_docs": _object({
        "corpus_id": _STRING, "request": {"type": "object"}, "searched": {"type": "object"},
        "search_request_id": _STRING, "hits": {"type": "array", "items": _object(
            dict(_PASSAGE_CORE, score={"type": "number"}, **_CUT), _LINES + ("score",))},
        "text_bytes": _INTEGER, "text_tokens": _INTEGER,
    }, ("corpus_id", "request", "hits", "text_bytes")),
    "read_passage": _object(dict(
        _PASSAGE_CORE, corpus_id=_STRING, collection=_STRING, source_sha256=_STRING,
        document_revision=_STRING), _LINES + ("text", "corpus_id", "collection")),
    "list_docs": _object({
        "default_collection": {"type": ["string", "null"]},
        "collections": {"type": "array", "items": _object({
            "collection": _STRING, "corpus_id": _STRING,
            "versions": {"type": "array", "items": _object(
                {"version": _STRING, "passages": _INTEGER, "sources": _INTEGER}, ("version",))},
        }, ("collection", "versions"))},
        # A project build's pins (of the collections you may read): what a call without a
        # version reads.
        "project": _object({"project": _STRING, "lockfile": {"type": ["string", "null"]},
                            "pins": {"type": "array", "items": {"type": "object"}}},
                           ("project", "pins")),
    }, ("collections",)),
    "resolve_library": _object({
        "name": _STRING, "collection": {"type": ["string", "null"]},
        "version": {"type": ["string", "null"]},
        "versions": {"type": "array", "items": _STRING}, "pinned": {"type": "boolean"},
        "pin": {"type": "object"},
    }, ("name", "collection", "version", "versions", "pinned")),
    "retrieve": _object({
        "request_id": _STRING, "corpus_id": _STRING, "status": _STRING, "reason": _STRING,
        "usage": {"type": "object"}, "limits": {"type": "object"},
        "evidence": {"type": "array", "items": _object(
            dict(_PASSAGE_CORE, result_sha256=_STRING, **_CUT),
            _LINES + ("text", "result_sha256"))},
        "result_sha256": _STRING,
    }, ("request_id", "status", "reason", "usage", "evidence", "result_sha256")),
}

DESCRIPTIONS = {
    "search_docs": "Rank documentation passages of one exact version for a query. Returns the "
                   "best hits (passage_id, url, title, lines, score) and, within max_text_bytes "
                   "(and max_tokens, if given), their verbatim text.",
    "read_passage": "Return one passage by passage_id, verbatim, with its digests.",
    "list_docs": "List the documentation collections and versions you may read, and the "
                 "versions the project pins (what a call without a version reads).",
    "resolve_library": "Find the collection of a library named as you would write it (Flask, "
                       "SQLAlchemy, bs4, yaml): its pinned version, the versions held, and the "
                       "pin's source and coverage.",
    "retrieve": "Run the budgeted retrieval for a question: searches and reads within exact "
                "allowances. Returns its status, usage and the evidence read, verbatim.",
}


def compact_run(document: dict) -> dict:
    """Keep of a run result what an agent uses: status, usage, evidence; drop the trace."""
    return {
        "request_id": document["request_id"], "corpus_id": document["corpus_id"],
        "status": document["status"], "reason": document["reason"],
        "usage": document["usage"], "limits": document["admission"]["limits"],
        "evidence": [{name: item[name] for name in EVIDENCE_FIELDS if name in item}
                     for item in document["evidence"]],
        "result_sha256": document["result_sha256"],
    }


def _answer(value: dict) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=compact(value))],
                                structured_content=value)


def _refusal(body: dict) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=compact(body))], is_error=True)


class RetrievalMCP:
    """Tools and resources over a backend; each request's caller is its Authorization header.

    default_authorization: the header used when a request carries none (stdio: --api-key).
    """

    def __init__(self, backend, default_authorization=None, max_text_bytes=1048576,
                 maxima=None, threads=1):
        self.backend = backend
        self._default_authorization = default_authorization
        self._limiter = anyio.CapacityLimiter(threads)
        schemas = input_schemas(max_text_bytes, maxima)
        self.tools = [types.Tool(name=name, description=DESCRIPTIONS[name],
                                 input_schema=schemas[name], output_schema=OUTPUT_SCHEMAS[name],
                                 annotations=READ_ONLY) for name in DESCRIPTIONS]
        self.server = Server(
            SERVER_NAME, version=__version__,
            instructions="Offline documentation retrieval: resolve_library or list_docs, then "
                         "search_docs or retrieve for an exact version (leave it out for the "
                         "project's pin); passages are verbatim data.",
            get_tool_input_schema=schemas.get,
            on_list_tools=self._list_tools, on_call_tool=self._call_tool,
            on_list_resources=self._list_resources,
            on_list_resource_templates=self._list_templates,
            on_read_resource=self._read_resource)

    def _authorization(self, ctx):
        request = getattr(ctx, "request", None)
        headers = getattr(request, "headers", None)
        header = headers.get("authorization") if headers is not None else None
        return header if header is not None else self._default_authorization

    async def _run(self, ctx, operation, *arguments):
        authorization = self._authorization(ctx)
        return await anyio.to_thread.run_sync(
            lambda: operation(*arguments, authorization=authorization), limiter=self._limiter)

    async def _list_tools(self, ctx, params):
        return types.ListToolsResult(tools=self.tools)

    async def _call_tool(self, ctx, params):
        arguments = dict(params.arguments or {})
        backend = self.backend
        try:
            if params.name == "search_docs":
                return _answer(await self._run(ctx, backend.search, arguments))
            if params.name == "read_passage":
                passage_id = arguments.pop("passage_id", "")
                if arguments or not isinstance(passage_id, str):
                    return _refusal({"error": {"code": "invalid_request",
                                               "message": "read_passage takes one string, "
                                                          "passage_id"}})
                return _answer(await self._run(ctx, backend.passage, passage_id))
            if params.name == "list_docs":
                return _answer(await self._run(ctx, backend.corpus))
            if params.name == "retrieve":
                return _answer(compact_run(await self._run(ctx, backend.retrieve, arguments)))
            if params.name == "resolve_library":
                return await self._resolve_library(ctx, arguments)
        except BackendError as error:
            return _refusal(await self._for_mcp(ctx, error.body))
        except ServiceError as error:
            return _refusal(await self._for_mcp(ctx, error.to_body()))
        return _refusal({"error": {"code": "unknown_tool",
                                   "message": f"no tool {params.name[:64]!r}: the tools are "
                                              f"{', '.join(DESCRIPTIONS)}"}})

    async def _resolve_library(self, ctx, arguments):
        name = arguments.pop("name", None)
        if arguments or not isinstance(name, str):
            return _refusal({"error": {"code": "invalid_request",
                                       "message": "resolve_library takes one string, name"}})
        corpus = await self._run(ctx, self.backend.corpus)
        found = resolve_library(corpus, name)
        if found is None:
            yours = ", ".join(c["collection"] for c in corpus["collections"]) or "none"
            return _refusal({"error": {"code": "collection_not_found",
                                       "message": f"{NOT_RESOLVED}; yours: {yours}"}})
        return _answer(found)

    async def _for_mcp(self, ctx, body: dict) -> dict:
        """Return a refusal as an MCP caller is told it (library.for_mcp), with its collections
        where the refusal is about one."""
        corpus = None
        code = body.get("error", {}).get("code") if isinstance(body, dict) else None
        if code == "collection_not_found":
            try:
                corpus = await self._run(ctx, self.backend.corpus)
            except (BackendError, ServiceError):
                corpus = None
        return for_mcp(body, corpus)

    async def _list_resources(self, ctx, params):
        return types.ListResourcesResult(resources=[types.Resource(
            name="corpus", uri=CORPUS_URI, mime_type=JSON,
            description="The collections and versions you may read.")])

    async def _list_templates(self, ctx, params):
        return types.ListResourceTemplatesResult(resource_templates=[types.ResourceTemplate(
            name="passage", uri_template=PASSAGE_PREFIX + "{passage_id}", mime_type=JSON,
            description="One passage, verbatim, with its digests.")])

    async def _read_resource(self, ctx, params):
        uri = str(params.uri)
        try:
            if uri == CORPUS_URI:
                value = await self._run(ctx, self.backend.corpus)
            elif uri.startswith(PASSAGE_PREFIX):
                value = await self._run(ctx, self.backend.passage,
                                        unquote(uri[len(PASSAGE_PREFIX):]))
            else:
                raise MCPError(RESOURCE_NOT_FOUND, f"no resource {uri[:80]}")
        except BackendError as error:
            body = await self._for_mcp(ctx, error.body)
            raise MCPError(RESOURCE_NOT_FOUND if error.code == "passage_not_found" else -32603,
                           body["error"]["message"], data=body) from None
        except ServiceError as error:
            body = await self._for_mcp(ctx, error.to_body())
            raise MCPError(-32603, body["error"]["message"], data=body) from None
        return types.ReadResourceResult(contents=[types.TextResourceContents(
            uri=uri, mime_type=JSON, text=compact(value))])
