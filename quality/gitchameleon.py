"""GitChameleon retrieval proxy: build each problem's pinned release, ask its problem, score it.

The dev problems (`../shared/eval/gitchameleon/dev.jsonl`) each pin one release of one library.
Each distinct release is built once, as a user would (`retrieval build --source
LIB/VERSION=pypi:DIST==VERSION`, or with `--source-form project` a requirements file
`DIST==VERSION` through `retrieval project`, which also says the source used and its coverage;
in a child process with a timeout), into a cache keyed by the source form, the distribution,
the version and a digest of this checkout's `retrieval/` (so a rerun on the same code rebuilds
nothing, and a code change builds afresh). Each problem's
`problem` text is then asked of its release in this process, through the service's own request
validation and RetrievalService, at the default allowances and at the large budget, and scored
with the set's own `score.py` (found beside the problems file):

  * hit@10: a target (score.targets) named by one of the first search's first 10 hits;
  * evidence hit: a target named by, or defined in, a passage the run read (score.defines);
  * found by name: the problem's own target, `name_of_class_or_func` as a dotted name
    (target_name), sent to `/search` (limit 10, read as a question), named by one of its hits
    (score.names_target); counted over the problems whose target has a name.

A release that does not build (or times out) counts all its problems as misses. Printed: a table
per library and per type_of_change, the overall figures and each release's build; `--json` keeps
every problem's targets, hit rank, top-10 titles and URLs and evidence, to compare runs item by
item. Nothing here touches the network; only the builder's own fetch (pip) does.

    python -m quality.gitchameleon [--problems PATH] [--jobs 2] [--json OUT.json]
        [--source-form pypi|project] [--libraries falcon,sympy] [--limit N]
        [--semantic minilm] [--cache DIR]
"""

import argparse
import concurrent.futures
import dataclasses
import hashlib
import importlib.util
import json
import os
import platform
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if REPO_ROOT not in sys.path:  # python quality/gitchameleon.py puts quality/ itself first
    sys.path.insert(0, REPO_ROOT)

# The quality lab's helpers (the budgets, the trace's searches).
from bench import common, corpus_scale  # noqa: E402
from quality import measure as lab  # noqa: E402
from retrieval.core.admission import DEFAULT_MAXIMA  # noqa: E402
from retrieval.core.model import VERSION_PATTERN  # noqa: E402
from retrieval.core.service import RetrievalService, UnknownVersion, served_version  # noqa: E402
from retrieval.core.snapshot import load_snapshot  # noqa: E402
from retrieval.http.errors import InvalidRequest  # noqa: E402
from retrieval.http.operations.retrieve import parse_retrieve_request  # noqa: E402
from retrieval.http.operations.search import parse_search_request, run_search  # noqa: E402
from retrieval.rerank import attach  # noqa: E402

log = common.log
TOP_K = 10
DEFAULT_PROBLEMS = os.path.join(REPO_ROOT, "..", "shared", "eval", "gitchameleon", "dev.jsonl")
# Distribution names that are not the library's name (the set's README).
DISTRIBUTIONS = {"scikit-learn": "scikit-learn", "pillow": "Pillow", "django": "Django"}
BUDGET_NAMES = tuple(name for name, _ in lab.BUDGETS)


# --- releases and how they are built ---------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Release:
    """One pinned release: the library (collection), its version as the problem pins it, the
    distribution pip fetches and the version label the snapshot and the requests use."""

    library: str
    version: str

    @property
    def dist(self) -> str:
        return DISTRIBUTIONS.get(self.library, self.library)

    @property
    def collection(self) -> str:
        return self.library.lower()

    @property
    def label(self) -> str:
        """The version built and asked: as written, else X.0.0 (`2` -> 2.0.0).

        A bare `2` is a PEP 440 version the service would serve as held, but the labels (and the
        cache and results keyed by them) stay X.Y or longer, as they were measured.
        """
        if "." in self.version and VERSION_PATTERN.fullmatch(self.version):
            return self.version
        return f"{self.version.split('.', 1)[0]}.0.0"

    @property
    def key(self) -> str:
        return f"{self.dist}=={self.version}"


class SourceForm:
    """How a release is built: the `retrieval` command line for one release."""

    name = ""

    def check(self) -> str | None:
        """Return why this form cannot be used with this checkout, or None."""
        return None

    def command(self, release: Release, home: str, out: str, semantic: str | None) -> list:
        """Return the `retrieval ...` arguments that build release into out (home: its cache
        folder, for any file the form writes; semantic: the --semantic MODEL, or None for a
        lexical build)."""
        raise NotImplementedError


class PypiForm(SourceForm):
    """Today's form: `retrieval build --source LIB/LABEL=pypi:DIST==VERSION`."""

    name = "pypi"

    def command(self, release, home, out, semantic):
        return ["build", "--source",
                f"{release.collection}/{release.label}=pypi:{release.dist}=={release.version}",
                "--out", out, *(["--semantic", semantic] if semantic else [])]


class ProjectForm(SourceForm):
    """The form of issue 45: a requirements file per release (`DIST==VERSION`), built by
    `retrieval project REQUIREMENTS --out DIR`, each dependency from its best source (here, with
    no site named and no environment, the release's sdist or pure wheel, as the pypi form).

    Lexical unless --semantic is given (`--lexical`: a project build's own default is minilm
    where the semantic extra is installed), so its figures compare with the pypi form's. Its
    collection cache is the release's own folder, so each build is cold and its time honest.
    """

    name = "project"

    def check(self):
        done = subprocess.run([sys.executable, "-m", "retrieval", "project", "--help"],
                              cwd=REPO_ROOT, env=corpus_scale.child_env(), capture_output=True,
                              text=True, stdin=subprocess.DEVNULL, check=False)
        if done.returncode != 0:
            return ("--source-form project needs the `retrieval project` command, which this "
                    "checkout does not have (use --source-form pypi)")
        return None

    def command(self, release, home, out, semantic):
        requirements = os.path.join(home, "requirements.txt")
        with open(requirements, "w", encoding="utf-8") as handle:
            handle.write(f"{release.key}\n")
        return ["project", requirements, "--out", out,
                "--fetch-cache", os.path.join(home, "fetch"),
                *(["--semantic", semantic] if semantic else ["--lexical"])]


def coverage(out: str, collection: str) -> dict | None:
    """Return what a project build's project.json says of the release's pin (its source and
    coverage) and the ranking used, or None (no project.json: the pypi form, or no build)."""
    try:
        with open(os.path.join(out, "project.json"), encoding="utf-8") as handle:
            document = json.load(handle)
    except (OSError, ValueError):
        return None
    pin = next((pin for pin in document["pins"] if pin["collection"] == collection),
               document["pins"][0] if document["pins"] else {})
    return {"ranking": document.get("ranking"),
            **{key: pin.get(key) for key in ("source", "units", "api_objects",
                                            "guide_sections", "missing")}}


SOURCE_FORMS = {form.name: form for form in (PypiForm(), ProjectForm())}


def builder_digest() -> str:
    """Return a digest of this checkout's `retrieval/` (every file but bytecode): the builder
    whose snapshots the cache holds."""
    digest = hashlib.sha256()
    top = os.path.join(REPO_ROOT, "retrieval")
    for directory, subdirectories, names in os.walk(top):
        subdirectories[:] = sorted(d for d in subdirectories if d != "__pycache__")
        for name in sorted(names):
            if name.endswith((".pyc", ".pyo")):
                continue
            path = os.path.join(directory, name)
            digest.update(os.path.relpath(path, top).encode() + b"\0")
            with open(path, "rb") as handle:
                digest.update(hashlib.sha256(handle.read()).digest())
    return digest.hexdigest()[:16]


def git_commit() -> str | None:
    """Return the checkout's HEAD commit (with `+dirty` when retrieval/ has changes), or None."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "retrieval"],
                               cwd=REPO_ROOT, capture_output=True, text=True,
                               check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("+dirty" if dirty else "")


def default_cache(digest: str) -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "retrieval", "gitchameleon", digest)


def last_line(path: str) -> str:
    """Return the last non-blank line of a text file ('' if none)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = [line.strip() for line in handle if line.strip()]
    except OSError:
        return ""
    return lines[-1] if lines else ""



def units_per_collection(snapshot: str) -> dict:
    """Return {collection: units} of a built snapshot."""
    conn = sqlite3.connect(f"file:{os.path.join(snapshot, 'passages.sqlite')}?mode=ro", uri=True)
    try:
        return dict(conn.execute("SELECT collection, count(*) FROM passages GROUP BY collection"))
    finally:
        conn.close()

class Builder:
    """Builds releases into the cache, each once per builder digest, in child processes it can
    stop."""

    def __init__(self, cache: str, form: SourceForm, semantic: str | None, timeout: float,
                 rebuild_failed: bool = False, digest: str | None = None):
        self.cache = cache
        # The builder_digest of the code that builds: a build another code made is built
        # again (a --cache given by hand is not keyed by it as the default one is).
        self.digest = digest or builder_digest()
        self.form = form
        self.semantic = semantic
        self.timeout = timeout
        self.rebuild_failed = rebuild_failed
        self._running: dict = {}  # pid -> Popen, each the leader of its own session
        self._lock = threading.Lock()
        self._stopped = False  # stop_all has run: start nothing more

    def home(self, release: Release) -> str:
        kind = self.form.name + (f"+{self.semantic}" if self.semantic else "")
        return os.path.join(self.cache, kind, release.key)

    def build(self, release: Release) -> dict:
        """Return the release's build record, building it unless the cache has it."""
        home = self.home(release)
        record_path = os.path.join(home, "build.json")
        if os.path.exists(record_path):
            with open(record_path, encoding="utf-8") as handle:
                record = json.load(handle)
            if record.get("builder_digest") == self.digest and (
                    record["ok"] or not self.rebuild_failed):
                return dict(record, cached=True)
        os.makedirs(home, exist_ok=True)
        out = os.path.join(home, "snapshot")
        _remove_tree(out)
        command = [sys.executable, "-m", "retrieval",
                   *self.form.command(release, home, out, self.semantic)]
        log_path = os.path.join(home, "build.log")
        log(f"build {release.key}: {' '.join(command[1:])}")
        started = time.monotonic()
        timed_out = False
        with open(log_path, "w", encoding="utf-8") as stderr:
            # Started under the lock stop_all takes: once it has run, no build starts.
            with self._lock:
                if self._stopped:
                    raise InterruptedError(f"build {release.key}: not started (stopping)")
                # Its own session, so a timeout stops pip and whatever pip started with it.
                proc = subprocess.Popen(command, cwd=REPO_ROOT, env=corpus_scale.child_env(),
                                        stdin=subprocess.DEVNULL, stdout=stderr, stderr=stderr,
                                        start_new_session=True)
                self._running[proc.pid] = proc
            try:
                status = proc.wait(timeout=self.timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                _stop(proc)
                status = proc.returncode
            finally:
                with self._lock:
                    self._running.pop(proc.pid, None)
                    stopped = self._stopped
        if stopped:  # stopped by an interrupt: no record, so a rerun builds it
            _remove_tree(out)
            raise InterruptedError(f"build {release.key}: stopped")
        seconds = time.monotonic() - started
        units = units_per_collection(out) if status == 0 and not timed_out else {}
        ok = status == 0 and not timed_out and units.get(release.collection, 0) > 0
        record = {
            "release": release.key, "library": release.library, "version": release.version,
            "label": release.label, "collection": release.collection,
            "source_form": self.form.name, "semantic": self.semantic,
            "command": command[1:], "ok": ok, "exit_status": status, "timed_out": timed_out,
            "seconds": round(seconds, 1), "units": units.get(release.collection, 0),
            "units_by_collection": units,
            "coverage": coverage(out, release.collection) if status == 0 else None,
            "last_line": (f"timed out after {self.timeout:.0f} s; " if timed_out else "")
            + last_line(log_path),
            "snapshot": out if ok else None, "finished_unix": time.time(),
            "builder_digest": self.digest,
        }
        if not ok:
            _remove_tree(out)
        with open(record_path + ".tmp", "w", encoding="utf-8") as handle:
            json.dump(record, handle, indent=1)
        os.replace(record_path + ".tmp", record_path)
        log(f"build {release.key}: {'ok' if ok else 'FAILED'} in {seconds:.0f} s, "
            f"{record['units']} units; {record['last_line'][:160]}")
        return dict(record, cached=False)

    def stop_all(self):
        """Stop every build still running (on an interrupt)."""
        with self._lock:
            self._stopped = True
            running = list(self._running.values())
        for proc in running:
            _stop(proc)


def _stop(proc):
    """Stop a child started in its own session, and everything in that session."""
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _remove_tree(path):
    shutil.rmtree(path, ignore_errors=True)


# --- asking and scoring ----------------------------------------------------------------------

def load_score(problems_path: str):
    """Import the set's score.py from beside its problems file."""
    path = os.path.join(os.path.dirname(os.path.abspath(problems_path)), "score.py")
    spec = importlib.util.spec_from_file_location("gitchameleon_score", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"{path}: cannot import the set's score.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def ask(service, release: Release, question: str, allowances: dict) -> dict:
    """Return a run's result as a /retrieve body would carry it (trace, evidence, status), or a
    refusal ({"refused": code, ...}) where the service would have refused the request."""
    body = json.dumps({"question": question, "version": release.label,
                       "collection": release.collection, **allowances}).encode("utf-8")
    try:
        request = parse_retrieve_request(body, DEFAULT_MAXIMA)
    except InvalidRequest as invalid:
        return {"refused": "invalid_request", "message": invalid.message}
    collection = service.snapshot.collections.get(request.collection)
    if collection is None:
        return {"refused": "collection_not_found", "message": request.collection}
    try:
        served = served_version(collection, request.version)
    except UnknownVersion:
        return {"refused": "version_not_found", "message": request.version}
    if served is not None:
        request = dataclasses.replace(request, served_version=served)
    started = time.perf_counter()
    result = service.retrieve(request)
    return {"status": result.status, "reason": result.reason, "usage": result.usage,
            "trace": result.trace, "evidence": result.evidence,
            "ms": round((time.perf_counter() - started) * 1000, 1)}


def target_name(row: dict) -> str | None:
    """Return the problem's target as a dotted name (`name_of_class_or_func` read as
    score.targets reads it: arguments, spaces around dots and what follows a blank cut), or
    None when its last part is no identifier (`-`)."""
    name = (row.get("name_of_class_or_func") or "").split("(", 1)[0]
    name = (re.sub(r"\s*\.\s*", ".", name.strip()).split() or [""])[0].strip(".")
    return name if name and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name.rsplit(".", 1)[-1]) \
        else None


def search_name(service, release: Release, name: str) -> list:
    """Return the first TOP_K hits, as (rank, title, url), of `/search` for a name (the query
    read as a question, as a user's is), through the route's own validation and run."""
    try:
        request = parse_search_request({"query": name, "version": release.label,
                                        "collection": release.collection, "limit": TOP_K,
                                        "max_text_bytes": 0}, DEFAULT_MAXIMA.max_source_bytes)
    except InvalidRequest:
        return []
    served = served_version(service.snapshot.collections[release.collection], request.version)
    if served is not None:
        request = dataclasses.replace(request, served_version=served)
    hits = run_search(service, request)["hits"]
    return [(n, hit.get("title") or "", hit.get("url") or "") for n, hit in enumerate(hits, 1)]


def name_rank(score, hits: list, name: str | None) -> int | None:
    """Return the rank of the first hit naming the target (score.names_target, the name's last
    part), None: none of them."""
    if name is None:
        return None
    target = [name.rsplit(".", 1)[-1]]
    return next((rank for rank, title, url in hits if score.names_target(title, url, target)),
                None)


def first_hits(response: dict) -> list:
    """Return the first search's first TOP_K hits as (rank, title, url)."""
    hits = (lab.searches(response) or [[]])[0][:TOP_K]
    return [(n, hit.get("title") or "", hit.get("url") or "") for n, hit in enumerate(hits, 1)]


def score_problem(score, targets: list, responses: dict) -> dict:
    """Score one problem's runs ({budget: response}): the hit rank and names in the first
    search (of the default run) and, per budget, whether a read passage names or defines a
    target."""
    top = first_hits(responses[BUDGET_NAMES[0]])
    hit_rank, hit_names = None, []
    ranks = []
    for rank, title, url in top:
        named = score.names_target(title, url, targets)
        if named:
            ranks.append(rank)
            if hit_rank is None:
                hit_rank, hit_names = rank, named
    scored = {"hit_rank": hit_rank, "hit_ranks": ranks, "hit_names": hit_names,
              "top10": [{"rank": rank, "title": title, "url": url} for rank, title, url in top]}
    for budget in BUDGET_NAMES:
        response = responses[budget]
        evidence = []
        for item in response.get("evidence", ()):
            title, url, text = item.get("title") or "", item.get("url") or "", item.get("text", "")
            named = set(score.names_target(title, url, targets))
            named |= {name for name in targets if score.defines(text, name)}
            evidence.append({"title": title, "url": url, "names": sorted(named)})
        scored[budget] = {
            "outcome": response.get("refused") or f"{response['status']}/{response['reason']}",
            "reads": response.get("usage", {}).get("reads", 0),
            "evidence_hit": any(entry["names"] for entry in evidence),
            "evidence": evidence,
        }
    return scored


def unbuilt(targets: list, why: str) -> dict:
    """The score of a problem whose release did not build: a miss everywhere."""
    return {"hit_rank": None, "hit_ranks": [], "hit_names": [], "top10": [],
            **{budget: {"outcome": why, "reads": 0, "evidence_hit": False, "evidence": []}
               for budget in BUDGET_NAMES}}


def ask_release(score, release: Release, record: dict, rows: list) -> list:
    """Return the per-problem results of one release's problems."""
    results = []
    service = None
    if record["ok"]:
        service = RetrievalService(attach(load_snapshot(record["snapshot"])))
    try:
        for row in rows:
            targets = score.targets(row)
            name = target_name(row)
            if service is None:
                scored = unbuilt(targets, "not_built")
                by_name = None
            else:
                responses = {budget: ask(service, release, row["problem"], allowances)
                             for budget, allowances in lab.BUDGETS}
                scored = score_problem(score, targets, responses)
                by_name = None if name is None else name_rank(
                    score, search_name(service, release, name), name)
            results.append({"id": row["example_id"], "library": row["library"],
                            "version": row["version"], "label": release.label,
                            "type_of_change": row.get("type_of_change"), "targets": targets,
                            "built": service is not None, "name": name,
                            "name_hit_rank": by_name, **scored})
    finally:
        if service is not None:
            service.close()
    return results


# --- figures ---------------------------------------------------------------------------------

def tally(results: list) -> dict:
    """Return counts and shares over results (every problem in the denominator)."""
    n = len(results)
    counts = {"problems": n, "built": sum(r["built"] for r in results),
              "with_targets": sum(bool(r["targets"]) for r in results),
              "hit_at_10": sum(r["hit_rank"] is not None for r in results)}
    for budget in BUDGET_NAMES:
        counts[f"evidence_{budget}"] = sum(r[budget]["evidence_hit"] for r in results)
    counts["with_name"] = sum(r["name"] is not None for r in results)
    counts["by_name"] = sum(r["name_hit_rank"] is not None for r in results)
    counts["percent"] = {key: round(100 * value / n, 1) if n else 0.0
                         for key, value in counts.items() if key != "problems"}
    # Found by name counts among the problems whose target has a name (not `-`).
    named = counts["with_name"]
    counts["percent"]["by_name"] = round(100 * counts["by_name"] / named, 1) if named else 0.0
    return counts


def grouped(results: list, field: str) -> dict:
    """Return {value: tally} of results grouped by field, largest group first."""
    order = Counter(str(r[field]) for r in results).most_common()
    return {value: tally([r for r in results if str(r[field]) == value]) for value, _ in order}


COLUMNS = (("problems", "problems"), ("built", "built"), ("targets", "with_targets"),
           ("hit@10", "hit_at_10")) + tuple(
    (f"evidence {'default' if b == 'default' else '8 reads'}", f"evidence_{b}")
    for b in BUDGET_NAMES) + (("named", "with_name"), ("found by name", "by_name"))


def table(title: str, groups: dict) -> list:
    """Return the Markdown lines of one table: counts, then % of the problems."""
    lines = [f"| {title} | " + " | ".join(label for label, _ in COLUMNS) + " |",
             "|---|" + "---:|" * len(COLUMNS)]
    for name, counts in groups.items():
        cells = [str(counts["problems"])] + [
            f"{counts[key]} ({counts['percent'][key]:.1f} %)" for _, key in COLUMNS[1:]]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def summary(results: list) -> dict:
    return {"overall": tally(results), "by_library": grouped(results, "library"),
            "by_type_of_change": grouped(results, "type_of_change")}


def mean_by_name(by_library: dict) -> float:
    """Return the mean over the libraries (those with a named target) of found by name, in %."""
    shares = [counts["percent"]["by_name"] for counts in by_library.values()
              if counts["with_name"]]
    return sum(shares) / len(shares) if shares else 0.0


def report_lines(figures: dict, builds: list, expected: int) -> list:
    """Return the plain-text report: tables, overall figures, builds."""
    overall = figures["overall"]
    pct = overall["percent"]
    lines = [f"GitChameleon retrieval proxy: {overall['problems']} of {expected} problems asked "
             f"({overall['built']} on a built release, {overall['with_targets']} with targets)",
             "", *table("library", figures["by_library"]), "",
             *table("type_of_change", figures["by_type_of_change"]), "",
             *table("all", {"all": overall}), "",
             f"overall: hit@10 {pct['hit_at_10']:.1f} %, evidence hit "
             + " / ".join(f"{pct[f'evidence_{b}']:.1f} %" for b in BUDGET_NAMES)
             + " (default / 8 reads; every problem counted, unbuilt = miss)",
             f"found by name: {pct['by_name']:.1f} % of the {overall['with_name']} problems "
             "whose target has a name (its dotted name sent to /search, the target among the "
             "first 10 hits by score.names_target); mean of the libraries "
             f"{mean_by_name(figures['by_library']):.1f} %", "",
             "| release | status | seconds | units | source | api | sections | last line |",
             "|---|---|---:|---:|---|---:|---:|---|"]
    for record in builds:
        status = "ok" if record["ok"] else ("timeout" if record["timed_out"] else
                                            f"failed ({record['exit_status']})")
        status += " (cached)" if record.get("cached") else ""
        line = "" if record["ok"] else record["last_line"].replace("|", "\\|")[:200]
        # Only a project build says its source and coverage (project.json).
        covered = record.get("coverage") or {}
        cells = [str(covered.get(key) if covered.get(key) is not None else "-")
                 for key in ("source", "api_objects", "guide_sections")]
        lines.append(f"| {record['release']} | {status} | {record['seconds']:.0f} | "
                     f"{record['units']} | " + " | ".join(cells) + f" | {line} |")
    failed = [record["release"] for record in builds if not record["ok"]]
    lines.append("")
    lines.append(f"builds: {len(builds) - len(failed)} of {len(builds)} built"
                 + (f"; not built: {', '.join(failed)}" if failed else ""))
    return lines


# --- command line ----------------------------------------------------------------------------

def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--problems", default=DEFAULT_PROBLEMS,
                   help="a GitChameleon problems file, score.py beside it (default: "
                        "../shared/eval/gitchameleon/dev.jsonl beside the checkout)")
    p.add_argument("--cache", help="where built releases are kept, each rebuilt when the code "
                                   "changes (default: $XDG_CACHE_HOME or ~/.cache, "
                                   "/retrieval/gitchameleon/<builder digest>)")
    p.add_argument("--source-form", choices=sorted(SOURCE_FORMS), default="pypi",
                   help="how each release is built: pypi (--source LIB/VERSION=pypi:DIST==VERSION, "
                        "the default) or project (a requirements file per release through "
                        "`retrieval project`)")
    p.add_argument("--semantic", help="the builds' --semantic MODEL (minilm; default: lexical)")
    p.add_argument("--build-timeout", type=float, default=900,
                   help="seconds one release's build may take (default: %(default)s)")
    p.add_argument("--jobs", type=int, default=1, help="builds at once (default: %(default)s)")
    p.add_argument("--rebuild-failed", action="store_true",
                   help="build again the releases whose cached build failed or timed out")
    p.add_argument("--libraries", help="only these libraries' problems (comma-separated)")
    p.add_argument("--limit", type=int, help="only the first N problems (after --libraries)")
    p.add_argument("--json", dest="json_out",
                   help="write the figures and per-problem results here (rewritten as each "
                        "release is scored, with partial: true until the end)")
    args = p.parse_args(argv)
    if args.jobs < 1:
        p.error("--jobs must be at least 1")
    if args.limit is not None and args.limit < 1:
        p.error("--limit must be positive")
    return args


def read_problems(path: str, libraries: str | None, limit: int | None) -> list:
    with open(path, encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    if libraries:
        wanted = {name.strip() for name in libraries.split(",") if name.strip()}
        rows = [row for row in rows if row["library"] in wanted]
    return rows[:limit] if limit else rows


def write_json(path: str, meta: dict, builds: list, results: list, partial: bool):
    order = {row_id: n for n, row_id in enumerate(meta["problem_ids"])}
    document = {"meta": dict(meta, partial=partial, written_unix=time.time()),
                "summary": summary(results),
                "builds": builds,
                "problems": sorted(results, key=lambda r: order[r["id"]])}
    with open(path + ".tmp", "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=1)
    os.replace(path + ".tmp", path)


def main(argv=None) -> int:
    args = parse_args(argv)
    common.exit_on_sigterm()
    form = SOURCE_FORMS[args.source_form]
    why_not = form.check()
    if why_not:
        print(why_not, file=sys.stderr)
        return 2
    score = load_score(args.problems)
    rows = read_problems(args.problems, args.libraries, args.limit)
    if not rows:
        print("no problems to ask (check --problems, --libraries)", file=sys.stderr)
        return 2
    digest = builder_digest()
    cache = os.path.abspath(args.cache or default_cache(digest))
    releases: dict = {}
    for row in rows:
        releases.setdefault(Release(row["library"], row["version"]), []).append(row)
    meta = {"problems_file": os.path.abspath(args.problems), "problem_ids": [
        row["example_id"] for row in rows], "libraries": args.libraries, "limit": args.limit,
        "source_form": form.name, "semantic": args.semantic, "build_timeout": args.build_timeout,
        "jobs": args.jobs, "cache": cache, "builder_digest": digest, "commit": git_commit(),
        "budgets": dict(lab.BUDGETS), "top_k": TOP_K, "python": platform.python_version(),
        "started_unix": time.time()}
    log(f"{len(rows)} problems, {len(releases)} releases; cache {cache}")
    builder = Builder(cache, form, args.semantic, args.build_timeout, args.rebuild_failed,
                      digest)
    builds: list = []
    results: list = []
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs)
    try:
        futures = {pool.submit(builder.build, release): release for release in releases}
        for future in concurrent.futures.as_completed(futures):
            release = futures[future]
            record = future.result()
            builds.append(record)
            started = time.monotonic()
            found = ask_release(score, release, record, releases[release])
            results.extend(found)
            hits = sum(r["hit_rank"] is not None for r in found)
            log(f"asked {release.key}: {len(found)} problems, hit@10 {hits} "
                f"({time.monotonic() - started:.1f} s); {len(results)}/{len(rows)} done")
            if args.json_out:
                write_json(args.json_out, meta, builds, results, partial=True)
    except BaseException:
        builder.stop_all()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    builds.sort(key=lambda record: list(releases).index(
        Release(record["library"], record["version"])))
    print("\n".join(report_lines(summary(results), builds, len(rows))))
    if args.json_out:
        write_json(args.json_out, meta, builds, results, partial=False)
        log(f"wrote {args.json_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
