"""A snapshot's identity: corpus_id over its content, and each passage's digests within it.

Both snapshot formats (the JSON file and the built directory) and the builder compute identity
here, so a passage's id, text digest and revision are derived one way wherever they are checked.
"""

from . import digests
from .model import BM25, DEFAULT_COLLECTION, SCHEMA_VERSION, SNAPSHOT_FORMAT, TOKENIZER, Passage
from .notes import notes_from_content
from .ranking import IndexFields

# A passage's content as corpus_id covers it (besides its text's digest); `collection` is present
# only for a collection other than DEFAULT_COLLECTION, so single-collection snapshots keep their
# identity.
PASSAGE_CONTENT = ("source_id", "version", "url", "start_line", "end_line", "text", "source_sha256")


def compute_corpus_id(passages_content, policy_raw, schema_version=SCHEMA_VERSION,
                      tokenizer=TOKENIZER) -> str:
    """Return corpus_id = digests.corpus_id(identity_content(...)), streamed passage by passage.

    The canonical JSON of the identity is produced piece by piece in its sorted key order, so a
    corpus of any size is identified without holding its serialization in memory.
    """
    canonical = digests.canonical_json
    h = digests.tagged_hasher("corpus")
    h.update(b'{"bm25":' + canonical(BM25) + b',"format":' + canonical(SNAPSHOT_FORMAT)
             + b',"passages":[')
    for position, content in enumerate(passages_content):
        if position:
            h.update(b",")
        h.update(canonical(dict(content, text_sha256=digests.text_sha256(content["text"]))))
    h.update(b'],"policy":' + canonical(policy_raw) + b',"schema_version":'
             + canonical(schema_version) + b',"tokenizer":' + canonical(tokenizer) + b"}")
    return h.hexdigest()


def identity_content(passages_content, policy_raw, schema_version=SCHEMA_VERSION,
                     tokenizer=TOKENIZER) -> dict:
    """Return what corpus_id is computed over: passage content in order, BM25 setup and policy."""
    return {
        "format": SNAPSHOT_FORMAT,
        "schema_version": schema_version,
        "tokenizer": tokenizer,
        "bm25": BM25,
        "passages": [
            dict(content, text_sha256=digests.text_sha256(content["text"]))
            for content in passages_content
        ],
        "policy": policy_raw,
    }


def collection_of(content) -> str:
    """Return the collection a passage's content belongs to."""
    return content.get("collection", DEFAULT_COLLECTION)


def collection_corpus_ids(contents, policy_raw, **identity) -> dict:
    """Return {collection: corpus_id over that collection's passages alone, in snapshot order}."""
    groups: dict[str, list] = {}
    for content in contents:
        groups.setdefault(collection_of(content), []).append(content)
    return {name: compute_corpus_id(group, policy_raw, **identity)
            for name, group in sorted(groups.items())}


def derive_passage(corpus, content) -> Passage:
    """Complete a passage's content with its digests within its collection's corpus."""
    text_digest = digests.text_sha256(content["text"])
    return Passage(
        passage_id=digests.passage_id(
            corpus, content["source_id"], content["version"], content["start_line"],
            content["end_line"], text_digest,
        ),
        source_id=content["source_id"],
        version=content["version"],
        url=content["url"],
        start_line=content["start_line"],
        end_line=content["end_line"],
        text=content["text"],
        text_sha256=text_digest,
        source_sha256=content["source_sha256"],
        document_revision=digests.document_revision(
            content["source_id"], content["version"], content["source_sha256"]),
        byte_count=len(content["text"].encode("utf-8")),
        collection=collection_of(content),
        title=content.get("title"),
        flags=tuple(content.get("flags", ())),
        index=IndexFields.from_content(content, "passage") if "fields" in content else None,
        notes=notes_from_content(content, "passage"),
    )
