"""A question set's libraries built from the index (`pypi:`) beside their rendered sites.

For each library of a libraries-format question set (`../shared/eval/libraries/dev.json`, or a set
of quality/data/ with its roots.json), two snapshots are built: one from `--source
pypi:DIST==VERSION` (the release's archive from the index pip is configured for), one from the
rendered HTML at the set's root for that library, both with the root's `file://` URL as base URL,
so that a unit of either names a place of the same pages. Each library is its own build, so a
release that cannot be fetched or read fails alone (recorded, its questions scored as misses).
Every question of the library is sent through `/retrieve` at measure.py's two budgets (the
server's default allowances, and 8 reads), each budget on a fresh `retrieval serve --threads 1`,
and scored as the set's README says (first search, hit@10, R@10, evidence hit), per kind (object,
section). Every passage URL of each build is checked against the rendered tree, as `retrieval
verify SNAP --rendered COLLECTION/VERSION=ROOT` does (retrieval.ingest.verify.dead_urls): a page
or id the rendered site lacks counts dead; a URL outside the site's base (an object no page
documents, linked at its file and lines in the release) is counted apart, as off-site. The report
is Markdown on stdout; --json writes the figures and every dead URL.

Each object item is also searched by name (issue 44: every library's documented objects found
by name): the name a user would write for its primary gold object, read off the rendered page
by one rule for every item (object_name), sent to `/search` (limit 10, the query read as a
question) on the default budget's server; found when a gold place is among its first 10
distinct places, as hit@10 counts. Reported per library, and their mean, for both builds.

    python quality/package_docs.py [--questions SET_JSON] [--libraries jinja2,pytest]
        [--semantic minilm] [--retrieval-root DIR] [--out DIR [--reuse]] [--json FILE]
        [--jobs N]

--reuse measures the snapshots already at --out (KIND-LIBRARY) instead of building them.

--retrieval-root runs the builder, the server and the dead-URL check of another checkout (its
directory as cwd and PYTHONPATH): the "before" of a comparison. Nothing is fitted or tuned here.
"""

import argparse
import concurrent.futures
import dataclasses
import html.parser
import json
import os
import platform
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter

if __package__:  # python -m quality.package_docs, or imported by the tests
    from quality import measure, question_sets
else:  # python quality/package_docs.py, which puts quality/ itself on sys.path
    import question_sets

    sys.path.insert(0, question_sets.REPO_ROOT)
    import measure
from bench import common, corpus_scale  # noqa: E402

log = common.log
REPO_ROOT = question_sets.REPO_ROOT
DEV_SET = os.path.join(question_sets.SHARED_EVAL, "libraries", "dev.json")
# The distribution name on the index where it is not the set's library name (pip compares names
# case-insensitively; these are spelled as the index spells them).
DISTRIBUTIONS = {"sqlalchemy": "SQLAlchemy", "jinja2": "Jinja2", "pillow": "Pillow"}
BUILDS = ("pypi", "rendered")
# The runs' key of the object items' name searches (beside measure.BUDGETS' names).
BY_NAME = "by_name"
# The same check as `retrieval verify --rendered`, run by the checkout under test (the module
# moved from ingest/rendered.py to ingest/verify.py); prints the dead-URL lines as JSON.
DEAD_URLS = """\
import json, sys
try:
    from retrieval.ingest.verify import dead_urls
except ImportError:
    from retrieval.ingest.rendered import dead_urls
roots = {tuple(key.split("/", 1)): root for key, root in json.loads(sys.argv[2]).items()}
print(json.dumps(dead_urls(sys.argv[1], roots)))
"""


@dataclasses.dataclass(frozen=True)
class Library:
    """One library of the set: its release on the index and its rendered site."""

    collection: str
    version: str
    root: str
    base_url: str

    @property
    def dist(self) -> str:
        return DISTRIBUTIONS.get(self.collection, self.collection)

    def source(self, build: str) -> str:
        """The --source value of one kind of build."""
        label = f"{self.collection}/{self.version}"
        if build == "pypi":
            return f"{label}=pypi:{self.dist}=={self.version}"
        return f"{label}={self.root}"


def child_env(retrieval_root: str) -> dict:
    """The environment of a child run from retrieval_root: it first on PYTHONPATH, and no
    RETRIEVAL_* overrides."""
    env = corpus_scale.child_env()
    if retrieval_root != REPO_ROOT:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (retrieval_root, os.environ.get(
            "PYTHONPATH")) if p)
    return env


class Server(corpus_scale.Server):
    """`retrieval serve` of the checkout under test."""

    def __init__(self, name, snapshot, log_dir, retrieval_root):
        super().__init__(name, snapshot, log_dir)
        self.retrieval_root = retrieval_root

    def launch(self, cmd, env, pass_fds=()):
        with open(self.log_path, "ab") as logf:
            self.started = time.perf_counter()
            self.proc = subprocess.Popen(
                cmd, cwd=self.retrieval_root, env=child_env(self.retrieval_root),
                stdin=subprocess.DEVNULL, stdout=logf, stderr=subprocess.STDOUT,
                pass_fds=pass_fds, start_new_session=True)


def build(library: Library, kind: str, out: str, args) -> dict:
    """Build one library's snapshot of one kind; return its seconds, exit status and last
    output lines (a failure is recorded, not raised)."""
    command = [sys.executable, "-m", "retrieval", "build", "--source", library.source(kind),
               "--base-url", f"{library.collection}/{library.version}={library.base_url}",
               "--out", out]
    if args.semantic:
        command += ["--semantic", args.semantic]
    log(f"build: {' '.join(command)}")
    started = time.perf_counter()
    try:
        done = subprocess.run(command, cwd=args.retrieval_root,
                              env=child_env(args.retrieval_root), stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=args.build_timeout)
        status, output = done.returncode, (done.stdout + done.stderr).strip().splitlines()
    except subprocess.TimeoutExpired:
        status, output = "timeout", [f"no end within {args.build_timeout:.0f} s"]
    seconds = time.perf_counter() - started
    log(f"build {kind} {library.collection}: exit {status} in {seconds:.0f} s")
    return {"exit": status, "seconds": round(seconds, 1), "tail": output[-5:]}


def unit_counts(snapshot: str) -> tuple:
    """Return (units, distinct unit URLs) of a built snapshot."""
    conn = sqlite3.connect(f"file:{os.path.join(snapshot, 'passages.sqlite')}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT count(*), count(DISTINCT url) FROM passages").fetchone()
    finally:
        conn.close()


def dead_urls(library: Library, snapshot: str, args) -> list:
    """Return the snapshot's URLs that do not land on the library's rendered tree."""
    done = subprocess.run(
        [sys.executable, "-c", DEAD_URLS, snapshot,
         json.dumps({f"{library.collection}/{library.version}": library.root})],
        cwd=args.retrieval_root, env=child_env(args.retrieval_root), capture_output=True,
        text=True, check=True)
    return json.loads(done.stdout)


def site_urls(library: Library, dead: list) -> tuple:
    """Return (the dead lines of URLs on the library's site, how many URLs are elsewhere).

    A URL outside the site's base (`pypi:DIST==VERSION/PATH#L1-L9`: an object of the release
    no page documents, linked at its file and lines) names no page of the site, so the check
    finds it on none: it is counted apart, not as a dead page of the site."""
    elsewhere = [line for line in dead
                 if not line.partition(" dead URL ")[2].startswith(library.base_url)]
    return [line for line in dead if line not in elsewhere], len(elsewhere)


# A dotted Python name as code writes it (retrieval.core.lookup.API_NAME's shape).
DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
# sphinx-paramlinks' id of a parameter: the object's full name, `.params.`, the parameter.
PARAMETER_ID = re.compile(rf"({DOTTED.pattern})\.params\.([A-Za-z_][A-Za-z0-9_]*)")
HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")


class _NamedElement(html.parser.HTMLParser):
    """Read, from a rendered page, what the element with one id shows as its name: a `<dt>`
    signature's `descname` text, or the text (and the first `<code>`'s text) of the heading
    the id is on, opens (a `<section>`) or stands just before (an empty label)."""

    def __init__(self, anchor: str):
        super().__init__(convert_charrefs=True)
        self.anchor = anchor
        self.mode: str | None = None  # None (not seen yet), "dt", "before-heading", "heading"
        self.closing = ""  # the end tag that ends what is read
        self.descname_depth = 0  # inside a `descname` span: how many spans deep
        self.code_depth = 0
        self.text: list = []
        self.code: list = []
        self.codes = 0  # <code> elements seen in the heading
        self.done = False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if self.done:
            return
        if self.mode is None:
            if attributes.get("id") == self.anchor:
                self.mode, self.closing = (("dt", "dt") if tag == "dt" else
                                           ("heading", tag) if tag in HEADINGS else
                                           ("before-heading", ""))
        elif self.mode == "before-heading" and tag in HEADINGS:
            self.mode, self.closing = "heading", tag
        elif self.mode == "dt" and tag == "span":
            if self.descname_depth or "descname" in (attributes.get("class") or "").split():
                self.descname_depth += 1
        elif self.mode == "heading" and tag == "code":
            self.codes += 1
            self.code_depth += 1

    def handle_endtag(self, tag):
        if self.done or self.mode is None:
            return
        if tag == self.closing:
            self.done = True
        elif tag == "span" and self.descname_depth:
            self.descname_depth -= 1
        elif tag == "code" and self.code_depth:
            self.code_depth -= 1

    def handle_data(self, data):
        if self.done:
            return
        if self.mode == "dt" and self.descname_depth:
            self.text.append(data)
        elif self.mode == "heading":
            self.text.append(data)
            if self.code_depth and self.codes == 1:
                self.code.append(data)


def object_name(root: str, gold: str) -> str | None:
    """Return the name a user would search an object item's primary gold place by (None: its
    page shows none), read off the rendered site (a documented rule, the same for every item):

    - a sphinx-paramlinks parameter id (`sqlalchemy.create_engine.params.pool_pre_ping`): the
      object's full name and the parameter, `sqlalchemy.create_engine pool_pre_ping`;
    - a `<dt>` signature whose id is a dotted Python name (the py domain's ids): that name;
      another `<dt>` (the std domain's `confval-markers`, `envvar-PYTEST_ADDOPTS`, a project's
      own types, `jinja-filters.divisibleby`): its `descname`, `markers`, `divisibleby`;
    - a heading, a section's id or a label just before a heading (bs4's and DRF's object
      headings, `std-fixture-caplog`): the first dotted name in the heading's first `<code>`,
      else in its text (`The limit argument` -> `limit`, `.force_authenticate(user=None, ...)`
      -> `force_authenticate`).
    """
    page, _, anchor = gold.partition("#")
    parameter = PARAMETER_ID.fullmatch(anchor)
    if parameter:
        return f"{parameter[1]} {parameter[2]}"
    path = os.path.join(root, page)
    with open(path, encoding="utf-8", errors="replace") as handle:
        reader = _NamedElement(anchor)
        reader.feed(handle.read())
    if reader.mode == "dt" and DOTTED.fullmatch(anchor):
        return anchor
    shown = "".join(reader.code or reader.text)
    found = DOTTED.search(shown)
    return found[0] if found else None


def name_queries(question_set, questions_path: str) -> dict:
    """Return {question id: the name its primary gold object is searched by} for the set's
    object items (object_name; the set's file keeps each item's gold in order, primary first)."""
    with open(questions_path, encoding="utf-8") as handle:
        primary = {item["id"]: item["gold"][0] for item in json.load(handle)}
    roots = {collection: root for collection, _, root, _ in question_set.trees}
    return {item.question_id: object_name(roots[item.collection], primary[item.question_id])
            for item in question_set.questions if item.kind == "object"}


def search_names(client, question_set, names: dict) -> dict:
    """Search each object item's name (`/search`, the query read as a question, as a user's
    query is); return {question id: the first search's first TOP_K distinct URLs}."""
    found = {}
    for item in question_set.questions:
        name = names.get(item.question_id)
        if name is None:
            continue
        body = json.dumps({"query": name, "version": item.version,
                           "collection": item.collection, "limit": measure.TOP_K,
                           "max_text_bytes": 0})
        status, data, _ = client.send("POST", "/search", body)
        hits = json.loads(data)["hits"] if status == 200 else []
        found[item.question_id] = measure.first_distinct(
            measure.normalise_url(client.url_of(hit)) for hit in hits)
    return found


def ask(question_set, snapshot: str, log_dir: str, args, names: dict) -> dict:
    """Send every question at each budget to a fresh server, and each object item's name to
    the first; return {budget: per-item runs, BY_NAME: {question id: URLs}}."""
    runs: dict = {}
    for name, allowances in measure.BUDGETS:
        server = Server(f"{os.path.basename(snapshot)}-{name}", snapshot, log_dir,
                        args.retrieval_root)
        client = None
        runs[name] = []
        try:
            server.start(args.startup_timeout)
            client = measure.Client(server.port)
            for item in question_set.questions:
                body = json.dumps({"question": item.question, "version": item.version,
                                   "collection": item.collection, **allowances})
                status, data, _ = client.send("POST", "/retrieve", body)
                response = json.loads(data) if status == 200 else {}
                runs[name].append({
                    "first_urls": measure.first_search_urls(response, client.url_of),
                    "evidence_urls": [measure.normalise_url(client.url_of(e))
                                      for e in response.get("evidence", ())]})
            if BY_NAME not in runs:
                runs[BY_NAME] = search_names(client, question_set, names)
        finally:
            if client is not None:
                client.close()
            server.stop()
    return runs


def scores(question_set, runs: dict | None) -> dict:
    """Return {kind: {budget: figures}} (kind "all" too); no runs (a failed build): misses."""
    figures: dict = {}
    for kind in ("all", *measure.KINDS):
        mine = [i for i, item in enumerate(question_set.questions)
                if kind == "all" or item.kind == kind]
        figures[kind] = {"items": len(mine)}
        for name, _ in measure.BUDGETS:
            figures[kind][name] = measure.score([
                (question_set.questions[i].gold,
                 measure.places(question_set, question_set.questions[i],
                                runs[name][i]["first_urls"], measure.TOP_K) if runs else [],
                 measure.places(question_set, question_set.questions[i],
                                runs[name][i]["evidence_urls"]) if runs else [])
                for i in mine])
    return figures


def name_scores(question_set, names: dict, runs: dict | None) -> dict:
    """Return the object items found by name: how many were searched, the share whose first
    search holds a gold place among its first TOP_K distinct places (hit@10's rule), and each
    item's name and first places."""
    found = (runs or {}).get(BY_NAME, {})
    items = {}
    for item in question_set.questions:
        if item.kind != "object":
            continue
        first = measure.places(question_set, item, found.get(item.question_id, ()),
                               measure.TOP_K)
        items[item.question_id] = {"name": names.get(item.question_id),
                                   "hit": bool(item.gold & set(first)),
                                   "first_places": ["#".join(place) for place in first]}
    hits = sum(entry["hit"] for entry in items.values())
    return {"items": len(items), "hit_at_10": hits / len(items) if items else None,
            "per_item": items}


def items(question_set, runs: dict | None) -> dict:
    """Return {item id: {budget: its first search's top places and its evidence places}}, so a
    difference between two builds can be traced to the questions it comes from."""
    return {item.question_id: {name: {
        "first": measure.places(question_set, item, runs[name][i]["first_urls"], measure.TOP_K),
        "evidence": measure.places(question_set, item, runs[name][i]["evidence_urls"])}
        for name, _ in measure.BUDGETS} if runs else {}
        for i, item in enumerate(question_set.questions)}


def measure_library(library: Library, kind: str, question_set, out: str, log_dir: str,
                    args, names: dict) -> dict:
    """Build (or, with --reuse, take the one at --out), check and ask one library's snapshot
    of one kind; return its record."""
    snapshot = os.path.join(out, f"{kind}-{library.collection}")
    reused = args.reuse and os.path.isfile(os.path.join(snapshot, "manifest.json"))
    record = {"source": library.source(kind),
              "build": {"exit": 0, "seconds": 0.0, "reused": snapshot} if reused
              else build(library, kind, snapshot, args)}
    runs = None
    if record["build"]["exit"] == 0:
        record["units"], record["distinct_urls"] = unit_counts(snapshot)
        record["dead_urls"], record["release_links"] = site_urls(
            library, dead_urls(library, snapshot, args))
        runs = ask(question_set, snapshot, log_dir, args, names)
    record["scores"] = scores(question_set, runs)
    record["by_name"] = name_scores(question_set, names, runs)
    record["items"] = items(question_set, runs)
    return record


def percent(value) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def report(libraries: list, results: dict, args) -> None:
    """Print the Markdown tables: builds, then per library and kind, pypi / rendered."""
    print(f"set {args.questions}; " + (f"--semantic {args.semantic}" if args.semantic
                                       else "lexical") + f"; code: {args.retrieval_root}\n")
    print("| library | build | source | exit | build (s) | units | distinct URLs | dead URLs "
          "| off-site URLs |")
    print("|---|---|---|---|---:|---:|---:|---:|---:|")
    for library in libraries:
        for kind in BUILDS:
            record = results[library.collection][kind]
            print(f"| {library.collection} {library.version} | {kind} | `{record['source']}` "
                  f"| {record['build']['exit']} | {record['build']['seconds']:.0f} "
                  f"| {record.get('units', '-')} | {record.get('distinct_urls', '-')} "
                  f"| {len(record['dead_urls']) if 'dead_urls' in record else '-'} "
                  f"| {record.get('release_links', '-')} |")
    print("\nDead URLs are the site's pages and ids the rendered tree lacks; off-site URLs link "
          "into the release (`pypi:DIST==VERSION/PATH#Ln-Lm`: objects no page documents), no "
          "page of the site.\n")
    print("Each cell is pypi / rendered, in % (a failed build scores its questions as misses); "
          "evidence at the server's default allowances and at 8 reads (measure.py's budgets).\n")
    print("| library | kind | items | hit@10 | R@10 | evidence hit | evidence at 8 reads "
          "| units | dead URLs |")
    print("|---|---|---:|---|---|---|---|---|---|")
    cells = (("default", "hit_at_10"), ("default", "recall_at_10"), ("default", "evidence_hit"),
             ("max_reads_8", "evidence_hit"))
    for library in libraries:
        mine = results[library.collection]
        for kind in ("all", *measure.KINDS):
            row = [" / ".join(percent(mine[b]["scores"][kind][budget][key]) for b in BUILDS)
                   for budget, key in cells]
            row.append(" / ".join(str(mine[b].get("units", "-")) for b in BUILDS))
            row.append(" / ".join(str(len(mine[b]["dead_urls"])) if "dead_urls" in mine[b]
                                  else "-" for b in BUILDS))
            print(f"| {library.collection} | {kind} | {mine['pypi']['scores'][kind]['items']} | "
                  + " | ".join(row) + " |")
    totals = {b: Counter() for b in BUILDS}
    for library in libraries:
        for b in BUILDS:
            figures = results[library.collection][b]["scores"]["all"]
            totals[b]["items"] += figures["items"]
            for budget, key in cells:
                totals[b][budget, key] += figures[budget][key] * figures["items"]
    items = max(totals["pypi"]["items"], 1)
    print("| all | all | " + str(totals["pypi"]["items"]) + " | "
          + " | ".join(" / ".join(percent(totals[b][cell] / items) for b in BUILDS)
                       for cell in cells)
          + " | " + " / ".join(str(sum(results[lib.collection][b].get("units", 0)
                                       for lib in libraries)) for b in BUILDS)
          + " | " + " / ".join(str(sum(len(results[lib.collection][b].get("dead_urls", ()))
                                       for lib in libraries)) for b in BUILDS) + " |")
    report_by_name(libraries, results)


def report_by_name(libraries: list, results: dict) -> None:
    """Print the object items found by name, per library and their mean, pypi / rendered."""
    print("\nObject items found by name: the primary gold object's name (object_name) sent to "
          "`/search` (limit 10); a hit when a gold place is among its first 10 distinct places "
          "(hit@10's rule). Each cell is pypi / rendered, in %.\n")
    print("| library | object items | found by name |")
    print("|---|---:|---|")
    shares: dict = {b: [] for b in BUILDS}
    for library in libraries:
        mine = results[library.collection]
        for b in BUILDS:
            shares[b].append(mine[b]["by_name"]["hit_at_10"] or 0.0)
        print(f"| {library.collection} | {mine['pypi']['by_name']['items']} | "
              + " / ".join(percent(mine[b]["by_name"]["hit_at_10"]) for b in BUILDS) + " |")
    print("| mean of the libraries | | " + " / ".join(
        percent(sum(shares[b]) / len(shares[b])) for b in BUILDS) + " |")


def parse_args(argv=None):
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", default=DEV_SET,
                        help="a libraries-format set (default: %(default)s; "
                             "quality/data/libraries-heldout/questions.json with its roots.json)")
    parser.add_argument("--libraries", help="only these of the set's libraries (comma-separated)")
    parser.add_argument("--semantic", help="both builds' --semantic MODEL (default: lexical)")
    parser.add_argument("--retrieval-root", default=REPO_ROOT,
                        help="the checkout whose builder, server and dead-URL check run "
                             "(default: this one)")
    parser.add_argument("--out", help="build here and keep the snapshots (default: a temporary "
                                      "directory, removed)")
    parser.add_argument("--json", dest="json_out", help="write the figures and dead URLs here")
    parser.add_argument("--reuse", action="store_true",
                        help="measure a snapshot already at --out as it is (KIND-LIBRARY, "
                             "e.g. pypi-jinja2) instead of building it")
    parser.add_argument("--jobs", type=int, default=1,
                        help="libraries measured at once (default: %(default)s)")
    parser.add_argument("--startup-timeout", type=float, default=120)
    parser.add_argument("--build-timeout", type=float, default=1800)
    args = parser.parse_args(argv)
    args.retrieval_root = os.path.abspath(args.retrieval_root)
    if args.jobs < 1:
        parser.error("--jobs must be positive")
    if args.reuse and not args.out:
        parser.error("--reuse reads the snapshots at --out: give --out")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    common.exit_on_sigterm()
    question_set = question_sets.load(args.questions)
    names = name_queries(question_set, args.questions)
    wanted = set(args.libraries.split(",")) if args.libraries else None
    libraries = [Library(*tree) for tree in question_set.trees
                 if wanted is None or tree[0] in wanted]
    for library in [lib for lib in libraries if not os.path.isdir(lib.root)]:
        print(f"<!-- {library.collection}: no rendered site at {library.root}: not measured -->")
        libraries.remove(library)
    if not libraries:
        return 1
    with tempfile.TemporaryDirectory(prefix="package-docs-") as scratch:
        out = os.path.abspath(args.out) if args.out else scratch
        os.makedirs(out, exist_ok=True)
        log_dir = tempfile.mkdtemp(prefix="package-docs-logs-")
        results: dict = {lib.collection: {} for lib in libraries}
        work = [(lib, kind) for lib in libraries for kind in BUILDS]
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futures = {(lib.collection, kind): pool.submit(
                measure_library, lib, kind, dataclasses.replace(
                    question_set, questions=tuple(q for q in question_set.questions
                                                  if q.collection == lib.collection)),
                out, log_dir, args, names) for lib, kind in work}
            for (collection, kind), future in futures.items():
                results[collection][kind] = future.result()
        log(f"server logs in {log_dir}")
    report(libraries, results, args)
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as handle:
            json.dump({"meta": {"questions": args.questions, "semantic": args.semantic,
                                "retrieval_root": args.retrieval_root, "budgets": dict(
                                    measure.BUDGETS), "python": platform.python_version(),
                                "finished_unix": time.time()},
                       "libraries": {lib.collection: {"version": lib.version, "root": lib.root,
                                                      "dist": lib.dist,
                                                      **results[lib.collection]}
                                     for lib in libraries}}, handle, indent=1)
        log(f"wrote {args.json_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
