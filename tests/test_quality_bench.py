"""The scoring rules of bench/quality.py (the gold rule and metrics of ../shared/eval/README.md)."""

import unittest

from bench import quality, question_sets

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
        gold, dropped = quality.gold_urls(
            ["pandas.reference.api.pandas.dataframe.groupby", "python.library.functions#sum",
             "python.library.os.path#os.path.join"], FakeSite(), BASE)
        self.assertEqual(gold, (BASE + "library/functions.html#sum",
                                BASE + "library/os.path.html#os.path.join"))
        self.assertEqual(dropped, 0)

    def test_anchors_that_are_not_ids_and_missing_pages_drop_out(self):
        gold, dropped = quality.gold_urls(
            ["python.library.functions#list", "python.library.nowhere#x",
             "python.library.functions"], FakeSite(), BASE)
        self.assertEqual((gold, dropped), ((), 3))

    def test_a_repeated_entry_is_one_gold_anchor(self):
        gold, _ = quality.gold_urls(["python.library.functions#max"] * 2, FakeSite(), BASE)
        self.assertEqual(gold, (BASE + "library/functions.html#max",))


class FirstSearchTest(unittest.TestCase):
    def test_first_ten_distinct_urls_of_the_first_search_in_rank_order(self):
        hits = [{"url": f"u{n // 2}"} for n in range(30)]  # each URL twice in a row
        response = {"trace": [search(*hits), read(), search({"url": "later"})]}
        self.assertEqual(quality.first_search_urls(response, lambda hit: hit["url"]),
                         [f"u{n}" for n in range(10)])

    def test_fragments_are_compared_unquoted(self):
        response = {"trace": [search({"url": "p.html#a%2Eb"})]}
        self.assertEqual(quality.first_search_urls(response, lambda hit: hit["url"]),
                         ["p.html#a.b"])

    def test_no_search_gives_no_urls(self):
        self.assertEqual(quality.first_search_urls({"trace": [read()]}, None), [])
        self.assertEqual(quality.first_search_urls({}, None), [])

    def test_returned_urls_are_every_search_hit_and_the_evidence(self):
        response = {"trace": [search({"url": "a"}, {"url": "b"}),
                              search({"url": "d"}, {"url": "a"})],
                    "evidence": [{"url": "c"}]}
        self.assertEqual(quality.returned_urls(response, lambda hit: hit["url"]),
                         {"a", "b", "c", "d"})


class ScoreTest(unittest.TestCase):
    def test_hit_rate_micro_recall_and_evidence_hit(self):
        runs = [(("g1", "g2", "g7"), ["g2", "x", "g1"], []),  # 2 of 3 found, no evidence hit
                (("g3",), ["g3"], ["g3"]),                      # found, evidence hit
                (("g4", "g5", "g6"), ["x"], ["x", "g6"])]       # none found, evidence hit
        self.assertEqual(quality.score(runs),
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
        self.assertEqual(quality.gold_without_unit(question_set, units),
                         {"gold": 4, "without_unit": 3, "items_without_any": 2})


if __name__ == "__main__":
    unittest.main()
