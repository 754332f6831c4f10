"""One search call as a value: what the policy asks, the runner admits, the tools memoize and
the index ranks, passed whole from each to the next."""

from dataclasses import dataclass

# How a search's terms match: every one of them, or any.
MATCH_ALL = "all"
MATCH_ANY = "any"


@dataclass(frozen=True)
class SearchCall:
    """A search's arguments: its query, the version it ranks and how many hits, and how it
    reads its query.

    A snapshot is immutable, so a search's result is a function of this value alone (and the
    collection it runs in): equal values are one memo entry and one search_request_id.
    """

    query: str
    version: str
    k: int
    match: str = MATCH_ALL
    # The question quoted literal values: a ranking model's literal weights count (no other
    # ranking reads it).
    literals: bool = False
    # What a re-ranker embeds in place of the query (the question's sentence); no lexical
    # ranking reads it.
    semantic_query: str | None = None
    # The question was this dotted or bare API name, as written (query.api_name), or mentions
    # this dotted name first (query.mentioned_name): the units documenting it (a name lookup's,
    # in its order) rank first among what the ranking found.
    name: str | None = None

    @property
    def embedded(self) -> str:
        """Return what a re-ranker embeds: the semantic_query if there is one, else the query."""
        return self.query if self.semantic_query is None else self.semantic_query

    def traced(self) -> dict:
        """Return the arguments as traced: `match`, `literals`, `semantic_query` and `name`
        appear only when they are not the default (all terms; a question that quotes no literal
        value; an embedding, if any, of the query itself; a question that is no API name and
        mentions no dotted one)."""
        arguments: dict = {"query": self.query, "version": self.version, "k": self.k}
        if self.match != MATCH_ALL:
            arguments["match"] = self.match
        return arguments | self.query_reading()

    def query_reading(self) -> dict:
        """Return how the query is read beyond its words, as traced (and as `POST /search`
        says): `literals` when the question quotes literal values, `semantic_query` when an
        embedding reads another text, `name` when the question is an API name or mentions a
        dotted one; none at its default."""
        reading: dict = {}
        if self.literals:
            reading["literals"] = True
        if self.semantic_query is not None:
            reading["semantic_query"] = self.semantic_query
        if self.name is not None:
            reading["name"] = self.name
        return reading
