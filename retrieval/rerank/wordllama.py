"""wordllama's bundled token table: the default model of `retrieval build --semantic`.

wordllama 0.4.0.post1 ships its 256-dimensional l2_supercat token table and the Llama-2 tokenizer
inside its wheel, but its own loader looks for the tokenizer in a directory that does not exist
(`tokenizer/`, not `tokenizers/`) and then downloads it. So this module never imports wordllama:
it finds the package's directory, reads the two files' bytes once (files.read_model), parses the
safetensors table itself and builds the tokenizer from the JSON text.

Every number is exact or correctly rounded, so vectors are the same on every machine whatever
order numpy or BLAS adds in: sums of float16 token rows are exact in float64 (float16 values are
multiples of 2**-24, so a sum is exact while every partial sum stays below 2**(53-24); token rows
are below 8.02 in magnitude, so a text needs over 2**25 tokens to break it), the norm is a
correctly rounded `fsum`, and the rest is one IEEE operation at a time.
"""

import math
from dataclasses import dataclass

import numpy as np
from tokenizers import Tokenizer

from . import files
from .files import ModelUnavailable

FILES = files.ModelFiles("wordllama", ("weights", "l2_supercat_256.safetensors"),
                         ("tokenizers", "l2_supercat_tokenizer_config.json"))
TENSOR = "embedding.weight"
# What is embedded and how; part of what a snapshot's vectors depend on besides the model digest.
RECIPE = "names+heading+first-sentence/sum-pool/l2/float16"
# The re-rank weight chosen on CoNaLa train (bench/README.md): score - 20 x cosine, over the
# fielded ranking's scores (`build --ranking fielded`).
WEIGHT = 20
# Over the default policy's ranking model: its weights and the re-rank's fitted together, as
# minilm.RANKING_FIT's (`bench/fit_ranking.py --cosine --literals --no-dense` on wordllama
# snapshots: its nearest units stay at the floor; docs/corpora.md), with page_candidates and
# without the natural training questions, which cost its CoNaLa dev two items of hit@10.
RANKING_FIT = {
    "model": {"candidates": 100, "weights": {
        "bm25_names": 0.0145, "bm25_name": -0.01304, "bm25_signature": 0.09847,
        "bm25_summary": 0.1243, "bm25_body": -0.1277, "bm25_code": -0.03047,
        "bm25_context": 0.1324, "bm25_all": -0.1881, "in_links": 0.2311, "kind_function": 0.1781,
        "kind_method": -0.5629, "kind_class": -0.2881, "kind_exception": -2.532,
        "kind_attribute": -1.88, "kind_data": -1.42, "non_reference_page": 0.9998,
        "noindex": -1.25, "release_notes": -2.718, "fielded_rank": -0.2429, "plain_rank": -0.3935,
        "page_candidates": 0.4089, "literals_bm25_names": -0.0386, "literals_bm25_name": -0.08234,
        "literals_bm25_signature": -0.1398, "literals_bm25_summary": -0.00957,
        "literals_bm25_body": 0.05683, "literals_bm25_code": 0.0543,
        "literals_bm25_context": 0.04397, "literals_bm25_all": 0.07446,
        "literals_in_links": 0.4576, "literals_kind_function": 0.5936,
        "literals_kind_method": 0.9895, "literals_kind_class": 0.2143,
        "literals_kind_exception": 2.975, "literals_kind_attribute": -0.6919,
        "literals_kind_data": -0.5914, "literals_non_reference_page": -0.4865,
        "literals_noindex": -0.9253, "literals_release_notes": -0.06291,
        "literals_fielded_rank": -0.05381, "literals_plain_rank": 0.319,
        "literals_page_candidates": 0.3888}},
    "semantic_weight": 5.378,
    "semantic_literals_weight": 1.862,
}


@dataclass(frozen=True)
class Model:
    """The bundled token table and tokenizer, and the digest that names them."""

    table: np.ndarray  # float16 (vocab, dim), a view of the weights file's bytes
    tokenizer: Tokenizer
    digest: str  # sha256 over the weights file's bytes, then the tokenizer file's bytes
    recipe: str = RECIPE
    default_weight: float = WEIGHT

    @property
    def ranking_fit(self) -> dict:
        """Return the ranking model and re-rank weight fitted with this model's cosine."""
        return RANKING_FIT

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

    def embed_query(self, text: str) -> "np.ndarray":
        """Return a search query's unit float16 vector: embed()'s row for it."""
        return self.embed([text])[0]


def load_model() -> Model:
    """Load the model bundled in the installed wordllama wheel, reading nothing else."""
    model = files.read_model(FILES)
    table = files.safetensors(model.weights, "F16").get(TENSOR)
    if table is None:
        raise ModelUnavailable(f"{FILES.package}: no float16 tensor {TENSOR} in its weights")
    tokenizer = Tokenizer.from_str(model.tokenizer_json)
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return Model(table=table, tokenizer=tokenizer, digest=model.digest)
