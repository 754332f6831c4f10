"""Scoring rules of quality/measure.py (the gold rule and metrics of ../shared/eval/README.md), and
quality/package_docs.py's builds and scores."""

import argparse
import contextlib
import io
import json
import os
import unittest
from unittest import mock

from quality import measure, package_docs, question_sets
from retrieval.fits import load_fit
from tests.support import ROOT, require_module, temporary_directory

FITS_DIR = os.path.join(ROOT, "retrieval", "fits")

TIER = "unit"

BASE = "https://docs.python.org/3.11/"


class FakeSite:
    """A rendered site of two pages, answering `ids` like RenderedSite."""

    PAGES = {"library/functions.html": frozenset({"sum", "max"}),
             "library/os.path.html": frozenset({"os.path.join"})}

    def ids(self, page):
        return self.PAGES.get(page)


def search(*hits):
    return {"action": {"tool": "search"}, "result": {"results": list(hits)}}


def read():
    return {"action": {"tool": "read"}, "result": {"text": "x"}}


class GoldRuleTest(unittest.TestCase):
    def test_library_entries_whose_anchor_is_an_id_are_gold(self):
        gold, dropped = measure.gold_urls(
            ["pandas.reference.api.pandas.dataframe.groupby", "python.library.functions#sum",
             "python.library.os.path#os.path.join"], FakeSite(), BASE)
        self.assertEqual(gold, (BASE + "library/functions.html#sum",
                                BASE + "library/os.path.html#os.path.join"))
        self.assertEqual(dropped, 0)

    def test_anchors_that_are_not_ids_and_missing_pages_drop_out(self):
        gold, dropped = measure.gold_urls(
            ["python.library.functions#list", "python.library.nowhere#x",
             "python.library.functions"], FakeSite(), BASE)
        self.assertEqual((gold, dropped), ((), 3))

    def test_a_repeated_entry_is_one_gold_anchor(self):
        gold, _ = measure.gold_urls(["python.library.functions#max"] * 2, FakeSite(), BASE)
        self.assertEqual(gold, (BASE + "library/functions.html#max",))


class FirstSearchTest(unittest.TestCase):
    def test_first_ten_distinct_urls_of_the_first_search_in_rank_order(self):
        hits = [{"url": f"u{n // 2}"} for n in range(30)]  # each URL twice in a row
        response = {"trace": [search(*hits), read(), search({"url": "later"})]}
        self.assertEqual(measure.first_search_urls(response, lambda hit: hit["url"]),
                         [f"u{n}" for n in range(10)])

    def test_fragments_are_compared_unquoted(self):
        response = {"trace": [search({"url": "p.html#a%2Eb"})]}
        self.assertEqual(measure.first_search_urls(response, lambda hit: hit["url"]),
                         ["p.html#a.b"])

    def test_no_search_gives_no_urls(self):
        self.assertEqual(measure.first_search_urls({"trace": [read()]}, None), [])
        self.assertEqual(measure.first_search_urls({}, None), [])

    def test_returned_urls_are_every_search_hit_and_the_evidence(self):
        response = {"trace": [search({"url": "a"}, {"url": "b"}),
                              search({"url": "d"}, {"url": "a"})],
                    "evidence": [{"url": "c"}]}
        self.assertEqual(measure.returned_urls(response, lambda hit: hit["url"]),
                         {"a", "b", "c", "d"})


class ScoreTest(unittest.TestCase):
    def test_hit_rate_micro_recall_and_evidence_hit(self):
        runs = [(("g1", "g2", "g7"), ["g2", "x", "g1"], []),  # 2 of 3 found, no evidence hit
                (("g3",), ["g3"], ["g3"]),                      # found, evidence hit
                (("g4", "g5", "g6"), ["x"], ["x", "g6"])]       # none found, evidence hit
        self.assertEqual(measure.score(runs),
                         {"hit_at_1": 2 / 3, "hit_at_10": 2 / 3, "recall_at_10": 3 / 7,
                          "evidence_hit": 2 / 3})


class GoldWithoutUnitTest(unittest.TestCase):
    def test_gold_places_no_unit_names_are_counted_per_place_and_per_item(self):
        def question(qid, collection, *gold):
            return question_sets.Question(qid, "q", collection, "1", "object", frozenset(gold))

        # A place is a URL without its query here; each collection has its own units.
        questions = (question("a", "one", "p#x", "p#y"), question("b", "one", "p#z"),
                     question("c", "two", "p#x"))
        question_set = question_sets.QuestionSet(
            "set", questions, (), lambda item, url: url.split("?")[0])
        units = [("one", "p#x?1"), ("one", "p#x?2"), ("two", "p#w")]
        self.assertEqual(measure.gold_without_unit(question_set, units),
                         {"gold": 4, "without_unit": 3, "items_without_any": 2})


class PackageDocsTest(unittest.TestCase):
    """quality/package_docs.py: the two builds of a library, and a failed build's scores."""

    LIBRARY = package_docs.Library("sqlalchemy", "1.4.46", "/doc/sa/html",
                                   "file:///doc/sa/html/")

    def test_the_two_sources_are_the_release_on_the_index_and_the_rendered_root(self):
        self.assertEqual(self.LIBRARY.source("pypi"), "sqlalchemy/1.4.46=pypi:SQLAlchemy==1.4.46")
        self.assertEqual(self.LIBRARY.source("rendered"), "sqlalchemy/1.4.46=/doc/sa/html")
        other = package_docs.Library("pytest", "7.2.1", "/r", "file:///r/")
        self.assertEqual(other.source("pypi"), "pytest/7.2.1=pypi:pytest==7.2.1")

    def test_a_failed_build_scores_every_question_as_a_miss_per_kind(self):
        questions = tuple(question_sets.Question(str(n), "q", "sqlalchemy", "1.4.46", kind,
                                                 frozenset({("p.html", "x")}))
                          for n, kind in enumerate(("object", "object", "section")))
        question_set = question_sets.QuestionSet("set", questions, (), lambda item, url: url)
        figures = package_docs.scores(question_set, None)
        self.assertEqual([figures[kind]["items"] for kind in ("all", "object", "section")],
                         [3, 2, 1])
        for name, _ in measure.BUDGETS:
            self.assertEqual(set(figures["all"][name].values()), {0.0})

    def test_runs_are_scored_per_kind_at_each_budget(self):
        questions = tuple(question_sets.Question(str(n), "q", "c", "1", kind, frozenset({"a"}))
                          for n, kind in enumerate(("object", "section")))
        question_set = question_sets.QuestionSet("set", questions, (), lambda item, url: url)
        runs = {name: [{"first_urls": ["b", "a"], "evidence_urls": []},
                       {"first_urls": [], "evidence_urls": ["a"]}]
                for name, _ in measure.BUDGETS}
        figures = package_docs.scores(question_set, runs)
        self.assertEqual(figures["object"]["default"]["hit_at_10"], 1.0)
        self.assertEqual(figures["object"]["default"]["evidence_hit"], 0.0)
        self.assertEqual(figures["section"]["max_reads_8"]["evidence_hit"], 1.0)
        self.assertEqual(figures["all"]["default"]["hit_at_10"], 0.5)
        # Each item's places are kept, so a difference can be traced to its questions.
        items = package_docs.items(question_set, runs)
        self.assertEqual(items["0"]["default"], {"first": ["b", "a"], "evidence": []})
        self.assertEqual(items["1"]["max_reads_8"], {"first": [], "evidence": ["a"]})
        self.assertEqual(package_docs.items(question_set, None), {"0": {}, "1": {}})

    def test_an_object_is_searched_by_the_name_its_page_shows(self):
        code = '<code class="docutils literal"><span class="pre">{}</span></code>'
        pages = {
            "ref.html": (
                '<dl class="py function"><dt class="sig" id="pkg.mod.func">'
                '<span class="sig-prename descclassname"><span class="pre">pkg.mod.</span></span>'
                '<span class="sig-name descname"><span class="pre">func</span></span></dt></dl>'
                '<dl class="std confval"><dt class="sig" id="confval-markers">'
                '<span class="sig-name descname"><span class="pre">markers</span></span>'
                '<a class="headerlink" href="#confval-markers">¶</a></dt></dl>'
                '<section id="caplog"><span id="std-fixture-caplog"></span><h3>'
                '<a class="toc-backref" href="#id1">caplog</a></h3></section>'),
            "guide.html": (
                '<section id="the-limit-argument"><h3>The ' + code.format("limit")
                + ' argument<a class="headerlink">¶</a></h3></section>'
                '<section id="x-and-y"><h3>' + code.format(".strings") + " and "
                + code.format("stripped_strings") + "</h3></section>"),
            "api/index.html": (
                '<h3 id="force_authenticateusernone"><a class="toclink">'
                ".force_authenticate(user=None)</a></h3>"
                '<h2 id="page_size">PAGE_SIZE</h2>'),
        }
        expected = {
            "ref.html#pkg.mod.func": "pkg.mod.func",
            "ref.html#confval-markers": "markers",
            "ref.html#std-fixture-caplog": "caplog",
            "ref.html#caplog": "caplog",
            "guide.html#the-limit-argument": "limit",
            "guide.html#x-and-y": "strings",
            "api/index.html#force_authenticateusernone": "force_authenticate",
            "api/index.html#page_size": "PAGE_SIZE",
            "engines.html#sqlalchemy.create_engine.params.pool_pre_ping":
                "sqlalchemy.create_engine pool_pre_ping",
        }
        root = temporary_directory(self)
        for page, text in pages.items():
            os.makedirs(os.path.dirname(os.path.join(root, page)), exist_ok=True)
            with open(os.path.join(root, page), "w", encoding="utf-8") as handle:
                handle.write(f"<html><body>{text}</body></html>")
        for gold, name in expected.items():
            with self.subTest(gold):
                self.assertEqual(package_docs.object_name(root, gold), name)

    def test_found_by_name_counts_object_items_with_a_gold_place_in_the_first_ten(self):
        questions = tuple(question_sets.Question(str(n), "q", "c", "1", kind,
                                                 frozenset({("p.html", "a")}))
                          for n, kind in enumerate(("object", "object", "section")))
        question_set = question_sets.QuestionSet(
            "set", questions, (), lambda item, url: tuple(url.split("#", 1)))
        late = [f"p.html#b{n}" for n in range(10)] + ["p.html#a"]
        runs = {package_docs.BY_NAME: {"0": ["p.html#b", "p.html#a"], "1": late}}
        figures = package_docs.name_scores(question_set, {"0": "a", "1": "a"}, runs)
        self.assertEqual((figures["items"], figures["hit_at_10"]), (2, 0.5))
        self.assertEqual(figures["per_item"]["0"]["first_places"], ["p.html#b", "p.html#a"])
        self.assertEqual(package_docs.name_scores(question_set, {}, None)["hit_at_10"], 0.0)

    def test_another_checkout_comes_first_on_the_childs_path(self):
        env = package_docs.child_env("/elsewhere")
        self.assertEqual(env["PYTHONPATH"].split(os.pathsep)[0], "/elsewhere")
        self.assertEqual(package_docs.child_env(package_docs.REPO_ROOT)["PYTHONPATH"]
                         .split(os.pathsep)[0], package_docs.REPO_ROOT)


class FitFilesTest(unittest.TestCase):
    """The shipped fits are quality/fit.py --write's files, and the builder reads them as such."""

    def test_each_fit_file_names_its_command_and_sets(self):
        names = sorted(name[:-len(".json")] for name in os.listdir(FITS_DIR)
                       if name.endswith(".json"))
        self.assertEqual(names, ["lexical", "minilm", "wordllama"])
        for name in names:
            with self.subTest(fit=name), open(os.path.join(FITS_DIR, f"{name}.json"),
                                              encoding="utf-8") as handle:
                document = json.load(handle)
                self.assertEqual(list(document), ["note", "generated_by", "sets", "fit"])
                self.assertIn("Generated by quality/fit.py --write", document["note"])
                self.assertTrue(document["generated_by"].startswith("python quality/fit.py "))
                self.assertIn(f"--write {name}", document["generated_by"])
                trained = [entry["set"] for entry in document["sets"] if entry["role"] == "train"]
                self.assertIn("../shared/eval/conala/train.json", trained)
                self.assertEqual(load_fit(name), document["fit"])

    def test_write_fit_writes_what_load_fit_reads(self):
        require_module(self, "numpy", "semantic")
        from quality import fit

        directory = temporary_directory(self)
        args = argparse.Namespace(write="lexical", train=[("t.json", "SNAP", 2.0)],
                                  dev=[("d.json", "SNAP", 1.0)])
        model = {"candidates": 100, "weights": {"bm25_all": -0.1512, "in_links": 0.2235}}
        with mock.patch.object(fit, "FITS_DIR", directory), \
                contextlib.redirect_stderr(io.StringIO()):
            fit.write_fit(args, model, ["--write", "lexical", "--train", "t.json=SNAP:2"])
        with open(os.path.join(directory, "lexical.json"), encoding="utf-8") as handle:
            document = json.load(handle)
        self.assertEqual(document["generated_by"],
                         "python quality/fit.py --write lexical --train t.json=SNAP:2")
        self.assertEqual(document["sets"], [
            {"role": "train", "set": "t.json", "snapshot": "SNAP", "weight": 2.0},
            {"role": "dev", "set": "d.json", "snapshot": "SNAP"}])
        self.assertEqual(document["fit"], model)


if __name__ == "__main__":
    unittest.main()
