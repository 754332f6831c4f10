"""POST /search: one ranked search as an operation of its own: validated request -> core search.

What MCP's `search_docs` runs, and what the `POST /search` route runs: the same index search a
/retrieve run's search step makes (memoized in the service's result memo), then the verbatim text
of the best hits, in rank order, while their bytes fit the caller's budget. The budget is exact:
the texts returned never total more than `max_text_bytes`, and a hit whose text would not fit
ends the texts (the hits after it are listed without text), so what is returned is always a
prefix of the ranking. A caller that sends `max_tokens` budgets the texts in estimated tokens too
(core/tokens.py): they fit both, and the reply counts both (`text_tokens` beside `text_bytes`).

The query is read as a question unless the caller asks for `"analysis": "raw"`: the same query
analysis (stop words, literals, the collection's ubiquitous words; any word matching) and the
same ranking as a /retrieve run's first search, so the two surfaces find the same evidence.
The reply says what was searched (`searched`). A query that is an API name (`os.path.join`,
`removeprefix`) that no unit of the version asked for is named, while units of the collection's
other versions are, gets `not_in_version`: those versions and their units' hits, each under its
own version (core/lookup.py); the hits stay the asked version's alone. One the version asked
documents as removed, deprecated or changed gets those notes first (`notes`, as /lookup's), each
with the passage that says it, whether or not the ranking's hits hold that passage.
"""

from collections.abc import Callable
from dataclasses import dataclass

from ...core.admission import DEFAULT_MAXIMA
from ...core.fields import CUT_FIELDS, HIT_FIELDS, NOTE_FIELDS
from ...core.lookup import NOT_IN_VERSION, first_notes, not_in_version
from ...core.query import api_name
from ...core.searches import SearchCall
from ...core.service import RetrievalService, ServedNames
from ...core.snapshot import DEFAULT_COLLECTION
from ...core.tokens import tokens_of_bytes
from ...core.tools import RetrievalTools, ToolFailure
from ..contract import OK, SEARCH, TOKEN_ALLOWANCE
from ..errors import InvalidRequest, SearchFailed
from ..exchange import Exchange, Reply, encode_json
from ..schema import BEARER, error_responses, ref, request_body, response
from ..state import verified
from ..validation import body_issue, common_issues, count_issue, decode_body, search_query_issue
from . import BodyOperation

MIN_LIMIT, MAX_LIMIT, DEFAULT_LIMIT = 1, 20, 5
DEFAULT_MAX_TEXT_BYTES = 4096
# How the query is read: "question", as a /retrieve run's first search reads a question (the
# policy's query analysis and ranking); "raw", its words as written, every one required.
ANALYSES = ("question", "raw")
ANALYSIS_REGEX = f"^({'|'.join(ANALYSES)})$"
KNOWN_FIELDS = ("query", "version", "collection", "limit", "max_text_bytes", TOKEN_ALLOWANCE,
                "analysis")


@dataclass(frozen=True)
class SearchRequest(ServedNames):
    """A validated search with every default filled in."""

    query: str
    version: str | None
    collection: str
    limit: int
    max_text_bytes: int
    analysis: str = ANALYSES[0]
    # As RetrieveRequest's (core/service.ServedNames).
    served_version: str | None = None
    served_collection: str | None = None
    pinned: bool = False
    max_tokens: int | None = None  # None: none sent, and the texts are not counted in tokens

    def normalized(self) -> dict:
        """Return the request as it is echoed (max_tokens only when sent)."""
        return {"query": self.query, **self.echoed_names(), "limit": self.limit,
                "max_text_bytes": self.max_text_bytes,
                **({} if self.max_tokens is None else {TOKEN_ALLOWANCE: self.max_tokens}),
                "analysis": self.analysis}


def parse_search_request(document, max_text_bytes_limit: int,
                         default_collection: str | None = DEFAULT_COLLECTION,
                         pins: bool = False,
                         max_tokens_limit: int | None = DEFAULT_MAXIMA.max_tokens
                         ) -> SearchRequest:
    """Validate a search's arguments (a decoded JSON object) as /retrieve validates its body."""
    issues, collection = common_issues(document, "query", default_collection, pins)
    analysis = document.get("analysis", ANALYSES[0])
    # A question's analysis keeps at most MAX_QUESTION_TERMS words; a raw query is searched
    # whole, so only it can have too many terms.
    issues += body_issue("query", search_query_issue(document.get("query"),
                                                     count_terms=analysis == "raw"))

    def check(field, issue):
        issues.extend(body_issue(field, issue))

    limit = document.get("limit", DEFAULT_LIMIT)
    issue = count_issue(limit, MAX_LIMIT)
    if issue is None and limit < MIN_LIMIT:
        issue = {"type": "greater_than_equal", "limit": MIN_LIMIT}
    check("limit", issue)
    max_text_bytes = document.get("max_text_bytes", DEFAULT_MAX_TEXT_BYTES)
    check("max_text_bytes", count_issue(max_text_bytes, max_text_bytes_limit))
    max_tokens = document.get(TOKEN_ALLOWANCE)
    if TOKEN_ALLOWANCE in document:
        check(TOKEN_ALLOWANCE, count_issue(max_tokens, max_tokens_limit))
    if analysis not in ANALYSES:
        check("analysis", {"type": "string_type"} if not isinstance(analysis, str) else
              {"type": "string_pattern_mismatch", "pattern": ANALYSIS_REGEX})
    for field in document:
        if field not in KNOWN_FIELDS:
            check(field, {"type": "extra_forbidden"})
    if issues:
        raise InvalidRequest(issues)
    return SearchRequest(document["query"], document.get("version"), collection, limit,
                         max_text_bytes, analysis, max_tokens=max_tokens)


def run_search(service: RetrievalService, request: SearchRequest, deadline=None) -> dict:
    """Rank, then read the best hits' texts within the byte budget; return the response body.

    The caller has checked that the collection exists and that the caller may read it.
    """
    collection = service.collection(request.search_collection)
    version = request.search_version
    search = SearchCall(request.query, version, request.limit) if request.analysis == "raw" else \
        service.question_search(request.query, request.search_collection, version, request.limit)
    hits, text_bytes, text_tokens, budget_open = [], 0, 0, True
    max_tokens = request.max_tokens
    with RetrievalTools(collection, service.memo, deadline=deadline) as tools:
        try:
            found = tools.search(search)
            for handle in found["results"]:
                # url and title are absent from hits of hand-written snapshots that lack them,
                # version notes from those of units that have none.
                hit = {name: handle[name] for name in HIT_FIELDS + NOTE_FIELDS
                       if name in handle}
                hit["score"] = handle["native_score"]
                # The first text that does not fit ends the texts: a prefix of the ranking.
                tokens = tokens_of_bytes(handle["byte_count"])
                budget_open = budget_open and \
                    text_bytes + handle["byte_count"] <= request.max_text_bytes and \
                    (max_tokens is None or text_tokens + tokens <= max_tokens)
                if budget_open:
                    read = tools.read(handle)
                    hit["text"] = read["text"]
                    # A piece of a unit the build cut says where the unit goes on, as a read does.
                    hit.update((name, read[name]) for name in CUT_FIELDS if name in read)
                    text_bytes += handle["byte_count"]
                    text_tokens += tokens
                hits.append(hit)
            # A query that is an API name: what the version asked documents of its removal,
            # deprecation or changes is said first; a name it does not document, and others do,
            # is said too. The version asked is looked in first, on its rows alone: a name it
            # documents (most names asked) costs no read of the other versions' units.
            name = api_name(request.query)
            noted = None if name is None else tools.noted(name, version, request.limit)
            named = None if name is None or noted is not None else \
                tools.lookup(name, version, request.limit)
        except ToolFailure as failure:
            raise SearchFailed(failure.reason) from None
    notes = first_notes(noted or ())
    absent = {} if named is None or named.status != NOT_IN_VERSION else {
        NOT_IN_VERSION: not_in_version(named)}
    return {"corpus_id": collection.corpus_id, "request": request.normalized(),
            "searched": {"query": search.query, "match": search.match,
                         **search.query_reading()},
            "search_request_id": found["search_request_id"],
            **({"notes": notes} if notes else {}), "hits": hits,
            "text_bytes": text_bytes,
            **({} if max_tokens is None else {"text_tokens": text_tokens})} | absent


class Search(BodyOperation):
    """POST /search; its steps (parse, answer) are its own, so that POST /lookup runs the same
    over its own: each parse takes what its route validates, and only that."""

    route = SEARCH
    # (service, request, deadline) -> the response body.
    answer: Callable[..., dict] = staticmethod(run_search)
    # The OpenAPI operation's summary, its request and response schemas, the 200's description.
    described = ("One ranked search, with the best hits' texts within a byte budget",
                 "SearchRequest", "SearchResponse", "The ranked hits")

    def parse(self, document, key) -> ServedNames:
        """Validate the decoded body of this caller's request, with the app's limits."""
        state = self.state
        return parse_search_request(document, state.maxima.max_source_bytes,
                                    state.default_for(key), state.pins, state.maxima.max_tokens)

    def run(self, service, exchange: Exchange, key, body: bytes, started: float) -> Reply:
        state = self.state
        request = state.resolved(key, self.parse(decode_body(body), key))
        found = self.answer(service, request, started + state.deadline_s)
        verified(service)  # what a rewritten file gave is never sent
        return Reply(OK, encode_json(found))

    @classmethod
    def openapi(cls) -> dict:
        """Return this route's OpenAPI operation."""
        summary, request_schema, response_schema, answered = cls.described
        return {
            "summary": summary,
            "security": BEARER,
            "requestBody": request_body(request_schema),
            "responses": {"200": response(ref(response_schema), answered),
                          **error_responses()},
        }
