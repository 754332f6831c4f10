"""Canonical JSON and every SHA-256 identifier the service issues, defined in one place.

Each identifier is SHA-256 over a domain tag, a newline, and the canonical JSON of its inputs. The
tag keeps identifiers of different kinds apart: a passage id can never equal a read token even if
their inputs happened to serialize alike.
"""

import hashlib
import json

_canonical_encoder = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)


_compact_encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def compact_json_text(value) -> str:
    """Serialize a JSON value the way responses are sent: compact, key order kept, no escapes."""
    return _compact_encoder.encode(value)


def canonical_json(value) -> bytes:
    """Serialize a JSON value canonically: sorted keys, no spaces, UTF-8, no NaN."""
    return _canonical_encoder.encode(value).encode("utf-8")


# CPython's hashlib releases the GIL while hashing 2,048 bytes or more (HASHLIB_GIL_MINSIZE). For a
# response-sized input that buys nothing (a few microseconds of hashing) and costs a GIL handoff:
# under Waitress the I/O thread takes the interpreter and the worker waits to get it back.
# Measured with bench/run_ceiling.py --threads 1: 0.65 of the ceiling without chunking, 0.69-0.78
# with it. Feeding the hash in smaller pieces keeps the GIL; the digest is the same.
_GIL_HELD_CHUNK = 2047


def _update(h, data: bytes):
    if len(data) <= _GIL_HELD_CHUNK:
        h.update(data)
        return
    view = memoryview(data)
    for start in range(0, len(data), _GIL_HELD_CHUNK):
        h.update(view[start:start + _GIL_HELD_CHUNK])


def sha256_hex(data: bytes) -> str:
    """Return the hex SHA-256 of raw bytes."""
    h = hashlib.sha256()
    _update(h, data)
    return h.hexdigest()


def tagged_hasher(tag: str):
    """Return a SHA-256 object already fed the domain tag, for inputs streamed piece by piece."""
    return hashlib.sha256(b"retrieval/v1/" + tag.encode("ascii") + b"\n")


def tagged_digest(tag: str, inputs) -> str:
    """Return SHA-256 over a domain tag and the canonical JSON of the inputs."""
    h = tagged_hasher(tag)
    _update(h, canonical_json(inputs))
    return h.hexdigest()


def text_sha256(text: str) -> str:
    """Digest a passage's text bytes."""
    return sha256_hex(text.encode("utf-8"))


def corpus_id(content) -> str:
    """Identify a snapshot by its canonical content (passages, BM25 settings and policy)."""
    return tagged_digest("corpus", content)


def document_revision(source_id: str, version: str, source_sha256: str) -> str:
    """Bind a source document's identity to its exact bytes."""
    return tagged_digest(
        "document_revision",
        {"source_id": source_id, "version": version, "source_sha256": source_sha256},
    )


def passage_id(corpus: str, source_id: str, version: str, start_line: int, end_line: int,
               text_digest: str) -> str:
    """Identify a passage inside one corpus."""
    return tagged_digest("passage", {
        "corpus_id": corpus, "source_id": source_id, "version": version,
        "start_line": start_line, "end_line": end_line, "text_sha256": text_digest,
    })


def search_request_id(corpus: str, arguments: dict) -> str:
    """Identify one search call by its traced arguments (SearchCall.traced: each one absent
    at its default, so the ids of searches without it stay what they always were); equal calls
    on one corpus get equal ids."""
    return tagged_digest("search_request", {"corpus_id": corpus, **arguments})


def read_token(search_request: str, passage: str) -> str:
    """Issue the token that lets a read of this passage trace back to the search that found it."""
    return tagged_digest("read_token", {"search_request_id": search_request, "passage_id": passage})


def read_request_id(token: str) -> str:
    """Identify one read call by the token it presented."""
    return tagged_digest("read_request", {"read_token": token})


def read_result_sha256(result_without_digest: dict) -> str:
    """Digest a read result (every field except result_sha256 itself)."""
    return tagged_digest("read_result", result_without_digest)


def request_id(corpus: str, normalized_request: dict) -> str:
    """Bind a normalized request to the corpus it runs on."""
    return tagged_digest("request", {"corpus_id": corpus, "request": normalized_request})


# A /retrieve body ends with this member; its digest covers the exact bytes before it.
_RESULT_MEMBER_PREFIX = b',"result_sha256":"'


def response_result_sha256(body_without_member: bytes) -> str:
    """Digest a /retrieve body as sent, serialized without its final result_sha256 member.

    Unlike the other ids this covers bytes, not canonical JSON: a client in any language can
    verify it from the raw body alone (drop the last member, hash), with no need to reproduce
    Python's float formatting, and the server serializes each body once.
    """
    h = hashlib.sha256(b"retrieval/v1/retrieve_response\n")
    _update(h, body_without_member)
    return h.hexdigest()


def append_result_sha256(body_without_member: bytes) -> bytes:
    """Close a serialized body (ending in `}`) with its result_sha256 member."""
    digest = response_result_sha256(body_without_member).encode("ascii")
    return body_without_member[:-1] + _RESULT_MEMBER_PREFIX + digest + b'"}'


def split_result_sha256(body: bytes):
    """Return (body without its result_sha256 member, claimed digest), or None if it has none."""
    head, member, tail = body.rpartition(_RESULT_MEMBER_PREFIX)
    if not member or len(tail) != 66 or not tail.endswith(b'"}'):
        return None
    return head + b"}", tail[:64].decode("ascii", errors="replace")
