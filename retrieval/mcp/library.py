"""What an agent asks before it searches, and what a refusal tells it, in MCP's own terms.

`resolve_library` reads the caller's GET /corpus document (what list_docs shows: only the
collections the caller may read, and a project's pins of them), so a collection hidden from the
key resolves exactly like a missing one, over a local or a remote backend alike. The names are
resolved as a request's are (core/names.resolve_collection).

`for_mcp` rewrites a refusal's message for an MCP caller: it names MCP's tools (list_docs,
resolve_library) and the caller's collections, never an HTTP route or header; the code, and
every other member, stay the service's.
"""

from ..core.names import REQUEST_COLLECTION_PATTERN, normalized_name, resolve_collection
from ..core.project import Pin
from ..http.errors import NAMES_NO_COLLECTION

# Where a refusal sends an MCP caller, by error code.
_MESSAGES = {
    "collection_not_found": "no such collection (or this key may not read it): resolve_library "
                            "finds a library's collection by its name, list_docs lists yours",
    "unauthenticated": "this server needs an API key: start it with --api-key KEY (stdio), or "
                       "send it as a bearer token (Streamable HTTP)",
}
NOT_RESOLVED = "no collection of yours is that library: list_docs lists yours"


def _pins(corpus: dict) -> tuple:
    project = corpus.get("project") or {}
    return tuple(Pin(**dict(pin, import_names=tuple(pin["import_names"])))
                 for pin in project.get("pins", ()))


def your_collections(corpus: dict) -> list:
    """Return the names of the collections a /corpus document lists."""
    return [entry["collection"] for entry in corpus.get("collections", ())]


def resolve_library(corpus: dict, name) -> dict | None:
    """Return what a library or import name reads for this caller, or None if nothing.

    The collection, the version a call without one reads (the project's pin, or the only version
    held; else null: a version must be named), the versions held, and, of a project's pin, its
    source and coverage. A pinned library nothing was built for is answered too (collection
    null, what is missing): it is never passed over in silence.
    """
    if not isinstance(name, str) or not REQUEST_COLLECTION_PATTERN.fullmatch(name):
        return None
    pins = _pins(corpus)
    held = {entry["collection"]: [v["version"] for v in entry["versions"]]
            for entry in corpus.get("collections", ())}
    collection = resolve_collection(name, held, pins)
    if collection is not None:
        pin = next((pin for pin in pins if pin.collection == collection), None)
    else:
        wanted = normalized_name(name)
        pin = next((pin for pin in pins if pin.collection is None and (
            pin.name == wanted or wanted in map(normalized_name, pin.import_names))), None)
        if pin is None:
            return None
    versions = held.get(collection, []) if collection is not None else []
    if pin is not None:
        version = pin.version if collection is not None else None
    else:
        version = versions[0] if len(versions) == 1 else None
    answer = {"name": name, "collection": collection, "version": version, "versions": versions,
              "pinned": pin is not None}
    if pin is not None:
        answer["pin"] = pin.describe()
    return answer


def for_mcp(body: dict, corpus: dict | None) -> dict:
    """Return a refusal body as an MCP caller is told it: MCP's tools and its collections.

    corpus: the caller's /corpus document, for the collections it may read (None: unknown).
    """
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return body
    code, message = error.get("code"), error.get("message", "")
    yours = None if corpus is None else (", ".join(your_collections(corpus)) or "none")
    error = dict(error)
    if code == "collection_not_found":
        if isinstance(message, str) and message.startswith(NAMES_NO_COLLECTION):
            message = ("the call names no collection, and this snapshot has several and no "
                       "default: pass collection (resolve_library finds a library's)")
        else:
            message = _MESSAGES[code]
        if yours is not None:
            message += f"; yours: {yours}"
    elif code == "version_not_found":
        message += ("; leave version out to read the version the project pins, where it pins "
                    "one (resolve_library and list_docs say)")
    elif code == "unauthenticated":
        message = _MESSAGES[code]
    elif code == "invalid_request" and isinstance(error.get("issues"), list):
        issues = [_argument_issue(issue) for issue in error["issues"]]
        error["issues"] = issues
        message = "the call is not valid: " + "; ".join(issue["message"] for issue in issues)
    error["message"] = message
    return dict(body, error=error)


def _argument_issue(issue):
    """Return an issue of a request body as one of the tool's arguments (no "body" in it)."""
    if not isinstance(issue, dict) or issue.get("path", [None])[:1] != ["body"]:
        return issue
    path = issue["path"][1:]
    message = issue.get("message", "")
    prefix = ".".join(issue["path"]) + " "
    if isinstance(message, str) and message.startswith(prefix):
        message = (".".join(path) + " " if path else "the arguments ") + message[len(prefix):]
    if path == ["version"] and issue.get("type") == "missing":
        message += " (this collection has no pinned version: list_docs lists those held)"
    return dict(issue, path=path or ["arguments"], message=message)
