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
# snapshots: its nearest units stay at the floor; docs/corpora.md).
RANKING_FIT = {
    "model": {"candidates": 100, "weights": {
        "bm25_names": -0.008143, "bm25_name": 0.02018, "bm25_signature": 0.1058,
        "bm25_summary": 0.1399, "bm25_body": -0.1268, "bm25_code": -0.03756,
        "bm25_context": 0.08845, "bm25_all": -0.1836, "in_links": 0.28, "kind_function": 0.1259,
        "kind_method": -0.4943, "kind_class": -0.3312, "kind_exception": -2.634,
        "kind_attribute": -1.631, "kind_data": -1.358, "non_reference_page": 0.5183,
        "noindex": -1.085, "release_notes": -2.309, "fielded_rank": -0.2722, "plain_rank": -0.3813,
        "literals_bm25_names": -0.0328, "literals_bm25_name": -0.08302,
        "literals_bm25_signature": -0.1321, "literals_bm25_summary": -0.01828,
        "literals_bm25_body": 0.05936, "literals_bm25_code": 0.05784,
        "literals_bm25_context": 0.02729, "literals_bm25_all": 0.07438,
        "literals_in_links": 0.4865, "literals_kind_function": 0.6142,
        "literals_kind_method": 0.9648, "literals_kind_class": 0.2176,
        "literals_kind_exception": 2.155, "literals_kind_attribute": -0.6667,
        "literals_kind_data": -0.7582, "literals_non_reference_page": -0.5586,
        "literals_noindex": -0.7881, "literals_release_notes": -0.1211,
        "literals_fielded_rank": -0.0937, "literals_plain_rank": 0.3221}},
    "semantic_weight": 5.673,
    "semantic_literals_weight": 2.233,
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
