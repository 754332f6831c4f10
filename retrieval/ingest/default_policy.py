"""The default policy of `retrieval build`: its stop words, fallback, ranking and fitted model."""

from typing import Any

# English function words. They are data in the policy (and so part of corpus_id), not code, so
# changing the list changes the snapshot's identity.
DEFAULT_STOP_WORDS = sorted(set("""
a about above after again against all am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have
having he her here hers herself him himself his how i if in into is it its itself just me more most
my myself no nor not now of off on once only or other our ours ourselves out over own same she
should so some such than that the their theirs them themselves then there these they this those
through to too under until up very was we were what when where which while who whom why will with
would you your yours yourself yourselves
""".split()))

# bench/fit_ranking.py --literals's output (docs/corpora.md, "The ranking model"): each feature's
# weight, then (literals_*) what a search whose question quotes literal values adds to it.
# Refitted with page_candidates (docs/corpora.md, "Candidates that share a page").
MODEL_WEIGHTS = {
    "bm25_names": -0.07753, "bm25_name": 0.03517, "bm25_signature": 0.05126,
    "bm25_summary": 0.02186, "bm25_body": -0.1142, "bm25_code": -0.04206, "bm25_context": 0.05009,
    "bm25_all": -0.1512, "in_links": 0.2235, "kind_function": 0.4017, "kind_method": -0.3886,
    "kind_class": -0.05892, "kind_exception": -2.394, "kind_attribute": -1.693,
    "kind_data": -1.994, "non_reference_page": 1.081, "noindex": -1.175, "release_notes": -2.769,
    "fielded_rank": -0.2188, "plain_rank": -0.5018, "page_candidates": 0.4308,
    "literals_bm25_names": -0.01795, "literals_bm25_name": -0.1318,
    "literals_bm25_signature": -0.06429, "literals_bm25_summary": -0.0222,
    "literals_bm25_body": 0.008652, "literals_bm25_code": 0.007693,
    "literals_bm25_context": 0.02215, "literals_bm25_all": 0.06056, "literals_in_links": 0.4788,
    "literals_kind_function": 0.4516, "literals_kind_method": 1.125,
    "literals_kind_class": 0.1126, "literals_kind_exception": 3.497,
    "literals_kind_attribute": -0.7559, "literals_kind_data": -0.4272,
    "literals_non_reference_page": -0.2022, "literals_noindex": -0.7571,
    "literals_release_notes": -0.04938, "literals_fielded_rank": -0.1775,
    "literals_plain_rank": 0.3436, "literals_page_candidates": 0.5355,
}
DEFAULT_POLICY: dict[str, Any] = {
    "rules": [],
    "fallback": {
        "name": "question-terms",
        "kind": "question_terms",
        "phrases": [],
        "initial_query": None,
        "refinement_query": None,
        "required_marker": None,
        "max_rounds": 1,
        "stop_words": DEFAULT_STOP_WORDS,
        "drop_literals": True,
        # Words more than half of a collection's units hold (`django` in Django's docs) are left
        # out of its queries: they tell no unit apart, and matching them made FTS5 score nearly
        # every unit (Django's distinct-question p99 61 -> 20 ms in process). No word of the
        # 3.11 docs but stop words passes half, so CoNaLa figures are unchanged.
        "ubiquitous_share": 0.5,
        "search_k": 10,
        "reads": "best",
    },
    # bm25() weight per indexed field, and the priors subtracted from it (see core/ranking.py).
    "ranking": {
        "fields": {"names": 8, "name": 8, "signature": 0.5, "summary": 2, "body": 0.5,
                   "code": 0.5, "context": 0.25},
        # Tuned on CoNaLa train (bench/quality.py; docs/corpora.md has the dev figures). The in-link
        # prior stops growing at 32 links (3 x ln 33 = 10.5) so that the most linked-to objects
        # cannot fill every unrelated question's top 10: at 12 (54 links) eval(), repr() and
        # open(), gold for no train question, sat in 25, 23 and 21 % of train top 10s; at 10.5,
        # 17 % and under 11 %, for 0.1 point of train R@10. Classes and sections are demoted only
        # mildly, so a question that describes one still finds it.
        "priors": {
            "in_links": 3, "in_links_cap": 10.5,
            "kind": {"function": 2, "method": 1, "class": -1, "exception": -3,
                     "attribute": -3, "data": -3, "section": -5},
            "non_reference_page": -12,
            "noindex": -2,
        },
        # Words more than 15 % of a collection's units hold ("function", "file", "python") match
        # only in names, signatures and first sentences: in prose they tell units apart poorly,
        # and matching them there made FTS5 score thousands of units per question (3.11 docs:
        # ranking query p99 28.6 -> 22.4 ms, CoNaLa train R@10 41.2 -> 40.9; docs/performance.md).
        "common_terms": {"share": 0.15, "fields": ["names", "name", "signature", "summary"]},
        # The fielded score above alone buries guides: its priors were tuned on CoNaLa, whose
        # answers are all API objects. The model re-sorts the best 100 of it and of plain bm25
        # by weights fitted on CoNaLa train, bench/data/libraries-train (half guides) and
        # bench/data/stdlib-natural-train (questions that describe a need), by
        # bench/fit_ranking.py; docs/corpora.md has the command and the dev figures.
        "model": {"candidates": 100, "weights": MODEL_WEIGHTS},
    },
}
# `retrieval build --ranking`: the default policy as it is ("fitted": the model re-sorts the
# fielded ranking's candidates), or without its model ("fielded": the fielded score alone,
# whose priors CoNaLa prefers on the Python stdlib docs; docs/corpora.md has both figures).
RANKINGS = ("fitted", "fielded")


def default_policy(ranking: str = RANKINGS[0]) -> dict:
    """Return the default policy with the named ranking (one of RANKINGS)."""
    if ranking not in RANKINGS:
        raise ValueError(f"ranking {ranking!r} must be one of {', '.join(RANKINGS)}")
    if ranking == "fitted":
        return DEFAULT_POLICY
    return dict(DEFAULT_POLICY, ranking={
        key: value for key, value in DEFAULT_POLICY["ranking"].items() if key != "model"})


# How a --semantic build re-ranks, unless its policy says otherwise: the 200 best lexical hits
# re-sorted by score - weight x cosine, at the weight the model chose on CoNaLa train
# (its default_weight).
DEFAULT_CANDIDATES = 200
# And the 20 units nearest the query by the embedding alone (each at the worst lexical
# candidate's score): libraries dev with --semantic minilm hit@10 74.7 -> 76.7 %, R@10 60.9 ->
# 62.3 %, the same at 50 and 100, CoNaLa dev unchanged (docs/corpora.md). A policy saying 0 keeps
# the lexical candidates alone, and its semantic section is written as before `dense` existed.
DEFAULT_DENSE = 20
