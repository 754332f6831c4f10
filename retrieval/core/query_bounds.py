"""What one search query may cost: its terms deduplicated, their number capped.

A search's cost grows with its number of terms (each quoted term is one FTS5 phrase that walks
its own posting list), not with the rows it returns: 500 copies of "a" in one kilobyte of query
text ran 2 s on a 2,000-passage snapshot, the whole deadline, while the same query with each
term once ran 5 ms. So a term given twice is searched once (ANDed or ORed, `x x` finds exactly
what `x` finds), and a query with more distinct terms than MAX_QUERY_TERMS is refused by the
caller's validation, never cut short silently.
"""

# Far more distinct words than a question or a search phrase has; few enough that a query's
# cost stays a small fraction of the deadline on a corpus-sized snapshot.
MAX_QUERY_TERMS = 32


def distinct_terms(query: str) -> list[str]:
    """Return the query's whitespace-separated terms, each once, in first-seen order."""
    return list(dict.fromkeys(query.split()))


def bounded_query(query: str) -> str:
    """Return the query with every repeated term removed (what the index is asked)."""
    return " ".join(distinct_terms(query))


def too_many_terms(query: str) -> bool:
    """Tell whether the query has more distinct terms than a search may have."""
    return len(distinct_terms(query)) > MAX_QUERY_TERMS
