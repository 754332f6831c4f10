"""The re-rank extension point: what a semantic re-ranker must do (core never implements it)."""

from typing import Any, Protocol


class Reranker(Protocol):
    """Re-sorts a search's best lexical hits (the semantic extra implements it; core never does).

    Deterministic: the same query and hits give the same order and scores on every machine.
    """

    candidates: int  # how many lexical hits it re-sorts

    def __call__(self, query: str, ranked: list, rows: tuple[int, int] | None = None,
                 literals: bool = False) -> list:
        """Return (row id, score) pairs re-sorted best first, lower score better.

        rows: the first and last row id of the searched collection's version; a re-ranker with
        dense candidates adds the units of those rows nearest the query to the lexical hits,
        each at the worst hit's score. literals: as resort's.
        """

    def query_vector(self, query: str) -> Any:
        """Return the query's vector (what nearest and resort take)."""

    def nearest(self, vector: Any, rows: tuple[int, int]) -> list:
        """Return the row ids of rows (first, last) nearest the vector: its dense candidates."""

    def resort(self, vector: Any, ranked: list, literals: bool = False) -> list:
        """Return (row id, score) pairs re-sorted by score - weight x cosine, best first (with
        literals, weight + the policy's literals_weight)."""
