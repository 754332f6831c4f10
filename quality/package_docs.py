"""Docs built from a release on the index (`pypi:`) beside the build from its rendered site.

For each library whose release the index serves and whose rendered HTML Debian installs, one
snapshot is built from `--source pypi:DIST==VERSION` (the sdist's docs folder, autodoc directives
resolved from its docstrings) and one from the rendered site, both under the site's `file://`
root as base URL, so that a unit of either build names a place of the same pages. The library
question set's questions of those libraries (`../shared/eval/libraries/dev.json`, scored as its
README says: first search, hit@10, R@10, evidence hit) and this benchmark's own are asked of both;
the report is Markdown on stdout.

    python quality/package_docs.py [--questions DEV_JSON] [--out DIR] [--libraries jinja2,flask]
        [--doc-root PREFIX]

--doc-root reads the rendered docs below PREFIX (`apt-get download python-flask-doc` and
`dpkg-deb -x` it into PREFIX: no installing); the question set's own roots stay where it says.
"""

import argparse
import importlib.util
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass(frozen=True)
class Library:
    """One library: its release on the index and where Debian installs its rendered docs."""

    collection: str
    dist: str
    version: str
    html: str


LIBRARIES = (
    Library("jinja2", "jinja2", "3.1.2", "/usr/share/doc/python-jinja2-doc/html"),
    Library("flask", "flask", "2.2.2", "/usr/share/doc/python-flask-doc/html"),
    Library("click", "click", "8.1.3", "/usr/share/doc/python-click-doc/html"),
    Library("requests", "requests", "2.28.1", "/usr/share/doc/python-requests-doc/html"),
)
# This benchmark's own questions: each names the object whose docstring answers it.
OWN_QUESTIONS = {
    "flask": [("register a blueprint on the application", "flask.Flask.register_blueprint"),
              ("return JSON from a view", "flask.json.jsonify")],
    "click": [("add a command line option with a default value", "click.option"),
              ("prompt the user for a password", "click.password_option")],
    "jinja2": [("load templates from a folder on disk", "jinja2.FileSystemLoader"),
               ("render a template from a string", "jinja2.Environment.from_string")],
    "requests": [("send a POST request with JSON", "requests.post"),
                 ("keep cookies across requests", "requests.Session")],
}


def build(sources: list, out: str) -> float:
    """Build a snapshot from (--source, --base-url) pairs; return the wall seconds."""
    command = [sys.executable, "-m", "retrieval", "build", "--out", out]
    for source, base_url in sources:
        command += ["--source", source, "--base-url", base_url]
    start = time.monotonic()
    subprocess.run(command, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return time.monotonic() - start


def unit_counts(snapshot: str) -> dict:
    """Return {collection: units} of a built snapshot."""
    conn = sqlite3.connect(f"file:{os.path.join(snapshot, 'passages.sqlite')}?mode=ro", uri=True)
    try:
        return dict(conn.execute("SELECT collection, count(*) FROM passages GROUP BY collection"))
    finally:
        conn.close()


def ask_all(snapshot: str, questions: list) -> list:
    """Return, per (collection, version, question), (first search's URLs and titles, evidence)."""
    sys.path.insert(0, ROOT)
    from retrieval.mcp.backends import LocalBackend
    from retrieval.settings import load_settings

    service = LocalBackend(load_settings(overrides={"snapshot": snapshot, "access_log": False}))
    try:
        answers = []
        for collection, version, question in questions:
            result = service.retrieve({"question": question, "version": version,
                                       "collection": collection})
            searches = [entry["result"]["results"] for entry in result["trace"]
                        if entry["action"]["tool"] == "search" and "result" in entry]
            hits = searches[0] if searches else []
            answers.append(([(hit.get("url", ""), hit.get("title", "")) for hit in hits],
                            [(item["url"], item.get("title", "")) for item in
                             result["evidence"]]))
        return answers
    finally:
        service.close()


def load_checker(questions_path: str):
    """Import the question set's own check_questions.py (its URL normalizing and scoring)."""
    path = os.path.join(os.path.dirname(os.path.abspath(questions_path)), "check_questions.py")
    spec = importlib.util.spec_from_file_location("check_questions", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def score(checker, items: list, answers: list) -> dict:
    """Return hit@10, R@10 and evidence hit of answers to items, as the set's README scores."""
    totals = Counter()
    for item, (hits, evidence) in zip(items, answers, strict=True):
        library, root = item["library"], checker.ROOTS[item["library"]][1]
        gold = {(os.path.normpath(page), checker.canonical(root, page, fragment))
                for page, _, fragment in (entry.partition("#") for entry in item["gold"])}
        top = []
        for url, _ in hits:
            place = checker.normalize(url, library) or ("?", url)
            if place not in top:
                top.append(place)
            if len(top) == 10:
                break
        found = gold & set(top)
        totals["n"] += 1
        totals["hit"] += bool(found)
        totals["gold"] += len(gold)
        totals["found"] += len(found)
        totals["evidence"] += bool(gold & {checker.normalize(url, library)
                                           for url, _ in evidence})
    return {"n": totals["n"], "hit@10": totals["hit"] / max(totals["n"], 1),
            "R@10": totals["found"] / max(totals["gold"], 1),
            "evidence hit": totals["evidence"] / max(totals["n"], 1)}


def _same_object(title: str, answer: str) -> bool:
    """Tell whether a docstring unit's title (where the object is defined, "requests.api.post")
    names the answer (the name the docs use, "requests.post")."""
    return title == answer or (title.split(".")[0] == answer.split(".")[0]
                               and title.rsplit(".", 1)[-1] == answer.rsplit(".", 1)[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", default=os.path.join(
        ROOT, "..", "shared", "eval", "libraries", "dev.json"))
    parser.add_argument("--out", help="where to build (default: a temporary directory)")
    parser.add_argument("--libraries", default=",".join(lib.collection for lib in LIBRARIES))
    parser.add_argument("--doc-root", default="/",
                        help="where /usr/share/doc is found for the libraries' rendered docs, "
                             "when not installed (default: %(default)s)")
    args = parser.parse_args(argv)
    chosen = []
    for lib in LIBRARIES:
        if lib.collection in args.libraries.split(","):
            html = os.path.join(args.doc_root, lib.html.lstrip("/"))
            chosen.append(lib if os.path.isdir(lib.html) or not os.path.isdir(html)
                          else Library(lib.collection, lib.dist, lib.version, html))
    present = [lib for lib in chosen if os.path.isdir(lib.html)]
    for lib in chosen:
        if lib not in present:
            print(f"<!-- {lib.collection}: no rendered docs at {lib.html}: not compared -->")
    if not present:
        return 1
    out = args.out or tempfile.mkdtemp(prefix="package-docs-")
    builds = {}
    for name, source_of in (("rendered site", lambda lib: lib.html),
                            ("pypi: sdist", lambda lib: f"pypi:{lib.dist}=={lib.version}")):
        snapshot = os.path.join(out, name.split()[0].rstrip(":"))
        seconds = build([(f"{lib.collection}/{lib.version}={source_of(lib)}",
                          f"{lib.collection}/{lib.version}=file://{lib.html}/")
                         for lib in present], snapshot)
        builds[name] = (snapshot, seconds)
    with open(args.questions, encoding="utf-8") as handle:
        items = [item for item in json.load(handle)
                 if item["library"] in {lib.collection for lib in present}]
    checker = load_checker(args.questions) if items else None
    # Build seconds are for all the libraries of a build together.
    print("| build | library | units | build (s) | questions | hit@10 | R@10 | evidence hit |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    own = {}
    for name, (snapshot, seconds) in builds.items():
        units = unit_counts(snapshot)
        own[name] = ask_all(snapshot, [(lib.collection, lib.version, question)
                                       for lib in present
                                       for question, _ in OWN_QUESTIONS[lib.collection]])
        for lib in present:
            mine = [item for item in items if item["library"] == lib.collection]
            cells = "| - | - | - | - |"
            if mine:
                figures = score(checker, mine, ask_all(snapshot, [
                    (lib.collection, lib.version, item["question"]) for item in mine]))
                cells = (f"| {figures['n']} | {figures['hit@10']:.3f} | {figures['R@10']:.3f} "
                         f"| {figures['evidence hit']:.3f} |")
            print(f"| {name} | {lib.collection} {lib.version} | {units.get(lib.collection, 0):,} "
                  f"| {seconds:.0f} " + cells)
    print("\nThe benchmark's own questions: rank of the answering object in the first search "
          "(by its id, or by the name it is defined under; - if not in the top 10), and the "
          "evidence titles.\n")
    print("| library | question | answer | " + " | ".join(builds) + " |")
    print("|---|---|---|" + "---|" * len(builds))
    asked = [(lib, question, answer) for lib in present
             for question, answer in OWN_QUESTIONS[lib.collection]]
    for index, (lib, question, answer) in enumerate(asked):
        cells = []
        for name in builds:
            hits, evidence = own[name][index]
            ranks = [rank for rank, (url, title) in enumerate(hits, 1)
                     if url.endswith("#" + answer) or _same_object(title, answer)]
            cells.append(f"{ranks[0] if ranks else '-'}: "
                         + ", ".join(title for _, title in evidence))
        print(f"| {lib.collection} | {question} | `{answer}` | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
