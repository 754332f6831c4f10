"""The re-rank extension point: what a semantic re-ranker must do (core never implements it)."""

from typing import Protocol


class Reranker(Protocol):
    """Re-sorts a search's best lexical hits (the semantic extra implements it; core never does).

    Deterministic: the same query and hits give the same order and scores on every machine.
    """

    candidates: int  # how many lexical hits it re-sorts

    def __call__(self, query: str, ranked: list) -> list:
        """Return (row id, score) pairs re-sorted best first, lower score better."""
