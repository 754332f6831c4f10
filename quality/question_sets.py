"""The evidence-quality question sets, read into one shape: questions with gold places.

Two formats live under ../shared/eval/ and quality/data/:
- CoNaLa (`conala/*.json`): StackOverflow intents on the Python 3.11 stdlib; gold is each
  `python.library.<page>#<anchor>` entry whose anchor is an id of the rendered page
  (../shared/eval/README.md).
- Library questions (`libraries/dev.json`, quality/data/libraries-train/questions.json): one
  collection per library, gold `page#id` places under the library's html root, with ids that
  name the same place counted once (libraries/README.md; its check_questions.py implements
  the rule, and is used here rather than restated).

Every result URL and gold entry becomes a place: a hashable value two URLs share exactly
when the set's scoring rules count them as the same place.
"""

import importlib.util
import json
import os
import sys
import urllib.parse
from dataclasses import dataclass

QUALITY_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(QUALITY_DIR)
SHARED_EVAL = os.path.join(os.path.dirname(REPO_ROOT), "shared", "eval")
LIBRARIES_CHECKER = os.path.join(SHARED_EVAL, "libraries", "check_questions.py")
# A libraries-format set of quality/data/ names its trees in a roots.json beside it, the checker's
# ROOTS table for its libraries ({library: [version, html root]}).
ROOTS_FILE = "roots.json"
PYTHON_HTML_ROOT = "/usr/share/doc/python3.11/html"
PYTHON_BASE_URL = "https://docs.python.org/3.11/"
PYTHON_VERSION = "3.11"
CONALA_PREFIX = "python.library."
# Results are scored over their first TOP_K distinct places (both sets' rules).
TOP_K = 10


@dataclass(frozen=True)
class Question:
    """One scored question: where to ask it, and the places that answer it."""

    question_id: str
    question: str
    collection: str
    version: str
    kind: str  # "object" or "section" (every CoNaLa gold is an object)
    gold: frozenset


@dataclass(frozen=True)
class QuestionSet:
    """A set's questions, the trees its snapshot is built from, and its place rule."""

    name: str
    questions: tuple
    # (collection, version, html root, base URL) per tree, in build order.
    trees: tuple
    place_of: object  # callable(question, url) -> place

    def build_arguments(self) -> list:
        """Return `retrieval build`'s --source and --base-url arguments for the set's trees."""
        arguments = []
        for collection, version, root, base_url in self.trees:
            label = version if collection == "default" else f"{collection}/{version}"
            arguments += ["--source", f"{label}={root}", "--base-url", f"{label}={base_url}"]
        return arguments


def first_distinct(values, k: int | None = TOP_K) -> list:
    """Return the first k distinct values of an iterable, in order (all when k is None); stop
    reading there."""
    seen: list = []
    for value in values:
        if value not in seen:
            seen.append(value)
            if len(seen) == k:
                break
    return seen


def normalise_url(url: str) -> str:
    """Return url with its fragment unquoted, so that `#a%2Eb` and `#a.b` compare equal."""
    address, hashed, fragment = url.partition("#")
    return address + hashed + urllib.parse.unquote(fragment)


def gold_urls(oracle_man, site, base_url):
    """Return (gold URLs, entries dropped) of one CoNaLa item's oracle_man under the gold rule."""
    gold, dropped = [], 0
    for entry in oracle_man:
        if not entry.startswith(CONALA_PREFIX):
            continue
        page, _, anchor = entry[len(CONALA_PREFIX):].partition("#")
        ids = site.ids(f"library/{page}.html")
        if not anchor or ids is None or anchor not in ids:
            # DevDocs names that are not ids of the 3.11 pages (`functions#list`): not gold.
            dropped += 1
            continue
        url = normalise_url(f"{base_url}library/{page}.html#{anchor}")
        if url not in gold:
            gold.append(url)
    return tuple(gold), dropped


def load_conala(path: str) -> QuestionSet:
    """Read a CoNaLa split; items left without a gold anchor on the rendered pages drop out."""
    sys.path.insert(0, REPO_ROOT)
    from retrieval.ingest.readers.rendered import RenderedSite

    site = RenderedSite(PYTHON_HTML_ROOT, PYTHON_BASE_URL)
    with open(path, encoding="utf-8") as f:
        raw = json.load(f)
    questions = []
    for entry in raw:
        gold, _ = gold_urls(entry["oracle_man"], site, PYTHON_BASE_URL)
        if gold:
            questions.append(Question(entry["question_id"], entry["nl"], "default",
                                      PYTHON_VERSION, "object", frozenset(gold)))
    return QuestionSet(os.path.basename(path), tuple(questions),
                       (("default", PYTHON_VERSION, PYTHON_HTML_ROOT, PYTHON_BASE_URL),),
                       lambda question, url: normalise_url(url))


def _libraries_checker(roots: dict | None):
    """Import the libraries set's checker, its ROOTS table replaced by roots when given."""
    spec = importlib.util.spec_from_file_location(f"check_questions_{id(roots)}",
                                                  LIBRARIES_CHECKER)
    checker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(checker)
    if roots is not None:
        checker.ROOTS = {name: tuple(value) for name, value in roots.items()}
    return checker


def load_libraries(path: str, roots_path: str | None = None) -> QuestionSet:
    """Read a libraries-format set; roots_path: its {library: [version, html root]} table
    when it is not the dev set's (the checker's own ROOTS)."""
    roots = None
    if roots_path is not None:
        with open(roots_path, encoding="utf-8") as f:
            roots = json.load(f)
    checker = _libraries_checker(roots)
    with open(path, encoding="utf-8") as f:
        raw = json.load(f)
    questions = []
    for item in raw:
        root = checker.ROOTS[item["library"]][1]
        gold = frozenset((os.path.normpath(page), checker.canonical(root, page, anchor))
                         for page, anchor in (entry.split("#", 1) for entry in item["gold"]))
        questions.append(Question(item["id"], item["question"], item["library"],
                                  item["version"], item["kind"], gold))

    def place_of(question, url):
        place = checker.normalize(url, question.collection)
        return place if place is not None else ("?", url)

    trees = tuple((name, version, root, "file://" + root.rstrip("/") + "/")
                  for name, (version, root) in sorted(checker.ROOTS.items()))
    return QuestionSet(os.path.basename(path), tuple(questions), trees, place_of)


def load(path: str) -> QuestionSet:
    """Read any known set by its path: CoNaLa, the libraries dev set, or a set of quality/data/
    with its roots.json (the library training set, the natural stdlib questions)."""
    with open(path, encoding="utf-8") as f:
        first = json.load(f)[0]
    if "oracle_man" in first:
        return load_conala(path)
    roots = os.path.join(os.path.dirname(os.path.abspath(path)), ROOTS_FILE)
    return load_libraries(path, roots if os.path.exists(roots) else None)
