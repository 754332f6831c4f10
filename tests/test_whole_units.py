"""Whole units: a read of a piece of a unit the build cut says so, and a run reads the rest.

The builder cuts a long section into pieces of at most 2 KiB of whole blocks (blocks.py), each a
passage under the section's url and title. A read of one of them says where the unit goes on
(`truncated`, `previous_passage_id`, `next_passage_id`, `next_start_line`); a `reads: best` run
reads the other pieces while the allowances pay for them, in line order in its evidence, and
otherwise leaves the last piece read saying where the unit goes on.
"""

import io
import json
import os
import unittest

from retrieval.core.verify import verify_run_result
from retrieval.ingest.builder import DEFAULT_POLICY, Progress, SourceTree, build_snapshot
from retrieval.ingest.default_policy import default_policy
from retrieval.wsgi import create_app
from tests.schema import errors as schema_errors
from tests.support import call, class_temporary_directory, quiet_settings
from tests.test_html_ingest import write_tree

TIER = "inprocess"

BASE = "https://example.org/"
HERD_URL = BASE + "llms-full.txt#configure-the-herd"
QUESTION = "how many goats does herd_size let graze"


def _paragraph(number: int) -> str:
    # Only the first half of the section answers the question: its second piece matches none of
    # the question's words, so no search finds it, and only its first piece's read names it.
    if number < 4:
        return (f"Paragraph {number} of the herd configuration: the herd_size option sets how "
                "many goats graze at once, and every goat needs a pasture of its own. ") * 3
    return (f"Paragraph {number}: fences around each pasture are checked weekly for gaps, "
            "loose posts and broken wire, and mended before the next morning. ") * 3


# One section of about 3.5 KiB: the build cuts it in two pieces (lines 5-13 and 15-21).
TEXT = ("# Goats\n\nAn introduction to goats.\n\n## Configure the herd\n\n"
        + "\n\n".join(_paragraph(number) for number in range(8))
        + "\n\n## Milking\n\nMilking happens twice daily, after the goats graze.\n")


def build_herd(cls, policy=DEFAULT_POLICY) -> str:
    """Build TEXT at version 1.0 in a directory of the test class's; return the snapshot's path."""
    base = class_temporary_directory(cls)
    write_tree(base, {"src/llms-full.txt": TEXT})
    out = os.path.join(base, "snapshot")
    build_snapshot([SourceTree("1.0", os.path.join(base, "src", "llms-full.txt"), BASE)],
                   out, policy, Progress(io.StringIO()))
    return out


class WholeUnitsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.app = create_app(snapshot_path=build_herd(cls), settings=quiet_settings())

    @classmethod
    def tearDownClass(cls):
        cls.app.close()

    def retrieve(self, **fields):
        reply = call(self.app, "POST", "/retrieve", json.dumps(
            {"question": QUESTION, "version": "1.0", **fields}).encode())
        self.assertEqual(reply.code, 200, reply.body)
        verify_run_result(reply.body, reply.json())  # what a client checks still recomputes
        return reply.json()

    def pieces(self, document):
        return [item for item in document["evidence"] if item["url"] == HERD_URL]

    def test_a_cut_section_is_read_whole_when_the_allowances_pay_for_it(self):
        document = self.retrieve()
        first, second = self.pieces(document)
        self.assertEqual([(p["start_line"], p["end_line"]) for p in (first, second)],
                         [(5, 13), (15, 21)])
        # Each piece says the unit was cut and where it goes on; together they are all of it.
        self.assertEqual((first["truncated"], first["next_passage_id"], first["next_start_line"]),
                         (True, second["passage_id"], 15))
        self.assertNotIn("previous_passage_id", first)
        self.assertEqual((second["truncated"], second["previous_passage_id"]),
                         (True, first["passage_id"]))
        self.assertNotIn("next_passage_id", second)
        section = "## Configure the herd" + TEXT.split("## Configure the herd")[1].split(
            "\n\n## Milking")[0]
        self.assertEqual(first["text"] + "\n\n" + second["text"], section)
        # The piece no search found is read as any hit is: an admitted, traced read of a handle
        # issued for the same search, at the score and rank of the hit it continues.
        [search] = [entry for entry in document["trace"] if entry["action"]["tool"] == "search"]
        self.assertNotIn(second["passage_id"], [hit["passage_id"]
                                                for hit in search["result"]["results"]])
        reads = [entry for entry in document["trace"] if entry["action"]["tool"] == "read"]
        handles = [entry["action"]["arguments"]["handle"] for entry in reads]
        self.assertEqual([handle["passage_id"] for handle in handles[:2]],
                         [first["passage_id"], second["passage_id"]])
        self.assertEqual({(h["search_request_id"], h["rank"], h["native_score"])
                          for h in handles[:2]},
                         {(handles[0]["search_request_id"], handles[0]["rank"],
                           handles[0]["native_score"])})
        # Charged a step and its bytes, but no read: max_reads (2) counts units, and the next
        # best unit is still read.
        self.assertEqual(len(handles), 3)
        self.assertNotEqual(handles[2]["url"], HERD_URL)
        self.assertEqual((document["usage"]["steps"], document["usage"]["reads"]), (4, 2))
        self.assertEqual(document["usage"]["reserved_source_bytes"],
                         sum(handle["byte_count"] for handle in handles))

    def test_a_budget_that_cannot_pay_for_the_rest_leaves_it_said_where(self):
        document = self.retrieve(max_source_bytes=2048)
        [piece] = self.pieces(document)
        self.assertTrue(piece["truncated"])
        other = piece.get("next_passage_id") or piece.get("previous_passage_id")
        self.assertNotIn(other, [item["passage_id"] for item in document["evidence"]])
        # Where it goes on is readable by id.
        rest = call(self.app, "GET", "/passages/" + other).json()
        self.assertEqual(rest["url"], HERD_URL)
        if "next_start_line" in piece:
            self.assertEqual(rest["start_line"], piece["next_start_line"])

    def test_a_piece_never_takes_the_step_of_a_unit_below_it(self):
        # Three steps: the search, the cut section's first piece, and one more. Its second
        # piece would take the step the next unit's read needs: the next unit is read instead
        # (max_reads, 2, pays for it), and the piece read says where the section goes on.
        document = self.retrieve(max_steps=3)
        [piece] = self.pieces(document)
        self.assertEqual((piece["start_line"], piece["next_start_line"]), (5, 15))
        others = [item for item in document["evidence"] if item["url"] != HERD_URL]
        self.assertEqual(len(others), 1)
        self.assertEqual((document["usage"]["steps"], document["usage"]["reads"]), (3, 2))
        # With a step to spare for both, the section is read whole and the next unit too.
        document = self.retrieve(max_steps=4)
        self.assertEqual(len(self.pieces(document)), 2)
        self.assertEqual(document["usage"]["reads"], 2)
        # A run that may read one unit only reads that unit whole.
        document = self.retrieve(max_steps=3, max_reads=1)
        self.assertEqual(len(self.pieces(document)), 2)
        self.assertEqual(len(document["evidence"]), 2)

    def test_an_uncut_unit_says_nothing_of_pieces(self):
        document = self.retrieve(max_reads=8)
        others = [item for item in document["evidence"] if item["url"] != HERD_URL]
        self.assertTrue(others)
        for item in others:
            self.assertFalse({"truncated", "previous_passage_id", "next_passage_id",
                              "next_start_line"} & set(item))

    def test_a_search_text_that_is_a_piece_says_where_its_unit_goes_on(self):
        reply = call(self.app, "POST", "/search", json.dumps(
            {"query": QUESTION, "version": "1.0", "max_text_bytes": 8192}).encode())
        hits = reply.json()["hits"]
        [piece] = [hit for hit in hits if hit["url"] == HERD_URL]
        self.assertEqual((piece["start_line"], piece["truncated"], piece["next_start_line"]),
                         (5, True, 15))
        for hit in hits:
            if hit is not piece:
                self.assertNotIn("truncated", hit)
        document = call(self.app, "GET", "/openapi.json").json()
        schema = document["paths"]["/search"]["post"]["responses"]["200"]["content"][
            "application/json"]["schema"]
        self.assertEqual(schema_errors(schema, reply.json(), document), [])

    def test_a_search_gives_a_cut_unit_one_place_at_its_best_piece(self):
        # Both pieces of the section hold "pasture": the unit is one hit, not two.
        reply = call(self.app, "POST", "/search", json.dumps(
            {"query": "pasture", "version": "1.0", "max_text_bytes": 8192}).encode())
        self.assertEqual(reply.code, 200, reply.body)
        hits = reply.json()["hits"]
        self.assertEqual(len([hit for hit in hits if hit["url"] == HERD_URL]), 1)
        self.assertEqual(len({(hit["url"], hit["title"]) for hit in hits}), len(hits))

    def test_the_reads_are_the_documented_shape(self):
        schema_document = call(self.app, "GET", "/openapi.json").json()
        schema = schema_document["paths"]["/retrieve"]["post"]["responses"]["200"]["content"][
            "application/json"]["schema"]
        for fields in ({}, {"max_source_bytes": 2048}, {"max_reads": 8}):
            with self.subTest(fields=fields):
                self.assertEqual(schema_errors(schema, self.retrieve(**fields), schema_document),
                                 [])


class FieldedSearchTest(unittest.TestCase):
    """Without a ranking model a search ranks k rows: where pieces of one unit took some of
    them, it ranks deeper until it has k units."""

    @classmethod
    def setUpClass(cls):
        cls.app = create_app(snapshot_path=build_herd(cls, default_policy("fielded")),
                             settings=quiet_settings())

    @classmethod
    def tearDownClass(cls):
        cls.app.close()

    def test_k_places_go_to_k_units(self):
        reply = call(self.app, "POST", "/search", json.dumps(
            {"query": "pasture fences goat", "version": "1.0", "limit": 2}).encode())
        self.assertEqual(reply.code, 200, reply.body)
        hits = reply.json()["hits"]
        self.assertEqual(len(hits), 2)
        self.assertEqual(len({(hit["url"], hit["title"]) for hit in hits}), 2)
        self.assertIn(HERD_URL, [hit["url"] for hit in hits])


if __name__ == "__main__":
    unittest.main()
