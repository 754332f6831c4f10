"""Optional embedding re-rank (the `semantic` extra): wordllama's bundled model, no download.

Two models can make a snapshot's vectors (MODELS): wordllama, the default, described here, and
all-MiniLM-L6-v2 (`--semantic minilm`, retrieval/minilm.py: better on CoNaLa, slower, and exact
only per machine). Both give unit float16 rows; the re-rank below serves either.

wordllama 0.4.0.post1 ships its 256-dimensional l2_supercat token table and the Llama-2 tokenizer
inside its wheel, but its own loader looks for the tokenizer in a directory that does not exist
(`tokenizer/`, not `tokenizers/`) and then downloads it. So this module never imports wordllama:
it finds the package's directory, reads the two files' bytes once (the digest is over exactly
the bytes used), parses the safetensors table itself and builds the tokenizer from the JSON text.

Only this module imports numpy and tokenizers, and only the snapshot directory loader imports
it, lazily (core.snapshot_directory.load_semantic): when a snapshot's policy has a `semantic`
section, or a build asks for `--semantic`. Without the extra, lexical snapshots serve as before
and a semantic one is refused at load with the fix, never served lexically.

Every number is exact or correctly rounded, so vectors and orders are the same on every machine
whatever order numpy or BLAS adds in: sums of float16 token rows and dot products of unit float16
vectors are exact in float64 (the bounds are noted below), the norm is a correctly rounded `fsum`,
and the rest is one IEEE operation at a time.
"""

import hashlib
import json
import math
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits
from tokenizers import Tokenizer

from . import minilm, model_files
from .core.ranking import EMBEDDING_MODELS, first_sentence
from .model_files import ModelUnavailable

PACKAGE = "wordllama"
WEIGHTS = ("weights", "l2_supercat_256.safetensors")
TOKENIZER = ("tokenizers", "l2_supercat_tokenizer_config.json")
TENSOR = "embedding.weight"
# What is embedded and how; part of what a snapshot's vectors depend on besides the model digest.
RECIPE = "names+heading+first-sentence/sum-pool/l2/float16"
# The re-rank weight chosen on CoNaLa train (bench/README.md): score - 20 x cosine.
WEIGHT = 20
# `retrieval build --semantic [MODEL]`: the models a snapshot can be built and served with.
MODELS = EMBEDDING_MODELS
DEFAULT_MODEL = MODELS[0]
# Exactness: float16 values are multiples of 2**-24, so a sum of them, or of products of two
# (multiples of 2**-48), is exact in float64 while every partial sum stays below 2**(53-24) or
# 2**(53-48) = 32 respectively, in any order. Token rows are below 8.02 in magnitude, so a text
# needs over 2**25 tokens to break the first; unit vectors (norm within float16 rounding of 1)
# bound the second by about 1 (Cauchy-Schwarz).


@dataclass(frozen=True)
class Model:
    """The bundled token table and tokenizer, and the digest that names them."""

    table: object  # float16 array (vocab, dim), a view of the weights file's bytes
    tokenizer: object
    digest: str  # sha256 over the weights file's bytes, then the tokenizer file's bytes
    recipe: str = RECIPE
    default_weight: float = WEIGHT

    @property
    def dim(self) -> int:
        """Return the vector width."""
        return self.table.shape[1]

    def embed(self, texts) -> "np.ndarray":
        """Return one unit-length float16 row per text (all zeros for a text with no tokens)."""
        encodings = self.tokenizer.encode_batch(list(texts), add_special_tokens=False)
        out = np.zeros((len(encodings), self.dim), dtype=np.float16)
        for row, encoding in enumerate(encodings):
            if not encoding.ids:
                continue
            pooled = self.table[encoding.ids].astype(np.float64).sum(axis=0)
            norm = math.sqrt(math.fsum((pooled * pooled).tolist()))
            if norm:
                out[row] = pooled / norm
        return out


def _safetensors_table(data: bytes, name: str) -> "np.ndarray":
    """Return one float16 tensor of a safetensors file: u64 header size, JSON header, raw data."""
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + size])
    entry = header[name]
    if entry["dtype"] != "F16":
        raise ModelUnavailable(f"{name} is {entry['dtype']}, expected F16")
    start, stop = entry["data_offsets"]
    raw = data[8 + size + start:8 + size + stop]
    return np.frombuffer(raw, dtype="<f2").reshape(entry["shape"])


def load_model() -> Model:
    """Load the model bundled in the installed wordllama wheel, reading nothing else."""
    directory = model_files.package_dir(PACKAGE)
    weights = model_files.read(directory, WEIGHTS, PACKAGE)
    tokenizer_json = model_files.read(directory, TOKENIZER, PACKAGE)
    digest = hashlib.sha256(weights)
    digest.update(tokenizer_json)
    table = _safetensors_table(weights, TENSOR)
    tokenizer = Tokenizer.from_str(tokenizer_json.decode("utf-8"))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return Model(table=table, tokenizer=tokenizer, digest=digest.hexdigest())


def load_named_model(name: str):
    """Load one of MODELS by name: wordllama's Model or minilm's MiniLM (both embed and cosine)."""
    if name not in MODELS:
        raise ValueError(f"no embedding model {name!r}; choose one of {', '.join(MODELS)}")
    return load_model() if name == "wordllama" else minilm.load_model()


def model_for_recipe(recipe: str) -> str | None:
    """Return the name of the model that computes vectors by `recipe`, or None."""
    return {RECIPE: "wordllama", minilm.RECIPE: "minilm"}.get(recipe)


def document_text(names: str, heading: str, body: str) -> str:
    """Return what a unit's vector is computed over: its names, section heading, first sentence."""
    sentence = first_sentence(body)
    if heading and sentence.startswith(heading):  # a section's body opens with its own title
        sentence = sentence[len(heading):].lstrip()
    return " ".join(part for part in (names, heading, sentence) if part)


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


class Reranker:
    """A snapshot's vectors and the model that made them: re-sorts a search's lexical hits.

    One per loaded snapshot, shared read-only by every request thread (core's index.Reranker).
    """

    def __init__(self, model: Model, vectors: list, weight: float, candidates: int):
        """vectors: each passage's float16 little-endian bytes, passage id 1 first."""
        self.model = model
        self.weight = weight
        self.candidates = candidates
        # Queries are embedded on request threads, so BLAS runs one thread per call: OpenBLAS's
        # own workers spin-wait, and beside other requests or processes on the same cores they
        # thrash (minilm, one busy process beside it: p50 15 ms at 1 thread, 29 ms at 2, max
        # 20 vs 200 ms; docs/corpora.md). Process-wide, as BLAS's thread count is.
        threadpool_limits(limits=1, user_api="blas")
        table = np.frombuffer(b"".join(vectors), dtype="<f2").reshape(len(vectors), model.dim)
        # Row i is passage id i (SQLite row ids start at 1); row 0 is unused.
        self.vectors = np.vstack([np.zeros((1, model.dim), dtype="<f2"), table])
        self.vectors.flags.writeable = False

    def __call__(self, query: str, ranked: list) -> list:
        """Return (row id, score) pairs re-sorted by score - weight * cosine(query, unit)."""
        return rerank(ranked, self.model.embed([query])[0], self.vectors, self.weight)


def vector_bytes(vectors) -> list:
    """Return each row of embed()'s result as the bytes a snapshot stores (float16, little end)."""
    return [row.astype("<f2", copy=False).tobytes() for row in vectors]


__all__ = ["DEFAULT_MODEL", "MODELS", "Model", "ModelUnavailable", "RECIPE", "Reranker",
           "cosines", "document_text", "load_model", "load_named_model", "model_for_recipe",
           "rerank", "vector_bytes"]
