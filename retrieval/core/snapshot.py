"""The pinned corpus: passages plus the query policy, loaded, validated and identified.

A snapshot file is JSON. Every digest it carries is recomputed on load, so a snapshot that was edited
by hand (one byte of text, one rule) is refused with a message naming the field, instead of being
served under an identity it no longer has.
"""

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional

from . import digests
from .ranking import IndexFields, Ranking, RankingError, Semantic, parse_ranking, parse_semantic
from .strict_json import StrictJSONError, loads_strict

SNAPSHOT_FORMAT = "retrieval-snapshot"
SCHEMA_VERSION = 1
# FTS5's bm25() has these constants built in; the snapshot records them so that its identity says
# which ranking function produced its scores.
BM25 = {"k1": 1.2, "b": 0.75}
TOKENIZER = "unicode61"
# A documentation version as people write it: X.Y (3.11) or X.Y.Z (Django 3.2.25).
VERSION_PATTERN = re.compile(r"[0-9]{1,3}\.[0-9]{1,3}(?:\.[0-9]{1,3})?")
VERSION_SHAPE = "two or three dot-separated runs of 1-3 digits"
# Collection names appear in requests, keys files and SQL table names: a closed alphabet.
COLLECTION_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
# Passages that name no collection belong to this one; requests that name none read it.
DEFAULT_COLLECTION = "default"
_HEX64 = re.compile(r"[0-9a-f]{64}")


# Said wherever a path turns out not to be a snapshot at all: the usual cause is a raw docs tree.
BUILD_HINT = ("a snapshot is a JSON file or a directory made by "
              "`retrieval build --source VERSION=DOCS --base-url VERSION=URL --out DIR`")


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
    collection: str = DEFAULT_COLLECTION
    # Built snapshots (schema 2) only: what search hits show, and what the unit is ranked by.
    title: Optional[str] = None
    index: Optional[IndexFields] = None


FIXED = "fixed"
QUESTION_TERMS = "question_terms"
MAX_QUESTION_TERMS = 16
_WORD = re.compile(r"\w+")
# Literal values a question quotes (`d1`, 'abc', "[1, 2]"): they name the asker's data, not the
# documentation's words, and match unrelated code examples. A quote must stand at a word edge so
# that apostrophes ("don't", "it's") are not taken for one.
_LITERAL_SPAN = re.compile(r"`[^`]*`|(?<!\w)'[^'\n]*'(?!\w)|(?<!\w)\"[^\"\n]*\"(?!\w)"
                           r"|[\u2018\u201c][^\u2019\u201d\n]*[\u2019\u201d]")
READ_FIRST = "first"  # one read per round: the first hit not read yet
READ_BEST = "best"  # after a search, its distinct hits in rank order while the allowances permit
DEFAULT_SEARCH_K = 2


def without_literals(question: str) -> str:
    """Return the question with its quoted and backticked spans blanked out."""
    return _LITERAL_SPAN.sub(" ", question)


def question_terms(question: str, stop_words, drop_literals: bool = False) -> str:
    """Derive a query from the question's own words: case-folded, stop words out, first use kept.

    Words are runs of letters, digits and underscores, so no punctuation (quotes, `*`, `-`, `:`,
    parentheses) survives, and case-folding means no word can be an FTS5 operator. With
    drop_literals, quoted and backticked spans and words that are only digits are left out too.
    """
    if drop_literals:
        question = without_literals(question)
    terms = []
    for word in _WORD.findall(question.casefold()):
        if word in stop_words or word in terms or (drop_literals and word.isdigit()):
            continue
        terms.append(word)
    return " ".join(terms[:MAX_QUESTION_TERMS])


@dataclass(frozen=True)
class Rule:
    """A scripted query plan chosen by phrases in the question.

    A `question_terms` rule (only as the fallback) has no fixed initial query: it searches for
    any of the question's own words; refinement and marker are fixed data as for every rule.
    """

    name: str
    phrases: tuple
    initial_query: Optional[str]
    refinement_query: Optional[str]
    required_marker: Optional[str]
    max_rounds: int
    kind: str = FIXED
    stop_words: frozenset = frozenset()
    search_k: int = DEFAULT_SEARCH_K
    reads: str = READ_FIRST
    drop_literals: bool = False

    @property
    def initial_match(self) -> str:
        """Return whether the first search needs all its terms or any of them."""
        return "any" if self.kind == QUESTION_TERMS else "all"

    def matches(self, folded_question: str) -> bool:
        """Tell whether the case-folded question contains any of this rule's phrases."""
        return any(phrase in folded_question for phrase in self.phrases)

    def for_question(self, question: str) -> "Rule":
        """Return the rule with its initial query settled for this question."""
        if self.kind != QUESTION_TERMS:
            return self
        return replace(self, initial_query=question_terms(question, self.stop_words,
                                                          self.drop_literals))

    def describe(self) -> dict:
        """Return the rule as the response's `policy` section shows it."""
        described = {
            "name": self.name,
            "initial_query": self.initial_query,
            "refinement_query": self.refinement_query,
            "required_marker": self.required_marker,
            "max_rounds": self.max_rounds,
        }
        if self.kind != FIXED:
            described["kind"] = self.kind
        # Shown only where they differ from the defaults, so the seed rules read as they did.
        if self.search_k != DEFAULT_SEARCH_K:
            described["search_k"] = self.search_k
        if self.reads != READ_FIRST:
            described["reads"] = self.reads
        return described


@dataclass(frozen=True)
class Collection:
    """One separately identified and separately ranked part of a snapshot.

    Its corpus_id covers only its own passages (and the policy), and its passage ids and BM25
    statistics derive from it alone: adding, changing or removing passages of another collection
    changes nothing a caller of this one can see.
    """

    name: str
    corpus_id: str
    # ({"version", "passages", "sources"}, ...) in version order, for /corpus.
    versions: tuple

    def describe(self) -> dict:
        """Return the collection as /corpus lists it."""
        return {"collection": self.name, "corpus_id": self.corpus_id,
                "versions": list(self.versions)}


@dataclass(frozen=True)
class Snapshot:
    """An immutable, identified corpus and its policy.

    `corpus_id` identifies the whole snapshot (every collection); a single-collection snapshot's
    one collection has the same id.
    """

    corpus_id: str
    passages: tuple
    rules: tuple
    fallback: Rule
    # Name -> Collection, in name order.
    collections: dict
    # Built snapshots keep their passages in this SQLite file instead of `passages`, and every
    # connection must open the file verified at load (database.file_identity), no other.
    database_path: Optional[str] = None
    database_identity: Optional[tuple] = None
    # Built snapshots (schema 2) rank by fields and priors; None: one text column, plain bm25.
    ranking: Optional[Ranking] = None
    # A policy with a semantic section re-ranks with this (see index.Reranker), made by the
    # directory loader; None: the lexical ranking alone.
    reranker: Optional[object] = None

    def select_rule(self, question: str) -> Rule:
        """Return the first rule whose phrase occurs in the question, else the fallback."""
        folded = question.casefold()
        for rule in self.rules:
            if rule.matches(folded):
                return rule
        return self.fallback.for_question(question)


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
# Absent means DEFAULT_COLLECTION: the single-collection snapshots of schema 1 keep their identity.
_PASSAGE_OPTIONAL = ("collection",)
_RULE_FIELDS = ("name", "phrases", "initial_query", "refinement_query", "required_marker", "max_rounds")
_RULE_OPTIONAL = ("search_k", "reads")
_FALLBACK_OPTIONAL = ("kind", "stop_words", "drop_literals")
MAX_SEARCH_K = 50


def _rule(raw, where, *, fallback=False):
    _object(raw, where, _RULE_FIELDS, _RULE_OPTIONAL + (_FALLBACK_OPTIONAL if fallback else ()))
    kind = raw.get("kind", FIXED)
    if kind not in (FIXED, QUESTION_TERMS):
        _fail(f"{where}.kind", f"must be {FIXED!r} or {QUESTION_TERMS!r}")
    stop_words = raw.get("stop_words", [])
    if kind == QUESTION_TERMS:
        if raw["initial_query"] is not None:
            _fail(f"{where}.initial_query", "must be null: question_terms derives it")
        if not isinstance(stop_words, list):
            _fail(f"{where}.stop_words", "must be a list")
        for i, word in enumerate(stop_words):
            if not isinstance(word, str) or word != word.casefold() or not word.strip():
                _fail(f"{where}.stop_words[{i}]", "must be a non-empty case-folded string")
    elif "stop_words" in raw or "drop_literals" in raw:
        _fail(where, "only a question_terms fallback has stop_words and drop_literals")
    search_k = _integer(raw.get("search_k", DEFAULT_SEARCH_K), f"{where}.search_k", 1)
    if search_k > MAX_SEARCH_K:
        _fail(f"{where}.search_k", f"must be at most {MAX_SEARCH_K}")
    reads = raw.get("reads", READ_FIRST)
    if reads not in (READ_FIRST, READ_BEST):
        _fail(f"{where}.reads", f"must be {READ_FIRST!r} or {READ_BEST!r}")
    drop_literals = raw.get("drop_literals", False)
    if not isinstance(drop_literals, bool):
        _fail(f"{where}.drop_literals", "must be true or false")
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
        initial_query=(None if kind == QUESTION_TERMS
                       else _string(raw["initial_query"], f"{where}.initial_query")),
        refinement_query=_string(raw["refinement_query"], f"{where}.refinement_query", allow_none=True),
        required_marker=_string(raw["required_marker"], f"{where}.required_marker", allow_none=True),
        max_rounds=_integer(raw["max_rounds"], f"{where}.max_rounds", 1),
        kind=kind,
        stop_words=frozenset(stop_words),
        search_k=search_k,
        reads=reads,
        drop_literals=drop_literals,
    )


def parse_policy(raw):
    """Validate a policy document; return (rules, fallback)."""
    _object(raw, "policy", ("rules", "fallback"), ("ranking", "semantic"))
    if policy_semantic(raw) is not None and policy_ranking(raw) is None:
        _fail("policy.semantic", "re-ranks a fielded ranking: the policy needs a ranking section")
    if not isinstance(raw["rules"], list):
        _fail("policy.rules", "must be a list")
    rules = tuple(_rule(r, f"policy.rules[{i}]") for i, r in enumerate(raw["rules"]))
    fallback = _rule(raw["fallback"], "policy.fallback", fallback=True)
    names = [rule.name for rule in rules] + [fallback.name]
    for name in names:
        if names.count(name) > 1:
            _fail("policy", f"duplicate rule name {name!r}")
    return rules, fallback


def _policy_section(raw, key, parse):
    if key not in raw:
        return None
    try:
        return parse(raw[key])
    except RankingError as exc:
        raise SnapshotError(str(exc)) from None


def policy_ranking(raw) -> Optional[Ranking]:
    """Return a validated policy's ranking section, or None when it has none (schema 1)."""
    return _policy_section(raw, "ranking", parse_ranking)


def built_policy_ranking(raw) -> Ranking:
    """Return a built snapshot's ranking section; a built snapshot's policy must have one."""
    ranking = policy_ranking(raw)
    if ranking is None:
        raise SnapshotError("policy: a built snapshot's policy needs a ranking section")
    return ranking


def policy_semantic(raw) -> Optional[Semantic]:
    """Return a validated policy's semantic section, or None when it ranks lexically alone."""
    return _policy_section(raw, "semantic", parse_semantic)


def _passage_content(raw, where):
    _object(raw, where, _PASSAGE_CONTENT + ("passage_id", "text_sha256"), _PASSAGE_OPTIONAL)
    version = _string(raw["version"], f"{where}.version")
    if not VERSION_PATTERN.fullmatch(version):
        _fail(f"{where}.version", f"must be {VERSION_SHAPE}")
    start = _integer(raw["start_line"], f"{where}.start_line", 1)
    end = _integer(raw["end_line"], f"{where}.end_line", start)
    content = {}
    if "collection" in raw:
        collection = raw["collection"]
        if not isinstance(collection, str) or not COLLECTION_PATTERN.fullmatch(collection):
            _fail(f"{where}.collection", f"must match {COLLECTION_PATTERN.pattern}")
        # One spelling per identity: the default collection is the absence of the field.
        if collection == DEFAULT_COLLECTION:
            _fail(f"{where}.collection", f"omit it for the {DEFAULT_COLLECTION!r} collection")
        content["collection"] = collection
    return content | {
        "source_id": _string(raw["source_id"], f"{where}.source_id"),
        "version": version,
        "url": _string(raw["url"], f"{where}.url"),
        "start_line": start,
        "end_line": end,
        "text": _string(raw["text"], f"{where}.text"),
        "source_sha256": _digest(raw["source_sha256"], f"{where}.source_sha256"),
    }


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
    groups = {}
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
        index=IndexFields.from_content(content, "passage") if "fields" in content else None,
    )


def seal_snapshot(document: dict) -> dict:
    """Fill in every digest of a snapshot document (corpus_id, text_sha256, passage_id)."""
    _object(document, "snapshot", ("passages", "policy"),
            ("format", "schema_version", "tokenizer", "bm25", "corpus_id"))
    contents = []
    for i, raw in enumerate(document["passages"]):
        raw = {key: raw[key] for key in _PASSAGE_CONTENT + _PASSAGE_OPTIONAL if key in raw}
        raw.update(passage_id="0" * 64, text_sha256="0" * 64)
        contents.append(_passage_content(raw, f"passages[{i}]"))
    parse_policy(document["policy"])
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
    rules, fallback = parse_policy(document["policy"])
    if "ranking" in document["policy"]:
        _fail("policy.ranking", "fielded ranking needs a built snapshot directory (schema 2)")
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

    corpus = compute_corpus_id(contents, document["policy"])
    if corpus != claimed_corpus:
        _fail("corpus_id", f"does not match the content (content digests to {corpus})")
    collection_ids = collection_corpus_ids(contents, document["policy"])

    passages = []
    seen_ids = {}
    source_digests = {}
    for i, (raw, content) in enumerate(zip(document["passages"], contents)):
        where = f"passages[{i}]"
        passage = derive_passage(collection_ids[collection_of(content)], content)
        if raw["passage_id"] != passage.passage_id:
            _fail(f"{where}.passage_id", "does not match the passage content")
        if passage.passage_id in seen_ids:
            _fail(f"{where}.passage_id", f"duplicates passages[{seen_ids[passage.passage_id]}]")
        seen_ids[passage.passage_id] = i
        source_key = (passage.collection, passage.source_id, passage.version)
        if source_digests.setdefault(source_key, passage.source_sha256) != passage.source_sha256:
            _fail(f"{where}.source_sha256",
                  f"differs from an earlier passage of source {passage.source_id!r} {passage.version}")
        passages.append(passage)
    collections = {
        name: Collection(name, collection_id, summarize_versions(
            (p.version, p.source_id, 1) for p in passages if p.collection == name))
        for name, collection_id in collection_ids.items()
    }
    return Snapshot(corpus_id=corpus, passages=tuple(passages), rules=rules, fallback=fallback,
                    collections=collections)


def summarize_versions(counts) -> tuple:
    """Sum (version, source_id, passages) counts per version, in version order."""
    passages, sources = {}, {}
    for version, source_id, count in counts:
        passages[version] = passages.get(version, 0) + count
        sources.setdefault(version, set()).add(source_id)
    return tuple({"version": v, "passages": passages[v], "sources": len(sources[v])}
                 for v in sorted(passages, key=_version_key))


def _version_key(version) -> tuple:
    # Numerically, part by part: 3.9 < 3.10 < 3.10.1.
    return tuple(int(part) for part in version.split("."))


def load_snapshot(path, expect_corpus_id: Optional[str] = None) -> Snapshot:
    """Read, validate and identify a snapshot (JSON file or built directory); check the pin."""
    path = Path(path)
    if path.is_dir():
        from .snapshot_directory import load_snapshot_directory  # it builds on this module

        snapshot = load_snapshot_directory(path)
        _check_pin(path, snapshot, expect_corpus_id)
        return snapshot
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SnapshotError(f"{path}: cannot read snapshot: {exc.strerror or exc} "
                            f"({BUILD_HINT})") from None
    try:
        document = loads_strict(data)
    except StrictJSONError as exc:
        raise SnapshotError(f"{path}: not strict JSON: {exc}") from None
    try:
        snapshot = parse_snapshot(document)
    except SnapshotError as exc:
        raise SnapshotError(f"{path}: {exc}") from None
    _check_pin(path, snapshot, expect_corpus_id)
    return snapshot


def _check_pin(path, snapshot, expect_corpus_id):
    if expect_corpus_id is not None and snapshot.corpus_id != expect_corpus_id:
        raise SnapshotError(
            f"{path}: corpus_id {snapshot.corpus_id} is not the expected {expect_corpus_id}")


def default_snapshot_path() -> Path:
    """Locate the embedded fixture, installed beside the package or at the top of a checkout."""
    package_dir = Path(__file__).resolve().parent.parent
    for candidate in (package_dir / "snapshot.json", package_dir.parent / "snapshot.json"):
        if candidate.is_file():
            return candidate
    return package_dir / "snapshot.json"
