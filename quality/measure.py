"""Evidence quality: run a question set through /retrieve and score the answers.

Any set under ../shared/eval/ (CoNaLa splits, libraries/dev.json) or quality/data/ (the libraries
training set) is read by quality/question_sets.py: its questions, its gold places and the trees
its snapshot is built from. Each scored item is sent twice, at the default allowances and at the
large budget (BUDGETS), each budget on its own fresh `retrieval serve --threads 1` so neither
pass meets a memo the other one filled. Figures are given over all items and per kind (object,
section); dead anchors are returned URLs whose fragment is not an id of the rendered page, and
the gold places no unit of the snapshot names are counted apart (no ranking can find them).
"""

import argparse
import dataclasses
import http.client
import json
import os
import platform
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter

if __package__:  # python -m quality.measure, or imported by the tests
    from quality import question_sets
else:  # python quality/measure.py, which puts quality/ itself on sys.path
    import question_sets

    sys.path.insert(0, question_sets.REPO_ROOT)
# The server and timing helpers are the bench harness's (a measure serves as a bench run does).
from bench import common, corpus_scale  # noqa: E402
from retrieval.ingest.readers.rendered import RenderedSite  # noqa: E402

log = common.log
TOP_K = question_sets.TOP_K
KINDS = ("object", "section")
# name, allowances sent with the question (none: the server's defaults).
BUDGETS = (("default", {}),
           ("max_reads_8", {"max_steps": 16, "max_searches": 4, "max_reads": 8,
                            "max_source_bytes": 65536}))
normalise_url = question_sets.normalise_url
gold_urls = question_sets.gold_urls


def searches(response):
    """Return the hit lists of the trace's searches, in trace order."""
    return [entry.get("result", {}).get("results", []) for entry in response.get("trace", ())
            if entry.get("action", {}).get("tool") == "search"]


first_distinct = question_sets.first_distinct


def first_search_urls(response, url_of, k=TOP_K):
    """Return the first k distinct (normalised) URLs of the response's first search."""
    hits = (searches(response) or [[]])[0]
    return first_distinct((normalise_url(url_of(hit)) for hit in hits), k)


def returned_urls(response, url_of):
    """Return every distinct URL the response names: all search hits, then the evidence."""
    hits = [hit for found in searches(response) for hit in found]
    return set(url_of(hit) for hit in hits + list(response.get("evidence", ())))


def score(runs):
    """Return hit@1, hit@10, micro R@10 and evidence hit over (gold, first places, evidence)."""
    if not runs:
        return {"hit_at_1": 0.0, "hit_at_10": 0.0, "recall_at_10": 0.0, "evidence_hit": 0.0}
    first_hits = hits = found = total = evidence_hits = 0
    for gold, first, evidence in runs:
        matched = set(gold) & set(first)
        first_hits += bool(first) and first[0] in gold
        hits += bool(matched)
        found += len(matched)
        total += len(gold)
        evidence_hits += bool(set(gold) & set(evidence))
    return {"hit_at_1": first_hits / len(runs), "hit_at_10": hits / len(runs),
            "recall_at_10": found / total, "evidence_hit": evidence_hits / len(runs)}


class Client:
    """Requests on one keep-alive connection, timed client-side; passage URLs looked up once."""

    def __init__(self, port, timeout=30):
        self.port = port
        self.timeout = timeout
        self.conn = None
        self.reconnects = 0
        self.passage_urls = {}

    def send(self, method, path, body=None):
        """Return (HTTP status, body bytes, seconds from send to the last body byte)."""
        headers = {"Content-Type": "application/json"} if body is not None else {}
        started = time.perf_counter()
        for attempt in (1, 2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(common.HOST, self.port,
                                                       timeout=self.timeout)
            try:
                self.conn.request(method, path, body=body, headers=headers)
                resp = self.conn.getresponse()
                data = resp.read()
                return resp.status, data, time.perf_counter() - started
            except (ConnectionError, http.client.RemoteDisconnected):
                # A dropped keep-alive connection: retried once, the reconnect in the time.
                self.conn.close()
                self.conn = None
                self.reconnects += 1
                if attempt == 2:
                    raise

    def url_of(self, hit):
        """Return a hit's URL: its own `url`, else its passage's, fetched once per passage."""
        if "url" in hit:
            return hit["url"]
        passage_id = hit["passage_id"]
        if passage_id not in self.passage_urls:
            status, data, _ = self.send("GET", f"/passages/{passage_id}")
            if status != 200:
                raise RuntimeError(f"GET /passages/{passage_id} answered {status}: {data[:200]!r}")
            self.passage_urls[passage_id] = json.loads(data)["url"]
        return self.passage_urls[passage_id]

    def close(self):
        """Close the connection, if one is open."""
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def build(question_set, out_dir, args):
    """Build the set's snapshot into out_dir; return the wall seconds it took."""
    cmd = [sys.executable, "-m", "retrieval", "build", *question_set.build_arguments(),
           "--out", out_dir]
    if args.ranking:
        cmd += ["--ranking", args.ranking]
    if args.semantic:
        cmd += ["--semantic", args.semantic]
    log(f"build: {' '.join(cmd)}")
    started = time.perf_counter()
    # stderr passes through: the builder's own progress lines are the progress report.
    out = subprocess.run(cmd, cwd=common.REPO_ROOT, env=corpus_scale.child_env(),
                         stdout=subprocess.PIPE, text=True, timeout=args.build_timeout)
    elapsed = time.perf_counter() - started
    if out.returncode != 0:
        raise RuntimeError(f"build failed with exit status {out.returncode}")
    return elapsed


def run_budget(name, allowances, question_set, snapshot, log_dir, args):
    """Send every item once at one budget to a fresh server; return per-item runs and its meta."""
    server = corpus_scale.Server(f"quality-{name}", snapshot, log_dir)
    client = None
    runs = []
    items = question_set.questions
    try:
        server.start(args.startup_timeout)
        client = Client(server.port)
        for n, item in enumerate(items, 1):
            where = {} if item.collection == "default" else {"collection": item.collection}
            body = json.dumps({"question": item.question, "version": item.version, **where,
                               **allowances})
            status, data, elapsed = client.send("POST", "/retrieve", body)
            response = json.loads(data) if data else {}
            if status == 200:
                outcome = f"{response['status']}/{response['reason']}"
            else:
                outcome = f"http_{status}/{response.get('error', {}).get('code')}"
                response = {}
            evidence = [client.url_of(e) for e in response.get("evidence", ())]
            runs.append({
                "outcome": outcome, "latency_ms": round(elapsed * 1000, 3),
                "reads": response.get("usage", {}).get("reads", 0),
                "first_urls": first_search_urls(response, client.url_of),
                "evidence_urls": [normalise_url(url) for url in evidence],
                "returned_urls": sorted(returned_urls(response, client.url_of)),
            })
            if n % 50 == 0:
                log(f"[{name}] {n}/{len(items)}")
        return runs, {"corpus_id": server.corpus_id, "ready_ms": server.ready_s * 1000,
                      "reconnects": client.reconnects, "passage_lookups": len(client.passage_urls)}
    finally:
        if client is not None:
            client.close()
        server.stop()


def places(question_set, item, urls, k=None):
    """Return the distinct places of urls, in order (the first k when k is given)."""
    return first_distinct((question_set.place_of(item, url) for url in urls), k)


def summarize(question_set, runs, kind=None):
    """Return one budget's numbers from its per-item runs (of one kind of item, if given)."""
    pairs = [(item, run) for item, run in zip(question_set.questions, runs, strict=True)
             if kind is None or item.kind == kind]
    summary = score([(item.gold, places(question_set, item, run["first_urls"], TOP_K),
                      places(question_set, item, run["evidence_urls"])) for item, run in pairs])
    if kind is not None:
        return dict(summary, items=len(pairs))
    latencies = sorted(run["latency_ms"] for run in runs)
    summary.update({
        "items": len(pairs),
        "p50_ms": corpus_scale.percentile(latencies, 50),
        "p99_ms": corpus_scale.percentile(latencies, 99),
        "mean_first_urls": sum(len(run["first_urls"]) for run in runs) / len(runs),
        "mean_reads": sum(run["reads"] for run in runs) / len(runs),
        "outcomes": dict(Counter(run["outcome"] for run in runs).most_common()),
    })
    for name in KINDS:
        if any(item.kind == name for item in question_set.questions):
            summary[name] = summarize(question_set, runs, name)
    return summary


def dead_anchors(question_set, runs):
    """Return (dead URLs, distinct URLs returned): fragments that are no id of their page."""
    sites = {collection: RenderedSite(root, base_url)
             for collection, _, root, base_url in question_set.trees}
    returned = set()
    for budget in runs.values():
        for item, run in zip(question_set.questions, budget, strict=True):
            returned.update((item.collection, url) for url in run["returned_urls"])
    dead = sorted(url for collection, url in returned if not sites[collection].lands(url))
    return dead, len(returned)


def snapshot_unit_urls(snapshot_dir) -> list:
    """Return (collection, URL) of every unit of a built snapshot directory."""
    conn = sqlite3.connect(f"file:{os.path.join(snapshot_dir, 'passages.sqlite')}?mode=ro",
                           uri=True)
    try:
        return conn.execute("SELECT DISTINCT collection, url FROM passages").fetchall()
    finally:
        conn.close()


def gold_without_unit(question_set, unit_urls) -> dict:
    """Count the gold places no unit names: an ingest gap, which no ranking can close.

    Returns the gold places, those without a unit, and the items none of whose gold places
    has one.
    """
    places: dict = {}
    for item in question_set.questions:
        if item.collection not in places:
            places[item.collection] = {question_set.place_of(item, url)
                                       for collection, url in unit_urls
                                       if collection == item.collection}
    missing = [[place for place in item.gold if place not in places[item.collection]]
               for item in question_set.questions]
    return {"gold": sum(len(item.gold) for item in question_set.questions),
            "without_unit": sum(map(len, missing)),
            "items_without_any": sum(len(lost) == len(item.gold) for lost, item
                                     in zip(missing, question_set.questions, strict=True))}


def report(args, question_set, built, summaries, dead, distinct, uncovered):
    """Print the plain-text table on stdout."""
    kinds = Counter(item.kind for item in question_set.questions)
    print(f"set {args.split}: {len(question_set.questions)} scored items ("
          + ", ".join(f"{kinds[kind]} {kind}" for kind in KINDS) + ")")
    if args.limit:
        print(f"--limit {args.limit}: the first {args.limit} scored items")
    if built is not None:
        print(f"build: {built:.1f} s" + (f" (--ranking {args.ranking})" if args.ranking else "")
              + (f" (--semantic {args.semantic})" if args.semantic else ""))
    where = args.snapshot_dir if args.snapshot_kept else "a temp dir (removed)"
    print(f"snapshot {where}  corpus_id {summaries['default']['corpus_id']}")
    print()
    names = [name for name, _ in BUDGETS]
    print(f"{'measure':<30}" + "".join(f"{name:>16}" for name in names))
    percent = (("hit@1", "hit_at_1"), ("hit@10", "hit_at_10"), ("R@10", "recall_at_10"),
               ("evidence hit", "evidence_hit"))
    for scope in (None, *KINDS):
        if scope is not None and scope not in summaries["default"]:
            continue
        for label, key in percent:
            cells = [summaries[name] if scope is None else summaries[name][scope]
                     for name in names]
            title = f"{label} ({scope or 'all'})"
            print(f"{title:<30}" + "".join(f"{100 * cell[key]:>14.1f} %" for cell in cells))
    rows = (("first-search URLs per item", lambda s: f"{s['mean_first_urls']:.2f}"),
            ("reads per item", lambda s: f"{s['mean_reads']:.2f}"),
            ("latency p50 / p99 ms", lambda s: f"{s['p50_ms']:.1f} / {s['p99_ms']:.1f}"))
    for label, cell in rows:
        print(f"{label:<30}" + "".join(f"{cell(summaries[name]):>16}" for name in names))
    print(f"dead anchors: {len(dead)} of {distinct} distinct returned URLs")
    print(f"gold places no unit names: {uncovered['without_unit']} of {uncovered['gold']} "
          f"(items with none: {uncovered['items_without_any']})")
    for name in names:
        outcomes = ", ".join(f"{k} {v}" for k, v in summaries[name]["outcomes"].items())
        print(f"status/reason {name}: {outcomes}")


def parse_args(argv=None):
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--split", required=True,
                   help="a question set: ../shared/eval/conala/dev.json, "
                        "../shared/eval/libraries/dev.json, quality/data/<set>/questions.json "
                        "(libraries-train, libraries-heldout, stdlib-natural, ...)")
    p.add_argument("--snapshot", dest="snapshot_dir",
                   help="a built snapshot directory (default: build one into a temp dir)")
    p.add_argument("--out", help="build the snapshot here and keep it")
    p.add_argument("--ranking", choices=("fitted", "fielded"),
                   help="the build's --ranking (default: the builder's)")
    p.add_argument("--semantic", help="the build's --semantic MODEL (default: lexical)")
    p.add_argument("--limit", type=int, help="score only the first N scored items")
    p.add_argument("--json", dest="json_out", help="write the numbers and per-item runs here")
    p.add_argument("--startup-timeout", type=float, default=60)
    p.add_argument("--build-timeout", type=float, default=900)
    args = p.parse_args(argv)
    if args.snapshot_dir and args.out:
        p.error("--out builds a snapshot, --snapshot reuses one: give at most one")
    if args.snapshot_dir and (args.ranking or args.semantic):
        p.error("--ranking and --semantic are build options: not with --snapshot")
    if args.limit is not None and args.limit < 1:
        p.error("--limit must be positive")
    return args


def main(argv=None):
    """Build or take a snapshot, run both budgets, score, report; always clean up."""
    args = parse_args(argv)
    common.exit_on_sigterm()
    question_set = question_sets.load(args.split)
    if args.limit:
        question_set = dataclasses.replace(question_set,
                                           questions=question_set.questions[:args.limit])
    log(f"{len(question_set.questions)} items scored")
    built = None
    # The scratch directory holds the snapshot when it is neither given nor kept (--out).
    with tempfile.TemporaryDirectory(prefix="quality-snapshot-") as scratch:
        args.snapshot_kept = bool(args.snapshot_dir or args.out)
        if args.snapshot_dir is None:
            args.snapshot_dir = os.path.abspath(args.out) if args.out else scratch
            built = build(question_set, args.snapshot_dir, args)
            log(f"build: {built:.1f} s")
        log_dir = tempfile.mkdtemp(prefix="quality-logs-")
        try:
            runs, summaries = {}, {}
            for name, allowances in BUDGETS:
                runs[name], meta = run_budget(name, allowances, question_set, args.snapshot_dir,
                                              log_dir, args)
                summaries[name] = dict(summarize(question_set, runs[name]),
                                       allowances=allowances, **meta)
            uncovered = gold_without_unit(question_set, snapshot_unit_urls(args.snapshot_dir))
        except BaseException:
            # Server logs are only worth keeping when something failed.
            log(f"server logs kept in {log_dir}")
            raise
        shutil.rmtree(log_dir, ignore_errors=True)

    dead, distinct = dead_anchors(question_set, runs)
    report(args, question_set, built, summaries, dead, distinct, uncovered)
    if args.json_out:
        document = {
            "meta": {"split": args.split, "limit": args.limit, "snapshot": args.snapshot_dir,
                     "snapshot_kept": args.snapshot_kept, "ranking": args.ranking,
                     "semantic": args.semantic, "build_s": built,
                     "python": platform.python_version(), "finished_unix": time.time()},
            "budgets": summaries,
            "dead_anchors": {"count": len(dead), "distinct_returned_urls": distinct,
                             "urls": dead},
            "gold_without_unit": uncovered,
            "items": [{"question_id": item.question_id, "question": item.question,
                       "collection": item.collection, "kind": item.kind,
                       **{name: {k: v for k, v in runs[name][i].items() if k != "returned_urls"}
                          for name in runs}}
                      for i, item in enumerate(question_set.questions)],
        }
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump(document, f, indent=1)
        log(f"wrote {args.json_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
