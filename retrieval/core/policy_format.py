"""A snapshot's policy document: its rules, its fallback, and its ranking and semantic sections.

Both snapshot formats carry one (the JSON file in its `policy` member, a built directory in its
manifest), validated here, once, into a Policy; the policy's bytes are part of corpus_id.
"""

from dataclasses import dataclass

from . import checks
from .ranking import Ranking, Semantic, parse_ranking, parse_semantic
from .rules import (
    DEFAULT_SEARCH_K,
    FIXED,
    MAX_SEARCH_K,
    QUESTION_TERMS,
    READ_BEST,
    READ_FIRST,
    Rule,
)

_RULE_FIELDS = ("name", "phrases", "initial_query", "refinement_query", "required_marker",
                "max_rounds")
_RULE_OPTIONAL = ("search_k", "reads")
_FALLBACK_OPTIONAL = ("kind", "stop_words", "drop_literals", "ubiquitous_share")


def _rule(raw, where, *, fallback=False):
    optional = _RULE_OPTIONAL + (_FALLBACK_OPTIONAL if fallback else ())
    checks.json_object(raw, where, _RULE_FIELDS, optional)
    kind = raw.get("kind", FIXED)
    if kind not in (FIXED, QUESTION_TERMS):
        checks.fail(f"{where}.kind", f"must be {FIXED!r} or {QUESTION_TERMS!r}")
    stop_words = raw.get("stop_words", [])
    if kind == QUESTION_TERMS:
        if raw["initial_query"] is not None:
            checks.fail(f"{where}.initial_query", "must be null: question_terms derives it")
        if not isinstance(stop_words, list):
            checks.fail(f"{where}.stop_words", "must be a list")
        for i, word in enumerate(stop_words):
            if not isinstance(word, str) or word != word.casefold() or not word.strip():
                checks.fail(f"{where}.stop_words[{i}]",
                            "must be a non-empty case-folded string")
    elif "stop_words" in raw or "drop_literals" in raw or "ubiquitous_share" in raw:
        checks.fail(where, "only a question_terms fallback has stop_words, drop_literals and "
                           "ubiquitous_share")
    share = raw.get("ubiquitous_share")
    # Validated, not converted: the policy echo shows the share as the policy wrote it.
    if share is not None and not 0 < checks.number(share, f"{where}.ubiquitous_share") <= 1:
        checks.fail(f"{where}.ubiquitous_share", "must be above 0 and at most 1")
    search_k = checks.integer(raw.get("search_k", DEFAULT_SEARCH_K), f"{where}.search_k", 1)
    if search_k > MAX_SEARCH_K:
        checks.fail(f"{where}.search_k", f"must be at most {MAX_SEARCH_K}")
    reads = raw.get("reads", READ_FIRST)
    if reads not in (READ_FIRST, READ_BEST):
        checks.fail(f"{where}.reads", f"must be {READ_FIRST!r} or {READ_BEST!r}")
    drop_literals = raw.get("drop_literals", False)
    if not isinstance(drop_literals, bool):
        checks.fail(f"{where}.drop_literals", "must be true or false")
    phrases = raw["phrases"]
    if not isinstance(phrases, list) or (not fallback and not phrases):
        checks.fail(f"{where}.phrases",
                    "must be a non-empty list" if not fallback else "must be a list")
    if fallback and phrases:
        checks.fail(f"{where}.phrases",
                    "must be empty: the fallback applies when no rule matches")
    for i, phrase in enumerate(phrases):
        checks.string(phrase, f"{where}.phrases[{i}]")
        if phrase != phrase.casefold():
            checks.fail(f"{where}.phrases[{i}]",
                        "must be case-folded (questions are compared case-folded)")
    return Rule(
        name=checks.string(raw["name"], f"{where}.name"),
        phrases=tuple(phrases),
        initial_query=(None if kind == QUESTION_TERMS
                       else checks.string(raw["initial_query"], f"{where}.initial_query")),
        refinement_query=checks.string_or_none(raw["refinement_query"],
                                               f"{where}.refinement_query"),
        required_marker=checks.string_or_none(raw["required_marker"],
                                              f"{where}.required_marker"),
        max_rounds=checks.integer(raw["max_rounds"], f"{where}.max_rounds", 1),
        kind=kind,
        stop_words=frozenset(stop_words),
        search_k=search_k,
        reads=reads,
        drop_literals=drop_literals,
        ubiquitous_share=share,
    )


@dataclass(frozen=True)
class Policy:
    """A snapshot's policy, validated once: its rules, its fallback, and its optional sections.

    `document` is the policy as the snapshot wrote it (never changed after parsing): corpus_id
    digests its JSON bytes and a built manifest stores it, so both stay what they were.
    """

    document: dict
    rules: tuple
    fallback: Rule
    # None: one text column and plain bm25 (the JSON fixture); built snapshots have one.
    ranking: Ranking | None = None
    # None: the lexical ranking alone; else how a `--semantic` build's vectors re-rank.
    semantic: Semantic | None = None

    @classmethod
    def parse(cls, raw) -> "Policy":
        """Validate a policy document (refusals name the field) and return it parsed."""
        checks.json_object(raw, "policy", ("rules", "fallback"), ("ranking", "semantic"))
        semantic = parse_semantic(raw["semantic"]) if "semantic" in raw else None
        ranking = parse_ranking(raw["ranking"]) if "ranking" in raw else None
        if semantic is not None and ranking is None:
            checks.fail("policy.semantic",
                        "re-ranks a fielded ranking: the policy needs a ranking section")
        if not isinstance(raw["rules"], list):
            checks.fail("policy.rules", "must be a list")
        rules = tuple(_rule(r, f"policy.rules[{i}]") for i, r in enumerate(raw["rules"]))
        fallback = _rule(raw["fallback"], "policy.fallback", fallback=True)
        names = [rule.name for rule in rules] + [fallback.name]
        for name in names:
            if names.count(name) > 1:
                checks.fail("policy", f"duplicate rule name {name!r}")
        return cls(raw, rules, fallback, ranking, semantic)

    def built_ranking(self) -> Ranking:
        """Return the ranking section; a built snapshot's policy must have one."""
        if self.ranking is None:
            checks.fail("policy", "a built snapshot's policy needs a ranking section")
        return self.ranking


# The functions below return one part of Policy.parse(raw), for the callers that want one.


def parse_policy(raw) -> tuple:
    """Validate a policy document; return (rules, fallback)."""
    policy = Policy.parse(raw)
    return policy.rules, policy.fallback


def policy_ranking(raw) -> Ranking | None:
    """Return a validated policy's ranking section, or None when it has none (schema 1)."""
    return Policy.parse(raw).ranking
