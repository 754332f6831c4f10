"""How much faster MiniLM's dense products run as 8-bit integers than numpy's float32, one core.

Issue 28 asks for a build of the 3.11 docs with the recommended ranking (all-MiniLM-L6-v2) in
60 s on 2 cores. Most of the build is the encoder's dense products, in float32 through numpy's
BLAS. The one cheaper arithmetic this CPU family offers them is 8-bit integers (AVX2, no VNNI):
this times ONNX Runtime's MatMulInteger at the encoder's weight shapes against numpy's float32
matmul at the build's block size, checks which integer forms are exact (the same bytes as an
exact int64 product, so no neighbour could change a row), and estimates by Amdahl's law what the
whole embedding would take with every product at the integer rate (`embed()` on generated texts
of about the 3.11 docs' mean length, the rest of its time unchanged), and what the products alone
would take: a floor that no work on the rest could go below.

Needs the semantic extra and ONNX Runtime (`pip install '.[semantic]' onnxruntime onnx`), which
retrieval itself never imports. A finished experiment: it answered no (quality/LOG.md,
"Where the cost targets stand on 2 cores", has the figures), and is kept runnable from the
repository's root:

    python quality/experiments/int8_products.py
"""

import argparse
import os
import sys
import time

import numpy as np
import onnxruntime
from onnx import TensorProto, helper, numpy_helper
from threadpoolctl import threadpool_limits

# `python quality/experiments/int8_products.py` puts its own folder on sys.path, not the root.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from retrieval.rerank import minilm  # noqa: E402

# (in, out) of the encoder's dense weights: query/key/value/output, intermediate, output.
SHAPES = ((minilm.WIDTH, minilm.WIDTH), (minilm.WIDTH, 4 * minilm.WIDTH),
          (4 * minilm.WIDTH, minilm.WIDTH))
# Each product's share of a layer's arithmetic: four 384x384, one 384x1536, one 1536x384.
PER_LAYER = (4, 1, 1)
INTEGER_FORMS = {"u8 x s8": (TensorProto.UINT8, np.uint8, TensorProto.INT8, np.int8),
                 "u8 x u8": (TensorProto.UINT8, np.uint8, TensorProto.UINT8, np.uint8),
                 "s8 x s8": (TensorProto.INT8, np.int8, TensorProto.INT8, np.int8)}
WORDS = ("return the value of a file object when the path names a directory that holds the "
         "module's data and raise an error if the argument is not a string or bytes").split()


def median_seconds(function, repeats: int) -> float:
    """Return the median of `repeats` timings of function(), after one untimed call."""
    function()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def integer_session(weight, a_type, b_type):
    """Return an ONNX Runtime session of one MatMulInteger by `weight`, on one thread."""
    graph = helper.make_graph(
        [helper.make_node("MatMulInteger", ["A", "B"], ["Y"])], "product",
        [helper.make_tensor_value_info("A", a_type, ["rows", weight.shape[0]])],
        [helper.make_tensor_value_info("Y", TensorProto.INT32, ["rows", weight.shape[1]])],
        [numpy_helper.from_array(weight, "B")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return onnxruntime.InferenceSession(model.SerializeToString(), options,
                                        providers=["CPUExecutionProvider"])


def integers(rng, shape, dtype):
    """Return uniform random integers over dtype's whole range (-127 to 127 when signed)."""
    low, high = (-127, 128) if dtype == np.int8 else (0, 256)
    return rng.integers(low, high, shape).astype(dtype)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=192, help="rows a product (the build's block)")
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--texts", type=int, default=1000, help="texts embed() is timed on")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    rates: dict = {"float32": []}
    print(f"one thread, {args.rows} rows a product; GFLOP/s (2 x multiply-adds), median of "
          f"{args.repeats}")
    for shape in SHAPES:
        flop = 2 * args.rows * shape[0] * shape[1]
        rows = rng.standard_normal((args.rows, shape[0])).astype(np.float32)
        weight = rng.standard_normal(shape).astype(np.float32)
        with threadpool_limits(limits=1, user_api="blas"):
            seconds = median_seconds(lambda rows=rows, weight=weight: rows @ weight,
                                   args.repeats)
        rates["float32"].append(flop / seconds / 1e9)
        line = [f"{shape[0]}x{shape[1]}: float32 {rates['float32'][-1]:.0f}"]
        for name, (a_type, a_dtype, b_type, b_dtype) in INTEGER_FORMS.items():
            a, b = integers(rng, (args.rows, shape[0]), a_dtype), integers(rng, shape, b_dtype)
            session = integer_session(b, a_type, b_type)
            product = session.run(None, {"A": a})[0]
            exact = bool((product == a.astype(np.int64) @ b.astype(np.int64)).all())
            seconds = median_seconds(lambda session=session, a=a: session.run(None, {"A": a}),
                                   args.repeats)
            rates.setdefault(name, []).append(flop / seconds / 1e9)
            line.append(f"{name} {rates[name][-1]:.0f}{'' if exact else ' (not exact)'}")
        print("  " + ", ".join(line))
    weights = np.array(PER_LAYER) * [shape[0] * shape[1] for shape in SHAPES]

    def layer_rate(name):  # the arithmetic's rate over one layer's mix of products
        return float(weights.sum() / (weights / np.array(rates[name])).sum())

    model = minilm.load_model()
    texts = [" ".join(WORDS[(i * 7 + j) % len(WORDS)] for j in range(3 + i % 40))
             for i in range(args.texts)]
    tokens = sum(minilm._padded(len(encoding.ids), model.period)
                 for encoding in model.tokenizer.encode_batch(texts))
    start = time.perf_counter()
    model.embed(texts)
    seconds = time.perf_counter() - start
    cores = minilm._cores()
    flop = 2 * tokens * minilm.LAYERS * int(weights.sum())
    products = flop / (layer_rate("float32") * 1e9 * cores)
    print(f"embed(): {args.texts} texts, {tokens} padded tokens, {seconds:.2f} s on {cores} "
          f"core(s); the float32 products at the rate above {products:.2f} s "
          f"({100 * products / seconds:.0f} %)")
    for name in INTEGER_FORMS:
        ratio = layer_rate(name) / layer_rate("float32")
        estimate = seconds - products + products / ratio
        print(f"  every product {name}: {ratio:.2f}x the float32 rate, embed() at best "
              f"{estimate:.2f} s ({seconds / estimate:.2f}x faster); the products alone "
              f"{products / ratio:.2f} s ({100 * products / ratio / seconds:.0f} %)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
