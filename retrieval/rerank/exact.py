"""The exact re-rank: what a unit's vector is computed over, how it is stored, how it re-sorts.

Every model (wordllama.py, minilm.py) gives unit-length float16 rows; this module serves any of
them. Dot products of unit float16 vectors are exact in float64 whatever order numpy or BLAS adds
in: float16 values are multiples of 2**-24, so a product of two is a multiple of 2**-48, and a
sum of such products is exact while every partial sum stays below 2**(53-48) = 32; unit vectors
(norm within float16 rounding of 1) bound it by about 1 (Cauchy-Schwarz). So scores and orders
are the same on every machine.
"""

import numpy as np
from threadpoolctl import threadpool_limits

from ..core.ranking import first_sentence


def document_text(names: str, heading: str, body: str) -> str:
    """Return what a unit's vector is computed over: its names, section heading, first sentence."""
    sentence = first_sentence(body)
    if heading and sentence.startswith(heading):  # a section's body opens with its own title
        sentence = sentence[len(heading):].lstrip()
    return " ".join(part for part in (names, heading, sentence) if part)


def vector_bytes(vectors) -> list:
    """Return each row of embed()'s result as the bytes a snapshot stores (float16, little end)."""
    return [row.astype("<f2", copy=False).tobytes() for row in vectors]


def cosines(query_vector, doc_vectors) -> "np.ndarray":
    """Return the exact dot products of unit float16 rows with a unit float16 query, as float64."""
    query = np.asarray(query_vector, dtype=np.float16).astype(np.float64)
    docs = np.asarray(doc_vectors, dtype=np.float16).astype(np.float64)
    return docs @ query


def rerank(candidates, query_vector, doc_vectors, weight: float) -> list:
    """Re-sort (row_id, score) pairs, lower score better, by score - weight * cosine.

    doc_vectors is a float16 array whose row i is the vector of unit i. Ties keep the lexical
    tie-break, the lower row_id first. Returns [(row_id, new_score)] best first.
    """
    if not candidates:
        return []
    ids = [row_id for row_id, _ in candidates]
    similarity = cosines(query_vector, doc_vectors[ids]).tolist()
    scored = sorted((score - weight * cosine, row_id)
                    for (row_id, score), cosine in zip(candidates, similarity, strict=True))
    return [(row_id, score) for score, row_id in scored]


def screen_error(dim: int, bound: float) -> float:
    """Return how far a float32 dot product of two dim-wide rows whose norms multiply to at
    most `bound` can lie from the exact one, in any order of summation, fused or not.

    The classic bound: |fl(x.y) - x.y| <= gamma(dim) |x|.|y|, gamma(n) = n u / (1 - n u) with
    u = 2**-24, and |x|.|y| <= |x| |y| (Cauchy-Schwarz); 1e-3 more covers the norms' own rounding.
    """
    u = 2.0 ** -24
    return dim * u / (1 - dim * u) * bound * 1.001


def nearest(query_vector, doc_vectors, screen_rows, rows: tuple[int, int], n: int,
            doc_norm: float) -> list:
    """Return the row ids of rows[0]..rows[1] (inclusive) with the n largest cosines.

    Exact: every row of the range is screened in float32 (screen_rows: doc_vectors widened once,
    so a search pays one matrix-vector product, half the bytes of float64), and only rows within
    twice screen_error of the n-th best screened value can hold one of the n largest exact
    cosines (each screened value is within it of its exact one); those are scored exactly and
    chosen, the larger cosine first, then the lower row. doc_norm: the largest row norm.
    """
    first, last = rows
    if n <= 0 or last < first:
        return []
    query = np.asarray(query_vector, dtype=np.float16)
    screened = screen_rows[first:last + 1] @ query.astype(np.float32)
    kept = np.arange(len(screened))
    if n < len(screened):
        error = screen_error(len(query), doc_norm * float(np.linalg.norm(query.astype(np.float64))))
        kept = np.flatnonzero(screened >= np.partition(screened, -n)[-n] - 2 * error)
    similarity = cosines(query, doc_vectors[first + kept])
    # lexsort's last key is its primary one.
    order = kept[np.lexsort((kept, -similarity))][:n]
    return [first + int(offset) for offset in order]


def with_dense(candidates, dense: list) -> list:
    """Return the (row_id, score) candidates and each dense row not among them, at the worst
    candidate's score (0 when there is none), so the cosine term alone places it."""
    present = {row_id for row_id, _ in candidates}
    floor = max((score for _, score in candidates), default=0.0)
    return list(candidates) + [(row_id, floor) for row_id in dense if row_id not in present]


class Reranker:
    """A snapshot's vectors and the model that made them: re-sorts a search's lexical hits.

    One per loaded snapshot, shared read-only by every request thread (core's Reranker protocol).
    """

    def __init__(self, model, vectors: list, weight: float, candidates: int, dense: int = 0,
                 literals_weight: float = 0.0):
        """vectors: each passage's float16 little-endian bytes, passage id 1 first; dense: how
        many units nearest the query join the lexical candidates (0: none); literals_weight:
        added to weight when a ranking model's search has literals."""
        self.model = model
        self.weight = weight
        self.literals_weight = literals_weight
        self.candidates = candidates
        self.dense = dense
        # Queries are embedded on request threads, so BLAS runs one thread per call: OpenBLAS's
        # own workers spin-wait, and beside other requests or processes on the same cores they
        # thrash (minilm, one busy process beside it: p50 15 ms at 1 thread, 29 ms at 2, max
        # 20 vs 200 ms; docs/building.md). Process-wide, as BLAS's thread count is.
        threadpool_limits(limits=1, user_api="blas")
        table = np.frombuffer(b"".join(vectors), dtype="<f2").reshape(len(vectors), model.dim)
        # Row i is passage id i (SQLite row ids start at 1); row 0 is unused.
        self.vectors = np.vstack([np.zeros((1, model.dim), dtype="<f2"), table])
        self.vectors.flags.writeable = False
        # Dense candidates screen every row per search: widened once here (4 bytes a component,
        # 20 MB for the 3.11 docs' 13,161 x 384), not per search (19 ms there in float64).
        self._screen = self.vectors.astype(np.float32) if dense else None
        # The largest row norm, for the screen's error bound (float32 sums of float16 squares:
        # within 1e-4, which screen_error's 1e-3 covers).
        self._norm = 0.0 if self._screen is None else float(
            np.sqrt(np.einsum("ij,ij->i", self._screen, self._screen).max()))

    def __call__(self, query: str, ranked: list, rows: tuple[int, int] | None = None,
                 literals: bool = False) -> list:
        """Return (row id, score) pairs re-sorted by score - weight * cosine(query, unit).

        With dense candidates and rows, the `dense` units of rows nearest the query join ranked.
        """
        vector = self.query_vector(query)
        if rows is not None:
            ranked = with_dense(ranked, self.nearest(vector, rows))
        return self.resort(vector, ranked, literals)

    def query_vector(self, query: str):
        """Return the query's unit float16 vector."""
        return self.model.embed_query(query)

    def nearest(self, vector, rows: tuple[int, int]) -> list:
        """Return the `dense` row ids of rows (first, last) nearest the vector (none if 0)."""
        if self._screen is None:
            return []
        return nearest(vector, self.vectors, self._screen, rows, self.dense, self._norm)

    def resort(self, vector, ranked: list, literals: bool = False) -> list:
        """Return (row id, score) pairs re-sorted by score - weight * cosine, best first (with
        literals, weight + literals_weight)."""
        weight = self.weight + self.literals_weight if literals else self.weight
        return rerank(ranked, vector, self.vectors, weight)
