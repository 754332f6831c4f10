"""Fielded ranking for built snapshots: what each unit is indexed as, and its prior.

A built snapshot indexes every unit in named fields, each with its BM25 weight, and
ranks by `bm25(fields) - prior`. The prior is computed from facts the builder read off the
documentation's structure (the unit's kind, how often the documentation links to it, whether its
page is a reference page, whether it is a `:noindex:` duplicate) with weights that are data in the
snapshot's policy, so both are bound into corpus_id. The embedded fixture (schema 1) keeps one
unweighted text column and no prior.
"""

import math
import re
from dataclasses import dataclass

from . import checks
from .checks import SnapshotError
from .query import folded_words

# 4: passages carry their flags (core/flags.py), a column of their own.
# 5: an FTS table and ubiquitous/common words per version of a collection, not per collection:
# a version ranks as in a snapshot of it alone, so a build ranking otherwise gets another identity.
FIELDED_SCHEMA_VERSION = 5
FIELDED_TOKENIZER = "porter unicode61"
# Indexed fields, in FTS column order: qualified names, bare names, signatures without names,
# the prose's first sentence (again, on its own: it says what the object does, and weighing it
# above the rest of the prose took CoNaLa train R@10 from 39.4 to 41.3 %), prose, code, and the
# page title with the section path.
FIELDS = ("names", "name", "signature", "summary", "body", "code", "context")
KINDS = ("function", "method", "class", "exception", "attribute", "data", "section")
SECTION = "section"
_PRIOR_KEYS = ("in_links", "in_links_cap", "kind", "non_reference_page", "noindex")


_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
_UNDERLINE = re.compile(r"^\s*([=\-~^\"'`#*+<>:_.])\1*\s*$")
_SPACE = re.compile(r"\s+")


def first_sentence(body: str) -> str:
    """Return a unit body's first sentence, skipping heading underlines and repeated headings."""
    lines = [line for line in body.split("\n") if line.strip() and not _UNDERLINE.match(line)]
    text = _SPACE.sub(" ", " ".join(lines)).strip()
    return _SENTENCE_END.split(text, 1)[0]


class RankingError(SnapshotError):
    """A ranking section of a policy or a unit's facts are malformed."""


@dataclass(frozen=True)
class IndexFields:
    """What a unit of a built snapshot is indexed and ranked by, besides its quoted text."""

    kind: str
    in_links: int
    noindex: bool
    reference_page: bool
    names: str
    name: str
    signature: str
    summary: str  # first_sentence(body)
    body: str
    code: str
    context: str

    @classmethod
    def of(cls, *, body: str, **fields) -> "IndexFields":
        """Build a unit's facts, its summary derived from its body (what the builder indexes)."""
        return cls(summary=first_sentence(body), body=body, **fields)

    def indexed_text(self) -> str:
        """Return every indexed field's text, in FIELDS order."""
        return "\n".join(getattr(self, name) for name in FIELDS)

    def content(self) -> dict:
        """Return the facts as a passage's content carries them (and corpus_id covers them)."""
        return {"kind": self.kind, "in_links": self.in_links, "noindex": self.noindex,
                "reference_page": self.reference_page,
                "fields": {name: getattr(self, name) for name in FIELDS}}

    @classmethod
    def from_content(cls, content: dict, where: str) -> "IndexFields":
        """Validate a passage content's ranking facts."""
        fields = content.get("fields")
        if not isinstance(fields, dict) or sorted(fields) != sorted(FIELDS) or not all(
                isinstance(value, str) for value in fields.values()):
            raise RankingError(f"{where}.fields: must map exactly {', '.join(FIELDS)} to strings")
        if content.get("kind") not in KINDS:
            raise RankingError(f"{where}.kind: must be one of {', '.join(KINDS)}")
        in_links = checks.integer(content.get("in_links"), f"{where}.in_links", 0)
        for flag in ("noindex", "reference_page"):
            if not isinstance(content.get(flag), bool):
                raise RankingError(f"{where}.{flag}: must be true or false")
        return cls(content["kind"], in_links, content["noindex"], content["reference_page"],
                   **fields)


@dataclass(frozen=True)
class CommonTerms:
    """Words more than `share` of a collection's units hold match only in `fields`.

    Such a word ("function", "file", "python") in a unit's prose says little about the unit, and
    matching it there makes FTS5 score thousands of units: on the 3.11 docs, share 0.15 over the
    names, signature and first sentence took the ranking query's p99 from 28.6 to 22.4 ms for
    CoNaLa train R@10 41.2 -> 40.9 (docs/performance.md). The words are stored per collection.
    """

    share: float
    fields: tuple  # a subset of FIELDS, in FIELDS order


# A ranking model's features, in the order its weights are listed. Each is a fact of one
# candidate unit for one query, computed at query time (RankingModel.features):
# - bm25_FIELD: FTS5 bm25() of the query in that field alone (weight 1 there, 0 elsewhere);
#   bm25_all: every field at weight 1. Negative, lower is a better match, as FTS5 reports it.
# - in_links: ln(1 + links to the unit), at most ln(33) (the fielded prior's cap, 32 links).
# - kind_KIND: 1 for a unit of that kind (a section is none of them), else 0.
# - non_reference_page, noindex: the facts the priors read, 1 or 0.
# - release_notes: 1 when the unit's page is a changelog or release notes (RELEASE_NOTES).
# - fielded_rank, plain_rank: ln(1 + the unit's 0-based place) in the fielded ranking (weighted
#   bm25 minus prior) and in bm25_all order, ln(1 + candidates) where it is not among them.
# - dense: 1 for a candidate only the embedding found (below), else 0.
# - page_candidates: ln(1 + how many of the search's candidates are on the unit's page, itself
#   included): a page that many of them share is the question's topic, a lone match on a page is
#   more often a passing mention (fitted: CoNaLa train R@10 54.0 -> 56.0 with minilm).
_MODEL_KINDS = tuple(kind for kind in KINDS if kind != SECTION)  # a section is none of them
DENSE_FEATURE = "dense"
MODEL_FEATURES = (*(f"bm25_{name}" for name in FIELDS), "bm25_all", "in_links",
                  *(f"kind_{kind}" for kind in _MODEL_KINDS),
                  "non_reference_page", "noindex", "release_notes", "fielded_rank", "plain_rank",
                  DENSE_FEATURE, "page_candidates")
# Features a policy's model may leave out, at weight 0, so that every model written before
# they existed reads as it did: "dense" (a lexical policy's candidates never have it) and
# "page_candidates".
OPTIONAL_FEATURES = (DENSE_FEATURE, "page_candidates")
# A model may weigh each feature once more for a search whose question quotes literal values
# (`literals` in its arguments: a coding intent, which an API object answers more often than a
# guide does): "literals_" + the feature's name, optional (absent: 0).
LITERALS_PREFIX = "literals_"
LITERAL_FEATURES = tuple(LITERALS_PREFIX + name for name in MODEL_FEATURES)
IN_LINKS_CAP = 32
_LOG_IN_LINKS_CAP = math.log1p(IN_LINKS_CAP)
# A page whose path names a changelog or release notes: it mentions every feature once, in
# passing, so it matches many questions and answers few. The names are those projects publish
# them under: Django's releases/3.2.html, pytest's announce/release-7.2.0.html, Django REST
# framework's community/3.14-announcement/, aiohttp's whats_new_3_0.html, and a folder named
# release of one page per release (NumPy's and SciPy's release/1.25.0-notes.html).
RELEASE_NOTES = re.compile(r"(?:^|[/_.-])(?:changelog|changes|whats[-_]?new|release[-_]?notes|"
                           r"releases|news|announce|announcement)(?:[/_.-]|$)"
                           r"|(?:^|/)release/", re.I)
_MODEL_KEYS = ("candidates", "weights")


def page_of(url: str) -> str:
    """Return the page a unit's URL is on: the URL without its fragment."""
    return url.partition("#")[0]


def page_counts(urls) -> dict:
    """Return how many of the URLs are on each page, by page_of."""
    counts: dict = {}
    for url in urls:
        page = page_of(url)
        counts[page] = counts.get(page, 0) + 1
    return counts


def is_release_notes(url: str) -> bool:
    """Tell whether a unit's URL is on a changelog or release-notes page."""
    page = page_of(url).split("?", 1)[0]
    return RELEASE_NOTES.search(page.split("://", 1)[-1].split("/", 1)[-1]) is not None


@dataclass(frozen=True)
class RankingModel:
    """A linear model over MODEL_FEATURES that re-sorts a query's candidates.

    The candidates are the best `candidates` units of the fielded ranking and of bm25_all; each
    is scored -sum(weight * feature), lower first, as bm25 is. The weights are fitted offline
    (quality/fit.py) and are data in the policy, so corpus_id binds them.
    """

    candidates: int
    weights: tuple  # in MODEL_FEATURES order
    # Whether the policy weighs "dense": with a re-ranker, its dense candidates are then model
    # candidates; else (every model before the feature) they join at the worst lexical score.
    weighs_dense: bool = False
    # The further weights of a search with literals, in MODEL_FEATURES order; () if none.
    literal_weights: tuple = ()

    def features(self, bm25_all: float, bm25_fields, kind: str, in_links: int, noindex: bool,
                 reference_page: bool, url: str, fielded_rank: int, plain_rank: int,
                 on_page: int, dense: bool = False) -> tuple:
        """Return one candidate's features, in MODEL_FEATURES order; on_page: how many of the
        search's candidates are on its page (page_counts), dense: only the embedding found it."""
        absent = math.log1p(self.candidates)
        return (*bm25_fields, bm25_all, min(math.log1p(in_links), _LOG_IN_LINKS_CAP),
                *(float(kind == name) for name in _MODEL_KINDS),
                0.0 if reference_page else 1.0, 1.0 if noindex else 0.0,
                1.0 if is_release_notes(url) else 0.0,
                absent if fielded_rank < 0 else math.log1p(fielded_rank),
                absent if plain_rank < 0 else math.log1p(plain_rank), float(dense),
                math.log1p(on_page))

    def dense_features(self, kind: str, in_links: int, noindex: bool, reference_page: bool,
                       url: str, on_page: int) -> tuple:
        """Return the features of a candidate only the embedding found: no bm25, in no list."""
        return self.features(0.0, (0.0,) * len(FIELDS), kind, in_links, noindex,
                             reference_page, url, -1, -1, on_page, dense=True)

    def score(self, features, literals: bool = False) -> float:
        """Return a candidate's score, lower first; with literals, its literal weights count too
        (one correctly rounded sum of both)."""
        terms = [w * x for w, x in zip(self.weights, features, strict=True)]
        if literals and self.literal_weights:
            terms += [w * x for w, x in zip(self.literal_weights, features, strict=True)]
        return -math.fsum(terms)


def parse_model(raw) -> RankingModel:
    """Validate a ranking section's `model`: {"candidates": n, "weights": {feature: w}}."""
    where = "policy.ranking.model"
    if not isinstance(raw, dict) or sorted(raw) != list(_MODEL_KEYS):
        raise RankingError(f"{where}: must have exactly the fields {', '.join(_MODEL_KEYS)}")
    weights = raw["weights"]
    required = set(MODEL_FEATURES) - set(OPTIONAL_FEATURES)
    if not isinstance(weights, dict) or \
            not required <= set(weights) <= set(MODEL_FEATURES) | set(LITERAL_FEATURES):
        raise RankingError(f"{where}.weights: must weigh exactly {', '.join(MODEL_FEATURES)} "
                           f"({', '.join(OPTIONAL_FEATURES)} may be left out: 0), and may weigh "
                           f"each once more as {LITERALS_PREFIX}NAME")

    def weighed(names):
        return tuple(checks.number(weights.get(name, 0), f"{where}.weights.{name}")
                     for name in names)
    return RankingModel(
        candidates=checks.integer(raw["candidates"], f"{where}.candidates", 1),
        weights=weighed(MODEL_FEATURES),
        weighs_dense=DENSE_FEATURE in weights or LITERALS_PREFIX + DENSE_FEATURE in weights,
        literal_weights=weighed(LITERAL_FEATURES) if set(weights) & set(LITERAL_FEATURES)
        else ())


@dataclass(frozen=True)
class Ranking:
    """A policy's ranking section: per-field BM25 weights and prior weights."""

    weights: tuple  # in FIELDS order
    in_links: float  # times ln(1 + in-links), capped at in_links_cap
    in_links_cap: float
    kind: dict  # kind -> prior
    non_reference_page: float
    noindex: float
    common_terms: CommonTerms | None = None  # None: every word matches in every field
    # None: units rank by the fielded score alone; else the model re-sorts its candidates.
    model: RankingModel | None = None

    def prior(self, facts: IndexFields) -> float:
        """Return what a unit's score gains (bm25 is negative: lower ranks first)."""
        value = min(self.in_links * math.log1p(facts.in_links), self.in_links_cap)
        value += self.kind.get(facts.kind, 0.0)
        if not facts.reference_page:
            value += self.non_reference_page
        if facts.noindex:
            value += self.noindex
        return value


def word_shares(ubiquitous_share: float | None, ranking: "Ranking | None") -> dict:
    """Return the shares a policy sets, by the name its words are stored under: "ubiquitous"
    (what a question_terms fallback leaves out) and "common" (what match only in the ranking's
    common_terms fields); None where the policy sets none."""
    common = None if ranking is None else ranking.common_terms
    return {"ubiquitous": ubiquitous_share, "common": None if common is None else common.share}


def ubiquitous_terms(unit_texts, shares: tuple) -> tuple:
    """Return, for each share, the words (as question_terms spells them) more than it of the
    units hold; the texts are read once for all shares.

    unit_texts: each unit's indexed text. The builder stores them per collection and
    `retrieval verify` recomputes them, as it does the priors.
    """
    holding: dict[str, int] = {}
    count = 0
    for text in unit_texts:
        count += 1
        for word in set(folded_words(text)):
            holding[word] = holding.get(word, 0) + 1
    return tuple(frozenset(word for word, units in holding.items() if units > share * count)
                 for share in shares)


def ubiquitous_by_collection(units, shares: dict) -> dict:
    """Return {name: {group: the words more than its share of its units hold}} for each named
    share that is not None, of (group, IndexFields) pairs, reading each unit once (the builder's
    groups: each (collection, version), whose words are counted apart).

    A noindex unit (a repeated description, a package's internals, a public object its docs do
    not describe) is not counted: it is out of the index of descriptions, and its words (a
    package's code vocabulary) would otherwise decide which words of the docs are common."""
    wanted = {name: share for name, share in shares.items() if share is not None}
    if not wanted:
        return {}
    texts: dict[str, list] = {}
    for collection, fields in units:
        if not fields.noindex:
            texts.setdefault(collection, []).append(fields.indexed_text())
    found: dict[str, dict] = {name: {} for name in wanted}
    for collection, unit_texts in texts.items():
        for name, words in zip(wanted, ubiquitous_terms(unit_texts, tuple(wanted.values())),
                               strict=True):
            found[name][collection] = words
    return found


def parse_common_terms(raw) -> CommonTerms:
    """Validate a ranking section's `common_terms`: {"share": (0, 1], "fields": [field, ...]}."""
    where = "policy.ranking.common_terms"
    if not isinstance(raw, dict) or sorted(raw) != ["fields", "share"]:
        raise RankingError(f"{where}: must have exactly the fields 'fields' and 'share'")
    share = checks.number(raw["share"], f"{where}.share")
    if not 0 < share <= 1:
        raise RankingError(f"{where}.share: must be above 0 and at most 1")
    fields = raw["fields"]
    if not isinstance(fields, list) or not fields or not all(
            isinstance(name, str) for name in fields) or not set(fields) <= set(FIELDS) or len(
            set(fields)) != len(fields):
        raise RankingError(f"{where}.fields: must be distinct names among {', '.join(FIELDS)}")
    return CommonTerms(share, tuple(name for name in FIELDS if name in fields))


def parse_ranking(raw) -> Ranking:
    """Validate a policy's `ranking` section."""
    if not isinstance(raw, dict) or not {"fields", "priors"} <= set(raw) <= {
            "fields", "priors", "common_terms", "model"}:
        raise RankingError("policy.ranking: must have the fields 'fields' and 'priors', and may "
                           "have 'common_terms' and 'model'")
    fields, priors = raw["fields"], raw["priors"]
    if not isinstance(fields, dict) or sorted(fields) != sorted(FIELDS):
        raise RankingError(f"policy.ranking.fields: must weigh exactly {', '.join(FIELDS)}")
    weights = tuple(checks.number(fields[name], f"policy.ranking.fields.{name}") for name in FIELDS)
    if any(weight < 0 for weight in weights):
        raise RankingError("policy.ranking.fields: weights must be >= 0")
    if not isinstance(priors, dict) or sorted(priors) != sorted(_PRIOR_KEYS):
        raise RankingError(f"policy.ranking.priors: must have exactly {', '.join(_PRIOR_KEYS)}")
    kind = priors["kind"]
    if not isinstance(kind, dict) or not set(kind) <= set(KINDS):
        raise RankingError(f"policy.ranking.priors.kind: keys must be among {', '.join(KINDS)}")
    return Ranking(
        weights=weights,
        in_links=checks.number(priors["in_links"], "policy.ranking.priors.in_links"),
        in_links_cap=checks.number(priors["in_links_cap"], "policy.ranking.priors.in_links_cap"),
        kind={name: checks.number(value, f"policy.ranking.priors.kind.{name}")
              for name, value in kind.items()},
        non_reference_page=checks.number(priors["non_reference_page"],
                                   "policy.ranking.priors.non_reference_page"),
        noindex=checks.number(priors["noindex"], "policy.ranking.priors.noindex"),
        common_terms=(parse_common_terms(raw["common_terms"]) if "common_terms" in raw
                      else None),
        model=parse_model(raw["model"]) if "model" in raw else None,
    )


# The optional embedding re-rank (`retrieval build --semantic`, the `semantic` extra; its models
# are named in retrieval/rerank).
_SEMANTIC_KEYS = ("candidates", "dimensions", "model_sha256", "recipe", "weight")
# Optional, so a section written before it names the same policy (and corpus_id) as before.
_SEMANTIC_OPTIONAL = ("dense", "embeds", "literals_weight")
# What a question's first search embeds: its query's words, or the question's own sentence
# (query.question_sentence: a sentence encoder's training text; the search's `semantic_query`).
EMBEDS_QUERY, EMBEDS_QUESTION = "query", "question"
EMBEDS = (EMBEDS_QUERY, EMBEDS_QUESTION)


@dataclass(frozen=True)
class Semantic:
    """A policy's semantic section: which model made the vectors, and how they re-rank.

    The `candidates` best lexical hits, and the `dense` units nearest the query by the embedding
    itself (each entering at the worst lexical candidate's score), are re-sorted by
    `score - weight * cosine(query, unit)`; a ranking model's search with literals re-sorts by
    weight + literals_weight. Being policy data, every field is part of corpus_id; so is each
    unit's vector digest.
    """

    model_sha256: str  # the model (weights and tokenizer bytes) the vectors were computed with
    recipe: str  # what text of a unit is embedded, and how
    dimensions: int
    weight: float
    candidates: int
    dense: int = 0  # 0: the lexical candidates alone
    literals_weight: float = 0.0
    embeds: str = EMBEDS_QUERY  # one of EMBEDS


def parse_semantic(raw) -> Semantic:
    """Validate a policy's `semantic` section."""
    if not isinstance(raw, dict) or sorted(set(raw) - set(_SEMANTIC_OPTIONAL)) != list(
            _SEMANTIC_KEYS):
        raise RankingError(f"policy.semantic: must have exactly the fields "
                           f"{', '.join(_SEMANTIC_KEYS)}, and may have "
                           f"{', '.join(_SEMANTIC_OPTIONAL)}")
    digest = checks.digest(raw["model_sha256"], "policy.semantic.model_sha256")
    if not isinstance(raw["recipe"], str) or not raw["recipe"]:
        raise RankingError("policy.semantic.recipe: must be a non-empty string")
    weight = checks.number(raw["weight"], "policy.semantic.weight")
    if weight < 0:
        raise RankingError("policy.semantic.weight: must be >= 0")
    literals_weight = checks.number(raw.get("literals_weight", 0),
                                    "policy.semantic.literals_weight")
    if weight + literals_weight < 0:
        raise RankingError("policy.semantic.literals_weight: weight + literals_weight must be "
                           ">= 0")
    embeds = raw.get("embeds", EMBEDS_QUERY)
    if embeds not in EMBEDS:
        raise RankingError(f"policy.semantic.embeds: must be one of {', '.join(EMBEDS)}")
    return Semantic(model_sha256=digest, recipe=raw["recipe"],
                    dimensions=checks.integer(raw["dimensions"], "policy.semantic.dimensions", 1),
                    weight=weight,
                    candidates=checks.integer(raw["candidates"], "policy.semantic.candidates", 1),
                    dense=checks.integer(raw.get("dense", 0), "policy.semantic.dense", 0),
                    literals_weight=literals_weight, embeds=embeds)
