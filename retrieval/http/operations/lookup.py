"""POST /lookup: which versions document an API name, said for the version asked (MCP's
`lookup_api`).

The answer is about the version asked alone (core/lookup.py): `found` (its units, best first),
`deprecated` (found, and documented there as deprecated or removed), `not_in_version` (no unit of
it names the name, units of the collection's other versions do: those versions and their units,
each under its own version), or `not_found`. What the asked version says of the object's
removal, deprecation or changes comes first (`notes`). Texts are given, in that order, while
they fit `max_text_bytes`, as /search gives them.
"""

from dataclasses import dataclass

from ...core.lookup import NOT_IN_VERSION, passage_hit
from ...core.query import API_NAME, MAX_NAME_CHARS
from ...core.service import RetrievalService, ServedNames
from ...core.snapshot import DEFAULT_COLLECTION
from ...core.tools import RetrievalTools, ToolFailure
from ..contract import LOOKUP
from ..errors import InvalidRequest, SearchFailed
from ..validation import body_issue, common_issues, count_issue
from .search import DEFAULT_LIMIT, DEFAULT_MAX_TEXT_BYTES, MAX_LIMIT, MIN_LIMIT, Search

NAME_REGEX = f"^{API_NAME.pattern}$"
KNOWN_FIELDS = ("name", "version", "collection", "limit", "max_text_bytes")


@dataclass(frozen=True)
class LookupRequest(ServedNames):
    """A validated name lookup with every default filled in."""

    name: str
    version: str | None
    collection: str
    limit: int  # the most units given per version
    max_text_bytes: int
    # As RetrieveRequest's (core/service.ServedNames).
    served_version: str | None = None
    served_collection: str | None = None
    pinned: bool = False

    def normalized(self) -> dict:
        """Return the request as it is echoed."""
        return {"name": self.name, **self.echoed_names(), "limit": self.limit,
                "max_text_bytes": self.max_text_bytes}


def parse_lookup_request(document, max_text_bytes_limit: int,
                         default_collection: str | None = DEFAULT_COLLECTION,
                         pins: bool = False) -> LookupRequest:
    """Validate a lookup's arguments (a decoded JSON object) as /search validates its body.

    A lookup has no token budget (its texts are bounded by max_text_bytes): a body's max_tokens
    is an unknown field, refused."""
    issues, collection = common_issues(document, "name", default_collection, pins)
    name = document.get("name")
    if isinstance(name, str) and name.strip() and (
            len(name) > MAX_NAME_CHARS or not API_NAME.fullmatch(name)):
        issues += body_issue("name", {"type": "string_pattern_mismatch", "pattern": NAME_REGEX})
    limit = document.get("limit", DEFAULT_LIMIT)
    issue = count_issue(limit, MAX_LIMIT)
    if issue is None and limit < MIN_LIMIT:
        issue = {"type": "greater_than_equal", "limit": MIN_LIMIT}
    issues += body_issue("limit", issue)
    max_text_bytes = document.get("max_text_bytes", DEFAULT_MAX_TEXT_BYTES)
    issues += body_issue("max_text_bytes", count_issue(max_text_bytes, max_text_bytes_limit))
    for field in document:
        if field not in KNOWN_FIELDS:
            issues += body_issue(field, {"type": "extra_forbidden"})
    if issues:
        raise InvalidRequest(issues)
    return LookupRequest(name, document.get("version"), collection, limit, max_text_bytes)


def run_lookup(service: RetrievalService, request: LookupRequest, deadline=None) -> dict:
    """Look the name up in every version of the collection; return the response body.

    The caller has checked that the collection exists and that the caller may read it.
    """
    collection = service.collection(request.search_collection)
    with RetrievalTools(collection, service.memo, deadline=deadline) as tools:
        try:
            found = tools.lookup(request.name, request.search_version, request.limit)
        except ToolFailure as failure:
            raise SearchFailed(failure.reason) from None
    status = found.status
    others = found.other_versions if status == NOT_IN_VERSION else ()
    text_bytes, budget_open = 0, True

    def hits_of(passages) -> list:
        nonlocal text_bytes, budget_open
        hits = []
        for passage in passages:
            hit = passage_hit(passage)
            # The first text that does not fit ends the texts, as on /search.
            budget_open = budget_open and \
                text_bytes + passage.byte_count <= request.max_text_bytes
            if budget_open:
                hit["text"] = passage.text
                text_bytes += passage.byte_count
            hits.append(hit)
        return hits

    notes = found.first_notes()
    body = {"corpus_id": collection.corpus_id, "request": request.normalized(),
            "status": status, **({"notes": notes} if notes else {}),
            "hits": hits_of(found.here)}
    if others:
        body[NOT_IN_VERSION] = {"versions": list(others), "hits": hits_of(
            passage for version in others for passage in found.found[version])}
    return body | {"text_bytes": text_bytes}


class Lookup(Search):
    """POST /lookup: /search's steps over a lookup."""

    route = LOOKUP
    answer = staticmethod(run_lookup)
    described = ("Which versions document an API name, said for the version asked",
                 "LookupRequest", "LookupResponse", "The name's units")

    def parse(self, document, key) -> ServedNames:
        """Validate the decoded body of this caller's lookup, with the app's byte limit."""
        state = self.state
        return parse_lookup_request(document, state.maxima.max_source_bytes,
                                    state.default_for(key), state.pins)
