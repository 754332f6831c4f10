"""`retrieval build`: documentation trees in, a snapshot directory (manifest + SQLite) out.

Each tree is read by its format (formats/: a Sphinx site, a rendered site, an llms.txt tree, an
MkDocs project's Markdown, a fetched package, any other tree of reST, Markdown and text), and a
tree whose input cannot be read is skipped, reported and counted (formats.read_trees); the
units of every tree are then embedded (`--semantic`) and written as one snapshot directory
(core/snapshot_directory.py).
"""

import time
from pathlib import Path
from typing import Any

from ..core.ranking import EMBEDS_QUERY
from ..core.snapshot import Policy, SnapshotError
from ..core.snapshot_directory import refuse_existing, vector_content, write_snapshot_directory
from .default_policy import (
    DEFAULT_CANDIDATES,
    DEFAULT_DENSE,
    DEFAULT_POLICY,
    DEFAULT_STOP_WORDS,
    MODEL_WEIGHTS,
    RANKINGS,
    default_policy,
)
from .formats import CHOICES, read_passage_contents, read_trees
from .tree import Progress, SourceTree
from .unit import merge_same_passages
from .vector_cache import cached_vectors

# The names the command line and the tests import from here, wherever they are defined.
__all__ = [
    "DEFAULT_CANDIDATES", "DEFAULT_POLICY", "DEFAULT_STOP_WORDS", "FORMATS", "MODEL_WEIGHTS",
    "RANKINGS", "Progress", "SourceTree", "build_snapshot", "default_policy",
    "read_passage_contents", "semantic_policy",
]

# `--format`'s choices (the command line imports them from here): formats.CHOICES.
FORMATS = CHOICES


def semantic_policy(policy: dict, semantic, model) -> dict:
    """Return the policy with its semantic section naming the model that computes the vectors.

    Weight, candidates, dense, literals_weight and embeds come from the policy's own semantic
    section when it has one; dense and literals_weight are written only when they are not 0,
    embeds only when it is not "query". A policy whose ranking model is the default's gets the
    model's ranking_fit instead when it has one: weights fitted with its cosine, and the
    re-rank weights (and what its searches embed) fitted with them (a policy's own weights are
    its own: kept).
    """
    given = policy.get("semantic")
    given = given if isinstance(given, dict) else {}  # anything else: parse_policy names it
    weight, literals_weight, embeds = model.default_weight, 0, EMBEDS_QUERY
    ranking = policy.get("ranking")
    fit = model.ranking_fit
    if fit is not None and isinstance(ranking, dict) and \
            ranking.get("model") == DEFAULT_POLICY["ranking"]["model"]:
        policy = dict(policy, ranking=dict(ranking, model=fit["model"]))
        weight = fit["semantic_weight"]
        literals_weight = fit.get("semantic_literals_weight", 0)
        embeds = fit.get("semantic_embeds", EMBEDS_QUERY)
    tuning = {"weight": given.get("weight", weight),
              "candidates": given.get("candidates", DEFAULT_CANDIDATES)}
    literals_weight = given.get("literals_weight", literals_weight)
    if literals_weight != 0:
        tuning["literals_weight"] = literals_weight
    dense = given.get("dense", DEFAULT_DENSE)
    if dense != 0:
        tuning["dense"] = dense
    embeds = given.get("embeds", embeds)
    if embeds != EMBEDS_QUERY:
        tuning["embeds"] = embeds
    return dict(policy, semantic={"model_sha256": model.digest, "recipe": model.recipe,
                                  "dimensions": model.dim, **tuning})


# Texts embedded per call, and the least time between two lines saying how far it has come: a
# large project's first build embeds for minutes (35k units, 10 on 2 cores), which a user must
# not take for a hang. The model embeds a text to the same bytes alone or among others, so the
# slices change no vector; each costs only its own last partial batches (minilm groups texts
# of one token count), few beside thousands of texts.
EMBED_SLICE = 8192
EMBED_SAID_EVERY_S = 30.0


def _embedded(semantic, model, texts: list, progress) -> list:
    """Return each text's vector bytes, embedded a slice at a time, saying how far it is."""
    vectors: list = []
    start = said = time.monotonic()
    for first in range(0, len(texts), EMBED_SLICE):
        vectors.extend(semantic.vector_bytes(model.embed(texts[first:first + EMBED_SLICE])))
        now = time.monotonic()
        if len(vectors) < len(texts) and now - said >= EMBED_SAID_EVERY_S:
            said = now
            progress.note(f"embedded {len(vectors)} of {len(texts)} texts, "
                          f"{len(vectors) / max(now - start, 1e-9):.0f} texts/s")
    return vectors


def _embed(semantic, model, units, progress, vector_cache: str | None) -> list:
    """Return each unit's vector bytes (those of texts vector_cache holds read from it)."""
    texts = [semantic.document_text(unit.content["fields"]["names"], unit.heading,
                                    unit.content["fields"]["body"]) for unit in units]
    if vector_cache is None:
        progress.note(f"embedding {len(units)} units (model sha256 {model.digest[:12]})")
        return _embedded(semantic, model, texts, progress)

    def embed(missing: list) -> list:
        # The cache embeds each distinct text once: of units with the same text (a docstring
        # re-exported under two names), all but one are neither embedded nor from the cache.
        distinct = len(set(texts))
        progress.note(f"embedding {len(missing)} of {len(units)} units' {distinct} distinct "
                      f"texts, {distinct - len(missing)} from the vector cache (model sha256 "
                      f"{model.digest[:12]})")
        return _embedded(semantic, model, missing, progress)

    vectors, _ = cached_vectors(vector_cache, model, texts, embed)
    return vectors


def build_snapshot(trees, out_dir, policy=None, progress=None,
                   semantic: tuple[Any, Any] | None = None,
                   default_collection: str | None = None, read=read_trees,
                   vector_cache: str | None = None) -> dict:
    """Build a snapshot directory from documentation trees; return its manifest.

    semantic: (the semantic module, its loaded model) from load_semantic, to store a vector per
    unit and re-rank with them (`--semantic`); None builds a lexical snapshot.
    default_collection: the collection requests that name none read (one of the trees').
    read: (trees sorted by collection and version, progress) -> their drafts in that order;
    formats.read_trees, or drafts read before (`retrieval project`'s cached collections).
    vector_cache: a folder where vectors are kept by text and model (vector_cache.py), or None.
    """
    built = sorted({tree.collection for tree in trees})
    if default_collection is not None and default_collection not in built:
        raise SnapshotError(f"--default-collection {default_collection}: no --source builds it "
                            f"(the collections: {', '.join(built)})")
    policy = DEFAULT_POLICY if policy is None else policy
    if semantic is not None:
        policy = semantic_policy(policy, *semantic)
    elif "semantic" in policy:
        raise SnapshotError("policy: a semantic section needs a --semantic build")
    Policy.parse(policy).built_ranking()  # refuse a bad policy before any work
    refuse_existing(Path(out_dir))
    progress = progress or Progress()
    labels = [tree.label for tree in trees]
    if len(set(labels)) != len(labels):
        raise SnapshotError("each version of a collection may be given once")
    # A tree its input makes unreadable is skipped (formats.UNREADABLE); lines documented under
    # several names (`a = b = None` and its docstring) are one passage.
    units = merge_same_passages(read(
        sorted(trees, key=lambda t: (t.collection, t.version)), progress))
    if not units:
        raise SnapshotError("no passages: the sources hold no supported, readable files")
    vectors = None if semantic is None else _embed(*semantic, units, progress, vector_cache)
    contents = [unit.content for unit in units]
    if vectors is not None:  # a unit's vector is part of its content (its digest): corpus_id
        contents = [content | vector_content(vector)  # covers it
                    for content, vector in zip(contents, vectors, strict=True)]
    manifest = write_snapshot_directory(
        out_dir, contents, policy,
        {(tree.collection, tree.version): tree.base_url for tree in trees}, vectors,
        default_collection, {tree.label: tree.provenance for tree in trees if tree.provenance})
    progress.done(len(contents), manifest["corpus_id"])
    return manifest
