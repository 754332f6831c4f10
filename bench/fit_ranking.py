"""Fit a ranking model's weights (policy.ranking.model) on training question sets.

For each question of each training set, the snapshot's own index computes the model's
candidates and their features (CollectionIndex.model_candidates: the same SQL and the same
RankingModel.features a served search runs), and the gold rule of the set labels them. The
weights maximise the likelihood of the gold candidates under a softmax over each question's
candidates (listwise), on standardised features with an L2 penalty, by full-batch Adam from
zero: deterministic for the same inputs. Each set's questions share its weight equally, so a
small set is not drowned by a large one. The standardisation is folded back, so the weights
printed apply to the raw features, as policy.ranking.model.weights does.

The snapshots must have been built with a policy that has a ranking model (any weights, the
wanted `candidates`): its candidates and features do not depend on its weights.

With --cosine, the snapshots must have been built with one --semantic model, and each
candidate gets one more feature, the cosine of its vector with the query's (what the re-rank adds
as score - weight x cosine): the model's weights and the re-rank's weight are fitted together,
so the lexical weights are fitted at the scale the cosine is weighed at (the builder uses them
for that model: its ranking_fit). The units nearest the query's vector that no lexical list
holds (the policy's semantic.dense of them) are candidates too, with the `dense` feature set.

With --literals, every column is fitted once more for the questions that quote a literal value
(the policy's rule tells them, as a search's `literals` argument does): the `literals_` weights,
and with --cosine the re-rank's `semantic_literals_weight` (the policy's literals_weight).

    python bench/fit_ranking.py --literals --train ../shared/eval/conala/train.json=PY311_DIR \
        --train bench/data/libraries-train/questions.json=TRAIN_LIBS_DIR:2 \
        --train bench/data/stdlib-natural-train/questions.json=NATURAL_DIR:0.25 \
        --dev ../shared/eval/libraries/dev.json=DEV_LIBS_DIR \
        --dev ../shared/eval/conala/dev.json=PY311_DIR

prints the fitted `model` section (JSON) on stdout and each set's figures under it on stderr.
Needs numpy (the semantic extra has it).
"""

import argparse
import dataclasses
import json
import math
import os
import sys

import numpy as np

if __package__:  # python -m bench.fit_ranking
    from bench import question_sets
else:  # python bench/fit_ranking.py
    import question_sets

sys.path.insert(0, question_sets.REPO_ROOT)
from retrieval.core.ranking import DENSE_FEATURE, LITERALS_PREFIX, MODEL_FEATURES  # noqa: E402
from retrieval.core.service import RetrievalService  # noqa: E402
from retrieval.core.snapshot import load_snapshot  # noqa: E402

TOP_K = question_sets.TOP_K


def candidate_matrices(question_set, snapshot_dir, cosine=False, literals=False, dense=True):
    """Return (the snapshot's model's candidate count, per question (features matrix, gold
    labels, places, question) of its model candidates); with cosine, each matrix has a last
    column, the candidate's cosine with the search's query (a semantic snapshot's); with
    literals, every column once more, times 1 where the search has literals (else 0); with
    cosine and not dense, the units nearest the query are left out (a model that does not weigh
    `dense` serves them at the floor)."""
    snapshot = load_snapshot(snapshot_dir)
    if cosine:
        from retrieval.rerank import attach, exact
        if snapshot.semantic is None or snapshot.ranking is None or snapshot.ranking.model is None:
            sys.exit(f"{snapshot_dir}: --cosine needs a snapshot built with --semantic and a model")
        # Its dense candidates are model candidates or not, whatever its own model weighs.
        model = dataclasses.replace(snapshot.ranking.model, weighs_dense=dense)
        ranking = dataclasses.replace(snapshot.ranking, model=model)
        snapshot = attach(dataclasses.replace(
            snapshot, policy=dataclasses.replace(snapshot.policy, ranking=ranking)))
    service = RetrievalService(snapshot)
    try:
        model = service.snapshot.ranking and service.snapshot.ranking.model
        if not model:
            sys.exit(f"{snapshot_dir}: its policy has no ranking model to read candidates with")
        rows = []
        for question in question_set.questions:
            rule = service.snapshot.select_rule(question.question, question.collection)
            collection = service.collection(question.collection)
            search = rule.first_search(question.version)
            candidates = collection.model_candidates(search)
            places = [question_set.place_of(question, url) for _, url, _ in candidates]
            features = np.array([c[2] for c in candidates], float).reshape(
                len(candidates), len(MODEL_FEATURES))
            if cosine:
                reranker = service.snapshot.reranker
                similarity = np.zeros(len(candidates))
                if candidates:  # the text the search embeds
                    similarity = exact.cosines(reranker.query_vector(search.embedded),
                                               reranker.vectors[[c[0] for c in candidates]])
                features = np.hstack([features, similarity[:, None]])
            if literals:
                features = np.hstack([features, features * float(rule.literals)])
            labels = np.array([place in question.gold for place in places], float)
            rows.append((features, labels, places, question))
        return model.candidates, rows
    finally:
        service.close()


def figures(rows, weights, kind=None):
    """Return hit@1, hit@10, R@10 over distinct places, and hit@2 / hit@8 (evidence proxies)."""
    n = hit1 = hit10 = found = gold = hit2 = hit8 = 0
    for features, _, places, question in rows:
        if kind is not None and question.kind != kind:
            continue
        n += 1
        gold += len(question.gold)
        if not places:
            continue
        # Stable: candidates come in row id order, and ties go to the lower row id, as served.
        order = np.argsort(-(features @ weights), kind="stable")
        top = question_sets.first_distinct((places[i] for i in order), TOP_K)
        matched = [place in question.gold for place in top]
        hit1 += matched[0]
        hit2 += any(matched[:2])
        hit8 += any(matched[:8])
        hit10 += any(matched)
        found += sum(matched)
    if not n:
        return {}
    return {"hit@1": hit1 / n, "hit@10": hit10 / n, "R@10": found / max(gold, 1),
            "hit@2": hit2 / n, "hit@8": hit8 / n}


def fit(sets, l2, steps, learning_rate):
    """Return raw-feature weights fitted on [(rows, set weight)]."""
    items = []
    for rows, set_weight in sets:
        labelled = [(x, y) for x, y, _, _ in rows if y.any()]
        items += [(x, y, set_weight / len(labelled)) for x, y in labelled]
    stacked = np.concatenate([x for x, _, _ in items])
    mean, scale = stacked.mean(0), stacked.std(0)
    scale[scale < 1e-9] = 1.0  # a constant feature: its weight stays 0
    items = [((x - mean) / scale, y, w) for x, y, w in items]
    weights = np.zeros(stacked.shape[1])
    first, second = np.zeros_like(weights), np.zeros_like(weights)
    for step in range(1, steps + 1):
        gradient = l2 * weights
        for x, y, item_weight in items:
            utility = x @ weights
            p = np.exp(utility - utility.max())
            p /= p.sum()
            gold = p * y
            gradient -= item_weight * (x.T @ (gold / gold.sum() - p))
        first = 0.9 * first + 0.1 * gradient
        second = 0.999 * second + 0.001 * gradient * gradient
        weights -= learning_rate * (first / (1 - 0.9 ** step)) / (
            np.sqrt(second / (1 - 0.999 ** step)) + 1e-8)
    return weights / scale


def parse_pair(text, weighted):
    """Return (set path, snapshot dir, weight) of SET=SNAPSHOT[:WEIGHT]."""
    path, _, snapshot = text.partition("=")
    weight = 1.0
    if weighted and ":" in os.path.basename(snapshot):
        snapshot, _, raw = snapshot.rpartition(":")
        weight = float(raw)
    if not path or not snapshot:
        raise argparse.ArgumentTypeError(f"{text!r}: want SET=SNAPSHOT")
    return path, snapshot, weight


def report(label, rows, weights):
    """Print one set's figures, over all questions and per kind, on stderr."""
    for kind in (None, "object", "section"):
        found = figures(rows, weights, kind)
        if found:
            print(f"{label} {kind or 'all'}: " + " ".join(
                f"{name} {100 * value:.1f}" for name, value in found.items()), file=sys.stderr)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", action="append", required=True,
                        type=lambda text: parse_pair(text, True), help="SET=SNAPSHOT[:WEIGHT]")
    parser.add_argument("--dev", action="append", default=[],
                        type=lambda text: parse_pair(text, False), help="SET=SNAPSHOT")
    parser.add_argument("--l2", type=float, default=0.1)
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--learning-rate", type=float, default=0.05)
    parser.add_argument("--cosine", action="store_true",
                        help="fit the semantic re-rank's weight too (semantic snapshots)")
    parser.add_argument("--literals", action="store_true",
                        help="fit each weight once more for searches with literals")
    parser.add_argument("--no-dense", dest="dense", action="store_false",
                        help="with --cosine: no dense model candidates (the fit weighs no dense)")
    args = parser.parse_args(argv)
    loaded, counts = {}, set()
    for path, snapshot, _ in args.train + args.dev:
        if (path, snapshot) not in loaded:
            print(f"candidates: {path} on {snapshot}", file=sys.stderr)
            count, loaded[path, snapshot] = candidate_matrices(
                question_sets.load(path), snapshot, args.cosine, args.literals, args.dense)
            counts.add(count)
    if len(counts) != 1:
        sys.exit(f"the snapshots' models read different candidate counts: {sorted(counts)}")
    fitted = fit([(loaded[path, snapshot], weight) for path, snapshot, weight in args.train],
                 args.l2, args.steps, args.learning_rate)
    # Rounded to 4 significant digits, as the policy holds them (people read it), and the
    # figures are those of the rounded weights.
    weights = np.array([float(f"{value:.4g}") for value in fitted])
    for role, pairs in (("train", args.train), ("dev", args.dev)):
        for path, snapshot, *_ in pairs:
            report(f"{role} {os.path.basename(path)}", loaded[path, snapshot], weights)
    # A lexical fit has no dense candidates: it leaves the feature out (the policy's 0).
    named = MODEL_FEATURES if args.cosine and args.dense else tuple(
        name for name in MODEL_FEATURES if name != DENSE_FEATURE)
    # The columns: MODEL_FEATURES, the cosine with --cosine; then all of them again with
    # --literals, the weights a search with literals adds.
    width = len(MODEL_FEATURES) + args.cosine
    fitted_weights = {name: float(weights[MODEL_FEATURES.index(name)]) for name in named}
    if args.literals:
        fitted_weights.update({LITERALS_PREFIX + name: float(
            weights[width + MODEL_FEATURES.index(name)]) for name in named})
    model = {"candidates": counts.pop(), "weights": fitted_weights}
    if args.cosine:  # the re-rank's weights: score - weight x cosine (+ literals_weight)
        model = {"model": model, "semantic_weight": float(weights[len(MODEL_FEATURES)])}
        if args.literals:
            model["semantic_literals_weight"] = float(weights[width + len(MODEL_FEATURES)])
    json.dump(model, sys.stdout, indent=2)
    print()
    return 0 if all(math.isfinite(value) for value in weights) else 1


if __name__ == "__main__":
    sys.exit(main())
