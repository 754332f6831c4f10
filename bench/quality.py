"""Evidence quality: run a CoNaLa split through /retrieve on the 3.11 docs and score the answers.

The data, the gold rule and the metrics are those of ../shared/eval/README.md. Gold is every
`python.library.<page>#<anchor>` entry of an item's `oracle_man` whose anchor is an id of the
rendered page `library/<page>.html`; items left without gold are not scored. Each scored item is
sent twice, at the default allowances and at the large budget (BUDGETS), each budget on its own
fresh `retrieval serve --threads 1` so neither pass meets a memo the other one filled.
"""

import argparse
import http.client
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections import Counter
from dataclasses import dataclass

if __package__:  # python -m bench.quality, or imported by the tests
    from bench import common, corpus_scale
else:  # python bench/quality.py, which puts bench/ itself on sys.path
    import common
    import corpus_scale

    sys.path.insert(0, common.REPO_ROOT)
from retrieval.ingest.rendered import RenderedSite  # noqa: E402

log = common.log
VERSION = "3.11"
HTML_ROOT = "/usr/share/doc/python3.11/html"
BASE_URL = corpus_scale.BASE_URL
LIBRARY_PREFIX = "python.library."
TOP_K = 10
# name, allowances sent with the question (none: the server's defaults).
BUDGETS = (("default", {}),
           ("max_reads_8", {"max_steps": 16, "max_searches": 4, "max_reads": 8,
                            "max_source_bytes": 65536}))


@dataclass(frozen=True)
class Item:
    """One scored question: its id, its text, and its gold URLs (normalised, distinct)."""

    question_id: str
    question: str
    gold: tuple


def normalise_url(url):
    """Return url with its fragment unquoted, so that `#a%2Eb` and `#a.b` compare equal."""
    address, hashed, fragment = url.partition("#")
    return address + hashed + urllib.parse.unquote(fragment)


def gold_urls(oracle_man, site, base_url):
    """Return (gold URLs, entries dropped) of one item's oracle_man under the gold rule."""
    gold, dropped = [], 0
    for entry in oracle_man:
        if not entry.startswith(LIBRARY_PREFIX):
            continue
        page, _, anchor = entry[len(LIBRARY_PREFIX):].partition("#")
        ids = site.ids(f"library/{page}.html")
        if not anchor or ids is None or anchor not in ids:
            # DevDocs names that are not ids of the 3.11 pages (`functions#list`): not gold.
            dropped += 1
            continue
        url = normalise_url(f"{base_url}library/{page}.html#{anchor}")
        if url not in gold:
            gold.append(url)
    return tuple(gold), dropped


def load_items(path, site, base_url):
    """Return the split's scored items and the counts that say what was left out."""
    with open(path, encoding="utf-8") as f:
        raw = json.load(f)
    items, counts = [], Counter(items=len(raw))
    for entry in raw:
        if any(e.startswith(LIBRARY_PREFIX) for e in entry["oracle_man"]):
            counts["with_library_entry"] += 1
        gold, dropped = gold_urls(entry["oracle_man"], site, base_url)
        counts["entries_dropped"] += dropped
        if gold:
            items.append(Item(entry["question_id"], entry["nl"], gold))
            counts["gold_anchors"] += len(gold)
    counts["scored"] = len(items)
    return items, dict(counts)


def searches(response):
    """Return the hit lists of the trace's searches, in trace order."""
    return [entry.get("result", {}).get("results", []) for entry in response.get("trace", ())
            if entry.get("action", {}).get("tool") == "search"]


def first_distinct(urls, k=TOP_K):
    """Return the first k distinct URLs of an iterable, in order; stop reading there."""
    seen = []
    for url in urls:
        if url not in seen:
            seen.append(url)
            if len(seen) == k:
                break
    return seen


def first_search_urls(response, url_of, k=TOP_K):
    """Return the first k distinct (normalised) URLs of the response's first search."""
    hits = (searches(response) or [[]])[0]
    return first_distinct((normalise_url(url_of(hit)) for hit in hits), k)


def returned_urls(response, url_of):
    """Return every distinct URL the response names: all search hits, then the evidence."""
    hits = [hit for found in searches(response) for hit in found]
    return set(url_of(hit) for hit in hits + list(response.get("evidence", ())))


def score(runs):
    """Return hit rate, micro recall and evidence hit rate over (gold, first URLs, evidence)."""
    if not runs:
        return {"hit_at_10": 0.0, "recall_at_10": 0.0, "evidence_hit": 0.0}
    hits = found = total = evidence_hits = 0
    for gold, first, evidence in runs:
        matched = set(gold) & set(first)
        hits += bool(matched)
        found += len(matched)
        total += len(gold)
        evidence_hits += bool(set(gold) & set(evidence))
    return {"hit_at_10": hits / len(runs), "recall_at_10": found / total,
            "evidence_hit": evidence_hits / len(runs)}


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


def build(source, base_url, out_dir, timeout):
    """Build the 3.11 snapshot into out_dir; return the wall seconds it took."""
    cmd = [sys.executable, "-m", "retrieval", "build", "--source", f"{VERSION}={source}",
           "--base-url", f"{VERSION}={base_url}", "--out", out_dir]
    log(f"build: {' '.join(cmd)}")
    started = time.perf_counter()
    # stderr passes through: the builder's own progress lines are the progress report.
    out = subprocess.run(cmd, cwd=common.REPO_ROOT, env=corpus_scale.child_env(),
                         stdout=subprocess.PIPE, text=True, timeout=timeout)
    elapsed = time.perf_counter() - started
    if out.returncode != 0:
        raise RuntimeError(f"build failed with exit status {out.returncode}")
    return elapsed


def run_budget(name, allowances, items, snapshot, log_dir, args):
    """Send every item once at one budget to a fresh server; return per-item runs and its meta."""
    server = corpus_scale.Server(f"quality-{name}", snapshot, log_dir)
    client = None
    runs = []
    try:
        server.start(args.startup_timeout)
        client = Client(server.port)
        for n, item in enumerate(items, 1):
            body = json.dumps({"question": item.question, "version": VERSION, **allowances})
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


def summarize(items, runs):
    """Return one budget's numbers from its per-item runs."""
    latencies = sorted(run["latency_ms"] for run in runs)
    summary = score([(item.gold, run["first_urls"], run["evidence_urls"])
                     for item, run in zip(items, runs, strict=True)])
    summary.update({
        "p50_ms": corpus_scale.percentile(latencies, 50),
        "p99_ms": corpus_scale.percentile(latencies, 99),
        "mean_first_urls": sum(len(run["first_urls"]) for run in runs) / len(runs),
        "mean_reads": sum(run["reads"] for run in runs) / len(runs),
        "outcomes": dict(Counter(run["outcome"] for run in runs).most_common()),
    })
    return summary


def report(args, counts, built, summaries, dead, distinct):
    """Print the plain-text table on stdout."""
    print(f"split {args.split}: {counts['items']} items, {counts['with_library_entry']} with a "
          f"python.library entry, {counts['scored']} scored ({counts['gold_anchors']} gold "
          f"anchors; {counts['entries_dropped']} entries not ids of the rendered pages)")
    if args.limit:
        print(f"--limit {args.limit}: the first {min(args.limit, counts['scored'])} scored items")
    if built is not None:
        print(f"build: {built:.1f} s")
    where = args.snapshot_dir if args.snapshot_kept else "a temp dir (removed)"
    print(f"snapshot {where}  corpus_id {summaries['default']['corpus_id']}")
    print()
    names = [name for name, _ in BUDGETS]
    print(f"{'measure':<26}" + "".join(f"{name:>16}" for name in names))
    rows = (("hit@10 (first search)", lambda s: f"{100 * s['hit_at_10']:.1f} %"),
            ("R@10 (first search)", lambda s: f"{100 * s['recall_at_10']:.1f} %"),
            ("evidence hit", lambda s: f"{100 * s['evidence_hit']:.1f} %"),
            ("first-search URLs per item", lambda s: f"{s['mean_first_urls']:.2f}"),
            ("reads per item", lambda s: f"{s['mean_reads']:.2f}"),
            ("latency p50 / p99 ms", lambda s: f"{s['p50_ms']:.1f} / {s['p99_ms']:.1f}"))
    for label, cell in rows:
        print(f"{label:<26}" + "".join(f"{cell(summaries[name]):>16}" for name in names))
    print(f"dead anchors: {len(dead)} of {distinct} distinct returned URLs")
    for name in names:
        outcomes = ", ".join(f"{k} {v}" for k, v in summaries[name]["outcomes"].items())
        print(f"status/reason {name}: {outcomes}")


def parse_args(argv=None):
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--split", required=True,
                   help="a CoNaLa split, e.g. ../shared/eval/conala/dev.json")
    p.add_argument("--snapshot", dest="snapshot_dir",
                   help="a built snapshot directory (default: build one into a temp dir)")
    p.add_argument("--out", help="build the snapshot here and keep it")
    p.add_argument("--html-root", default=HTML_ROOT, help="the rendered 3.11 docs (gold ids)")
    p.add_argument("--base-url", default=BASE_URL)
    p.add_argument("--build-source", help="what the builder reads (default: HTML_ROOT itself)")
    p.add_argument("--limit", type=int, help="score only the first N scored items")
    p.add_argument("--json", dest="json_out", help="write the numbers and per-item runs here")
    p.add_argument("--startup-timeout", type=float, default=60)
    p.add_argument("--build-timeout", type=float, default=600)
    args = p.parse_args(argv)
    if args.snapshot_dir and args.out:
        p.error("--out builds a snapshot, --snapshot reuses one: give at most one")
    if args.limit is not None and args.limit < 1:
        p.error("--limit must be positive")
    if not args.base_url.endswith("/"):
        p.error("--base-url must end with '/'")
    args.build_source = args.build_source or args.html_root
    return args


def main(argv=None):
    """Build or take a snapshot, run both budgets, score, report; always clean up."""
    args = parse_args(argv)
    common.exit_on_sigterm()
    site = RenderedSite(args.html_root, args.base_url)
    items, counts = load_items(args.split, site, args.base_url)
    items = items[:args.limit] if args.limit else items
    log(f"{counts['scored']} of {counts['items']} items scored "
        f"({counts['with_library_entry']} with a python.library entry)")
    built = None
    # The scratch directory holds the snapshot when it is neither given nor kept (--out).
    with tempfile.TemporaryDirectory(prefix="quality-snapshot-") as scratch:
        args.snapshot_kept = bool(args.snapshot_dir or args.out)
        if args.snapshot_dir is None:
            args.snapshot_dir = os.path.abspath(args.out) if args.out else scratch
            built = build(args.build_source, args.base_url, args.snapshot_dir,
                             args.build_timeout)
            log(f"build: {built:.1f} s")
        log_dir = tempfile.mkdtemp(prefix="quality-logs-")
        try:
            runs, summaries = {}, {}
            for name, allowances in BUDGETS:
                runs[name], meta = run_budget(name, allowances, items, args.snapshot_dir,
                                              log_dir, args)
                summaries[name] = dict(summarize(items, runs[name]), allowances=allowances,
                                       **meta)
        except BaseException:
            # Server logs are only worth keeping when something failed.
            log(f"server logs kept in {log_dir}")
            raise
        shutil.rmtree(log_dir, ignore_errors=True)

    returned = set().union(*(run["returned_urls"] for budget in runs.values() for run in budget))
    dead = sorted(url for url in returned if not site.lands(url))
    report(args, counts, built, summaries, dead, len(returned))
    if args.json_out:
        document = {
            "meta": {"split": args.split, "limit": args.limit, "snapshot": args.snapshot_dir,
                     "snapshot_kept": args.snapshot_kept, "build_source": args.build_source,
                     "html_root": args.html_root, "base_url": args.base_url,
                     "build_s": built, "python": platform.python_version(),
                     "finished_unix": time.time()},
            "counts": counts,
            "budgets": summaries,
            "dead_anchors": {"count": len(dead), "distinct_returned_urls": len(returned),
                             "urls": dead},
            "items": [{"question_id": item.question_id, "question": item.question,
                       "gold": list(item.gold),
                       **{name: {k: v for k, v in runs[name][i].items() if k != "returned_urls"}
                          for name in runs}}
                      for i, item in enumerate(items)],
        }
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump(document, f, indent=1)
        log(f"wrote {args.json_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
