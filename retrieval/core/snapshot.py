"""The pinned corpus: passages plus the query policy, loaded, validated and identified.

A snapshot file is JSON. Every digest it carries is recomputed on load, so a snapshot that was edited
by hand (one byte of text, one rule) is refused with a message naming the field, instead of being
served under an identity it no longer has.
"""

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from . import digests
from .strict_json import StrictJSONError, loads_strict

SNAPSHOT_FORMAT = "retrieval-snapshot"
SCHEMA_VERSION = 1
# FTS5's bm25() has these constants built in; the snapshot records them so that its identity says
# which ranking function produced its scores.
BM25 = {"k1": 1.2, "b": 0.75}
TOKENIZER = "unicode61"
VERSION_PATTERN = re.compile(r"[0-9]{1,3}\.[0-9]{1,3}")
_HEX64 = re.compile(r"[0-9a-f]{64}")


class SnapshotError(ValueError):
    """A snapshot file is missing, malformed, or does not match its own digests."""


@dataclass(frozen=True)
class Passage:
    """One paragraph of one documentation source, with its provenance and digests."""

    passage_id: str
    source_id: str
    version: str
    url: str
    start_line: int
    end_line: int
    text: str
    text_sha256: str
    source_sha256: str
    document_revision: str
    byte_count: int


@dataclass(frozen=True)
class Rule:
    """A scripted query plan chosen by phrases in the question."""

    name: str
    phrases: tuple
    initial_query: str
    refinement_query: Optional[str]
    required_marker: Optional[str]
    max_rounds: int

    def matches(self, folded_question: str) -> bool:
        """Tell whether the case-folded question contains any of this rule's phrases."""
        return any(phrase in folded_question for phrase in self.phrases)

    def describe(self) -> dict:
        """Return the rule as the response's `policy` section shows it."""
        return {
            "name": self.name,
            "initial_query": self.initial_query,
            "refinement_query": self.refinement_query,
            "required_marker": self.required_marker,
            "max_rounds": self.max_rounds,
        }


@dataclass(frozen=True)
class Snapshot:
    """An immutable, identified corpus and its policy."""

    corpus_id: str
    passages: tuple
    rules: tuple
    fallback: Rule
    # Built snapshots keep their passages in this SQLite file instead of `passages`.
    database_path: Optional[str] = None

    def select_rule(self, question: str) -> Rule:
        """Return the first rule whose phrase occurs in the question, else the fallback."""
        folded = question.casefold()
        for rule in self.rules:
            if rule.matches(folded):
                return rule
        return self.fallback


# --- schema checks -----------------------------------------------------------------------------

def _fail(where, message):
    raise SnapshotError(f"{where}: {message}")


def _object(value, where, required, optional=()):
    if not isinstance(value, dict):
        _fail(where, "must be an object")
    for key in required:
        if key not in value:
            _fail(where, f"missing field {key!r}")
    unknown = [key for key in value if key not in required and key not in optional]
    if unknown:
        _fail(where, f"unknown field {unknown[0]!r}")
    return value


def _string(value, where, *, allow_none=False, non_empty=True):
    if value is None and allow_none:
        return None
    if not isinstance(value, str) or (non_empty and not value.strip()):
        _fail(where, "must be a non-empty string" + (" or null" if allow_none else ""))
    return value


def _integer(value, where, minimum):
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        _fail(where, f"must be an integer >= {minimum}")
    return value


def _digest(value, where):
    if not isinstance(value, str) or not _HEX64.fullmatch(value):
        _fail(where, "must be 64 lowercase hex digits")
    return value


_PASSAGE_CONTENT = ("source_id", "version", "url", "start_line", "end_line", "text", "source_sha256")
_RULE_FIELDS = ("name", "phrases", "initial_query", "refinement_query", "required_marker", "max_rounds")


def _rule(raw, where, *, fallback=False):
    _object(raw, where, _RULE_FIELDS)
    phrases = raw["phrases"]
    if not isinstance(phrases, list) or (not fallback and not phrases):
        _fail(f"{where}.phrases", "must be a non-empty list" if not fallback else "must be a list")
    if fallback and phrases:
        _fail(f"{where}.phrases", "must be empty: the fallback applies when no rule matches")
    for i, phrase in enumerate(phrases):
        _string(phrase, f"{where}.phrases[{i}]")
        if phrase != phrase.casefold():
            _fail(f"{where}.phrases[{i}]", "must be case-folded (questions are compared case-folded)")
    return Rule(
        name=_string(raw["name"], f"{where}.name"),
        phrases=tuple(phrases),
        initial_query=_string(raw["initial_query"], f"{where}.initial_query"),
        refinement_query=_string(raw["refinement_query"], f"{where}.refinement_query", allow_none=True),
        required_marker=_string(raw["required_marker"], f"{where}.required_marker", allow_none=True),
        max_rounds=_integer(raw["max_rounds"], f"{where}.max_rounds", 1),
    )


def _policy(raw):
    _object(raw, "policy", ("rules", "fallback"))
    if not isinstance(raw["rules"], list):
        _fail("policy.rules", "must be a list")
    rules = tuple(_rule(r, f"policy.rules[{i}]") for i, r in enumerate(raw["rules"]))
    fallback = _rule(raw["fallback"], "policy.fallback", fallback=True)
    names = [rule.name for rule in rules] + [fallback.name]
    for name in names:
        if names.count(name) > 1:
            _fail("policy", f"duplicate rule name {name!r}")
    return rules, fallback


def _passage_content(raw, where):
    _object(raw, where, _PASSAGE_CONTENT + ("passage_id", "text_sha256"))
    version = _string(raw["version"], f"{where}.version")
    if not VERSION_PATTERN.fullmatch(version):
        _fail(f"{where}.version", "must be two dot-separated runs of 1-3 digits")
    start = _integer(raw["start_line"], f"{where}.start_line", 1)
    end = _integer(raw["end_line"], f"{where}.end_line", start)
    return {
        "source_id": _string(raw["source_id"], f"{where}.source_id"),
        "version": version,
        "url": _string(raw["url"], f"{where}.url"),
        "start_line": start,
        "end_line": end,
        "text": _string(raw["text"], f"{where}.text"),
        "source_sha256": _digest(raw["source_sha256"], f"{where}.source_sha256"),
    }


def identity_content(passages_content, policy_raw) -> dict:
    """Return what corpus_id is computed over: passage content in order, BM25 setup and policy."""
    return {
        "format": SNAPSHOT_FORMAT,
        "schema_version": SCHEMA_VERSION,
        "tokenizer": TOKENIZER,
        "bm25": BM25,
        "passages": [
            dict(content, text_sha256=digests.text_sha256(content["text"]))
            for content in passages_content
        ],
        "policy": policy_raw,
    }


def _derived_passage(corpus, content):
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
    )


def seal_snapshot(document: dict) -> dict:
    """Fill in every digest of a snapshot document (corpus_id, text_sha256, passage_id)."""
    _object(document, "snapshot", ("passages", "policy"),
            ("format", "schema_version", "tokenizer", "bm25", "corpus_id"))
    contents = []
    for i, raw in enumerate(document["passages"]):
        raw = {key: raw[key] for key in _PASSAGE_CONTENT if key in raw}
        raw.update(passage_id="0" * 64, text_sha256="0" * 64)
        contents.append(_passage_content(raw, f"passages[{i}]"))
    _policy(document["policy"])
    corpus = digests.corpus_id(identity_content(contents, document["policy"]))
    sealed_passages = []
    for content in contents:
        passage = _derived_passage(corpus, content)
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
    _object(document, "snapshot",
            ("format", "schema_version", "corpus_id", "tokenizer", "bm25", "policy", "passages"))
    if document["format"] != SNAPSHOT_FORMAT:
        _fail("format", f"must be {SNAPSHOT_FORMAT!r}")
    if document["schema_version"] != SCHEMA_VERSION or isinstance(document["schema_version"], bool):
        _fail("schema_version", f"unsupported (this build reads {SCHEMA_VERSION})")
    if document["tokenizer"] != TOKENIZER:
        _fail("tokenizer", f"must be {TOKENIZER!r}")
    if document["bm25"] != BM25:
        _fail("bm25", f"must be {BM25} (FTS5's built-in constants)")
    claimed_corpus = _digest(document["corpus_id"], "corpus_id")
    rules, fallback = _policy(document["policy"])
    if not isinstance(document["passages"], list) or not document["passages"]:
        _fail("passages", "must be a non-empty list")

    contents = []
    for i, raw in enumerate(document["passages"]):
        where = f"passages[{i}]"
        content = _passage_content(raw, where)
        _digest(raw["passage_id"], f"{where}.passage_id")
        if _digest(raw["text_sha256"], f"{where}.text_sha256") != digests.text_sha256(content["text"]):
            _fail(f"{where}.text_sha256", "does not match the passage text")
        contents.append(content)

    corpus = digests.corpus_id(identity_content(contents, document["policy"]))
    if corpus != claimed_corpus:
        _fail("corpus_id", f"does not match the content (content digests to {corpus})")

    passages = []
    seen_ids = {}
    source_digests = {}
    for i, (raw, content) in enumerate(zip(document["passages"], contents)):
        where = f"passages[{i}]"
        passage = _derived_passage(corpus, content)
        if raw["passage_id"] != passage.passage_id:
            _fail(f"{where}.passage_id", "does not match the passage content")
        if passage.passage_id in seen_ids:
            _fail(f"{where}.passage_id", f"duplicates passages[{seen_ids[passage.passage_id]}]")
        seen_ids[passage.passage_id] = i
        source_key = (passage.source_id, passage.version)
        if source_digests.setdefault(source_key, passage.source_sha256) != passage.source_sha256:
            _fail(f"{where}.source_sha256",
                  f"differs from an earlier passage of source {passage.source_id!r} {passage.version}")
        passages.append(passage)
    return Snapshot(corpus_id=corpus, passages=tuple(passages), rules=rules, fallback=fallback)


def load_snapshot(path, expect_corpus_id: Optional[str] = None) -> Snapshot:
    """Read, validate and identify a snapshot file; refuse one whose identity is not the pinned one."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SnapshotError(f"{path}: cannot read snapshot: {exc.strerror or exc}") from None
    try:
        document = loads_strict(data)
    except StrictJSONError as exc:
        raise SnapshotError(f"{path}: not strict JSON: {exc}") from None
    try:
        snapshot = parse_snapshot(document)
    except SnapshotError as exc:
        raise SnapshotError(f"{path}: {exc}") from None
    if expect_corpus_id is not None and snapshot.corpus_id != expect_corpus_id:
        raise SnapshotError(
            f"{path}: corpus_id {snapshot.corpus_id} is not the expected {expect_corpus_id}")
    return snapshot


def default_snapshot_path() -> Path:
    """Locate the embedded fixture, installed beside the package or at the top of a checkout."""
    package_dir = Path(__file__).resolve().parent.parent
    for candidate in (package_dir / "snapshot.json", package_dir.parent / "snapshot.json"):
        if candidate.is_file():
            return candidate
    return package_dir / "snapshot.json"
