"""POST /diff: what changed in a collection's API from one version it holds to another.

What MCP's `diff_versions` runs: core/diff.py over the two versions (the first, `version`, read
as a search's is, so that a request naming none diffs from the project's pin), optionally kept to
some names (`names`: a project's imports; `retrieval diff --uses` reads them from its code), with
at most `limit` changes of each kind listed and every kind counted. Each change cites its passage
in each version it is in (passage_id, text_sha256: GET /passages/{id} gives the bytes).
"""

import re
from dataclasses import dataclass, replace

from ...core.diff import NoApiFacts, diff_versions
from ...core.service import ServedNames, UnknownVersion, served_version
from ...core.snapshot import DEFAULT_COLLECTION
from ..contract import DIFF, OK
from ..errors import DiffUnavailable, InvalidRequest, VersionNotFound
from ..exchange import Exchange, Reply, encode_json
from ..schema import BEARER, error_responses, ref, request_body, response
from ..state import verified
from ..validation import (
    body_issue,
    collection_issue,
    count_issue,
    decode_body,
    version_issue,
)
from . import BodyOperation

DEFAULT_LIMIT, MAX_LIMIT = 100, 1000
MAX_NAMES, MAX_NAME_CHARS = 1000, 200
NAME_REGEX = r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$"
KNOWN_FIELDS = ("collection", "version", "to_version", "names", "limit")


@dataclass(frozen=True)
class DiffRequest(ServedNames):
    """A validated diff with every default filled in: from version (None: the pin) to
    to_version, of collection."""

    version: str | None
    to_version: str
    collection: str | None
    names: tuple | None
    limit: int
    served_version: str | None = None
    served_collection: str | None = None
    pinned: bool = False
    served_to_version: str | None = None

    def normalized(self) -> dict:
        """Return the request as it is echoed."""
        # to_version as asked, then the version held it reads where that is another spelling.
        served_to = {} if self.served_to_version is None else {
            "served_to_version": self.served_to_version}
        return {**self.echoed_names(), "to_version": self.to_version, **served_to,
                **({} if self.names is None else {"names": list(self.names)}),
                "limit": self.limit}


def _names_issue(value):
    if not isinstance(value, list):
        return {"type": "list_type"}
    if len(value) > MAX_NAMES:
        return {"type": "too_long", "limit": MAX_NAMES}
    return None


def parse_diff_request(document, default_collection: str | None = DEFAULT_COLLECTION,
                       pins: bool = False) -> DiffRequest:
    """Validate a diff's arguments (a decoded JSON object); refuse any mistake, with them all."""
    if not isinstance(document, dict):
        raise InvalidRequest([{"path": ["body"], "type": "model_attributes_type"}])
    issues = []
    for field in ("version", "to_version"):
        if field in document:
            issues += body_issue(field, version_issue(document[field]))
        elif field == "to_version" or not pins:
            issues += body_issue(field, {"type": "missing"})
    collection = document.get("collection", default_collection)
    if "collection" in document:
        issues += body_issue("collection", collection_issue(collection))
    names = document.get("names")
    if "names" in document:
        issue = _names_issue(names)
        issues += body_issue("names", issue)
        if issue is None:
            for at, name in enumerate(names or ()):
                issue = name_issue(name)
                if issue is not None:
                    issues.append({"path": ["body", "names", str(at)], **issue})
    limit = document.get("limit", DEFAULT_LIMIT)
    issues += body_issue("limit", count_issue(limit, MAX_LIMIT))
    issues += [issue for field in document if field not in KNOWN_FIELDS
               for issue in body_issue(field, {"type": "extra_forbidden"})]
    if issues:
        raise InvalidRequest(issues)
    return DiffRequest(document.get("version"), document["to_version"], collection,
                       None if names is None else tuple(names), limit)


def name_issue(value):
    """Return what a dotted API name in `names` may not be, or None."""
    if not isinstance(value, str):
        return {"type": "string_type"}
    if len(value) > MAX_NAME_CHARS:
        return {"type": "string_too_long", "limit": MAX_NAME_CHARS}
    if not re.fullmatch(NAME_REGEX, value):
        return {"type": "string_pattern_mismatch", "pattern": NAME_REGEX}
    return None


def run_diff(service, request: DiffRequest) -> dict:
    """Return the /diff body of a resolved request (collection readable, versions held)."""
    collection = service.collection(request.search_collection)
    try:
        found = diff_versions(collection, request.search_version,
                              request.served_to_version or request.to_version)
    except NoApiFacts:
        raise DiffUnavailable(collection.name) from None
    if request.names is not None:
        found = found.only(request.names)
    return {"corpus_id": collection.corpus_id, "request": request.normalized(),
            **found.describe(request.limit)}


class Diff(BodyOperation):
    """POST /diff."""

    route = DIFF

    def run(self, service, exchange: Exchange, key, body: bytes, started: float) -> Reply:
        state = self.state
        request = state.resolved(key, parse_diff_request(
            decode_body(body), state.default_for(key), state.pins))
        held = state.collections[request.search_collection]
        try:
            request = replace(request, served_to_version=served_version(held, request.to_version))
        except UnknownVersion as unknown:
            raise VersionNotFound(unknown.collection, unknown.version, unknown.versions) from None
        found = run_diff(service, request)
        verified(service)  # what a rewritten file gave is never sent
        return Reply(OK, encode_json(found))

    @staticmethod
    def openapi() -> dict:
        """Return this route's OpenAPI operation."""
        return {
            "summary": "What changed in a collection's API between two versions it holds",
            "security": BEARER,
            "requestBody": request_body("DiffRequest"),
            "responses": {"200": response(ref("DiffResponse"), "The changes, each cited"),
                          **error_responses()},
        }

