"""The JSON snapshot file (schema 1): validated with every digest recomputed, or sealed.

Every digest a snapshot file carries is recomputed on load, so a snapshot that was edited by hand
(one byte of text, one rule) is refused with a message naming the field, instead of being served
under an identity it no longer has.
"""

from dataclasses import replace

from . import checks, digests
from .flags import text_flags
from .identity import (
    PASSAGE_CONTENT,
    collection_corpus_ids,
    collection_of,
    compute_corpus_id,
    derive_passage,
)
from .model import (
    BM25,
    COLLECTION_PATTERN,
    DEFAULT_COLLECTION,
    SCHEMA_VERSION,
    SNAPSHOT_FORMAT,
    TOKENIZER,
    VERSION_PATTERN,
    VERSION_SHAPE,
    Collection,
    Snapshot,
    summarize_versions,
)
from .policy_format import Policy

# Absent means DEFAULT_COLLECTION: the single-collection snapshots of schema 1 keep their identity.
_PASSAGE_OPTIONAL = ("collection",)


def _passage_content(raw, where: str) -> dict:
    checks.json_object(raw, where, PASSAGE_CONTENT + ("passage_id", "text_sha256"),
                       _PASSAGE_OPTIONAL)
    version = checks.string(raw["version"], f"{where}.version")
    if not VERSION_PATTERN.fullmatch(version):
        checks.fail(f"{where}.version", f"must be {VERSION_SHAPE}")
    start = checks.integer(raw["start_line"], f"{where}.start_line", 1)
    end = checks.integer(raw["end_line"], f"{where}.end_line", start)
    content: dict = {}
    if "collection" in raw:
        collection = raw["collection"]
        if not isinstance(collection, str) or not COLLECTION_PATTERN.fullmatch(collection):
            checks.fail(f"{where}.collection", f"must match {COLLECTION_PATTERN.pattern}")
        # One spelling per identity: the default collection is the absence of the field.
        if collection == DEFAULT_COLLECTION:
            checks.fail(f"{where}.collection", f"omit it for the {DEFAULT_COLLECTION!r} collection")
        content["collection"] = collection
    return content | {
        "source_id": checks.string(raw["source_id"], f"{where}.source_id"),
        "version": version,
        "url": checks.string(raw["url"], f"{where}.url"),
        "start_line": start,
        "end_line": end,
        "text": checks.string(raw["text"], f"{where}.text"),
        "source_sha256": checks.digest(raw["source_sha256"], f"{where}.source_sha256"),
    }


def seal_snapshot(document: dict) -> dict:
    """Fill in every digest of a snapshot document (corpus_id, text_sha256, passage_id)."""
    checks.json_object(document, "snapshot", ("passages", "policy"),
                       ("format", "schema_version", "tokenizer", "bm25", "corpus_id"))
    contents = []
    for i, raw in enumerate(document["passages"]):
        raw = {key: raw[key] for key in PASSAGE_CONTENT + _PASSAGE_OPTIONAL if key in raw}
        raw.update(passage_id="0" * 64, text_sha256="0" * 64)
        contents.append(_passage_content(raw, f"passages[{i}]"))
    Policy.parse(document["policy"])  # refused here, before it is sealed into corpus_id
    corpus = compute_corpus_id(contents, document["policy"])
    collection_ids = collection_corpus_ids(contents, document["policy"])
    sealed_passages = []
    for content in contents:
        passage = derive_passage(collection_ids[collection_of(content)], content)
        sealed_passages.append({
            "passage_id": passage.passage_id, **content, "text_sha256": passage.text_sha256,
        })
    return {
        "format": SNAPSHOT_FORMAT,
        "schema_version": SCHEMA_VERSION,
        "corpus_id": corpus,
        "tokenizer": TOKENIZER,
        "bm25": BM25,
        "policy": document["policy"],
        "passages": sealed_passages,
    }


def parse_snapshot(document) -> Snapshot:
    """Validate a decoded snapshot document and recompute every digest it claims."""
    checks.json_object(document, "snapshot", ("format", "schema_version", "corpus_id", "tokenizer",
                                              "bm25", "policy", "passages"))
    if document["format"] != SNAPSHOT_FORMAT:
        checks.fail("format", f"must be {SNAPSHOT_FORMAT!r}")
    if document["schema_version"] != SCHEMA_VERSION or isinstance(document["schema_version"], bool):
        checks.fail("schema_version", f"unsupported (this build reads {SCHEMA_VERSION})")
    if document["tokenizer"] != TOKENIZER:
        checks.fail("tokenizer", f"must be {TOKENIZER!r}")
    if document["bm25"] != BM25:
        checks.fail("bm25", f"must be {BM25} (FTS5's built-in constants)")
    claimed_corpus = checks.digest(document["corpus_id"], "corpus_id")
    policy = Policy.parse(document["policy"])
    if policy.ranking is not None:
        checks.fail("policy.ranking",
                    "fielded ranking needs a built snapshot directory")
    if not isinstance(document["passages"], list) or not document["passages"]:
        checks.fail("passages", "must be a non-empty list")

    contents = []
    for i, raw in enumerate(document["passages"]):
        where = f"passages[{i}]"
        content = _passage_content(raw, where)
        checks.digest(raw["passage_id"], f"{where}.passage_id")
        claimed_text = checks.digest(raw["text_sha256"], f"{where}.text_sha256")
        if claimed_text != digests.text_sha256(content["text"]):
            checks.fail(f"{where}.text_sha256", "does not match the passage text")
        contents.append(content)

    corpus = compute_corpus_id(contents, document["policy"])
    if corpus != claimed_corpus:
        checks.fail("corpus_id", f"does not match the content (content digests to {corpus})")
    collection_ids = collection_corpus_ids(contents, document["policy"])

    passages = []
    seen_ids: dict = {}
    source_digests: dict = {}
    for i, (raw, content) in enumerate(zip(document["passages"], contents, strict=True)):
        where = f"passages[{i}]"
        # A JSON snapshot stores no flags: they are its text's, found as it is loaded.
        passage = replace(derive_passage(collection_ids[collection_of(content)], content),
                          flags=text_flags(content["text"]))
        if raw["passage_id"] != passage.passage_id:
            checks.fail(f"{where}.passage_id", "does not match the passage content")
        if passage.passage_id in seen_ids:
            checks.fail(f"{where}.passage_id",
                        f"duplicates passages[{seen_ids[passage.passage_id]}]")
        seen_ids[passage.passage_id] = i
        source_key = (passage.collection, passage.source_id, passage.version)
        if source_digests.setdefault(source_key, passage.source_sha256) != passage.source_sha256:
            checks.fail(f"{where}.source_sha256",
                        f"differs from an earlier passage of source {passage.source_id!r} "
                        f"{passage.version}")
        passages.append(passage)
    collections = {
        name: Collection(name, collection_id, summarize_versions(
            (p.version, p.source_id, 1) for p in passages if p.collection == name))
        for name, collection_id in collection_ids.items()
    }
    return Snapshot(corpus_id=corpus, passages=tuple(passages), policy=policy,
                    collections=collections)
