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
# The re-rank weight chosen on CoNaLa train (bench/README.md): score - 20 x cosine.
WEIGHT = 20


@dataclass(frozen=True)
class Model:
    """The bundled token table and tokenizer, and the digest that names them."""

    table: np.ndarray  # float16 (vocab, dim), a view of the weights file's bytes
    tokenizer: Tokenizer
    digest: str  # sha256 over the weights file's bytes, then the tokenizer file's bytes
    recipe: str = RECIPE
    default_weight: float = WEIGHT
    ranking_fit: None = None  # none fitted with its cosine: the lexical fit's weights serve

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
